#include "base/pr.h"
#include "git/treediff.h"
#include "git/abbrev.h"
#include "git/diff.h"
#include "git/diffstat.h"
#include "git/libgit.h"

#include <git2.h>
#include <git2/sys/hashsig.h>
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
int pr_treediff_render(struct pr_buf *text, struct pr_buf *stat,
		       git_repository *repo, git_tree *old, git_tree *new,
		       bool renames, bool binary, struct pr_abbrev_ctx *ctx)
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
	/* where the text gives no sizes for "Bin A -> B bytes", libgit2 does */
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
