#include "base/pr.h"

#include <jansson.h>

#include "forge.h"
#include "forge_rest.h"
#include "base/http.h"

/*
 * A forge's REST API, read from its table (see forge_rest.h): requests,
 * pages and rate limits, the JSON mapping and the request bodies.  Nothing
 * here names a forge.
 */

/* Pages followed for one list at most: a server that loops is stopped. */
#define FORGE_MAX_PAGES 1000

/* ---- requests ---- */

/*
 * Whether resp is a rate-limit answer, and until when: the HTTP rules of
 * pr_http_rate_limited, and GitHub's secondary limit, a 403 whose body
 * says "rate limit" with no header to go by: a minute, as its docs advise.
 */
static bool rate_limited(int64_t *until, const struct pr_http_response *resp,
			 int64_t now)
{
	if (pr_http_rate_limited(until, resp, now))
		return true;
	if (resp->status == 403 && resp->body.len &&
	    strcasestr(resp->body.ptr, "rate limit")) {
		*until = now + 60;
		return true;
	}
	return false;
}

int pr_forge_http(struct pr_forge *f, struct pr_http_response *resp,
		  const char *method, const char *url, const char *json_body,
		  const char *etag)
{
	int64_t until;
	char when[32];
	int err;

	if ((err = pr_http_request(resp, &f->http, method, url, json_body,
				   etag)))
		return err;
	if (resp->status == 304)
		return PR_FORGE_NOT_MODIFIED;
	if (resp->status >= 200 && resp->status < 300)
		return 0;
	if (rate_limited(&until, resp, pr_forge_now(f))) {
		f->retry_at = until;
		pr_forge_format_time(when, until);
		return pr_error(PR_EAGAIN,
				"rate limited until %s (%s '%s': %ld)", when,
				method, url, resp->status);
	}
	if (resp->status == 401 || resp->status == 403)
		return pr_error(PR_EAUTH, "%s '%s': refused (%ld)", method, url,
				resp->status);
	if (resp->status == 404)
		return pr_error(PR_ENOENT, "%s '%s': not found (404)", method,
				url);
	return pr_error(PR_ENET, "%s '%s': HTTP status %ld", method, url,
			resp->status);
}

/* url with its page= query parameter set to page. */
static int page_url(struct pr_buf *out, const char *url, const char *page)
{
	const char *q = strchr(url, '?'), *p;
	int err;

	if (!q)
		return pr_buf_addf(out, "%s?page=%s", url, page);
	for (p = q; p; p = strchr(p + 1, '&'))
		if (!strncmp(p + 1, "page=", 5))
			break;
	if (!p)
		return pr_buf_addf(out, "%s&page=%s", url, page);
	if ((err = pr_buf_add(out, url, (size_t)(p + 6 - url))) ||
	    (err = pr_buf_adds(out, page)))
		return err;
	p += 6 + strcspn(p + 6, "&");
	return pr_buf_adds(out, p);
}

int pr_forge_get_list(struct pr_forge *f, const char *url, const char *etag,
		      char **etag_out, int (*item)(void *elem, void *payload),
		      void *payload)
{
	struct pr_http_response resp = { 0 };
	struct pr_buf cur = PR_BUF_INIT, next = PR_BUF_INIT;
	json_t *root = NULL, *v;
	json_error_t jerr;
	size_t pages, i;
	int err;

	if ((err = pr_buf_adds(&cur, url)))
		goto done;
	for (pages = 0;; pages++) {
		if (pages == FORGE_MAX_PAGES) {
			err = pr_error(PR_ETOOBIG, "GET '%s': over %d pages",
				       url, FORGE_MAX_PAGES);
			goto done;
		}
		pr_http_response_release(&resp);
		err = pr_forge_http(f, &resp, "GET", cur.ptr, NULL,
				    pages ? NULL : etag);
		if (err)
			goto done;
		if (!pages && etag_out) {
			free(*etag_out);
			*etag_out = resp.etag ? pr_strdup(resp.etag) : NULL;
		}
		json_decref(root);
		root = json_loadb(resp.body.ptr, resp.body.len, 0, &jerr);
		if (!root || !json_is_array(root)) {
			err = pr_error(PR_EPARSE, "GET '%s': not a JSON array",
				       cur.ptr);
			goto done;
		}
		json_array_foreach(root, i, v)
		{
			if ((err = item(v, payload)))
				goto done;
		}
		pr_buf_reset(&next);
		err = resp.link ? pr_http_link_rel(&next, resp.link, "next")
				: 0;
		if (err < 0)
			goto done;
		if (!err && resp.next_page && *resp.next_page &&
		    (err = page_url(&next, cur.ptr, resp.next_page)))
			goto done;
		err = 0;
		if (!next.len)
			break;
		pr_buf_reset(&cur);
		if ((err = pr_buf_addbuf(&cur, &next)))
			goto done;
	}
done:
	json_decref(root);
	pr_http_response_release(&resp);
	pr_buf_release(&cur);
	pr_buf_release(&next);
	return err;
}

int pr_forge_rest_base(struct pr_buf *out, const char *api_url)
{
	size_t n = strlen(api_url);

	while (n && api_url[n - 1] == '/')
		n--;
	return pr_buf_add(out, api_url, n);
}

/* The table whose ops f has (its first member). */
static const struct pr_forge_rest *api_of(const struct pr_forge *f)
{
	return (const struct pr_forge_rest *)f->ops;
}

int pr_forge_rest_open(struct pr_forge *f)
{
	const struct pr_forge_rest *api = api_of(f);
	const struct pr_forge_opts *o = f->opts;
	const char *const labels[] = { o->label, o->label_sent,
				       o->label_refused, o->label_landed };
	struct pr_buf url = PR_BUF_INIT;
	size_t i;
	int err = 0;

	/* one the forge cannot name: "a/b/c" where it has no groups */
	for (i = 0; !err && i < o->repo.nr; i++) {
		pr_buf_reset(&url);
		if (api->repo_url(&url, "", o->repo.items[i], NULL))
			err = pr_error(PR_ECONFIG,
				       "%s '%s': option 'repo': bad "
				       "repository '%s' (want owner/name)",
				       PR_FORGE_KIND(f->inst), f->inst->name,
				       o->repo.items[i]);
	}
	/* a label body that is a comma list would make two labels */
	for (i = 0; !err && !api->label_array && i < PR_ARRAY_SIZE(labels); i++)
		if (labels[i] && strchr(labels[i], ','))
			err = pr_error(PR_ECONFIG,
				       "%s '%s': label '%s' holds a comma",
				       api->name, f->inst->name, labels[i]);
	pr_buf_release(&url);
	f->http.auth_header = api->auth_header;
	f->http.headers = api->headers;
	f->http.user_agent = api->user_agent;
	return err;
}

/* ---- JSON mapping ---- */

/*
 * obj[key] in *v: 1 when it is there and of the type, 0 when absent or
 * null (PR_EPARSE when required), PR_EPARSE for another type.
 */
static int typed(const json_t **v, const json_t *obj, const char *key,
		 bool required, const char *what, json_type type)
{
	const json_t *got = json_object_get(obj, key);

	*v = NULL;
	if (!got || json_is_null(got))
		return required ? pr_error(PR_EPARSE, "%s: no '%s'", what, key)
				: 0;
	if (json_typeof(got) != type)
		return pr_error(PR_EPARSE, "%s: '%s' is not %s", what, key,
				type == JSON_STRING ? "a string" : "an object");
	*v = got;
	return 1;
}

/*
 * jansson refuses "\u0000" when it loads, so the C string is the whole
 * value.
 */
int pr_forge_json_str(char **slot, const json_t *obj, const char *key,
		      bool required, const char *what)
{
	const json_t *v;
	int rc = typed(&v, obj, key, required, what, JSON_STRING);

	if (rc <= 0)
		return rc;
	free(*slot);
	*slot = pr_strdup(json_string_value(v));
	return 0;
}

int pr_forge_json_obj(const json_t **sub, const json_t *obj, const char *key,
		      bool required, const char *what)
{
	int rc = typed(sub, obj, key, required, what, JSON_OBJECT);

	return rc < 0 ? rc : 0;
}

static int get_id(int64_t *out, const json_t *obj, const char *key,
		  const char *what)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) <= 0)
		return pr_error(PR_EPARSE, "%s: '%s' is not a positive integer",
				what, key);
	*out = (int64_t)json_integer_value(v);
	return 0;
}

/* obj[api->author][api->login]; an absent or null author gives NULL. */
static int get_author(char **slot, const json_t *obj,
		      const struct pr_forge_rest *api, const char *what)
{
	const json_t *u;
	int err;

	if ((err = pr_forge_json_obj(&u, obj, api->author, false, what)) || !u)
		return err;
	return pr_forge_json_str(slot, u, api->login, true, what);
}

static int get_labels(struct pr_strlist *out, const json_t *obj,
		      const struct pr_forge_rest *api)
{
	const json_t *a = json_object_get(obj, "labels"), *v, *n;
	size_t i;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return pr_error(PR_EPARSE, "%s: 'labels' is not a list",
				api->pr_what);
	json_array_foreach(a, i, v)
	{
		n = v;
		if (json_is_object(v))
			n = json_object_get(v, "name");
		else if (!api->label_strings)
			n = NULL;
		if (!json_is_string(n))
			return pr_error(PR_EPARSE, "%s: label %zu has no name",
					api->pr_what, i + 1);
		PR_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		out->items[out->nr++] = pr_strdup(json_string_value(n));
	}
	return 0;
}

/* "draft", else the older name; null is not a draft. */
static int get_draft(struct pr_forge_pr *pr, const json_t *o,
		     const struct pr_forge_rest *api)
{
	const json_t *d = json_object_get(o, "draft");

	if (!d && api->draft_old)
		d = json_object_get(o, api->draft_old);
	if (d && !json_is_boolean(d) && !json_is_null(d))
		return pr_error(PR_EPARSE,
				"%s %s%lld: 'draft' is not a boolean",
				api->pr_what, api->mark, (long long)pr->number);
	pr->draft = json_is_true(d);
	return 0;
}

int pr_forge_rest_pr_from_json(struct pr_forge_pr *pr,
			       const struct pr_forge_rest *api, const json_t *o)
{
	const char *what = api->pr_what;
	struct pr_buf ref = PR_BUF_INIT;
	int err;

	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "%s: not an object", what);
	if ((err = get_id(&pr->number, o, api->number, what)) ||
	    (err = pr_forge_json_str(&pr->title, o, "title", true, what)) ||
	    (err = pr_forge_json_str(&pr->body, o, api->body, false, what)) ||
	    (err = get_author(&pr->author, o, api, what)) ||
	    (err = api->ends(pr, o)) ||
	    (err = pr_forge_json_str(&pr->web_url, o, api->web_url, false,
				     what)) ||
	    (err = pr_forge_json_str(&pr->updated_at, o, "updated_at", false,
				     what)) ||
	    (err = get_labels(&pr->labels, o, api)))
		return pr->number ? pr_error_wrap(err, "%s%lld", api->mark,
						  (long long)pr->number)
				  : err;
	if (!pr->body)
		pr->body = pr_strdup("");
	if ((err = get_draft(pr, o, api)) ||
	    (err = pr_buf_addf(&ref, "%s%lld/head", api->ref_prefix,
			       (long long)pr->number)))
		return err;
	free(pr->fetch_ref);
	pr->fetch_ref = pr_buf_detach(&ref, NULL);
	return 0;
}

/* A positive integer at key, else 0 (absent, null, another type). */
static int64_t opt_int(const json_t *o, const char *key)
{
	const json_t *v = key ? json_object_get(o, key) : NULL;

	return json_is_integer(v) && json_integer_value(v) > 0
		       ? (int64_t)json_integer_value(v)
		       : 0;
}

/*
 * Where a comment is, when the forge says: its URL, and for a comment on
 * a line the file, the line (the new side's, else the old side's) and
 * the hunk it answers; a review's state.  All optional.
 */
static int comment_place(struct pr_forge_comment *c,
			 const struct pr_forge_rest *api, const json_t *o)
{
	const char *what = api->comment_what;
	const json_t *pos = o;
	int err;

	if ((api->comment_url &&
	     (err = pr_forge_json_str(&c->url, o, api->comment_url, false,
				      what))) ||
	    (err = pr_forge_json_str(&c->state, o, "state", false, what)))
		return err;
	if (api->position &&
	    (err = pr_forge_json_obj(&pos, o, api->position, false, what)))
		return err;
	if (!pos || !api->line.path ||
	    (err = pr_forge_json_str(&c->path, pos, api->line.path, false,
				     what)) ||
	    !c->path)
		return err;
	c->line = opt_int(pos, api->line.no);
	if (!c->line)
		c->line = opt_int(pos, api->line.old);
	return api->line.hunk ? pr_forge_json_str(&c->hunk, o, api->line.hunk,
						  false, what)
			      : 0;
}

int pr_forge_rest_comment_from_json(struct pr_forge_comment_list *out,
				    const struct pr_forge_rest *api,
				    const json_t *o)
{
	const char *what = api->comment_what;
	struct pr_forge_comment *c;
	const json_t *u;
	int err;

	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "%s: not an object", what);
	if (api->system && json_is_true(json_object_get(o, api->system)))
		return 0;
	if ((err = pr_forge_json_obj(&u, o, api->author, false, what)))
		return err;
	/* nobody may trigger through a comment without its author */
	if (!u && api->drop_authorless)
		return 0;
	c = pr_forge_comment_list_add(out);
	if ((err = get_id(&c->id, o, "id", what)))
		return err;
	if (!u)
		return pr_error(PR_EPARSE, "%s %lld: no author", what,
				(long long)c->id);
	if ((err = pr_forge_json_str(&c->author, u, api->login, true, what)))
		return err;
	/* an empty comment body may come as null */
	if ((err = pr_forge_json_str(&c->body, o, "body",
				     api->comment_body_required, what)) ||
	    (err = comment_place(c, api, o)))
		return pr_error_wrap(err, "comment %lld", (long long)c->id);
	if (!c->body)
		c->body = pr_strdup("");
	return 0;
}

int pr_forge_rest_user_from_json(char **login, const struct pr_forge_rest *api,
				 const json_t *o)
{
	*login = NULL;
	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "%s: not an object", api->user_what);
	return pr_forge_json_str(login, o, api->login, true, api->user_what);
}

/* ---- request bodies ---- */

/* Append obj as compact JSON to out and drop obj (also after err). */
static int dump(struct pr_buf *out, json_t *obj, int err,
		const struct pr_forge_rest *api)
{
	char *s = NULL;

	if (!err && !(s = json_dumps(obj, JSON_COMPACT)))
		err = pr_error(PR_EINVAL, "%s request: cannot encode JSON",
			       api->name);
	if (!err)
		err = pr_buf_adds(out, s);
	free(s);
	json_decref(obj);
	return err;
}

/* A JSON string; jansson refuses text that is not UTF-8. */
static int string(json_t **out, const char *key, const char *val,
		  const struct pr_forge_rest *api)
{
	*out = json_string(val);
	if (!*out)
		return pr_error(PR_EINVAL, "%s request: '%s' is not UTF-8 text",
				api->name, key);
	return 0;
}

/* {key: val} into out */
static int dump_pair(struct pr_buf *out, const char *key, const char *val,
		     const struct pr_forge_rest *api)
{
	json_t *o = json_object(), *v;
	int err;

	if (!(err = string(&v, key, val, api)))
		json_object_set_new(o, key, v);
	return dump(out, o, err, api);
}

int pr_forge_rest_comment_json(struct pr_buf *out,
			       const struct pr_forge_rest *api,
			       const char *text)
{
	return dump_pair(out, "body", text, api);
}

int pr_forge_rest_close_json(struct pr_buf *out,
			     const struct pr_forge_rest *api)
{
	return dump_pair(out, api->close_key, api->close_value, api);
}

int pr_forge_rest_label_json(struct pr_buf *out,
			     const struct pr_forge_rest *api, const char *label)
{
	json_t *o, *a, *v;
	int err;

	if (!api->label_array) {
		/* the value is a comma list: a comma would make two labels */
		if (strchr(label, ','))
			return pr_error(PR_EINVAL,
					"%s label '%s': holds a comma",
					api->name, label);
		return dump_pair(out, api->label_key, label, api);
	}
	o = json_object();
	a = json_array();
	if (!(err = string(&v, api->label_key, label, api)))
		json_array_append_new(a, v);
	json_object_set_new(o, api->label_key, a);
	return dump(out, o, err, api);
}

int pr_forge_rest_status_json(struct pr_buf *out,
			      const struct pr_forge_rest *api, int verdict,
			      const char *context, const char *description)
{
	const char *keys[] = { "state", api->status_context, "description" };
	const char *vals[] = { api->status_states[verdict & 3], context,
			       description };
	json_t *o = json_object(), *v;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < PR_ARRAY_SIZE(keys); i++)
		if (!(err = string(&v, keys[i], vals[i] ? vals[i] : "", api)))
			json_object_set_new(o, keys[i], v);
	return dump(out, o, err, api);
}

int pr_forge_rest_pr_json(struct pr_buf *out, const struct pr_forge_rest *api,
			  const char *branch, const char *base,
			  const char *title, const char *body)
{
	const char *keys[] = { "title", api->body, api->head_key,
			       api->base_key };
	const char *vals[] = { title, body, branch, base };
	json_t *o = json_object(), *v;
	size_t i, n = branch ? 4 : 2;
	int err = 0;

	for (i = 0; !err && i < n; i++)
		if (!(err = string(&v, keys[i], vals[i] ? vals[i] : "", api)))
			json_object_set_new(o, keys[i], v);
	return dump(out, o, err, api);
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

/* The URL of a route of PR number in repo. */
static int route_url(struct pr_buf *out, const struct pr_forge *f,
		     const char *repo, const struct pr_forge_route *r,
		     int64_t number)
{
	int err;

	if ((err = api_of(f)->repo_url(out, f->opts->api_url, repo, r->path)))
		return err;
	return pr_buf_addf(out, "%lld%s", (long long)number, r->tail);
}

/* GET url as one JSON value in *root. */
static int get_json(json_t **root, struct pr_forge *f, const char *url,
		    const char *etag, char **etag_out)
{
	struct pr_http_response resp = { 0 };
	int err;

	*root = NULL;
	if (!(err = pr_forge_http(f, &resp, "GET", url, NULL, etag)) &&
	    !(err = load(root, &resp, url)) && etag_out) {
		free(*etag_out);
		*etag_out = resp.etag ? pr_strdup(resp.etag) : NULL;
	}
	pr_http_response_release(&resp);
	return err;
}

/*
 * The table's repo_git_url: the git URL that holds the refs of repo's
 * PRs, set as fetch_url and base_url of the nr PRs at prs.  Asked only
 * when a list or a PR was read, so an idle poll costs no request for it.
 */
static int set_git_urls(struct pr_forge *f, const char *repo,
			struct pr_forge_pr *prs, size_t nr)
{
	const struct pr_forge_rest *api = api_of(f);
	struct pr_buf url = PR_BUF_INIT, what = PR_BUF_INIT;
	json_t *root = NULL;
	char *git_url = NULL;
	size_t i;
	int err;

	if (!api->repo_git_url || !nr)
		return 0;
	if ((err = api->repo_url(&url, f->opts->api_url, repo, NULL)) ||
	    (err = get_json(&root, f, url.ptr, NULL, NULL)) ||
	    (err = pr_buf_addf(&what, "%s repository '%s'", api->name, repo)))
		goto done;
	if (!json_is_object(root))
		err = pr_error(PR_EPARSE, "%s: not an object", what.ptr);
	else
		err = pr_forge_json_str(&git_url, root, api->repo_git_url, true,
					what.ptr);
	for (i = 0; !err && i < nr; i++) {
		free(prs[i].fetch_url);
		free(prs[i].base_url);
		prs[i].fetch_url = pr_strdup(git_url);
		prs[i].base_url = pr_strdup(git_url);
	}
done:
	free(git_url);
	json_decref(root);
	pr_buf_release(&url);
	pr_buf_release(&what);
	return err;
}

int pr_forge_rest_whoami(struct pr_forge *f, char **out, const char *etag,
			 char **etag_out)
{
	struct pr_buf url = PR_BUF_INIT;
	json_t *root = NULL;
	int err;

	if (!(err = pr_forge_rest_base(&url, f->opts->api_url)) &&
	    !(err = pr_buf_adds(&url, "/user")) &&
	    !(err = get_json(&root, f, url.ptr, etag, etag_out)))
		err = pr_forge_rest_user_from_json(out, api_of(f), root);
	json_decref(root);
	pr_buf_release(&url);
	return err;
}

/* pr_forge_get_list()'s payload: the list and how to read its items */
struct items {
	const struct pr_forge_rest *api;
	void *list;
};

static int pr_item(void *elem, void *payload)
{
	struct items *it = payload;

	return pr_forge_rest_pr_from_json(pr_forge_pr_list_add(it->list),
					  it->api, elem);
}

static int comment_item(void *elem, void *payload)
{
	struct items *it = payload;

	return pr_forge_rest_comment_from_json(it->list, it->api, elem);
}

int pr_forge_rest_list_prs(struct pr_forge *f, struct pr_forge_pr_list *out,
			   const char *repo, const char *etag, char **etag_out)
{
	const struct pr_forge_rest *api = api_of(f);
	struct items it = { api, out };
	struct pr_buf url = PR_BUF_INIT;
	int err;

	if (!(err = api->repo_url(&url, f->opts->api_url, repo,
				  api->list_prs)) &&
	    !(err = pr_forge_get_list(f, url.ptr, etag, etag_out, pr_item,
				      &it)))
		err = set_git_urls(f, repo, out->items, out->nr);
	pr_buf_release(&url);
	return err;
}

int pr_forge_rest_get_pr(struct pr_forge *f, struct pr_forge_pr *out,
			 const char *repo, int64_t number)
{
	const struct pr_forge_rest *api = api_of(f);
	struct pr_buf url = PR_BUF_INIT;
	json_t *root = NULL;
	int err;

	if (!(err = route_url(&url, f, repo, &api->get_pr, number)) &&
	    !(err = get_json(&root, f, url.ptr, NULL, NULL)) &&
	    !(err = pr_forge_rest_pr_from_json(out, api, root)))
		err = set_git_urls(f, repo, out, 1);
	json_decref(root);
	pr_buf_release(&url);
	return err;
}

/* A PR's list at route r (method NULL: the forge has none: empty). */
static int list_route(struct pr_forge *f, struct pr_forge_comment_list *out,
		      const char *repo, int64_t number,
		      const struct pr_forge_route *r, const char *etag,
		      char **etag_out)
{
	struct items it = { api_of(f), out };
	struct pr_buf url = PR_BUF_INIT;
	int err;

	if (!r->method)
		return 0;
	if (!(err = route_url(&url, f, repo, r, number)))
		err = pr_forge_get_list(f, url.ptr, etag, etag_out,
					comment_item, &it);
	pr_buf_release(&url);
	return err;
}

int pr_forge_rest_list_comments(struct pr_forge *f,
				struct pr_forge_comment_list *out,
				const char *repo, int64_t number,
				const char *etag, char **etag_out)
{
	return list_route(f, out, repo, number, &api_of(f)->list_comments, etag,
			  etag_out);
}

int pr_forge_rest_list_line_comments(struct pr_forge *f,
				     struct pr_forge_comment_list *out,
				     const char *repo, int64_t number,
				     const char *etag, char **etag_out)
{
	return list_route(f, out, repo, number, &api_of(f)->list_line_comments,
			  etag, etag_out);
}

int pr_forge_rest_list_reviews(struct pr_forge *f,
			       struct pr_forge_comment_list *out,
			       const char *repo, int64_t number,
			       const char *etag, char **etag_out)
{
	return list_route(f, out, repo, number, &api_of(f)->list_reviews, etag,
			  etag_out);
}

/*
 * Send body to a route of PR number, unless err (what building the body
 * returned) is set; body is released.  The answer's body is not needed.
 */
static int write_route(struct pr_forge *f, const char *repo, int64_t number,
		       const struct pr_forge_route *r, struct pr_buf *body,
		       int err, int64_t *id)
{
	struct pr_http_response resp = { 0 };
	struct pr_buf url = PR_BUF_INIT;
	json_t *root = NULL;

	if (!err && !(err = route_url(&url, f, repo, r, number))) {
		err = pr_forge_http(f, &resp, r->method, url.ptr, body->ptr,
				    NULL);
		/* a write is never conditional: a 304 is a broken server */
		if (err == PR_FORGE_NOT_MODIFIED)
			err = pr_error(PR_ENET, "%s '%s': unexpected 304",
				       r->method, url.ptr);
	}
	/* what was made: its id, when asked */
	if (!err && id && !(err = load(&root, &resp, url.ptr)))
		err = get_id(id, root, "id", api_of(f)->comment_what);
	json_decref(root);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	pr_buf_release(body);
	return err;
}

int pr_forge_rest_post_comment(struct pr_forge *f, const char *repo,
			       int64_t number, const char *text, int64_t *id)
{
	struct pr_buf body = PR_BUF_INIT;

	return write_route(f, repo, number, &api_of(f)->post_comment, &body,
			   pr_forge_rest_comment_json(&body, api_of(f), text),
			   id);
}

int pr_forge_rest_close_pr(struct pr_forge *f, const char *repo, int64_t number)
{
	struct pr_buf body = PR_BUF_INIT;

	return write_route(f, repo, number, &api_of(f)->close_pr, &body,
			   pr_forge_rest_close_json(&body, api_of(f)), NULL);
}

int pr_forge_rest_add_label(struct pr_forge *f, const char *repo,
			    int64_t number, const char *label)
{
	struct pr_buf body = PR_BUF_INIT;

	return write_route(f, repo, number, &api_of(f)->add_label, &body,
			   pr_forge_rest_label_json(&body, api_of(f), label),
			   NULL);
}

int pr_forge_rest_clone_url(struct pr_forge *f, char **out, const char *repo)
{
	const struct pr_forge_rest *api = api_of(f);
	struct pr_buf url = PR_BUF_INIT, what = PR_BUF_INIT;
	json_t *root = NULL;
	int err;

	*out = NULL;
	if ((err = api->repo_url(&url, f->opts->api_url, repo, NULL)) ||
	    (err = get_json(&root, f, url.ptr, NULL, NULL)) ||
	    (err = pr_buf_addf(&what, "%s repository '%s'", api->name, repo)))
		goto done;
	if (!json_is_object(root))
		err = pr_error(PR_EPARSE, "%s: not an object", what.ptr);
	else
		err = pr_forge_json_str(out, root, api->clone_url, true,
					what.ptr);
done:
	json_decref(root);
	pr_buf_release(&url);
	pr_buf_release(&what);
	return err;
}

int pr_forge_rest_find_pr(struct pr_forge *f, struct pr_forge_pr *out,
			  const char *repo, const char *branch)
{
	const struct pr_forge_rest *api = api_of(f);
	struct pr_forge_pr_list prs = { 0 };
	struct items it = { api, &prs };
	struct pr_buf url = PR_BUF_INIT;
	size_t owner = strcspn(repo, "/");
	int err;

	if ((err = api->repo_url(&url, f->opts->api_url, repo, api->find_pr)) ||
	    (api->find_owner &&
	     (err = pr_buf_addf(&url, "%.*s:", (int)owner, repo))) ||
	    (err = pr_http_escape(&url, branch)) ||
	    (err = pr_forge_get_list(f, url.ptr, NULL, NULL, pr_item, &it)))
		goto done;
	if (!prs.nr) {
		err = PR_ENOENT;
		goto done;
	}
	/* the list's item is the PR as it stands: moved, not copied */
	*out = prs.items[0];
	memset(&prs.items[0], 0, sizeof(prs.items[0]));
done:
	pr_forge_pr_list_release(&prs);
	pr_buf_release(&url);
	return err;
}

int pr_forge_rest_create_pr(struct pr_forge *f, struct pr_forge_pr *out,
			    const char *repo, const char *branch,
			    const char *base, const char *title,
			    const char *body)
{
	const struct pr_forge_rest *api = api_of(f);
	struct pr_http_response resp = { 0 };
	struct pr_buf url = PR_BUF_INIT, json = PR_BUF_INIT;
	json_t *root = NULL;
	int err;

	if ((err = pr_forge_rest_pr_json(&json, api, branch, base, title,
					 body)) ||
	    (err = api->repo_url(&url, f->opts->api_url, repo, api->create_pr)))
		goto done;
	err = pr_forge_http(f, &resp, "POST", url.ptr, json.ptr, NULL);
	if (err == PR_FORGE_NOT_MODIFIED)
		err = pr_error(PR_ENET, "POST '%s': unexpected 304", url.ptr);
	if (!err && !(err = load(&root, &resp, url.ptr)))
		err = pr_forge_rest_pr_from_json(out, api, root);
done:
	json_decref(root);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	pr_buf_release(&json);
	return err;
}

int pr_forge_rest_update_pr(struct pr_forge *f, const char *repo,
			    int64_t number, const char *title, const char *body)
{
	struct pr_buf json = PR_BUF_INIT;

	return write_route(f, repo, number, &api_of(f)->update_pr, &json,
			   pr_forge_rest_pr_json(&json, api_of(f), NULL, NULL,
						 title, body),
			   NULL);
}

int pr_forge_rest_post_status(struct pr_forge *f, const char *repo,
			      const char *sha, int verdict, const char *context,
			      const char *description)
{
	const struct pr_forge_rest *api = api_of(f);
	struct pr_http_response resp = { 0 };
	struct pr_buf url = PR_BUF_INIT, body = PR_BUF_INIT;
	int err;

	if (!api->status)
		return pr_error(PR_EINVAL, "%s: no commit statuses", api->name);
	if (!(err = api->repo_url(&url, f->opts->api_url, repo, api->status)) &&
	    !(err = pr_http_escape(&url, sha)) &&
	    !(err = pr_forge_rest_status_json(&body, api, verdict, context,
					      description))) {
		err = pr_forge_http(f, &resp, "POST", url.ptr, body.ptr, NULL);
		if (err == PR_FORGE_NOT_MODIFIED)
			err = pr_error(PR_ENET, "POST '%s': unexpected 304",
				       url.ptr);
	}
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	pr_buf_release(&body);
	return err;
}
