#include "base/pr.h"

#include <jansson.h>

#include "engine/delivery.h"
#include "engine/idmap.h"
#include "model/model.h"
#include "model/report.h"
#include "patchwork.h"

/*
 * The patchwork type: its options, open/close, and feedback.
 *
 * feedback: a route's report on a version from mail becomes checks on
 * the version's patches in Patchwork, one per step and patch: context
 * "CHECK-CONTEXT-STEP", state from the worst verdict of that step's
 * entries for the patch or for the whole series (pass: success, warn:
 * warning, fail: fail; a step with no entry for the patch says nothing
 * against it: success; a step that only skipped posts nothing),
 * description the messages of those worst entries, target_url from
 * report-url.  A check is posted only when its state differs from the
 * last one posted for the context (noted "check:ID:CONTEXT"; without a
 * note, the newest check Patchwork has for the context), so a re-run
 * posts nothing.  A landing told to feedback is the sink's business:
 * nothing is posted for it.
 */

#define DESCRIPTION_MAX 1000

static const struct pr_option pw_options[] = {
	{ "api-url", PR_OPT_STRING, NULL,
	  "the server's API root (https://patchwork.kernel.org/api/)",
	  offsetof(struct pr_patchwork_ctx, api_url), true, NULL },
	{ "project", PR_OPT_STRING, NULL, "the project's link name",
	  offsetof(struct pr_patchwork_ctx, project), true, NULL },
	{ "token", PR_OPT_SECRET, NULL,
	  "the API token (a maintainer's, for state changes and checks): "
	  "file:PATH or env:NAME",
	  offsetof(struct pr_patchwork_ctx, token), false, NULL },
	{ "on-landed", PR_OPT_STRING, "accepted",
	  "the state a patch whose commit landed is set to",
	  offsetof(struct pr_patchwork_ctx, on_landed), false, NULL },
	{ "on-superseded", PR_OPT_STRING, "superseded",
	  "the state the patches of earlier versions are set to",
	  offsetof(struct pr_patchwork_ctx, on_superseded), false, NULL },
	{ "check-context", PR_OPT_STRING, "patchrelay",
	  "checks are posted as CONTEXT-STEP",
	  offsetof(struct pr_patchwork_ctx, check_context), false, NULL },
	{ "match", PR_OPT_LIST, NULL,
	  "how a landed commit finds its patch, in order: msgid, hash, "
	  "patch-id, subject (default: msgid hash patch-id)",
	  offsetof(struct pr_patchwork_ctx, match), false, NULL },
	{ "report-url", PR_OPT_STRING, NULL,
	  "the checks' target_url: {msgid} and {step} are replaced",
	  offsetof(struct pr_patchwork_ctx, report_url), false, NULL },
	{ "archive", PR_OPT_BOOL, "false",
	  "archive a patch when it is set to on-landed",
	  offsetof(struct pr_patchwork_ctx, archive), false, NULL },
	{ "since", PR_OPT_STRING, NULL,
	  "source: the events the first poll reads start at this ISO "
	  "date (default: only events after the first poll)",
	  offsetof(struct pr_patchwork_ctx, since), false, NULL },
	{ "max-pages", PR_OPT_INT, "0",
	  "the most pages one list is followed for (0: no limit)",
	  offsetof(struct pr_patchwork_ctx, max_pages), false, NULL },
	{ "ca-file", PR_OPT_PATH, NULL,
	  "CA bundle replacing the system's for the API",
	  offsetof(struct pr_patchwork_ctx, ca_file), false, NULL },
	{ "timeout", PR_OPT_DURATION, "60s",
	  "the longest one API request may take",
	  offsetof(struct pr_patchwork_ctx, timeout), false, NULL },
	PR_OPTIONS_END,
};

static int pw_open(struct pr_instance *inst)
{
	struct pr_pw *pw = NULL;
	int err;

	if ((err = pr_pw_open(&pw, inst)))
		return err;
	inst->state = pw;
	return 0;
}

static void pw_close(struct pr_instance *inst)
{
	pr_pw_free(inst->state);
	inst->state = NULL;
}

/* ---- feedback: checks ---- */

static const char *check_state(enum pr_verdict v)
{
	switch (v) {
	case PR_VERDICT_FAIL:
		return "fail";
	case PR_VERDICT_WARN:
		return "warning";
	default:
		return "success";
	}
}

/* The distinct step names of the report, in their order. */
static void report_steps(struct pr_strlist *out, const struct pr_report *r)
{
	size_t i, j;

	for (i = 0; i < r->nr; i++) {
		for (j = 0; j < out->nr; j++)
			if (!strcmp(out->items[j], r->items[i].step))
				break;
		if (j == out->nr)
			pr_strlist_add(out, r->items[i].step);
	}
}

/*
 * What step `step` says of patch `index`: the worst verdict of its entries
 * for the patch or the series (PR_VERDICT_SKIP when all skipped; PASS when
 * none names it) and their messages in desc.
 */
static enum pr_verdict step_verdict(struct pr_buf *desc,
				    const struct pr_report *r, const char *step,
				    int index)
{
	enum pr_verdict worst = PR_VERDICT_SKIP;
	bool any = false;
	size_t i;

	for (i = 0; i < r->nr; i++) {
		const struct pr_report_entry *e = &r->items[i];

		if (strcmp(e->step, step))
			continue;
		any = true;
		if ((e->patch == -1 || e->patch == index) && e->verdict > worst)
			worst = e->verdict;
	}
	if (!any)
		return PR_VERDICT_SKIP;
	if (worst == PR_VERDICT_SKIP) {
		/* entries only for other patches: nothing against this one */
		for (i = 0; i < r->nr; i++)
			if (!strcmp(r->items[i].step, step) &&
			    r->items[i].verdict != PR_VERDICT_SKIP)
				worst = PR_VERDICT_PASS;
		if (worst == PR_VERDICT_SKIP)
			return worst;
	}
	for (i = 0; i < r->nr; i++) {
		const struct pr_report_entry *e = &r->items[i];

		if (strcmp(e->step, step) || e->verdict != worst ||
		    (e->patch != -1 && e->patch != index) || !e->message ||
		    !*e->message)
			continue;
		if (desc->len)
			pr_buf_adds(desc, "; ");
		pr_buf_adds(desc, e->message);
		/* a tool's output: its first line says the most */
		if (e->detail && *e->detail && worst > PR_VERDICT_PASS)
			pr_buf_addf(desc, ": %.*s",
				    (int)strcspn(e->detail, "\n"), e->detail);
	}
	if (!desc->len)
		pr_buf_adds(desc, worst == PR_VERDICT_PASS ? "passed" : "");
	pr_buf_cap_utf8(desc, DESCRIPTION_MAX);
	return worst;
}

/* s with every byte outside [-a-zA-Z0-9_] as '-', appended. */
static int slug(struct pr_buf *out, const char *s)
{
	const char *p;
	int err = 0;

	for (p = s; *p && !err; p++)
		err = pr_buf_addch(out,
				   (*p >= 'a' && *p <= 'z') ||
						   (*p >= 'A' && *p <= 'Z') ||
						   (*p >= '0' && *p <= '9') ||
						   *p == '_' || *p == '-'
					   ? *p
					   : '-');
	return err;
}

/* CONTEXT-STEP, a slug. */
static int check_context(struct pr_buf *out, const struct pr_pw *pw,
			 const char *step)
{
	int err = pr_buf_addf(out, "%s-", pw->o->check_context);

	return err ? err : slug(out, step);
}

/* report-url with {msgid} and {step} replaced (escaped). */
static int target_url(struct pr_buf *out, const struct pr_pw *pw,
		      const char *msgid, const char *step)
{
	const char *p = pw->o->report_url;
	int err = 0;

	while (p && *p && !err) {
		if (!strncmp(p, "{msgid}", 7)) {
			err = pr_http_escape(out, msgid);
			p += 7;
		} else if (!strncmp(p, "{step}", 6)) {
			err = pr_http_escape(out, step);
			p += 6;
		} else {
			err = pr_buf_addch(out, *p++);
		}
	}
	return err;
}

/* The Patchwork id of the patch with Message-ID msgid (0: not there). */
static int patch_id_of(struct pr_pw *pw, int64_t *id, const char *msgid)
{
	struct pr_pw_patch_list l = { 0 };
	struct pr_buf key = PR_BUF_INIT, val = PR_BUF_INIT;
	json_t *j = NULL;
	int err;

	*id = 0;
	if ((err = pr_buf_addf(&key, "patch:%s", msgid)))
		goto done;
	err = pr_pw_note_get(pw, &val, key.ptr);
	if (!err && (j = json_loads(val.ptr, 0, NULL)) &&
	    json_integer_value(json_object_get(j, "id")) > 0) {
		*id = (int64_t)json_integer_value(json_object_get(j, "id"));
		goto done;
	}
	if (err && err != PR_ENOENT)
		goto done;
	if ((err = pr_pw_find(pw, &l, "msgid", msgid)) || !l.nr)
		goto done;
	*id = l.items[0].id;
	err = pr_pw_note_patch(pw, &l.items[0], NULL, NULL, 0);
done:
	json_decref(j);
	pr_pw_patch_list_release(&l);
	pr_buf_release(&key);
	pr_buf_release(&val);
	return err;
}

static int last_check_state(const char *body, size_t len, void *payload)
{
	char **state = payload;
	json_t *a = json_loadb(body, len, 0, NULL);
	const json_t *c;
	size_t n;

	if (!json_is_array(a)) {
		json_decref(a);
		return pr_error(PR_EPARSE, "patchwork check list: not a JSON "
					   "array");
	}
	/* ordered by id: the last one is the newest */
	n = json_array_size(a);
	c = n ? json_array_get(a, n - 1) : NULL;
	if (json_is_string(json_object_get(c, "state"))) {
		free(*state);
		*state = pr_strdup(
			json_string_value(json_object_get(c, "state")));
	}
	json_decref(a);
	return 0;
}

/*
 * Post one check unless the context's last state is already `state`.
 * Returns 1 when posted.
 */
static int post_check(struct pr_pw *pw, int64_t id, const char *context,
		      const char *state, const char *desc, const char *url)
{
	struct pr_buf key = PR_BUF_INIT, last = PR_BUF_INIT, path = PR_BUF_INIT;
	struct pr_http_response resp;
	json_t *body = NULL;
	char *text = NULL, *known = NULL;
	int err;

	memset(&resp, 0, sizeof(resp));
	if ((err = pr_buf_addf(&key, "check:%lld:%s", (long long)id, context)))
		goto done;
	err = pr_pw_note_get(pw, &last, key.ptr);
	if (err && err != PR_ENOENT)
		goto done;
	if (err == PR_ENOENT) {
		/* no note (a new state file): what Patchwork shows */
		if ((err = pr_buf_addf(&path,
				       "patches/%lld/checks/?per_page=250&"
				       "context=",
				       (long long)id)) ||
		    (err = pr_http_escape(&path, context)) ||
		    (err = pr_pw_get_pages(pw, path.ptr, last_check_state,
					   &known)))
			goto done;
		if (known && (err = pr_buf_adds(&last, known)))
			goto done;
	}
	if (!strcmp(last.ptr, state)) {
		err = known ? pr_pw_note_set(pw, key.ptr, state) : 0;
		goto done;
	}
	body = json_pack("{s:s, s:s, s:s}", "state", state, "context", context,
			 "description", desc);
	if (url && *url)
		json_object_set_new(body, "target_url", json_string(url));
	text = json_dumps(body, JSON_COMPACT);
	pr_buf_reset(&path);
	if ((err = pr_buf_addf(&path, "patches/%lld/checks/", (long long)id)) ||
	    (err = pr_pw_request(pw, &resp, "POST", path.ptr, text)) ||
	    (err = pr_pw_note_set(pw, key.ptr, state)))
		goto done;
	err = 1;
done:
	free(text);
	free(known);
	json_decref(body);
	pr_http_response_release(&resp);
	pr_buf_release(&key);
	pr_buf_release(&last);
	pr_buf_release(&path);
	return err;
}

static int pw_feedback(struct pr_instance *inst, const struct pr_series *s,
		       const struct pr_report *report, const char *summary)
{
	struct pr_pw *pw = inst->state;
	const struct pr_version *v = pr_series_latest(s);
	struct pr_strlist steps = { 0 };
	size_t i, j, posted = 0, same = 0;
	int err = 0, r;

	PR_UNUSED(summary);
	/* a landing: the sink sets the states */
	if (s->state == PR_SERIES_ACCEPTED || !v)
		return 0;
	report_steps(&steps, report);
	for (i = 0; i < v->nr && !err; i++) {
		const char *msgid = v->patches[i]->message_id;
		int64_t id;

		if (!msgid || !*msgid)
			continue;
		if ((err = patch_id_of(pw, &id, msgid)))
			break;
		if (!id) {
			pr_log_warn(inst->prefix,
				    "patch <%s> of '%s' is not in project "
				    "'%s' (yet): no check",
				    msgid, s->origin_key, pw->o->project);
			continue;
		}
		for (j = 0; j < steps.nr && !err; j++) {
			struct pr_buf desc = PR_BUF_INIT, ctx = PR_BUF_INIT,
				      url = PR_BUF_INIT;
			enum pr_verdict vd = step_verdict(
				&desc, report, steps.items[j], (int)i);

			if (vd != PR_VERDICT_SKIP &&
			    !(err = check_context(&ctx, pw, steps.items[j])) &&
			    !(err = target_url(&url, pw, msgid,
					       steps.items[j]))) {
				r = post_check(pw, id, ctx.ptr, check_state(vd),
					       desc.ptr, url.ptr);
				if (r < 0)
					err = r;
				else if (r)
					posted++;
				else
					same++;
			}
			pr_buf_release(&desc);
			pr_buf_release(&ctx);
			pr_buf_release(&url);
		}
	}
	pr_log_info(inst->prefix, "'%s': %zu check(s) posted, %zu unchanged",
		    s->origin_key, posted, same);
	pr_strlist_release(&steps);
	return err;
}

/*
 * report-to: one check per patch of the version, context the report's
 * (bytes outside [-a-zA-Z0-9_] as '-'), state its verdict's.  A patch is
 * found by the Message-ID it came with or went out with (the identity
 * map's mails of the version).  1 when a patch shows the check.
 */
static int pw_report(struct pr_instance *inst, const struct pr_report_post *p)
{
	struct pr_pw *pw = inst->state;
	const struct pr_version *v = pr_series_latest(p->series);
	struct pr_buf ctx = PR_BUF_INIT;
	const char *state = check_state((enum pr_verdict)p->verdict);
	size_t i, shown = 0;
	int err = 0, r;

	if (!v || !p->store)
		return 0;
	for (i = 0; i < v->nr && !err; i++) {
		struct pr_idmap_mail m = { 0 };
		int64_t id = 0;

		err = pr_idmap_mail_get(&m, p->store, p->series_id, p->version,
					(int)i + 1);
		if (err == PR_ENOENT) {
			pr_error_clear();
			err = 0;
		} else if (!err &&
			   !(err = patch_id_of(pw, &id, m.message_id)) && id &&
			   !(err = slug(&ctx, p->context))) {
			r = post_check(pw, id, ctx.ptr, state, p->description,
				       NULL);
			if (r < 0)
				err = r;
			else
				shown++;
		}
		pr_buf_reset(&ctx);
		pr_idmap_mail_release(&m);
	}
	pr_buf_release(&ctx);
	return err ? err : shown ? 1 : 0;
}

const struct pr_connector_type pr_connector_patchwork = {
	.abi = PR_ABI_VERSION,
	.name = "patchwork",
	.summary = "a Patchwork project: patch states synced with what "
		   "lands and what supersedes it, reports as checks, "
		   "completed series as a source",
	.caps = PR_CAP_SOURCE | PR_CAP_SINK | PR_CAP_FEEDBACK,
	.options = pw_options,
	.ctx_size = sizeof(struct pr_patchwork_ctx),
	.open = pw_open,
	.poll = pr_pw_poll,
	.deliver_version = pr_pw_deliver_version,
	.feedback = pw_feedback,
	.report = pw_report,
	.close = pw_close,
	.landed = pr_pw_landed,
};
