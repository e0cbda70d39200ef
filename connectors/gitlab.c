#include "pr.h"

#include <ctype.h>
#include <jansson.h>

#include "connectors.h"
#include "gitlab.h"
#include "http.h"

/*
 * The gitlab connector: merge requests of GitLab projects as series.  This
 * part maps GitLab REST v4 (URLs, JSON fields, pagination, error answers);
 * see gitlab.h for the invariants.
 */

/* ---- JSON helpers ---- */

static int load(json_t **out, const char *text, size_t len, const char *what)
{
	json_error_t jerr;

	*out = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
	if (!*out)
		return pr_error(PR_EPARSE, "gitlab %s: bad JSON at line %d: %s",
				what, jerr.line, jerr.text);
	return 0;
}

/*
 * The string at `key` of obj, copied into *slot: absent or null gives NULL
 * (an error when required), another type or a NUL inside is PR_EPARSE.
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
	if (strlen(json_string_value(v)) != json_string_length(v))
		return pr_error(PR_EPARSE, "gitlab %s: '%s' holds a NUL byte",
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

/* author.username (or user.username) of obj; absent gives NULL. */
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

static void strlist_release(struct pr_strlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
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

/* ---- merge requests ---- */

void pr_gitlab_mr_release(struct pr_gitlab_mr *mr)
{
	if (!mr)
		return;
	free(mr->state);
	free(mr->title);
	free(mr->description);
	free(mr->author);
	free(mr->sha);
	free(mr->target_branch);
	free(mr->source_branch);
	free(mr->web_url);
	free(mr->updated_at);
	strlist_release(&mr->labels);
	memset(mr, 0, sizeof(*mr));
}

void pr_gitlab_mrs_free(struct pr_gitlab_mr *mrs, size_t nr)
{
	size_t i;

	for (i = 0; mrs && i < nr; i++)
		pr_gitlab_mr_release(&mrs[i]);
	free(mrs);
}

static int mr_from_json(struct pr_gitlab_mr *mr, const json_t *o)
{
	const char *what = "merge request";
	const json_t *d;
	int err;

	if (!json_is_object(o))
		return pr_error(PR_EPARSE, "gitlab %s: not an object", what);
	if ((err = get_id(&mr->iid, o, "iid", what)) ||
	    (err = get_str(&mr->state, o, "state", true, what)) ||
	    (err = get_str(&mr->title, o, "title", true, what)) ||
	    (err = get_str(&mr->description, o, "description", false, what)) ||
	    (err = get_username(&mr->author, o, "author", what)) ||
	    (err = get_str(&mr->sha, o, "sha", false, what)) ||
	    (err = get_str(&mr->target_branch, o, "target_branch", true,
			   what)) ||
	    (err = get_str(&mr->source_branch, o, "source_branch", false,
			   what)) ||
	    (err = get_str(&mr->web_url, o, "web_url", false, what)) ||
	    (err = get_str(&mr->updated_at, o, "updated_at", false, what)) ||
	    (err = get_labels(&mr->labels, o)))
		return pr_error_wrap(err, "!%lld", (long long)mr->iid);
	if (!mr->description)
		mr->description = pr_strdup("");
	/* "work_in_progress" is the name before GitLab 15 */
	d = json_object_get(o, "draft");
	if (!d)
		d = json_object_get(o, "work_in_progress");
	mr->draft = json_is_true(d);
	return 0;
}

int pr_gitlab_parse_mr(struct pr_gitlab_mr *out, const char *text, size_t len)
{
	json_t *root = NULL;
	int err;

	if ((err = load(&root, text, len, "merge request")))
		goto done;
	err = mr_from_json(out, root);
	if (err)
		pr_gitlab_mr_release(out);
done:
	json_decref(root);
	return err;
}

int pr_gitlab_parse_mrs(struct pr_gitlab_mr **out, size_t *nr, const char *text,
			size_t len)
{
	json_t *root = NULL, *v;
	size_t i, alloc = *nr;
	int err;

	if ((err = load(&root, text, len, "merge request list")))
		goto done;
	if (!json_is_array(root)) {
		err = pr_error(PR_EPARSE,
			       "gitlab merge request list: not a list");
		goto done;
	}
	json_array_foreach(root, i, v)
	{
		PR_ALLOC_GROW(*out, *nr + 1, alloc);
		memset(&(*out)[*nr], 0, sizeof(**out));
		if ((err = mr_from_json(&(*out)[*nr], v))) {
			pr_gitlab_mr_release(&(*out)[*nr]);
			goto done;
		}
		(*nr)++;
	}
done:
	json_decref(root);
	return err;
}

/* ---- notes, users, projects ---- */

void pr_gitlab_notes_free(struct pr_gitlab_note *notes, size_t nr)
{
	size_t i;

	for (i = 0; notes && i < nr; i++) {
		free(notes[i].author);
		free(notes[i].body);
		free(notes[i].created_at);
	}
	free(notes);
}

int pr_gitlab_parse_notes(struct pr_gitlab_note **out, size_t *nr,
			  const char *text, size_t len)
{
	const char *what = "note";
	json_t *root = NULL, *v;
	size_t i, alloc = *nr;
	int err;

	if ((err = load(&root, text, len, "note list")))
		goto done;
	if (!json_is_array(root)) {
		err = pr_error(PR_EPARSE, "gitlab note list: not a list");
		goto done;
	}
	json_array_foreach(root, i, v)
	{
		struct pr_gitlab_note *n;

		if (!json_is_object(v)) {
			err = pr_error(PR_EPARSE,
				       "gitlab note %zu: not an "
				       "object",
				       i + 1);
			goto done;
		}
		if (json_is_true(json_object_get(v, "system")))
			continue;
		PR_ALLOC_GROW(*out, *nr + 1, alloc);
		n = &(*out)[*nr];
		memset(n, 0, sizeof(*n));
		(*nr)++;
		if ((err = get_id(&n->id, v, "id", what)) ||
		    (err = get_username(&n->author, v, "author", what)) ||
		    (err = get_str(&n->body, v, "body", true, what)) ||
		    (err = get_str(&n->created_at, v, "created_at", false,
				   what)))
			goto done;
		if (!n->author) {
			err = pr_error(PR_EPARSE, "gitlab note %lld: no author",
				       (long long)n->id);
			goto done;
		}
	}
done:
	json_decref(root);
	return err;
}

int pr_gitlab_parse_user(char **username, const char *text, size_t len)
{
	json_t *root = NULL;
	int err;

	*username = NULL;
	if ((err = load(&root, text, len, "user")))
		goto done;
	if (!json_is_object(root)) {
		err = pr_error(PR_EPARSE, "gitlab user: not an object");
		goto done;
	}
	err = get_str(username, root, "username", true, "user");
done:
	json_decref(root);
	return err;
}

int pr_gitlab_parse_project(char **http_url, const char *text, size_t len)
{
	json_t *root = NULL;
	int err;

	*http_url = NULL;
	if ((err = load(&root, text, len, "project")))
		goto done;
	if (!json_is_object(root)) {
		err = pr_error(PR_EPARSE, "gitlab project: not an object");
		goto done;
	}
	err = get_str(http_url, root, "http_url_to_repo", true, "project");
done:
	json_decref(root);
	return err;
}

/* ---- URLs ---- */

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

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* url with its page= query parameter set to page (added when absent). */
static int set_page(struct pr_buf *out, const char *url, const char *page)
{
	const char *q = strchr(url, '?'), *p;
	int err;

	if (!q)
		return pr_buf_addf(out, "%s?page=%s", url, page);
	for (p = q; p && *p; p = strchr(p + 1, '&')) {
		const char *v = p + 1, *end;

		if (strncmp(v, "page=", 5))
			continue;
		end = strchr(v, '&');
		if (!end)
			end = v + strlen(v);
		if ((err = pr_buf_add(out, url, (size_t)(v - url))) ||
		    (err = pr_buf_addf(out, "page=%s", page)))
			return err;
		return pr_buf_adds(out, end);
	}
	return pr_buf_addf(out, "%s&page=%s", url, page);
}

int pr_gitlab_next_url(struct pr_buf *out, const char *url,
		       const struct pr_http_response *resp)
{
	const char *next = resp->next_page;

	if (next && *next) {
		if (!all_digits(next) || strlen(next) > 9)
			return pr_error(PR_EPARSE,
					"gitlab '%s': bad x-next-page '%.40s'",
					url, next);
		int err = set_page(out, url, next);

		return err ? err : 1;
	}
	if (next)
		return 0; /* present and empty: the last page */
	if (!resp->link)
		return 0;
	return pr_http_link_rel(out, resp->link, "next");
}

/* ---- request bodies ---- */

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

int pr_gitlab_labels_json(struct pr_buf *out, const char *add,
			  const char *remove)
{
	json_t *o = json_object();
	int err = 0;

	if (add)
		err = put(o, "add_labels", add);
	if (!err && remove)
		err = put(o, "remove_labels", remove);
	return dump(out, o, err);
}

/* ---- answers ---- */

/*
 * GitLab's own words from an error body: {"message": "..."}, {"error":
 * "..."} or {"message": {"error": "..."}} (a 429), or "" when none.
 */
static void error_text(struct pr_buf *out, const struct pr_buf *body)
{
	json_t *root = json_loadb(body->ptr, body->len, 0, NULL), *m;

	if (!root)
		return;
	m = json_object_get(root, "message");
	if (json_is_object(m))
		m = json_object_get(m, "error");
	if (!m)
		m = json_object_get(root, "error");
	/* error texts are short; a long one is cut, not an error */
	if (json_is_string(m))
		pr_buf_addf(out, ": %.200s", json_string_value(m));
	json_decref(root);
}

int pr_gitlab_check(const struct pr_http_response *resp, const char *method,
		    const char *url)
{
	struct pr_buf why = PR_BUF_INIT;
	long st = resp->status;
	int code, err;

	if ((st >= 200 && st < 300) || st == 304)
		return 0;
	if (st == 401 || st == 403)
		code = PR_EAUTH;
	else if (st == 404)
		code = PR_ENOENT;
	else if (st == 429)
		code = PR_EAGAIN;
	else if (st >= 500)
		code = PR_ENET;
	else
		code = PR_EINVAL;
	error_text(&why, &resp->body);
	err = pr_error(code, "gitlab %s '%s': status %ld%s", method, url, st,
		       why.ptr);
	pr_buf_release(&why);
	return err;
}
