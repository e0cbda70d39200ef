#include "base/pr.h"
#include "pr_version.h"

#include <jansson.h>

#include "connectors.h"
#include "forge.h"
#include "github.h"
#include "base/http.h"

/*
 * The github connector: pull requests of GitHub repositories as series,
 * and reports posted back as issue comments.  forge.c does the polling,
 * the triggers, the cursor, the fetch and the feedback; this file fills in
 * forge.h's ops with GitHub REST v3's URLs, headers and JSON fields (see
 * github.h).
 */

#define GITHUB_API_URL "https://api.github.com"

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
			return pr_error(PR_EPARSE, "github %s: no '%s'", what,
					key);
		return 0;
	}
	if (!json_is_string(v))
		return pr_error(PR_EPARSE, "github %s: '%s' is not a string",
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
				"github %s: '%s' is not a positive integer",
				what, key);
	*out = (int64_t)json_integer_value(v);
	return 0;
}

/*
 * obj[key] as an object in *sub: absent or null gives NULL (an error when
 * required), another type is PR_EPARSE.
 */
static int get_obj(const json_t **sub, const json_t *obj, const char *key,
		   bool required, const char *what)
{
	const json_t *v = json_object_get(obj, key);

	*sub = NULL;
	if (!v || json_is_null(v)) {
		if (required)
			return pr_error(PR_EPARSE, "github %s: no '%s'", what,
					key);
		return 0;
	}
	if (!json_is_object(v))
		return pr_error(PR_EPARSE, "github %s: '%s' is not an object",
				what, key);
	*sub = v;
	return 0;
}

/* obj.user.login; an absent or null user gives NULL. */
static int get_login(char **slot, const json_t *obj, const char *what)
{
	const json_t *u;
	int err;

	if ((err = get_obj(&u, obj, "user", false, what)) || !u)
		return err;
	return get_str(slot, u, "login", true, what);
}

static int get_labels(struct pr_strlist *out, const json_t *obj)
{
	const json_t *a = json_object_get(obj, "labels"), *v;
	size_t i;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return pr_error(PR_EPARSE,
				"github pull request: 'labels' is not a list");
	json_array_foreach(a, i, v)
	{
		const json_t *n = json_is_object(v) ? json_object_get(v, "name")
						    : NULL;

		if (!json_is_string(n))
			return pr_error(PR_EPARSE,
					"github pull request: label %zu has "
					"no 'name' string",
					i + 1);
		PR_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		out->items[out->nr++] = pr_strdup(json_string_value(n));
	}
	return 0;
}

/*
 * The head and base of a pull: head.sha, base.ref and the git URLs.
 * refs/pull/N/head lives only in the BASE repository (a fork has the
 * commits on its branch, not on that ref), for every PR, including one
 * whose fork was deleted (head.repo null); so both URLs are the base's.
 * head.repo is still checked for its type.
 */
static int get_ends(struct pr_forge_pr *pr, const json_t *o)
{
	const json_t *head, *base, *head_repo, *base_repo;
	int err;

	if ((err = get_obj(&head, o, "head", true, "pull request")) ||
	    (err = get_obj(&base, o, "base", true, "pull request")) ||
	    (err = get_str(&pr->head_sha, head, "sha", true,
			   "pull request head")) ||
	    (err = get_str(&pr->base_ref, base, "ref", true,
			   "pull request base")) ||
	    (err = get_obj(&head_repo, head, "repo", false,
			   "pull request head")) ||
	    (err = get_obj(&base_repo, base, "repo", true,
			   "pull request base")) ||
	    (err = get_str(&pr->base_url, base_repo, "clone_url", true,
			   "pull request base repo")))
		return err;
	free(pr->fetch_url);
	pr->fetch_url = pr_strdup(pr->base_url);
	return 0;
}

int pr_github_pr_from_json(struct pr_forge_pr *pr, const json_t *o)
{
	const char *what = "pull request";
	struct pr_buf ref = PR_BUF_INIT;
	const json_t *d;
	int err;

	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "github %s: not an object", what);
	if ((err = get_id(&pr->number, o, "number", what)) ||
	    (err = get_str(&pr->title, o, "title", true, what)) ||
	    (err = get_str(&pr->body, o, "body", false, what)) ||
	    (err = get_login(&pr->author, o, what)) ||
	    (err = get_ends(pr, o)) ||
	    (err = get_str(&pr->web_url, o, "html_url", false, what)) ||
	    (err = get_str(&pr->updated_at, o, "updated_at", false, what)) ||
	    (err = get_labels(&pr->labels, o)))
		return pr->number ? pr_error_wrap(err, "#%lld",
						  (long long)pr->number)
				  : err;
	if (!pr->body)
		pr->body = pr_strdup("");
	d = json_object_get(o, "draft");
	if (d && !json_is_boolean(d) && !json_is_null(d))
		return pr_error(PR_EPARSE,
				"github pull request #%lld: 'draft' is not "
				"a boolean",
				(long long)pr->number);
	pr->draft = json_is_true(d);
	if ((err = pr_buf_addf(&ref, "refs/pull/%lld/head",
			       (long long)pr->number)))
		return err;
	free(pr->fetch_ref);
	pr->fetch_ref = pr_buf_detach(&ref, NULL);
	return 0;
}

int pr_github_comment_from_json(struct pr_forge_comment_list *out,
				const json_t *o)
{
	const char *what = "comment";
	struct pr_forge_comment *c;
	const json_t *u;
	int err;

	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "github comment: not an object");
	if ((err = get_obj(&u, o, "user", false, what)))
		return err;
	if (!u)
		return 0;
	c = pr_forge_comment_list_add(out);
	if ((err = get_id(&c->id, o, "id", what)) ||
	    (err = get_str(&c->author, u, "login", true, what)))
		return err;
	/* an empty comment body may come as null */
	if ((err = get_str(&c->body, o, "body", false, what)))
		return pr_error_wrap(err, "comment %lld", (long long)c->id);
	if (!c->body)
		c->body = pr_strdup("");
	return 0;
}

int pr_github_user_from_json(char **login, const json_t *o)
{
	*login = NULL;
	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "github user: not an object");
	return get_str(login, o, "login", true, "user");
}

/* ---- URLs and bodies ---- */

/* api_url without its trailing slashes */
static int add_base(struct pr_buf *out, const char *api_url)
{
	size_t n = strlen(api_url);

	while (n && api_url[n - 1] == '/')
		n--;
	return pr_buf_add(out, api_url, n);
}

int pr_github_repo_url(struct pr_buf *out, const char *api_url,
		       const char *repo, const char *suffix)
{
	const char *slash = strchr(repo, '/');
	char *owner;
	int err;

	if (!slash || slash == repo || !slash[1] || strchr(slash + 1, '/'))
		return pr_error(PR_EINVAL,
				"github repository '%s': want owner/name",
				repo);
	owner = pr_strndup(repo, (size_t)(slash - repo));
	if (!(err = add_base(out, api_url)) &&
	    !(err = pr_buf_adds(out, "/repos/")) &&
	    !(err = pr_http_escape(out, owner)) &&
	    !(err = pr_buf_adds(out, "/")) &&
	    !(err = pr_http_escape(out, slash + 1)) && suffix)
		err = pr_buf_adds(out, suffix);
	free(owner);
	return err;
}

/* Append obj as compact JSON to out and drop obj (also after err). */
static int dump(struct pr_buf *out, json_t *obj, int err)
{
	char *s = NULL;

	if (!err && !(s = json_dumps(obj, JSON_COMPACT)))
		err = pr_error(PR_EINVAL, "github request: cannot encode JSON");
	if (!err)
		err = pr_buf_adds(out, s);
	free(s);
	json_decref(obj);
	return err;
}

/* A JSON string; jansson refuses text that is not UTF-8. */
static int string(json_t **out, const char *key, const char *val)
{
	*out = json_string(val);
	if (!*out)
		return pr_error(PR_EINVAL,
				"github request: '%s' is not UTF-8 text", key);
	return 0;
}

static int put(json_t *o, const char *key, const char *val)
{
	json_t *v;
	int err;

	if ((err = string(&v, key, val)))
		return err;
	json_object_set_new(o, key, v);
	return 0;
}

int pr_github_comment_json(struct pr_buf *out, const char *text)
{
	json_t *o = json_object();

	return dump(out, o, put(o, "body", text));
}

int pr_github_close_json(struct pr_buf *out)
{
	json_t *o = json_object();

	return dump(out, o, put(o, "state", "closed"));
}

int pr_github_label_json(struct pr_buf *out, const char *label)
{
	json_t *o = json_object(), *a = json_array(), *v;
	int err;

	if (!(err = string(&v, "labels", label)))
		json_array_append_new(a, v);
	json_object_set_new(o, "labels", a);
	return dump(out, o, err);
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

static int repo_url(struct pr_buf *out, const struct pr_forge *f,
		    const char *repo, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The URL of a repository's route: fmt is the part after owner/name. */
static int repo_url(struct pr_buf *out, const struct pr_forge *f,
		    const char *repo, const char *fmt, ...)
{
	va_list ap;
	int err;

	if ((err = pr_github_repo_url(out, f->opts->api_url, repo, NULL)))
		return err;
	va_start(ap, fmt);
	err = pr_buf_vaddf(out, fmt, ap);
	va_end(ap);
	return err;
}

static int gh_whoami(struct pr_forge *f, char **out, const char *etag,
		     char **etag_out)
{
	struct pr_http_response resp = { 0 };
	struct pr_buf url = PR_BUF_INIT;
	json_t *root = NULL;
	int err;

	if ((err = add_base(&url, f->opts->api_url)) ||
	    (err = pr_buf_adds(&url, "/user")))
		goto done;
	err = pr_forge_http(f, &resp, "GET", url.ptr, NULL, etag);
	if (err)
		goto done;
	if ((err = load(&root, &resp, url.ptr)) ||
	    (err = pr_github_user_from_json(out, root)))
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

static int pr_item(void *elem, void *payload)
{
	return pr_github_pr_from_json(pr_forge_pr_list_add(payload), elem);
}

static int gh_list_prs(struct pr_forge *f, struct pr_forge_pr_list *out,
		       const char *repo, const char *etag, char **etag_out)
{
	struct pr_buf url = PR_BUF_INIT;
	int err;

	/* most recently updated first: any change moves page 1's ETag */
	if (!(err = repo_url(&url, f, repo, "%s",
			     "/pulls?state=open&sort=updated&direction=desc"
			     "&per_page=100")))
		err = pr_forge_get_list(f, url.ptr, etag, etag_out, pr_item,
					out);
	pr_buf_release(&url);
	return err;
}

static int gh_get_pr(struct pr_forge *f, struct pr_forge_pr *out,
		     const char *repo, int64_t number)
{
	struct pr_http_response resp = { 0 };
	struct pr_buf url = PR_BUF_INIT;
	json_t *root = NULL;
	int err;

	if (!(err = repo_url(&url, f, repo, "/pulls/%lld",
			     (long long)number)) &&
	    !(err = pr_forge_http(f, &resp, "GET", url.ptr, NULL, NULL)) &&
	    !(err = load(&root, &resp, url.ptr)))
		err = pr_github_pr_from_json(out, root);
	json_decref(root);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

static int comment_item(void *elem, void *payload)
{
	return pr_github_comment_from_json(payload, elem);
}

static int gh_list_comments(struct pr_forge *f,
			    struct pr_forge_comment_list *out, const char *repo,
			    int64_t number, const char *etag, char **etag_out)
{
	struct pr_buf url = PR_BUF_INIT;
	int err;

	/* a PR is an issue for comments; GitHub lists them oldest first */
	if (!(err = repo_url(&url, f, repo,
			     "/issues/%lld/comments?per_page=100",
			     (long long)number)))
		err = pr_forge_get_list(f, url.ptr, etag, etag_out,
					comment_item, out);
	pr_buf_release(&url);
	return err;
}

/* method url with body; the answer's body is not needed. */
static int gh_send(struct pr_forge *f, const char *method,
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

static int gh_post_comment(struct pr_forge *f, const char *repo, int64_t number,
			   const char *text)
{
	struct pr_buf url = PR_BUF_INIT, body = PR_BUF_INIT;
	int err;

	if (!(err = repo_url(&url, f, repo, "/issues/%lld/comments",
			     (long long)number)) &&
	    !(err = pr_github_comment_json(&body, text)))
		err = gh_send(f, "POST", &url, &body);
	pr_buf_release(&url);
	pr_buf_release(&body);
	return err;
}

static int gh_close_pr(struct pr_forge *f, const char *repo, int64_t number)
{
	struct pr_buf url = PR_BUF_INIT, body = PR_BUF_INIT;
	int err;

	if (!(err = repo_url(&url, f, repo, "/pulls/%lld",
			     (long long)number)) &&
	    !(err = pr_github_close_json(&body)))
		err = gh_send(f, "PATCH", &url, &body);
	pr_buf_release(&url);
	pr_buf_release(&body);
	return err;
}

static int gh_add_label(struct pr_forge *f, const char *repo, int64_t number,
			const char *label)
{
	struct pr_buf url = PR_BUF_INIT, body = PR_BUF_INIT;
	int err;

	if (!(err = repo_url(&url, f, repo, "/issues/%lld/labels",
			     (long long)number)) &&
	    !(err = pr_github_label_json(&body, label)))
		err = gh_send(f, "POST", &url, &body);
	pr_buf_release(&url);
	pr_buf_release(&body);
	return err;
}

static const struct pr_forge_ops github_ops = {
	.name = "github",
	.git_user = "x-access-token",
	.whoami = gh_whoami,
	.list_prs = gh_list_prs,
	.get_pr = gh_get_pr,
	.list_comments = gh_list_comments,
	.post_comment = gh_post_comment,
	.close_pr = gh_close_pr,
	.add_label = gh_add_label,
};

/* ---- the connector type ---- */

static const struct pr_option github_options[] = {
	PR_FORGE_OPTIONS(struct pr_github_ctx, GITHUB_API_URL, "repo"),
	PR_OPTIONS_END,
};

/* GitHub answers the default API version without these, 403 without a UA */
static const char *const github_headers[] = {
	"Accept: application/vnd.github+json",
	"X-GitHub-Api-Version: 2022-11-28",
	NULL,
};

static int github_open(struct pr_instance *inst)
{
	const struct pr_github_ctx *ctx = inst->ctx;
	struct pr_forge *f = NULL;
	size_t i;
	int err;

	/* GitHub has no groups: "a/b/c" would make a wrong URL */
	for (i = 0; i < ctx->forge.repo.nr; i++) {
		const char *r = ctx->forge.repo.items[i];
		const char *slash = strchr(r, '/');

		if (slash && strchr(slash + 1, '/'))
			return pr_error(PR_ECONFIG,
					"source '%s': option 'repo': bad "
					"repository '%s' (want owner/name)",
					inst->name, r);
	}
	if ((err = pr_forge_open(&f, inst, &github_ops)))
		return err;
	f->http.auth_header = "Authorization: Bearer %s";
	f->http.headers = github_headers;
	f->http.user_agent = "patchrelay/" PATCHRELAY_VERSION;
	f->http.token = ctx->forge.token;
	f->http.ca_file = ctx->forge.ca_file;
	f->http.timeout_ms = ctx->forge.timeout;
	f->http.log_prefix = inst->prefix;
	inst->state = f;
	return 0;
}

static int github_poll(struct pr_instance *inst, const char *cursor,
		       pr_event_fn emit, void *payload)
{
	return pr_forge_poll(inst->state, cursor, emit, payload);
}

static int github_feedback(struct pr_instance *inst, const struct pr_series *s,
			   const struct pr_report *report, const char *summary)
{
	return pr_forge_feedback(inst->state, s, report, summary);
}

static void github_close(struct pr_instance *inst)
{
	pr_forge_close(inst->state);
	inst->state = NULL;
}

const struct pr_connector_type pr_connector_github = {
	.abi = PR_ABI_VERSION,
	.name = "github",
	.summary = "pull requests of GitHub repositories as series; reports "
		   "posted back as comments",
	.caps = PR_CAP_SOURCE | PR_CAP_FEEDBACK,
	.options = github_options,
	.ctx_size = sizeof(struct pr_github_ctx),
	.open = github_open,
	.poll = github_poll,
	.feedback = github_feedback,
	.close = github_close,
};
