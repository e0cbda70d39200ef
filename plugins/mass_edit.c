#include "base/pr.h"
#include "checks.h"

#include <ctype.h>

#include "maintainers.h"

/*
 * mass-edit: recognises mechanical edits.  Each removed line is paired with
 * the added line at the same place of its -/+ block; for each pair we look
 * for the one substitution s -> t (all occurrences) that turns the old line
 * into the new one.  When a few such substitutions explain most changed
 * lines of a large change, the series is a mechanical mass edit.  Apart
 * from that, a change whose files fall in more than max-sections
 * MAINTAINERS sections is one no single maintainer can take.
 */

#define ME_MAX_SUBS 512 /* distinct substitutions tracked */
#define ME_MAX_LINE 1024 /* longer lines are only compared whole */
#define ME_MAX_PART 32 /* longest s or t searched for */
#define ME_TOP 3 /* "a few" substitutions */
#define ME_NAMED_SECTIONS 5 /* "the first few" sections in a message */
#define ME_REST "THE REST" /* the catch-all section: not counted */
#define ME_TOP_WORDS 3 /* whole words named per substitution */
#define ME_MAX_WORDS 4096 /* distinct word changes tracked per substitution */

/* One whole word changed by a substitution: "error" -> "eror". */
struct me_word {
	char *old, *new; /* one allocation: old, NUL, new, NUL */
	uint64_t count;
	uint32_t hash;
};

/* The words a substitution changed: an open-addressing table. */
struct me_words {
	struct me_word *v; /* cap slots, old == NULL when empty */
	size_t cap, nr;
};

struct me_sub {
	char *s, *t;
	uint64_t lines, files;
	size_t last_file;
	uint64_t inside, outside; /* occurrences inside a word or not */
	struct me_words words;
};

struct me_state {
	struct me_sub subs[ME_MAX_SUBS];
	size_t nr;
	uint64_t pairs, whitespace;
	size_t file; /* 1-based index of the current file */
};

void pr_mass_edit_defaults(struct pr_mass_edit_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->min_share = 0.5;
	o->min_lines = 50;
	o->min_files = 20;
	o->severity = PR_VERDICT_FAIL;
	/*
	 * Measured by bench/mass-sections on the 6.1 tree: a patch touches
	 * at most 8 sections, a one-subsystem series (each driver has its
	 * own section) up to 92, tree-wide commits 87 to 2,513; 100 passes
	 * every subsystem series, and the substitution rule catches the
	 * mechanical tree-wide ones under it (docs/plugins/mass-edit.md).
	 */
	o->max_sections = 100;
}

/* Does replacing every s in old by t give new (of length nlen)? */
static bool subst_matches(const char *old, size_t olen, const char *s,
			  size_t slen, const char *t, size_t tlen,
			  const char *new, size_t nlen)
{
	size_t i = 0, j = 0;
	bool any = false;

	while (i < olen) {
		if (i + slen <= olen && !memcmp(old + i, s, slen)) {
			if (j + tlen > nlen || memcmp(new + j, t, tlen))
				return false;
			i += slen;
			j += tlen;
			any = true;
		} else {
			if (j >= nlen || old[i] != new[j])
				return false;
			i++;
			j++;
		}
	}
	return any && j == nlen;
}

/* Non-overlapping occurrences of s (slen > 0) in old. */
static size_t count_occurrences(const char *old, size_t olen, const char *s,
				size_t slen)
{
	size_t i = 0, c = 0;

	while (i + slen <= olen) {
		if (!memcmp(old + i, s, slen)) {
			c++;
			i += slen;
		} else {
			i++;
		}
	}
	return c;
}

int pr_mass_edit_substitution(char **s, char **t, const char *old,
			      const char *new)
{
	size_t olen = strlen(old), nlen = strlen(new);
	size_t pre = 0, suf = 0, k, b, kmax;

	*s = *t = NULL;
	if (olen == nlen && !memcmp(old, new, olen))
		return 0;
	while (pre < olen && pre < nlen && old[pre] == new[pre])
		pre++;
	while (suf < olen - pre && suf < nlen - pre &&
	       old[olen - 1 - suf] == new[nlen - 1 - suf])
		suf++;
	if (olen > ME_MAX_LINE || nlen > ME_MAX_LINE)
		goto middle;
	/*
	 * The substitution starts at or a little before the first difference.
	 * Try the shortest s first; with c occurrences of s, t's length is
	 * fixed by the line lengths, so each s has one t to verify.
	 */
	kmax = olen - pre - suf + 4;
	if (kmax > ME_MAX_PART)
		kmax = ME_MAX_PART;
	for (k = 1; k <= kmax; k++)
		for (b = 0; b <= pre && b < k && b <= 4; b++) {
			size_t st = pre - b, c;
			long long m;

			if (st + k > olen)
				continue;
			c = count_occurrences(old, olen, old + st, k);
			if (!c ||
			    ((long long)nlen - (long long)olen) % (long long)c)
				continue;
			m = (long long)k +
			    ((long long)nlen - (long long)olen) / (long long)c;
			if (m < 0 || st + (size_t)m > nlen)
				continue;
			if (subst_matches(old, olen, old + st, k, new + st,
					  (size_t)m, new, nlen)) {
				*s = pr_strndup(old + st, k);
				*t = pr_strndup(new + st, (size_t)m);
				return 1;
			}
		}
middle:
	/* One contiguous change: the middle parts are the substitution. */
	if (olen - pre - suf > 0 &&
	    subst_matches(old, olen, old + pre, olen - pre - suf, new + pre,
			  nlen - pre - suf, new, nlen)) {
		*s = pr_strndup(old + pre, olen - pre - suf);
		*t = pr_strndup(new + pre, nlen - pre - suf);
		return 1;
	}
	return 0;
}

static bool only_whitespace_differs(const char *a, const char *b)
{
	for (;;) {
		while (isspace((unsigned char)*a))
			a++;
		while (isspace((unsigned char)*b))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

static bool word_byte(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Count the occurrences of s in old that sit inside a word, and the rest. */
static void count_word_places(uint64_t *inside, uint64_t *outside,
			      const char *old, const char *s)
{
	size_t slen = strlen(s);
	const char *p = old;

	while (slen && (p = strstr(p, s))) {
		bool before = p > old && word_byte(p[-1]);
		bool after = word_byte(p[slen]);

		if (before || after)
			(*inside)++;
		else
			(*outside)++;
		p += slen;
	}
}

static uint32_t word_hash(const char *a, size_t alen, const char *b,
			  size_t blen)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t i;

	for (i = 0; i < alen; i++)
		h = (h ^ (unsigned char)a[i]) * 16777619u;
	h = (h ^ 0xff) * 16777619u; /* no byte of a word: the separator */
	for (i = 0; i < blen; i++)
		h = (h ^ (unsigned char)b[i]) * 16777619u;
	return h;
}

/* The slot of old -> new in w (an empty one when absent); w->cap > nr. */
static struct me_word *words_slot(struct me_words *w, uint32_t h,
				  const char *old, size_t olen, const char *new,
				  size_t nlen)
{
	size_t i = h & (w->cap - 1);

	for (;; i = (i + 1) & (w->cap - 1)) {
		struct me_word *e = &w->v[i];

		if (!e->old)
			return e;
		if (e->hash == h && !strncmp(e->old, old, olen) &&
		    !e->old[olen] && !strncmp(e->new, new, nlen) &&
		    !e->new[nlen])
			return e;
	}
}

static void words_add(struct me_words *w, const char *old, size_t olen,
		      const char *new, size_t nlen)
{
	uint32_t h = word_hash(old, olen, new, nlen);
	struct me_word *e;
	size_t i;

	if (2 * (w->nr + 1) > w->cap) {
		struct me_words g = { 0 };

		g.cap = w->cap ? 2 * w->cap : 64;
		g.v = pr_calloc(g.cap, sizeof(*g.v));
		for (i = 0; i < w->cap; i++) {
			struct me_word *x = &w->v[i];

			if (x->old)
				*words_slot(&g, x->hash, x->old, strlen(x->old),
					    x->new, strlen(x->new)) = *x;
		}
		g.nr = w->nr;
		free(w->v);
		*w = g;
	}
	e = words_slot(w, h, old, olen, new, nlen);
	if (!e->old) {
		if (w->nr == ME_MAX_WORDS)
			return;
		e->old = pr_malloc(olen + nlen + 2);
		memcpy(e->old, old, olen);
		e->old[olen] = '\0';
		e->new = e->old + olen + 1;
		memcpy(e->new, new, nlen);
		e->new[nlen] = '\0';
		e->hash = h;
		w->nr++;
	}
	e->count++;
}

static bool all_word_bytes(const char *s)
{
	for (; *s; s++)
		if (!word_byte(*s))
			return false;
	return true;
}

/*
 * The whole words that sub's substitution changed in old, counted: for a
 * typo sweep 'ro' -> 'o' these are "error" -> "eror" and the like.  Only
 * when s and t are made of word bytes (t may be empty), so that a word of
 * old is a word of new; the scan is subst_matches' own, which holds for
 * this pair.
 */
static void record_words(struct me_sub *sub, const char *old, const char *new)
{
	size_t slen = strlen(sub->s), tlen = strlen(sub->t);
	size_t olen = strlen(old), nlen = strlen(new);
	size_t i = 0, j = 0, counted = 0;

	if (!slen || !all_word_bytes(sub->s) || !all_word_bytes(sub->t))
		return;
	while (i < olen) {
		if (i + slen > olen || memcmp(old + i, sub->s, slen)) {
			i++;
			j++;
			continue;
		}
		/* a second occurrence in one word is that word's again */
		if (i >= counted) {
			size_t ws = i, we = i + slen, nws, nwe = j + tlen;

			while (ws && word_byte(old[ws - 1]))
				ws--;
			while (we < olen && word_byte(old[we]))
				we++;
			/* old[ws..i) was copied unchanged to new */
			nws = j - (i - ws);
			while (nwe < nlen && word_byte(new[nwe]))
				nwe++;
			words_add(&sub->words, old + ws, we - ws, new + nws,
				  nwe - nws);
			counted = we;
		}
		i += slen;
		j += tlen;
	}
}

static void words_release(struct me_words *w)
{
	size_t i;

	for (i = 0; i < w->cap; i++)
		free(w->v[i].old);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

static bool word_before(const struct me_word *a, const struct me_word *b)
{
	int c;

	if (a->count != b->count)
		return a->count > b->count;
	c = strcmp(a->old, b->old);
	return c ? c < 0 : strcmp(a->new, b->new) < 0;
}

/*
 * ": 'error' -> 'eror' 1,204 times, 'errors' -> 'erors' 310 times": the
 * words sub changed most often, the substitution itself left out (a whole
 * word replaced says nothing more).
 */
static void add_top_words(struct pr_buf *m, const struct me_sub *sub)
{
	const struct me_word *top[ME_TOP_WORDS];
	size_t ntop = 0, i, k;

	for (i = 0; i < sub->words.cap; i++) {
		const struct me_word *e = &sub->words.v[i];

		if (!e->old ||
		    (!strcmp(e->old, sub->s) && !strcmp(e->new, sub->t)))
			continue;
		/* insertion into the short sorted list */
		for (k = ntop; k > 0 && word_before(e, top[k - 1]); k--)
			if (k < ME_TOP_WORDS)
				top[k] = top[k - 1];
		if (k < ME_TOP_WORDS) {
			top[k] = e;
			if (ntop < ME_TOP_WORDS)
				ntop++;
		}
	}
	for (i = 0; i < ntop; i++) {
		pr_buf_addf(m, "%s'%s' -> '%s' ", i ? ", " : ": ", top[i]->old,
			    top[i]->new);
		pr_buf_add_count(m, top[i]->count);
		pr_buf_adds(m, top[i]->count == 1 ? " time" : " times");
	}
}

static void record_pair(struct me_state *st, const char *old, const char *new)
{
	char *s = NULL, *t = NULL;
	size_t i;

	st->pairs++;
	if (only_whitespace_differs(old, new)) {
		st->whitespace++;
		return;
	}
	if (!pr_mass_edit_substitution(&s, &t, old, new))
		return;
	for (i = 0; i < st->nr; i++)
		if (!strcmp(st->subs[i].s, s) && !strcmp(st->subs[i].t, t))
			break;
	if (i == st->nr) {
		if (st->nr == ME_MAX_SUBS)
			goto done;
		st->subs[i].s = s;
		st->subs[i].t = t;
		s = t = NULL;
		st->nr++;
	}
	st->subs[i].lines++;
	if (st->subs[i].last_file != st->file) {
		st->subs[i].last_file = st->file;
		st->subs[i].files++;
	}
	count_word_places(&st->subs[i].inside, &st->subs[i].outside, old,
			  st->subs[i].s);
	record_words(&st->subs[i], old, new);
done:
	free(s);
	free(t);
}

/* Pair the lines of one -/+ block: n removed lines, then the added ones. */
static void flush_block(struct me_state *st, const char **minus, size_t nm,
			const char **plus, size_t np)
{
	size_t i;

	for (i = 0; i < nm && i < np; i++) {
		size_t ol = strcspn(minus[i], "\n");
		size_t nl = strcspn(plus[i], "\n");
		char *o = pr_strndup(minus[i] + 1, ol - 1);
		char *n = pr_strndup(plus[i] + 1, nl - 1);

		record_pair(st, o, n);
		free(o);
		free(n);
	}
}

/* Pair the lines of each -/+ block: its removed lines, then its added ones. */
static void scan_diff(struct me_state *st, const char *diff)
{
	const char **minus = NULL, **plus = NULL;
	size_t nm = 0, am = 0, np = 0, ap = 0;
	const char *l = diff;
	bool in_hunk = false;

	while (l && *l) {
		const char *eol = strchr(l, '\n');

		if (in_hunk && *l == '-' && np) {
			/* A '-' after '+' lines starts the next block. */
			flush_block(st, minus, nm, plus, np);
			nm = np = 0;
		}
		if (in_hunk && *l == '-') {
			PR_ALLOC_GROW(minus, nm + 1, am);
			minus[nm++] = l;
		} else if (in_hunk && *l == '+') {
			PR_ALLOC_GROW(plus, np + 1, ap);
			plus[np++] = l;
		} else {
			/* Flush before a new file is counted. */
			flush_block(st, minus, nm, plus, np);
			nm = np = 0;
			if (!strncmp(l, "diff --git ", 11)) {
				st->file++;
				in_hunk = false;
			} else if (!strncmp(l, "@@ ", 3)) {
				in_hunk = true;
			} else if (*l != ' ' && *l != '\\' && *l != '\n') {
				in_hunk = false;
			}
		}
		l = eol ? eol + 1 : NULL;
	}
	flush_block(st, minus, nm, plus, np);
	free(minus);
	free(plus);
}

struct me_files {
	char **v;
	size_t nr, alloc;
};

static void files_add(struct me_files *f, const char *p, size_t len)
{
	if (!len)
		return;
	PR_ALLOC_GROW(f->v, f->nr + 1, f->alloc);
	f->v[f->nr++] = pr_strndup(p, len);
}

/* Both paths of "diff --git a/X b/Y" (without its newline). */
static void diff_git_paths(struct me_files *f, const char *l, size_t len)
{
	const char *r = l + 11, *end = l + len, *b = NULL, *q;
	size_t half;

	if (end - r < 5 || strncmp(r, "a/", 2))
		return;
	/* "a/X b/X": the even split first, as paths may hold " b/" */
	half = (size_t)(end - r - 5) / 2;
	if ((size_t)(end - r) == 2 * half + 5 && r[2 + half] == ' ' &&
	    !strncmp(r + 3 + half, "b/", 2) &&
	    !memcmp(r + 2, r + 5 + half, half)) {
		files_add(f, r + 2, half);
		return;
	}
	for (q = r; q + 3 <= end; q++)
		if (!strncmp(q, " b/", 3))
			b = q;
	if (!b)
		return;
	files_add(f, r + 2, (size_t)(b - r - 2));
	files_add(f, b + 3, (size_t)(end - b - 3));
}

/* A rename in a --stat line: "old => new". */
static bool has_arrow(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i + 4 <= len; i++)
		if (!memcmp(s + i, " => ", 4))
			return true;
	return false;
}

/* The paths of a --stat text; shortened ("...") and renames left out. */
static void stat_paths(struct me_files *f, const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		const char *end = eol ? eol : p + strlen(p);
		const char *bar = memchr(p, '|', (size_t)(end - p));
		const char *a = p, *z = bar;

		if (bar) {
			while (a < z && *a == ' ')
				a++;
			while (z > a && z[-1] == ' ')
				z--;
			if (!(z - a >= 3 && !strncmp(a, "...", 3)) &&
			    !memchr(a, '{', (size_t)(z - a)) &&
			    !has_arrow(a, (size_t)(z - a)))
				files_add(f, a, (size_t)(z - a));
		}
		p = eol ? eol + 1 : NULL;
	}
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The touched files of v, sorted, each once. */
static void touched_files(struct me_files *f, const struct pr_version *v)
{
	size_t i, j = 0;

	for (i = 0; i < v->nr; i++) {
		const struct pr_patch *p = v->patches[i];
		const char *l = p->diff;

		while (l && *l) {
			const char *eol = strchr(l, '\n');
			size_t len = eol ? (size_t)(eol - l) : strlen(l);

			if (!strncmp(l, "diff --git ", 11))
				diff_git_paths(f, l, len);
			l = eol ? eol + 1 : NULL;
		}
		if (p->diffstat)
			stat_paths(f, p->diffstat);
	}
	if (!f->nr)
		return;
	qsort(f->v, f->nr, sizeof(*f->v), cmp_path);
	for (i = 1; i < f->nr; i++) {
		if (!strcmp(f->v[i], f->v[j]))
			free(f->v[i]);
		else
			f->v[++j] = f->v[i];
	}
	f->nr = j + 1;
}

/*
 * "files of 412 MAINTAINERS sections (over max-sections = 100): A, B, C, D,
 * E and 407 more" (or only the names, when five or fewer) into m when over the limit; returns whether it is.
 */
static bool sections_finding(struct pr_buf *m,
			     const struct pr_mass_edit_opts *o,
			     const struct pr_version *v)
{
	struct me_files f = { 0 };
	struct pr_maint_result res = { 0 };
	size_t i, counted = 0, named = 0;
	bool over = false;

	if (!o->maint || !o->max_sections)
		return false;
	touched_files(&f, v);
	pr_maint_file_sections(&res, o->maint, (const char *const *)f.v, f.nr);
	for (i = 0; i < res.nsections; i++)
		counted += !!strcmp(res.sections[i], ME_REST);
	if (counted <= o->max_sections)
		goto done;
	over = true;
	pr_buf_adds(m, "files of ");
	pr_buf_add_count(m, counted);
	pr_buf_addf(m, " MAINTAINERS sections (over max-sections = %llu): ",
		    (unsigned long long)o->max_sections);
	for (i = 0; i < res.nsections && named < ME_NAMED_SECTIONS; i++) {
		if (!strcmp(res.sections[i], ME_REST))
			continue;
		pr_buf_addf(m, "%s%s", named ? ", " : "", res.sections[i]);
		named++;
	}
	if (counted > named) {
		pr_buf_adds(m, " and ");
		pr_buf_add_count(m, counted - named);
		pr_buf_adds(m, " more");
	}
done:
	for (i = 0; i < f.nr; i++)
		free(f.v[i]);
	free(f.v);
	pr_maint_result_release(&res);
	return over;
}

static bool allowed(const struct pr_mass_edit_opts *o, const char *email)
{
	const char *const *a;

	for (a = o->allow_submitters; a && *a && email; a++)
		if (!strcasecmp(*a, email))
			return true;
	return false;
}

int pr_mass_edit_check(struct pr_report *r, const char *step,
		       const struct pr_mass_edit_opts *o,
		       const struct pr_version *v)
{
	struct me_state *st = pr_calloc(1, sizeof(*st));
	struct pr_size_figures f;
	struct pr_buf m = PR_BUF_INIT, sm = PR_BUF_INIT;
	size_t top[ME_TOP], ntop = 0, i, j;
	uint64_t explained = 0;
	const char *email = NULL;
	bool found = false, many;

	pr_size_figures_count(&f, v);
	for (i = 0; i < v->nr; i++)
		if (v->patches[i]->diff)
			scan_diff(st, v->patches[i]->diff);
	if (v->nr)
		email = v->patches[0]->author.email;

	/* The few substitutions explaining the most lines. */
	for (j = 0; j < ME_TOP; j++) {
		size_t best = st->nr;

		for (i = 0; i < st->nr; i++) {
			size_t k;
			bool taken = false;

			for (k = 0; k < ntop; k++)
				taken |= top[k] == i;
			if (!taken && st->subs[i].lines > 1 &&
			    (best == st->nr ||
			     st->subs[i].lines > st->subs[best].lines))
				best = i;
		}
		if (best == st->nr)
			break;
		top[ntop++] = best;
		explained += st->subs[best].lines;
	}

	if (st->pairs >= o->min_lines && f.files >= o->min_files &&
	    explained >= o->min_share * (double)st->pairs) {
		for (i = 0; i < ntop; i++) {
			const struct me_sub *sub = &st->subs[top[i]];

			if (i)
				pr_buf_adds(&m, "; ");
			pr_buf_addf(&m, "'%s' -> '%s'%s on ", sub->s, sub->t,
				    sub->inside > sub->outside ? " inside words"
							       : "");
			pr_buf_add_count(&m, sub->lines);
			pr_buf_adds(&m, " of ");
			pr_buf_add_count(&m, st->pairs);
			pr_buf_adds(&m, " changed lines, ");
			pr_buf_add_count(&m, sub->files);
			pr_buf_adds(&m, sub->files == 1 ? " file" : " files");
			add_top_words(&m, sub);
		}
		found = true;
	} else if (st->pairs >= o->min_lines && f.files >= o->min_files &&
		   st->whitespace >= o->min_share * (double)st->pairs) {
		pr_buf_adds(&m, "whitespace-only changes on ");
		pr_buf_add_count(&m, st->whitespace);
		pr_buf_adds(&m, " of ");
		pr_buf_add_count(&m, st->pairs);
		pr_buf_adds(&m, " changed lines");
		found = true;
	}

	many = sections_finding(&sm, o, v);
	if (many && allowed(o, email))
		pr_report_add(r, step, "allowed", PR_VERDICT_PASS, -1, NULL,
			      "change across subsystems by '%s', allowed by "
			      "allow-submitters: %s",
			      email, sm.ptr);
	else if (many)
		pr_report_add(r, step, "sections", o->severity, -1, NULL,
			      "the series touches %s; no one maintainer can "
			      "take it: split it per subsystem",
			      sm.ptr);
	if (found && allowed(o, email)) {
		pr_report_add(r, step, "allowed", PR_VERDICT_PASS, -1, NULL,
			      "mechanical edit by '%s', allowed by "
			      "allow-submitters: %s",
			      email, m.ptr);
	} else if (found) {
		pr_buf_adds(&m, " (");
		pr_buf_add_count(&m, f.files);
		pr_buf_adds(&m, " files in all); a mechanical edit is not "
				"reviewable by mail: send the script (e.g. a "
				"Coccinelle patch) or split it per subsystem");
		pr_report_add(r, step,
			      st->whitespace * 2 > st->pairs ? "whitespace"
							     : "substitution",
			      o->severity, -1, NULL, "%s", m.ptr);
	} else if (!many) {
		pr_report_add(r, step, "", PR_VERDICT_PASS, -1, NULL,
			      "no mechanical mass edit found");
	}
	for (i = 0; i < st->nr; i++) {
		free(st->subs[i].s);
		free(st->subs[i].t);
		words_release(&st->subs[i].words);
	}
	free(st);
	pr_buf_release(&m);
	pr_buf_release(&sm);
	return 0;
}

static const char *const me_severities[] = { "warn", "fail", NULL };

static const struct pr_option mass_edit_options[] = {
	{ "min-lines", PR_OPT_INT, "50",
	  "changed line pairs needed before a finding",
	  offsetof(struct pr_mass_edit_ctx, min_lines), false, NULL },
	{ "min-files", PR_OPT_INT, "20",
	  "files (diff or diffstat) needed before a finding",
	  offsetof(struct pr_mass_edit_ctx, min_files), false, NULL },
	{ "min-share", PR_OPT_INT, "50",
	  "percent of changed lines a few substitutions must explain",
	  offsetof(struct pr_mass_edit_ctx, min_share), false, NULL },
	{ "severity", PR_OPT_ENUM, "fail", "verdict of a finding",
	  offsetof(struct pr_mass_edit_ctx, severity), false, me_severities },
	{ "allow-submitters", PR_OPT_LIST, NULL,
	  "author addresses allowed to send tree-wide edits",
	  offsetof(struct pr_mass_edit_ctx, allow_submitters), false, NULL },
	{ "max-sections", PR_OPT_INT, "100",
	  "most MAINTAINERS sections a series' files may fall in, THE REST "
	  "not counted (0: off; needs kernel-tree or maintainers)",
	  offsetof(struct pr_mass_edit_ctx, max_sections), false, NULL },
	{ "kernel-tree", PR_OPT_PATH, NULL,
	  "kernel tree top, for max-sections (as the maintainers step's)",
	  offsetof(struct pr_mass_edit_ctx, kernel_tree), false, NULL },
	{ "maintainers", PR_OPT_PATH, NULL,
	  "a MAINTAINERS file, for max-sections (as the maintainers step's)",
	  offsetof(struct pr_mass_edit_ctx, maintainers), false, NULL },
	PR_OPTIONS_END,
};

/*
 * The instance's MAINTAINERS (NULL when neither path is set), loaded on
 * first use and again only when it or .mailmap moves.
 */
static int instance_maint(const struct pr_maint **out, struct pr_instance *inst)
{
	const struct pr_mass_edit_ctx *c = inst->ctx;
	struct pr_maint_cache *cache = inst->state;
	int err;

	*out = NULL;
	if (!c->kernel_tree && !c->maintainers)
		return 0;
	if (!cache) {
		if ((err = pr_maint_cache_new(&cache, c->kernel_tree,
					      c->maintainers)))
			return pr_error_wrap(err, "check '%s'", inst->name);
		inst->state = cache;
	}
	if ((err = pr_maint_cache_get(out, cache, inst->prefix)))
		return pr_error_wrap(err, "check '%s'", inst->name);
	return 0;
}

static int mass_edit_run(struct pr_instance *inst, struct pr_series *s,
			 struct pr_version *v, struct pr_report *report)
{
	const struct pr_mass_edit_ctx *c = inst->ctx;
	struct pr_mass_edit_opts o;
	const char **allow = NULL;
	size_t i;
	int err;

	PR_UNUSED(s);
	pr_mass_edit_defaults(&o);
	o.max_sections = c->max_sections > 0 ? (uint64_t)c->max_sections : 0;
	if (o.max_sections && (err = instance_maint(&o.maint, inst)))
		return err;
	/* The loader fills defaults; 0 still means "not set" here. */
	if (c->min_lines > 0)
		o.min_lines = (uint64_t)c->min_lines;
	if (c->min_files > 0)
		o.min_files = (uint64_t)c->min_files;
	if (c->min_share > 0)
		o.min_share = (double)c->min_share / 100.0;
	if (c->severity && !strcmp(c->severity, "warn"))
		o.severity = PR_VERDICT_WARN;
	allow = pr_calloc(c->allow_submitters.nr + 1, sizeof(*allow));
	for (i = 0; i < c->allow_submitters.nr; i++)
		allow[i] = c->allow_submitters.items[i];
	o.allow_submitters = allow;
	err = pr_mass_edit_check(report, inst->name, &o, v);
	free(allow);
	return err;
}

static int mass_edit_open(struct pr_instance *inst)
{
	const struct pr_mass_edit_ctx *c = inst->ctx;
	const struct pr_maint *m;

	return c->max_sections > 0 ? instance_maint(&m, inst) : 0;
}

static void mass_edit_close(struct pr_instance *inst)
{
	pr_maint_cache_free(inst->state);
	inst->state = NULL;
}

const struct pr_plugin_type pr_plugin_mass_edit = {
	.abi = PR_ABI_VERSION,
	.name = "mass-edit",
	.summary = "fail on mechanical mass edits and whitespace churn",
	.kind = PR_PLUGIN_CHECK,
	.options = mass_edit_options,
	.ctx_size = sizeof(struct pr_mass_edit_ctx),
	.open = mass_edit_open,
	.run = mass_edit_run,
	.close = mass_edit_close,
};
