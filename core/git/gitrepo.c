#include "base/pr.h"
#include "git/gitrepo.h"
#include "git/format.h"
#include "git/gitcfg.h"
#include "git/diff.h"
#include "base/sha1.h"
#include "model/trailer.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/hashsig.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static time_t time_now(void)
{
	return time(NULL);
}

static int pr_libgit_fail(const char *what, const char *arg)
{
	const git_error *e = git_error_last();

	return pr_error(PR_EINVAL, "%s '%s': %s", what, arg,
			e && e->message ? e->message : "libgit2 error");
}

/* Subject and body of a commit message as git's pretty.c splits them. */
static void split_message(struct pr_patch *p, const char *msg)
{
	struct pr_buf subj = PR_BUF_INIT;
	const char *line = msg;
	size_t n;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		size_t trim = len;

		while (trim && isspace((unsigned char)line[trim - 1]))
			trim--;
		if (!trim)
			break;
		if (subj.len)
			pr_buf_addch(&subj, ' ');
		pr_buf_add(&subj, line, trim);
		line += len + (nl ? 1 : 0);
	}
	p->subject = pr_buf_detach(&subj, NULL);
	/* the paragraph's own lines, which `git log` (and range-diff) shows */
	n = (size_t)(line - msg);
	if (n && msg[n - 1] == '\n')
		n--;
	p->subject_raw = pr_strndup(msg, n);
	p->body = pr_strdup(line);
	/*
	 * The trailers as a list too (the body keeps their text), so checks
	 * see a commit's Signed-off-by as they see a mailed patch's.  Only a
	 * size cap fails here; the list is then left empty.
	 */
	if (pr_trailers_parse(&p->trailers, p->body, strlen(p->body)))
		pr_trailer_list_release(&p->trailers);
}

static const char b85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/* Decode one "GIT binary patch" data line (no '\n') onto out. */
static int b85_line(struct pr_buf *out, const char *l, size_t len)
{
	size_t n, i, k;
	int err = 0;

	if (!len)
		return -1;
	if (l[0] >= 'A' && l[0] <= 'Z')
		n = (size_t)(l[0] - 'A' + 1);
	else if (l[0] >= 'a' && l[0] <= 'z')
		n = (size_t)(l[0] - 'a' + 27);
	else
		return -1;
	if (len != 1 + (n + 3) / 4 * 5)
		return -1;
	for (i = 1; i < len && !err; i += 5) {
		uint32_t v = 0;
		unsigned char four[4];

		for (k = 0; k < 5; k++) {
			const char *c = strchr(b85, l[i + k]);

			if (!c || !l[i + k])
				return -1;
			v = v * 85 + (uint32_t)(c - b85);
		}
		for (k = 0; k < 4; k++)
			four[k] = (unsigned char)(v >> (24 - 8 * k));
		k = n < 4 ? n : 4;
		err = pr_buf_add(out, four, k);
		n -= k;
	}
	return err;
}

static int b85_encode(struct pr_buf *out, const unsigned char *p, size_t len)
{
	int err = 0;

	while (len && !err) {
		size_t n = len > 52 ? 52 : len, i, k;

		err = pr_buf_addch(out, n <= 26 ? 'A' + (int)n - 1
						: 'a' + (int)n - 27);
		for (i = 0; i < n && !err; i += 4) {
			uint32_t v = 0;
			char five[5];

			for (k = 0; k < 4; k++)
				v = (v << 8) | (i + k < n ? p[i + k] : 0);
			for (k = 5; k-- > 0;) {
				five[k] = b85[v % 85];
				v /= 85;
			}
			err = pr_buf_add(out, five, 5);
		}
		if (!err)
			err = pr_buf_addch(out, '\n');
		p += n;
		len -= n;
	}
	return err;
}

/* Inflate, then deflate at git's level (Z_BEST_SPEED) and base85 again. */
static int redeflate(struct pr_buf *out, const struct pr_buf *z, size_t size)
{
	unsigned char *plain = pr_malloc(size ? size : 1);
	uLongf plen = size;
	uLongf zlen = compressBound(size);
	unsigned char *again = pr_malloc(zlen);
	int err = PR_EPARSE;

	if (uncompress(plain, &plen, (const Bytef *)z->ptr, z->len) != Z_OK ||
	    plen != size)
		goto done;
	if (compress2(again, &zlen, plain, plen, Z_BEST_SPEED) != Z_OK)
		goto done;
	err = b85_encode(out, again, zlen);
done:
	free(plain);
	free(again);
	return err;
}

/*
 * Turn libgit2's diff text into git's bytes.  libgit2 deflates binary
 * patches at zlib's default level, git at Z_BEST_SPEED; the data is the
 * same, the bytes are not.  Re-encode each "literal N"/"delta N" hunk as
 * git would.  And git ends a ---/+++ name holding a space with a tab.  Which of literal and delta is
 * used stays libgit2's choice (made on its own compressed sizes).
 */
static int fix_binary(struct pr_buf *text)
{
	struct pr_buf out = PR_BUF_INIT, z = PR_BUF_INIT;
	const char *p = text->ptr, *end = text->ptr + text->len;
	bool in_binary = false, in_header = false, exact = false;
	int err = 0;

	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		unsigned long long size;
		int n = 0;

		if (!strncmp(p, "diff --git ", 11)) {
			in_binary = false;
			in_header = true;
			exact = false;
		} else if (in_header && len == 21 &&
			   !strncmp(p, "similarity index 100%", 21)) {
			exact = true;
		} else if (exact && !strncmp(p, "Binary files ", 13)) {
			/* git shows nothing for a binary renamed unchanged */
			p += len + (nl ? 1 : 0);
			continue;
		} else if (!strncmp(p, "@@ ", 3)) {
			in_header = false;
		} else if (in_header && len > 4 &&
			   (!strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4)) &&
			   memchr(p + 4, ' ', len - 4)) {
			/* git ends a file name with a space by a tab (GNU patch) */
			err = pr_buf_add(&out, p, len);
			if (!err)
				err = pr_buf_adds(&out, "\t\n");
			p += len + (nl ? 1 : 0);
			continue;
		} else if (len == 16 && !strncmp(p, "GIT binary patch", 16))
			in_binary = true;
		if (in_binary && len < 40 &&
		    (sscanf(p, "literal %llu%n", &size, &n) == 1 ||
		     sscanf(p, "delta %llu%n", &size, &n) == 1) &&
		    (size_t)n == len && size <= PR_LIMIT_DIFF_BYTES) {
			err = pr_buf_add(&out, p, len + 1);
			p += len + 1;
			pr_buf_reset(&z);
			while (!err && p < end && *p != '\n') {
				nl = memchr(p, '\n', (size_t)(end - p));
				len = nl ? (size_t)(nl - p) : (size_t)(end - p);
				if (b85_line(&z, p, len))
					err = pr_error(PR_EPARSE,
						       "binary patch: bad "
						       "base85 line");
				p += len + (nl ? 1 : 0);
			}
			if (!err)
				err = redeflate(&out, &z, (size_t)size);
			if (err == PR_EPARSE && !*pr_error_message())
				err = pr_error(PR_EPARSE, "binary patch: bad "
							  "deflate data");
			continue;
		}
		err = pr_buf_add(&out, p, len + (nl ? 1 : 0));
		p += len + (nl ? 1 : 0);
	}
	if (!err) {
		pr_buf_release(text);
		*text = out;
		out = (struct pr_buf)PR_BUF_INIT;
	}
	pr_buf_release(&out);
	pr_buf_release(&z);
	return err;
}

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

/* git_env_bool: "1", "true", "yes", "on" and their opposites; else 0 */
static bool env_true(const char *name)
{
	const char *v = getenv(name);
	char *end = NULL;
	long n;

	if (!v || !*v)
		return false;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "on"))
		return true;
	n = strtol(v, &end, 10);
	return end != v && !*end && n != 0;
}

static int add_config_file(git_config *cfg, const char *path,
			   git_config_level_t level, git_repository *repo)
{
	/* a file that is not there is no error, as for git */
	if (!path || !*path || access(path, F_OK))
		return 0;
	if (git_config_add_file_ondisk(cfg, path, level, repo, 0) < 0)
		return pr_libgit_fail("config", path);
	return 0;
}

/*
 * The configuration git reads for the repository, honouring what libgit2
 * does not: GIT_CONFIG_NOSYSTEM (no system file), GIT_CONFIG_SYSTEM and
 * GIT_CONFIG_GLOBAL (the files read instead of the system and of the
 * global and XDG ones).  The command-line config (GIT_CONFIG_COUNT and
 * -c parameters) is pr_gitcfg's, which callers look up first.  Not read:
 * worktree-specific config.
 */
static int repo_config(git_config **out, git_repository *repo)
{
	git_config *cfg = NULL;
	git_buf sys = { 0 };
	struct pr_buf path = PR_BUF_INIT;
	const char *env, *home = getenv("HOME"),
			 *xdg = getenv("XDG_CONFIG_HOME");
	int err = 0;

	*out = NULL;
	if (git_config_new(&cfg) < 0) {
		err = pr_libgit_fail("config", "new");
		goto done;
	}
	if (!env_true("GIT_CONFIG_NOSYSTEM")) {
		env = getenv("GIT_CONFIG_SYSTEM");
		if (!env && !git_config_find_system(&sys))
			env = sys.ptr;
		if ((err = add_config_file(cfg, env, GIT_CONFIG_LEVEL_SYSTEM,
					   repo)))
			goto done;
	}
	if ((env = getenv("GIT_CONFIG_GLOBAL"))) {
		err = add_config_file(cfg, env, GIT_CONFIG_LEVEL_GLOBAL, repo);
	} else {
		if (xdg && *xdg)
			pr_buf_addf(&path, "%s/git/config", xdg);
		else if (home)
			pr_buf_addf(&path, "%s/.config/git/config", home);
		err = add_config_file(cfg, path.ptr, GIT_CONFIG_LEVEL_XDG,
				      repo);
		pr_buf_reset(&path);
		if (!err && home && !pr_buf_addf(&path, "%s/.gitconfig", home))
			err = add_config_file(cfg, path.ptr,
					      GIT_CONFIG_LEVEL_GLOBAL, repo);
	}
	if (err)
		goto done;
	pr_buf_reset(&path);
	pr_buf_addf(&path, "%sconfig", git_repository_commondir(repo));
	if ((err = add_config_file(cfg, path.ptr, GIT_CONFIG_LEVEL_LOCAL,
				   repo)))
		goto done;
	*out = cfg;
	cfg = NULL;
done:
	git_config_free(cfg);
	git_buf_dispose(&sys);
	pr_buf_release(&path);
	return err;
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
	if ((err = pr_gitcfg_read_env(&cmd)) || (err = repo_config(&cfg, repo)))
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

/*
 * The abbreviation length of one run (a format-patch): git computes it
 * once, at its first abbreviation, from the packs it had opened by then,
 * which are those of the objects it had read: seeds, the commits of the
 * walk, to which the first diff adds its trees and blobs.
 */
struct pr_abbrev_ctx {
	int len; /* 0 until the first abbreviation */
	git_oid *seeds;
	size_t nr, alloc;
};

static void pr_abbrev_ctx_add(struct pr_abbrev_ctx *ctx, const git_oid *id)
{
	if (git_oid_is_zero(id))
		return;
	PR_ALLOC_GROW(ctx->seeds, ctx->nr + 1, ctx->alloc);
	ctx->seeds[ctx->nr++] = *id;
}

/*
 * The subtrees git's tree diff reads down to path in tree (every folder
 * on the way: a changed file changes them all).
 */
static void abbrev_ctx_add_dirs(struct pr_abbrev_ctx *ctx, git_tree *tree,
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

/*
 * What the first diff reads before git prints its first index line: both
 * trees, the folders down to each file, and the blobs of each changed
 * file (the stat and rename detection read them).
 */
static void pr_abbrev_ctx_add_diff(struct pr_abbrev_ctx *ctx, git_diff *diff,
				   git_tree *old, git_tree *new)
{
	size_t i, n = git_diff_num_deltas(diff);

	if (old)
		pr_abbrev_ctx_add(ctx, git_tree_id(old));
	if (new)
		pr_abbrev_ctx_add(ctx, git_tree_id(new));
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		abbrev_ctx_add_dirs(ctx, old, d->old_file.path);
		abbrev_ctx_add_dirs(ctx, new, d->new_file.path);
		/* an unchanged blob (a pure rename) is not read */
		if (git_oid_equal(&d->old_file.id, &d->new_file.id))
			continue;
		pr_abbrev_ctx_add(ctx, &d->old_file.id);
		pr_abbrev_ctx_add(ctx, &d->new_file.id);
	}
}

static void pr_abbrev_ctx_release(struct pr_abbrev_ctx *ctx)
{
	free(ctx->seeds);
	memset(ctx, 0, sizeof(*ctx));
}

/*
 * libgit2 writes full "index A..B" ids (id_abbrev 40); git abbreviates
 * them as find_unique_abbrev does, except for a binary file patched with
 * --binary, where both stay full.
 */
static int pr_abbrev_index_lines(struct pr_buf *text, git_repository *repo,
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

/*
 * Rename similarity.  libgit2's line-hash signature pairs small binary
 * files git never pairs ("bin\0gone" => "bin\0new!" at 50%), so binary
 * files get git's own measure, written from its documented idea: content
 * is cut into spans ending at '\n' or after 64 bytes, each span hashed;
 * the bytes of the spans both sides hold are the copied bytes, and the
 * score is copied * 100 / the larger size, 0 when the sizes alone differ
 * by more than half.  Text files keep libgit2's signature (whitespace-
 * smart, its default), which the format tests compare against git.
 */
#define SPAN_MAX 64
#define SPAN_HASHBASE 107927
#define BINARY_PROBE 8000

struct span {
	uint32_t hash;
	size_t bytes;
};

struct sim_sig {
	bool binary;
	git_hashsig *text; /* NULL when libgit2 finds the text too small */
	size_t size;
	struct span *spans; /* sorted by hash, one entry per hash */
	size_t nr;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static void add_span(struct sim_sig *sig, size_t *alloc, uint32_t a1,
		     uint32_t a2, size_t bytes)
{
	PR_ALLOC_GROW(sig->spans, sig->nr + 1, *alloc);
	sig->spans[sig->nr].hash = (a1 + a2 * 0x61) % SPAN_HASHBASE;
	sig->spans[sig->nr++].bytes = bytes;
}

/* The spans of buf; a text file's CR of a CRLF is not counted. */
static void make_spans(struct sim_sig *sig, const unsigned char *buf,
		       size_t len)
{
	uint32_t a1 = 0, a2 = 0;
	size_t i, n = 0, alloc = 0, k;

	for (i = 0; i < len; i++) {
		uint32_t c = buf[i], old = a1;

		if (!sig->binary && c == '\r' && i + 1 < len &&
		    buf[i + 1] == '\n')
			continue;
		a1 = (a1 << 7) ^ (a2 >> 25);
		a2 = (a2 << 7) ^ (old >> 25);
		a1 += c;
		if (++n < SPAN_MAX && c != '\n')
			continue;
		add_span(sig, &alloc, a1, a2, n);
		n = 0;
		a1 = a2 = 0;
	}
	if (n)
		add_span(sig, &alloc, a1, a2, n);
	if (!sig->nr)
		return;
	qsort(sig->spans, sig->nr, sizeof(*sig->spans), span_cmp);
	for (i = 1, k = 0; i < sig->nr; i++) {
		if (sig->spans[i].hash == sig->spans[k].hash)
			sig->spans[k].bytes += sig->spans[i].bytes;
		else
			sig->spans[++k] = sig->spans[i];
	}
	sig->nr = k + 1;
}

static int sim_buffer_sig(void **out, const git_diff_file *file,
			  const char *buf, size_t len, void *payload)
{
	struct sim_sig *sig = pr_calloc(1, sizeof(*sig));
	int r;

	(void)file;
	(void)payload;
	sig->size = len;
	sig->binary = memchr(buf, 0, len < BINARY_PROBE ? len : BINARY_PROBE);
	make_spans(sig, (const unsigned char *)buf, len);
	r = git_hashsig_create(&sig->text, buf, len,
			       GIT_HASHSIG_SMART_WHITESPACE);
	if (r < 0) {
		sig->text = NULL;
		git_error_clear();
	}
	*out = sig;
	return 0;
}

static int sim_file_sig(void **out, const git_diff_file *file, const char *path,
			void *payload)
{
	struct pr_buf buf = PR_BUF_INIT;
	int err = pr_buf_read_file(&buf, path);

	if (!err)
		err = sim_buffer_sig(out, file, buf.ptr, buf.len, payload);
	pr_buf_release(&buf);
	return err ? -1 : 0;
}

static void sim_free(void *p, void *payload)
{
	struct sim_sig *sig = p;

	(void)payload;
	if (!sig)
		return;
	git_hashsig_free(sig->text);
	free(sig->spans);
	free(sig);
}

static int sim_score(int *score, void *pa, void *pb, void *payload)
{
	const struct sim_sig *a = pa, *b = pb;
	size_t max, min, copied = 0, i = 0, j = 0;

	(void)payload;
	*score = 0;
	if (!a->binary && !b->binary) {
		if (a->text && b->text)
			*score = git_hashsig_compare(a->text, b->text);
		return *score < 0 ? *score : 0;
	}
	max = a->size > b->size ? a->size : b->size;
	min = a->size < b->size ? a->size : b->size;
	/* more than half of the larger file cannot have been copied */
	if (!max || max < 2 * (max - min))
		return 0;
	while (i < a->nr && j < b->nr) {
		if (a->spans[i].hash < b->spans[j].hash) {
			i++;
		} else if (a->spans[i].hash > b->spans[j].hash) {
			j++;
		} else {
			copied += a->spans[i].bytes < b->spans[j].bytes
					  ? a->spans[i].bytes
					  : b->spans[j].bytes;
			i++;
			j++;
		}
	}
	*score = (int)(copied * 100 / max);
	return 0;
}

/* The diff text and --stat --summary text between two trees. */
static int pr_treediff_render(struct pr_buf *text, struct pr_buf *stat,
			      git_repository *repo, git_tree *old,
			      git_tree *new, bool renames, bool binary,
			      struct pr_abbrev_ctx *ctx)
{
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	git_diff_similarity_metric metric = { sim_file_sig, sim_buffer_sig,
					      sim_free, sim_score, NULL };
	struct pr_diff parsed = PR_DIFF_INIT;
	git_diff *diff = NULL;
	git_buf raw = { 0 };
	size_t i;
	int err;

	/* binary patches; full ids, abbreviated by pr_abbrev_index_lines() */
	if (binary)
		dopts.flags |= GIT_DIFF_SHOW_BINARY;
	dopts.id_abbrev = GIT_OID_HEXSZ;
	/* diff.renames defaults to true: renames, not copies */
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.metric = &metric;
	if (git_diff_tree_to_tree(&diff, repo, old, new, &dopts) < 0 ||
	    (renames && git_diff_find_similar(diff, &fopts) < 0) ||
	    git_diff_to_buf(&raw, diff, GIT_DIFF_FORMAT_PATCH) < 0) {
		err = pr_libgit_fail("diff of", "tree");
		goto done;
	}
	err = pr_buf_add(text, raw.ptr, raw.size);
	if (!err)
		err = fix_binary(text);
	if (!err && !ctx->len)
		pr_abbrev_ctx_add_diff(ctx, diff, old, new);
	if (!err)
		err = pr_abbrev_index_lines(text, repo, ctx);
	if (!stat)
		goto done;
	/* the stat is computed from the text, as it is for mails */
	if (!err)
		err = pr_diff_parse(&parsed, text->ptr, text->len);
	/* a delta hunk does not carry the blob sizes "Bin A -> B bytes" needs */
	for (i = 0; !err && i < parsed.nr && i < git_diff_num_deltas(diff);
	     i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct pr_diff_file *f = &parsed.files[i];

		if (!f->binary && (d->flags & GIT_DIFF_FLAG_BINARY) &&
		    git_oid_equal(&d->old_file.id, &d->new_file.id)) {
			/* renamed unchanged: a bare "Bin" as git prints it */
			f->binary = true;
		} else if (f->binary && !f->binary_sizes) {
			f->binary_sizes = true;
			f->old_size = (size_t)d->old_file.size;
			f->new_size = (size_t)d->new_file.size;
		}
	}
	if (!err)
		err = pr_diffstat_format(stat, &parsed);
	if (!err)
		err = pr_diff_summary_format(stat, &parsed);
done:
	pr_diff_release(&parsed);
	git_buf_dispose(&raw);
	git_diff_free(diff);
	return err;
}

static int load_diff(struct pr_patch *p, git_repository *repo, git_commit *c,
		     bool binary, struct pr_abbrev_ctx *ctx)
{
	git_tree *old = NULL, *new = NULL;
	git_commit *parent = NULL;
	struct pr_buf text = PR_BUF_INIT, stat = PR_BUF_INIT;
	int err;

	if (git_commit_tree(&new, c) < 0 ||
	    (git_commit_parentcount(c) > 0 &&
	     (git_commit_parent(&parent, c, 0) < 0 ||
	      git_commit_tree(&old, parent) < 0))) {
		err = pr_libgit_fail("commit", p->commit_id);
		goto done;
	}
	err = pr_treediff_render(&text, &stat, repo, old, new, true, binary,
				 ctx);
	if (err)
		goto done;
	p->diff = pr_buf_detach(&text, NULL);
	p->diffstat = pr_buf_detach(&stat, NULL);
done:
	pr_buf_release(&text);
	pr_buf_release(&stat);
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(parent);
	return err;
}

static int load_commit(struct pr_patch **out, git_repository *repo,
		       const git_oid *id, bool binary,
		       struct pr_abbrev_ctx *ctx)
{
	struct pr_patch *p = pr_patch_new();
	struct pr_buf date = PR_BUF_INIT;
	git_commit *c = NULL;
	const git_signature *a;
	int err;

	git_oid_tostr(p->commit_id, sizeof(p->commit_id), id);
	if (git_commit_lookup(&c, repo, id) < 0) {
		err = pr_libgit_fail("commit", p->commit_id);
		goto done;
	}
	a = git_commit_author(c);
	pr_ident_set(&p->author, a->name, a->email);
	p->time = a->when.time;
	p->tz_minutes = a->when.offset;
	err = pr_format_date(&date, p->time, p->tz_minutes);
	if (err)
		goto done;
	p->date = pr_buf_detach(&date, NULL);
	split_message(p, git_commit_message(c));
	err = load_diff(p, repo, c, binary, ctx);
done:
	pr_buf_release(&date);
	git_commit_free(c);
	if (err)
		pr_patch_free(p);
	else
		*out = p;
	return err;
}

/* Push the range onto walk as format-patch reads it. */
static int setup_walk(git_revwalk *walk, git_repository *repo,
		      const char *range, git_oid *tip)
{
	git_revspec spec;
	char *end = NULL;
	long count = 0;
	int err = 0;

	if (range[0] == '-' && isdigit((unsigned char)range[1])) {
		count = strtol(range + 1, &end, 10);
		if (*end || count <= 0)
			return pr_error(PR_EINVAL,
					"revision range '%s': bad count",
					range);
		if (git_revwalk_push_head(walk) < 0)
			return pr_libgit_fail("revision range", range);
		return (int)count;
	}
	memset(&spec, 0, sizeof(spec));
	if (git_revparse(&spec, repo, range) < 0) {
		/*
		 * libgit2 1.5 leaves spec.from set when only the right side
		 * of "A..B" fails to resolve; free what it filled in.
		 */
		err = pr_libgit_fail("revision range", range);
		git_object_free(spec.from);
		git_object_free(spec.to);
		return err;
	}
	if (spec.flags & GIT_REVSPEC_MERGE_BASE) {
		err = pr_error(PR_EUNSUPPORTED,
			       "revision range '%s': '...' not supported",
			       range);
	} else if (spec.flags & GIT_REVSPEC_RANGE) {
		git_oid_cpy(tip, git_object_id(spec.to));
		if (git_revwalk_push(walk, tip) < 0 ||
		    git_revwalk_hide(walk, git_object_id(spec.from)) < 0)
			err = pr_libgit_fail("revision range", range);
	} else {
		/* a single revision means "since": rev..HEAD */
		if (git_reference_name_to_id(tip, repo, "HEAD") < 0 ||
		    git_revwalk_push(walk, tip) < 0 ||
		    git_revwalk_hide(walk, git_object_id(spec.from)) < 0)
			err = pr_libgit_fail("revision range", range);
	}
	git_object_free(spec.from);
	git_object_free(spec.to);
	return err;
}

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

struct queued {
	git_oid id;
	int64_t date;
};

/* The commits a walk has reached: a sorted range set, or all of history. */
struct reach {
	git_oid *set; /* sorted; NULL: every commit belongs */
	size_t nset;
	bool *seen; /* per set entry */
	git_oid *extra; /* commits reached when set is NULL */
	size_t nextra, alloc;
};

/* Mark id reached; false when it was already or is outside the set. */
static bool reach_first(struct reach *r, const git_oid *id)
{
	git_oid *hit;
	size_t i;

	if (r->set) {
		hit = bsearch(id, r->set, r->nset, sizeof(*id), oid_cmp);
		if (!hit || r->seen[hit - r->set])
			return false;
		r->seen[hit - r->set] = true;
		return true;
	}
	/* an unlimited walk stops after a series' worth of commits */
	for (i = 0; i < r->nextra; i++)
		if (git_oid_equal(&r->extra[i], id))
			return false;
	PR_ALLOC_GROW(r->extra, r->nextra + 1, r->alloc);
	r->extra[r->nextra++] = *id;
	return true;
}

/*
 * Order commits as git's revision walk does (format-patch sets no topo
 * order): a queue by committer date where a commit goes after those of
 * the same date, each commit queued once, when first reached.  libgit2's
 * sorts break ties otherwise.  set holds every commit of a range, merges
 * included (it is sorted here); set NULL walks all history from tip and
 * stops after limit non-merges, which is what "-N" takes (git counts only
 * the commits it shows, so merges do not count).  out gets the non-merges,
 * newest first.
 */
static int git_order(git_oid **out, size_t *nr_out, git_repository *repo,
		     const git_oid *tip, git_oid *set, size_t nset,
		     size_t limit)
{
	struct reach r = { set, nset, NULL, NULL, 0, 0 };
	struct queued *q = NULL;
	size_t head = 0, tail = 0, qalloc = 0, nr = 0, oalloc = 0, k;
	git_oid *ids = NULL;
	git_commit *c = NULL;
	int err = 0;

	if (set) {
		qsort(set, nset, sizeof(*set), oid_cmp);
		r.seen = pr_calloc(nset ? nset : 1, sizeof(*r.seen));
	}
	if (reach_first(&r, tip)) {
		PR_ALLOC_GROW(q, tail + 1, qalloc);
		q[tail++].id = *tip;
	}
	while (head < tail && (!limit || nr < limit)) {
		git_oid id = q[head++].id;
		unsigned i, np;

		if (git_commit_lookup(&c, repo, &id) < 0) {
			err = pr_libgit_fail("commit", "walk");
			goto done;
		}
		np = git_commit_parentcount(c);
		if (np <= 1) {
			PR_ALLOC_GROW(ids, nr + 1, oalloc);
			ids[nr++] = id;
		}
		for (i = 0; i < np; i++) {
			const git_oid *pid = git_commit_parent_id(c, i);
			git_commit *pc = NULL;
			int64_t date;

			if (!reach_first(&r, pid))
				continue;
			if (git_commit_lookup(&pc, repo, pid) < 0) {
				err = pr_libgit_fail("commit", "walk");
				goto done;
			}
			date = git_commit_time(pc);
			git_commit_free(pc);
			/* after every queued commit not older than this one */
			for (k = head; k < tail && q[k].date >= date; k++)
				;
			PR_ALLOC_GROW(q, tail + 1, qalloc);
			memmove(q + k + 1, q + k, (tail - k) * sizeof(*q));
			q[k].id = *pid;
			q[k].date = date;
			tail++;
		}
		git_commit_free(c);
		c = NULL;
	}
done:
	git_commit_free(c);
	free(r.seen);
	free(r.extra);
	free(q);
	*out = ids;
	*nr_out = nr;
	return err;
}

static int boundary_of(git_oid *out, git_repository *repo, const git_oid *shown,
		       size_t nr);

/*
 * A cover letter's stat, written before the first patch, reads the trees
 * and blobs between the series' boundary and its tip (ids, newest first):
 * they join what the first abbreviation counts the packs of.  No unique
 * boundary: git prints no stat and reads nothing.
 */
static int cover_stat_seeds(struct pr_abbrev_ctx *ctx, git_repository *repo,
			    const git_oid *ids, size_t nr)
{
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	git_commit *bc = NULL, *tc = NULL;
	git_tree *old = NULL, *new = NULL;
	git_diff *diff = NULL;
	git_oid *sorted = (git_oid *)pr_memdup(ids, nr * sizeof(*ids)), bid;
	int err;

	qsort(sorted, nr, sizeof(*sorted), oid_cmp);
	err = boundary_of(&bid, repo, sorted, nr);
	if (err <= 0)
		goto done;
	err = 0;
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	if (git_commit_lookup(&bc, repo, &bid) < 0 ||
	    git_commit_lookup(&tc, repo, &ids[0]) < 0 ||
	    git_commit_tree(&old, bc) < 0 || git_commit_tree(&new, tc) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, old, new, NULL) < 0 ||
	    git_diff_find_similar(diff, &fopts) < 0) {
		err = pr_libgit_fail("cover letter stat", "boundary");
		goto done;
	}
	pr_abbrev_ctx_add(ctx, &bid);
	pr_abbrev_ctx_add_diff(ctx, diff, old, new);
done:
	git_diff_free(diff);
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(bc);
	git_commit_free(tc);
	free(sorted);
	return err;
}

int pr_gitrepo_load(struct pr_version **out, const char *dir, const char *range)
{
	return pr_gitrepo_load_flags(out, dir, range, 0);
}

int pr_gitrepo_load_flags(struct pr_version **out, const char *dir,
			  const char *range, unsigned flags)
{
	struct pr_version *v = pr_version_new(1);
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid *ids = NULL, *all = NULL;
	struct pr_abbrev_ctx ctx = { 0 };
	size_t nr = 0, alloc = 0, i;
	git_oid id, tip;
	int err, count;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0) {
		err = pr_libgit_fail("repository", dir);
		goto done;
	}
	if (git_revwalk_new(&walk, repo) < 0) {
		err = pr_libgit_fail("repository", dir);
		goto done;
	}
	count = setup_walk(walk, repo, range, &tip);
	if (count < 0) {
		err = count;
		goto done;
	}
	if (count) {
		/* -N: the last N non-merges of HEAD in git's date order */
		if (count > PR_LIMIT_SERIES_PATCHES) {
			err = pr_error(PR_ETOOBIG,
				       "revision range '%s': more than %d "
				       "commits",
				       range, PR_LIMIT_SERIES_PATCHES);
			goto done;
		}
		if (git_reference_name_to_id(&tip, repo, "HEAD") < 0) {
			err = pr_libgit_fail("revision range", range);
			goto done;
		}
		err = git_order(&ids, &nr, repo, &tip, NULL, 0, (size_t)count);
		if (err)
			goto done;
	} else {
		/* the whole range, merges included, for git_order's walk */
		while (!git_revwalk_next(&id, walk)) {
			if (nr >= PR_LIMIT_SERIES_PATCHES) {
				err = pr_error(PR_ETOOBIG,
					       "revision range '%s': more "
					       "than %d commits",
					       range, PR_LIMIT_SERIES_PATCHES);
				goto done;
			}
			PR_ALLOC_GROW(all, nr + 1, alloc);
			all[nr++] = id;
		}
		if (nr) {
			err = git_order(&ids, &nr, repo, &tip, all, nr, 0);
			if (err)
				goto done;
		}
	}
	/* git's walk read these commits and their parents before any diff */
	for (i = 0; i < nr; i++) {
		git_commit *c = NULL;
		unsigned k;

		pr_abbrev_ctx_add(&ctx, &ids[i]);
		if (git_commit_lookup(&c, repo, &ids[i]) < 0)
			continue;
		for (k = 0; k < git_commit_parentcount(c); k++)
			pr_abbrev_ctx_add(&ctx, git_commit_parent_id(c, k));
		git_commit_free(c);
	}
	if (nr && (flags & PR_GITREPO_COVER_STAT) &&
	    (err = cover_stat_seeds(&ctx, repo, ids, nr)))
		goto done;
	for (i = nr; i > 0; i--) {
		struct pr_patch *p = NULL;

		err = load_commit(&p, repo, &ids[i - 1],
				  !(flags & PR_GITREPO_NO_BINARY), &ctx);
		if (err)
			goto done;
		pr_version_add_patch(v, p);
	}
	*out = v;
	v = NULL;
	err = 0;
done:
	pr_abbrev_ctx_release(&ctx);
	free(ids);
	free(all);
	pr_version_free(v);
	git_revwalk_free(walk);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

int pr_gitrepo_resolve(char out[41], const char *dir, const char *rev)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	int err = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&obj, repo, rev) < 0)
		err = pr_libgit_fail("revision", rev);
	else
		git_oid_tostr(out, 41, git_object_id(obj));
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

int pr_gitrepo_stat(struct pr_buf *out, const char *dir, const char *from,
		    const char *to)
{
	git_repository *repo = NULL;
	git_object *a = NULL, *b = NULL;
	git_tree *ta = NULL, *tb = NULL;
	struct pr_buf text = PR_BUF_INIT;
	struct pr_abbrev_ctx ctx = { 0 };
	int err = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&a, repo, from) < 0 ||
	    git_revparse_single(&b, repo, to) < 0 ||
	    git_object_peel((git_object **)&ta, a, GIT_OBJECT_TREE) < 0 ||
	    git_object_peel((git_object **)&tb, b, GIT_OBJECT_TREE) < 0)
		err = pr_libgit_fail("revision range", from);
	else
		err = pr_treediff_render(&text, out, repo, ta, tb, true, true,
					 &ctx);
	pr_abbrev_ctx_release(&ctx);
	pr_buf_release(&text);
	git_tree_free(ta);
	git_tree_free(tb);
	git_object_free(a);
	git_object_free(b);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

/* "YYYY-MM-DD HH:MM:SS +ZZZZ" or "@EPOCH +ZZZZ"; false when neither. */
static bool parse_date(const char *s, int64_t *t, int *tz)
{
	int y, mo, d, h, mi, sec, off, n = 0;
	long long epoch;
	struct tm tm = { 0 };

	if (sscanf(s, "@%lld %d%n", &epoch, &off, &n) == 2 && !s[n]) {
		*t = epoch;
	} else if (sscanf(s, "%d-%d-%d %d:%d:%d %d%n", &y, &mo, &d, &h, &mi,
			  &sec, &off, &n) == 7 &&
		   !s[n]) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
		tm.tm_hour = h;
		tm.tm_min = mi;
		tm.tm_sec = sec;
		*t = (int64_t)timegm(&tm);
	} else {
		return false;
	}
	*tz = (off < 0 ? -1 : 1) * ((off < 0 ? -off : off) / 100 * 60 +
				    (off < 0 ? -off : off) % 100);
	if (!(s[0] == '@'))
		*t -= (int64_t)*tz * 60;
	return true;
}

int pr_gitrepo_committer(struct pr_ident *out, int64_t *time, int *tz,
			 const char *dir)
{
	const char *name = getenv("GIT_COMMITTER_NAME");
	const char *email = getenv("GIT_COMMITTER_EMAIL");
	const char *date = getenv("GIT_COMMITTER_DATE");
	git_repository *repo = NULL;
	git_signature *sig = NULL;
	int err = 0;

	git_libgit2_init();
	if ((!name || !email) &&
	    (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	     git_signature_default(&sig, repo) < 0)) {
		err = pr_libgit_fail("committer of repository", dir);
		goto done;
	}
	pr_ident_set(out, name ? name : sig->name, email ? email : sig->email);
	if (date && *date) {
		if (!parse_date(date, time, tz))
			err = pr_error(PR_EUNSUPPORTED,
				       "GIT_COMMITTER_DATE '%s': only "
				       "'YYYY-MM-DD HH:MM:SS +ZZZZ' and "
				       "'@EPOCH +ZZZZ' are read",
				       date);
	} else {
		/* git prints "now" in the local zone; this prints UTC */
		*time = (int64_t)time_now();
		*tz = 0;
	}
done:
	git_signature_free(sig);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

int pr_gitrepo_descends(const char *dir, const char *commit,
			const char *ancestor)
{
	git_repository *repo = NULL;
	git_object *a = NULL, *b = NULL;
	int ret;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&a, repo, commit) < 0 ||
	    git_revparse_single(&b, repo, ancestor) < 0) {
		ret = pr_libgit_fail("revision", commit);
	} else if (git_oid_equal(git_object_id(a), git_object_id(b))) {
		ret = 1;
	} else {
		ret = git_graph_descendant_of(repo, git_object_id(a),
					      git_object_id(b));
		if (ret < 0)
			ret = pr_libgit_fail("revision", commit);
	}
	git_object_free(a);
	git_object_free(b);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

/*
 * A binary file in git's internal patch id: its header lines without
 * whitespace (diff --git, modes), then both full blob ids from the index
 * line.
 */
static int binary_id(char out[41], const char *p, size_t len)
{
	const char *end = p + len;
	char ids[82] = "";
	struct pr_sha1 c;
	size_t i;

	pr_sha1_init(&c);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!strncmp(p, "GIT binary patch", 16) ||
		    !strncmp(p, "Binary files ", 13))
			break;
		if (!strncmp(p, "index ", 6)) {
			const char *dots = memchr(p, '.', n);

			if (!dots || dots - p != 46 || n < 88)
				return pr_error(PR_EPARSE, "binary patch: no "
							   "full index line");
			memcpy(ids, p + 6, 40);
			memcpy(ids + 40, dots + 2, 40);
			ids[80] = '\0';
		} else {
			for (i = 0; i < n; i++)
				if (!isspace((unsigned char)p[i]))
					pr_sha1_update(&c, p + i, 1);
		}
		p += n + (nl ? 1 : 0);
	}
	pr_sha1_update(&c, ids, strlen(ids));
	pr_sha1_final_hex(out, &c);
	return 0;
}

/*
 * The lines of one file's diff the internal id hashes: rename and copy
 * headers are not among them (it hashes the two paths of the diff line).
 */
static int add_id_lines(struct pr_buf *out, const struct pr_diff_file *f,
			const char *p, size_t len)
{
	static const char *const skip[] = {
		"similarity index ", "dissimilarity index ", "rename from ",
		"rename to ",	     "copy from ",	     "copy to "
	};
	const char *end = p + len;
	bool header = true;
	int err = 0;

	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t k;
		bool drop = false;

		for (k = 0; header && k < PR_ARRAY_SIZE(skip); k++)
			if (!strncmp(p, skip[k], strlen(skip[k])))
				drop = true;
		if (!strncmp(p, "@@ ", 3))
			header = false;
		/* the internal id hashes raw paths, never C-quoted ones */
		if (header && !strncmp(p, "diff --git ", 11))
			err = pr_buf_addf(out, "diff --git a/%s b/%s\n",
					  f->old_path, f->new_path);
		else if (header && !strncmp(p, "--- ", 4))
			err = f->status == PR_DIFF_ADDED
				      ? pr_buf_adds(out, "--- /dev/null\n")
				      : pr_buf_addf(out, "--- a/%s\n",
						    f->old_path);
		else if (header && !strncmp(p, "+++ ", 4))
			err = f->status == PR_DIFF_DELETED
				      ? pr_buf_adds(out, "+++ /dev/null\n")
				      : pr_buf_addf(out, "+++ b/%s\n",
						    f->new_path);
		else if (!drop)
			err = pr_buf_add(out, p, n);
		p += n;
	}
	return err;
}

/* 160-bit addition, as git's flush_one_hunk sums the per-file hashes. */
static void add_hash(unsigned char sum[20], const char hex[41])
{
	unsigned carry = 0;
	int i;

	for (i = 0; i < 20; i++) {
		unsigned v = 0;

		sscanf(hex + 2 * i, "%2x", &v);
		carry += sum[i] + v;
		sum[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

/*
 * git's internal commit_patch_id (stable) from the text patch id: the
 * stable id is a sum of one hash per file, so each file is hashed on its
 * own (git patch-id skips the header of a file that follows a binary
 * one), and a file without hunks gets the ---/+++ lines the internal id
 * hashes but the text does not show (mode changes, empty files).  Binary
 * files hash by their full blob ids, which libgit2 prints for them.
 */
static int internal_patch_id(char out[41], const struct pr_buf *text)
{
	struct pr_diff d = PR_DIFF_INIT;
	struct pr_buf one = PR_BUF_INIT;
	unsigned char sum[20] = { 0 };
	char id[41];
	size_t i;
	int err;

	err = pr_diff_parse(&d, text->ptr, text->len);
	for (i = 0; !err && i < d.nr; i++) {
		const struct pr_diff_file *f = &d.files[i];

		pr_buf_reset(&one);
		err = add_id_lines(&one, f, text->ptr + f->offset, f->len);
		if (!err && !f->binary && !f->nr_hunks) {
			if (f->status == PR_DIFF_ADDED)
				err = pr_buf_addf(&one,
						  "--- /dev/null\n+++ b/%s\n",
						  f->new_path);
			else if (f->status == PR_DIFF_DELETED)
				err = pr_buf_addf(&one,
						  "--- a/%s\n+++ /dev/null\n",
						  f->old_path);
			else
				err = pr_buf_addf(&one, "--- a/%s\n+++ b/%s\n",
						  f->old_path, f->new_path);
		}
		if (!err && f->binary)
			err = binary_id(id, one.ptr, one.len);
		else if (!err)
			err = pr_patch_id(id, one.ptr, one.len, true);
		if (!err)
			add_hash(sum, id);
	}
	for (i = 0; !err && i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", sum[i]);
	pr_buf_release(&one);
	pr_diff_release(&d);
	return err;
}

int pr_gitrepo_patch_id(char out[41], const char *dir, const char *rev)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_commit *c = NULL, *parent = NULL;
	git_tree *old = NULL, *new = NULL;
	struct pr_buf text = PR_BUF_INIT;
	struct pr_abbrev_ctx ctx = { 0 };
	int err;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 ||
	    git_revparse_single(&obj, repo, rev) < 0 ||
	    git_commit_lookup(&c, repo, git_object_id(obj)) < 0 ||
	    git_commit_tree(&new, c) < 0 ||
	    (git_commit_parentcount(c) > 0 &&
	     (git_commit_parent(&parent, c, 0) < 0 ||
	      git_commit_tree(&old, parent) < 0))) {
		err = pr_libgit_fail("revision", rev);
		goto done;
	}
	/* git's commit_patch_id finds renames as diff.renames says */
	err = pr_treediff_render(&text, NULL, repo, old, new, true, true, &ctx);
	if (!err)
		err = internal_patch_id(out, &text);
done:
	pr_abbrev_ctx_release(&ctx);
	pr_buf_release(&text);
	git_tree_free(old);
	git_tree_free(new);
	git_commit_free(parent);
	git_commit_free(c);
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return err;
}

/*
 * The one parent outside shown (nr commits, sorted) of a commit of shown:
 * 1 with out set, 0 when there are none or several, or an error.
 */
static int boundary_of(git_oid *out, git_repository *repo, const git_oid *shown,
		       size_t nr)
{
	git_commit *c = NULL;
	git_oid found;
	size_t i, nfound = 0;
	int ret = 0;

	for (i = 0; i < nr && nfound < 2; i++) {
		unsigned k, np;

		if (git_commit_lookup(&c, repo, &shown[i]) < 0) {
			char hex[GIT_OID_HEXSZ + 1];

			git_oid_tostr(hex, sizeof(hex), &shown[i]);
			return pr_libgit_fail("commit", hex);
		}
		np = git_commit_parentcount(c);
		for (k = 0; k < np && nfound < 2; k++) {
			const git_oid *pid = git_commit_parent_id(c, k);

			if (bsearch(pid, shown, nr, sizeof(*shown), oid_cmp))
				continue;
			if (!nfound || !git_oid_equal(&found, pid))
				found = *pid, nfound++;
		}
		git_commit_free(c);
		c = NULL;
	}
	if (nfound == 1) {
		*out = found;
		ret = 1;
	}
	return ret;
}

int pr_gitrepo_boundary(char out[41], const char *dir,
			const struct pr_version *v)
{
	git_repository *repo = NULL;
	git_oid *shown = NULL, found;
	size_t i;
	int ret = 0;

	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0) {
		ret = pr_libgit_fail("repository", dir);
		goto done;
	}
	shown = pr_reallocarray(NULL, v->nr ? v->nr : 1, sizeof(*shown));
	for (i = 0; i < v->nr; i++)
		if (git_oid_fromstr(&shown[i], v->patches[i]->commit_id) < 0) {
			ret = pr_error(PR_EINVAL, "patch %zu: no commit id",
				       i + 1);
			goto done;
		}
	qsort(shown, v->nr, sizeof(*shown), oid_cmp);
	ret = boundary_of(&found, repo, shown, v->nr);
	if (ret == 1)
		git_oid_tostr(out, 41, &found);
done:
	free(shown);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}
