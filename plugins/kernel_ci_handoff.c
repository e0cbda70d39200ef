#include "base/pr.h"
#include "base/http.h"
#include "base/sha1.h"
#include "kernel_ci.h"
#include "mail/am.h"

#include <jansson.h>
#include <time.h>

/*
 * The hand-off (kernel_ci.h): instead of building here, the version goes
 * to the project's own CI and its result comes back as a report.
 *
 * GitLab: POST /projects/:id/trigger/pipeline with the trigger token, the
 * ref and the version as variables; then GET /projects/:id/pipelines/:pid
 * every ci-poll until it ends (success, failed, canceled, skipped), its
 * jobs (GET .../jobs) and the trace of each failed one (GET
 * /projects/:id/jobs/:job/trace).
 *
 * GitHub: POST /repos/:o/:r/actions/workflows/:wf/dispatches with the ref
 * and the version as inputs (204, no run named in the answer); the run is
 * the workflow_dispatch run whose title holds this hand-off's id (the
 * workflow sets `run-name: ... ${{ inputs.patchrelay_id }}`); then GET
 * /repos/:o/:r/actions/runs/:id until it is completed, and its jobs.
 *
 * A run still going at ci-timeout is cancelled and fails.  The variables
 * (inputs): PATCHRELAY_ID, _SERIES, _VERSION, _BASE and _MBOX (the version
 * as `git am` takes it).
 */

#define TRACE_LINES 40
#define MBOX_INPUT_MAX 65535 /* a workflow_dispatch input */

struct handoff {
	struct pr_kci_run *r;
	struct pr_http_client http;
	struct pr_buf api; /* api-url without a trailing '/' */
	char id[32];
	struct pr_buf mbox, base, series, version;
	int64_t start, deadline;
	const char *headers[3];
};

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000),
			       (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A request whose status must be `want`; the body parsed when asked. */
static int call(json_t **out, struct pr_buf *text, struct handoff *h,
		const char *method, const char *url, const char *body,
		long want, const struct pr_http_client *client)
{
	struct pr_http_response resp;
	json_error_t jerr;
	int err;

	if (out)
		*out = NULL;
	err = pr_http_request(&resp, client ? client : &h->http, method, url,
			      body, NULL);
	if (err)
		goto done;
	if (resp.status != want) {
		pr_buf_rtrim(&resp.body);
		err = pr_error(resp.status == 401 || resp.status == 403
				       ? PR_EAUTH
				       : PR_ENET,
			       "%s '%s': HTTP %ld: %.300s", method, url,
			       resp.status, resp.body.ptr);
		goto done;
	}
	if (text)
		pr_buf_addbuf(text, &resp.body);
	if (out) {
		*out = json_loadb(resp.body.ptr, resp.body.len, 0, &jerr);
		if (!*out || !json_is_object(*out))
			err = pr_error(PR_EPARSE, "%s '%s': not a JSON object",
				       method, url);
	}
done:
	pr_http_response_release(&resp);
	return err;
}

/* A run past ci-timeout: cancelled (POST url), and a FAIL entry. */
static void cancel(struct handoff *h, const char *rule, const char *what,
		   int64_t id, const char *status, const char *url,
		   const char *body, long want, const char *web_url)
{
	int err = call(NULL, NULL, h, "POST", url, body, want, NULL);

	pr_report_add(h->r->report, h->r->step, rule, PR_VERDICT_FAIL, -1, NULL,
		      "%s %lld did not finish within %lld s (%s, cancelled%s): "
		      "%s",
		      what, (long long)id,
		      (long long)(h->r->c->ci_timeout / 1000), status,
		      err ? " failed" : "", web_url);
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static int64_t num(const json_t *o, const char *key)
{
	return (int64_t)json_number_value(json_object_get(o, key));
}

/* The version as `git am` takes it, and what says which version it is. */
static int describe(struct handoff *h, const struct pr_series *s,
		    const struct pr_version *v)
{
	struct pr_sha1 sha;
	char hex[PR_SHA1_HEXSZ + 1], base[41];
	int64_t now = pr_proc_now_ms();
	size_t i;
	int err = 0;

	for (i = 0; i < v->nr && !err; i++)
		err = pr_am_write_patch(&h->mbox, v->patches[i], (int)i + 1,
					(int)v->nr, NULL);
	if (err)
		return err;
	pr_buf_adds(&h->series, s && s->origin_key ? s->origin_key : "check");
	pr_buf_addf(&h->version, "%d", v->number);
	pr_kci_named_base(base, v);
	pr_buf_adds(&h->base, base);
	pr_sha1_init(&sha);
	pr_sha1_update(&sha, h->mbox.ptr, h->mbox.len);
	pr_sha1_update(&sha, h->series.ptr, h->series.len);
	pr_sha1_update(&sha, &now, sizeof(now));
	pr_sha1_final_hex(hex, &sha);
	snprintf(h->id, sizeof(h->id), "pr-%.16s", hex);
	return 0;
}

static json_t *variables(const struct handoff *h, bool lower)
{
	json_t *o = json_object();

	json_object_set_new(o, lower ? "patchrelay_id" : "PATCHRELAY_ID",
			    json_string(h->id));
	json_object_set_new(o, lower ? "series" : "PATCHRELAY_SERIES",
			    json_string(h->series.ptr));
	json_object_set_new(o, lower ? "version" : "PATCHRELAY_VERSION",
			    json_string(h->version.ptr));
	json_object_set_new(o, lower ? "base" : "PATCHRELAY_BASE",
			    json_string(h->base.ptr));
	json_object_set_new(o, lower ? "mbox" : "PATCHRELAY_MBOX",
			    json_stringn(h->mbox.ptr, h->mbox.len));
	return o;
}

/* The last TRACE_LINES lines of a job's log, printable. */
static void tail_of(struct pr_buf *out, const char *text)
{
	const char *p = text + strlen(text);
	size_t lines = 0;

	while (p > text && (p[-1] == '\n' || p[-1] == '\r'))
		p--;
	while (p > text && lines < TRACE_LINES)
		if (*--p == '\n')
			lines++;
	if (*p == '\n')
		p++;
	for (; *p; p++)
		pr_buf_addch(out, *p == '\r' ? '\n'
				  : (unsigned char)*p >= 0x20 || *p == '\n' ||
						  *p == '\t'
					  ? *p
					  : '?');
	if (out->len && out->ptr[out->len - 1] != '\n')
		pr_buf_addch(out, '\n');
}

static enum pr_verdict gitlab_job_verdict(const json_t *job)
{
	const char *st = str(job, "status");

	if (!strcmp(st, "success"))
		return PR_VERDICT_PASS;
	if (!strcmp(st, "failed"))
		return json_is_true(json_object_get(job, "allow_failure"))
			       ? PR_VERDICT_WARN
			       : PR_VERDICT_FAIL;
	if (!strcmp(st, "canceled"))
		return PR_VERDICT_FAIL;
	return PR_VERDICT_SKIP;
}

static bool gitlab_done(const char *status)
{
	return !strcmp(status, "success") || !strcmp(status, "failed") ||
	       !strcmp(status, "canceled") || !strcmp(status, "skipped");
}

static int gitlab_jobs(struct handoff *h, const char *project, int64_t pid)
{
	struct pr_kci_run *r = h->r;
	struct pr_buf url = PR_BUF_INIT, trace = PR_BUF_INIT;
	struct pr_buf detail = PR_BUF_INIT;
	json_t *wrap = NULL, *jobs;
	struct pr_http_response resp;
	json_error_t jerr;
	size_t i;
	int err;

	pr_buf_addf(&url, "%s/projects/%s/pipelines/%lld/jobs?per_page=100",
		    h->api.ptr, project, (long long)pid);
	memset(&resp, 0, sizeof(resp));
	if ((err = pr_http_request(&resp, &h->http, "GET", url.ptr, NULL,
				   NULL)))
		goto done;
	if (resp.status != 200) {
		err = pr_error(PR_ENET, "GET '%s': HTTP %ld", url.ptr,
			       resp.status);
		goto done;
	}
	jobs = wrap = json_loadb(resp.body.ptr, resp.body.len, 0, &jerr);
	if (!json_is_array(jobs)) {
		err = pr_error(PR_EPARSE, "GET '%s': not a JSON array",
			       url.ptr);
		goto done;
	}
	/* GitLab lists the newest first: report in the order they ran */
	for (i = json_array_size(jobs); i-- > 0;) {
		const json_t *job = json_array_get(jobs, i);
		enum pr_verdict verdict = gitlab_job_verdict(job);
		struct pr_buf rule = PR_BUF_INIT;

		pr_buf_reset(&detail);
		if (verdict == PR_VERDICT_FAIL || verdict == PR_VERDICT_WARN) {
			pr_buf_reset(&url);
			pr_buf_reset(&trace);
			pr_buf_addf(&url, "%s/projects/%s/jobs/%lld/trace",
				    h->api.ptr, project,
				    (long long)num(job, "id"));
			if (!call(NULL, &trace, h, "GET", url.ptr, NULL, 200,
				  NULL))
				tail_of(&detail, trace.ptr);
			else
				pr_buf_addf(&detail, "(no trace: %s)\n",
					    pr_error_message());
		}
		pr_buf_addf(&detail, "(%s)\n", str(job, "web_url"));
		pr_buf_addf(&rule, "job:%s", str(job, "name"));
		pr_report_add(
			r->report, r->step, rule.ptr, verdict, -1, detail.ptr,
			"job '%s' (stage %s) %s in %.1f s", str(job, "name"),
			str(job, "stage"), str(job, "status"),
			json_number_value(json_object_get(job, "duration")));
		pr_buf_release(&rule);
	}
done:
	json_decref(wrap);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	pr_buf_release(&trace);
	pr_buf_release(&detail);
	return err;
}

static int gitlab(struct handoff *h)
{
	const struct pr_kci_ctx *c = h->r->c;
	struct pr_http_client anon = h->http;
	struct pr_buf project = PR_BUF_INIT, url = PR_BUF_INIT;
	json_t *body = json_object(), *p = NULL;
	char *text = NULL;
	const char *status = "";
	int64_t pid;
	int err;

	pr_http_escape(&project, c->ci_project);
	/* the trigger token is the request's only credential, in its body */
	anon.token = NULL;
	json_object_set_new(body, "token", json_string(c->ci_trigger_token));
	json_object_set_new(body, "ref", json_string(c->ci_ref));
	json_object_set_new(body, "variables", variables(h, false));
	text = json_dumps(body, JSON_COMPACT);
	pr_buf_addf(&url, "%s/projects/%s/trigger/pipeline", h->api.ptr,
		    project.ptr);
	err = call(&p, NULL, h, "POST", url.ptr, text, 201, &anon);
	if (text)
		memset(text, 0, strlen(text)); /* the token */
	if (err)
		goto done;
	pid = num(p, "id");
	pr_log_info(h->r->inst->prefix, "%s: GitLab pipeline %lld: %s",
		    h->r->step, (long long)pid, str(p, "web_url"));
	while (!gitlab_done(status = str(p, "status"))) {
		if (pr_proc_now_ms() >= h->deadline)
			break;
		sleep_ms(c->ci_poll);
		json_decref(p);
		pr_buf_reset(&url);
		pr_buf_addf(&url, "%s/projects/%s/pipelines/%lld", h->api.ptr,
			    project.ptr, (long long)pid);
		if ((err = call(&p, NULL, h, "GET", url.ptr, NULL, 200, NULL)))
			goto done;
	}
	if (!gitlab_done(status)) {
		pr_buf_reset(&url);
		pr_buf_addf(&url, "%s/projects/%s/pipelines/%lld/cancel",
			    h->api.ptr, project.ptr, (long long)pid);
		cancel(h, "pipeline", "GitLab pipeline", pid, status, url.ptr,
		       NULL, 200, str(p, "web_url"));
		goto done;
	}
	pr_report_add(h->r->report, h->r->step, "pipeline",
		      !strcmp(status, "success")   ? PR_VERDICT_PASS
		      : !strcmp(status, "skipped") ? PR_VERDICT_SKIP
						   : PR_VERDICT_FAIL,
		      -1, NULL, "GitLab pipeline %lld %s after %.1f s: %s",
		      (long long)pid, status,
		      (double)(pr_proc_now_ms() - h->start) / 1000.0,
		      str(p, "web_url"));
	err = gitlab_jobs(h, project.ptr, pid);
done:
	free(text);
	json_decref(body);
	json_decref(p);
	pr_buf_release(&project);
	pr_buf_release(&url);
	return err;
}

static enum pr_verdict github_verdict(const char *conclusion)
{
	if (!strcmp(conclusion, "success"))
		return PR_VERDICT_PASS;
	if (!strcmp(conclusion, "neutral") || !strcmp(conclusion, "skipped"))
		return PR_VERDICT_SKIP;
	return PR_VERDICT_FAIL;
}

/* The workflow_dispatch run whose title holds our id: its id, or 0. */
static int github_find(int64_t *run, struct handoff *h, const char *repo)
{
	const struct pr_kci_ctx *c = h->r->c;
	struct pr_buf url = PR_BUF_INIT, ref = PR_BUF_INIT;
	json_t *o = NULL, *runs;
	size_t i;
	int err;

	*run = 0;
	pr_http_escape(&ref, c->ci_ref);
	pr_buf_addf(&url,
		    "%s/repos/%s/actions/workflows/%s/runs?"
		    "event=workflow_dispatch&branch=%s&per_page=100",
		    h->api.ptr, repo, c->ci_workflow, ref.ptr);
	if ((err = call(&o, NULL, h, "GET", url.ptr, NULL, 200, NULL)))
		goto done;
	runs = json_object_get(o, "workflow_runs");
	for (i = 0; i < json_array_size(runs); i++) {
		const json_t *one = json_array_get(runs, i);

		if (strstr(str(one, "display_title"), h->id)) {
			*run = num(one, "id");
			break;
		}
	}
done:
	json_decref(o);
	pr_buf_release(&url);
	pr_buf_release(&ref);
	return err;
}

static int github_jobs(struct handoff *h, const char *repo, int64_t run)
{
	struct pr_kci_run *r = h->r;
	struct pr_buf url = PR_BUF_INIT, detail = PR_BUF_INIT;
	json_t *o = NULL, *jobs;
	size_t i, k;
	int err;

	pr_buf_addf(&url, "%s/repos/%s/actions/runs/%lld/jobs?per_page=100",
		    h->api.ptr, repo, (long long)run);
	if ((err = call(&o, NULL, h, "GET", url.ptr, NULL, 200, NULL)))
		goto done;
	jobs = json_object_get(o, "jobs");
	for (i = 0; i < json_array_size(jobs); i++) {
		const json_t *job = json_array_get(jobs, i);
		const json_t *steps = json_object_get(job, "steps");
		struct pr_buf rule = PR_BUF_INIT;

		pr_buf_reset(&detail);
		for (k = 0; k < json_array_size(steps); k++) {
			const json_t *st = json_array_get(steps, k);

			if (github_verdict(str(st, "conclusion")) ==
			    PR_VERDICT_FAIL)
				pr_buf_addf(&detail, "step %lld '%s': %s\n",
					    (long long)num(st, "number"),
					    str(st, "name"),
					    str(st, "conclusion"));
		}
		pr_buf_addf(&detail, "(%s)\n", str(job, "html_url"));
		pr_buf_addf(&rule, "job:%s", str(job, "name"));
		pr_report_add(r->report, r->step, rule.ptr,
			      github_verdict(str(job, "conclusion")), -1,
			      detail.ptr, "job '%s' %s", str(job, "name"),
			      str(job, "conclusion"));
		pr_buf_release(&rule);
	}
done:
	json_decref(o);
	pr_buf_release(&url);
	pr_buf_release(&detail);
	return err;
}

static int github(struct handoff *h)
{
	const struct pr_kci_ctx *c = h->r->c;
	const char *repo = c->ci_project;
	struct pr_buf url = PR_BUF_INIT;
	json_t *body = json_object(), *inputs, *o = NULL;
	char *text = NULL;
	const char *status = "";
	int64_t run = 0;
	int err;

	if (h->mbox.len > MBOX_INPUT_MAX) {
		err = pr_error(PR_ETOOBIG,
			       "check '%s': the version (%zu bytes) is over a "
			       "workflow_dispatch input's %d",
			       h->r->inst->name, h->mbox.len, MBOX_INPUT_MAX);
		goto done;
	}
	inputs = variables(h, true);
	json_object_set_new(body, "ref", json_string(c->ci_ref));
	json_object_set_new(body, "inputs", inputs);
	text = json_dumps(body, JSON_COMPACT);
	pr_buf_addf(&url, "%s/repos/%s/actions/workflows/%s/dispatches",
		    h->api.ptr, repo, c->ci_workflow);
	if ((err = call(NULL, NULL, h, "POST", url.ptr, text, 204, NULL)))
		goto done;
	/* the answer names no run: find it by the id in its title */
	while (!run && pr_proc_now_ms() < h->deadline) {
		sleep_ms(c->ci_poll);
		if ((err = github_find(&run, h, repo)))
			goto done;
	}
	if (!run) {
		pr_report_add(h->r->report, h->r->step, "workflow",
			      PR_VERDICT_FAIL, -1, NULL,
			      "no run of workflow '%s' for %s showed within "
			      "%lld s (does its run-name hold "
			      "inputs.patchrelay_id?)",
			      c->ci_workflow, h->id,
			      (long long)(c->ci_timeout / 1000));
		goto done;
	}
	pr_log_info(h->r->inst->prefix, "%s: GitHub Actions run %lld",
		    h->r->step, (long long)run);
	pr_buf_reset(&url);
	pr_buf_addf(&url, "%s/repos/%s/actions/runs/%lld", h->api.ptr, repo,
		    (long long)run);
	for (;;) {
		json_decref(o);
		if ((err = call(&o, NULL, h, "GET", url.ptr, NULL, 200, NULL)))
			goto done;
		status = str(o, "status");
		if (!strcmp(status, "completed") ||
		    pr_proc_now_ms() >= h->deadline)
			break;
		sleep_ms(c->ci_poll);
	}
	if (strcmp(status, "completed")) {
		pr_buf_addf(&url, "/cancel");
		cancel(h, "workflow", "GitHub Actions run", run, status,
		       url.ptr, "{}", 202, str(o, "html_url"));
		goto done;
	}
	pr_report_add(h->r->report, h->r->step, "workflow",
		      github_verdict(str(o, "conclusion")), -1, NULL,
		      "GitHub Actions run %lld %s after %.1f s: %s",
		      (long long)run, str(o, "conclusion"),
		      (double)(pr_proc_now_ms() - h->start) / 1000.0,
		      str(o, "html_url"));
	err = github_jobs(h, repo, run);
done:
	free(text);
	json_decref(body);
	json_decref(o);
	pr_buf_release(&url);
	return err;
}

int pr_kci_handoff(struct pr_kci_run *r, const struct pr_series *s,
		   const struct pr_version *v)
{
	const struct pr_kci_ctx *c = r->c;
	bool lab = !strcmp(c->run_on, "gitlab-pipeline");
	struct handoff h;
	int err;

	memset(&h, 0, sizeof(h));
	h.r = r;
	pr_buf_init(&h.api, 0);
	pr_buf_init(&h.mbox, 0);
	pr_buf_init(&h.base, 0);
	pr_buf_init(&h.series, 0);
	pr_buf_init(&h.version, 0);
	pr_buf_adds(&h.api, c->ci_api_url);
	while (h.api.len && h.api.ptr[h.api.len - 1] == '/')
		pr_buf_setlen(&h.api, h.api.len - 1);
	h.http.log_prefix = r->inst->prefix;
	h.http.token = c->ci_token;
	h.http.auth_header = lab ? "PRIVATE-TOKEN: %s"
				 : "Authorization: Bearer %s";
	if (!lab) {
		h.headers[0] = "Accept: application/vnd.github+json";
		h.headers[1] = "X-GitHub-Api-Version: 2022-11-28";
		h.http.headers = h.headers;
	}
	h.start = pr_proc_now_ms();
	h.deadline = h.start + c->ci_timeout;
	if (!(err = describe(&h, s, v)))
		err = lab ? gitlab(&h) : github(&h);
	if (err)
		err = pr_error_wrap(
			err, "check '%s': %s hand-off", r->inst->name,
			lab ? "GitLab pipeline" : "GitHub workflow");
	pr_buf_release(&h.api);
	pr_buf_release(&h.mbox);
	pr_buf_release(&h.base);
	pr_buf_release(&h.series);
	pr_buf_release(&h.version);
	return err;
}
