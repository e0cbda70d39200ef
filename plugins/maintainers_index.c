#include "base/pr.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "maintainers_file.h"

/*
 * The compiled MAINTAINERS index: the tables of maintainers_file.h as one
 * file, so that a process that routes one patch maps them instead of
 * parsing MAINTAINERS and .mailmap again (most of a one-shot route's time).
 *
 * A file is a head, then the tables, each at an 8-byte aligned offset the
 * head gives with its element count.  The head holds what the sources
 * were (struct pr_maint_id: size, inode, device, mtime, ctime and a hash
 * of the bytes) and a checksum of the whole file.  Nothing in a cache
 * file is trusted: a file is used only when its head, checksum and every
 * offset and index of its tables check out, and when the sources are
 * still what it says; anything else is a miss, and the caller parses the
 * sources and writes the file again.  Writes go to a temporary file that
 * is renamed over the old one, so a reader sees a whole file or none.
 *
 * Whether the sources are current: their stat() data is compared first;
 * when it matches and was not "racy" (the source changed less than
 * RACY_SECONDS before the index was written, when a later change in the
 * same clock tick could keep its times), the index is current without
 * reading the sources.  Otherwise the sources are read and hashed: same
 * bytes, the index is current and is written again with the new stat()
 * data (a `touch`, a checkout that rewrote the same bytes); other bytes,
 * a miss.
 */

#define IDX_MAGIC "PRMAINTX"
#define IDX_VERSION 1
#define IDX_BOM 0x01020304u
#define IDX_MAX_BYTES (16 * (size_t)MAINT_BYTES)
#define RACY_SECONDS 2

enum {
	T_TEXT,
	T_TV,
	T_FX,
	T_FX_TVI,
	T_FX_ANY,
	T_NK,
	T_KW,
	T_NAMES,
	T_ADDRS,
	T_STRINGS,
	T_COUNT
};

static const size_t el_size[T_COUNT] = {
	[T_TEXT] = 1,
	[T_TV] = sizeof(struct tv),
	[T_FX] = sizeof(struct fx_bucket),
	[T_FX_TVI] = sizeof(uint32_t),
	[T_FX_ANY] = sizeof(uint32_t),
	[T_NK] = sizeof(uint32_t),
	[T_KW] = sizeof(uint32_t),
	[T_NAMES] = sizeof(struct mapent),
	[T_ADDRS] = sizeof(struct mapent),
	[T_STRINGS] = 1,
};

struct idx_table {
	uint64_t off, n; /* byte offset in the file, element count */
};

struct idx_head {
	char magic[8];
	uint32_t bom; /* IDX_BOM as the writer stored it: its byte order */
	uint32_t version;
	uint32_t head_size, tv_size; /* of this build: a layout check */
	uint64_t size; /* of the whole file */
	uint64_t sum; /* image_sum(): every byte, this field taken as 0 */
	uint64_t nsections;
	struct pr_maint_id maint, mailmap;
	struct idx_table t[T_COUNT];
};

/* Whole-word reads, whatever the alignment. */
static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rotl64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

/* A finalizer that spreads every input bit over the output. */
static uint64_t fmix64(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

/*
 * Four independent lanes over 32-byte blocks (a multiply each 8 bytes, so
 * it runs at memory speed), folded with the length and the tail.  For
 * finding changed or damaged bytes, not against an adversary.
 */
uint64_t pr_maint_hash(const void *data, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	const unsigned char *p = data;
	uint64_t v[4] = { k, ~k, k << 1, (k >> 1) | 1 }, h;
	size_t i, left = n;
	unsigned l;

	for (; left >= 32; p += 32, left -= 32)
		for (l = 0; l < 4; l++)
			v[l] = rotl64((v[l] ^ rd64(p + 8 * l)) * k, 29);
	h = fmix64((uint64_t)n);
	for (l = 0; l < 4; l++)
		h = fmix64(h ^ v[l]) * k;
	for (; left >= 8; p += 8, left -= 8)
		h = fmix64(h ^ rd64(p)) * k;
	for (i = 0; i < left; i++)
		h = rotl64(h ^ p[i], 8) * k;
	return fmix64(h);
}

static void id_from_stat(struct pr_maint_id *id, const struct stat *st)
{
	memset(id, 0, sizeof(*id));
	id->present = 1;
	id->size = (uint64_t)st->st_size;
	id->ino = (uint64_t)st->st_ino;
	id->dev = (uint64_t)st->st_dev;
	id->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	id->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
	id->ctime_sec = (int64_t)st->st_ctim.tv_sec;
	id->ctime_nsec = (int64_t)st->st_ctim.tv_nsec;
}

/* Same file as far as stat() tells (hash and racy aside). */
static bool same_stat(const struct pr_maint_id *a, const struct pr_maint_id *b)
{
	return a->present == b->present && a->size == b->size &&
	       a->ino == b->ino && a->dev == b->dev &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec;
}

int pr_maint_id_read(struct pr_buf *text, struct pr_maint_id *id,
		     const char *path, bool *stable)
{
	struct pr_maint_id after;
	struct stat st;
	int fd, err;

	memset(id, 0, sizeof(*id));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0)
		return pr_error(PR_EIO, "cannot open '%s': %s", path,
				strerror(errno));
	if (fstat(fd, &st)) {
		err = pr_error(PR_EIO, "cannot stat '%s': %s", path,
			       strerror(errno));
		goto done;
	}
	id_from_stat(id, &st);
	pr_buf_init(text, MAINT_BYTES);
	if ((err = pr_buf_read_fd(text, fd))) {
		err = pr_error_wrap(err, "'%s'", path);
		goto done;
	}
	/* changed while read: the bytes may match neither stat() */
	memset(&after, 0, sizeof(after));
	if (!fstat(fd, &st))
		id_from_stat(&after, &st);
	if (!same_stat(id, &after) || text->len != id->size)
		*stable = false;
	id->hash = pr_maint_hash(text->ptr, text->len);
	err = 0;
done:
	close(fd);
	return err;
}

/* The source's identity now: stat() only (hash 0). */
static void id_stat(struct pr_maint_id *id, const char *path)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (!stat(path, &st))
		id_from_stat(id, &st);
}

/*
 * `want` (from an index) still describes the file at path: by stat()
 * data when it was not racy, else by the hash of the bytes.  *rekey is
 * set when the bytes had to be read (the index should be written again
 * with *now, which is then filled in).
 */
static bool source_current(const struct pr_maint_id *want, const char *path,
			   struct pr_maint_id *now, bool *rekey)
{
	struct pr_buf text = PR_BUF_INIT;
	bool stable = true, same;

	id_stat(now, path);
	if (same_stat(want, now) && (!want->racy || !want->present))
		return true;
	if (want->present != now->present)
		return false;
	if (pr_maint_id_read(&text, now, path, &stable)) {
		pr_error_clear();
		pr_buf_release(&text);
		return false;
	}
	same = stable && now->size == want->size && now->hash == want->hash;
	pr_buf_release(&text);
	*rekey |= same;
	return same;
}

/* "<dir>/maintainers-<16 hex>.idx", keyed by the real paths. */
static int cache_path(struct pr_buf *out, const char *path, const char *tree,
		      const char *cache_dir)
{
	char *rp = realpath(path, NULL), *rt = realpath(tree, NULL);
	struct pr_buf key = PR_BUF_INIT;
	int err = -1;

	if (rp && rt) {
		pr_buf_add(&key, rp, strlen(rp) + 1);
		pr_buf_adds(&key, rt);
		pr_buf_addf(out, "%s/maintainers-%016llx.idx", cache_dir,
			    (unsigned long long)pr_maint_hash(key.ptr,
							      key.len));
		err = 0;
	}
	free(rp);
	free(rt);
	pr_buf_release(&key);
	return err;
}

/* The checksum of an image: its head (sum taken as 0) and the rest. */
static uint64_t image_sum(const unsigned char *data, size_t len)
{
	struct idx_head h;

	memcpy(&h, data, sizeof(h));
	h.sum = 0;
	return fmix64(pr_maint_hash(&h, sizeof(h)) ^
		      pr_maint_hash(data + sizeof(h), len - sizeof(h)));
}

static bool table_ok(const struct idx_head *h, int k, size_t len)
{
	const struct idx_table *t = &h->t[k];

	return !(t->off % 8) && t->off >= sizeof(*h) && t->off <= len &&
	       t->n <= (len - t->off) / el_size[k] && t->n < UINT32_MAX;
}

static bool indexes_ok(const uint32_t *v, size_t n, size_t below)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] >= below)
			return false;
	return true;
}

static bool map_ok(const struct mapent *v, size_t n, const char *strings,
		   size_t strings_len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].key >= strings_len || v[i].val >= strings_len)
			return false;
		/* sorted, each key once: what the binary search needs */
		if (i &&
		    strcmp(strings + v[i - 1].key, strings + v[i].key) >= 0)
			return false;
	}
	return true;
}

/*
 * The image data[0..len) as a struct pr_maint, every offset and index
 * checked; NULL when anything is off.  The tables point into data.
 */
static struct pr_maint *take(const unsigned char *data, size_t len,
			     const char *tree)
{
	const struct idx_head *h = (const void *)data;
	struct pr_maint *m = NULL;
	const struct tv *tv;
	size_t i, ntv, text_len;
	int k;

	if (len < sizeof(*h) || memcmp(h->magic, IDX_MAGIC, 8) ||
	    h->bom != IDX_BOM || h->version != IDX_VERSION ||
	    h->head_size != sizeof(*h) || h->tv_size != sizeof(struct tv) ||
	    h->size != len || h->sum != image_sum(data, len))
		return NULL;
	for (k = 0; k < T_COUNT; k++)
		if (!table_ok(h, k, len))
			return NULL;
	text_len = (size_t)h->t[T_TEXT].n;
	ntv = (size_t)h->t[T_TV].n;
	if (!text_len || data[h->t[T_TEXT].off + text_len - 1] ||
	    !h->t[T_STRINGS].n ||
	    data[h->t[T_STRINGS].off + h->t[T_STRINGS].n - 1] ||
	    h->nsections > ntv)
		return NULL;
	m = pr_calloc(1, sizeof(*m));
	m->text = (const char *)data + h->t[T_TEXT].off;
	m->text_len = text_len;
	m->tv = tv = (const void *)(data + h->t[T_TV].off);
	m->ntv = ntv;
	m->nsections = (size_t)h->nsections;
	m->fx = (const void *)(data + h->t[T_FX].off);
	m->nfx = (size_t)h->t[T_FX].n;
	m->fx_tvi = (const void *)(data + h->t[T_FX_TVI].off);
	m->nfx_tvi = (size_t)h->t[T_FX_TVI].n;
	m->fx_any = (const void *)(data + h->t[T_FX_ANY].off);
	m->nfx_any = (size_t)h->t[T_FX_ANY].n;
	m->nk = (const void *)(data + h->t[T_NK].off);
	m->nn = (size_t)h->t[T_NK].n;
	m->kw = (const void *)(data + h->t[T_KW].off);
	m->nkw = (size_t)h->t[T_KW].n;
	m->names = (const void *)(data + h->t[T_NAMES].off);
	m->nnames = (size_t)h->t[T_NAMES].n;
	m->addrs = (const void *)(data + h->t[T_ADDRS].off);
	m->naddrs = (size_t)h->t[T_ADDRS].n;
	m->strings = (const char *)data + h->t[T_STRINGS].off;
	m->strings_len = (size_t)h->t[T_STRINGS].n;
	for (i = 0; i < ntv; i++) {
		const struct tv *t = &tv[i];

		/* value[0..prefix_len) and its NUL are inside the text */
		if (t->value >= text_len ||
		    t->prefix_len > text_len - 1 - t->value ||
		    t->start >= ntv ||
		    (t->type && !(t->type >= 'A' && t->type <= 'Z')) ||
		    (t->flags & ~0xfu) ||
		    ((t->flags >> TV_DIR_SHIFT) & 3) > DIR_UNKNOWN)
			goto bad;
	}
	for (i = 0; i < m->nfx; i++) {
		const struct fx_bucket *b = &m->fx[i];

		if (b->comp >= text_len || b->len > text_len - b->comp ||
		    b->first > m->nfx_tvi || b->nr > m->nfx_tvi - b->first)
			goto bad;
	}
	if (!indexes_ok(m->fx_tvi, m->nfx_tvi, ntv) ||
	    !indexes_ok(m->fx_any, m->nfx_any, ntv) ||
	    !indexes_ok(m->nk, m->nn, ntv) || !indexes_ok(m->kw, m->nkw, ntv) ||
	    !map_ok(m->names, m->nnames, m->strings, m->strings_len) ||
	    !map_ok(m->addrs, m->naddrs, m->strings, m->strings_len))
		goto bad;
	pr_maint_init_runtime(m, tree);
	return m;
bad:
	free(m);
	return NULL;
}

int pr_maint_index_load_mem(struct pr_maint **out, void *data, size_t len,
			    const char *tree)
{
	/* the tables hold 4-byte fields: the image must be aligned */
	if (((uintptr_t)data % 8) || !(*out = take(data, len, tree))) {
		*out = NULL;
		free(data);
		return 1;
	}
	(*out)->image = data;
	return 0;
}

void pr_maint_index_seal(void *data, size_t len)
{
	struct idx_head *h = data;

	if (len >= sizeof(*h))
		h->sum = image_sum(data, len);
}

int pr_maint_index_open(struct pr_maint **out, const char *path,
			const char *tree, const char *cache_dir)
{
	struct pr_buf file = PR_BUF_INIT, mailmap = PR_BUF_INIT;
	struct pr_maint_src now = { .stable = true };
	const struct idx_head *h;
	struct stat st;
	void *map = MAP_FAILED;
	bool rekey = false;
	int fd = -1, ret = 1;

	*out = NULL;
	if (!tree)
		tree = ".";
	if (cache_path(&file, path, tree, cache_dir))
		goto done;
	fd = open(file.ptr, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size < sizeof(*h) ||
	    (size_t)st.st_size > IDX_MAX_BYTES)
		goto done;
	/* files are replaced by rename(), never rewritten: safe to map */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		goto done;
	h = map;
	pr_buf_addf(&mailmap, "%s/.mailmap", tree);
	/* the sources first: a stale index is not worth a checksum */
	if (h->size != (uint64_t)st.st_size ||
	    !source_current(&h->maint, path, &now.maint, &rekey) ||
	    !source_current(&h->mailmap, mailmap.ptr, &now.mailmap, &rekey) ||
	    !(*out = take(map, (size_t)st.st_size, tree)))
		goto done;
	(*out)->map = map;
	(*out)->map_len = (size_t)st.st_size;
	map = MAP_FAILED;
	if (rekey)
		pr_maint_index_save(*out, path, tree, cache_dir, &now);
	ret = 0;
done:
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	pr_buf_release(&file);
	pr_buf_release(&mailmap);
	return ret;
}

/* mkdir -p dir, private to the user. */
static int make_dirs(const char *dir)
{
	char *d = pr_strdup(dir), *p;
	int err = 0;

	for (p = d + 1; *p && !err; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(d, 0700) && errno != EEXIST)
			err = -1;
		*p = '/';
	}
	if (!err && mkdir(d, 0700) && errno != EEXIST)
		err = -1;
	free(d);
	return err;
}

/* A source changed so lately that a change to come could keep its times. */
static void mark_racy(struct pr_maint_id *id, time_t now)
{
	int64_t t = id->mtime_sec > id->ctime_sec ? id->mtime_sec
						  : id->ctime_sec;

	id->racy = id->present && t + RACY_SECONDS > (int64_t)now;
}

static void put_table(unsigned char *img, struct idx_head *h, int k,
		      const void *src, size_t n)
{
	if (n)
		memcpy(img + h->t[k].off, src, n * el_size[k]);
}

void pr_maint_index_save(const struct pr_maint *m, const char *path,
			 const char *tree, const char *cache_dir,
			 const struct pr_maint_src *src)
{
	struct pr_buf file = PR_BUF_INIT, tmp = PR_BUF_INIT;
	const size_t n[T_COUNT] = {
		[T_TEXT] = m->text_len,	 [T_TV] = m->ntv,
		[T_FX] = m->nfx,	 [T_FX_TVI] = m->nfx_tvi,
		[T_FX_ANY] = m->nfx_any, [T_NK] = m->nn,
		[T_KW] = m->nkw,	 [T_NAMES] = m->nnames,
		[T_ADDRS] = m->naddrs,	 [T_STRINGS] = m->strings_len,
	};
	const void *tab[T_COUNT] = {
		[T_TEXT] = m->text,	[T_TV] = m->tv,
		[T_FX] = m->fx,		[T_FX_TVI] = m->fx_tvi,
		[T_FX_ANY] = m->fx_any, [T_NK] = m->nk,
		[T_KW] = m->kw,		[T_NAMES] = m->names,
		[T_ADDRS] = m->addrs,	[T_STRINGS] = m->strings,
	};
	unsigned char *img = NULL;
	struct idx_head *h;
	size_t size = sizeof(*h);
	time_t now = time(NULL);
	int k, fd;

	if (!tree)
		tree = ".";
	if (cache_path(&file, path, tree, cache_dir) || make_dirs(cache_dir))
		goto done;
	for (k = 0; k < T_COUNT; k++)
		size = (size + 7) / 8 * 8 + n[k] * el_size[k];
	size = (size + 7) / 8 * 8;
	if (size > IDX_MAX_BYTES)
		goto done;
	img = pr_calloc(1, size);
	h = (struct idx_head *)img;
	memcpy(h->magic, IDX_MAGIC, 8);
	h->bom = IDX_BOM;
	h->version = IDX_VERSION;
	h->head_size = sizeof(*h);
	h->tv_size = sizeof(struct tv);
	h->size = size;
	h->nsections = m->nsections;
	h->maint = src->maint;
	h->mailmap = src->mailmap;
	mark_racy(&h->maint, now);
	mark_racy(&h->mailmap, now);
	size = sizeof(*h);
	for (k = 0; k < T_COUNT; k++) {
		size = (size + 7) / 8 * 8;
		h->t[k].off = size;
		h->t[k].n = n[k];
		put_table(img, h, k, tab[k], n[k]);
		size += n[k] * el_size[k];
	}
	pr_maint_index_seal(img, (size_t)h->size);
	pr_buf_addf(&tmp, "%s.XXXXXX", file.ptr);
	fd = mkstemp(tmp.ptr);
	if (fd < 0)
		goto done;
	k = pr_write_all(fd, img, (size_t)h->size);
	if (close(fd) || k || rename(tmp.ptr, file.ptr))
		unlink(tmp.ptr);
done:
	free(img);
	pr_buf_release(&file);
	pr_buf_release(&tmp);
}
