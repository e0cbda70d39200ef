#include "base/pr.h"

#include <ctype.h>

#include "mail/asm_identity.h"
#include "mail/assemble.h"
#include "model/subject.h"

#define NONE ((size_t)-1)
/* Patchwork's SERIES_DELAY_INTERVAL, in seconds */
#define MARKER_WINDOW (20 * 60)

/*
 * Every Message-ID the mails name, sorted, each once; for each, the
 * posting holding it as a reference (Patchwork's SeriesReference), the
 * posting holding the mail that has it, whether a mail with it was read
 * already, and whether the stream has a mail with it at all.
 */
struct ids {
	const char **v;
	size_t nr, alloc;
	size_t *ref;
	size_t *mail;
	bool *read;
	bool *known;
};

/* A posting as it grows; its version is filled at the end. */
struct posting {
	struct pr_asm_version v;
	int label; /* the version its first mail gave */
	int total; /* the total its first mail gave */
	int64_t time; /* its first mail's date, 0 when unknown */
	const char *who; /* its first mail's author */
	const char *anchor; /* its first mail's anchor() */
	bool idless; /* its first mail has no Message-ID */
	size_t link; /* union-find over postings: joined by threads */
};

struct state {
	struct ids ids;
	struct posting *p;
	size_t nr, alloc;
	/* the cover letters read so far, for Patchwork's same-name test */
	const struct pr_patch **covers;
	size_t nr_covers, alloc_covers;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void ids_add(struct ids *ids, const char *s)
{
	if (!s || !*s)
		return;
	PR_ALLOC_GROW(ids->v, ids->nr + 1, ids->alloc);
	ids->v[ids->nr++] = s;
}

static size_t ids_find(const struct ids *ids, const char *s)
{
	const char **hit;

	if (!s || !*s || !ids->nr)
		return NONE;
	hit = bsearch(&s, ids->v, ids->nr, sizeof(*ids->v), cmp_str);
	return hit ? (size_t)(hit - ids->v) : NONE;
}

static void ids_build(struct ids *ids, struct pr_patch *const *mails, size_t nr)
{
	size_t i, j, k;

	for (i = 0; i < nr; i++) {
		ids_add(ids, mails[i]->message_id);
		ids_add(ids, mails[i]->in_reply_to);
		for (j = 0; j < mails[i]->nr_references; j++)
			ids_add(ids, mails[i]->references[j]);
	}
	if (ids->nr)
		qsort(ids->v, ids->nr, sizeof(*ids->v), cmp_str);
	for (i = 0, k = 0; i < ids->nr; i++)
		if (!k || strcmp(ids->v[k - 1], ids->v[i]))
			ids->v[k++] = ids->v[i];
	ids->nr = k;
	ids->ref = pr_calloc(ids->nr + 1, sizeof(*ids->ref));
	ids->mail = pr_calloc(ids->nr + 1, sizeof(*ids->mail));
	ids->read = pr_calloc(ids->nr + 1, sizeof(*ids->read));
	ids->known = pr_calloc(ids->nr + 1, sizeof(*ids->known));
	for (i = 0; i < ids->nr; i++)
		ids->ref[i] = ids->mail[i] = NONE;
	for (i = 0; i < nr; i++)
		if ((k = ids_find(ids, mails[i]->message_id)) != NONE)
			ids->known[k] = true;
}

static bool is_cover(const struct pr_patch *p)
{
	return p->prefix.index == 0 && p->prefix.total > 0;
}

/* The version a mail gives: its "vN", else a "(vN)" in its subject, else 1. */
static int mail_version(const struct pr_patch *p)
{
	const char *s = p->subject_raw ? p->subject_raw : "";

	if (p->prefix.version > 1)
		return p->prefix.version;
	for (; (s = strchr(s, '(')); s++) {
		const char *d = s + 1;
		int n = 0;

		if (*d != 'v' && *d != 'V')
			continue;
		for (d++; isdigit((unsigned char)*d) && n < 100000; d++)
			n = n * 10 + (*d - '0');
		if (*d == ')' && n > 0)
			return n;
	}
	return 1;
}

/* Two dates within Patchwork's window; an unknown date is near nothing. */
static bool near(int64_t a, int64_t b)
{
	if (!a || !b)
		return false;
	return a - b <= MARKER_WINDOW && b - a <= MARKER_WINDOW;
}

static bool has_index(const struct posting *q, int x)
{
	size_t i;

	for (i = 0; i < q->v.nr; i++)
		if ((q->v.patches[i]->prefix.total
			     ? q->v.patches[i]->prefix.index
			     : 1) == x)
			return true;
	return false;
}

/* The posting's version: its cover letter's, else its first mail's. */
static int number_of(const struct posting *q)
{
	return q->v.cover ? mail_version(q->v.cover) : q->label;
}

/* Hold id as a reference of posting n unless another holds it already. */
static void hold_ref(struct state *st, const char *id, size_t n)
{
	size_t k = ids_find(&st->ids, id);

	if (k != NONE && st->ids.ref[k] == NONE)
		st->ids.ref[k] = n;
}

/*
 * The thread a mail answers outside the stream: its first reference (else
 * its In-Reply-To) when the mail it answers is not in the stream, else
 * NULL.  See by_markers().
 */
static const char *anchor(const struct state *st, const struct pr_patch *p)
{
	const char *to = p->in_reply_to;
	size_t k;

	if ((!to || !*to) && p->nr_references)
		to = p->references[p->nr_references - 1];
	k = ids_find(&st->ids, to);
	if (k == NONE || st->ids.known[k])
		return NULL;
	return p->nr_references && p->references[0][0] ? p->references[0] : to;
}

static size_t new_posting(struct state *st, const struct pr_patch *p,
			  size_t first)
{
	struct posting *q;

	PR_ALLOC_GROW(st->p, st->nr + 1, st->alloc);
	q = &st->p[st->nr];
	memset(q, 0, sizeof(*q));
	q->label = mail_version(p);
	q->total = p->prefix.total ? p->prefix.total : 1;
	q->time = p->time;
	q->who = pr_assemble_submitter(p);
	q->idless = !p->message_id || !*p->message_id;
	q->anchor = anchor(st, p);
	q->v.first = first;
	q->link = st->nr;
	return st->nr++;
}

static int attach(struct state *st, size_t n, struct pr_patch *p)
{
	struct posting *q = &st->p[n];
	size_t k = ids_find(&st->ids, p->message_id);

	if (q->v.nr >= PR_LIMIT_SERIES_PATCHES)
		return pr_error(PR_ETOOBIG, "series of '%s' over %d patches",
				p->message_id ? p->message_id : "",
				PR_LIMIT_SERIES_PATCHES);
	PR_ALLOC_GROW(q->v.patches, q->v.nr + 1, q->v.alloc);
	q->v.patches[q->v.nr++] = p;
	if (k != NONE)
		st->ids.mail[k] = n;
	return 0;
}

/*
 * The posting a reference of p leads to (Patchwork's
 * _find_series_by_references): its Message-ID, its In-Reply-To, then its
 * References from the newest; the first one held by a posting decides,
 * unless that posting is of another version and p names one of its own.
 */
static size_t by_reference(const struct state *st, const struct pr_patch *p)
{
	int label = mail_version(p);
	size_t i, k, n = p->nr_references + 2;

	for (i = 0; i < n; i++) {
		const char *id = i == 0	  ? p->message_id
				 : i == 1 ? p->in_reply_to
					  : p->references[n - 1 - i];

		k = ids_find(&st->ids, id);
		if (k == NONE || st->ids.ref[k] == NONE)
			continue;
		if (label != 1 && number_of(&st->p[st->ids.ref[k]]) != label)
			continue;
		return st->ids.ref[k];
	}
	return NONE;
}

/*
 * The posting p's markers lead to (Patchwork's _find_series_by_markers):
 * the same submitter, version and total, within the window; the newest that
 * lacks patch x.  Mails without a Message-ID match only postings started
 * by one, whatever the dates.  Unlike Patchwork, p and the posting's
 * first mail must have the same anchor(): Patchwork keeps every mail it
 * ever read, a stream is a window of the list, and a "2/2" answering a
 * 1/2 that an earlier poll read (or that never came) is not the posting
 * that a "1/2" of another thread completes.
 */
static size_t by_markers(const struct state *st, const struct pr_patch *p,
			 int x)
{
	bool idless = !p->message_id || !*p->message_id;
	int label = mail_version(p), total = p->prefix.total;
	const char *who = pr_assemble_submitter(p), *out = anchor(st, p);
	size_t i, best = NONE;

	for (i = st->nr; i-- > 0;) {
		const struct posting *q = &st->p[i];

		/* not newer than the best found: skip the costly tests */
		if (best != NONE && q->time <= st->p[best].time)
			continue;
		if (q->idless != idless || q->label != label ||
		    q->total != total || strcasecmp(q->who, who) ||
		    !q->anchor != !out || (out && strcmp(q->anchor, out)) ||
		    (!idless && !near(q->time, p->time)) || has_index(q, x))
			continue;
		best = i;
	}
	return best;
}

static int add_patch(struct state *st, struct pr_patch *p, size_t first)
{
	int x = p->prefix.total ? p->prefix.index : 1;
	size_t n = NONE, j;

	/* a patch without n/N is a posting of its own */
	if (p->prefix.total) {
		n = by_reference(st, p);
		if (n == NONE)
			n = by_markers(st, p, x);
	}
	if (n == NONE || has_index(&st->p[n], x)) {
		n = new_posting(st, p, first);
		hold_ref(st, p->in_reply_to, n);
		for (j = 0; j < p->nr_references; j++)
			hold_ref(st, p->references[j], n);
		hold_ref(st, p->message_id, n);
	}
	return attach(st, n, p);
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Do two subjects read the same, runs of white space aside? */
static bool same_name(const char *a, const char *b)
{
	a = skip_space(a ? a : "");
	b = skip_space(b ? b : "");
	while (*a && *b) {
		if (isspace((unsigned char)*a) && isspace((unsigned char)*b)) {
			a = skip_space(a);
			b = skip_space(b);
			continue;
		}
		if (*a != *b)
			return false;
		a++;
		b++;
	}
	return !*skip_space(a) && !*skip_space(b);
}

static void add_cover(struct state *st, struct pr_patch *c, size_t first)
{
	size_t i, n, k;

	/* answering something, under a cover letter's subject: a comment */
	if (c->in_reply_to || c->nr_references)
		for (i = 0; i < st->nr_covers; i++)
			if (same_name(st->covers[i]->subject_raw,
				      c->subject_raw))
				return;
	PR_ALLOC_GROW(st->covers, st->nr_covers + 1, st->alloc_covers);
	st->covers[st->nr_covers++] = c;
	k = ids_find(&st->ids, c->message_id);
	n = k == NONE ? NONE : st->ids.ref[k];
	if (n == NONE) {
		n = new_posting(st, c, first);
		hold_ref(st, c->message_id, n);
	} else if (st->p[n].v.cover) {
		return; /* Patchwork keeps the first cover letter */
	}
	st->p[n].v.cover = c;
	if (k != NONE)
		st->ids.mail[k] = n;
}

static size_t link_find(struct state *st, size_t i)
{
	while (st->p[i].link != i) {
		st->p[i].link = st->p[st->p[i].link].link;
		i = st->p[i].link;
	}
	return i;
}

/* Is b a version of the series of a, by a mail of b answering a mail of a? */
static bool linkable(const struct posting *a, const struct posting *b)
{
	if (a->v.number != b->v.number)
		return true;
	return a->v.total == b->v.total && !strcasecmp(a->who, b->who);
}

static void link_mail(struct state *st, size_t b, const struct pr_patch *m)
{
	size_t j, n = m->nr_references + 1;

	for (j = 0; j < n; j++) {
		size_t k = ids_find(&st->ids,
				    j ? m->references[j - 1] : m->in_reply_to);
		size_t a = k == NONE ? NONE : st->ids.mail[k];

		if (a == NONE || a == b || !linkable(&st->p[a], &st->p[b]))
			continue;
		a = link_find(st, a);
		if (a != link_find(st, b))
			st->p[link_find(st, b)].link = a;
	}
}

/* Each posting becomes a version; linked postings are one series. */
static void to_series(struct pr_assembly *out, struct state *st)
{
	size_t i, j, *series_of = pr_calloc(st->nr + 1, sizeof(*series_of));

	for (i = 0; i < st->nr; i++) {
		struct posting *q = &st->p[i];

		q->v.number = number_of(q);
		q->v.total = q->v.cover ? q->v.cover->prefix.total : q->total;
		pr_asm_finish_version(&q->v);
		series_of[i] = NONE;
	}
	for (i = 0; i < st->nr; i++) {
		if (st->p[i].v.cover)
			link_mail(st, i, st->p[i].v.cover);
		for (j = 0; j < st->p[i].v.nr; j++)
			link_mail(st, i, st->p[i].v.patches[j]);
	}
	for (i = 0; i < st->nr; i++) {
		size_t root = link_find(st, i);
		struct pr_asm_series *s;

		if (series_of[root] == NONE) {
			PR_ALLOC_GROW(out->series, out->nr + 1, out->alloc);
			memset(&out->series[out->nr], 0, sizeof(*out->series));
			series_of[root] = out->nr++;
		}
		s = &out->series[series_of[root]];
		PR_ALLOC_GROW(s->versions, s->nr + 1, s->alloc);
		s->versions[s->nr++] = st->p[i].v;
		memset(&st->p[i].v, 0, sizeof(st->p[i].v));
	}
	for (i = 0; i < out->nr; i++) {
		struct pr_asm_series *s = &out->series[i];

		qsort(s->versions, s->nr, sizeof(*s->versions),
		      pr_asm_cmp_version);
		for (j = 0; j < s->nr; j++)
			pr_asm_scan_version(&s->versions[j]);
	}
	free(series_of);
}

int pr_assemble_mails(struct pr_assembly *out, struct pr_patch *const *mails,
		      size_t nr)
{
	struct state st;
	size_t i;
	int err = 0;

	memset(&st, 0, sizeof(st));
	ids_build(&st.ids, mails, nr);
	for (i = 0; i < nr && !err; i++) {
		struct pr_patch *p = mails[i];
		size_t k = ids_find(&st.ids, p->message_id);

		if (pr_subject_is_reply(p->subject_raw))
			continue;
		/* the same mail twice (two lists, two folders) counts once */
		if (k != NONE && st.ids.read[k])
			continue;
		if (k != NONE)
			st.ids.read[k] = true;
		if (is_cover(p))
			add_cover(&st, p, i);
		else
			err = add_patch(&st, p, i);
	}
	if (!err) {
		to_series(out, &st);
		pr_asm_merge_series(out);
		for (i = 0; i < out->nr; i++)
			pr_asm_finish_series(&out->series[i]);
	}
	for (i = 0; i < st.nr; i++)
		free(st.p[i].v.patches);
	free(st.p);
	free(st.covers);
	free(st.ids.v);
	free(st.ids.ref);
	free(st.ids.mail);
	free(st.ids.read);
	free(st.ids.known);
	return err;
}

const char *pr_assemble_submitter(const struct pr_patch *p)
{
	if (p->sender && *p->sender)
		return p->sender;
	return p->author.email ? p->author.email : "";
}

const struct pr_asm_version *
pr_assemble_latest_complete(const struct pr_asm_series *s)
{
	size_t i;

	for (i = s->nr; i > 0; i--)
		if (s->versions[i - 1].complete)
			return &s->versions[i - 1];
	return NULL;
}

void pr_assemble_release(struct pr_assembly *a)
{
	size_t i, j;

	for (i = 0; i < a->nr; i++) {
		for (j = 0; j < a->series[i].nr; j++) {
			free(a->series[i].versions[j].patches);
			free(a->series[i].versions[j].change_id);
			free(a->series[i].versions[j].prev_id);
		}
		free(a->series[i].versions);
		free(a->series[i].key);
	}
	free(a->series);
	memset(a, 0, sizeof(*a));
}
