#include "base/pr.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <time.h>

#include "engine/cfg.h"
#include "forge.h"
#include "git/gitrepo.h"
#include "base/log.h"
#include "model/model.h"
#include "mail/outgoing.h"
#include "model/report_render.h"
#include "model/trailer.h"

/*
 * The logic GitHub and GitLab share (see forge.h).  Nothing here names a
 * forge: URLs, headers and JSON fields are the ops' business.
 */

const char *const pr_forge_trigger_choices[] = { "auto", "comment", "label",
						 NULL };
const char *const pr_forge_close_choices[] = { "after-send", "on-merge",
					       "never", NULL };

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
		free(l->items[i].url);
		free(l->items[i].path);
		free(l->items[i].hunk);
		free(l->items[i].state);
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
	free(p->line_etag);
	free(p->review_etag);
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

/* An optional integer field (absent: 0); PR_EPARSE for another type. */
static int int_field(int64_t *out, json_t *o, const char *key)
{
	json_t *n = json_object_get(o, key);

	if (n && !json_is_integer(n))
		return PR_EPARSE;
	*out = json_integer_value(n);
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
		if (int_field(&p->last_mirror, v, "m") ||
		    int_field(&p->last_line, v, "r") ||
		    int_field(&p->last_review, v, "v"))
			goto bad;
		p->line_etag = json_strdup(v, "re");
		p->review_etag = json_strdup(v, "ve");
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
		/* mirror-reviews only: a cursor without it stays as it was */
		if (p->last_mirror || p->last_line || p->last_review) {
			json_object_set_new(o, "m",
					    json_integer(p->last_mirror));
			json_object_set_new(o, "r", json_integer(p->last_line));
			json_object_set_new(o, "v",
					    json_integer(p->last_review));
		}
		set_str(o, "re", p->line_etag);
		set_str(o, "ve", p->review_etag);
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

/* ---- time ---- */

int64_t pr_forge_now(const struct pr_forge *f)
{
	return f->now ? f->now : (int64_t)time(NULL);
}

void pr_forge_format_time(char out[32], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "%lld", (long long)t);
}

/* ---- state, feedback ---- */

int pr_forge_open(struct pr_forge **out, struct pr_instance *inst,
		  const struct pr_forge_ops *ops)
{
	const struct pr_forge_opts *o = inst->ctx;
	struct pr_forge *f;
	size_t i;
	int err;

	*out = NULL;
	for (i = 0; i < o->repo.nr; i++) {
		const char *r = o->repo.items[i], *slash = strchr(r, '/');

		if (!slash || slash == r || !slash[1] || strchr(r, '#') ||
		    strchr(r, ' '))
			return pr_error(PR_ECONFIG,
					"%s '%s': option 'repo': bad "
					"repository '%s' (want owner/name)",
					PR_FORGE_KIND(inst), inst->name, r);
	}
	if (o->trigger && !strcmp(o->trigger, "label") &&
	    (!o->label || !*o->label))
		return pr_error(PR_ECONFIG,
				"%s '%s': option 'trigger': label needs "
				"the 'label' option",
				PR_FORGE_KIND(inst), inst->name);
	if (o->max_commits < 0)
		return pr_error(PR_ECONFIG,
				"%s '%s': option 'max-commits': negative",
				PR_FORGE_KIND(inst), inst->name);
	f = pr_calloc(1, sizeof(*f));
	f->ops = ops;
	f->inst = inst;
	f->opts = o;
	f->http.ca_file = o->ca_file;
	f->http.token = o->token;
	f->http.timeout_ms = o->timeout;
	f->http.log_prefix = inst->prefix;
	/* one kept-alive connection for all the instance's requests */
	f->http.share = pr_http_share_new();
	if (inst->kind && !strcmp(inst->kind, "sink"))
		f->sink = &((const struct pr_forge_ctx *)inst->ctx)->sink;
	if ((ops->open && (err = ops->open(f))) ||
	    (f->sink && (err = pr_forge_sink_open(f)))) {
		pr_forge_close(f);
		return err;
	}
	*out = f;
	return 0;
}

void pr_forge_close(struct pr_forge *f)
{
	if (!f)
		return;
	pr_http_share_free(f->http.share);
	free(f);
}

/* ---- the connector type's ops ---- */

int pr_forge_type_open(struct pr_instance *inst, const struct pr_forge_ops *ops)
{
	struct pr_forge *f = NULL;
	int err;

	if ((err = pr_forge_open(&f, inst, ops)))
		return err;
	inst->state = f;
	return 0;
}

int pr_forge_type_poll(struct pr_instance *inst, const char *cursor,
		       pr_event_fn emit, void *payload)
{
	return pr_forge_poll(inst->state, cursor, emit, payload);
}

int pr_forge_type_feedback(struct pr_instance *inst, const struct pr_series *s,
			   const struct pr_report *report, const char *summary)
{
	return pr_forge_feedback(inst->state, s, report, summary);
}

void pr_forge_type_close(struct pr_instance *inst)
{
	pr_forge_close(inst->state);
	inst->state = NULL;
}

/* ---- polling ---- */

/* One poll's working state. */
struct poll_ctx {
	struct pr_forge *f;
	struct pr_forge_cursor c;
	pr_event_fn emit;
	void *payload;
	/* an emit failed or asked to stop, or the forge said stop */
	bool stop;
	int first_err;
	struct pr_buf first_msg;
};

enum {
	CMD_SUBMIT = 1,
	CMD_PREVIEW = 2
};

static bool is_login_byte(int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '.';
}

/* Whether line (n bytes) starts with the command word cmd. */
static bool is_command(const char *line, size_t n, const char *cmd)
{
	size_t len = strlen(cmd);

	return n >= len && !strncmp(line, cmd, len) &&
	       (n == len || isspace((unsigned char)line[len]));
}

/*
 * The commands of a comment: /submit, /preview and /allow @login, each at
 * the start of a line (after blanks): a quoted "> /submit" is no command.
 * The logins to allow are added to allow.
 */
static unsigned parse_commands(const char *body, struct pr_strlist *allow)
{
	unsigned cmds = 0;
	const char *p = body ? body : "";

	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, "\n");
		if (is_command(p, n, "/submit"))
			cmds |= CMD_SUBMIT;
		else if (is_command(p, n, "/preview"))
			cmds |= CMD_PREVIEW;
		else if (is_command(p, n, "/allow")) {
			const char *q = p + 6, *e;
			struct pr_buf login = PR_BUF_INIT;

			while (q < p + n && (*q == ' ' || *q == '\t'))
				q++;
			if (q < p + n && *q == '@')
				q++;
			for (e = q; e < p + n && is_login_byte(*e); e++)
				;
			if (e > q &&
			    pr_buf_add(&login, q, (size_t)(e - q)) == 0)
				pr_strlist_add(allow, login.ptr);
			pr_buf_release(&login);
		}
		p += n + (p[n] ? 1 : 0);
	}
	return cmds;
}

/* Emit s (NULL: a cursor-only event) with the cursor as it stands. */
static int emit_event(struct poll_ctx *p, struct pr_series *s, bool preview)
{
	struct pr_event ev = { 0 };
	struct pr_buf text = PR_BUF_INIT;
	int err;

	ev.kind = s ? PR_EVENT_VERSION : PR_EVENT_STATE;
	ev.series = s;
	ev.preview = preview;
	if ((err = pr_forge_cursor_format(&text, &p->c))) {
		pr_event_release(&ev);
		return err;
	}
	ev.cursor = pr_buf_detach(&text, NULL);
	p->f->emitting_preview = preview;
	err = p->emit(&ev, p->payload);
	p->f->emitting_preview = false;
	pr_event_release(&ev);
	if (err)
		p->stop = true;
	return err;
}

/* Tell login once per PR why nothing happened. */
static int tell_once(struct poll_ctx *p, struct pr_forge_pr_state *st,
		     const char *repo, int64_t number, const char *login,
		     const char *why)
{
	struct pr_buf body = PR_BUF_INIT;
	int err;

	if (strlist_has(&st->told, login))
		return 0;
	if (!(err = pr_buf_addf(&body, "@%s: %s", login, why)) &&
	    !(err = p->f->ops->post_comment(p->f, repo, number, body.ptr,
					    NULL)))
		pr_strlist_add(&st->told, login);
	pr_buf_release(&body);
	return err;
}

/* Post why a PR is not sent, and its label. */
static int refuse(struct poll_ctx *p, const char *repo, int64_t number,
		  const char *why)
{
	const struct pr_forge_opts *o = p->f->opts;
	struct pr_buf body = PR_BUF_INIT;
	int err;

	if (!(err = pr_buf_addf(&body,
				"patchrelay did not send this pull request: "
				"%s\n",
				why)))
		err = p->f->ops->post_comment(p->f, repo, number, body.ptr,
					      NULL);
	if (!err && o->label_refused && *o->label_refused)
		err = p->f->ops->add_label(p->f, repo, number,
					   o->label_refused);
	pr_buf_release(&body);
	return err;
}

/* The cover letter from the PR's title and body (Cc: lines taken out). */
static int add_cover(struct pr_version *v, struct pr_series *s,
		     const struct pr_forge_pr *pr,
		     const struct pr_forge_fetched *ft)
{
	struct pr_buf stat = PR_BUF_INIT;
	char *rest = NULL;
	int err;

	if ((err = pr_forge_parse_cc(&s->recipients, &rest, pr->body)))
		return err;
	/* a lone patch says it all; a description earns it a cover */
	if (v->nr < 2 && !*rest)
		goto done;
	v->cover = pr_calloc(1, sizeof(*v->cover));
	v->cover->subject = pr_strdup(pr->title ? pr->title : "");
	v->cover->body = rest;
	rest = NULL;
	if (ft->merge_base[0] &&
	    pr_gitrepo_stat(&stat, ft->dir.ptr, ft->merge_base, ft->head) == 0)
		v->cover->stat = pr_buf_detach(&stat, NULL);
	else
		pr_error_clear();
done:
	free(rest);
	pr_buf_release(&stat);
	return err;
}

/*
 * The series of pr as fetched; *out NULL and *why set when it cannot be a
 * series (merges, too many commits, none).
 */
static int build_series(struct pr_series **out, struct pr_buf *why,
			const struct poll_ctx *p, const char *key,
			const struct pr_forge_pr *pr,
			const struct pr_forge_fetched *ft)
{
	const struct pr_forge_opts *o = p->f->opts;
	struct pr_version *v = NULL;
	struct pr_series *s = NULL;
	const struct pr_patch *last;
	int err;

	*out = NULL;
	if (ft->merges)
		return pr_buf_addf(why,
				   "it holds %zu merge commit%s (%.12s); a "
				   "patch series is a line of commits: rebase "
				   "it onto %s instead of merging",
				   ft->merges, ft->merges > 1 ? "s" : "",
				   ft->first_merge, pr->base_ref);
	if (o->max_commits && ft->commits > (size_t)o->max_commits)
		return pr_buf_addf(why,
				   "it has %zu commits, more than the %lld "
				   "this project takes in one series "
				   "(max-commits)",
				   ft->commits, (long long)o->max_commits);
	if (!ft->commits)
		return pr_buf_addf(why, "it has no commit that is not on %s",
				   pr->base_ref);
	if ((err = pr_gitrepo_load(&v, ft->dir.ptr, ft->range)))
		return pr_error_wrap(err, "%s", key);
	if (!v->nr) {
		pr_version_free(v);
		return pr_buf_addf(why, "it has no commit that is not on %s",
				   pr->base_ref);
	}
	s = pr_series_new(p->f->inst->name, key);
	s->url = pr->web_url ? pr_strdup(pr->web_url) : NULL;
	last = v->patches[v->nr - 1];
	pr_ident_set(&s->submitter, last->author.name, last->author.email);
	v->target_branch = pr_strdup(pr->base_ref);
	memcpy(v->base_commit, ft->merge_base, sizeof(v->base_commit));
	if ((err = add_cover(v, s, pr, ft))) {
		pr_version_free(v);
		pr_series_free(s);
		return err;
	}
	pr_series_add_version(s, v);
	*out = s;
	return 0;
}

/* Replace st's comment state by what this poll read. */
static void commit_comments(struct pr_forge_pr_state *st, char **etag,
			    int64_t last, bool have_etag)
{
	if (have_etag) {
		free(st->etag);
		st->etag = *etag;
		*etag = NULL;
	}
	st->last_comment = last;
}

/*
 * Fetch and emit pr (cmds: CMD_SUBMIT and/or CMD_PREVIEW).  The PR's new
 * comment state is committed into the cursor with the last event, so a
 * failure before it leaves the commands to be read again.
 */
static int send_pr(struct poll_ctx *p, struct pr_forge_pr_state *st,
		   const char *repo, const char *key,
		   const struct pr_forge_pr *pr, unsigned cmds, char **etag,
		   int64_t last, bool have_etag)
{
	struct pr_forge_fetched ft;
	struct pr_series *s = NULL, *s2 = NULL;
	struct pr_buf why = PR_BUF_INIT;
	int err;

	if ((err = pr_forge_fetch(&ft, p->f, repo, pr)))
		return err;
	if ((err = build_series(&s, &why, p, key, pr, &ft)))
		goto done;
	if (!s) {
		if (!(err = refuse(p, repo, pr->number, why.ptr))) {
			free(st->head);
			st->head = pr_strdup(ft.head);
			commit_comments(st, etag, last, have_etag);
		}
		goto done;
	}
	if ((cmds & CMD_PREVIEW) && (cmds & CMD_SUBMIT)) {
		/* the preview's cursor still reads the comments again */
		if ((err = build_series(&s2, &why, p, key, pr, &ft)) ||
		    (err = emit_event(p, s2, true)))
			goto done;
	}
	free(st->head);
	st->head = pr_strdup(ft.head);
	commit_comments(st, etag, last, have_etag);
	err = emit_event(p, s, (cmds & CMD_SUBMIT) == 0);
	s = NULL;
done:
	pr_series_free(s);
	pr_forge_fetched_release(&ft);
	pr_buf_release(&why);
	return err;
}

static bool has_label(const struct pr_forge_pr *pr, const char *label)
{
	return label && strlist_has(&pr->labels, label);
}

/*
 * Emit one comment, line comment or review (mirror-reviews) as a comment
 * event on PR key (url: the PR's, NULL when not read this poll), with
 * the cursor as it stands.
 */
static int emit_comment(struct poll_ctx *p, const char *key, const char *url,
			const struct pr_forge_comment *cm, const char *kind)
{
	struct pr_event ev = { 0 };
	struct pr_buf text = PR_BUF_INIT, id = PR_BUF_INIT;
	int err;

	ev.kind = PR_EVENT_COMMENT;
	ev.series = pr_series_new(p->f->inst->name, key);
	ev.series->url = url ? pr_strdup(url) : NULL;
	pr_ident_set(&ev.author, cm->author, NULL);
	ev.body = pr_strdup(cm->body ? cm->body : "");
	if (cm->url)
		ev.ref.url = pr_strdup(cm->url);
	else if (url &&
		 !pr_buf_addf(&text, "%s#note_%lld", url, (long long)cm->id))
		ev.ref.url = pr_buf_detach(&text, NULL);
	ev.ref.path = cm->path ? pr_strdup(cm->path) : NULL;
	ev.ref.line = cm->line;
	ev.ref.quote = cm->hunk ? pr_strdup(cm->hunk) : NULL;
	if ((err = pr_forge_ref_id(&id, p->f, kind, cm->id)) ||
	    (err = pr_trailers_from_reply(&ev.trailers, ev.body,
					  strlen(ev.body))))
		goto done;
	ev.id = pr_buf_detach(&id, NULL);
	ev.mirror = true;
	pr_buf_reset(&text);
	if ((err = pr_forge_cursor_format(&text, &p->c)))
		goto done;
	ev.cursor = pr_buf_detach(&text, NULL);
	err = p->emit(&ev, p->payload);
	if (err)
		p->stop = true;
done:
	pr_event_release(&ev);
	pr_buf_release(&text);
	pr_buf_release(&id);
	return err;
}

/* Whether a comment is for the list: said by someone else, no command. */
static bool worth_mirroring(const struct poll_ctx *p,
			    const struct pr_forge_comment *cm)
{
	struct pr_strlist allow = { 0 };
	unsigned cmds;

	if (!cm->author || !cm->body || !*cm->body ||
	    (p->c.self && !strcasecmp(cm->author, p->c.self)))
		return false;
	cmds = parse_commands(cm->body, &allow);
	pr_strlist_release(&allow);
	return !cmds && !allow.nr;
}

/*
 * Emit the new items of list l past *last (each advancing it first, so the
 * event's cursor counts it).
 */
static int mirror_list(struct poll_ctx *p, const char *key, const char *url,
		       const struct pr_forge_comment_list *l, int64_t *last,
		       const char *kind)
{
	size_t i;
	int err = 0;

	for (i = 0; i < l->nr && !err; i++) {
		const struct pr_forge_comment *cm = &l->items[i];

		if (cm->id <= *last)
			continue;
		*last = cm->id;
		if (worth_mirroring(p, cm))
			err = emit_comment(p, key, url, cm,
					   cm->path ? "line-comment" : kind);
	}
	return err;
}

/*
 * mirror-reviews: a PR's new comments (listed already), comments on lines
 * and reviews as comment events, each once (the cursor's m, r and v).
 */
static int mirror_pr(struct poll_ctx *p, struct pr_forge_pr_state *st,
		     const char *repo, int64_t number, const char *key,
		     const char *url,
		     const struct pr_forge_comment_list *comments)
{
	struct pr_forge *f = p->f;
	struct pr_forge_comment_list lines = { 0 }, reviews = { 0 };
	char *etag = NULL;
	int err, rc;

	/* the first look takes what is there, emitted or not */
	if ((err = mirror_list(p, key, url, comments, &st->last_mirror,
			       "comment")))
		goto done;
	rc = f->ops->list_line_comments(f, &lines, repo, number, st->line_etag,
					&etag);
	if (rc < 0 ||
	    (rc == 0 && (err = mirror_list(p, key, url, &lines, &st->last_line,
					   "line-comment")))) {
		err = rc < 0 ? rc : err;
		goto done;
	}
	if (rc == 0) {
		free(st->line_etag);
		st->line_etag = etag;
		etag = NULL;
	}
	rc = f->ops->list_reviews(f, &reviews, repo, number, st->review_etag,
				  &etag);
	if (rc < 0 ||
	    (rc == 0 && (err = mirror_list(p, key, url, &reviews,
					   &st->last_review, "review")))) {
		err = rc < 0 ? rc : err;
		goto done;
	}
	if (rc == 0) {
		free(st->review_etag);
		st->review_etag = etag;
		etag = NULL;
	}
done:
	free(etag);
	pr_forge_comment_list_release(&lines);
	pr_forge_comment_list_release(&reviews);
	return err;
}

/*
 * One open PR: read its new comments (trigger = comment) or look at its
 * head and labels (auto, label), and send it when a trigger fired.
 * listed: the PR as the list gave it, NULL when the list was unchanged.
 */
static int poll_pr(struct poll_ctx *p, const char *repo, int64_t number,
		   const struct pr_forge_pr *listed)
{
	struct pr_forge *f = p->f;
	const struct pr_forge_opts *o = f->opts;
	const char *trigger = o->trigger ? o->trigger : "comment";
	struct pr_forge_comment_list comments = { 0 };
	struct pr_forge_pr fetched = { 0 };
	const struct pr_forge_pr *pr = listed;
	struct pr_forge_pr_state *st;
	struct pr_buf key = PR_BUF_INIT;
	struct pr_strlist allow = { 0 };
	char *etag = NULL;
	int64_t last;
	bool have_etag = false;
	unsigned want = 0;
	size_t i, j;
	int err, rc;

	if ((err = pr_buf_addf(&key, "%s#%lld", repo, (long long)number)))
		goto done;
	st = pr_forge_cursor_pr(&p->c, key.ptr, true);
	st->seen = true;
	last = st->last_comment;
	if (!strcmp(trigger, "comment") || o->mirror_reviews) {
		rc = f->ops->list_comments(f, &comments, repo, number, st->etag,
					   &etag);
		if (rc < 0) {
			err = rc;
			goto done;
		}
		have_etag = rc == 0;
	}
	if (strcmp(trigger, "comment") && listed && !listed->draft &&
	    (!st->head || !listed->head_sha ||
	     strcmp(st->head, listed->head_sha)) &&
	    (!strcmp(trigger, "auto") || has_label(listed, o->label))) {
		want = CMD_SUBMIT;
	}
	for (i = 0; i < comments.nr; i++) {
		const struct pr_forge_comment *cm = &comments.items[i];
		unsigned cmds;

		if (cm->id <= st->last_comment)
			continue;
		if (cm->id > last)
			last = cm->id;
		/* patchrelay's own comments are never commands */
		if (!cm->author ||
		    (p->c.self && !strcasecmp(cm->author, p->c.self)))
			continue;
		pr_strlist_release(&allow);
		cmds = parse_commands(cm->body, &allow);
		if (!cmds && !allow.nr)
			continue;
		if (!pr) {
			if ((err = f->ops->get_pr(f, &fetched, repo, number)))
				goto done;
			pr = &fetched;
		}
		for (j = 0; j < allow.nr; j++) {
			if (!strlist_has(&o->maintainers, cm->author)) {
				err = tell_once(p, st, repo, number, cm->author,
						"only a maintainer may /allow "
						"someone on this pull "
						"request.");
				if (err)
					goto done;
			} else if (!strlist_has(&st->allowed, allow.items[j])) {
				pr_strlist_add(&st->allowed, allow.items[j]);
			}
		}
		if (!cmds)
			continue;
		if (pr_forge_may_trigger(o, pr, &st->allowed, cm->author))
			want |= cmds;
		else if ((err = tell_once(
				  p, st, repo, number, cm->author,
				  "patchrelay takes /submit and /preview only "
				  "from the author of this pull request, from "
				  "a login on the project's allow list, or "
				  "from someone a maintainer let in with "
				  "`/allow @login`.")))
			goto done;
	}
	if (!want) {
		commit_comments(st, &etag, last, have_etag);
	} else {
		if (!pr) {
			if ((err = f->ops->get_pr(f, &fetched, repo, number)))
				goto done;
			pr = &fetched;
		}
		err = send_pr(p, st, repo, key.ptr, pr, want, &etag, last,
			      have_etag);
	}
	if (!err && o->mirror_reviews)
		err = mirror_pr(p, st, repo, number, key.ptr,
				pr ? pr->web_url : NULL, &comments);
done:
	if (err < 0 && !p->stop)
		err = pr_error_wrap(err, "%s", key.ptr);
	free(etag);
	pr_strlist_release(&allow);
	pr_forge_comment_list_release(&comments);
	pr_forge_pr_release(&fetched);
	pr_buf_release(&key);
	return err;
}

/* The PR number of key when key is "<repo>#N", else 0. */
static int64_t key_number(const char *key, const char *repo)
{
	size_t n = strlen(repo);
	char *end;
	long long v;

	if (strncmp(key, repo, n) || key[n] != '#')
		return 0;
	errno = 0;
	v = strtoll(key + n + 1, &end, 10);
	return *end || errno || v <= 0 ? 0 : (int64_t)v;
}

/*
 * Whether an error ends the poll: a rate limit, refused credentials or a
 * failed emit.  Anything else is kept (the first one is returned) and the
 * other PRs are still polled.
 */
static bool poll_must_stop(struct poll_ctx *p, int err)
{
	if (p->stop || p->f->retry_at || err == PR_EAUTH)
		return true;
	if (!p->first_err) {
		p->first_err = err;
		pr_buf_reset(&p->first_msg);
		pr_buf_adds(&p->first_msg, pr_error_message());
	} else {
		pr_log_error(p->f->inst->prefix, "%s", pr_error_message());
	}
	return false;
}

/* The open PRs of one repository. */
static int poll_repo(struct poll_ctx *p, const char *repo)
{
	struct pr_forge *f = p->f;
	struct pr_forge_pr_list prs = { 0 };
	char *etag = NULL, **slot;
	bool failed = false;
	size_t i;
	int err, rc;

	slot = list_etag_slot(&p->c, repo);
	rc = f->ops->list_prs(f, &prs, repo, *slot, &etag);
	if (rc < 0) {
		/* its PRs are kept as they are */
		for (i = 0; i < p->c.nr_prs; i++)
			if (key_number(p->c.prs[i].key, repo))
				p->c.prs[i].seen = true;
		err = rc;
		goto done;
	}
	err = 0;
	if (rc == PR_FORGE_NOT_MODIFIED) {
		/* nothing changed: the open PRs are the cursor's */
		for (i = 0; i < p->c.nr_prs; i++) {
			int64_t n = key_number(p->c.prs[i].key, repo);

			if (!n || (err = poll_pr(p, repo, n, NULL)) == 0)
				continue;
			if (err > 0 || poll_must_stop(p, err))
				goto done;
			failed = true;
		}
		err = 0;
		goto done;
	}
	for (i = 0; i < prs.nr; i++) {
		if ((err = poll_pr(p, repo, prs.items[i].number,
				   &prs.items[i])) == 0)
			continue;
		if (err > 0 || poll_must_stop(p, err))
			goto done;
		failed = true;
	}
	err = 0;
	/* a PR that failed is read again: the list must not answer 304 */
	if (!failed) {
		slot = list_etag_slot(&p->c, repo);
		free(*slot);
		*slot = etag;
		etag = NULL;
	}
done:
	free(etag);
	pr_forge_pr_list_release(&prs);
	return err;
}

/* Drop the PRs that are no longer open and the lists no longer polled. */
static void drop_unseen(struct pr_forge_cursor *c,
			const struct pr_strlist *repos)
{
	size_t i, n = 0;

	for (i = 0; i < c->nr_prs; i++) {
		if (!c->prs[i].seen) {
			pr_state_release(&c->prs[i]);
			continue;
		}
		c->prs[n++] = c->prs[i];
	}
	c->nr_prs = n;
	for (i = n = 0; i < c->nr_lists; i++) {
		if (!strlist_has(repos, c->lists[i].repo)) {
			free(c->lists[i].repo);
			free(c->lists[i].etag);
			continue;
		}
		c->lists[n++] = c->lists[i];
	}
	c->nr_lists = n;
}

int pr_forge_poll(struct pr_forge *f, const char *cursor, pr_event_fn emit,
		  void *payload)
{
	const struct pr_forge_opts *o = f->opts;
	struct poll_ctx p = { 0 };
	struct pr_buf text = PR_BUF_INIT;
	char when[32], *self = NULL, *self_etag = NULL;
	size_t i;
	int err, rc;

	p.f = f;
	p.emit = emit;
	p.payload = payload;
	f->retry_at = 0;
	if ((err = pr_forge_cursor_parse(&p.c, cursor)))
		goto done;
	if (p.c.retry_at > pr_forge_now(f)) {
		/* before the reset the forge is not asked anything */
		pr_forge_format_time(when, p.c.retry_at);
		err = pr_error(PR_EAGAIN, "rate limited until %s", when);
		goto done;
	}
	p.c.retry_at = 0;
	/* who patchrelay is: its own comments are never commands */
	if (!o->trigger || !strcmp(o->trigger, "comment") ||
	    o->mirror_reviews) {
		rc = f->ops->whoami(f, &self, p.c.self ? p.c.self_etag : NULL,
				    &self_etag);
		if (rc < 0) {
			err = rc;
			goto stopped;
		}
		if (rc == 0) {
			free(p.c.self);
			free(p.c.self_etag);
			p.c.self = self;
			p.c.self_etag = self_etag;
			self = self_etag = NULL;
		}
	}
	for (i = 0; i < p.c.nr_prs; i++)
		p.c.prs[i].seen = false;
	for (i = 0; i < o->repo.nr; i++) {
		err = poll_repo(&p, o->repo.items[i]);
		if (err > 0)
			goto done;
		if (err < 0 && poll_must_stop(&p, err))
			goto stopped;
	}
	drop_unseen(&p.c, &o->repo);
	err = 0;
stopped:
	if (p.stop)
		goto done;
	if (f->retry_at)
		p.c.retry_at = f->retry_at;
	/* what was learnt is kept, unless nothing changed */
	rc = pr_forge_cursor_format(&text, &p.c);
	if (!rc && (!cursor || strcmp(cursor, text.ptr)))
		rc = emit_event(&p, NULL, false);
	if (rc && !err)
		err = rc;
	if (!err && p.first_err)
		err = pr_error(p.first_err, "%s", p.first_msg.ptr);
done:
	if (err < 0)
		err = pr_error_wrap(err, "source '%s'", f->inst->name);
	free(self);
	free(self_etag);
	pr_buf_release(&text);
	pr_buf_release(&p.first_msg);
	pr_forge_cursor_release(&p.c);
	return err;
}
int pr_forge_split_key(struct pr_buf *repo, int64_t *number, const char *key)
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
	int err = 0;

	/* a landing is told to every feedback node: only ours are PRs */
	if (s->state == PR_SERIES_ACCEPTED && s->origin_connector &&
	    strcmp(s->origin_connector, f->inst->name))
		goto done;
	if ((err = pr_forge_split_key(&repo, &n, s->origin_key)))
		goto done;
	if (s->state == PR_SERIES_ACCEPTED && !summary) {
		err = pr_buf_adds(&body, "The commits of this pull request "
					 "landed.");
	} else if (!summary) {
		err = pr_buf_adds(&body, "patchrelay did not send this pull "
					 "request: a check failed.\n\n");
		if (!err)
			err = pr_report_render(&body, report,
					       PR_RENDER_MARKDOWN);
	} else {
		err = pr_buf_adds(&body, summary);
	}
	if (err || (err = f->ops->post_comment(f, repo.ptr, n, body.ptr, NULL)))
		goto done;
	/*
	 * The engine found the series' commits on a watched branch (by
	 * patch-id): close = on-merge closes the PR now, not after the send.
	 */
	if (s->state == PR_SERIES_ACCEPTED) {
		if (o->label_landed && *o->label_landed &&
		    (err = f->ops->add_label(f, repo.ptr, n, o->label_landed)))
			goto done;
		if (o->close && !strcmp(o->close, "on-merge"))
			err = f->ops->close_pr(f, repo.ptr, n);
		goto done;
	}
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
