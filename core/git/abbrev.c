#include "base/pr.h"
#include "git/abbrev.h"
#include "git/gitcfg.h"
#include "git/libgit.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* git's minimum and fallback abbreviation lengths (core.abbrev) */
#define ABBREV_MIN 4
#define ABBREV_FALLBACK 7

/*
 * The object count of one pack index: the last fan-out entry.  A version
 * 2 index starts with "\377tOc" and a version number before the table.
 */
static size_t idx_objects(const char *path)
{
	unsigned char head[8 + 256 * 4];
	const unsigned char *last;
	size_t off = 0;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	while (off < sizeof(head)) {
		n = read(fd, head + off, sizeof(head) - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	if (off < 256 * 4)
		return 0;
	if (!memcmp(head, "\377tOc", 4)) {
		if (off < sizeof(head))
			return 0;
		last = head + 8 + 255 * 4;
	} else {
		last = head + 255 * 4;
	}
	return (size_t)last[0] << 24 | (size_t)last[1] << 16 |
	       (size_t)last[2] << 8 | (size_t)last[3];
}

/* A 4-byte big-endian number. */
static size_t be32(const unsigned char *p)
{
	return (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 |
	       (size_t)p[3];
}

/*
 * A multi-pack index, mapped: the chunks git's midx.c reads to find an
 * object (OIDF fan-out, OIDL sorted ids, OOFF pack number and offset per
 * object) and PNAM, the names of its packs ("pack-X.idx", NUL after each,
 * in pack-number order).  nr is 0 when there is no index or it does not
 * hold together; a view is then empty, never an error, as git only warns.
 */
struct midx_view {
	void *map;
	size_t size;
	const unsigned char *oidf, *oidl, *ooff;
	const char *pnam;
	size_t pnam_len, nr, packs;
};

static void midx_close(struct midx_view *m)
{
	if (m->map)
		munmap(m->map, m->size);
	memset(m, 0, sizeof(*m));
}

static void midx_open(struct midx_view *m, const char *path)
{
	const unsigned char *u;
	struct stat st;
	size_t nchunks, i, off[4] = { 0 }, len[4] = { 0 };
	static const char *const ids[] = { "OIDF", "OIDL", "OOFF", "PNAM" };
	int fd;

	memset(m, 0, sizeof(*m));
	if ((fd = open(path, O_RDONLY)) < 0)
		return;
	if (!fstat(fd, &st) && st.st_size >= 12) {
		m->size = (size_t)st.st_size;
		m->map = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m->map == MAP_FAILED)
			m->map = NULL;
	}
	close(fd);
	if (!m->map)
		goto bad;
	u = m->map;
	/* version 1, SHA-1 ids, no base index */
	if (memcmp(u, "MIDX", 4) || u[4] != 1 || u[5] != 1 || u[7] != 0)
		goto bad;
	nchunks = u[6];
	m->packs = be32(u + 8);
	if (12 + (nchunks + 1) * 12 > m->size)
		goto bad;
	for (i = 0; i < nchunks; i++) {
		const unsigned char *e = u + 12 + i * 12;
		size_t k, o, next;

		/* offsets are 64-bit; an index past 4 GiB is not read */
		if (be32(e + 4) || be32(e + 16))
			goto bad;
		o = be32(e + 8);
		next = be32(e + 20);
		if (o > next || next > m->size)
			goto bad;
		for (k = 0; k < PR_ARRAY_SIZE(ids); k++) {
			if (!memcmp(e, ids[k], 4)) {
				off[k] = o;
				len[k] = next - o;
			}
		}
	}
	if (!off[0] || len[0] < 256 * 4 || !off[1] || !off[2] || !off[3])
		goto bad;
	m->oidf = u + off[0];
	m->nr = be32(m->oidf + 255 * 4);
	if (len[1] / GIT_OID_RAWSZ < m->nr || len[2] / 8 < m->nr)
		goto bad;
	m->oidl = u + off[1];
	m->ooff = u + off[2];
	m->pnam = (const char *)u + off[3];
	m->pnam_len = len[3];
	return;
bad:
	midx_close(m);
}

/* The pack number of id in m, or -1 when m does not hold it. */
static long midx_find(const struct midx_view *m, const git_oid *id)
{
	size_t lo, hi;

	if (!m->nr)
		return -1;
	lo = id->id[0] ? be32(m->oidf + (id->id[0] - 1) * 4) : 0;
	hi = be32(m->oidf + id->id[0] * 4);
	if (hi > m->nr)
		return -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(m->oidl + mid * GIT_OID_RAWSZ, id->id,
			       GIT_OID_RAWSZ);

		if (!c)
			return (long)be32(m->ooff + mid * 8);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The pack number of the pack whose index is named idx, or -1. */
static long midx_pack(const struct midx_view *m, const char *idx)
{
	const char *p = m->pnam, *end = m->pnam + m->pnam_len;
	size_t n;

	for (n = 0; m->nr && p < end && *p && n < m->packs; n++) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		if (!nul)
			break;
		if (!strcmp(p, idx))
			return (long)n;
		p = nul + 1;
	}
	return -1;
}

/*
 * The objects git would have read before its first abbreviation, to
 * learn which packs of a multi-pack index it opened; found[i] is set
 * once seen[i] is in an index (git looks in every index, local first,
 * before any pack outside them).  ids NULL: every pack counts as opened.
 */
struct seeds {
	const git_oid *ids;
	size_t nr;
	bool *found;
};

/*
 * The packed objects of one object directory, as git 2.39's
 * approximate_object_count() counts them: the entries of the multi-pack
 * index (unless `midx`, core.multiPackIndex, is false), plus each pack
 * outside it, plus each pack of the index git has opened by then: those
 * holding an object of `seeds`.
 */
static size_t count_objects_dir(const char *objects, bool midx,
				struct seeds *seeds)
{
	struct pr_buf path = PR_BUF_INIT;
	struct midx_view m = { 0 };
	struct dirent *de;
	size_t count = 0, base, i;
	bool *opened = NULL;
	DIR *d = NULL;

	if (pr_buf_addf(&path, "%s/pack/", objects))
		goto done;
	base = path.len;
	if (pr_buf_adds(&path, "multi-pack-index"))
		goto done;
	if (midx && !access(path.ptr, F_OK))
		midx_open(&m, path.ptr);
	count = m.nr;
	opened = pr_calloc(m.packs + 1, sizeof(*opened));
	for (i = 0; m.nr && seeds->ids && i < seeds->nr; i++) {
		long k;

		if (seeds->found[i])
			continue;
		k = midx_find(&m, &seeds->ids[i]);
		if (k >= 0 && (size_t)k < m.packs) {
			seeds->found[i] = true;
			opened[k] = true;
		}
	}
	pr_buf_setlen(&path, base);
	d = opendir(path.ptr);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		long k;

		if (len < 5 || strcmp(de->d_name + len - 4, ".idx"))
			continue;
		k = midx_pack(&m, de->d_name);
		if (k >= 0 && seeds->ids && !opened[k])
			continue;
		pr_buf_setlen(&path, base);
		if (pr_buf_add(&path, de->d_name, len - 4) ||
		    pr_buf_adds(&path, ".pack"))
			break;
		if (access(path.ptr, F_OK))
			continue;
		pr_buf_setlen(&path, base);
		if (pr_buf_adds(&path, de->d_name))
			break;
		count += idx_objects(path.ptr);
	}
done:
	if (d)
		closedir(d);
	free(opened);
	midx_close(&m);
	pr_buf_release(&path);
	return count;
}

/* git follows alternates of alternates this deep */
#define ALTERNATES_DEPTH 5

/*
 * The packed objects of objects and of the object directories its
 * info/alternates names (one a line, '#' comments, relative to objects).
 */
static size_t count_with_alternates(const char *objects, bool midx,
				    struct seeds *seeds, int depth)
{
	struct pr_buf file = PR_BUF_INIT, alt = PR_BUF_INIT;
	size_t count = count_objects_dir(objects, midx, seeds);
	const char *p, *end;

	/* most repositories have none: check before reading */
	if (depth >= ALTERNATES_DEPTH ||
	    pr_buf_addf(&alt, "%s/info/alternates", objects) ||
	    access(alt.ptr, F_OK) || pr_buf_read_file(&file, alt.ptr))
		goto done;
	for (p = file.ptr, end = p + file.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len && *p != '#') {
			pr_buf_reset(&alt);
			if (*p != '/')
				pr_buf_addf(&alt, "%s/", objects);
			if (!pr_buf_add(&alt, p, len))
				count += count_with_alternates(
					alt.ptr, midx, seeds, depth + 1);
		}
		p += len + 1;
	}
done:
	pr_buf_release(&file);
	pr_buf_release(&alt);
	return count;
}

/*
 * The object count git's automatic abbreviation starts from: the entries
 * of the pack indexes (of packs whose .pack is there) and of multi-pack
 * indexes, alternates included, a pack in a multi-pack index counting
 * only when an object of ids (nr of them) is in it (ids NULL: all).
 * Loose objects are not counted: git 2.39 gives 7 digits with 46,000
 * loose objects and 8 with 16,384 packed ones.
 */
static size_t approximate_count(git_repository *repo, bool midx,
				const git_oid *ids, size_t nr)
{
	struct pr_buf objects = PR_BUF_INIT;
	struct seeds seeds = { ids, nr, NULL };
	size_t count = 0;

	seeds.found = pr_calloc(nr + 1, sizeof(*seeds.found));
	if (!pr_buf_addf(&objects, "%sobjects", git_repository_commondir(repo)))
		count = count_with_alternates(objects.ptr, midx, &seeds, 0);
	free(seeds.found);
	pr_buf_release(&objects);
	return count;
}

/*
 * core.abbrev as git_default_core_config() reads it: "auto" (case
 * ignored) is 0 (from the object count), a false boolean ("no", "off"...)
 * the full 40, else an integer as strtoimax base 0 reads it, from
 * ABBREV_MIN to 40.  A key with no value is git's error too.
 */
static int parse_abbrev(int *out, const char *val)
{
	char *end = NULL;
	long n;

	*out = 0;
	if (!val)
		return pr_error(PR_EINVAL, "config core.abbrev: no value");
	if (!strcasecmp(val, "auto"))
		return 0;
	if (!*val || !strcasecmp(val, "false") || !strcasecmp(val, "no") ||
	    !strcasecmp(val, "off")) {
		*out = GIT_OID_HEXSZ;
		return 0;
	}
	errno = 0;
	n = strtol(val, &end, 0);
	if (end == val || *end || errno || n < ABBREV_MIN || n > GIT_OID_HEXSZ)
		return pr_error(PR_EINVAL,
				"config core.abbrev '%s': not a length "
				"from %d to %d, 'auto' or 'no'",
				val, ABBREV_MIN, GIT_OID_HEXSZ);
	*out = (int)n;
	return 0;
}

/*
 * The abbreviation length git starts from: core.abbrev when it is a
 * number ("no" is the full 40), else from the object count.  With about
 * 2^b objects a collision is expected at b/2 bits, and a hex digit holds
 * 4 bits: b being the bit length of the count, (b + 1) / 2 digits, at
 * least 7.  The command-line config (git -c, GIT_CONFIG_COUNT) wins over
 * the files, as git reads it last.  ids (nr) are the objects git has read
 * by then, for the packs of a multi-pack index it counts; NULL: all.
 */
static int abbrev_start(int *out, git_repository *repo, const git_oid *ids,
			size_t nr)
{
	struct pr_gitcfg cmd = PR_GITCFG_INIT;
	git_config *cfg = NULL;
	git_buf val = { 0 };
	const char *v;
	size_t count, bits = 0;
	int err = 0, midx = 1, ret;

	*out = 0;
	if ((err = pr_gitcfg_read_env(&cmd)) ||
	    (err = pr_libgit_config(&cfg, repo)))
		goto done;
	if (pr_gitcfg_get(&cmd, "core.abbrev", &v) ||
	    (!git_config_get_string_buf(&val, cfg, "core.abbrev") &&
	     (v = val.ptr))) {
		if ((err = parse_abbrev(out, v)) || *out)
			goto done;
	}
	/* unset means true; a value that is no boolean is git's error too */
	if (pr_gitcfg_get(&cmd, "core.multipackindex", &v)) {
		if ((midx = pr_gitcfg_bool(v)) < 0) {
			err = pr_error(PR_EINVAL,
				       "config core.multiPackIndex '%s': "
				       "not a boolean",
				       v);
			goto done;
		}
	} else {
		ret = git_config_get_bool(&midx, cfg, "core.multipackindex");
		if (ret == GIT_ENOTFOUND) {
			midx = 1;
		} else if (ret < 0) {
			err = pr_libgit_fail("config", "core.multiPackIndex");
			goto done;
		}
	}
	for (count = approximate_count(repo, midx, ids, nr); count; count >>= 1)
		bits++;
	*out = (int)((bits + 1) / 2);
	if (*out < ABBREV_FALLBACK)
		*out = ABBREV_FALLBACK;
done:
	git_buf_dispose(&val);
	git_config_free(cfg);
	pr_gitcfg_release(&cmd);
	return err;
}

/*
 * Append the shortest abbreviation of hex, at least len digits, that no
 * other object of odb shares (git's find_unique_abbrev).  hex need not
 * name an object (the null id of a new file).
 */
static int abbrev_hex(struct pr_buf *out, git_odb *odb, const char *hex,
		      int len)
{
	git_oid full, prefix, found;

	if (git_oid_fromstrn(&full, hex, GIT_OID_HEXSZ) < 0)
		return pr_error(PR_EINVAL, "object id '%.40s': not hex", hex);
	for (; len < GIT_OID_HEXSZ; len++) {
		int r;

		git_oid_fromstrn(&prefix, hex, (size_t)len);
		r = git_odb_exists_prefix(&found, odb, &prefix, (size_t)len);
		if (r == GIT_ENOTFOUND || (!r && git_oid_equal(&found, &full)))
			break;
		if (r < 0 && r != GIT_EAMBIGUOUS)
			return pr_libgit_fail("object", hex);
	}
	return pr_buf_add(out, hex, (size_t)len);
}

static bool is_hex40(const char *s, const char *end)
{
	int i;

	if (end - s < GIT_OID_HEXSZ)
		return false;
	for (i = 0; i < GIT_OID_HEXSZ; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

void pr_abbrev_ctx_add(struct pr_abbrev_ctx *ctx, const git_oid *id)
{
	if (git_oid_is_zero(id))
		return;
	PR_ALLOC_GROW(ctx->seeds, ctx->nr + 1, ctx->alloc);
	ctx->seeds[ctx->nr++] = *id;
}

void pr_abbrev_ctx_add_dirs(struct pr_abbrev_ctx *ctx, git_tree *tree,
			    const char *path)
{
	const char *slash;

	for (slash = strchr(path, '/'); tree && slash;
	     slash = strchr(slash + 1, '/')) {
		git_tree_entry *e = NULL;
		char *dir = pr_strndup(path, (size_t)(slash - path));

		if (!git_tree_entry_bypath(&e, tree, dir)) {
			pr_abbrev_ctx_add(ctx, git_tree_entry_id(e));
			git_tree_entry_free(e);
		}
		free(dir);
	}
}

void pr_abbrev_ctx_release(struct pr_abbrev_ctx *ctx)
{
	free(ctx->seeds);
	memset(ctx, 0, sizeof(*ctx));
}

/*
 * The diff text has full "index A..B" ids (git/treediff.c); git abbreviates
 * them as find_unique_abbrev does, except for a binary file patched with
 * --binary, where both stay full.
 */
int pr_abbrev_index_lines(struct pr_buf *text, git_repository *repo,
			  struct pr_abbrev_ctx *ctx)
{
	struct pr_buf out = PR_BUF_INIT;
	const char *p = text->ptr, *end = text->ptr + text->len;
	git_odb *odb = NULL;
	bool binary = false;
	int len = ctx->len, err = 0;

	if (!len)
		err = abbrev_start(&len, repo, ctx->seeds, ctx->nr);
	if (err)
		goto done;
	ctx->len = len;
	if (git_repository_odb(&odb, repo) < 0) {
		err = pr_libgit_fail("repository", "object database");
		goto done;
	}
	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl + 1 : end, *a, *b;

		if (!strncmp(p, "diff --git ", 11)) {
			/* is there a binary patch before the next file? */
			const char *q = eol;

			binary = false;
			while (q < end && strncmp(q, "diff --git ", 11)) {
				const char *qn =
					memchr(q, '\n', (size_t)(end - q));

				if (!strncmp(q, "GIT binary patch\n", 17)) {
					binary = true;
					break;
				}
				q = qn ? qn + 1 : end;
			}
		}
		a = p + 6;
		b = a + GIT_OID_HEXSZ + 2;
		if (binary || len == GIT_OID_HEXSZ || strncmp(p, "index ", 6) ||
		    !is_hex40(a, eol) || strncmp(a + GIT_OID_HEXSZ, "..", 2) ||
		    !is_hex40(b, eol)) {
			err = pr_buf_add(&out, p, (size_t)(eol - p));
			p = eol;
			continue;
		}
		err = pr_buf_adds(&out, "index ");
		if (!err)
			err = abbrev_hex(&out, odb, a, len);
		if (!err)
			err = pr_buf_adds(&out, "..");
		if (!err)
			err = abbrev_hex(&out, odb, b, len);
		if (!err)
			err = pr_buf_add(&out, b + GIT_OID_HEXSZ,
					 (size_t)(eol - b - GIT_OID_HEXSZ));
		p = eol;
	}
	if (!err) {
		pr_buf_release(text);
		*text = out;
		out = (struct pr_buf)PR_BUF_INIT;
	}
done:
	pr_buf_release(&out);
	git_odb_free(odb);
	return err;
}

int pr_abbrev_id(struct pr_buf *out, const char *dir, const char *hex)
{
	git_repository *repo = NULL;
	git_odb *odb = NULL;
	int len, err;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_repository_odb(&odb, repo) < 0) {
		err = pr_libgit_fail("repository", dir);
		goto done;
	}
	/* range-diff's ids: every pack of a multi-pack index counts */
	err = abbrev_start(&len, repo, NULL, 0);
	if (!err)
		err = abbrev_hex(out, odb, hex, len);
done:
	git_odb_free(odb);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}
