#include "pr.h"

#include "assemble.h"
#include "subject.h"

/* Every Message-ID the mails name, sorted, each once. */
struct ids {
	const char **v;
	size_t nr, alloc;
	size_t *parent; /* union-find over v: one set per thread */
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

/* The index of s in ids, or (size_t)-1. */
static size_t ids_find(const struct ids *ids, const char *s)
{
	const char **hit;

	if (!s || !*s || !ids->nr)
		return (size_t)-1;
	hit = bsearch(&s, ids->v, ids->nr, sizeof(*ids->v), cmp_str);
	return hit ? (size_t)(hit - ids->v) : (size_t)-1;
}

static size_t uf_find(struct ids *ids, size_t i)
{
	while (ids->parent[i] != i) {
		ids->parent[i] = ids->parent[ids->parent[i]];
		i = ids->parent[i];
	}
	return i;
}

static void uf_union(struct ids *ids, size_t a, size_t b)
{
	if (a == (size_t)-1 || b == (size_t)-1)
		return;
	a = uf_find(ids, a);
	b = uf_find(ids, b);
	if (a != b)
		ids->parent[b] = a;
}

static bool is_cover(const struct pr_patch *p)
{
	return p->prefix.index == 0 && p->prefix.total > 0;
}

/* A lone "[PATCH]" counts as 1/1. */
static int index_of(const struct pr_patch *p)
{
	return p->prefix.total ? p->prefix.index : 1;
}

static struct pr_asm_version *get_version(struct pr_asm_series *s, int n)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->versions[i].number == n)
			return &s->versions[i];
	PR_ALLOC_GROW(s->versions, s->nr + 1, s->alloc);
	memset(&s->versions[s->nr], 0, sizeof(s->versions[0]));
	s->versions[s->nr].number = n;
	return &s->versions[s->nr++];
}

static int version_key(const struct pr_patch *p)
{
	int idx = index_of(p), total = p->prefix.total ? p->prefix.total : 1;

	/* extras sort after every numbered patch, in their own order */
	return idx > total ? 1000000 + idx : idx;
}

/* Sort by index (stable), keep one patch per index, set total/complete. */
static void finish_version(struct pr_asm_version *v)
{
	size_t i, j, out = 0;
	int have = 0, total = v->cover ? v->cover->prefix.total : 0;

	for (i = 0; i < v->nr && !total; i++)
		total = v->patches[i]->prefix.total
				? v->patches[i]->prefix.total
				: 1;
	v->total = total;
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
			continue; /* a resend of the same patch */
		v->patches[out++] = v->patches[i];
	}
	v->nr = out;
	for (i = 0; i < v->nr; i++) {
		int idx = index_of(v->patches[i]);

		if (idx >= 1 && idx <= total)
			have++;
	}
	v->complete = total > 0 && have == total;
}

static int cmp_version(const void *a, const void *b)
{
	const struct pr_asm_version *x = a, *y = b;

	return (x->number > y->number) - (x->number < y->number);
}

static bool same_text(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static const char *author_of(const struct pr_asm_version *v)
{
	if (v->cover)
		return v->cover->author.email;
	return v->nr ? v->patches[0]->author.email : NULL;
}

/* Do two versions look like the same series (author, then subject)? */
static bool same_series(const struct pr_asm_version *a,
			const struct pr_asm_version *b)
{
	const char *ea = author_of(a), *eb = author_of(b);

	if (!ea || !eb || strcasecmp(ea, eb))
		return false;
	if (a->cover && b->cover)
		return same_text(a->cover->subject, b->cover->subject);
	return a->nr && b->nr &&
	       same_text(a->patches[0]->subject, b->patches[0]->subject);
}

/* The version numbered n in s, NULL when none. */
static struct pr_asm_version *find_version(const struct pr_asm_series *s, int n)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->versions[i].number == n)
			return &s->versions[i];
	return NULL;
}

/*
 * Are sa and sb one series?  When they share a version number (a resend in
 * a new thread) those versions must match, else sa's newest and sb's
 * oldest version.
 */
static bool series_match(const struct pr_asm_series *sa,
			 const struct pr_asm_series *sb)
{
	size_t i;

	for (i = 0; i < sb->nr; i++) {
		const struct pr_asm_version *va =
			find_version(sa, sb->versions[i].number);

		if (va)
			return same_series(va, &sb->versions[i]);
	}
	return same_series(&sa->versions[sa->nr - 1], &sb->versions[0]);
}

/* Move vb's mails into va; the earlier copy of an index stays. */
static void merge_version(struct pr_asm_version *va, struct pr_asm_version *vb)
{
	size_t i;

	if (!va->cover)
		va->cover = vb->cover;
	for (i = 0; i < vb->nr; i++) {
		PR_ALLOC_GROW(va->patches, va->nr + 1, va->alloc);
		va->patches[va->nr++] = vb->patches[i];
	}
	free(vb->patches);
	finish_version(va);
}

/* Join threads that are versions (or resends) of one series sent apart. */
static void merge_series(struct pr_assembly *out)
{
	size_t a, b, i;

	for (a = 0; a < out->nr; a++) {
		for (b = a + 1; b < out->nr;) {
			struct pr_asm_series *sa = &out->series[a],
					     *sb = &out->series[b];

			if (!series_match(sa, sb)) {
				b++;
				continue;
			}
			for (i = 0; i < sb->nr; i++) {
				struct pr_asm_version *va = find_version(
					sa, sb->versions[i].number);

				if (va) {
					merge_version(va, &sb->versions[i]);
					continue;
				}
				PR_ALLOC_GROW(sa->versions, sa->nr + 1,
					      sa->alloc);
				sa->versions[sa->nr++] = sb->versions[i];
			}
			qsort(sa->versions, sa->nr, sizeof(*sa->versions),
			      cmp_version);
			free(sb->versions);
			memmove(sb, sb + 1,
				(out->nr - b - 1) * sizeof(*out->series));
			out->nr--;
		}
	}
}

int pr_assemble_mails(struct pr_assembly *out, struct pr_patch *const *mails,
		      size_t nr)
{
	struct ids ids = { 0 };
	size_t *comp = NULL, *mail_of = NULL, *series_of_comp = NULL;
	size_t i, j, k;
	int err = 0;

	for (i = 0; i < nr; i++) {
		ids_add(&ids, mails[i]->message_id);
		ids_add(&ids, mails[i]->in_reply_to);
		for (j = 0; j < mails[i]->nr_references; j++)
			ids_add(&ids, mails[i]->references[j]);
	}
	if (ids.nr)
		qsort(ids.v, ids.nr, sizeof(*ids.v), cmp_str);
	for (i = 0, k = 0; i < ids.nr; i++)
		if (!k || strcmp(ids.v[k - 1], ids.v[i]))
			ids.v[k++] = ids.v[i];
	ids.nr = k;
	ids.parent = pr_calloc(ids.nr + 1, sizeof(*ids.parent));
	mail_of = pr_calloc(ids.nr + 1, sizeof(*mail_of));
	for (i = 0; i < ids.nr; i++) {
		ids.parent[i] = i;
		mail_of[i] = (size_t)-1;
	}
	/* one thread per set of Message-IDs that refer to each other */
	for (i = 0; i < nr; i++) {
		const struct pr_patch *p = mails[i];
		size_t self = ids_find(&ids, p->message_id);
		size_t irt = ids_find(&ids, p->in_reply_to);

		if (self != (size_t)-1 && mail_of[self] == (size_t)-1)
			mail_of[self] = i;
		if (self == (size_t)-1)
			self = irt;
		uf_union(&ids, self, irt);
		for (j = 0; j < p->nr_references; j++)
			uf_union(&ids, self, ids_find(&ids, p->references[j]));
	}
	comp = pr_calloc(nr + 1, sizeof(*comp));
	series_of_comp = pr_calloc(ids.nr + nr + 1, sizeof(*series_of_comp));
	for (i = 0; i < ids.nr + nr; i++)
		series_of_comp[i] = (size_t)-1;
	for (i = 0; i < nr; i++) {
		const struct pr_patch *p = mails[i];
		size_t self = ids_find(&ids, p->message_id);

		if (self == (size_t)-1)
			self = ids_find(&ids, p->in_reply_to);
		/* a mail with no ids at all is a thread of its own */
		comp[i] = self == (size_t)-1 ? ids.nr + i : uf_find(&ids, self);
	}

	for (i = 0; i < nr; i++) {
		struct pr_patch *p = mails[i];
		struct pr_asm_series *s;
		struct pr_asm_version *v;
		size_t parent = ids_find(&ids, p->in_reply_to);
		int number = p->prefix.version;

		if (pr_subject_is_reply(p->subject_raw))
			continue;
		if (series_of_comp[comp[i]] == (size_t)-1) {
			PR_ALLOC_GROW(out->series, out->nr + 1, out->alloc);
			memset(&out->series[out->nr], 0, sizeof(*out->series));
			series_of_comp[comp[i]] = out->nr++;
		}
		s = &out->series[series_of_comp[comp[i]]];
		/* "vN" written on the cover letter only */
		if (number == 1 && !is_cover(p) && parent != (size_t)-1 &&
		    mail_of[parent] != (size_t)-1 &&
		    is_cover(mails[mail_of[parent]]))
			number = mails[mail_of[parent]]->prefix.version;
		v = get_version(s, number);
		if (is_cover(p)) {
			if (!v->cover)
				v->cover = p;
			continue;
		}
		if (v->nr >= PR_LIMIT_SERIES_PATCHES) {
			err = pr_error(PR_ETOOBIG,
				       "series of '%s' over %d patches",
				       p->message_id ? p->message_id : "",
				       PR_LIMIT_SERIES_PATCHES);
			goto done;
		}
		PR_ALLOC_GROW(v->patches, v->nr + 1, v->alloc);
		v->patches[v->nr++] = p;
	}
	for (i = 0; i < out->nr; i++) {
		struct pr_asm_series *s = &out->series[i];

		for (j = 0; j < s->nr; j++)
			finish_version(&s->versions[j]);
		qsort(s->versions, s->nr, sizeof(*s->versions), cmp_version);
	}
	merge_series(out);
done:
	free(ids.v);
	free(ids.parent);
	free(mail_of);
	free(comp);
	free(series_of_comp);
	return err;
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
		for (j = 0; j < a->series[i].nr; j++)
			free(a->series[i].versions[j].patches);
		free(a->series[i].versions);
	}
	free(a->series);
	memset(a, 0, sizeof(*a));
}
