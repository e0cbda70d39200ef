#include "base/pr.h"
#include "git/treediff.h"
#include "base/sha1.h"
#include "git/abbrev.h"
#include "git/diff.h"
#include "git/diffstat.h"
#include "git/gitcfg.h"
#include "git/libgit.h"
#include "git/similarity.h"

#include <ctype.h>
#include <git2.h>
#include <zlib.h>

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
 * libgit2's "GIT binary patch" data (p, up to its end) as git writes it:
 * libgit2 deflates at zlib's default level, git at Z_BEST_SPEED; the data
 * is the same, the bytes are not.  Each "literal N"/"delta N" hunk is
 * inflated and deflated again.  Which of the two is used stays libgit2's
 * choice (made on its own compressed sizes).
 */
static int git_binary(struct pr_buf *out, const char *p, size_t n)
{
	struct pr_buf z = PR_BUF_INIT;
	const char *end = p + n;
	int err = 0;

	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		unsigned long long size;
		int k = 0;

		if (len >= 40 ||
		    (sscanf(p, "literal %llu%n", &size, &k) != 1 &&
		     sscanf(p, "delta %llu%n", &size, &k) != 1) ||
		    (size_t)k != len || size > PR_LIMIT_DIFF_BYTES) {
			err = pr_buf_add(out, p, len + (nl ? 1 : 0));
			p += len + (nl ? 1 : 0);
			continue;
		}
		err = pr_buf_add(out, p, len + 1);
		p += len + 1;
		pr_buf_reset(&z);
		while (!err && p < end && *p != '\n') {
			nl = memchr(p, '\n', (size_t)(end - p));
			len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			if (b85_line(&z, p, len))
				err = pr_error(PR_EPARSE,
					       "binary patch: bad base85 line");
			p += len + (nl ? 1 : 0);
		}
		if (!err)
			err = redeflate(out, &z, (size_t)size);
		if (err == PR_EPARSE && !*pr_error_message())
			err = pr_error(PR_EPARSE, "binary patch: bad deflate "
						  "data");
	}
	pr_buf_release(&z);
	return err;
}

/* ---- the config and the pairs of a tree diff ---- */

/* git_config_rename: copies, copy, or a boolean (renames or none) */
static int parse_renames(int *out, const char *v)
{
	int b;

	if (v && (!strcasecmp(v, "copies") || !strcasecmp(v, "copy"))) {
		*out = PR_SIM_COPIES;
		return 0;
	}
	b = pr_gitcfg_bool(v);
	if (b < 0)
		return pr_error(PR_EINVAL,
				"config diff.renames '%s': not a "
				"boolean or 'copies'",
				v);
	*out = b ? PR_SIM_RENAMES : PR_SIM_NO_RENAMES;
	return 0;
}

/* The command line's value of key, else the files', in *v; false: none. */
static bool config_get(const char **v, git_buf *val,
		       const struct pr_gitcfg *cmd, git_config *cfg,
		       const char *key)
{
	if (pr_gitcfg_get(cmd, key, v))
		return true;
	if (git_config_get_string_buf(val, cfg, key) < 0) {
		git_error_clear();
		return false;
	}
	*v = val->ptr;
	return true;
}

int pr_treediff_config(struct pr_sim_opts *o, git_repository *repo)
{
	struct pr_gitcfg cmd = PR_GITCFG_INIT;
	git_config *cfg = NULL;
	git_buf val = { 0 };
	const char *v;
	char *end = NULL;
	long n;
	int err;

	if (o->detect != PR_SIM_FROM_CONFIG && !o->copy_on_config &&
	    o->rename_limit >= 0)
		return 0;
	if ((err = pr_gitcfg_read_env(&cmd)) ||
	    (err = pr_libgit_config(&cfg, repo)))
		goto done;
	if (o->detect == PR_SIM_FROM_CONFIG || o->copy_on_config) {
		int cfg_detect = PR_SIM_RENAMES;

		if (config_get(&v, &val, &cmd, cfg, "diff.renames"))
			err = parse_renames(&cfg_detect, v);
		if (o->detect == PR_SIM_FROM_CONFIG)
			o->detect = cfg_detect;
		/* -C on diff.renames=copies is -C -C */
		if (cfg_detect == PR_SIM_COPIES && o->copy_on_config)
			o->copies_harder = true;
		o->copy_on_config = false;
	}
	git_buf_dispose(&val);
	if (!err && o->rename_limit < 0) {
		o->rename_limit = PR_SIM_RENAME_LIMIT;
		if (config_get(&v, &val, &cmd, cfg, "diff.renamelimit")) {
			n = v ? strtol(v, &end, 10) : 0;
			if (!v || !*v || *end || n < INT32_MIN || n > INT32_MAX)
				err = pr_error(PR_EINVAL,
					       "config diff.renameLimit '%s': "
					       "not a number",
					       v ? v : "");
			o->rename_limit = (int)n;
		}
	}
done:
	git_buf_dispose(&val);
	git_config_free(cfg);
	pr_gitcfg_release(&cmd);
	return err;
}

/* How the pairing reads blobs: from the repository's object database. */
struct odb_reader {
	git_repository *repo;
	git_odb *odb;
};

static int sim_size(size_t *size, const struct pr_sim_file *f, void *payload)
{
	struct odb_reader *r = payload;
	git_object_t type;
	git_oid id;

	git_oid_fromraw(&id, f->id);
	if (git_odb_read_header(size, &type, r->odb, &id) < 0)
		return pr_libgit_fail("blob", f->path);
	return 0;
}

static int sim_read(const char **data, size_t *size, void **handle,
		    const struct pr_sim_file *f, void *payload)
{
	struct odb_reader *r = payload;
	git_blob *blob = NULL;
	git_oid id;

	git_oid_fromraw(&id, f->id);
	if (git_blob_lookup(&blob, r->repo, &id) < 0)
		return pr_libgit_fail("blob", f->path);
	*data = git_blob_rawcontent(blob);
	*size = (size_t)git_blob_rawsize(blob);
	*handle = blob;
	return 0;
}

static void sim_release(void *handle, void *payload)
{
	(void)payload;
	git_blob_free(handle);
}

struct delta_order {
	const char *path;
	size_t idx;
};

static int delta_cmp(const void *a, const void *b)
{
	const struct delta_order *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * The pairs of old and new as git's tree diff queues them (by path, a
 * type change as one pair, unmodified files too under -C -C), paired and
 * named as diffcore_std does.
 */
static int tree_pairs(struct pr_sim_queue *q, git_repository *repo,
		      git_tree *old, git_tree *new, const struct pr_sim_opts *o)
{
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	struct odb_reader rd = { repo, NULL };
	struct pr_sim_reader reader = { sim_size, sim_read, sim_release, &rd };
	struct delta_order *order = NULL;
	git_diff *diff = NULL;
	size_t i, n;
	int err = 0;

	dopts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
	if (o->detect == PR_SIM_COPIES && o->copies_harder)
		dopts.flags |= GIT_DIFF_INCLUDE_UNMODIFIED;
	if (git_diff_tree_to_tree(&diff, repo, old, new, &dopts) < 0 ||
	    git_repository_odb(&rd.odb, repo) < 0) {
		err = pr_libgit_fail("diff of", "tree");
		goto done;
	}
	n = git_diff_num_deltas(diff);
	order = pr_calloc(n + 1, sizeof(*order));
	for (i = 0; i < n; i++) {
		order[i].path = git_diff_get_delta(diff, i)->new_file.path;
		order[i].idx = i;
	}
	qsort(order, n, sizeof(*order), delta_cmp);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d =
			git_diff_get_delta(diff, order[i].idx);
		bool gone = d->status == GIT_DELTA_DELETED;
		bool added = d->status == GIT_DELTA_ADDED;

		pr_sim_queue_add(q, order[i].path, added ? 0 : d->old_file.mode,
				 d->old_file.id.id, gone ? 0 : d->new_file.mode,
				 d->new_file.id.id);
	}
	err = pr_sim_run(q, o, &reader);
done:
	free(order);
	git_odb_free(rd.odb);
	git_diff_free(diff);
	return err;
}

/* tree_pairs() with o's config part read (o NULL: git's defaults). */
static int pairs_of(struct pr_sim_queue *q, git_repository *repo, git_tree *old,
		    git_tree *new, const struct pr_sim_opts *o)
{
	struct pr_sim_opts opts = PR_SIM_OPTS_INIT;
	int err;

	if (o)
		opts = *o;
	err = pr_treediff_config(&opts, repo);
	return err ? err : tree_pairs(q, repo, old, new, &opts);
}

/* What git reads of the pairs before its first index line. */
static void add_seeds(struct pr_abbrev_ctx *ctx, const struct pr_sim_queue *q,
		      git_tree *old, git_tree *new)
{
	size_t i;

	if (old)
		pr_abbrev_ctx_add(ctx, git_tree_id(old));
	if (new)
		pr_abbrev_ctx_add(ctx, git_tree_id(new));
	for (i = 0; i < q->nr; i++) {
		const struct pr_sim_pair *p = &q->pairs[i];
		git_oid a, b;

		pr_abbrev_ctx_add_dirs(ctx, old, p->one->path);
		pr_abbrev_ctx_add_dirs(ctx, new, p->two->path);
		/* an unchanged blob (a pure rename) is not read */
		if (!memcmp(p->one->id, p->two->id, 20))
			continue;
		git_oid_fromraw(&a, p->one->id);
		git_oid_fromraw(&b, p->two->id);
		pr_abbrev_ctx_add(ctx, &a);
		pr_abbrev_ctx_add(ctx, &b);
	}
}

/* ---- one pair as git's diff.c writes it ---- */

/* The bytes of one side: a blob, a submodule's line, or nothing. */
struct content {
	const char *data;
	size_t len;
	git_blob *blob;
	struct pr_buf line;
	bool binary;
};

static int content_load(struct content *c, git_repository *repo,
			const struct pr_sim_file *f)
{
	git_oid id;

	memset(c, 0, sizeof(*c));
	c->line = (struct pr_buf)PR_BUF_INIT;
	c->data = "";
	if (!f->mode)
		return 0;
	git_oid_fromraw(&id, f->id);
	if ((f->mode & 0170000) == 0160000) {
		/* git diffs a submodule as this line */
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &id);
		pr_buf_addf(&c->line, "Subproject commit %s\n", hex);
		c->data = c->line.ptr;
		c->len = c->line.len;
		return 0;
	}
	if (git_blob_lookup(&c->blob, repo, &id) < 0)
		return pr_libgit_fail("blob", f->path);
	c->data = git_blob_rawcontent(c->blob);
	c->len = (size_t)git_blob_rawsize(c->blob);
	c->binary = pr_sim_is_binary(c->data, c->len);
	return 0;
}

static void content_release(struct content *c)
{
	git_blob_free(c->blob);
	pr_buf_release(&c->line);
}

struct render {
	git_repository *repo;
	bool binary; /* --binary */
	struct pr_buf *text;
	/* the pair of each "diff --git" section, for the stat */
	size_t *pair_of;
	size_t nr_sections, alloc;
};

/* git's isspace: space, tab, LF and CR only */
static bool git_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* git's pick_one_utf8_char: the length of the character at s, 0: invalid */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80	     ? 1
		     : (s[0] & 0xe0) == 0xc0 ? 2
		     : (s[0] & 0xf0) == 0xe0 ? 3
		     : (s[0] & 0xf8) == 0xf0 ? 4
					     : 0;
	size_t i;

	if (!len || len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, surrogates, U+FFFE and U+FFFF, past U+10FFFF */
	if ((len == 2 && (s[0] & 0xfe) == 0xc0) ||
	    (len == 3 && s[0] == 0xe0 && (s[1] & 0xe0) == 0x80) ||
	    (len == 3 && s[0] == 0xed && (s[1] & 0xe0) == 0xa0) ||
	    (len == 3 && s[0] == 0xef && s[1] == 0xbf &&
	     (s[2] & 0xfe) == 0xbe) ||
	    (len == 4 && s[0] == 0xf0 && (s[1] & 0xf0) == 0x80) ||
	    (len == 4 && ((s[0] == 0xf4 && s[1] > 0x8f) || s[0] > 0xf4)))
		return 0;
	return len;
}

/*
 * The line of old that gave the function text f (flen bytes): the last
 * one above the hunk (lines before the 0-based start) that begins with
 * it.  NULL when there is none (a diff driver's pattern took part of a
 * line).
 */
static const char *func_line(size_t *len, const struct content *old,
			     size_t start, const char *f, size_t flen)
{
	const char *p = old->data, *end = p + old->len, *found = NULL;
	size_t i;

	for (i = 0; i < start && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl + 1 : end;

		if ((size_t)(e - p) >= flen && !memcmp(p, f, flen)) {
			found = p;
			*len = (size_t)(e - p);
		}
		p = e;
	}
	return found;
}

/*
 * A hunk header as git writes it.  libgit2 picks the same function line
 * but trims it before cutting it at 80 bytes, git after; and both cut the
 * header at its first byte that is not UTF-8 (git's sane_truncate_line),
 * git after trimming.  So the line is found again in old and cut as git
 * cuts it.
 */
static int hunk_header(struct pr_buf *out, const git_diff_hunk *h,
		       const struct content *old)
{
	const char *p = h->header, *at, *line = NULL;
	size_t len = h->header_len, head, n, i, k, llen = 0;
	struct pr_buf hdr = PR_BUF_INIT;
	int err;

	at = len > 4 ? memmem(p + 4, len - 4, " @@", 3) : NULL;
	head = at ? (size_t)(at + 3 - p) : len;
	n = len && p[len - 1] == '\n' ? len - 1 : len;
	if (at && n > head + 1 && old)
		line = func_line(&llen, old,
				 (size_t)(h->old_lines ? h->old_start - 1
						       : h->old_start),
				 p + head + 1, n - head - 1);
	pr_buf_add(&hdr, p, line ? head : n);
	if (line) {
		/* xdiff's def_ff: 80 bytes of the line, then trimmed */
		if (llen > 80)
			llen = 80;
		while (llen && git_space(line[llen - 1]))
			llen--;
		if (llen) {
			pr_buf_addch(&hdr, ' ');
			pr_buf_add(&hdr, line, llen);
		}
	}
	for (i = 0; i < hdr.len; i += k)
		if (!(k = utf8_char((unsigned char *)hdr.ptr + i, hdr.len - i)))
			break;
	err = pr_buf_add(out, hdr.ptr, i);
	if (!err)
		err = pr_buf_addch(out, '\n');
	pr_buf_release(&hdr);
	return err;
}

struct printer {
	struct pr_buf *out;
	const struct content *old;
};

static int print_line(const git_diff_delta *d, const git_diff_hunk *h,
		      const git_diff_line *l, void *payload)
{
	struct printer *pr = payload;
	struct pr_buf *out = pr->out;

	(void)d;
	switch (l->origin) {
	case GIT_DIFF_LINE_CONTEXT:
	case GIT_DIFF_LINE_ADDITION:
	case GIT_DIFF_LINE_DELETION:
		if (pr_buf_addch(out, l->origin))
			return -1;
		break;
	case GIT_DIFF_LINE_FILE_HDR:
		return 0;
	case GIT_DIFF_LINE_HUNK_HDR:
		return hunk_header(out, h, pr->old) ? -1 : 0;
	default:
		/* "\ No newline", binary data: as they are */
		break;
	}
	return pr_buf_add(out, l->content, l->content_len) ? -1 : 0;
}

/*
 * The hunks (or, binary, libgit2's binary patch) of c1 -> c2, with the
 * paths libgit2 reads attributes for.
 */
static int body(struct pr_buf *out, const char *path, const struct content *c1,
		const struct content *c2, bool binary)
{
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	struct pr_buf raw = PR_BUF_INIT;
	struct printer pr;
	git_patch *patch = NULL;
	int err = 0, r;

	o.flags = binary ? GIT_DIFF_FORCE_BINARY | GIT_DIFF_SHOW_BINARY
			 : GIT_DIFF_FORCE_TEXT | GIT_DIFF_INDENT_HEURISTIC;
	/* a blob or nothing on each side, else a submodule's line */
	if (!c1->line.len && !c2->line.len)
		r = git_patch_from_blobs(&patch, c1->blob, path, c2->blob, path,
					 &o);
	else if (!c1->line.len)
		r = git_patch_from_blob_and_buffer(&patch, c1->blob, path,
						   c2->data, c2->len, path, &o);
	else
		r = git_patch_from_buffers(&patch, c1->data, c1->len, path,
					   c2->data, c2->len, path, &o);
	pr.out = binary ? &raw : out;
	pr.old = c1;
	if (r < 0 || git_patch_print(patch, print_line, &pr))
		err = pr_libgit_fail("diff of", path);
	if (!err && binary)
		err = git_binary(out, raw.ptr, raw.len);
	pr_buf_release(&raw);
	git_patch_free(patch);
	return err;
}

/* ---- git's internal patch id (diff_get_patch_id), from the pairs ---- */

/* data to the hash without white space, as git's remove_space */
static void hash_nospace(struct pr_sha1 *c, const char *p, size_t len)
{
	size_t i, k;

	for (i = 0; i < len; i = k) {
		for (k = i; k < len && !isspace((unsigned char)p[k]); k++)
			;
		pr_sha1_update(c, p + i, k - i);
		while (k < len && isspace((unsigned char)p[k]))
			k++;
	}
}

static int id_line(const git_diff_delta *d, const git_diff_hunk *h,
		   const git_diff_line *l, void *payload)
{
	struct pr_sha1 *c = payload;
	char o = (char)l->origin;

	(void)d;
	(void)h;
	/* the lines with their sign; no hunk headers, no "\ No newline" */
	if (o != GIT_DIFF_LINE_CONTEXT && o != GIT_DIFF_LINE_ADDITION &&
	    o != GIT_DIFF_LINE_DELETION)
		return 0;
	/* a context line's sign is a space: it goes too */
	hash_nospace(c, &o, 1);
	hash_nospace(c, l->content, l->content_len);
	return 0;
}

static void hash_str(struct pr_sha1 *c, const char *s, bool nospace)
{
	if (nospace)
		hash_nospace(c, s, strlen(s));
	else
		pr_sha1_update(c, s, strlen(s));
}

static void hash_mode(struct pr_sha1 *c, const char *what, unsigned mode)
{
	char buf[16];

	hash_str(c, what, false);
	snprintf(buf, sizeof(buf), "%06o", mode);
	hash_str(c, buf, false);
}

/* One pair's hash, added to sum as git's flush_one_hunk adds it. */
static int pair_id(unsigned char sum[20], git_repository *repo,
		   const struct pr_sim_pair *p)
{
	const struct pr_sim_file *one = p->one, *two = p->two;
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	struct content c1, c2;
	git_patch *patch = NULL;
	struct pr_sha1 c;
	unsigned char h[20];
	unsigned carry = 0;
	int err, i;

	pr_sha1_init(&c);
	hash_str(&c, "diff--gita/", false);
	hash_str(&c, one->path, true);
	hash_str(&c, "b/", false);
	hash_str(&c, two->path, true);
	if (!one->mode)
		hash_mode(&c, "newfilemode", two->mode);
	else if (!two->mode)
		hash_mode(&c, "deletedfilemode", one->mode);
	else if (one->mode != two->mode) {
		hash_mode(&c, "oldmode", one->mode);
		hash_mode(&c, "newmode", two->mode);
	}
	err = content_load(&c1, repo, one);
	if (!err)
		err = content_load(&c2, repo, two);
	if (!err && (c1.binary || c2.binary)) {
		char hex[GIT_OID_HEXSZ + 1];
		git_oid id;

		git_oid_fromraw(&id, one->id);
		pr_sha1_update(&c, git_oid_tostr(hex, sizeof(hex), &id), 40);
		git_oid_fromraw(&id, two->id);
		pr_sha1_update(&c, git_oid_tostr(hex, sizeof(hex), &id), 40);
	} else if (!err) {
		hash_str(&c, one->mode ? "---a/" : "---/dev/null", false);
		if (one->mode)
			hash_str(&c, one->path, true);
		hash_str(&c, two->mode ? "+++b/" : "+++/dev/null", false);
		if (two->mode)
			hash_str(&c, two->path, true);
		/* git's plain xdiff here: no indent heuristic */
		o.flags = GIT_DIFF_FORCE_TEXT;
		if (git_patch_from_buffers(&patch, c1.data, c1.len, NULL,
					   c2.data, c2.len, NULL, &o) < 0 ||
		    git_patch_print(patch, id_line, &c) < 0)
			err = pr_libgit_fail("patch id of", two->path);
	}
	git_patch_free(patch);
	content_release(&c1);
	content_release(&c2);
	pr_sha1_final(h, &c);
	for (i = 0; i < 20; i++) {
		carry += sum[i] + h[i];
		sum[i] = (unsigned char)carry;
		carry >>= 8;
	}
	return err;
}

int pr_treediff_patch_id(char out[41], git_repository *repo, git_tree *old,
			 git_tree *new)
{
	struct pr_sim_queue q = PR_SIM_QUEUE_INIT;
	unsigned char sum[20] = { 0 };
	size_t i;
	int err = pairs_of(&q, repo, old, new, NULL);

	for (i = 0; !err && i < q.nr; i++)
		err = pair_id(sum, repo, &q.pairs[i]);
	for (i = 0; !err && i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", sum[i]);
	pr_sim_queue_release(&q);
	return err;
}

/* git's count_lines: a last line without '\n' counts too */
static size_t count_lines(const char *p, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len; i++)
		n += p[i] == '\n';
	return n + (len && p[len - 1] != '\n');
}

static void line_count(struct pr_buf *out, size_t n)
{
	if (n == 1)
		pr_buf_adds(out, "1");
	else
		pr_buf_addf(out, n ? "1,%zu" : "0,0", n);
}

static void rewrite_lines(struct pr_buf *out, int sign, const char *p,
			  size_t len)
{
	const char *end = p + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl + 1 : end;

		pr_buf_addch(out, sign);
		pr_buf_add(out, p, (size_t)(eol - p));
		if (!nl)
			pr_buf_adds(out, "\n\\ No newline at end of file\n");
		p = eol;
	}
}

/* emit_rewrite_diff: -B's complete rewrite, every line out and in */
static void rewrite(struct pr_buf *out, const struct content *c1,
		    const struct content *c2)
{
	pr_buf_adds(out, "@@ -");
	line_count(out, count_lines(c1->data, c1->len));
	pr_buf_adds(out, " +");
	line_count(out, count_lines(c2->data, c2->len));
	pr_buf_adds(out, " @@\n");
	rewrite_lines(out, '-', c1->data, c1->len);
	rewrite_lines(out, '+', c2->data, c2->len);
}

/* "--- a/x" and "+++ b/y", a tab after a name with a space (GNU patch) */
static void labels(struct pr_buf *out, const char *l0, const char *l1)
{
	pr_buf_addf(out, "--- %s%s\n+++ %s%s\n", l0,
		    strchr(l0, ' ') ? "\t" : "", l1,
		    strchr(l1, ' ') ? "\t" : "");
}

static void index_line(struct pr_buf *out, const struct pr_sim_file *one,
		       const struct pr_sim_file *two)
{
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
	git_oid x, y;

	/* full ids: pr_abbrev_index_lines() abbreviates them as git does */
	git_oid_fromraw(&x, one->id);
	git_oid_fromraw(&y, two->id);
	git_oid_tostr(a, sizeof(a), &x);
	git_oid_tostr(b, sizeof(b), &y);
	pr_buf_addf(out, "index %s..%s", a, b);
	if (one->mode == two->mode)
		pr_buf_addf(out, " %06o", one->mode);
	pr_buf_addch(out, '\n');
}

/* fill_metainfo: similarity, copy or rename lines, the index line */
static bool metainfo(struct pr_buf *out, const struct pr_sim_pair *p,
		     const struct pr_sim_file *one,
		     const struct pr_sim_file *two)
{
	const char *what = p->status == 'C' ? "copy" : "rename";
	bool must_show = true;

	switch (p->status) {
	case 'C':
	case 'R':
		pr_buf_addf(out, "similarity index %d%%\n%s from ",
			    pr_sim_percent(p->score), what);
		pr_diff_quote(out, p->one->path);
		pr_buf_addf(out, "\n%s to ", what);
		pr_diff_quote(out, p->two->path);
		pr_buf_addch(out, '\n');
		break;
	case 'M':
		if (p->score) {
			pr_buf_addf(out, "dissimilarity index %d%%\n",
				    pr_sim_percent(p->score));
			break;
		}
		must_show = false;
		break;
	default:
		must_show = false;
	}
	if (memcmp(one->id, two->id, 20))
		index_line(out, one, two);
	return must_show;
}

/* builtin_diff for one side pair (a type change is written as two) */
static int half(struct render *rd, size_t idx, const struct pr_sim_pair *p,
		const struct pr_sim_file *one, const struct pr_sim_file *two,
		const struct content *c1, const struct content *c2)
{
	const char *name_a = p->one->path, *name_b = p->two->path;
	struct pr_buf hdr = PR_BUF_INIT, meta = PR_BUF_INIT, a = PR_BUF_INIT,
		      b = PR_BUF_INIT, text = PR_BUF_INIT;
	const char *l0, *l1;
	bool must_show = metainfo(&meta, p, one, two), bin;
	int err = 0;

	/* never a name of a side that does not exist */
	if (!one->mode)
		name_a = name_b;
	if (!two->mode)
		name_b = name_a;
	pr_diff_quote_two(&a, "a/", name_a);
	pr_diff_quote_two(&b, "b/", name_b);
	l0 = one->mode ? a.ptr : "/dev/null";
	l1 = two->mode ? b.ptr : "/dev/null";
	pr_buf_addf(&hdr, "diff --git %s %s\n", a.ptr, b.ptr);
	if (!one->mode || !two->mode) {
		pr_buf_addf(&hdr, "%s file mode %06o\n",
			    one->mode ? "deleted" : "new",
			    one->mode ? one->mode : two->mode);
		must_show = true;
	} else if (one->mode != two->mode) {
		pr_buf_addf(&hdr, "old mode %06o\nnew mode %06o\n", one->mode,
			    two->mode);
		must_show = true;
	}
	pr_buf_addbuf(&hdr, &meta);
	bin = c1->binary || c2->binary;
	if (one->mode && two->mode &&
	    ((one->mode ^ two->mode) & 0170000)) /* no diff across types */
		goto done;
	if (one->mode && two->mode && p->status == 'M' && p->score && !bin) {
		labels(&text, l0, l1);
		rewrite(&text, c1, c2);
		must_show = true;
	} else if (bin && c1->len == c2->len &&
		   !memcmp(c1->data, c2->data, c1->len)) {
		/* the same bytes: nothing below the header */
	} else if (bin && rd->binary) {
		/* libgit2's text starts with "GIT binary patch" */
		err = body(&text, name_b, c1, c2, true);
	} else if (bin) {
		pr_buf_addf(&text, "Binary files %s and %s differ\n", l0, l1);
	} else {
		err = body(&text, name_b, c1, c2, false);
		if (!err && text.len) {
			struct pr_buf t = PR_BUF_INIT;

			labels(&t, l0, l1);
			pr_buf_addbuf(&t, &text);
			pr_buf_release(&text);
			text = t;
		}
	}
	if (err || (!must_show && !text.len))
		goto done;
	PR_ALLOC_GROW(rd->pair_of, rd->nr_sections + 1, rd->alloc);
	rd->pair_of[rd->nr_sections++] = idx;
	err = pr_buf_addbuf(rd->text, &hdr);
	if (!err)
		err = pr_buf_addbuf(rd->text, &text);
done:
	pr_buf_release(&hdr);
	pr_buf_release(&meta);
	pr_buf_release(&a);
	pr_buf_release(&b);
	pr_buf_release(&text);
	return err;
}

static int render_pair(struct render *rd, size_t idx,
		       const struct pr_sim_pair *p)
{
	struct content c1, c2, none;
	struct pr_sim_file null_one = { 0 }, null_two = { 0 };
	int err;

	memset(&none, 0, sizeof(none));
	none.data = "";
	none.line = (struct pr_buf)PR_BUF_INIT;
	err = content_load(&c1, rd->repo, p->one);
	if (!err)
		err = content_load(&c2, rd->repo, p->two);
	if (err)
		goto done;
	if (p->status != 'T') {
		err = half(rd, idx, p, p->one, p->two, &c1, &c2);
		goto done;
	}
	/* a file that became a symlink: a deletion, then a creation */
	null_two.path = p->two->path;
	null_one.path = p->one->path;
	err = half(rd, idx, p, p->one, &null_two, &c1, &none);
	if (!err)
		err = half(rd, idx, p, &null_one, p->two, &none, &c2);
done:
	content_release(&c1);
	content_release(&c2);
	return err;
}

/*
 * What the diff text cannot tell the stat: a binary file's sizes ("Bin X
 * -> Y bytes"), that a renamed binary file with no change is binary, and
 * -B's score of a type change (its halves have no dissimilarity line).
 */
static void stat_sizes(struct pr_diff *parsed, const struct render *rd,
		       const struct pr_sim_queue *q)
{
	size_t i;

	for (i = 0; i < parsed->nr && i < rd->nr_sections; i++) {
		const struct pr_sim_pair *p = &q->pairs[rd->pair_of[i]];
		struct pr_diff_file *f = &parsed->files[i];

		/* -B's rewrite of a type change: the text cannot say */
		if (p->status == 'T' && p->score) {
			f->rewrite = true;
			f->similarity = pr_sim_percent(p->score);
		}
		if (!f->binary && p->one->binary &&
		    !memcmp(p->one->id, p->two->id, 20)) {
			/* renamed unchanged: a bare "Bin" as git prints it */
			f->binary = true;
		} else if (f->binary && !f->binary_sizes) {
			f->binary_sizes = true;
			f->old_size = f->status == PR_DIFF_ADDED ? 0
								 : p->one->size;
			f->new_size =
				f->status == PR_DIFF_DELETED ? 0 : p->two->size;
		}
	}
}

static int learn_size(struct pr_sim_file *f, git_repository *repo)
{
	struct content c;
	int err;

	if (!f->mode || f->have_spans)
		return 0;
	err = content_load(&c, repo, f);
	f->size = c.len;
	f->binary = c.binary;
	content_release(&c);
	return err;
}

/* Sizes and binary-ness of both sides of every pair, for the stat. */
static int learn_sizes(struct pr_sim_queue *q, git_repository *repo)
{
	size_t i;
	int err = 0;

	for (i = 0; i < q->nr && !err; i++) {
		err = learn_size(q->pairs[i].one, repo);
		if (!err)
			err = learn_size(q->pairs[i].two, repo);
	}
	return err;
}

int pr_treediff_seeds(struct pr_abbrev_ctx *ctx, git_repository *repo,
		      git_tree *old, git_tree *new, const struct pr_sim_opts *o)
{
	struct pr_sim_queue q = PR_SIM_QUEUE_INIT;
	int err = pairs_of(&q, repo, old, new, o);

	if (!err)
		add_seeds(ctx, &q, old, new);
	pr_sim_queue_release(&q);
	return err;
}

/* The diff text and --stat --summary text between two trees. */
int pr_treediff_render(struct pr_buf *text, struct pr_buf *stat,
		       git_repository *repo, git_tree *old, git_tree *new,
		       const struct pr_sim_opts *o, bool binary,
		       struct pr_abbrev_ctx *ctx)
{
	struct pr_sim_queue q = PR_SIM_QUEUE_INIT;
	struct render rd = { repo, binary, text, NULL, 0, 0 };
	struct pr_diff parsed = PR_DIFF_INIT;
	size_t i, start = text->len;
	int err = pairs_of(&q, repo, old, new, o);

	for (i = 0; !err && i < q.nr; i++)
		err = render_pair(&rd, i, &q.pairs[i]);
	if (!err && !ctx->len)
		add_seeds(ctx, &q, old, new);
	if (!err)
		err = pr_abbrev_index_lines(text, repo, ctx);
	if (err || !stat)
		goto done;
	/* the stat is computed from the text, as it is for mails */
	err = learn_sizes(&q, repo);
	if (!err)
		err = pr_diff_parse(&parsed, text->ptr + start,
				    text->len - start);
	if (!err)
		stat_sizes(&parsed, &rd, &q);
	if (!err)
		err = pr_diffstat_format(stat, &parsed);
	if (!err)
		err = pr_diff_summary_format(stat, &parsed);
done:
	free(rd.pair_of);
	pr_diff_release(&parsed);
	pr_sim_queue_release(&q);
	return err;
}
