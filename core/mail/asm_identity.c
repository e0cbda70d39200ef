#include "base/pr.h"

#include <ctype.h>

#include "mail/asm_identity.h"

static int index_of(const struct pr_patch *p)
{
	/* a lone "[PATCH]" counts as 1/1 */
	return p->prefix.total ? p->prefix.index : 1;
}

static int version_key(const struct pr_patch *p)
{
	int idx = index_of(p), total = p->prefix.total ? p->prefix.total : 1;

	/* extras sort after every numbered patch, in their own order */
	return idx > total ? 1000000 + idx : idx;
}

void pr_asm_finish_version(struct pr_asm_version *v)
{
	size_t i, j, out = 0;
	int have = 0;

	for (i = 1; i < v->nr; i++) {
		struct pr_patch *p = v->patches[i];

		for (j = i;
		     j > 0 && version_key(v->patches[j - 1]) > version_key(p);
		     j--)
			v->patches[j] = v->patches[j - 1];
		v->patches[j] = p;
	}
	for (i = 0; i < v->nr; i++) {
		if (out &&
		    index_of(v->patches[out - 1]) == index_of(v->patches[i]))
			continue; /* the same index twice: the first stays */
		v->patches[out++] = v->patches[i];
	}
	v->nr = out;
	for (i = 0; i < v->nr; i++) {
		int idx = index_of(v->patches[i]);

		if (idx >= 1 && idx <= v->total)
			have++;
	}
	v->complete = v->total > 0 && have == v->total;
}

int pr_asm_cmp_version(const void *a, const void *b)
{
	const struct pr_asm_version *x = a, *y = b;

	if (x->number != y->number)
		return (x->number > y->number) - (x->number < y->number);
	return (x->first > y->first) - (x->first < y->first);
}

static bool same_text(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Two mails from the same submitter (any case) with the same subject. */
static bool same_mail_kind(const struct pr_patch *a, const struct pr_patch *b)
{
	const char *ea = pr_assemble_submitter(a);
	const char *eb = pr_assemble_submitter(b);

	return *ea && !strcasecmp(ea, eb) && same_text(a->subject, b->subject);
}

/* A cover letter with a subject of its own, not format-patch's template. */
static bool named_cover(const struct pr_patch *c)
{
	return c && c->subject && strcmp(c->subject, "*** SUBJECT HERE ***");
}

/*
 * Do two versions look like the same series: their cover letters (when
 * both were given a subject), else their first patches, from one submitter
 * under one subject?
 */
static bool same_series(const struct pr_asm_version *a,
			const struct pr_asm_version *b)
{
	if (named_cover(a->cover) && named_cover(b->cover))
		return same_mail_kind(a->cover, b->cover);
	return a->nr && b->nr && same_mail_kind(a->patches[0], b->patches[0]);
}

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !strncmp(s, prefix, k);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Append seg[0..n) with %XX decoded and angle brackets dropped. */
static int add_decoded(struct pr_buf *out, const char *seg, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		if (seg[i] == '%' && i + 2 < n && hexval(seg[i + 1]) >= 0 &&
		    hexval(seg[i + 2]) >= 0) {
			err = pr_buf_addch(out, hexval(seg[i + 1]) * 16 +
							hexval(seg[i + 2]));
			i += 2;
		} else if (seg[i] != '<' && seg[i] != '>') {
			err = pr_buf_addch(out, seg[i]);
		}
	}
	return err;
}

int pr_assemble_link_msgid(struct pr_buf *out, const char *url, size_t len)
{
	const char *p, *end, *seg, *pick = NULL, *after_r = NULL;
	size_t pick_n = 0, after_r_n = 0, n;

	p = memmem(url, len, "://", 3);
	if (!p)
		return pr_error(PR_ENOENT, "link '%.*s' is not a URL",
				(int)(len > 200 ? 200 : len), url);
	end = url + len;
	/* a query or fragment ("#t", "?q=") is not part of the path */
	for (seg = p + 3; seg < end; seg++)
		if (*seg == '?' || *seg == '#' || isspace((unsigned char)*seg))
			break;
	end = seg;
	p = memchr(p + 3, '/', (size_t)(end - p - 3));
	while (p && p < end) {
		const char *next;

		seg = p + 1;
		next = memchr(seg, '/', (size_t)(end - seg));
		n = (size_t)((next ? next : end) - seg);
		if (n == 1 && seg[0] == 'r' && next && next + 1 < end &&
		    !after_r) {
			const char *nn =
				memchr(next + 1, '/', (size_t)(end - next - 1));

			after_r = next + 1;
			after_r_n = (size_t)((nn ? nn : end) - after_r);
		}
		if (n && (memchr(seg, '@', n) || memmem(seg, n, "%40", 3))) {
			pick = seg;
			pick_n = n;
		}
		p = next;
	}
	if (after_r && after_r_n) {
		pick = after_r;
		pick_n = after_r_n;
	}
	if (!pick || !pick_n)
		return pr_error(PR_ENOENT, "link '%.*s' names no message",
				(int)(len > 200 ? 200 : len), url);
	return add_decoded(out, pick, pick_n);
}

/* The first whitespace-delimited word of s[0..n), its length in *wn. */
static const char *first_word(const char *s, size_t n, size_t *wn)
{
	size_t i = 0, j;

	while (i < n && isspace((unsigned char)s[i]))
		i++;
	for (j = i; j < n && !isspace((unsigned char)s[j]); j++)
		;
	*wn = j - i;
	return s + i;
}

/* Note that v's mails name version `number` as the Message-ID in word. */
static void set_prev(struct pr_asm_version *v, int number, const char *w,
		     size_t wn, bool url)
{
	struct pr_buf id = PR_BUF_INIT;

	/* only the newest version before this one counts */
	if (number < 1 || number >= v->number || number <= v->prev_number)
		return;
	pr_buf_init(&id, PR_LIMIT_HEADER_BYTES);
	if (url ? pr_assemble_link_msgid(&id, w, wn) == 0
		: add_decoded(&id, w, wn) == 0 && id.len) {
		free(v->prev_id);
		v->prev_id = pr_buf_detach(&id, NULL);
		v->prev_number = number;
	}
	pr_error_clear();
	pr_buf_release(&id);
}

/* One line of a mail's text: b4's change-id and previous-version links. */
static void scan_line(struct pr_asm_version *v, const char *l, size_t n)
{
	const char *w;
	size_t wn;
	int num = 0;

	while (n && (*l == ' ' || *l == '\t')) {
		l++;
		n--;
	}
	while (n && isspace((unsigned char)l[n - 1]))
		n--;
	if (has_prefix(l, n, "change-id:")) {
		w = first_word(l + 10, n - 10, &wn);
		if (wn && !v->change_id)
			v->change_id = pr_strndup(w, wn);
		return;
	}
	if (has_prefix(l, n, "Supersedes:")) {
		w = first_word(l + 11, n - 11, &wn);
		if (wn)
			set_prev(v, v->number - 1, w, wn,
				 memmem(w, wn, "://", 3) != NULL);
		return;
	}
	/* "v1: URL", "- v1: URL", "- Link to v1: URL" */
	if (has_prefix(l, n, "- ") || has_prefix(l, n, "* ")) {
		l += 2;
		n -= 2;
	}
	if (has_prefix(l, n, "Link to ")) {
		l += 8;
		n -= 8;
	}
	if (!n || (*l != 'v' && *l != 'V'))
		return;
	l++;
	n--;
	while (n && isdigit((unsigned char)*l) && num < 100000) {
		num = num * 10 + (*l - '0');
		l++;
		n--;
	}
	if (!num || !n || *l != ':')
		return;
	w = first_word(l + 1, n - 1, &wn);
	if (wn && memmem(w, wn, "://", 3))
		set_prev(v, num, w, wn, true);
}

static void scan_text(struct pr_asm_version *v, const char *text)
{
	const char *l = text, *nl;

	while (l && *l) {
		nl = strchr(l, '\n');
		scan_line(v, l, nl ? (size_t)(nl - l) : strlen(l));
		l = nl ? nl + 1 : NULL;
	}
}

static void scan_mail(struct pr_asm_version *v, const struct pr_patch *p)
{
	size_t i;

	scan_text(v, p->body);
	scan_text(v, p->diff);
	for (i = 0; i < p->trailers.nr && !v->change_id; i++)
		if (!strcmp(p->trailers.items[i].key, "change-id"))
			v->change_id = pr_strdup(p->trailers.items[i].value);
}

/* What the mails of v say about its identity (see assemble.h). */
void pr_asm_scan_version(struct pr_asm_version *v)
{
	size_t i;

	if (v->cover)
		scan_mail(v, v->cover);
	for (i = 0; i < v->nr; i++)
		scan_mail(v, v->patches[i]);
}

static const char *series_change_id(const struct pr_asm_series *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->versions[i].change_id)
			return s->versions[i].change_id;
	return NULL;
}

static bool version_has_mail(const struct pr_asm_version *v, const char *id)
{
	size_t i;

	if (v->cover && v->cover->message_id &&
	    !strcmp(v->cover->message_id, id))
		return true;
	for (i = 0; i < v->nr; i++)
		if (v->patches[i]->message_id &&
		    !strcmp(v->patches[i]->message_id, id))
			return true;
	return false;
}

/* Does a version of x name a mail of y as its previous version? */
static bool names_prev(const struct pr_asm_series *x,
		       const struct pr_asm_series *y)
{
	size_t i, j;

	for (i = 0; i < x->nr; i++)
		for (j = 0; x->versions[i].prev_id && j < y->nr; j++)
			if (version_has_mail(&y->versions[j],
					     x->versions[i].prev_id))
				return true;
	return false;
}

/* The same patches (by git patch-id, all computed) in the same order. */
static bool same_patch_ids(const struct pr_asm_version *a,
			   const struct pr_asm_version *b)
{
	size_t i;

	if (!a->nr || a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++)
		if (!a->patches[i]->patch_id[0] ||
		    strcmp(a->patches[i]->patch_id, b->patches[i]->patch_id))
			return false;
	return true;
}

/*
 * Are sa and sb one series?  By change-id when both have one, then by a
 * previous version one names in the other; else when they share a version
 * number (an unlabeled revision, a resend) by a pair of those versions
 * with the same patch-ids or the same author and subject, else by sa's
 * newest and sb's oldest version.
 */
static bool series_match(const struct pr_asm_series *sa,
			 const struct pr_asm_series *sb)
{
	const char *ca = series_change_id(sa), *cb = series_change_id(sb);
	bool shared = false;
	size_t i, j;

	if (ca && cb)
		return !strcmp(ca, cb);
	if (names_prev(sa, sb) || names_prev(sb, sa))
		return true;
	for (i = 0; i < sb->nr; i++) {
		for (j = 0; j < sa->nr; j++) {
			const struct pr_asm_version *va = &sa->versions[j];
			const struct pr_asm_version *vb = &sb->versions[i];

			if (va->number != vb->number)
				continue;
			if (same_patch_ids(va, vb) || same_series(va, vb))
				return true;
			shared = true;
		}
	}
	return !shared &&
	       same_series(&sa->versions[sa->nr - 1], &sb->versions[0]);
}

/*
 * The merge compares only the pairs of series that share a key, each
 * series being a candidate under every key of its versions: its change-id,
 * the Message-IDs of its mails and the previous version each names, its
 * first patch-id, and "submitter (lowercase) LF subject" of its cover
 * letter and of its first patch.  series_match() can hold only for two
 * series that share one (each of its tests compares one of those), so the
 * result is the pairwise merge's, in linear time for a list whose series
 * share nothing (a scan of every pair was quadratic: 10,000 series took
 * seconds).
 */
struct merge_key {
	char *key;
	size_t series; /* its index in out before the merge */
};

struct merge {
	struct pr_assembly *out;
	struct merge_key *keys; /* sorted by key, then series */
	size_t nr, alloc;
	size_t *owner; /* per series: the series it was joined into */
	bool *gone; /* per series: joined into another */
	/*
	 * per series: the turn (of merge_round) that last listed it as a
	 * candidate; a series sharing many keys with a is tried once, not
	 * once per key (a second copy would be skipped anyway)
	 */
	size_t *listed, turn;
};

static void key_add(struct merge *m, size_t series, char kind, const char *a,
		    const char *b)
{
	struct pr_buf k = PR_BUF_INIT;

	if (!a || !*a)
		return;
	pr_buf_addch(&k, kind);
	pr_buf_adds(&k, a);
	if (b) {
		size_t i;

		/* the submitter compares in any case */
		for (i = 1; i < k.len; i++)
			k.ptr[i] = (char)tolower((unsigned char)k.ptr[i]);
		pr_buf_addch(&k, '\n');
		pr_buf_adds(&k, b);
	}
	PR_ALLOC_GROW(m->keys, m->nr + 1, m->alloc);
	m->keys[m->nr].key = pr_buf_detach(&k, NULL);
	m->keys[m->nr].series = series;
	m->nr++;
}

static void kind_key(struct merge *m, size_t series, const struct pr_patch *p)
{
	const char *who = pr_assemble_submitter(p);

	if (*who && p->subject)
		key_add(m, series, 'k', who, p->subject);
}

static void series_keys(struct merge *m, size_t si)
{
	const struct pr_asm_series *s = &m->out->series[si];
	size_t i, j;

	for (i = 0; i < s->nr; i++) {
		const struct pr_asm_version *v = &s->versions[i];

		key_add(m, si, 'c', v->change_id, NULL);
		key_add(m, si, 'm', v->prev_id, NULL);
		if (v->cover) {
			key_add(m, si, 'm', v->cover->message_id, NULL);
			kind_key(m, si, v->cover);
		}
		for (j = 0; j < v->nr; j++)
			key_add(m, si, 'm', v->patches[j]->message_id, NULL);
		if (v->nr) {
			key_add(m, si, 'p', v->patches[0]->patch_id, NULL);
			kind_key(m, si, v->patches[0]);
		}
	}
}

static int cmp_merge_key(const void *a, const void *b)
{
	const struct merge_key *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->series > y->series) - (x->series < y->series);
}

static size_t owner_of(const struct merge *m, size_t si)
{
	while (m->owner[si] != si)
		si = m->owner[si];
	return si;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/*
 * The series after `after` (neither a nor gone) that share a key with
 * series si, one of a's members (by[si] .. by[si + 1] index its keys in
 * m->keys through at[]), added to *cand.
 */
static void candidates(size_t **cand, size_t *nr, size_t *alloc,
		       struct merge *m, const size_t *by, const size_t *at,
		       size_t si, size_t a, size_t after)
{
	size_t i, lo, hi;

	for (i = by[si]; i < by[si + 1]; i++) {
		const char *key = m->keys[at[i]].key;

		lo = at[i];
		while (lo > 0 && !strcmp(m->keys[lo - 1].key, key))
			lo--;
		for (hi = lo; hi < m->nr && !strcmp(m->keys[hi].key, key);
		     hi++) {
			size_t b = owner_of(m, m->keys[hi].series);

			if (b == a || b <= after || m->gone[b] ||
			    m->listed[b] == m->turn)
				continue;
			m->listed[b] = m->turn;
			PR_ALLOC_GROW(*cand, *nr + 1, *alloc);
			(*cand)[(*nr)++] = b;
		}
	}
}

/* Move the versions of series b into series a (a < b); b is gone. */
static void join_series(struct merge *m, size_t a, size_t b)
{
	struct pr_asm_series *sa = &m->out->series[a];
	struct pr_asm_series *sb = &m->out->series[b];
	size_t i;

	for (i = 0; i < sb->nr; i++) {
		PR_ALLOC_GROW(sa->versions, sa->nr + 1, sa->alloc);
		sa->versions[sa->nr++] = sb->versions[i];
	}
	qsort(sa->versions, sa->nr, sizeof(*sa->versions), pr_asm_cmp_version);
	free(sb->versions);
	free(sb->key);
	memset(sb, 0, sizeof(*sb));
	m->gone[b] = true;
	m->owner[b] = a;
}

#define NO_MEMBER ((size_t)-1)

/*
 * As the pairwise merge: for each series a in order, each later series b
 * in order that matches a as it stands is joined into it; again until
 * nothing changes.  Only the series sharing a key with a member of a are
 * tried; one that joins brings the candidates of its own keys after it.
 * members[] lists each series' members (itself first, NO_MEMBER after the
 * last, tail[] its last).
 */
static bool merge_round(struct merge *m, const size_t *by, const size_t *at,
			size_t *members, size_t *tail)
{
	size_t *cand = NULL, nr, alloc = 0, a, k, b, j, last;
	bool changed = false;

	for (a = 0; a < m->out->nr; a++) {
		if (m->gone[a])
			continue;
		nr = 0;
		m->turn++;
		for (j = a; j != NO_MEMBER; j = members[j])
			candidates(&cand, &nr, &alloc, m, by, at, j, a, a);
		if (nr)
			qsort(cand, nr, sizeof(*cand), cmp_size);
		for (k = 0, last = a; k < nr; k++) {
			b = cand[k];
			if (b <= last || m->gone[b])
				continue;
			last = b;
			if (!series_match(&m->out->series[a],
					  &m->out->series[b]))
				continue;
			join_series(m, a, b);
			changed = true;
			for (j = b; j != NO_MEMBER; j = members[j])
				candidates(&cand, &nr, &alloc, m, by, at, j, a,
					   b);
			members[tail[a]] = b;
			tail[a] = tail[b];
			if (nr > k + 1)
				qsort(cand + k + 1, nr - k - 1, sizeof(*cand),
				      cmp_size);
		}
	}
	free(cand);
	return changed;
}

void pr_asm_merge_series(struct pr_assembly *out)
{
	struct merge m;
	size_t *by, *at, *members, *tail, *fill, i, n = out->nr, kept = 0;

	memset(&m, 0, sizeof(m));
	m.out = out;
	for (i = 0; i < n; i++)
		series_keys(&m, i);
	if (m.nr)
		qsort(m.keys, m.nr, sizeof(*m.keys), cmp_merge_key);
	m.owner = pr_calloc(n + 1, sizeof(*m.owner));
	m.gone = pr_calloc(n + 1, sizeof(*m.gone));
	m.listed = pr_calloc(n + 1, sizeof(*m.listed));
	/* by[s] .. by[s + 1]: the positions in at[] of series s's keys */
	by = pr_calloc(n + 2, sizeof(*by));
	at = pr_calloc(m.nr + 1, sizeof(*at));
	fill = pr_calloc(n + 1, sizeof(*fill));
	for (i = 0; i < m.nr; i++)
		by[m.keys[i].series + 1]++;
	for (i = 0; i < n; i++)
		by[i + 1] += by[i];
	for (i = 0; i < m.nr; i++) {
		size_t s = m.keys[i].series;

		at[by[s] + fill[s]++] = i;
	}
	members = pr_calloc(n + 1, sizeof(*members));
	tail = pr_calloc(n + 1, sizeof(*tail));
	for (i = 0; i < n; i++) {
		m.owner[i] = i;
		members[i] = NO_MEMBER;
		tail[i] = i;
	}
	while (merge_round(&m, by, at, members, tail))
		;
	for (i = 0; i < n; i++)
		if (!m.gone[i])
			out->series[kept++] = out->series[i];
	out->nr = kept;
	for (i = 0; i < m.nr; i++)
		free(m.keys[i].key);
	free(m.keys);
	free(m.owner);
	free(m.gone);
	free(m.listed);
	free(by);
	free(at);
	free(fill);
	free(members);
	free(tail);
}

/* The mail a version starts from: its cover, else its first own patch. */
static const char *root_id(const struct pr_asm_version *v)
{
	if (v->cover)
		return v->cover->message_id;
	return v->nr ? v->patches[0]->message_id : NULL;
}

/* The series key and each version's supersedes (see assemble.h). */
static void set_identity(struct pr_asm_series *s)
{
	const char *key = series_change_id(s);
	size_t i;

	if (!key && s->nr)
		key = root_id(&s->versions[0]);
	s->key = key ? pr_strdup(key) : NULL;
	for (i = 0; i < s->nr; i++)
		s->versions[i].supersedes = i ? root_id(&s->versions[i - 1])
					      : s->versions[i].prev_id;
}

/* Does each patch of v answer the same n/M of prev (b4's partial re-roll)? */
static bool is_partial_reroll(const struct pr_asm_version *v,
			      const struct pr_asm_version *prev)
{
	size_t i, j;

	if (v->complete || v->cover || !v->nr || v->number < 2 ||
	    prev->total != v->total || !v->total)
		return false;
	for (i = 0; i < v->nr; i++) {
		const struct pr_patch *p = v->patches[i];
		bool found = false;

		for (j = 0; j < prev->nr && !found && p->in_reply_to; j++)
			found = index_of(prev->patches[j]) == index_of(p) &&
				prev->patches[j]->message_id &&
				!strcmp(prev->patches[j]->message_id,
					p->in_reply_to);
		if (!found)
			return false;
	}
	return true;
}

/*
 * A partial resend: v has no cover letter and lacks patches, and the
 * version before it, of the same number and total, has every index v has.
 */
static bool is_partial_resend(const struct pr_asm_version *v,
			      const struct pr_asm_version *prev)
{
	size_t i, j;

	if (v->complete || v->cover || !v->nr || !v->total ||
	    v->number != prev->number || v->total != prev->total)
		return false;
	for (i = 0; i < v->nr; i++) {
		bool found = false;

		for (j = 0; j < prev->nr && !found; j++)
			found = index_of(prev->patches[j]) ==
				index_of(v->patches[i]);
		if (!found)
			return false;
	}
	return true;
}

/* Fill the holes of v from prev: the indexes 1..total v lacks. */
static void fill_from(struct pr_asm_version *v,
		      const struct pr_asm_version *prev)
{
	size_t j, k, own = v->nr;

	for (j = 0; j < prev->nr; j++) {
		int idx = index_of(prev->patches[j]);
		bool have = idx < 1 || idx > v->total;

		for (k = 0; k < own && !have; k++)
			have = index_of(v->patches[k]) == idx;
		if (have)
			continue;
		PR_ALLOC_GROW(v->patches, v->nr + 1, v->alloc);
		v->patches[v->nr++] = prev->patches[j];
	}
	pr_asm_finish_version(v);
	v->partial_reroll = v->complete;
}

void pr_asm_finish_series(struct pr_asm_series *s)
{
	size_t i, j;

	set_identity(s);
	/* oldest first: a filled version may fill the next */
	for (i = 1; i < s->nr; i++) {
		struct pr_asm_version *v = &s->versions[i];
		const struct pr_asm_version *prev = &s->versions[i - 1];

		if (is_partial_reroll(v, prev) || is_partial_resend(v, prev))
			fill_from(v, prev);
	}
	for (i = 0; i < s->nr; i++)
		for (j = i + 1; j < s->nr && !s->versions[i].complete; j++)
			if (s->versions[j].complete)
				s->versions[i].superseded = true;
}

/*
 * Could scan_line read something in l[0..n)?  Its two keys, else a wide
 * test on purpose: the first character of its other forms.
 */
static bool line_may_count(const char *l, size_t n)
{
	while (n && (*l == ' ' || *l == '\t')) {
		l++;
		n--;
	}
	if (has_prefix(l, n, "change-id:") || has_prefix(l, n, "Supersedes:"))
		return true;
	return n && strchr("-*LvV", *l);
}

/* text reduced to its lines line_may_count keeps; NULL stays NULL. */
static char *slim_text(char *text)
{
	struct pr_buf out = PR_BUF_INIT;
	const char *l = text, *nl;
	size_t n;

	while (l && *l) {
		nl = strchr(l, '\n');
		n = nl ? (size_t)(nl - l) : strlen(l);
		if (line_may_count(l, n)) {
			pr_buf_add(&out, l, n);
			pr_buf_addch(&out, '\n');
		}
		l = nl ? nl + 1 : NULL;
	}
	return pr_buf_detach(&out, NULL);
}

void pr_assemble_slim(struct pr_patch *p)
{
	bool had_diff = p->diff && p->diff[0];
	size_t i, n = 0;
	char *s;

	/* of the trailers only a change-id counts (scan_mail) */
	for (i = 0; i < p->trailers.nr; i++) {
		struct pr_trailer *t = &p->trailers.items[i];

		if (!strcmp(t->key, "change-id")) {
			p->trailers.items[n++] = *t;
			continue;
		}
		free(t->key);
		free(t->value);
	}
	p->trailers.nr = n;
	/* the author's address and the date's time count, not the rest */
	free(p->author.name);
	p->author.name = NULL;
	free(p->date);
	p->date = NULL;

	if (p->body) {
		s = slim_text(p->body);
		free(p->body);
		p->body = s;
	}
	if (p->diff) {
		s = slim_text(p->diff);
		free(p->diff);
		p->diff = s;
		/* a mail with a patch still has one */
		if (had_diff && !s[0]) {
			free(s);
			p->diff = pr_strdup("\n");
		}
	}
}
