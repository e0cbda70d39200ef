#include "base/pr.h"

#include <jansson.h>
#include <time.h>

#include "engine/idmap.h"
#include "engine/notes.h"
#include "engine/store.h"
#include "patchwork.h"

/* ---- options and state ---- */

static const char *const match_names[] = { "msgid", "hash", "patch-id",
					   "subject" };

const char *pr_pw_match_name(enum pr_pw_match m)
{
	return (size_t)m < PR_ARRAY_SIZE(match_names) ? match_names[m] : "?";
}

/* A link name or check context: [-a-zA-Z0-9_]+ (Patchwork's slugs). */
static bool is_slug(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

/* Add one word of `match` to pw->match (each method once). */
static int add_match(struct pr_pw *pw, const char *w, size_t n)
{
	size_t i, j;

	for (i = 0; i < PR_ARRAY_SIZE(match_names); i++) {
		if (strlen(match_names[i]) != n || memcmp(w, match_names[i], n))
			continue;
		for (j = 0; j < pw->nr_match; j++)
			if (pw->match[j] == (enum pr_pw_match)i)
				return 0;
		pw->match[pw->nr_match++] = (enum pr_pw_match)i;
		return 0;
	}
	return pr_error(PR_ECONFIG,
			"sink '%s': option 'match': unknown method '%.*s' "
			"(msgid, hash, patch-id, subject)",
			pw->inst->name, (int)n, w);
}

int pr_pw_open(struct pr_pw **out, struct pr_instance *inst)
{
	const struct pr_patchwork_ctx *o = inst->ctx;
	struct pr_pw *pw = pr_calloc(1, sizeof(*pw));
	size_t i;
	int err = 0;

	*out = NULL;
	pw->inst = inst;
	pw->o = o;
	pr_buf_init(&pw->api, 0);
	if (!o->api_url || (strncmp(o->api_url, "http://", 7) &&
			    strncmp(o->api_url, "https://", 8))) {
		err = pr_error(PR_ECONFIG,
			       "patchwork '%s': option 'api-url': '%s' is not "
			       "an http(s) URL",
			       inst->name, o->api_url ? o->api_url : "");
		goto done;
	}
	if (!is_slug(o->project)) {
		err = pr_error(PR_ECONFIG,
			       "patchwork '%s': option 'project': '%s' is not "
			       "a project link name",
			       inst->name, o->project ? o->project : "");
		goto done;
	}
	if (!is_slug(o->check_context)) {
		err = pr_error(PR_ECONFIG,
			       "patchwork '%s': option 'check-context': '%s' "
			       "is not a slug ([-a-zA-Z0-9_]+)",
			       inst->name,
			       o->check_context ? o->check_context : "");
		goto done;
	}
	if ((err = pr_buf_adds(&pw->api, o->api_url)) ||
	    (pw->api.ptr[pw->api.len - 1] != '/' &&
	     (err = pr_buf_addch(&pw->api, '/'))))
		goto done;
	for (i = 0; i < o->match.nr && !err; i++) {
		const char *p = o->match.items[i];

		while (*p && !err) {
			size_t n;

			p += strspn(p, ", \t");
			n = strcspn(p, ", \t");
			if (n)
				err = add_match(pw, p, n);
			p += n;
		}
	}
	if (err)
		goto done;
	if (!pw->nr_match) {
		pw->match[pw->nr_match++] = PR_PW_MATCH_MSGID;
		pw->match[pw->nr_match++] = PR_PW_MATCH_HASH;
		pw->match[pw->nr_match++] = PR_PW_MATCH_PATCH_ID;
	}
	pw->http.ca_file = o->ca_file;
	pw->http.auth_header = "Authorization: Token %s";
	pw->http.token = o->token && *o->token ? o->token : NULL;
	pw->http.timeout_ms = o->timeout;
	pw->http.log_prefix = inst->prefix;
	/* one kept-alive connection for all the instance's requests */
	pw->http.share = pr_http_share_new();
	*out = pw;
	pw = NULL;
done:
	pr_pw_free(pw);
	return err;
}

void pr_pw_free(struct pr_pw *pw)
{
	if (!pw)
		return;
	pr_http_share_free(pw->http.share);
	pr_buf_release(&pw->api);
	free(pw);
}

bool pr_pw_state_is_final(const struct pr_pw *pw, const char *state)
{
	static const char *const finals[] = { "accepted", "rejected",
					      "superseded", "not-applicable" };
	size_t i;

	if (!state)
		return false;
	for (i = 0; i < PR_ARRAY_SIZE(finals); i++)
		if (!strcmp(state, finals[i]))
			return true;
	return (pw->o->on_landed && !strcmp(state, pw->o->on_landed)) ||
	       (pw->o->on_superseded && !strcmp(state, pw->o->on_superseded));
}

/* ---- JSON ---- */

static int bad_field(const char *what, const char *field)
{
	return pr_error(PR_EPARSE,
			"patchwork %s: field '%s' is not what the "
			"API gives",
			what, field);
}

/* A string field, NULL when null or absent (unless required). */
static int get_str(char **slot, const json_t *obj, const char *key,
		   bool required, const char *what)
{
	const json_t *v = json_object_get(obj, key);

	*slot = NULL;
	if (!v || json_is_null(v))
		return required ? bad_field(what, key) : 0;
	if (!json_is_string(v))
		return bad_field(what, key);
	*slot = pr_strdup(json_string_value(v));
	return 0;
}

static int get_int(int64_t *out, const json_t *obj, const char *key,
		   bool required, const char *what)
{
	const json_t *v = json_object_get(obj, key);

	*out = 0;
	if (!v || json_is_null(v))
		return required ? bad_field(what, key) : 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return bad_field(what, key);
	*out = (int64_t)json_integer_value(v);
	return 0;
}

/* The msgid without its angle brackets. */
static char *bare_msgid(const char *m)
{
	size_t n;

	m += strspn(m, " <");
	n = strcspn(m, ">");
	return pr_strndup(m, n);
}

void pr_pw_patch_release(struct pr_pw_patch *p)
{
	free(p->msgid);
	free(p->name);
	free(p->state);
	free(p->hash);
	free(p->commit_ref);
	free(p->web_url);
	free(p->submitter);
	free(p->diff);
	memset(p, 0, sizeof(*p));
}

void pr_pw_patch_list_release(struct pr_pw_patch_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		pr_pw_patch_release(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

int pr_pw_patch_parse(struct pr_pw_patch *out, const void *json)
{
	const json_t *j = json, *sub, *series;
	char *msgid = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j))
		return pr_error(PR_EPARSE, "patchwork patch: not an object");
	if ((err = get_int(&out->id, j, "id", true, "patch")) ||
	    (err = get_str(&msgid, j, "msgid", true, "patch")) ||
	    (err = get_str(&out->name, j, "name", true, "patch")) ||
	    (err = get_str(&out->state, j, "state", true, "patch")) ||
	    (err = get_str(&out->hash, j, "hash", false, "patch")) ||
	    (err = get_str(&out->commit_ref, j, "commit_ref", false,
			   "patch")) ||
	    (err = get_str(&out->web_url, j, "web_url", false, "patch")) ||
	    (err = get_str(&out->diff, j, "diff", false, "patch")))
		goto done;
	out->msgid = bare_msgid(msgid);
	sub = json_object_get(j, "submitter");
	if (sub && !json_is_null(sub) &&
	    (!json_is_object(sub) ||
	     (err = get_str(&out->submitter, sub, "email", false, "patch"))))
		err = err ? err : bad_field("patch", "submitter");
	if (err)
		goto done;
	out->archived = json_is_true(json_object_get(j, "archived"));
	/* "series" is a list of 0 or 1 */
	series = json_object_get(j, "series");
	if (json_is_array(series) && json_array_size(series) &&
	    (err = get_int(&out->series_id, json_array_get(series, 0), "id",
			   false, "patch series")))
		goto done;
done:
	free(msgid);
	if (err)
		pr_pw_patch_release(out);
	return err;
}

/* Parse text as a JSON array; PR_EPARSE naming `what` when it is not. */
static int load_array(json_t **out, const char *text, size_t len,
		      const char *what)
{
	json_error_t jerr;

	*out = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!*out)
		return pr_error(PR_EPARSE, "patchwork %s: %s (line %d)", what,
				jerr.text, jerr.line);
	if (!json_is_array(*out)) {
		json_decref(*out);
		*out = NULL;
		return pr_error(PR_EPARSE, "patchwork %s: not a JSON array",
				what);
	}
	return 0;
}

int pr_pw_patches_parse(struct pr_pw_patch_list *out, const char *text,
			size_t len)
{
	json_t *a, *v;
	size_t i;
	int err;

	if ((err = load_array(&a, text, len, "patch list")))
		return err;
	json_array_foreach(a, i, v)
	{
		PR_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		if ((err = pr_pw_patch_parse(&out->items[out->nr], v)))
			break;
		out->nr++;
	}
	json_decref(a);
	return err;
}

void pr_pw_event_list_release(struct pr_pw_event_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->items[i].category);
		free(l->items[i].date);
		free(l->items[i].series_url);
		free(l->items[i].patch_msgid);
		free(l->items[i].state);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static int parse_event(struct pr_pw_event *e, const json_t *j)
{
	const json_t *payload, *series, *patch;
	char *msgid = NULL;
	int err;

	memset(e, 0, sizeof(*e));
	if (!json_is_object(j))
		return pr_error(PR_EPARSE, "patchwork event: not an object");
	if ((err = get_int(&e->id, j, "id", true, "event")) ||
	    (err = get_str(&e->category, j, "category", true, "event")) ||
	    (err = get_str(&e->date, j, "date", true, "event")))
		return err;
	payload = json_object_get(j, "payload");
	series = json_is_object(payload) ? json_object_get(payload, "series")
					 : NULL;
	if (json_is_object(series) &&
	    ((err = get_int(&e->series_id, series, "id", true,
			    "event series")) ||
	     (err = get_str(&e->series_url, series, "url", false,
			    "event series"))))
		return err;
	/* the patch of a state change (other categories' are not read) */
	patch = json_is_object(payload) &&
				!strcmp(e->category, "patch-state-changed")
			? json_object_get(payload, "patch")
			: NULL;
	if (json_is_object(patch) &&
	    ((err = get_int(&e->patch_id, patch, "id", true, "event patch")) ||
	     (err = get_str(&msgid, patch, "msgid", false, "event patch")) ||
	     (err = get_str(&e->state, payload, "current_state", false,
			    "event"))))
		goto done;
	e->patch_msgid = msgid ? bare_msgid(msgid) : NULL;
done:
	free(msgid);
	return err;
}

int pr_pw_events_parse(struct pr_pw_event_list *out, const char *text,
		       size_t len)
{
	json_t *a, *v;
	size_t i;
	int err = 0;

	if ((err = load_array(&a, text, len, "event list")))
		return err;
	json_array_foreach(a, i, v)
	{
		PR_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		err = parse_event(&out->items[out->nr], v);
		out->nr++;
		if (err)
			break;
	}
	json_decref(a);
	return err;
}

void pr_pw_series_release(struct pr_pw_series *s)
{
	free(s->name);
	free(s->web_url);
	free(s->mbox);
	free(s->submitter_name);
	free(s->submitter_email);
	free(s->cover_mbox);
	free(s->cover_msgid);
	free(s->cover_web_url);
	pr_pw_patch_list_release(&s->patches);
	memset(s, 0, sizeof(*s));
}

/* The short patches of a series detail: id and web_url (msgid kept). */
static int series_patches_parse(struct pr_pw_patch_list *out, const json_t *a)
{
	const json_t *e;
	char *msgid = NULL;
	size_t i;
	int err = 0;

	if (a && !json_is_array(a))
		return pr_error(PR_EPARSE, "patchwork series: 'patches' is "
					   "not an array");
	json_array_foreach(a, i, e)
	{
		struct pr_pw_patch *p;

		if (!json_is_object(e))
			return pr_error(PR_EPARSE, "patchwork series: a patch "
						   "is not an object");
		PR_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		p = &out->items[out->nr++];
		memset(p, 0, sizeof(*p));
		if ((err = get_int(&p->id, e, "id", true, "series patch")) ||
		    (err = get_str(&p->web_url, e, "web_url", false,
				   "series patch")) ||
		    (err = get_str(&msgid, e, "msgid", false, "series patch")))
			break;
		p->msgid = msgid ? bare_msgid(msgid) : NULL;
		free(msgid);
		msgid = NULL;
	}
	free(msgid);
	return err;
}

int pr_pw_series_parse(struct pr_pw_series *out, const char *text, size_t len)
{
	const json_t *sub, *cover;
	json_error_t jerr;
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	char *msgid = NULL;
	int64_t n;
	int err;

	memset(out, 0, sizeof(*out));
	if (!j || !json_is_object(j)) {
		err = pr_error(PR_EPARSE, "patchwork series: %s",
			       j ? "not an object" : jerr.text);
		goto done;
	}
	if ((err = get_int(&out->id, j, "id", true, "series")) ||
	    (err = get_str(&out->name, j, "name", false, "series")) ||
	    (err = get_str(&out->web_url, j, "web_url", false, "series")) ||
	    (err = get_str(&out->mbox, j, "mbox", true, "series")) ||
	    (err = get_int(&n, j, "version", true, "series")))
		goto done;
	out->version = n > 0 && n < 1000000 ? (int)n : 1;
	if ((err = get_int(&n, j, "total", false, "series")))
		goto done;
	out->total = n < 1000000 ? (int)n : 0;
	out->received_all = json_is_true(json_object_get(j, "received_all"));
	sub = json_object_get(j, "submitter");
	if (json_is_object(sub) &&
	    ((err = get_str(&out->submitter_name, sub, "name", false,
			    "series submitter")) ||
	     (err = get_str(&out->submitter_email, sub, "email", false,
			    "series submitter"))))
		goto done;
	cover = json_object_get(j, "cover_letter");
	if (json_is_object(cover)) {
		if ((err = get_int(&out->cover_id, cover, "id", true,
				   "series cover")) ||
		    (err = get_str(&out->cover_mbox, cover, "mbox", true,
				   "series cover")) ||
		    (err = get_str(&msgid, cover, "msgid", true,
				   "series cover")))
			goto done;
		out->cover_msgid = bare_msgid(msgid);
		if ((err = get_str(&out->cover_web_url, cover, "web_url", false,
				   "series cover")))
			goto done;
	}
	if ((err = series_patches_parse(&out->patches,
					json_object_get(j, "patches"))))
		goto done;
done:
	free(msgid);
	json_decref(j);
	if (err)
		pr_pw_series_release(out);
	return err;
}

int pr_pw_states_parse(struct pr_strlist *out, const char *body)
{
	static const char key[] = "Expected one of: ";
	const char *p = body ? strstr(body, key) : NULL;
	size_t before = out->nr;

	if (!p)
		return PR_ENOENT;
	p += sizeof(key) - 1;
	/* slugs separated by ", ", ended by "." */
	while (*p) {
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_");
		char *s;

		if (!n)
			break;
		s = pr_strndup(p, n);
		pr_strlist_add(out, s);
		free(s);
		p += n;
		if (strncmp(p, ", ", 2))
			break;
		p += 2;
	}
	return out->nr > before ? 0 : PR_ENOENT;
}

/* Append v (a string, or a list of strings) of an error body. */
static int add_error_value(struct pr_buf *out, const json_t *v)
{
	const json_t *e;
	size_t i;
	int err = 0;

	if (json_is_string(v))
		return pr_buf_adds(out, json_string_value(v));
	if (!json_is_array(v))
		return pr_buf_adds(out, "?");
	json_array_foreach(v, i, e)
	{
		if (i && (err = pr_buf_adds(out, " ")))
			break;
		if ((err = add_error_value(out, e)))
			break;
	}
	return err;
}

/*
 * What a body that is not JSON says (a proxy's or Django's HTML error
 * page, a plain-text answer): its visible text, tags dropped, blanks
 * collapsed, the first 120 printable bytes, quoted.
 */
static int add_page_text(struct pr_buf *out, const char *body, size_t len)
{
	struct pr_buf text = PR_BUF_INIT;
	bool in_tag = false, blank = false;
	int err = 0;

	for (size_t i = 0; i < len && text.len < 120 && !err; i++) {
		unsigned char ch = (unsigned char)body[i];

		if (ch == '<')
			in_tag = true;
		else if (ch == '>' && in_tag)
			in_tag = false;
		else if (in_tag)
			continue;
		else if (ch <= ' ' || ch == 0x7f)
			blank = text.len > 0;
		else {
			if (blank)
				err = pr_buf_addch(&text, ' ');
			blank = false;
			if (!err)
				err = pr_buf_addch(&text,
						   ch < 0x80 ? (char)ch : '?');
		}
	}
	if (!err)
		err = text.len ? pr_buf_addf(out,
					     "a body that is not JSON: \"%s\"",
					     text.ptr)
			       : pr_buf_addf(out, "%zu bytes that are not JSON",
					     len);
	pr_buf_release(&text);
	return err;
}

int pr_pw_error_text(struct pr_buf *out, const char *body, size_t len)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *key;
	json_t *v;
	bool first = true;
	int err = 0;

	if (!j || !json_is_object(j)) {
		err = add_page_text(out, body, len);
		goto done;
	}
	v = json_object_get(j, "detail");
	if (v) {
		err = add_error_value(out, v);
		goto done;
	}
	json_object_foreach(j, key, v)
	{
		if ((err = pr_buf_addf(out, "%s%s: ", first ? "" : "; ",
				       key)) ||
		    (err = add_error_value(out, v)))
			break;
		first = false;
	}
done:
	json_decref(j);
	return err;
}

/* ---- requests ---- */

static bool is_write(const char *method)
{
	return strcmp(method, "GET") && strcmp(method, "HEAD");
}

/* The error of a non-2xx answer. */
static int answer_error(struct pr_pw *pw, const struct pr_http_response *r,
			const char *method, const char *url)
{
	struct pr_buf why = PR_BUF_INIT;
	int err = 0, code;

	if ((err = pr_pw_error_text(&why, r->body.ptr, r->body.len)))
		goto done;
	switch (r->status) {
	case 400:
		code = PR_EINVAL;
		break;
	case 401:
	case 403:
		code = PR_EAUTH;
		break;
	case 404:
		code = PR_ENOENT;
		break;
	case 429:
	case 503:
		if (r->retry_after >= 0) {
			err = pr_error(PR_EAGAIN,
				       "patchwork '%s': %s %s: %ld: rate "
				       "limited until %lld",
				       pw->inst->name, method, url, r->status,
				       (long long)time(NULL) +
					       (long long)r->retry_after);
			goto done;
		}
		code = r->status == 429 ? PR_EAGAIN : PR_ENET;
		break;
	default:
		code = PR_ENET;
		break;
	}
	/* a refused write: say whose rights it takes */
	if (code == PR_EAUTH && is_write(method))
		pr_buf_addf(&why,
			    " (the token must be of a maintainer of "
			    "project '%s')",
			    pw->o->project);
	err = pr_error(code, "patchwork '%s': %s %s: %ld: %s", pw->inst->name,
		       method, url, r->status, why.ptr);
done:
	pr_buf_release(&why);
	return err;
}

/* The length of "scheme://host[:port]" at the start of url. */
static size_t origin_len(const char *url)
{
	const char *p = strstr(url, "://");

	if (!p)
		return 0;
	p += 3;
	return (size_t)(p - url) + strcspn(p, "/?#");
}

int pr_pw_request(struct pr_pw *pw, struct pr_http_response *resp,
		  const char *method, const char *url, const char *body)
{
	struct pr_buf full = PR_BUF_INIT;
	size_t n = origin_len(pw->api.ptr);
	int err;

	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		if ((err = pr_buf_addbuf(&full, &pw->api)))
			return err;
	} else if (origin_len(url) != n || strncmp(url, pw->api.ptr, n)) {
		/* the token goes to the API's server only */
		return pr_error(PR_EPARSE,
				"patchwork '%s': '%s' is not on the server "
				"of api-url '%s'",
				pw->inst->name, url, pw->api.ptr);
	}
	if ((err = pr_buf_adds(&full, url)))
		goto done;
	if (is_write(method))
		pw->writes++;
	else
		pw->reads++;
	err = pr_http_request(resp, &pw->http, method, full.ptr, body, NULL);
	if (err) {
		err = pr_error_wrap(err, "patchwork '%s'", pw->inst->name);
		goto done;
	}
	if (resp->status < 200 || resp->status > 299)
		err = answer_error(pw, resp, method, full.ptr);
done:
	pr_buf_release(&full);
	return err;
}

int pr_pw_get_pages(struct pr_pw *pw, const char *url,
		    int (*fn)(const char *body, size_t len, void *payload),
		    void *payload)
{
	struct pr_buf next = PR_BUF_INIT, cur = PR_BUF_INIT;
	int64_t pages = 0;
	int err;

	if ((err = pr_buf_adds(&cur, url)))
		goto done;
	for (;;) {
		struct pr_http_response resp;

		memset(&resp, 0, sizeof(resp));
		err = pr_pw_request(pw, &resp, "GET", cur.ptr, NULL);
		if (!err)
			err = fn(resp.body.ptr, resp.body.len, payload);
		pr_buf_reset(&next);
		if (!err && resp.link)
			err = pr_http_link_rel(&next, resp.link, "next");
		pr_http_response_release(&resp);
		if (err <= 0)
			break;
		err = 0;
		if (strncmp(next.ptr, pw->api.ptr, pw->api.len)) {
			err = pr_error(PR_EPARSE,
				       "patchwork '%s': next page '%s' is not "
				       "under api-url '%s'",
				       pw->inst->name, next.ptr, pw->api.ptr);
			break;
		}
		if (pw->o->max_pages && ++pages >= pw->o->max_pages) {
			pr_log_warn(pw->inst->prefix,
				    "'%s': stopped after %lld pages "
				    "(max-pages)",
				    url, (long long)pages);
			break;
		}
		pr_buf_reset(&cur);
		if ((err = pr_buf_addbuf(&cur, &next)))
			break;
	}
done:
	pr_buf_release(&next);
	pr_buf_release(&cur);
	return err;
}

static int patches_page(const char *body, size_t len, void *payload)
{
	return pr_pw_patches_parse(payload, body, len);
}

int pr_pw_find(struct pr_pw *pw, struct pr_pw_patch_list *out,
	       const char *filter, const char *value)
{
	struct pr_buf url = PR_BUF_INIT;
	int err;

	if ((err = pr_buf_adds(&url, "patches/?project=")) ||
	    (err = pr_http_escape(&url, pw->o->project)) ||
	    (err = pr_buf_addf(&url, "&per_page=250&%s=", filter)) ||
	    (err = pr_http_escape(&url, value)))
		goto done;
	err = pr_pw_get_pages(pw, url.ptr, patches_page, out);
done:
	pr_buf_release(&url);
	return err;
}

int pr_pw_get_patch(struct pr_pw *pw, struct pr_pw_patch *out, int64_t id)
{
	struct pr_http_response resp;
	struct pr_buf url = PR_BUF_INIT;
	json_t *j = NULL;
	int err;

	memset(&resp, 0, sizeof(resp));
	memset(out, 0, sizeof(*out));
	if ((err = pr_buf_addf(&url, "patches/%lld/", (long long)id)) ||
	    (err = pr_pw_request(pw, &resp, "GET", url.ptr, NULL)))
		goto done;
	j = json_loadb(resp.body.ptr, resp.body.len, 0, NULL);
	err = pr_pw_patch_parse(out, j);
done:
	json_decref(j);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

/* The 400 of a state change: the instance's states, as a config error. */
static int bad_state(struct pr_pw *pw, const struct pr_http_response *r,
		     const char *option, const char *state)
{
	struct pr_strlist states = { 0 };
	struct pr_buf list = PR_BUF_INIT;
	size_t i;
	int err;

	if (pr_pw_states_parse(&states, r->body.ptr) < 0) {
		pr_strlist_release(&states);
		return PR_EINVAL;
	}
	for (i = 0; i < states.nr; i++)
		pr_buf_addf(&list, "%s%s", i ? ", " : "", states.items[i]);
	err = pr_error(PR_ECONFIG,
		       "patchwork '%s': option '%s': the instance at '%s' has "
		       "no state '%s'; its states: %s",
		       pw->inst->name, option, pw->api.ptr, state, list.ptr);
	pr_buf_release(&list);
	pr_strlist_release(&states);
	return err;
}

int pr_pw_set_state(struct pr_pw *pw, struct pr_pw_patch *p, const char *option,
		    const char *state, const char *commit_ref, bool archive)
{
	struct pr_http_response resp;
	struct pr_buf url = PR_BUF_INIT;
	json_t *body = json_pack("{s:s}", "state", state);
	char *text = NULL;
	int err;

	memset(&resp, 0, sizeof(resp));
	if (commit_ref)
		json_object_set_new(body, "commit_ref",
				    json_string(commit_ref));
	if (archive)
		json_object_set_new(body, "archived", json_true());
	text = json_dumps(body, JSON_COMPACT);
	if ((err = pr_buf_addf(&url, "patches/%lld/", (long long)p->id)))
		goto done;
	err = pr_pw_request(pw, &resp, "PATCH", url.ptr, text);
	if (err == PR_EINVAL && resp.status == 400) {
		err = bad_state(pw, &resp, option, state);
		if (err == PR_EINVAL)
			err = pr_error(PR_EINVAL, "%s", pr_error_message());
	}
	if (err)
		goto done;
	free(p->state);
	p->state = pr_strdup(state);
	if (commit_ref) {
		free(p->commit_ref);
		p->commit_ref = pr_strdup(commit_ref);
	}
done:
	free(text);
	json_decref(body);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

/* ---- notes ---- */

static int note_scope(struct pr_buf *out, const struct pr_pw *pw)
{
	return pr_buf_addf(out, "patchwork:%s", pw->inst->name);
}

int pr_pw_note_get(struct pr_pw *pw, struct pr_buf *out, const char *key)
{
	struct pr_buf scope = PR_BUF_INIT;
	int err;

	if (!pw->inst->store)
		return PR_ENOENT;
	if (!(err = note_scope(&scope, pw)))
		err = pr_notes_get(out, pw->inst->store, scope.ptr, key);
	pr_buf_release(&scope);
	return err;
}

int pr_pw_note_set(struct pr_pw *pw, const char *key, const char *value)
{
	struct pr_buf scope = PR_BUF_INIT;
	int err;

	if (!pw->inst->store)
		return 0;
	if (!(err = note_scope(&scope, pw)))
		err = pr_notes_set(pw->inst->store, scope.ptr, key, value);
	pr_buf_release(&scope);
	return err;
}

int pr_pw_note_patch(struct pr_pw *pw, const struct pr_pw_patch *p,
		     const char *origin, const char *key, int version)
{
	struct pr_buf old = PR_BUF_INIT, name = PR_BUF_INIT;
	json_t *j = NULL, *prev = NULL;
	char *text = NULL;
	int err;

	if (!p->msgid || !pw->inst->store)
		return 0;
	if ((err = pr_buf_addf(&name, "patch:%s", p->msgid)))
		goto done;
	err = pr_pw_note_get(pw, &old, name.ptr);
	if (err && err != PR_ENOENT)
		goto done;
	prev = err ? NULL : json_loads(old.ptr, 0, NULL);
	j = json_pack("{s:I, s:I, s:s, s:s?}", "id", (json_int_t)p->id,
		      "series", (json_int_t)p->series_id, "state", p->state,
		      "url", p->web_url);
	if (origin) {
		json_object_set_new(j, "origin", json_string(origin));
		json_object_set_new(j, "key", json_string(key));
		json_object_set_new(j, "version", json_integer(version));
	} else if (json_is_object(prev) && json_object_get(prev, "origin")) {
		json_object_set(j, "origin", json_object_get(prev, "origin"));
		json_object_set(j, "key", json_object_get(prev, "key"));
		json_object_set(j, "version", json_object_get(prev, "version"));
	}
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	err = text ? pr_pw_note_set(pw, name.ptr, text) : 0;
done:
	free(text);
	json_decref(j);
	json_decref(prev);
	pr_buf_release(&old);
	pr_buf_release(&name);
	return err;
}

/* One id of the series in the map; another series' stays its. */
static int remember_id(struct pr_pw *pw, int64_t series_id, const char *kind,
		       const char *value)
{
	int err =
		pr_store_identity_add(pw->inst->store, series_id, kind, value);

	if (err == PR_EEXIST) {
		pr_log_debug(pw->inst->prefix, "%s", pr_error_message());
		pr_error_clear();
		err = 0;
	}
	return err;
}

int pr_pw_remember(struct pr_pw *pw, int64_t series_id, const char *what,
		   int64_t id, const char *web_url)
{
	struct pr_buf url = PR_BUF_INIT, value = PR_BUF_INIT;
	const char *kind = !strcmp(what, "series")   ? "patchwork-series"
			   : !strcmp(what, "covers") ? "patchwork-cover"
						     : "patchwork-patch";
	int err;

	if (!pw->inst->store || !series_id || id <= 0)
		return 0;
	if ((err = pr_buf_addf(&url, "%s%s/%lld/", pw->api.ptr, what,
			       (long long)id)))
		goto done;
	err = pr_idmap_patchwork_url(&value, url.ptr, url.len);
	if (!err)
		err = remember_id(pw, series_id, kind, value.ptr);
	else if (err == PR_ENOENT)
		/* an api-url Patchwork's own layout does not have */
		err = remember_id(pw, series_id, kind, url.ptr);
	if (!err && web_url && *web_url)
		err = remember_id(pw, series_id, "patchwork-url", web_url);
done:
	pr_buf_release(&url);
	pr_buf_release(&value);
	return err;
}
