#include "base/pr.h"

#include <ctype.h>

#include "mail/am.h"
#include "mail/assemble.h"
#include "mail/mail.h"
#include "mail/outgoing.h"
#include "mailsrc.h"
#include "model/subject.h"

void pr_mailsrc_batch_add(struct pr_mailsrc_batch *b, const char *pos,
			  const char *data, size_t len, int64_t arrival)
{
	struct pr_mailsrc_msg *m;

	PR_ALLOC_GROW(b->v, b->nr + 1, b->alloc);
	m = &b->v[b->nr++];
	m->pos = pr_strdup(pos);
	m->data = pr_memdup(data, len);
	m->len = len;
	m->arrival = arrival;
	m->seen = false;
	m->waited = false;
}

void pr_mailsrc_batch_release(struct pr_mailsrc_batch *b)
{
	size_t i;

	for (i = 0; i < b->nr; i++) {
		free(b->v[i].pos);
		free(b->v[i].data);
	}
	free(b->v);
	memset(b, 0, sizeof(*b));
}

void pr_mailsrc_opts_init(struct pr_mailsrc_opts *o,
			  const struct pr_instance *inst, int64_t wait_ms,
			  const struct pr_strlist *trusted, int64_t now)
{
	memset(o, 0, sizeof(*o));
	o->origin = inst->name;
	o->prefix = inst->prefix;
	o->wait_ms = wait_ms;
	o->trusted = trusted;
	o->now = now;
	o->epoch = "";
	o->store = inst->store;
}

/* ---- cursor ---- */

static bool plain_byte(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '@' || c == '+' ||
	       c == '-';
}

static int add_escaped(struct pr_buf *out, const char *v)
{
	const unsigned char *p = (const unsigned char *)v;
	int err = 0;

	for (; !err && *p; p++)
		err = plain_byte(*p) ? pr_buf_addch(out, *p)
				     : pr_buf_addf(out, "%%%02X", *p);
	return err;
}

static int add_value(struct pr_buf *out, const char *key, const char *v)
{
	int err = pr_buf_addf(out, " %s=", key);

	if (!err && !v)
		return pr_buf_addch(out, '-');
	/* "-" alone means NULL, so a value "-" is written %2D */
	if (!err && !strcmp(v, "-"))
		return pr_buf_adds(out, "%2D");
	return err ? err : add_escaped(out, v);
}

static int add_list(struct pr_buf *out, const char *key,
		    const struct pr_strlist *l)
{
	int err = pr_buf_addf(out, " %s=", key);
	size_t i;

	for (i = 0; !err && i < l->nr; i++) {
		if (i)
			err = pr_buf_addch(out, ',');
		if (!err)
			err = add_escaped(out, l->items[i]);
	}
	return err;
}

int pr_mailsrc_cursor_format(struct pr_buf *out,
			     const struct pr_mailsrc_cursor *c)
{
	int err = pr_buf_adds(out, "mailsrc1");

	if (!err)
		err = add_value(out, "epoch", c->epoch ? c->epoch : "");
	if (!err)
		err = add_value(out, "low", c->low);
	if (!err)
		err = add_value(out, "high", c->high);
	if (!err)
		err = pr_buf_addf(out, " time=%lld", (long long)c->time);
	if (!err && c->has_held)
		err = add_list(out, "held", &c->held);
	if (!err && c->has_seen)
		err = add_list(out, "seen", &c->seen);
	return err;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode s[0..n) (%XX escapes, plain bytes) into out; false if malformed. */
static bool decode(struct pr_buf *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi = i + 2 < n ? hexval(s[i + 1]) : -1,
			    lo = hi < 0 ? -1 : hexval(s[i + 2]);

			if (lo < 0)
				return false;
			pr_buf_addch(out, hi * 16 + lo);
			i += 2;
		} else if (plain_byte((unsigned char)s[i])) {
			pr_buf_addch(out, s[i]);
		} else {
			return false;
		}
	}
	return !memchr(out->ptr, '\0', out->len);
}

/* Read " key=value" at *p into *out (NULL for "-"); false when malformed. */
static bool read_value(char **out, const char **p, const char *key)
{
	struct pr_buf v = PR_BUF_INIT;
	size_t n = strlen(key);
	const char *s = *p;

	if (*s != ' ' || strncmp(s + 1, key, n) || s[1 + n] != '=')
		return false;
	s += n + 2;
	if (*s == '-' && (s[1] == ' ' || !s[1])) {
		*out = NULL;
		*p = s + 1;
		return true;
	}
	n = strcspn(s, " ");
	if (!decode(&v, s, n)) {
		pr_buf_release(&v);
		return false;
	}
	*out = pr_buf_detach(&v, NULL);
	*p = s + n;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Read " key=A,B" at *p into l, sorted; false when malformed. */
static bool read_list(struct pr_strlist *l, bool *has, const char **p,
		      const char *key)
{
	struct pr_buf v = PR_BUF_INIT;
	size_t n = strlen(key);
	const char *s = *p;
	bool ok = true;

	if (*s != ' ' || strncmp(s + 1, key, n) || s[1 + n] != '=')
		return false;
	*has = true;
	for (s += n + 2; ok && *s && *s != ' '; s += n + (s[n] == ',')) {
		n = strcspn(s, ", ");
		pr_buf_reset(&v);
		ok = n && decode(&v, s, n) && v.len;
		if (ok)
			pr_strlist_add(l, v.ptr);
		/* a trailing ',' names nothing */
		ok = ok && !(s[n] == ',' && (!s[n + 1] || s[n + 1] == ' '));
	}
	pr_buf_release(&v);
	if (l->nr)
		qsort(l->items, l->nr, sizeof(*l->items), cmp_str);
	*p = s;
	return ok;
}

bool pr_mailsrc_list_has(const struct pr_strlist *l, const char *s)
{
	return l->nr &&
	       bsearch(&s, l->items, l->nr, sizeof(*l->items), cmp_str) != NULL;
}

int pr_mailsrc_cursor_parse(struct pr_mailsrc_cursor *out, const char *text)
{
	const char *p = text;
	char *end;
	long long t;

	memset(out, 0, sizeof(*out));
	if (strncmp(p, "mailsrc1", 8))
		goto bad;
	p += 8;
	if (!read_value(&out->epoch, &p, "epoch") ||
	    !read_value(&out->low, &p, "low") ||
	    !read_value(&out->high, &p, "high") || strncmp(p, " time=", 6))
		goto bad;
	p += 6;
	if (!isdigit((unsigned char)*p))
		goto bad;
	t = strtoll(p, &end, 10);
	p = end;
	if (*p == ' ' && !strncmp(p, " held=", 6) &&
	    !read_list(&out->held, &out->has_held, &p, "held"))
		goto bad;
	if (*p == ' ' && !read_list(&out->seen, &out->has_seen, &p, "seen"))
		goto bad;
	if (*p || t < 0 || t == INT64_MAX)
		goto bad;
	out->time = t;
	if (!out->epoch)
		out->epoch = pr_strdup("");
	return 0;
bad:
	pr_mailsrc_cursor_release(out);
	return pr_error(PR_EPARSE, "cursor '%.200s': not a mail source cursor",
			text);
}

void pr_mailsrc_cursor_release(struct pr_mailsrc_cursor *c)
{
	free(c->epoch);
	free(c->low);
	free(c->high);
	pr_strlist_release(&c->held);
	pr_strlist_release(&c->seen);
	memset(c, 0, sizeof(*c));
}

/* ---- grouping and emitting ---- */

/* One parsed message of the batch, in position order. */
struct mail {
	const struct pr_mailsrc_msg *msg;
	struct pr_patch *p;
	int64_t time; /* Date, else arrival, else 0 */
	bool seen; /* seen by the poll that made the cursor */
	bool waited; /* held by it */
	bool patch; /* given to the assembly */
};

/* Where a mail of the assembly is: series, version, index (nr: cover). */
struct where {
	const char *id;
	size_t si, vi, idx;
};

struct emitter {
	const struct pr_mailsrc_opts *o;
	struct mail *mails;
	size_t nr;
	struct mail **by_p; /* the mails sorted by their pr_patch pointer */
	struct where *at; /* the assembly's Message-IDs, sorted, each once */
	size_t nr_at;
	struct pr_assembly a;
	struct pr_patch **patches; /* the mails given to the assembly */
	size_t nr_patches;
	const char **keys; /* per series of the assembly, borrowed */
	pr_event_fn emit;
	void *payload;
	struct pr_event pending; /* held back so the last one gets the cursor */
	bool has_pending;
	char *low; /* the new cursor's low, borrowed */
};

static int cmp_msg(const void *a, const void *b)
{
	const struct pr_mailsrc_msg *const *x = a, *const *y = b;

	return strcmp((*x)->pos, (*y)->pos);
}

static int cmp_by_p(const void *a, const void *b)
{
	const struct pr_patch *x = (*(struct mail *const *)a)->p;
	const struct pr_patch *y = (*(struct mail *const *)b)->p;

	return (x > y) - (x < y);
}

static struct mail *mail_of(const struct emitter *e, const struct pr_patch *p)
{
	struct mail key, *kp = &key, **hit;

	memset(&key, 0, sizeof(key));
	key.p = (struct pr_patch *)p;
	if (!e->nr)
		return NULL;
	hit = bsearch(&kp, e->by_p, e->nr, sizeof(*e->by_p), cmp_by_p);
	return hit ? *hit : NULL;
}

static int cmp_where(const void *a, const void *b)
{
	const struct where *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	/* the same mail in two versions (a filled one): its own first */
	if (!c)
		c = (x->si > y->si) - (x->si < y->si);
	if (!c)
		c = (x->vi > y->vi) - (x->vi < y->vi);
	return c;
}

static void where_add(struct emitter *e, const struct pr_patch *p, size_t si,
		      size_t vi, size_t idx)
{
	if (!p->message_id || !*p->message_id)
		return;
	e->at[e->nr_at].id = p->message_id;
	e->at[e->nr_at].si = si;
	e->at[e->nr_at].vi = vi;
	e->at[e->nr_at].idx = idx;
	e->nr_at++;
}

/* Index the mails of the assembly by Message-ID. */
static void index_assembly(struct emitter *e)
{
	size_t n = 0, i, j, k;

	for (i = 0; i < e->a.nr; i++)
		for (j = 0; j < e->a.series[i].nr; j++)
			n += e->a.series[i].versions[j].nr + 1;
	e->at = pr_calloc(n + 1, sizeof(*e->at));
	for (i = 0; i < e->a.nr; i++) {
		for (j = 0; j < e->a.series[i].nr; j++) {
			const struct pr_asm_version *v =
				&e->a.series[i].versions[j];

			if (v->cover)
				where_add(e, v->cover, i, j, v->nr);
			for (k = 0; k < v->nr; k++)
				where_add(e, v->patches[k], i, j, k);
		}
	}
	if (e->nr_at)
		qsort(e->at, e->nr_at, sizeof(*e->at), cmp_where);
	for (i = 0, k = 0; i < e->nr_at; i++)
		if (!k || strcmp(e->at[k - 1].id, e->at[i].id))
			e->at[k++] = e->at[i];
	e->nr_at = k;
}

static const struct where *where_is(const struct emitter *e, const char *id)
{
	size_t lo = 0, hi = e->nr_at;

	while (id && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(id, e->at[mid].id);

		if (!c)
			return &e->at[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? pr_strdup(s) : NULL;
}

static struct pr_patch *patch_copy(const struct pr_patch *p)
{
	struct pr_patch *c = pr_patch_new();
	size_t i;

	pr_ident_set(&c->author, p->author.name, p->author.email);
	c->date = dup_or_null(p->date);
	c->time = p->time;
	c->tz_minutes = p->tz_minutes;
	c->subject = dup_or_null(p->subject);
	c->subject_raw = dup_or_null(p->subject_raw);
	c->prefix = p->prefix;
	c->prefix.list = dup_or_null(p->prefix.list);
	c->body = dup_or_null(p->body);
	for (i = 0; i < p->trailers.nr; i++)
		pr_trailer_list_add(&c->trailers, p->trailers.items[i].key,
				    p->trailers.items[i].value);
	c->diff = dup_or_null(p->diff);
	c->message_id = dup_or_null(p->message_id);
	c->in_reply_to = dup_or_null(p->in_reply_to);
	c->sender = dup_or_null(p->sender);
	if (p->nr_references) {
		c->references =
			pr_calloc(p->nr_references, sizeof(*c->references));
		for (i = 0; i < p->nr_references; i++)
			c->references[i] = pr_strdup(p->references[i]);
		c->nr_references = c->alloc_references = p->nr_references;
	}
	return c;
}

static const struct pr_patch *first_mail(const struct pr_asm_version *v)
{
	return v->cover ? v->cover : v->nr ? v->patches[0] : NULL;
}

/* Hand the held event on and hold ev instead (it is moved, not copied). */
static int push(struct emitter *e, struct pr_event *ev)
{
	int err = 0;

	if (e->has_pending) {
		err = e->emit(&e->pending, e->payload);
		pr_event_release(&e->pending);
		e->has_pending = false;
	}
	if (err) {
		pr_event_release(ev);
		return err;
	}
	e->pending = *ev;
	e->has_pending = true;
	memset(ev, 0, sizeof(*ev));
	return 0;
}

/* The newest time of the version's mails (0 when none is known). */
static int64_t newest_time(const struct emitter *e,
			   const struct pr_asm_version *v)
{
	int64_t t = 0;
	size_t i;
	const struct mail *m;

	if (v->cover && (m = mail_of(e, v->cover)) && m->time > t)
		t = m->time;
	for (i = 0; i < v->nr; i++)
		if ((m = mail_of(e, v->patches[i])) && m->time > t)
			t = m->time;
	return t;
}

static bool due_at(const struct emitter *e, const struct pr_asm_version *v,
		   int64_t when)
{
	int64_t t = newest_time(e, v);

	if (v->complete || e->o->wait_ms <= 0 || !t)
		return true;
	return t + e->o->wait_ms / 1000 <= when;
}

/* Is each mail of v seen (waited false), or held by the last poll (true)? */
static bool all_of(const struct emitter *e, const struct pr_asm_version *v,
		   bool waited)
{
	const struct mail *m;
	size_t i;

	if (v->cover && (m = mail_of(e, v->cover)) &&
	    !(waited ? m->waited : m->seen))
		return false;
	for (i = 0; i < v->nr; i++)
		if ((m = mail_of(e, v->patches[i])) &&
		    !(waited ? m->waited : m->seen))
			return false;
	return true;
}

/*
 * Did the poll that made the cursor see all of v and deal with it?  When
 * the cursor says which mails it held, unless it held them all (v waits
 * still): a part of a version it emitted, re-read alone (the mail at high,
 * the mails after a waiting one), is not a version to emit again.  Else
 * (an older cursor) when v was due then.
 */
static bool done_before(const struct emitter *e, const struct pr_asm_version *v)
{
	if (!e->o->has_prev || !all_of(e, v, false))
		return false;
	if (e->o->knows_waited)
		return !all_of(e, v, true);
	return due_at(e, v, e->o->prev_time);
}

/* Lower e->low to the oldest position of v's mails; note them in held. */
static void hold_mail(struct emitter *e, const struct pr_patch *p)
{
	const struct mail *m = mail_of(e, p);

	if (!m)
		return;
	if (!e->low || strcmp(m->msg->pos, e->low) < 0)
		e->low = m->msg->pos;
	if (e->o->held)
		pr_strlist_add(e->o->held, m->msg->pos);
}

static void hold(struct emitter *e, const struct pr_asm_version *v)
{
	size_t i;

	if (v->cover)
		hold_mail(e, v->cover);
	for (i = 0; i < v->nr; i++)
		hold_mail(e, v->patches[i]);
}

/* The archive's link to message `mid`; NULL without an archive. */
static char *archive_link(const struct emitter *e, const char *mid)
{
	struct pr_buf b = PR_BUF_INIT;

	if (!e->o->archive || !mid || !*mid ||
	    pr_outgoing_archive_link(&b, e->o->archive, mid)) {
		pr_buf_release(&b);
		return NULL;
	}
	return pr_buf_detach(&b, NULL);
}

static struct pr_series *new_series(const struct emitter *e, const char *key,
				    const struct pr_patch *who)
{
	struct pr_series *s = pr_series_new(e->o->origin, key);

	if (who) {
		pr_ident_set(&s->submitter, who->author.name,
			     who->author.email);
		s->archive_url = archive_link(e, who->message_id);
	}
	return s;
}

/* The root of the thread p is in: its first reference, else its own id. */
static const char *thread_root(const struct pr_patch *p)
{
	if (!p)
		return "";
	if (p->nr_references && p->references[0][0])
		return p->references[0];
	if (p->in_reply_to && p->in_reply_to[0])
		return p->in_reply_to;
	return p->message_id ? p->message_id : "";
}

/*
 * A series' key, the same in every poll that reads any of it: b4's
 * change-id when its first version gives one; else the root of the thread
 * its first mail is in, so that a v2 threaded into v1 and the replies to
 * either get v1's key also when a later poll no longer reads v1, unless
 * that root is a mail of another series of this poll (a lone patch
 * answering a series is not a version of it: its own Message-ID then);
 * for mails without Message-IDs, the subject of its cover letter (not
 * format-patch's placeholder), else of its first patch.
 */
static const char *series_key(const struct emitter *e, size_t si)
{
	const struct pr_asm_series *s = &e->a.series[si];
	const struct pr_asm_version *v = s->nr ? &s->versions[0] : NULL;
	const struct pr_patch *f = v ? first_mail(v) : NULL;
	const struct where *w;
	const char *root;

	if (!f)
		return "";
	if (v->change_id)
		return v->change_id;
	root = thread_root(f);
	w = where_is(e, root);
	if (w && w->si != si)
		root = f->message_id ? f->message_id : "";
	if (*root)
		return root;
	if (v->cover && v->cover->subject &&
	    strcmp(v->cover->subject, "*** SUBJECT HERE ***"))
		return v->cover->subject;
	return v->nr && v->patches[0]->subject ? v->patches[0]->subject : "";
}

/* "base-commit: <40 hex>" on a line of text, as format-patch --base writes. */
static void find_base(char out[41], const char *text)
{
	const char *p = text;

	while (p && (p = strstr(p, "base-commit: "))) {
		if ((p == text || p[-1] == '\n') &&
		    strspn(p + 13, "0123456789abcdef") == 40) {
			memcpy(out, p + 13, 40);
			out[40] = 0;
			return;
		}
		p += 13;
	}
}

/*
 * The blurb of a format-patch cover letter: its text before the shortlog
 * ("Name (N):" after a blank line), which the outgoing cover renders anew.
 */
static char *cover_blurb(const struct pr_patch *c)
{
	const char *b = c->body ? c->body : "", *p = b;
	size_t n = c->author.name ? strlen(c->author.name) : 0;

	while (n && (p = strstr(p, c->author.name))) {
		if (p - b >= 2 && p[-1] == '\n' && p[-2] == '\n' &&
		    p[n] == ' ' && p[n + 1] == '(' &&
		    strspn(p + n + 2, "0123456789") &&
		    !strncmp(p + n + 2 + strspn(p + n + 2, "0123456789"),
			     "):\n", 3))
			return pr_strndup(b, (size_t)(p - 1 - b));
		p += n;
	}
	return pr_strdup(b);
}

/*
 * The version as an event.  A mailed patch's diff is kept as a git source
 * holds it (pr_am_bare_diff), a format-patch cover letter gives its blurb, and
 * the base commit comes from the cover letter, else from a patch.
 */
static int emit_version(struct emitter *e, size_t si, size_t vi)
{
	const struct pr_asm_version *av = &e->a.series[si].versions[vi];
	struct pr_event ev;
	struct pr_version *v = pr_version_new(av->number);
	char base[41] = "";
	size_t i;

	memset(&ev, 0, sizeof(ev));
	/* a v2 whose v1 an earlier poll emitted is a version too */
	ev.kind = vi == 0 && av->number <= 1 ? PR_EVENT_SERIES
					     : PR_EVENT_VERSION;
	ev.series = new_series(e, e->keys[si], first_mail(av));
	if (av->cover) {
		v->cover = pr_calloc(1, sizeof(*v->cover));
		v->cover->subject = dup_or_null(av->cover->subject);
		v->cover->body = cover_blurb(av->cover);
		v->cover->message_id = dup_or_null(av->cover->message_id);
		find_base(v->base_commit, av->cover->body);
	}
	for (i = 0; i < av->nr; i++) {
		struct pr_patch *c = patch_copy(av->patches[i]);

		if (c->diff)
			find_base(base, c->diff);
		pr_am_bare_diff(c);
		pr_version_add_patch(v, c);
	}
	if (!v->base_commit[0])
		memcpy(v->base_commit, base, sizeof(base));
	pr_series_add_version(ev.series, v);
	return push(e, &ev);
}

/* Which version of the batch a reply answers; -1 when none. */
static long reply_target(const struct emitter *e, const struct pr_patch *r,
			 size_t *si, size_t *vi)
{
	size_t k = r->nr_references + 1;

	while (k--) {
		const struct where *w = where_is(e, k == r->nr_references
							    ? r->in_reply_to
							    : r->references[k]);

		if (w) {
			*si = w->si;
			*vi = w->vi;
			return (long)w->idx;
		}
	}
	return -1;
}

static struct pr_patch *stub(const struct pr_patch *p)
{
	struct pr_patch *c = pr_patch_new();

	c->message_id = dup_or_null(p->message_id);
	c->subject = dup_or_null(p->subject);
	c->subject_raw = dup_or_null(p->subject_raw);
	c->prefix = p->prefix;
	c->prefix.list = dup_or_null(p->prefix.list);
	return c;
}

static int emit_comment(struct emitter *e, struct pr_patch *r)
{
	const struct pr_asm_version *av = NULL;
	struct pr_asm_version lone;
	struct pr_patch *answered = NULL;
	struct pr_trailer_list *got = NULL;
	struct pr_am_opts ao = { NULL, 0 };
	struct pr_version *v = NULL;
	struct pr_event ev;
	const char *key;
	size_t si = 0, vi = 0, i, j;
	long target;
	int err = 0;

	memset(&ev, 0, sizeof(ev));
	memset(&lone, 0, sizeof(lone));
	if (e->o->trusted) {
		ao.trusted = (const char *const *)e->o->trusted->items;
		ao.nr_trusted = e->o->trusted->nr;
	}
	target = reply_target(e, r, &si, &vi);
	if (target >= 0) {
		av = &e->a.series[si].versions[vi];
		key = e->keys[si];
	} else {
		const char *irt = r->in_reply_to;

		if (!irt && r->nr_references)
			irt = r->references[r->nr_references - 1];
		if (!irt)
			goto done; /* answers nothing: not a comment */
		/* its series was emitted by an earlier poll */
		answered = pr_patch_new();
		answered->message_id = pr_strdup(irt);
		lone.number = r->prefix.version;
		lone.patches = &answered;
		lone.nr = 1;
		av = &lone;
		key = thread_root(r);
	}
	got = pr_calloc(av->nr + 1, sizeof(*got));
	if ((err = pr_am_collect(got, av, &r, 1, &ao)))
		goto done;
	ev.kind = PR_EVENT_COMMENT;
	ev.series = new_series(e, key, first_mail(av));
	pr_ident_set(&ev.author, r->author.name, r->author.email);
	ev.body = dup_or_null(r->body);
	ev.id = dup_or_null(r->message_id);
	ev.ref.url = archive_link(e, r->message_id);
	v = pr_version_new(av->number);
	if (target >= 0 && (size_t)target == av->nr && av->cover) {
		v->cover = pr_calloc(1, sizeof(*v->cover));
		v->cover->subject = dup_or_null(av->cover->subject);
		v->cover->message_id = dup_or_null(av->cover->message_id);
	}
	for (i = 0; i < av->nr; i++) {
		struct pr_patch *s;

		if (target >= 0 && (size_t)target != av->nr &&
		    (size_t)target != i)
			continue;
		s = stub(av->patches[i]);
		for (j = 0; j < got[i].nr; j++) {
			pr_trailer_list_add(&s->trailers, got[i].items[j].key,
					    got[i].items[j].value);
			if (!pr_trailer_list_has(&ev.trailers,
						 got[i].items[j].key,
						 got[i].items[j].value))
				pr_trailer_list_add(&ev.trailers,
						    got[i].items[j].key,
						    got[i].items[j].value);
		}
		pr_version_add_patch(v, s);
	}
	pr_series_add_version(ev.series, v);
	err = push(e, &ev);
done:
	if (got)
		for (i = 0; i < av->nr + 1; i++)
			pr_trailer_list_release(&got[i]);
	free(got);
	pr_patch_free(answered);
	pr_event_release(&ev);
	return err;
}

static int parse_all(struct emitter *e, const struct pr_mailsrc_batch *b)
{
	const struct pr_mailsrc_msg **order = NULL;
	size_t i;
	int err = 0;

	order = pr_calloc(b->nr + 1, sizeof(*order));
	for (i = 0; i < b->nr; i++)
		order[i] = &b->v[i];
	if (b->nr)
		qsort(order, b->nr, sizeof(*order), cmp_msg);
	e->mails = pr_calloc(b->nr + 1, sizeof(*e->mails));
	e->patches = pr_calloc(b->nr + 1, sizeof(*e->patches));
	for (i = 0; i < b->nr; i++) {
		struct mail *m = &e->mails[e->nr];
		struct pr_patch *p = NULL;

		err = pr_am_patch_parse(&p, order[i]->data, order[i]->len);
		if (err == PR_ETOOBIG || err == PR_EPARSE || err == PR_EINVAL) {
			/* one bad mail does not stop the list */
			pr_log_warn(e->o->prefix, "message at '%s' skipped: %s",
				    order[i]->pos, pr_error_message());
			if (e->o->skipped)
				pr_strlist_add(e->o->skipped, order[i]->pos);
			err = 0;
			continue;
		}
		if (err)
			goto done;
		m->msg = order[i];
		m->p = p;
		/* the Date, else when the source got it */
		m->time = p->time ? p->time : order[i]->arrival;
		p->time = m->time;
		m->seen = order[i]->seen;
		m->waited = order[i]->waited;
		m->patch = !pr_am_is_reply(p) &&
			   ((p->diff && p->diff[0]) ||
			    (p->prefix.index == 0 && p->prefix.total > 0));
		if (m->patch)
			e->patches[e->nr_patches++] = p;
		e->nr++;
	}
	e->by_p = pr_calloc(e->nr + 1, sizeof(*e->by_p));
	for (i = 0; i < e->nr; i++)
		e->by_p[i] = &e->mails[i];
	if (e->nr)
		qsort(e->by_p, e->nr, sizeof(*e->by_p), cmp_by_p);
done:
	free(order);
	return err;
}

int pr_mailsrc_emit_seen(const struct pr_mailsrc_batch *b,
			 const struct pr_mailsrc_opts *o, pr_event_fn emit,
			 void *payload)
{
	struct emitter e;
	struct pr_mailsrc_rekey r = {
		o->store, o->origin, o->prefix, { NULL, 0, 0 }
	};
	struct pr_buf cur = PR_BUF_INIT;
	size_t i, j;
	int err;

	memset(&e, 0, sizeof(e));
	e.o = o;
	e.emit = emit;
	e.payload = payload;
	if ((err = parse_all(&e, b)) ||
	    (err = pr_assemble_mails(&e.a, e.patches, e.nr_patches)))
		goto done;
	index_assembly(&e);
	e.keys = pr_calloc(e.a.nr + 1, sizeof(*e.keys));
	for (i = 0; i < e.a.nr; i++) {
		e.keys[i] = series_key(&e, i);
		err = o->rekey ? o->rekey(&e.keys[i], &e.a.series[i],
					  o->rekey_payload)
			       : pr_mailsrc_rekey(&e.keys[i], &e.a.series[i],
						  &r);
		if (err)
			goto done;
	}
	for (i = 0; i < e.a.nr; i++) {
		for (j = 0; j < e.a.series[i].nr; j++) {
			const struct pr_asm_version *v =
				&e.a.series[i].versions[j];

			/* a later posting completed what it lacked */
			if (v->superseded || done_before(&e, v))
				continue;
			if (!due_at(&e, v, o->now) ||
			    (o->more && !o->carried && !v->complete)) {
				pr_log_debug(o->prefix,
					     "series '%s' v%d waits for its "
					     "missing patches",
					     e.keys[i], v->number);
				hold(&e, v);
				continue;
			}
			if (!v->complete)
				pr_log_info(
					o->prefix,
					"series '%s' v%d emitted incomplete "
					"(%zu of %d patches)",
					e.keys[i], v->number, v->nr, v->total);
			if ((err = emit_version(&e, i, j)))
				goto done;
		}
	}
	for (i = 0; i < e.nr; i++) {
		if (e.mails[i].patch || e.mails[i].seen ||
		    !pr_am_is_reply(e.mails[i].p))
			continue;
		if ((err = emit_comment(&e, e.mails[i].p)))
			goto done;
	}
	if (e.has_pending) {
		if ((err = o->cursor(&cur, e.low, o->cursor_payload)))
			goto done;
		e.pending.cursor = pr_buf_detach(&cur, NULL);
		err = emit(&e.pending, payload);
	}
done:
	if (e.has_pending)
		pr_event_release(&e.pending);
	for (i = 0; i < e.nr; i++)
		pr_patch_free(e.mails[i].p);
	free(e.mails);
	free(e.by_p);
	free(e.at);
	free(e.patches);
	free((void *)e.keys);
	pr_strlist_release(&r.keys);
	pr_assemble_release(&e.a);
	pr_buf_release(&cur);
	return err;
}

/* The batch and cursor a position-ordered source's poll ends with. */
struct pos_poll {
	const struct pr_mailsrc_batch *b;
	const struct pr_mailsrc_cursor *prev;
	const struct pr_mailsrc_opts *o;
	const struct pr_strlist *held;
};

static int pos_cursor(struct pr_buf *out, const char *low, void *payload)
{
	const struct pos_poll *pp = payload;
	const struct pr_strlist *before = pp->prev ? &pp->prev->held : NULL;
	struct pr_mailsrc_cursor next;
	const char *end = NULL;
	size_t i;
	int err;

	memset(&next, 0, sizeof(next));
	next.epoch = (char *)(pp->o->epoch ? pp->o->epoch : "");
	/* skipped (unparsable) messages count as seen too */
	for (i = 0; i < pp->b->nr; i++)
		if (!end || strcmp(pp->b->v[i].pos, end) > 0)
			end = pp->b->v[i].pos;
	next.high = pp->prev ? pp->prev->high : NULL;
	if (end && (!next.high || strcmp(end, next.high) > 0))
		next.high = (char *)end;
	/* borrowed, not released */
	next.has_held = true;
	next.held = *pp->held;
	/*
	 * A part that more parts follow keeps what the cursor it was read
	 * from held after the part's newest mail: not read yet.
	 */
	if (pp->o->more && before && before->nr) {
		next.held.items = pr_calloc(pp->held->nr + before->nr + 1,
					    sizeof(char *));
		if (pp->held->nr)
			memcpy(next.held.items, pp->held->items,
			       pp->held->nr * sizeof(char *));
		for (i = 0; i < before->nr; i++) {
			if (end && strcmp(before->items[i], end) <= 0)
				continue;
			next.held.items[next.held.nr++] = before->items[i];
			/* sorted: the first is the oldest */
			if (!low)
				low = before->items[i];
		}
	}
	next.low = (char *)(low ? low : next.high);
	next.time = pp->o->now;
	err = pr_mailsrc_cursor_format(out, &next);
	if (next.held.items != pp->held->items)
		free(next.held.items);
	return err;
}

int pr_mailsrc_emit(struct pr_mailsrc_batch *b,
		    const struct pr_mailsrc_cursor *prev,
		    const struct pr_mailsrc_opts *o, pr_event_fn emit,
		    void *payload)
{
	struct pr_mailsrc_opts po = *o;
	struct pr_strlist held = { NULL, 0, 0 };
	struct pos_poll pp = { b, prev, o, o->held ? o->held : &held };
	size_t i;
	int err;

	for (i = 0; i < b->nr; i++) {
		b->v[i].seen = prev && prev->high &&
			       strcmp(b->v[i].pos, prev->high) <= 0;
		b->v[i].waited = prev && prev->has_held &&
				 pr_mailsrc_list_has(&prev->held, b->v[i].pos);
	}
	po.has_prev = prev != NULL;
	po.knows_waited = prev && prev->has_held;
	po.held = (struct pr_strlist *)pp.held;
	po.prev_time = prev ? prev->time : 0;
	po.cursor = pos_cursor;
	po.cursor_payload = &pp;
	err = pr_mailsrc_emit_seen(b, &po, emit, payload);
	pr_strlist_release(&held);
	return err;
}

/* ---- a poll in parts ---- */

int pr_mailsrc_parts_init(struct pr_mailsrc_parts *p,
			  const struct pr_mailsrc_cursor *prev)
{
	struct pr_buf text = PR_BUF_INIT;
	const char *env = getenv("PATCHRELAY_MAIL_PART");
	int err = 0;

	memset(p, 0, sizeof(*p));
	p->max = PR_MAILSRC_PART;
	/* a small part for the tests of a series split across parts */
	if (env && atoi(env) > 0)
		p->max = (size_t)atoi(env);
	if (prev) {
		/* a copy through its text: the cursor's lists are its own */
		if (!(err = pr_mailsrc_cursor_format(&text, prev)))
			err = pr_mailsrc_cursor_parse(&p->cur, text.ptr);
		p->has_cur = !err;
	}
	pr_buf_release(&text);
	return err;
}

void pr_mailsrc_parts_add(struct pr_mailsrc_parts *p, const char *pos,
			  const char *data, size_t len, int64_t arrival)
{
	pr_mailsrc_batch_add(&p->b, pos, data, len, arrival);
	p->bytes += len;
}

bool pr_mailsrc_parts_full(const struct pr_mailsrc_parts *p)
{
	return p->b.nr >= p->carried + p->max ||
	       p->bytes >= PR_MAILSRC_PART_BYTES;
}

/* Keep the messages at or before end (NULL: those that wait). */
static void keep(struct pr_mailsrc_parts *p, const char *end)
{
	size_t i, k = 0;

	p->bytes = 0;
	for (i = 0; i < p->b.nr; i++) {
		struct pr_mailsrc_msg *m = &p->b.v[i];

		if (end ? strcmp(m->pos, end) > 0
			: !pr_mailsrc_list_has(&p->cur.held, m->pos)) {
			free(m->pos);
			free(m->data);
			continue;
		}
		p->bytes += m->len;
		p->b.v[k++] = *m;
	}
	p->b.nr = k;
}

void pr_mailsrc_parts_cut(struct pr_mailsrc_parts *p, const char *end)
{
	keep(p, end);
}

int pr_mailsrc_parts_emit(struct pr_mailsrc_parts *p, bool last,
			  const struct pr_mailsrc_opts *o, pr_event_fn emit,
			  void *payload)
{
	struct pr_mailsrc_opts po = *o;
	struct pr_strlist held = { NULL, 0, 0 };
	const struct pr_mailsrc_cursor *prev = p->has_cur ? &p->cur : NULL;
	struct pos_poll pp = { &p->b, prev, &po, &held };
	struct pr_mailsrc_cursor next;
	struct pr_buf text = PR_BUF_INIT;
	const char *low = NULL;
	size_t i;
	int err;

	/* what is carried is bounded: past PR_MAILSRC_PART mails (whatever
	 * the part's size), only what is not due yet waits */
	po.more = !last;
	po.carried = p->carried >= PR_MAILSRC_PART;
	if (o->cursor) {
		/* a source with a cursor of its own: it set the flags */
		if ((err = pr_mailsrc_emit_seen(&p->b, &po, emit, payload)) ||
		    last)
			goto done;
		pr_mailsrc_cursor_release(&p->cur);
		p->cur.held = *o->held;
		memset(o->held, 0, sizeof(*o->held));
		if (p->cur.held.nr)
			qsort(p->cur.held.items, p->cur.held.nr,
			      sizeof(*p->cur.held.items), cmp_str);
		goto keep;
	}
	po.held = &held;
	if ((err = pr_mailsrc_emit(&p->b, prev, &po, emit, payload)) || last)
		goto done;
	for (i = 0; i < held.nr; i++)
		if (!low || strcmp(held.items[i], low) < 0)
			low = held.items[i];
	if ((err = pos_cursor(&text, low, &pp)) ||
	    (err = pr_mailsrc_cursor_parse(&next, text.ptr)))
		goto done;
	pr_mailsrc_cursor_release(&p->cur);
	p->cur = next;
	p->has_cur = true;
keep:
	keep(p, NULL);
	p->carried = p->b.nr;
done:
	pr_strlist_release(&held);
	pr_buf_release(&text);
	return err;
}

void pr_mailsrc_parts_release(struct pr_mailsrc_parts *p)
{
	pr_mailsrc_batch_release(&p->b);
	pr_mailsrc_cursor_release(&p->cur);
	memset(p, 0, sizeof(*p));
}
