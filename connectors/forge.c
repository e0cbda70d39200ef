#include "pr.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <time.h>

#include "cfg.h"
#include "forge.h"
#include "model.h"
#include "outgoing.h"
#include "report_render.h"

/*
 * The logic GitHub and GitLab share (see forge.h).  Nothing here names a
 * forge: URLs, headers and JSON fields are the ops' business.
 */

const char *const pr_forge_trigger_choices[] = { "auto", "comment", "label",
						 NULL };
const char *const pr_forge_close_choices[] = { "after-send", "on-merge",
					       "never", NULL };

/* Pages followed for one list at most: a server that loops is stopped. */
#define FORGE_MAX_PAGES 1000

void pr_forge_pr_release(struct pr_forge_pr *pr)
{
	free(pr->title);
	free(pr->body);
	free(pr->author);
	free(pr->head_sha);
	free(pr->base_ref);
	free(pr->web_url);
	free(pr->fetch_url);
	free(pr->fetch_ref);
	free(pr->base_url);
	free(pr->updated_at);
	pr_strlist_release(&pr->labels);
	memset(pr, 0, sizeof(*pr));
}

struct pr_forge_pr *pr_forge_pr_list_add(struct pr_forge_pr_list *l)
{
	PR_ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	memset(&l->items[l->nr], 0, sizeof(l->items[0]));
	return &l->items[l->nr++];
}

void pr_forge_pr_list_release(struct pr_forge_pr_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		pr_forge_pr_release(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

struct pr_forge_comment *
pr_forge_comment_list_add(struct pr_forge_comment_list *l)
{
	PR_ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	memset(&l->items[l->nr], 0, sizeof(l->items[0]));
	return &l->items[l->nr++];
}

void pr_forge_comment_list_release(struct pr_forge_comment_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->items[i].author);
		free(l->items[i].body);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* ---- the cursor ---- */

static void pr_state_release(struct pr_forge_pr_state *p)
{
	free(p->key);
	free(p->head);
	free(p->etag);
	pr_strlist_release(&p->allowed);
	pr_strlist_release(&p->told);
}

void pr_forge_cursor_release(struct pr_forge_cursor *c)
{
	size_t i;

	free(c->self);
	free(c->self_etag);
	for (i = 0; i < c->nr_lists; i++) {
		free(c->lists[i].repo);
		free(c->lists[i].etag);
	}
	free(c->lists);
	for (i = 0; i < c->nr_prs; i++)
		pr_state_release(&c->prs[i]);
	free(c->prs);
	memset(c, 0, sizeof(*c));
}

struct pr_forge_pr_state *pr_forge_cursor_pr(struct pr_forge_cursor *c,
					     const char *key, bool create)
{
	struct pr_forge_pr_state *p;
	size_t i;

	for (i = 0; i < c->nr_prs; i++)
		if (!strcmp(c->prs[i].key, key))
			return &c->prs[i];
	if (!create)
		return NULL;
	PR_ALLOC_GROW(c->prs, c->nr_prs + 1, c->alloc_prs);
	p = &c->prs[c->nr_prs++];
	memset(p, 0, sizeof(*p));
	p->key = pr_strdup(key);
	return p;
}

static char **list_etag_slot(struct pr_forge_cursor *c, const char *repo)
{
	size_t i;

	for (i = 0; i < c->nr_lists; i++)
		if (!strcmp(c->lists[i].repo, repo))
			return &c->lists[i].etag;
	PR_ALLOC_GROW(c->lists, c->nr_lists + 1, c->alloc_lists);
	c->lists[c->nr_lists].repo = pr_strdup(repo);
	c->lists[c->nr_lists].etag = NULL;
	return &c->lists[c->nr_lists++].etag;
}

static char *json_strdup(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? pr_strdup(s) : NULL;
}

static int strlist_from_json(struct pr_strlist *out, json_t *a)
{
	size_t i;
	json_t *v;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return PR_EPARSE;
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v))
			return PR_EPARSE;
		pr_strlist_add(out, json_string_value(v));
	}
	return 0;
}

int pr_forge_cursor_parse(struct pr_forge_cursor *c, const char *text)
{
	json_t *root = NULL, *v, *prs, *lists;
	json_error_t jerr;
	const char *key;
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (!text || !*text)
		return 0;
	root = json_loads(text, 0, &jerr);
	if (!root || !json_is_object(root) ||
	    json_integer_value(json_object_get(root, "v")) != 1) {
		err = pr_error(PR_EPARSE, "cursor '%.40s': not a forge cursor",
			       text);
		goto done;
	}
	c->retry_at = json_integer_value(json_object_get(root, "retry_at"));
	c->self = json_strdup(root, "self");
	c->self_etag = json_strdup(root, "self_etag");
	lists = json_object_get(root, "lists");
	if (lists && !json_is_object(lists))
		goto bad;
	json_object_foreach(lists, key, v)
	{
		if (!json_is_string(v))
			goto bad;
		*list_etag_slot(c, key) = pr_strdup(json_string_value(v));
	}
	prs = json_object_get(root, "prs");
	if (prs && !json_is_object(prs))
		goto bad;
	json_object_foreach(prs, key, v)
	{
		struct pr_forge_pr_state *p;
		json_t *n;

		if (!json_is_object(v))
			goto bad;
		p = pr_forge_cursor_pr(c, key, true);
		n = json_object_get(v, "c");
		if (n && !json_is_integer(n))
			goto bad;
		p->last_comment = json_integer_value(n);
		p->head = json_strdup(v, "head");
		p->etag = json_strdup(v, "etag");
		if (strlist_from_json(&p->allowed,
				      json_object_get(v, "allowed")) ||
		    strlist_from_json(&p->told, json_object_get(v, "told")))
			goto bad;
	}
	goto done;
bad:
	err = pr_error(PR_EPARSE, "cursor '%.40s': bad forge cursor", text);
done:
	if (err)
		pr_forge_cursor_release(c);
	json_decref(root);
	return err;
}

static json_t *strlist_to_json(const struct pr_strlist *l)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < l->nr; i++)
		json_array_append_new(a, json_string(l->items[i]));
	return a;
}

static void set_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, json_string(s));
}

int pr_forge_cursor_format(struct pr_buf *out, const struct pr_forge_cursor *c)
{
	json_t *root = json_object(), *lists = json_object(),
	       *prs = json_object();
	char *text = NULL;
	size_t i;
	int err;

	json_object_set_new(root, "v", json_integer(1));
	if (c->retry_at)
		json_object_set_new(root, "retry_at",
				    json_integer(c->retry_at));
	set_str(root, "self", c->self);
	set_str(root, "self_etag", c->self_etag);
	for (i = 0; i < c->nr_lists; i++)
		set_str(lists, c->lists[i].repo, c->lists[i].etag);
	json_object_set_new(root, "lists", lists);
	for (i = 0; i < c->nr_prs; i++) {
		const struct pr_forge_pr_state *p = &c->prs[i];
		json_t *o = json_object();

		json_object_set_new(o, "c", json_integer(p->last_comment));
		set_str(o, "head", p->head);
		set_str(o, "etag", p->etag);
		if (p->allowed.nr)
			json_object_set_new(o, "allowed",
					    strlist_to_json(&p->allowed));
		if (p->told.nr)
			json_object_set_new(o, "told",
					    strlist_to_json(&p->told));
		json_object_set_new(prs, p->key, o);
	}
	json_object_set_new(root, "prs", prs);
	text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text)
		return pr_error(PR_EINTERNAL, "cursor: cannot write JSON");
	err = pr_buf_adds(out, text);
	free(text);
	return err;
}

/* ---- decisions ---- */

static bool strlist_has(const struct pr_strlist *l, const char *s)
{
	size_t i;

	for (i = 0; l && i < l->nr; i++)
		if (!strcasecmp(l->items[i], s))
			return true;
	return false;
}

bool pr_forge_may_trigger(const struct pr_forge_opts *o,
			  const struct pr_forge_pr *pr,
			  const struct pr_strlist *allowed, const char *login)
{
	if (!login || !*login)
		return false;
	if (pr->author && !strcasecmp(pr->author, login))
		return true;
	return strlist_has(&o->allow, login) || strlist_has(allowed, login);
}

/* A clean address for a header: no control bytes, one '@', no ',' or ';'. */
static bool clean_address(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == ',' || *p == ';')
			return false;
	return strchr(s, '@') != NULL;
}

int pr_forge_parse_cc(struct pr_recipient_list *out, char **rest,
		      const char *body)
{
	struct pr_buf keep = PR_BUF_INIT, val = PR_BUF_INIT;
	const char *p = body ? body : "";
	int err = 0;

	while (*p && !err) {
		size_t n = strcspn(p, "\n"), e = n;
		const char *q;

		if (e && p[e - 1] == '\r')
			e--;
		if (e >= 3 && !strncasecmp(p, "cc:", 3)) {
			struct pr_ident id = { NULL, NULL };

			pr_buf_reset(&val);
			for (q = p + 3; q < p + e && (*q == ' ' || *q == '\t');
			     q++)
				;
			err = pr_buf_add(&val, q, (size_t)(p + e - q));
			pr_buf_rtrim(&val);
			/* anything odd in the value drops it, nothing more */
			if (!err && clean_address(val.ptr) &&
			    pr_outgoing_parse_address(&id, val.ptr) == 0 &&
			    pr_outgoing_check_address("cc", id.email) == 0)
				pr_recipient_list_add(out, id.name, id.email,
						      PR_RCPT_CC,
						      "cc: in PR body");
			pr_ident_release(&id);
		} else if (!err) {
			err = pr_buf_add(&keep, p, e);
			if (!err && p[n])
				err = pr_buf_addch(&keep, '\n');
		}
		p += n + (p[n] ? 1 : 0);
	}
	if (!err) {
		pr_buf_rtrim(&keep);
		*rest = pr_buf_detach(&keep, NULL);
	}
	pr_buf_release(&keep);
	pr_buf_release(&val);
	return err;
}

/* ---- requests ---- */

static int64_t forge_now(const struct pr_forge *f)
{
	return f->now ? f->now : (int64_t)time(NULL);
}

/* "2026-12-03T18:00:00Z" */
static void format_time(char out[32], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "%lld", (long long)t);
}

/*
 * Whether resp is a rate-limit answer, and until when: retry-after wins,
 * then an exhausted primary limit's reset, then (a 429 or a 403 whose
 * body says "rate limit") a minute, as GitHub's docs advise.
 */
static bool rate_limited(int64_t *until, const struct pr_http_response *resp,
			 int64_t now)
{
	if (resp->status != 403 && resp->status != 429)
		return false;
	if (resp->retry_after >= 0) {
		*until = now + resp->retry_after;
		return true;
	}
	if (resp->ratelimit_remaining == 0 && resp->ratelimit_reset > 0) {
		*until = resp->ratelimit_reset > now ? resp->ratelimit_reset
						     : now + 1;
		return true;
	}
	if (resp->status == 429 ||
	    (resp->body.len && strcasestr(resp->body.ptr, "rate limit"))) {
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
	if (rate_limited(&until, resp, forge_now(f))) {
		f->retry_at = until;
		format_time(when, until);
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

/* ---- state, feedback ---- */

int pr_forge_open(struct pr_forge **out, struct pr_instance *inst,
		  const struct pr_forge_ops *ops)
{
	const struct pr_forge_opts *o = inst->ctx;
	struct pr_forge *f;
	size_t i;

	*out = NULL;
	for (i = 0; i < o->repo.nr; i++) {
		const char *r = o->repo.items[i], *slash = strchr(r, '/');

		if (!slash || slash == r || !slash[1] || strchr(r, '#') ||
		    strchr(r, ' '))
			return pr_error(PR_ECONFIG,
					"source '%s': option 'repo': bad "
					"repository '%s' (want owner/name)",
					inst->name, r);
	}
	if (o->trigger && !strcmp(o->trigger, "label") &&
	    (!o->label || !*o->label))
		return pr_error(PR_ECONFIG,
				"source '%s': option 'trigger': label needs "
				"the 'label' option",
				inst->name);
	if (o->max_commits < 0)
		return pr_error(PR_ECONFIG,
				"source '%s': option 'max-commits': negative",
				inst->name);
	f = pr_calloc(1, sizeof(*f));
	f->ops = ops;
	f->inst = inst;
	f->opts = o;
	f->http.ca_file = o->ca_file;
	f->http.token = o->token;
	f->http.timeout_ms = o->timeout;
	f->http.log_prefix = inst->prefix;
	*out = f;
	return 0;
}

void pr_forge_close(struct pr_forge *f)
{
	free(f);
}

int pr_forge_poll(struct pr_forge *f, const char *cursor, pr_event_fn emit,
		  void *payload)
{
	PR_UNUSED(cursor);
	PR_UNUSED(emit);
	PR_UNUSED(payload);
	return pr_error(PR_EUNSUPPORTED,
			"source '%s': forge polling is not "
			"written yet",
			f->inst->name);
}

/* "owner/repo#7" -> repo "owner/repo" and 7; PR_EINVAL when not so. */
static int split_key(struct pr_buf *repo, int64_t *number, const char *key)
{
	const char *hash = key ? strrchr(key, '#') : NULL;
	char *end;
	long long n;

	if (!hash || hash == key || !hash[1])
		return pr_error(PR_EINVAL, "series '%s': not a forge key",
				key ? key : "");
	errno = 0;
	n = strtoll(hash + 1, &end, 10);
	if (*end || errno || n <= 0)
		return pr_error(PR_EINVAL, "series '%s': not a forge key", key);
	*number = n;
	return pr_buf_add(repo, key, (size_t)(hash - key));
}

int pr_forge_feedback(struct pr_forge *f, const struct pr_series *s,
		      const struct pr_report *report, const char *summary)
{
	const struct pr_forge_opts *o = f->opts;
	struct pr_buf repo = PR_BUF_INIT, body = PR_BUF_INIT;
	int64_t n = 0;
	int err;

	if ((err = split_key(&repo, &n, s->origin_key)))
		goto done;
	if (!summary) {
		err = pr_buf_adds(&body, "patchrelay did not send this pull "
					 "request: a check failed.\n\n");
		if (!err)
			err = pr_report_render(&body, report,
					       PR_RENDER_MARKDOWN);
	} else {
		err = pr_buf_adds(&body, summary);
	}
	if (err || (err = f->ops->post_comment(f, repo.ptr, n, body.ptr)))
		goto done;
	if (!summary) {
		if (o->label_refused && *o->label_refused)
			err = f->ops->add_label(f, repo.ptr, n,
						o->label_refused);
		goto done;
	}
	/* a preview went to the author only: the PR stays as it is */
	if (f->emitting_preview)
		goto done;
	if (o->label_sent && *o->label_sent &&
	    (err = f->ops->add_label(f, repo.ptr, n, o->label_sent)))
		goto done;
	if (o->close && !strcmp(o->close, "after-send"))
		err = f->ops->close_pr(f, repo.ptr, n);
done:
	pr_buf_release(&repo);
	pr_buf_release(&body);
	return err;
}
