#include "base/pr.h"
#include "base/sha1.h"
#include "git/similarity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * git's rename, copy and break detection on a tree diff the input
 * describes.  Byte 0: options (detect, --find-copies-harder, -B), byte 1:
 * the minimum score, byte 2: the rename limit; then records of
 * [kind][path][mode][len][len bytes of old content]([len][new content]):
 * kind % 4 is added, deleted, modified or unmodified.
 */

#define NPATHS 8
static const char *const paths[NPATHS] = { "a",	  "a.c", "b",	  "d/a",
					   "d/b", "e/a", "e/a.c", "z" };
static const unsigned modes[4] = { 0100644, 0100755, 0120000, 0160000 };

struct blob {
	unsigned char id[20];
	const char *data;
	size_t len;
};

struct fuzz {
	struct blob blobs[2 * NPATHS];
	size_t nr;
};

static const struct blob *find(const struct fuzz *fz, const unsigned char *id)
{
	size_t i;

	for (i = 0; i < fz->nr; i++)
		if (!memcmp(fz->blobs[i].id, id, 20))
			return &fz->blobs[i];
	abort();
}

static int f_size(size_t *size, const struct pr_sim_file *f, void *payload)
{
	*size = find(payload, f->id)->len;
	return 0;
}

static int f_read(const char **data, size_t *size, void **handle,
		  const struct pr_sim_file *f, void *payload)
{
	const struct blob *b = find(payload, f->id);

	*data = b->data;
	*size = b->len;
	*handle = NULL;
	return 0;
}

static void f_release(void *handle, void *payload)
{
	(void)handle;
	(void)payload;
}

static const unsigned char *blob(struct fuzz *fz, const uint8_t **p,
				 const uint8_t *end)
{
	struct blob *b = &fz->blobs[fz->nr++];
	struct pr_sha1 s;
	size_t len = *p < end ? **p : 0;

	*p += *p < end;
	if (len > (size_t)(end - *p))
		len = (size_t)(end - *p);
	b->data = (const char *)*p;
	b->len = len;
	*p += len;
	pr_sha1_init(&s);
	pr_sha1_update(&s, b->data, len);
	pr_sha1_final(b->id, &s);
	return b->id;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_sim_opts o = PR_SIM_OPTS_INIT;
	struct pr_sim_reader r = { f_size, f_read, f_release, NULL };
	struct pr_sim_queue q = PR_SIM_QUEUE_INIT;
	struct fuzz fz = { 0 };
	const uint8_t *p = data + 3, *end = data + size;
	bool used[NPATHS] = { false }, dst_seen[NPATHS] = { false };
	const unsigned char *old_id[NPATHS], *new_id[NPATHS];
	unsigned old_mode[NPATHS], new_mode[NPATHS];
	size_t i, k;

	if (size < 3)
		return 0;
	o.detect = (enum pr_sim_detect)(data[0] % 3);
	o.copies_harder = data[0] & 4;
	o.break_opt = data[0] & 8 ? (data[1] * 235) | (data[2] << 18) : -1;
	o.rename_score = data[1] * 235;
	o.rename_limit = data[2] % 5;
	r.payload = &fz;
	while (p + 3 <= end && fz.nr + 2 <= PR_ARRAY_SIZE(fz.blobs)) {
		int kind = p[0] % 4;
		size_t path = p[1] % NPATHS;
		unsigned mode = modes[p[2] % 4];

		p += 3;
		old_id[path] = kind == 0 ? NULL : blob(&fz, &p, end);
		new_id[path] = kind == 1   ? NULL
			       : kind == 3 ? old_id[path]
					   : blob(&fz, &p, end);
		old_mode[path] = kind == 0 ? 0 : mode;
		new_mode[path] = kind == 1 ? 0 : mode;
		used[path] = true;
	}
	/* the tree diff's pairs come in path order, one per path */
	for (i = 0; i < NPATHS; i++)
		if (used[i])
			pr_sim_queue_add(&q, paths[i], old_mode[i], old_id[i],
					 new_mode[i], new_id[i]);
	if (pr_sim_run(&q, &o, &r))
		abort();
	for (i = 0; i < q.nr; i++) {
		const struct pr_sim_pair *pp = &q.pairs[i];

		if (!strchr("ADMTRC", pp->status) || pp->score < 0 ||
		    pp->score > PR_SIM_MAX_SCORE)
			abort();
		if (strchr("RC", pp->status) &&
		    !strcmp(pp->one->path, pp->two->path))
			abort();
		if (pp->status == 'D')
			continue;
		/* every path of the new tree appears once */
		for (k = 0; k < NPATHS && strcmp(paths[k], pp->two->path); k++)
			;
		if (k == NPATHS || dst_seen[k])
			abort();
		dst_seen[k] = true;
	}
	pr_sim_queue_release(&q);
	return 0;
}
