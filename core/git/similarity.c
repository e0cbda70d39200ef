#include "base/pr.h"
#include "git/similarity.h"

/*
 * Written from git 2.39's diffcore-break.c, diffcore-rename.c and
 * diffcore-delta.c (read to learn the rules, not copied): where git
 * computes in double (its MAX_SCORE is 60000.0), so does this file, so
 * that every truncation falls where git's does.
 */

#define MAX_SCORE 60000.0
#define SPAN_MAX 64
#define SPAN_HASHBASE 107927
#define MIN_BREAK_SIZE 400 /* smaller pairs are never broken */
#define CANDIDATES 4 /* best sources kept per destination */
#define EXACT_TRIES 100 /* identical sources looked at per destination */

#define TYPE(m) ((m)&0170000)
#define IS_REG(m) (TYPE(m) == 0100000)
#define IS_DIR(m) (TYPE(m) == 0040000)
#define IS_GITLINK(m) (TYPE(m) == 0160000)

struct pr_sim_span {
	uint32_t hash;
	size_t bytes;
};

static bool valid(const struct pr_sim_file *f)
{
	return f->mode != 0;
}

/* diff_unmodified_pair: both sides the same path, mode and blob */
static bool unmodified(const struct pr_sim_pair *p)
{
	return valid(p->one) && valid(p->two) && p->one->mode == p->two->mode &&
	       !strcmp(p->one->path, p->two->path) &&
	       !memcmp(p->one->id, p->two->id, 20);
}

bool pr_sim_is_binary(const char *data, size_t len)
{
	return memchr(data, 0,
		      len < PR_SIM_BINARY_PROBE ? len : PR_SIM_BINARY_PROBE);
}

int pr_sim_percent(int score)
{
	return (int)(score * 100 / MAX_SCORE);
}

int pr_sim_parse_score(const char **s)
{
	const char *p = *s;
	unsigned long num = 0, scale = 1;
	bool dot = false;

	for (;; p++) {
		if (*p == '.' && !dot) {
			scale = 1;
			dot = true;
		} else if (*p == '%') {
			scale = dot ? scale * 100 : 100;
			p++;
			break;
		} else if (*p >= '0' && *p <= '9') {
			/* digits past the fifth are read and dropped */
			if (scale < 100000) {
				scale *= 10;
				num = num * 10 + (unsigned long)(*p - '0');
			}
		} else {
			break;
		}
	}
	*s = p;
	return num >= scale ? (int)MAX_SCORE : (int)(MAX_SCORE * num / scale);
}

/* The score after an option's name: "" or "=<n>" (long), "<n>" (short). */
static int option_score(int *out, const char *arg, const char *rest,
			bool long_form)
{
	if (long_form && *rest == '=')
		rest++;
	else if (long_form && *rest)
		return 0;
	*out = pr_sim_parse_score(&rest);
	if (*rest)
		return pr_error(PR_EINVAL, "invalid argument to '%s'", arg);
	return 1;
}

static int break_option(struct pr_sim_opts *o, const char *arg,
			const char *rest, bool long_form)
{
	int one, two = 0;

	if (long_form && *rest == '=')
		rest++;
	else if (long_form && *rest)
		return 0;
	one = pr_sim_parse_score(&rest);
	if (*rest == '/') {
		rest++;
		two = pr_sim_parse_score(&rest);
	}
	if (*rest)
		return pr_error(PR_EINVAL, "'%s' expects <n>/<m> form", arg);
	/* unsigned: a merge score up to 60000 does not fit a signed shift */
	o->break_opt = (int)((unsigned)one | (unsigned)two << 16);
	return 1;
}

int pr_sim_option(struct pr_sim_opts *o, const char *arg)
{
	bool lng = !strncmp(arg, "--", 2);
	const char *rest = NULL;
	char *end = NULL;
	long n;
	int ret;

	if (!strcmp(arg, "--no-renames")) {
		o->detect = PR_SIM_NO_RENAMES;
		return 1;
	}
	if (!strcmp(arg, "--find-copies-harder")) {
		o->copies_harder = true;
		return 1;
	}
	if (!strncmp(arg, "-B", 2) || !strncmp(arg, "--break-rewrites", 16))
		return break_option(o, arg, arg + (lng ? 16 : 2), lng);
	if (!strncmp(arg, "-M", 2) || !strncmp(arg, "--find-renames", 14)) {
		ret = option_score(&o->rename_score, arg, arg + (lng ? 14 : 2),
				   lng);
		if (ret == 1)
			o->detect = PR_SIM_RENAMES;
		return ret;
	}
	if (!strncmp(arg, "-C", 2) || !strncmp(arg, "--find-copies", 13)) {
		ret = option_score(&o->rename_score, arg, arg + (lng ? 13 : 2),
				   lng);
		if (ret != 1)
			return ret;
		/* -C -C is --find-copies-harder */
		if (o->detect == PR_SIM_COPIES)
			o->copies_harder = true;
		else if (o->detect == PR_SIM_FROM_CONFIG)
			o->copy_on_config = true;
		o->detect = PR_SIM_COPIES;
		return 1;
	}
	if (!strncmp(arg, "-l", 2)) {
		rest = arg + 2;
		n = strtol(rest, &end, 10);
		if (!*rest || *end || n < INT32_MIN || n > INT32_MAX)
			return pr_error(PR_EINVAL, "'%s' expects a number",
					arg);
		o->rename_limit = (int)n;
		return 1;
	}
	return 0;
}

/* ---- the queue ---- */

static struct pr_sim_file *new_file(struct pr_sim_queue *q, const char *path,
				    unsigned mode, const unsigned char *id)
{
	struct pr_sim_file *f = pr_calloc(1, sizeof(*f));

	f->path = pr_strdup(path);
	f->mode = mode;
	if (mode && id)
		memcpy(f->id, id, 20);
	PR_ALLOC_GROW(q->files, q->nr_files + 1, q->alloc_files);
	q->files[q->nr_files++] = f;
	return f;
}

static struct pr_sim_pair *push(struct pr_sim_pair **v, size_t *nr,
				size_t *alloc, struct pr_sim_file *one,
				struct pr_sim_file *two)
{
	struct pr_sim_pair *p;

	PR_ALLOC_GROW(*v, *nr + 1, *alloc);
	p = &(*v)[(*nr)++];
	memset(p, 0, sizeof(*p));
	p->one = one;
	p->two = two;
	return p;
}

void pr_sim_queue_add(struct pr_sim_queue *q, const char *path,
		      unsigned old_mode, const unsigned char old_id[20],
		      unsigned new_mode, const unsigned char new_id[20])
{
	struct pr_sim_file *one = new_file(q, path, old_mode, old_id);
	struct pr_sim_file *two = new_file(q, path, new_mode, new_id);

	push(&q->pairs, &q->nr, &q->alloc, one, two);
}

void pr_sim_queue_release(struct pr_sim_queue *q)
{
	size_t i;

	for (i = 0; i < q->nr_files; i++) {
		free(q->files[i]->path);
		free(q->files[i]->spans);
		free(q->files[i]);
	}
	free(q->files);
	free(q->pairs);
	memset(q, 0, sizeof(*q));
}

/* Replace the queue's pairs by out (nr of them). */
static void set_pairs(struct pr_sim_queue *q, struct pr_sim_pair *out,
		      size_t nr, size_t alloc)
{
	free(q->pairs);
	q->pairs = out;
	q->nr = nr;
	q->alloc = alloc;
}

/* ---- diffcore-delta: the span counts ---- */

static int span_cmp(const void *a, const void *b)
{
	const struct pr_sim_span *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static void make_spans(struct pr_sim_file *f, const unsigned char *buf,
		       size_t len)
{
	uint32_t a1 = 0, a2 = 0;
	size_t i, n = 0, alloc = 0, k;

	for (i = 0; i < len; i++) {
		uint32_t c = buf[i], old = a1;

		/* a text file's CR before LF is not counted */
		if (!f->binary && c == '\r' && i + 1 < len &&
		    buf[i + 1] == '\n')
			continue;
		a1 = (a1 << 7) ^ (a2 >> 25);
		a2 = (a2 << 7) ^ (old >> 25);
		a1 += c;
		if (++n < SPAN_MAX && c != '\n')
			continue;
		PR_ALLOC_GROW(f->spans, f->nr_spans + 1, alloc);
		f->spans[f->nr_spans].hash = (a1 + a2 * 0x61) % SPAN_HASHBASE;
		f->spans[f->nr_spans++].bytes = n;
		n = 0;
		a1 = a2 = 0;
	}
	/* as in git, a short last span without '\n' is not counted */
	if (!f->nr_spans)
		return;
	qsort(f->spans, f->nr_spans, sizeof(*f->spans), span_cmp);
	for (i = 1, k = 0; i < f->nr_spans; i++) {
		if (f->spans[i].hash == f->spans[k].hash)
			f->spans[k].bytes += f->spans[i].bytes;
		else
			f->spans[++k] = f->spans[i];
	}
	f->nr_spans = k + 1;
}

static void set_content(struct pr_sim_file *f, const char *data, size_t len)
{
	f->size = len;
	f->have_size = true;
	f->binary = pr_sim_is_binary(data, len);
	make_spans(f, (const unsigned char *)data, len);
	f->have_spans = true;
}

/* diffcore_count_changes: bytes of dst copied from src, and added */
static void count_changes(const struct pr_sim_file *src,
			  const struct pr_sim_file *dst, size_t *copied,
			  size_t *added)
{
	size_t i = 0, j = 0, sc = 0, la = 0;

	for (; i < src->nr_spans; i++) {
		const struct pr_sim_span *s = &src->spans[i];
		size_t d = 0;

		while (j < dst->nr_spans && dst->spans[j].hash < s->hash)
			la += dst->spans[j++].bytes;
		if (j < dst->nr_spans && dst->spans[j].hash == s->hash)
			d = dst->spans[j++].bytes;
		if (s->bytes < d) {
			la += d - s->bytes;
			sc += s->bytes;
		} else {
			sc += d;
		}
	}
	for (; j < dst->nr_spans; j++)
		la += dst->spans[j].bytes;
	*copied = sc;
	*added = la;
}

static int need_size(struct pr_sim_file *f, const struct pr_sim_reader *r)
{
	int err;

	if (f->have_size)
		return 0;
	err = r->size(&f->size, f, r->payload);
	f->have_size = !err;
	return err;
}

static int need_spans(struct pr_sim_file *f, const struct pr_sim_reader *r)
{
	const char *data = NULL;
	void *handle = NULL;
	size_t len = 0;
	int err;

	if (f->have_spans)
		return 0;
	err = r->read(&data, &len, &handle, f, r->payload);
	if (err)
		return err;
	set_content(f, data, len);
	r->release(handle, r->payload);
	return 0;
}

/* estimate_similarity on files whose sizes are known */
static bool sizes_too_far(size_t a, size_t b, int minimum_score)
{
	size_t max = a > b ? a : b, delta = max - (a < b ? a : b);

	return (double)max * (MAX_SCORE - minimum_score) <
	       (double)delta * MAX_SCORE;
}

static int score_spans(const struct pr_sim_file *src,
		       const struct pr_sim_file *dst)
{
	size_t copied, added,
		max = src->size > dst->size ? src->size : dst->size;

	count_changes(src, dst, &copied, &added);
	if (!dst->size)
		return 0;
	return (int)((double)copied * MAX_SCORE / (double)max);
}

static int estimate(int *score, struct pr_sim_file *src,
		    struct pr_sim_file *dst, int minimum_score,
		    const struct pr_sim_reader *r)
{
	int err;

	*score = 0;
	/* only regular files pair inexactly */
	if (!IS_REG(src->mode) || !IS_REG(dst->mode))
		return 0;
	err = need_size(src, r);
	if (!err)
		err = need_size(dst, r);
	if (err || sizes_too_far(src->size, dst->size, minimum_score))
		return err;
	err = need_spans(src, r);
	if (!err)
		err = need_spans(dst, r);
	if (!err)
		*score = score_spans(src, dst);
	return err;
}

int pr_sim_score(const char *src, size_t src_len, const char *dst,
		 size_t dst_len, int minimum_score)
{
	struct pr_sim_file a = { 0 }, b = { 0 };
	int score = 0;

	if (!sizes_too_far(src_len, dst_len, minimum_score)) {
		set_content(&a, src, src_len);
		set_content(&b, dst, dst_len);
		score = score_spans(&a, &b);
	}
	free(a.spans);
	free(b.spans);
	return score;
}

/* ---- diffcore-break ---- */

/* should_break: *brk when src -> dst is a rewrite; *merge its deletion */
static int should_break(bool *brk, int *merge, struct pr_sim_file *src,
			struct pr_sim_file *dst, int break_score,
			const struct pr_sim_reader *r)
{
	size_t max, copied, added, removed, delta;
	int err;

	*brk = false;
	*merge = 0;
	if (IS_REG(src->mode) != IS_REG(dst->mode)) {
		*merge = (int)MAX_SCORE;
		*brk = true;
		return 0;
	}
	if (!memcmp(src->id, dst->id, 20))
		return 0;
	err = need_spans(src, r);
	if (!err)
		err = need_spans(dst, r);
	if (err)
		return err;
	max = src->size > dst->size ? src->size : dst->size;
	if (max < MIN_BREAK_SIZE || !src->size)
		return 0;
	count_changes(src, dst, &copied, &added);
	if (src->size < copied)
		copied = src->size;
	if (dst->size < added + copied)
		added = copied < dst->size ? dst->size - copied : 0;
	removed = src->size - copied;
	*merge = (int)((double)removed * MAX_SCORE / (double)src->size);
	if (*merge > break_score) {
		*brk = true;
		return 0;
	}
	delta = removed + added;
	if ((double)delta * MAX_SCORE / (double)max < break_score)
		return 0;
	/* much removed and little added is not a rewrite */
	if ((double)(src->size * (size_t)break_score) <
		    (double)removed * MAX_SCORE &&
	    added * 20 < removed && added * 20 < copied)
		return 0;
	*brk = true;
	return 0;
}

static bool is_blob(unsigned mode)
{
	return !IS_DIR(mode) && !IS_GITLINK(mode);
}

static int do_break(struct pr_sim_queue *q, int break_opt,
		    const struct pr_sim_reader *r)
{
	int merge_score = (int)(((unsigned)break_opt >> 16) & 0xffff);
	int break_score = break_opt & 0xffff;
	struct pr_sim_pair *out = NULL, *np;
	size_t nr = 0, alloc = 0, i;
	int err = 0;

	if (!break_score)
		break_score = PR_SIM_DEFAULT_SCORE;
	if (!merge_score)
		merge_score = PR_SIM_DEFAULT_MERGE;
	for (i = 0; i < q->nr && !err; i++) {
		struct pr_sim_pair p = q->pairs[i];
		bool brk = false;
		int score = 0;

		if (valid(p.one) && valid(p.two) && is_blob(p.one->mode) &&
		    is_blob(p.two->mode) && !strcmp(p.one->path, p.two->path))
			err = should_break(&brk, &score, p.one, p.two,
					   break_score, r);
		if (!brk) {
			*push(&out, &nr, &alloc, NULL, NULL) = p;
			continue;
		}
		/* a small deletion should be merged back if nothing pairs */
		if (score < merge_score)
			score = 0;
		np = push(&out, &nr, &alloc, p.one,
			  new_file(q, p.one->path, 0, NULL));
		np->score = score;
		np->broken = true;
		np = push(&out, &nr, &alloc, new_file(q, p.two->path, 0, NULL),
			  p.two);
		np->score = score;
		np->broken = true;
	}
	set_pairs(q, out, nr, alloc);
	return err;
}

/* diffcore_merge_broken: both halves of a broken pair left: one again */
static void merge_broken(struct pr_sim_queue *q)
{
	struct pr_sim_pair *out = NULL;
	bool *gone = pr_calloc(q->nr ? q->nr : 1, sizeof(*gone));
	size_t nr = 0, alloc = 0, i, j;

	for (i = 0; i < q->nr; i++) {
		struct pr_sim_pair *p = &q->pairs[i], *pp = NULL, *np;

		if (gone[i])
			continue;
		if (p->broken && !strcmp(p->one->path, p->two->path))
			for (j = i + 1; j < q->nr && !pp; j++)
				if (!gone[j] && q->pairs[j].broken &&
				    !strcmp(q->pairs[j].one->path,
					    q->pairs[j].two->path) &&
				    !strcmp(p->one->path,
					    q->pairs[j].two->path))
					pp = &q->pairs[j];
		if (!pp) {
			*push(&out, &nr, &alloc, NULL, NULL) = *p;
			continue;
		}
		gone[pp - q->pairs] = true;
		if (!valid(p->one)) {
			struct pr_sim_pair *t = p;

			p = pp;
			pp = t;
		}
		/* p is the deletion half: its file stays in the tree */
		np = push(&out, &nr, &alloc, p->one, pp->two);
		np->score = q->pairs[i].score;
		p->one->rename_used++;
	}
	free(gone);
	set_pairs(q, out, nr, alloc);
}

/* ---- diffcore-rename ---- */

struct cand {
	int src, dst; /* dst -1: an empty slot */
	int score, name_score;
	size_t order; /* position before sorting: the sort is stable */
};

struct rename {
	struct pr_sim_queue *q;
	const struct pr_sim_opts *o;
	const struct pr_sim_reader *r;
	size_t *src; /* pair index of each source, in queue order */
	int *src_score; /* the pair's score when it was registered */
	size_t nr_src;
	size_t *dst; /* pair index of each destination */
	bool *is_rename;
	size_t nr_dst;
	bool broken; /* a broken deletion is a source: no culling */
	bool copies;
	int minimum;
};

static struct pr_sim_file *src_file(const struct rename *rn, size_t s)
{
	return rn->q->pairs[rn->src[s]].one;
}

static struct pr_sim_file *dst_file(const struct rename *rn, size_t d)
{
	return rn->q->pairs[rn->dst[d]].two;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* the two paths end in the same file name */
static int basename_same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la && lb) {
		char c = a[--la];

		if (c != b[--lb])
			return 0;
		if (c == '/')
			return 1;
	}
	return (!la || a[la - 1] == '/') && (!lb || b[lb - 1] == '/');
}

static void record(struct rename *rn, size_t d, size_t s, int score)
{
	struct pr_sim_pair *dp = &rn->q->pairs[rn->dst[d]];
	struct pr_sim_file *one = src_file(rn, s);

	one->rename_used++;
	dp->one = one;
	dp->renamed = true;
	/* a broken pair that found itself again keeps its break score */
	dp->score = strcmp(one->path, dp->two->path) ? score : rn->src_score[s];
	rn->is_rename[d] = true;
}

struct by_id {
	unsigned char id[20];
	size_t src;
};

static int by_id_cmp(const void *a, const void *b)
{
	const struct by_id *x = a, *y = b;
	int c = memcmp(x->id, y->id, 20);

	return c ? c : (x->src > y->src) - (x->src < y->src);
}

/* find_exact_renames: identical blobs, best source by git's preference */
static size_t exact_renames(struct rename *rn)
{
	struct by_id *order = pr_calloc(rn->nr_src + 1, sizeof(*order));
	size_t d, s, found = 0;

	for (s = 0; s < rn->nr_src; s++) {
		memcpy(order[s].id, src_file(rn, s)->id, 20);
		order[s].src = s;
	}
	qsort(order, rn->nr_src, sizeof(*order), by_id_cmp);
	for (d = 0; d < rn->nr_dst; d++) {
		struct pr_sim_file *t = dst_file(rn, d);
		size_t lo = 0, hi = rn->nr_src, k;
		int best = -1, best_score = -1, tries = EXACT_TRIES;

		/* the first source with t's id; the others follow in order */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (memcmp(order[mid].id, t->id, 20) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < rn->nr_src && !memcmp(order[k].id, t->id, 20);
		     k++) {
			struct pr_sim_file *f = src_file(rn, order[k].src);
			int score;

			if ((!IS_REG(f->mode) || !IS_REG(t->mode)) &&
			    f->mode != t->mode)
				continue;
			/* an unused source is better */
			if (f->rename_used && !rn->copies)
				continue;
			score = !f->rename_used +
				basename_same(f->path, t->path);
			if (score > best_score) {
				best = (int)order[k].src;
				best_score = score;
				if (score == 2)
					break;
			}
			if (!--tries)
				break;
		}
		if (best >= 0) {
			record(rn, d, (size_t)best, (int)MAX_SCORE);
			found++;
		}
	}
	free(order);
	return found;
}

/* remove_unneeded_paths_from_src: drop sources already renamed */
static void cull_sources(struct rename *rn)
{
	size_t s, n = 0;

	if (rn->copies || rn->broken)
		return;
	for (s = 0; s < rn->nr_src; s++) {
		if (src_file(rn, s)->rename_used)
			continue;
		rn->src[n] = rn->src[s];
		rn->src_score[n++] = rn->src_score[s];
	}
	rn->nr_src = n;
}

struct named {
	const char *base;
	size_t idx;
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Sort the file names of v (n of them); unique[i] tells whether v[i]'s
 * name is the only one of its kind.
 */
static void name_table(struct named *v, size_t n, bool *unique)
{
	size_t i, j;

	qsort(v, n, sizeof(*v), named_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(v[j].base, v[i].base); j++)
			;
		unique[i] = j == i + 1;
		for (i++; i < j; i++)
			unique[i] = false;
	}
}

static const struct named *name_find(const struct named *v, size_t n,
				     const char *base)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(v[mid].base, base) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo].base, base) ? &v[lo] : NULL;
}

/* find_basename_matches: a file name unique on both sides, tried first */
static int basename_renames(size_t *found, struct rename *rn, int minimum)
{
	struct named *srcs = pr_calloc(rn->nr_src + 1, sizeof(*srcs));
	struct named *dsts = pr_calloc(rn->nr_dst + 1, sizeof(*dsts));
	bool *src_uniq = pr_calloc(rn->nr_src + 1, sizeof(*src_uniq));
	bool *dst_uniq = pr_calloc(rn->nr_dst + 1, sizeof(*dst_uniq));
	bool *src_alone = pr_calloc(rn->nr_src + 1, sizeof(*src_alone));
	size_t s, d, nd = 0;
	int err = 0;

	for (s = 0; s < rn->nr_src; s++) {
		srcs[s].base = base_name(src_file(rn, s)->path);
		srcs[s].idx = s;
	}
	for (d = 0; d < rn->nr_dst; d++) {
		if (rn->is_rename[d])
			continue;
		dsts[nd].base = base_name(dst_file(rn, d)->path);
		dsts[nd++].idx = d;
	}
	name_table(srcs, rn->nr_src, src_uniq);
	name_table(dsts, nd, dst_uniq);
	for (s = 0; s < rn->nr_src; s++)
		src_alone[srcs[s].idx] = src_uniq[s];
	for (s = 0; s < rn->nr_src && !err; s++) {
		const struct named *hit =
			name_find(dsts, nd, base_name(src_file(rn, s)->path));
		int score;

		if (!hit || !src_alone[s] || !dst_uniq[hit - dsts] ||
		    rn->is_rename[hit->idx])
			continue;
		err = estimate(&score, src_file(rn, s), dst_file(rn, hit->idx),
			       minimum, rn->r);
		if (err || score < minimum)
			continue;
		record(rn, hit->idx, s, score);
		(*found)++;
	}
	free(srcs);
	free(dsts);
	free(src_uniq);
	free(dst_uniq);
	free(src_alone);
	return err;
}

/* git's score_compare: empty slots last, then score, then file name */
static int cand_cmp(const struct cand *a, const struct cand *b)
{
	if (a->dst < 0)
		return b->dst >= 0;
	if (b->dst < 0)
		return -1;
	if (a->score == b->score)
		return b->name_score - a->name_score;
	return b->score - a->score;
}

static int cand_sort(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = cand_cmp(x, y);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* record_if_better: o replaces the first worst of the four when better */
static void keep_if_better(struct cand *m, const struct cand *o)
{
	int i, worst = 0;

	for (i = 1; i < CANDIDATES; i++)
		if (cand_cmp(&m[i], &m[worst]) > 0)
			worst = i;
	if (cand_cmp(&m[worst], o) > 0)
		m[worst] = *o;
}

/* too_many_rename_candidates: 0 fine, 1 too many, 2 fine without -C -C */
static int over_limit(const struct rename *rn, size_t nr_dst)
{
	uint64_t limit = (uint64_t)rn->o->rename_limit, srcs = 0;
	size_t s;

	if (rn->o->rename_limit <= 0 ||
	    (uint64_t)nr_dst * rn->nr_src <= limit * limit)
		return 0;
	if (!rn->o->copies_harder)
		return 1;
	for (s = 0; s < rn->nr_src; s++)
		srcs += !unmodified(&rn->q->pairs[rn->src[s]]);
	return (uint64_t)nr_dst * srcs <= limit * limit ? 2 : 1;
}

static void take(struct rename *rn, const struct cand *mx, size_t n,
		 bool copies)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (mx[i].dst < 0 || mx[i].score < rn->minimum)
			break;
		if (rn->is_rename[mx[i].dst])
			continue;
		if (!copies && src_file(rn, (size_t)mx[i].src)->rename_used)
			continue;
		record(rn, (size_t)mx[i].dst, (size_t)mx[i].src, mx[i].score);
	}
}

/* The matrix of every destination left against every source left. */
static int inexact_renames(struct rename *rn, size_t nr_dst)
{
	struct cand *mx;
	size_t d, s, k, cnt = 0;
	bool skip_unmodified = false;
	int err = 0;

	switch (over_limit(rn, nr_dst)) {
	case 1:
		pr_log_warn("diff",
			    "inexact rename detection was skipped due to too "
			    "many files (%zu x %zu, limit %d)",
			    nr_dst, rn->nr_src, rn->o->rename_limit);
		return 0;
	case 2:
		skip_unmodified = true;
		break;
	}
	mx = pr_calloc(nr_dst * CANDIDATES, sizeof(*mx));
	for (d = 0; d < rn->nr_dst && !err; d++) {
		struct cand *m = &mx[cnt * CANDIDATES];

		if (rn->is_rename[d])
			continue;
		for (k = 0; k < CANDIDATES; k++)
			m[k].dst = -1;
		for (s = 0; s < rn->nr_src && !err; s++) {
			struct cand c = { (int)s, (int)d, 0, 0, 0 };

			if (skip_unmodified &&
			    unmodified(&rn->q->pairs[rn->src[s]]))
				continue;
			err = estimate(&c.score, src_file(rn, s),
				       dst_file(rn, d), rn->minimum, rn->r);
			c.name_score = basename_same(src_file(rn, s)->path,
						     dst_file(rn, d)->path);
			keep_if_better(m, &c);
		}
		cnt++;
	}
	for (k = 0; k < cnt * CANDIDATES; k++)
		mx[k].order = k;
	qsort(mx, cnt * CANDIDATES, sizeof(*mx), cand_sort);
	if (!err) {
		take(rn, mx, cnt * CANDIDATES, false);
		if (rn->copies)
			take(rn, mx, cnt * CANDIDATES, true);
	}
	free(mx);
	return err;
}

/* The queue after pairing: renamed deletions and unmodified pairs go. */
static void rename_cleanup(struct rename *rn)
{
	struct pr_sim_queue *q = rn->q;
	struct pr_sim_pair *out = NULL;
	size_t nr = 0, alloc = 0, i;

	for (i = 0; i < q->nr; i++) {
		struct pr_sim_pair *p = &q->pairs[i];
		bool keep;

		if (!valid(p->one))
			keep = valid(p->two);
		else if (!valid(p->two) && p->broken)
			/* gone when its own creation half was paired */
			keep = !rn->is_rename[p->peer];
		else if (!valid(p->two))
			keep = !p->one->rename_used;
		else
			keep = !unmodified(p);
		if (keep)
			*push(&out, &nr, &alloc, NULL, NULL) = *p;
	}
	set_pairs(q, out, nr, alloc);
}

static int do_rename(struct pr_sim_queue *q, const struct pr_sim_opts *o,
		     const struct pr_sim_reader *r)
{
	struct rename rn = { q,
			     o,
			     r,
			     NULL,
			     NULL,
			     0,
			     NULL,
			     NULL,
			     0,
			     false,
			     o->detect == PR_SIM_COPIES,
			     0 };
	size_t i, found = 0, n = q->nr ? q->nr : 1;
	int err = 0;

	rn.minimum = o->rename_score ? o->rename_score : PR_SIM_DEFAULT_SCORE;
	rn.src = pr_reallocarray(NULL, n, sizeof(*rn.src));
	rn.src_score = pr_reallocarray(NULL, n, sizeof(*rn.src_score));
	rn.dst = pr_reallocarray(NULL, n, sizeof(*rn.dst));
	rn.is_rename = pr_calloc(n, sizeof(*rn.is_rename));
	for (i = 0; i < q->nr; i++) {
		struct pr_sim_pair *p = &q->pairs[i];

		if (!valid(p->one)) {
			if (valid(p->two))
				rn.dst[rn.nr_dst++] = i;
			continue;
		}
		if (valid(p->two) && !rn.copies)
			continue;
		if (!valid(p->two) && p->broken) {
			/* a small break: the file stays unless paired */
			if (!p->score)
				p->one->rename_used++;
			/* its creation half is the next destination */
			p->peer = rn.nr_dst;
			rn.broken = true;
		} else if (valid(p->two)) {
			/* a copy source stays: count it as a user */
			p->one->rename_used++;
		}
		rn.src[rn.nr_src] = i;
		rn.src_score[rn.nr_src++] = p->score;
	}
	if (!rn.nr_dst || !rn.nr_src)
		goto done;
	found = exact_renames(&rn);
	if (rn.minimum == PR_SIM_MAX_SCORE)
		goto done;
	cull_sources(&rn);
	if (!rn.copies && !rn.broken) {
		/* git's basename factor: halfway from the minimum to 100% */
		int min_base =
			rn.minimum + (int)(0.5 * (MAX_SCORE - rn.minimum));

		err = basename_renames(&found, &rn, min_base);
		cull_sources(&rn);
	}
	if (!err && found < rn.nr_dst && rn.nr_src)
		err = inexact_renames(&rn, rn.nr_dst - found);
done:
	if (!err)
		rename_cleanup(&rn);
	free(rn.src);
	free(rn.src_score);
	free(rn.dst);
	free(rn.is_rename);
	return err;
}

/* diff_resolve_rename_copy, then unmodified pairs dropped */
static void resolve(struct pr_sim_queue *q)
{
	size_t i, n = 0;

	for (i = 0; i < q->nr; i++) {
		struct pr_sim_pair *p = &q->pairs[i];

		if (!valid(p->one))
			p->status = 'A';
		else if (!valid(p->two))
			p->status = 'D';
		else if (TYPE(p->one->mode) != TYPE(p->two->mode))
			p->status = 'T';
		else if (p->renamed && !strcmp(p->one->path, p->two->path))
			p->status = 'M';
		else if (p->renamed)
			/* a source used again later is copied here */
			p->status = --p->one->rename_used > 0 ? 'C' : 'R';
		else if (!unmodified(p))
			p->status = 'M';
		else
			continue;
		q->pairs[n++] = *p;
	}
	q->nr = n;
}

int pr_sim_run(struct pr_sim_queue *q, const struct pr_sim_opts *opts,
	       const struct pr_sim_reader *r)
{
	struct pr_sim_opts resolved = *opts, *o = &resolved;
	int err = 0;

	/* what the config would say when nobody asked it */
	if (o->detect == PR_SIM_FROM_CONFIG)
		o->detect = PR_SIM_RENAMES;
	if (o->rename_limit < 0)
		o->rename_limit = PR_SIM_RENAME_LIMIT;

	if (o->break_opt != -1)
		err = do_break(q, o->break_opt, r);
	if (!err && o->detect != PR_SIM_NO_RENAMES)
		err = do_rename(q, o, r);
	if (err)
		return err;
	if (o->break_opt != -1)
		merge_broken(q);
	resolve(q);
	return 0;
}
