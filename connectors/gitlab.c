#include "base/pr.h"

#include <jansson.h>

#include "connectors.h"
#include "forge.h"
#include "gitlab.h"
#include "base/http.h"

/*
 * The gitlab connector: merge requests of GitLab projects as series, and
 * reports posted back as notes.  forge.c does the polling, the triggers,
 * the cursor, the fetch and the feedback; this file fills in forge.h's ops
 * with GitLab REST v4's URLs, headers and JSON fields (see gitlab.h).
 */

#define GITLAB_API_URL "https://gitlab.com/api/v4"

/* ---- JSON mapping ---- */

/*
 * The string at `key` of obj, copied into *slot: absent or null gives NULL
 * (an error when required), another type is PR_EPARSE.  jansson refuses
 * "\u0000" when it loads, so the C string is the whole value.
 */
static int get_str(char **slot, const json_t *obj, const char *key,
		   bool required, const char *what)
{
	const json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v)) {
		if (required)
			return pr_error(PR_EPARSE, "gitlab %s: no '%s'", what,
					key);
		return 0;
	}
	if (!json_is_string(v))
		return pr_error(PR_EPARSE, "gitlab %s: '%s' is not a string",
				what, key);
	free(*slot);
	*slot = pr_strdup(json_string_value(v));
	return 0;
}

static int get_id(int64_t *out, const json_t *obj, const char *key,
		  const char *what)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) <= 0)
		return pr_error(PR_EPARSE,
				"gitlab %s: '%s' is not a positive integer",
				what, key);
	*out = (int64_t)json_integer_value(v);
	return 0;
}

/* obj[key].username; an absent or null obj[key] gives NULL. */
static int get_username(char **slot, const json_t *obj, const char *key,
			const char *what)
{
	const json_t *u = json_object_get(obj, key);

	if (!u || json_is_null(u))
		return 0;
	if (!json_is_object(u))
		return pr_error(PR_EPARSE, "gitlab %s: '%s' is not an object",
				what, key);
	return get_str(slot, u, "username", true, what);
}

static int get_labels(struct pr_strlist *out, const json_t *obj)
{
	const json_t *a = json_object_get(obj, "labels"), *v;
	size_t i;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return pr_error(PR_EPARSE,
				"gitlab merge request: 'labels' is not a list");
	json_array_foreach(a, i, v)
	{
		/* with_labels_details=true gives objects with a name */
		const json_t *n = json_is_object(v) ? json_object_get(v, "name")
						    : v;

		if (!json_is_string(n))
			return pr_error(PR_EPARSE,
					"gitlab merge request: "
					"label %zu is not a string",
					i + 1);
		PR_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		out->items[out->nr++] = pr_strdup(json_string_value(n));
	}
	return 0;
}

int pr_gitlab_mr_from_json(struct pr_forge_pr *pr, const json_t *o)
{
	const char *what = "merge request";
	struct pr_buf ref = PR_BUF_INIT;
	const json_t *d;
	int err;

	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "gitlab %s: not an object", what);
	if ((err = get_id(&pr->number, o, "iid", what)) ||
	    (err = get_str(&pr->title, o, "title", true, what)) ||
	    (err = get_str(&pr->body, o, "description", false, what)) ||
	    (err = get_username(&pr->author, o, "author", what)) ||
	    (err = get_str(&pr->head_sha, o, "sha", false, what)) ||
	    (err = get_str(&pr->base_ref, o, "target_branch", true, what)) ||
	    (err = get_str(&pr->web_url, o, "web_url", false, what)) ||
	    (err = get_str(&pr->updated_at, o, "updated_at", false, what)) ||
	    (err = get_labels(&pr->labels, o)))
		return pr->number ? pr_error_wrap(err, "!%lld",
						  (long long)pr->number)
				  : err;
	if (!pr->body)
		pr->body = pr_strdup("");
	/* "work_in_progress" is the name before GitLab 15 */
	d = json_object_get(o, "draft");
	if (!d)
		d = json_object_get(o, "work_in_progress");
	pr->draft = json_is_true(d);
	if ((err = pr_buf_addf(&ref, "refs/merge-requests/%lld/head",
			       (long long)pr->number)))
		return err;
	free(pr->fetch_ref);
	pr->fetch_ref = pr_buf_detach(&ref, NULL);
	return 0;
}

int pr_gitlab_note_from_json(struct pr_forge_comment_list *out, const json_t *o)
{
	const char *what = "note";
	struct pr_forge_comment *c;
	int err;

	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "gitlab note: not an object");
	if (json_is_true(json_object_get(o, "system")))
		return 0;
	c = pr_forge_comment_list_add(out);
	if ((err = get_id(&c->id, o, "id", what)) ||
	    (err = get_username(&c->author, o, "author", what)) ||
	    (err = get_str(&c->body, o, "body", true, what)))
		return err;
	if (!c->author)
		return pr_error(PR_EPARSE, "gitlab note %lld: no author",
				(long long)c->id);
	return 0;
}

int pr_gitlab_user_from_json(char **username, const json_t *o)
{
	*username = NULL;
	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "gitlab user: not an object");
	return get_str(username, o, "username", true, "user");
}

/* ---- URLs and bodies ---- */

int pr_gitlab_project_url(struct pr_buf *out, const char *api_url,
			  const char *project, const char *suffix)
{
	size_t n = strlen(api_url);
	int err;

	while (n && api_url[n - 1] == '/')
		n--;
	if ((err = pr_buf_add(out, api_url, n)) ||
	    (err = pr_buf_adds(out, "/projects/")) ||
	    (err = pr_http_escape(out, project)))
		return err;
	return suffix ? pr_buf_adds(out, suffix) : 0;
}

/* Set o[key] = val; jansson refuses text that is not UTF-8. */
static int put(json_t *o, const char *key, const char *val)
{
	json_t *v = json_string(val);

	if (!v || json_object_set_new(o, key, v))
		return pr_error(PR_EINVAL,
				"gitlab request: '%s' is not UTF-8 text", key);
	return 0;
}

/* Append obj as compact JSON to out and drop obj (also after err). */
static int dump(struct pr_buf *out, json_t *obj, int err)
{
	char *s = NULL;

	if (!err && !(s = json_dumps(obj, JSON_COMPACT)))
		err = pr_error(PR_EINVAL, "gitlab request: cannot encode JSON");
	if (!err)
		err = pr_buf_adds(out, s);
	free(s);
	json_decref(obj);
	return err;
}

int pr_gitlab_note_json(struct pr_buf *out, const char *text)
{
	json_t *o = json_object();

	return dump(out, o, put(o, "body", text));
}

int pr_gitlab_close_json(struct pr_buf *out)
{
	json_t *o = json_object();

	return dump(out, o, put(o, "state_event", "close"));
}

int pr_gitlab_label_json(struct pr_buf *out, const char *add)
{
	json_t *o = json_object();

	if (strchr(add, ','))
		return dump(out, o,
			    pr_error(PR_EINVAL,
				     "gitlab label '%s': holds a comma", add));
	return dump(out, o, put(o, "add_labels", add));
}

/* ---- the ops ---- */

/* Load a whole answer's body as JSON. */
static int load(json_t **out, const struct pr_http_response *resp,
		const char *url)
{
	json_error_t jerr;

	*out = json_loadb(resp->body.ptr, resp->body.len, 0, &jerr);
	if (!*out)
		return pr_error(PR_EPARSE, "GET '%s': bad JSON at line %d: %s",
				url, jerr.line, jerr.text);
	return 0;
}

static int project_url(struct pr_buf *out, const struct pr_forge *f,
		       const char *project, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The URL of a project's route: fmt is the part after the project. */
static int project_url(struct pr_buf *out, const struct pr_forge *f,
		       const char *project, const char *fmt, ...)
{
	va_list ap;
	int err;

	if ((err = pr_gitlab_project_url(out, f->opts->api_url, project, NULL)))
		return err;
	va_start(ap, fmt);
	err = pr_buf_vaddf(out, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * The target project's git URL (http_url_to_repo): where
 * refs/merge-requests/N/head lives.  Asked only when an MR list or an MR
 * changed, so an idle poll costs no request for it.
 */
static int clone_url(struct pr_forge *f, char **out, const char *project)
{
	struct pr_http_response resp = { 0 };
	struct pr_buf url = PR_BUF_INIT;
	json_t *root = NULL;
	int err;

	*out = NULL;
	if ((err = project_url(&url, f, project, "%s", "")) ||
	    (err = pr_forge_http(f, &resp, "GET", url.ptr, NULL, NULL)) ||
	    (err = load(&root, &resp, url.ptr)))
		goto done;
	if (!json_is_object(root))
		err = pr_error(PR_EPARSE, "gitlab project '%s': not an object",
			       project);
	else
		err = get_str(out, root, "http_url_to_repo", true, "project");
done:
	json_decref(root);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

static void set_urls(struct pr_forge_pr *pr, const char *git_url)
{
	free(pr->fetch_url);
	free(pr->base_url);
	pr->fetch_url = pr_strdup(git_url);
	pr->base_url = pr_strdup(git_url);
}

static int gl_whoami(struct pr_forge *f, char **out, const char *etag,
		     char **etag_out)
{
	struct pr_http_response resp = { 0 };
	struct pr_buf url = PR_BUF_INIT;
	json_t *root = NULL;
	size_t n = strlen(f->opts->api_url);
	int err;

	while (n && f->opts->api_url[n - 1] == '/')
		n--;
	if ((err = pr_buf_add(&url, f->opts->api_url, n)) ||
	    (err = pr_buf_adds(&url, "/user")))
		goto done;
	err = pr_forge_http(f, &resp, "GET", url.ptr, NULL, etag);
	if (err)
		goto done;
	if ((err = load(&root, &resp, url.ptr)) ||
	    (err = pr_gitlab_user_from_json(out, root)))
		goto done;
	if (etag_out) {
		free(*etag_out);
		*etag_out = resp.etag ? pr_strdup(resp.etag) : NULL;
	}
done:
	json_decref(root);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

static int mr_item(void *elem, void *payload)
{
	return pr_gitlab_mr_from_json(pr_forge_pr_list_add(payload), elem);
}

static int gl_list_prs(struct pr_forge *f, struct pr_forge_pr_list *out,
		       const char *repo, const char *etag, char **etag_out)
{
	struct pr_buf url = PR_BUF_INIT;
	char *git_url = NULL;
	size_t i;
	int err;

	/* most recently updated first: any change moves page 1's ETag */
	if ((err = project_url(&url, f, repo, "%s",
			       "/merge_requests?state=opened&order_by="
			       "updated_at&sort=desc&per_page=100")))
		goto done;
	err = pr_forge_get_list(f, url.ptr, etag, etag_out, mr_item, out);
	if (err || !out->nr)
		goto done;
	if ((err = clone_url(f, &git_url, repo)))
		goto done;
	for (i = 0; i < out->nr; i++)
		set_urls(&out->items[i], git_url);
done:
	free(git_url);
	pr_buf_release(&url);
	return err;
}

static int gl_get_pr(struct pr_forge *f, struct pr_forge_pr *out,
		     const char *repo, int64_t number)
{
	struct pr_http_response resp = { 0 };
	struct pr_buf url = PR_BUF_INIT;
	json_t *root = NULL;
	char *git_url = NULL;
	int err;

	if ((err = project_url(&url, f, repo, "/merge_requests/%lld",
			       (long long)number)) ||
	    (err = pr_forge_http(f, &resp, "GET", url.ptr, NULL, NULL)) ||
	    (err = load(&root, &resp, url.ptr)) ||
	    (err = pr_gitlab_mr_from_json(out, root)) ||
	    (err = clone_url(f, &git_url, repo)))
		goto done;
	set_urls(out, git_url);
done:
	free(git_url);
	json_decref(root);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

static int note_item(void *elem, void *payload)
{
	return pr_gitlab_note_from_json(payload, elem);
}

static int gl_list_comments(struct pr_forge *f,
			    struct pr_forge_comment_list *out, const char *repo,
			    int64_t number, const char *etag, char **etag_out)
{
	struct pr_buf url = PR_BUF_INIT;
	int err;

	/* GitLab lists notes newest first unless asked */
	if ((err = project_url(&url, f, repo,
			       "/merge_requests/%lld/notes?order_by="
			       "created_at&sort=asc&per_page=100",
			       (long long)number)))
		goto done;
	err = pr_forge_get_list(f, url.ptr, etag, etag_out, note_item, out);
done:
	pr_buf_release(&url);
	return err;
}

/* method url with body; the answer's body is not needed. */
static int gl_send(struct pr_forge *f, const char *method,
		   const struct pr_buf *url, const struct pr_buf *body)
{
	struct pr_http_response resp = { 0 };
	int err;

	err = pr_forge_http(f, &resp, method, url->ptr, body->ptr, NULL);
	pr_http_response_release(&resp);
	/* a write is never conditional: a 304 here is a broken server */
	if (err == PR_FORGE_NOT_MODIFIED)
		err = pr_error(PR_ENET, "%s '%s': unexpected 304", method,
			       url->ptr);
	return err;
}

static int gl_post_comment(struct pr_forge *f, const char *repo, int64_t number,
			   const char *text)
{
	struct pr_buf url = PR_BUF_INIT, body = PR_BUF_INIT;
	int err;

	if (!(err = project_url(&url, f, repo, "/merge_requests/%lld/notes",
				(long long)number)) &&
	    !(err = pr_gitlab_note_json(&body, text)))
		err = gl_send(f, "POST", &url, &body);
	pr_buf_release(&url);
	pr_buf_release(&body);
	return err;
}

static int gl_close_pr(struct pr_forge *f, const char *repo, int64_t number)
{
	struct pr_buf url = PR_BUF_INIT, body = PR_BUF_INIT;
	int err;

	if (!(err = project_url(&url, f, repo, "/merge_requests/%lld",
				(long long)number)) &&
	    !(err = pr_gitlab_close_json(&body)))
		err = gl_send(f, "PUT", &url, &body);
	pr_buf_release(&url);
	pr_buf_release(&body);
	return err;
}

static int gl_add_label(struct pr_forge *f, const char *repo, int64_t number,
			const char *label)
{
	struct pr_buf url = PR_BUF_INIT, body = PR_BUF_INIT;
	int err;

	if (!(err = project_url(&url, f, repo, "/merge_requests/%lld",
				(long long)number)) &&
	    !(err = pr_gitlab_label_json(&body, label)))
		err = gl_send(f, "PUT", &url, &body);
	pr_buf_release(&url);
	pr_buf_release(&body);
	return err;
}

static const struct pr_forge_ops gitlab_ops = {
	.name = "gitlab",
	.git_user = "oauth2",
	.whoami = gl_whoami,
	.list_prs = gl_list_prs,
	.get_pr = gl_get_pr,
	.list_comments = gl_list_comments,
	.post_comment = gl_post_comment,
	.close_pr = gl_close_pr,
	.add_label = gl_add_label,
};

/* ---- the connector type ---- */

static const struct pr_option gitlab_options[] = {
	PR_FORGE_OPTIONS(struct pr_gitlab_ctx, GITLAB_API_URL, "project"),
	PR_OPTIONS_END,
};

static int gitlab_open(struct pr_instance *inst)
{
	const struct pr_gitlab_ctx *ctx = inst->ctx;
	const char *const labels[] = { ctx->forge.label, ctx->forge.label_sent,
				       ctx->forge.label_refused,
				       ctx->forge.label_landed };
	struct pr_forge *f = NULL;
	size_t i;
	int err;

	/* add_labels is a comma list: a comma would make two labels */
	for (i = 0; i < PR_ARRAY_SIZE(labels); i++)
		if (labels[i] && strchr(labels[i], ','))
			return pr_error(PR_ECONFIG,
					"gitlab '%s': label '%s' holds a comma",
					inst->name, labels[i]);
	if ((err = pr_forge_open(&f, inst, &gitlab_ops)))
		return err;
	f->http.auth_header = "PRIVATE-TOKEN: %s";
	f->http.token = ctx->forge.token;
	f->http.ca_file = ctx->forge.ca_file;
	f->http.timeout_ms = ctx->forge.timeout;
	f->http.log_prefix = inst->prefix;
	inst->state = f;
	return 0;
}

static int gitlab_poll(struct pr_instance *inst, const char *cursor,
		       pr_event_fn emit, void *payload)
{
	return pr_forge_poll(inst->state, cursor, emit, payload);
}

static int gitlab_feedback(struct pr_instance *inst, const struct pr_series *s,
			   const struct pr_report *report, const char *summary)
{
	return pr_forge_feedback(inst->state, s, report, summary);
}

static void gitlab_close(struct pr_instance *inst)
{
	pr_forge_close(inst->state);
	inst->state = NULL;
}

const struct pr_connector_type pr_connector_gitlab = {
	.abi = PR_ABI_VERSION,
	.name = "gitlab",
	.summary = "merge requests of GitLab projects as series; reports "
		   "posted back as notes",
	.caps = PR_CAP_SOURCE | PR_CAP_FEEDBACK,
	.options = gitlab_options,
	.ctx_size = sizeof(struct pr_gitlab_ctx),
	.open = gitlab_open,
	.poll = gitlab_poll,
	.feedback = gitlab_feedback,
	.close = gitlab_close,
};
