/*
 * Diff parser and patch-id, following what git apply and git patch-id do
 * with the same text (the diffstat and --summary are diffstat.c's).
 *
 * Binary files: the diffstat of git format-patch shows "Bin X -> Y bytes"
 * with the blob sizes.  A text diff only carries them in a "GIT binary
 * patch": a "literal N" hunk gives its blob's size, a delta hunk both, at
 * the start of its deflated data (read here by a small inflater); for a
 * "Binary files ... differ" line the sizes are unknown and the stat line
 * is a bare "Bin".
 */
#include <ctype.h>

#include "base/pr.h"
#include "git/diff.h"
#include "base/sha1.h"

struct line {
	const char *p; /* start of the line */
	size_t len; /* without the '\n' */
	size_t end; /* offset just past the '\n' (or the end of the text) */
};

struct cursor {
	const char *text;
	size_t len, pos, lineno;
};

static bool next_line(struct cursor *c, struct line *l)
{
	const char *nl;

	if (c->pos >= c->len)
		return false;
	l->p = c->text + c->pos;
	nl = memchr(l->p, '\n', c->len - c->pos);
	l->len = nl ? (size_t)(nl - l->p) : c->len - c->pos;
	l->end = c->pos + l->len + (nl ? 1 : 0);
	c->pos = l->end;
	c->lineno++;
	return true;
}

static bool peek_line(const struct cursor *c, struct line *l)
{
	struct cursor copy = *c;

	return next_line(&copy, l);
}

static bool starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l->len >= n && !memcmp(l->p, prefix, n);
}

/*
 * Unquote a C-style quoted name starting at s[0] == '"'.  Returns the
 * number of bytes consumed (including both quotes), 0 if malformed.
 */
static size_t unquote(struct pr_buf *out, const char *s, size_t len)
{
	size_t i = 1;

	while (i < len) {
		unsigned char ch = s[i++];

		if (ch == '"')
			return i;
		if (ch != '\\') {
			pr_buf_addch(out, ch);
			continue;
		}
		if (i >= len)
			return 0;
		ch = s[i++];
		switch (ch) {
		case 'a':
			ch = '\a';
			break;
		case 'b':
			ch = '\b';
			break;
		case 't':
			ch = '\t';
			break;
		case 'n':
			ch = '\n';
			break;
		case 'v':
			ch = '\v';
			break;
		case 'f':
			ch = '\f';
			break;
		case 'r':
			ch = '\r';
			break;
		case '"':
		case '\\':
			break;
		case '0':
		case '1':
		case '2':
		case '3':
			if (i + 1 >= len || s[i] < '0' || s[i] > '7' ||
			    s[i + 1] < '0' || s[i + 1] > '7')
				return 0;
			ch = (ch - '0') << 6 | (s[i] - '0') << 3 |
			     (s[i + 1] - '0');
			i += 2;
			break;
		default:
			return 0;
		}
		pr_buf_addch(out, ch);
	}
	return 0;
}

/* The bytes of s with git's C escapes, no quotes around. */
static void quote_body(struct pr_buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = *s;
		const char *esc = NULL;

		switch (ch) {
		case '\a':
			esc = "\\a";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\t':
			esc = "\\t";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\v':
			esc = "\\v";
			break;
		case '\f':
			esc = "\\f";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		}
		if (esc)
			pr_buf_adds(out, esc);
		else if (ch < 0x20 || ch >= 0x7f)
			pr_buf_addf(out, "\\%03o", ch);
		else
			pr_buf_addch(out, ch);
	}
}

bool pr_diff_needs_quote(const char *s)
{
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			return true;
	}
	return false;
}

void pr_diff_quote(struct pr_buf *out, const char *s)
{
	if (!pr_diff_needs_quote(s)) {
		pr_buf_adds(out, s);
		return;
	}
	pr_buf_addch(out, '"');
	quote_body(out, s);
	pr_buf_addch(out, '"');
}

void pr_diff_quote_two(struct pr_buf *out, const char *prefix, const char *s)
{
	if (!pr_diff_needs_quote(prefix) && !pr_diff_needs_quote(s)) {
		pr_buf_adds(out, prefix);
		pr_buf_adds(out, s);
		return;
	}
	pr_buf_addch(out, '"');
	quote_body(out, prefix);
	quote_body(out, s);
	pr_buf_addch(out, '"');
}

/* Drop the first path component ("a/", "b/"), as git apply -p1 does. */
static char *strip_p1(const char *name, size_t len)
{
	const char *slash = memchr(name, '/', len);

	if (slash) {
		len -= slash + 1 - name;
		name = slash + 1;
	}
	return pr_memdup(name, len);
}

/*
 * The name of a "---", "+++", "rename from" ... line; strip_prefix drops
 * the first component.  *name stays NULL for /dev/null.
 */
static int line_name(char **name, const char *s, size_t len, bool strip_prefix,
		     size_t lineno)
{
	struct pr_buf b = PR_BUF_INIT;
	const char *tab;

	free(*name);
	*name = NULL;
	if (len && s[0] == '"') {
		if (!unquote(&b, s, len)) {
			pr_buf_release(&b);
			return pr_error(PR_EPARSE,
					"diff line %zu: bad quoted file name",
					lineno);
		}
	} else {
		/* plain diffs put a tab and a timestamp after the name */
		tab = memchr(s, '\t', len);
		if (tab)
			len = tab - s;
		while (len && (s[len - 1] == '\r' || s[len - 1] == ' '))
			len--;
		pr_buf_add(&b, s, len);
	}
	if (!b.len) {
		pr_buf_release(&b);
		return pr_error(PR_EPARSE, "diff line %zu: empty file name",
				lineno);
	}
	if (strcmp(b.ptr, "/dev/null"))
		*name = strip_prefix ? strip_p1(b.ptr, b.len)
				     : pr_memdup(b.ptr, b.len);
	pr_buf_release(&b);
	return 0;
}

/*
 * The names of "diff --git a/x b/y".  Unquoted names with spaces are
 * ambiguous; like git, take the split where both sides name the same file
 * and otherwise leave the names to the rename/---/+++ lines.
 */
static void git_header_names(struct pr_diff_file *f, const char *s, size_t len)
{
	struct pr_buf a = PR_BUF_INIT, b = PR_BUF_INIT;
	size_t n, half;

	while (len && s[len - 1] == '\r')
		len--;
	if (len && s[0] == '"') {
		n = unquote(&a, s, len);
		if (!n || n >= len || s[n] != ' ')
			goto done;
		s += n + 1;
		len -= n + 1;
		if (len && s[0] == '"') {
			if (unquote(&b, s, len) != len)
				goto done;
		} else {
			pr_buf_add(&b, s, len);
		}
	} else if (len && memchr(s, '"', len)) {
		n = (size_t)((const char *)memchr(s, '"', len) - s);
		if (!n || s[n - 1] != ' ' ||
		    unquote(&b, s + n, len - n) != len - n)
			goto done;
		pr_buf_add(&a, s, n - 1);
	} else {
		if (len % 2 == 0)
			goto done;
		half = len / 2;
		if (s[half] != ' ')
			goto done;
		pr_buf_add(&a, s, half);
		pr_buf_add(&b, s + half + 1, half);
		{
			const char *sa = memchr(a.ptr, '/', a.len);
			const char *sb = memchr(b.ptr, '/', b.len);

			if (!sa || !sb || strcmp(sa, sb))
				goto done;
		}
	}
	f->old_path = strip_p1(a.ptr, a.len);
	f->new_path = strip_p1(b.ptr, b.len);
done:
	pr_buf_release(&a);
	pr_buf_release(&b);
}

static int parse_mode(unsigned *mode, const struct line *l, size_t skip,
		      size_t lineno)
{
	unsigned m = 0;
	size_t i = skip;

	if (i >= l->len)
		goto bad;
	for (; i < l->len && l->p[i] >= '0' && l->p[i] <= '7'; i++) {
		m = m * 8 + (unsigned)(l->p[i] - '0');
		if (m > 0777777)
			goto bad;
	}
	if (i == skip)
		goto bad;
	*mode = m;
	return 0;
bad:
	return pr_error(PR_EPARSE, "diff line %zu: bad file mode", lineno);
}

static bool parse_num(const char **s, const char *end, size_t *out)
{
	size_t v = 0;
	const char *p = *s;

	if (p >= end || !isdigit((unsigned char)*p))
		return false;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		if (v > (SIZE_MAX - 9) / 10)
			return false;
		v = v * 10 + (size_t)(*p - '0');
	}
	*s = p;
	*out = v;
	return true;
}

/* "@@ -a[,b] +c[,d] @@..." */
static int parse_hunk_header(struct pr_diff_hunk *h, const struct line *l,
			     size_t lineno)
{
	const char *p = l->p + 4, *end = l->p + l->len;

	h->old_lines = h->new_lines = 1;
	if (!parse_num(&p, end, &h->old_start))
		goto bad;
	if (p < end && *p == ',' && (p++, !parse_num(&p, end, &h->old_lines)))
		goto bad;
	if (end - p < 2 || p[0] != ' ' || p[1] != '+')
		goto bad;
	p += 2;
	if (!parse_num(&p, end, &h->new_start))
		goto bad;
	if (p < end && *p == ',' && (p++, !parse_num(&p, end, &h->new_lines)))
		goto bad;
	if (end - p < 3 || memcmp(p, " @@", 3))
		goto bad;
	return 0;
bad:
	return pr_error(PR_EPARSE, "diff line %zu: bad hunk header", lineno);
}

static struct pr_diff_file *new_file(struct pr_diff *d, size_t offset)
{
	struct pr_diff_file *f;

	PR_ALLOC_GROW(d->files, d->nr + 1, d->alloc);
	f = &d->files[d->nr++];
	memset(f, 0, sizeof(*f));
	f->similarity = -1;
	f->offset = offset;
	return f;
}

/* Fill in names and status once a file's section is complete. */
static int finish_file(struct pr_diff_file *f, size_t end, size_t lineno)
{
	f->len = end - f->offset;
	if (!f->old_path && !f->new_path)
		return pr_error(PR_EPARSE,
				"diff line %zu: no file name for the diff",
				lineno);
	if (!f->old_path) {
		f->old_path = pr_strdup(f->new_path);
		if (f->status == PR_DIFF_MODIFIED)
			f->status = PR_DIFF_ADDED;
	}
	if (!f->new_path) {
		f->new_path = pr_strdup(f->old_path);
		if (f->status == PR_DIFF_MODIFIED)
			f->status = PR_DIFF_DELETED;
	}
	if (f->status == PR_DIFF_MODIFIED && f->old_mode && f->new_mode &&
	    (f->old_mode & 0170000) != (f->new_mode & 0170000))
		f->status = PR_DIFF_TYPECHANGE;
	return 0;
}

static bool parse_size_line(const struct line *l, bool *literal, size_t *size)
{
	const char *p, *end = l->p + l->len;

	if (starts(l, "literal ")) {
		*literal = true;
		p = l->p + 8;
	} else if (starts(l, "delta ")) {
		*literal = false;
		p = l->p + 6;
	} else {
		return false;
	}
	return parse_num(&p, end, size) && (p == end || *p == '\r');
}

/*
 * Sizes of a delta hunk: a delta starts with two varints, the source and
 * the result size, but is zlib-compressed and base85-encoded.  This decodes
 * just enough of it: base85 lines, then a small inflate (RFC 1951) that
 * stops after the first bytes of output.
 */
static int de85(unsigned char ch)
{
	static const char a85[] =
		"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
	const char *p = ch ? strchr(a85, ch) : NULL;

	return p ? (int)(p - a85) : -1;
}

/* One "Xbase85..." line: X gives the byte count (A-Z 1-26, a-z 27-52). */
static bool decode_85_line(struct pr_buf *out, const struct line *l)
{
	size_t n, i = 1, k;
	unsigned char ch = l->len ? l->p[0] : 0;

	if (ch >= 'A' && ch <= 'Z')
		n = ch - 'A' + 1;
	else if (ch >= 'a' && ch <= 'z')
		n = ch - 'a' + 27;
	else
		return false;
	if (l->len < 1 + (n + 3) / 4 * 5)
		return false;
	while (n) {
		uint64_t acc = 0;
		unsigned char b[4];

		for (k = 0; k < 5; k++) {
			int v = de85(l->p[i++]);

			if (v < 0)
				return false;
			acc = acc * 85 + (uint64_t)v;
		}
		if (acc > 0xffffffffu)
			return false;
		for (k = 0; k < 4; k++)
			b[k] = (unsigned char)(acc >> (24 - 8 * k));
		k = n < 4 ? n : 4;
		pr_buf_add(out, b, k);
		n -= k;
	}
	return true;
}

struct inflater {
	const unsigned char *in;
	size_t len, pos; /* pos counts bits */
	unsigned char out[32];
	size_t nout;
};

struct huff {
	short count[16];
	short symbol[320];
};

static int getbits(struct inflater *z, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (z->pos / 8 >= z->len)
			return -1;
		v |= ((z->in[z->pos / 8] >> (z->pos % 8)) & 1) << i;
		z->pos++;
	}
	return v;
}

static bool huff_build(struct huff *h, const unsigned char *lengths, int n)
{
	short offs[16];
	int i;

	memset(h->count, 0, sizeof(h->count));
	for (i = 0; i < n; i++)
		h->count[lengths[i]]++;
	h->count[0] = 0;
	offs[1] = 0;
	for (i = 1; i < 15; i++)
		offs[i + 1] = offs[i] + h->count[i];
	for (i = 0; i < n; i++)
		if (lengths[i])
			h->symbol[offs[lengths[i]]++] = (short)i;
	return true;
}

static int huff_decode(struct inflater *z, const struct huff *h)
{
	int code = 0, first = 0, index = 0, len, bit;

	for (len = 1; len <= 15; len++) {
		bit = getbits(z, 1);
		if (bit < 0)
			return -1;
		code |= bit;
		if (code - h->count[len] < first)
			return h->symbol[index + (code - first)];
		index += h->count[len];
		first += h->count[len];
		first <<= 1;
		code <<= 1;
	}
	return -1;
}

static void put_byte(struct inflater *z, unsigned char ch)
{
	if (z->nout < sizeof(z->out))
		z->out[z->nout++] = ch;
}

static bool inflate_codes(struct inflater *z, const struct huff *lit,
			  const struct huff *dist)
{
	static const short lbase[29] = { 3,   4,   5,	6,   7,	 8,  9,	 10,
					 11,  13,  15,	17,  19, 23, 27, 31,
					 35,  43,  51,	59,  67, 83, 99, 115,
					 131, 163, 195, 227, 258 };
	static const short lext[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1,
					1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
					4, 4, 4, 4, 5, 5, 5, 5, 0 };
	static const short dbase[30] = {
		1,    2,    3,	  4,	5,    7,    9,	  13,	 17,	25,
		33,   49,   65,	  97,	129,  193,  257,  385,	 513,	769,
		1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577
	};
	static const short dext[30] = { 0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
					4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
					9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

	while (z->nout < sizeof(z->out)) {
		int sym = huff_decode(z, lit), len, d, e;

		if (sym < 0)
			return false;
		if (sym < 256) {
			put_byte(z, (unsigned char)sym);
			continue;
		}
		if (sym == 256)
			return true;
		sym -= 257;
		if (sym >= 29 || (e = getbits(z, lext[sym])) < 0)
			return false;
		len = lbase[sym] + e;
		sym = huff_decode(z, dist);
		if (sym < 0 || sym >= 30 || (e = getbits(z, dext[sym])) < 0)
			return false;
		d = dbase[sym] + e;
		if ((size_t)d > z->nout)
			return false;
		while (len-- && z->nout < sizeof(z->out))
			put_byte(z, z->out[z->nout - d]);
	}
	return true;
}

/* Inflate a zlib stream into z->out until it is full or the stream ends. */
static bool inflate_start(struct inflater *z)
{
	static const unsigned char order[19] = { 16, 17, 18, 0,	 8, 7,	9,
						 6,  10, 5,  11, 4, 12, 3,
						 13, 2,	 14, 1,	 15 };
	struct huff lit, dist;
	unsigned char lengths[320];
	int last, type, i;

	z->pos = 16; /* the zlib header */
	do {
		last = getbits(z, 1);
		type = getbits(z, 2);
		if (last < 0 || type < 0)
			return false;
		if (type == 0) {
			size_t n;

			z->pos = (z->pos + 7) / 8 * 8;
			if (z->pos / 8 + 4 > z->len)
				return false;
			n = z->in[z->pos / 8] | z->in[z->pos / 8 + 1] << 8;
			z->pos += 32;
			for (; n && z->pos / 8 < z->len; n--, z->pos += 8)
				put_byte(z, z->in[z->pos / 8]);
		} else if (type == 1) {
			for (i = 0; i < 288; i++)
				lengths[i] = i < 144   ? 8
					     : i < 256 ? 9
					     : i < 280 ? 7
						       : 8;
			huff_build(&lit, lengths, 288);
			for (i = 0; i < 30; i++)
				lengths[i] = 5;
			huff_build(&dist, lengths, 30);
			if (!inflate_codes(z, &lit, &dist))
				return false;
		} else if (type == 2) {
			int nlen = getbits(z, 5) + 257,
			    ndist = getbits(z, 5) + 1;
			int ncode = getbits(z, 4) + 4, idx = 0;
			struct huff code;

			if (nlen < 257 || ndist < 1 || ncode < 4 ||
			    nlen > 286 || ndist > 30)
				return false;
			memset(lengths, 0, 19);
			for (i = 0; i < ncode; i++) {
				int v = getbits(z, 3);

				if (v < 0)
					return false;
				lengths[order[i]] = (unsigned char)v;
			}
			huff_build(&code, lengths, 19);
			while (idx < nlen + ndist) {
				int sym = huff_decode(z, &code), rep, v = 0;

				if (sym < 0)
					return false;
				if (sym < 16) {
					lengths[idx++] = (unsigned char)sym;
					continue;
				}
				if (sym == 16) {
					if (!idx)
						return false;
					v = lengths[idx - 1];
					rep = 3 + getbits(z, 2);
				} else if (sym == 17) {
					rep = 3 + getbits(z, 3);
				} else {
					rep = 11 + getbits(z, 7);
				}
				if (rep < 3 || idx + rep > nlen + ndist)
					return false;
				while (rep--)
					lengths[idx++] = (unsigned char)v;
			}
			huff_build(&lit, lengths, nlen);
			huff_build(&dist, lengths + nlen, ndist);
			if (!inflate_codes(z, &lit, &dist))
				return false;
		} else {
			return false;
		}
	} while (!last && z->nout < sizeof(z->out));
	return true;
}

static bool get_varint(const unsigned char **p, const unsigned char *end,
		       size_t *out)
{
	size_t v = 0;
	int shift = 0;
	unsigned char c;

	do {
		if (*p >= end || shift > 56)
			return false;
		c = *(*p)++;
		v |= (size_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*out = v;
	return true;
}

/* The source and result sizes at the start of a delta hunk's data. */
static bool delta_sizes(const struct pr_buf *data, size_t *src, size_t *dst)
{
	struct inflater z;
	const unsigned char *p;

	memset(&z, 0, sizeof(z));
	z.in = (const unsigned char *)data->ptr;
	z.len = data->len;
	if (z.len < 2 || !inflate_start(&z))
		return false;
	p = z.out;
	return get_varint(&p, z.out + z.nout, src) &&
	       get_varint(&p, z.out + z.nout, dst);
}

/* The hunks of "GIT binary patch": forward then (optional) reverse. */
static void skip_binary_patch(struct pr_diff_file *f, struct cursor *c,
			      size_t *end)
{
	struct line l;
	bool literal[2] = { false, false }, ok[2] = { false, false };
	size_t size[2] = { 0, 0 }, src[2] = { 0, 0 }, dst[2] = { 0, 0 };
	int n = 0;

	while (n < 2 && peek_line(c, &l) &&
	       parse_size_line(&l, &literal[n], &size[n])) {
		struct pr_buf data = PR_BUF_INIT;
		bool good = true;

		next_line(c, &l);
		*end = l.end;
		/* base85 lines up to an empty line */
		while (next_line(c, &l)) {
			*end = l.end;
			if (!l.len || (l.len == 1 && l.p[0] == '\r'))
				break;
			/* only a delta's first bytes are needed */
			if (!literal[n] && good && data.len < 64 * PR_KIB)
				good = decode_85_line(&data, &l);
		}
		ok[n] = literal[n] ||
			(good && delta_sizes(&data, &src[n], &dst[n]));
		pr_buf_release(&data);
		n++;
	}
	if (n < 1 || !ok[0])
		return;
	if (literal[0])
		f->new_size = size[0];
	else
		f->new_size = dst[0];
	if (!literal[0]) {
		f->old_size = src[0];
	} else if (n == 2 && ok[1]) {
		/* the reverse hunk turns the new blob into the old one */
		f->old_size = literal[1] ? size[1] : dst[1];
	} else {
		return;
	}
	f->binary_sizes = true;
}

enum state {
	S_OUT,
	S_HEADER,
	S_AFTER_HUNK
};

static int parse_hunk(struct pr_diff_file *f, struct cursor *c,
		      const struct line *hdr, size_t *end)
{
	struct pr_diff_hunk *h;
	struct line l;
	size_t old_left, new_left;
	char last = 0;
	int err;

	PR_ALLOC_GROW(f->hunks, f->nr_hunks + 1, f->alloc_hunks);
	h = &f->hunks[f->nr_hunks];
	memset(h, 0, sizeof(*h));
	err = parse_hunk_header(h, hdr, c->lineno);
	if (err)
		return err;
	f->nr_hunks++;
	h->offset = hdr->p - c->text;
	old_left = h->old_lines;
	new_left = h->new_lines;
	while (old_left || new_left) {
		char ch;

		if (!next_line(c, &l))
			return pr_error(PR_EPARSE,
					"diff line %zu: hunk ends early",
					c->lineno);
		ch = l.len ? l.p[0] : ' ';
		/* an empty line is a context line whose space was eaten */
		if (ch == '\r' && l.len == 1)
			ch = ' ';
		if (ch == ' ' && old_left && new_left) {
			old_left--;
			new_left--;
		} else if (ch == '-' && old_left) {
			old_left--;
			f->deleted++;
		} else if (ch == '+' && new_left) {
			new_left--;
			f->added++;
		} else if (ch == '\\' && last) {
			/* "\ No newline at end of file": about the last line */
			if (last != '+')
				f->no_newline_old = true;
			if (last != '-')
				f->no_newline_new = true;
			continue;
		} else {
			return pr_error(
				PR_EPARSE,
				"diff line %zu: unexpected line in hunk",
				c->lineno);
		}
		last = ch;
		*end = l.end;
	}
	if (peek_line(c, &l) && l.len && l.p[0] == '\\' && last) {
		next_line(c, &l);
		if (last != '+')
			f->no_newline_old = true;
		if (last != '-')
			f->no_newline_new = true;
		*end = l.end;
	}
	h->len = *end - h->offset;
	return 0;
}

int pr_diff_parse(struct pr_diff *out, const char *text, size_t len)
{
	struct cursor c = { text, len, 0, 0 };
	struct pr_diff_file *f = NULL;
	enum state st = S_OUT;
	struct line l, nx;
	size_t end = 0;
	int err = 0;

	pr_diff_release(out);
	if (len > PR_LIMIT_DIFF_BYTES) {
		err = pr_error(PR_ETOOBIG, "diff larger than %zu MiB",
			       PR_LIMIT_DIFF_BYTES / PR_MIB);
		goto done;
	}
	while (next_line(&c, &l)) {
		bool plain = starts(&l, "--- ") && peek_line(&c, &nx) &&
			     starts(&nx, "+++ ");

		if (starts(&l, "diff --git ") || (plain && st != S_HEADER)) {
			if (f && (err = finish_file(f, end, c.lineno)))
				goto done;
			if (out->nr >= PR_LIMIT_DIFF_FILES) {
				err = pr_error(PR_ETOOBIG,
					       "diff with more than %d files",
					       PR_LIMIT_DIFF_FILES);
				goto done;
			}
			f = new_file(out, l.p - text);
			end = l.end;
			st = S_HEADER;
			if (!plain) {
				git_header_names(f, l.p + 11, l.len - 11);
				continue;
			}
		}
		if (st == S_OUT)
			continue;
		if (starts(&l, "@@ -")) {
			err = parse_hunk(f, &c, &l, &end);
			if (err)
				goto done;
			st = S_AFTER_HUNK;
			continue;
		}
		if (st == S_AFTER_HUNK) {
			/* trailing text, a signature: ignore to the next diff */
			st = S_OUT;
			continue;
		}
		/* extended header lines */
		if (plain) {
			if ((err = line_name(&f->old_path, l.p + 4, l.len - 4,
					     true, c.lineno)))
				goto done;
			next_line(&c, &l);
			if ((err = line_name(&f->new_path, l.p + 4, l.len - 4,
					     true, c.lineno)))
				goto done;
			if (!f->old_path && f->status == PR_DIFF_MODIFIED)
				f->status = PR_DIFF_ADDED;
			if (!f->new_path && f->status == PR_DIFF_MODIFIED)
				f->status = PR_DIFF_DELETED;
		} else if (starts(&l, "old mode ")) {
			err = parse_mode(&f->old_mode, &l, 9, c.lineno);
		} else if (starts(&l, "new mode ")) {
			err = parse_mode(&f->new_mode, &l, 9, c.lineno);
		} else if (starts(&l, "deleted file mode ")) {
			err = parse_mode(&f->old_mode, &l, 18, c.lineno);
			f->status = PR_DIFF_DELETED;
		} else if (starts(&l, "new file mode ")) {
			err = parse_mode(&f->new_mode, &l, 14, c.lineno);
			f->status = PR_DIFF_ADDED;
		} else if (starts(&l, "similarity index ") ||
			   starts(&l, "dissimilarity index ")) {
			const char *p = memchr(l.p, 'x', l.len) + 2;
			size_t v;

			if (p > l.p + l.len ||
			    !parse_num(&p, l.p + l.len, &v) || v > 100) {
				err = pr_error(PR_EPARSE,
					       "diff line %zu: bad similarity",
					       c.lineno);
				goto done;
			}
			f->similarity = (int)v;
			f->rewrite = l.p[0] == 'd';
		} else if (starts(&l, "rename from ") ||
			   starts(&l, "copy from ")) {
			size_t skip = l.p[0] == 'r' ? 12 : 10;

			f->status = l.p[0] == 'r' ? PR_DIFF_RENAMED
						  : PR_DIFF_COPIED;
			err = line_name(&f->old_path, l.p + skip, l.len - skip,
					false, c.lineno);
		} else if (starts(&l, "rename to ") || starts(&l, "copy to ")) {
			size_t skip = l.p[0] == 'r' ? 10 : 8;

			err = line_name(&f->new_path, l.p + skip, l.len - skip,
					false, c.lineno);
		} else if (starts(&l, "index ")) {
			const char *sp = memchr(l.p, ' ', l.len);
			const char *m =
				memchr(sp + 1, ' ', l.len - (sp + 1 - l.p));

			/* "index a..b 100644": the mode of an unchanged file */
			if (m && !f->old_mode && !f->new_mode) {
				err = parse_mode(&f->old_mode, &l, m + 1 - l.p,
						 c.lineno);
				f->new_mode = f->old_mode;
			}
		} else if (starts(&l, "GIT binary patch")) {
			f->binary = true;
			end = l.end;
			skip_binary_patch(f, &c, &end);
			st = S_OUT;
			continue;
		} else if (starts(&l, "Binary files ")) {
			f->binary = true;
			end = l.end;
			st = S_OUT;
			continue;
		} else {
			/* not a header line: the header ended */
			st = S_OUT;
			continue;
		}
		if (err)
			goto done;
		end = l.end;
	}
	if (f)
		err = finish_file(f, end, c.lineno);
done:
	if (err)
		pr_diff_release(out);
	return err;
}

void pr_diff_release(struct pr_diff *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++) {
		free(d->files[i].old_path);
		free(d->files[i].new_path);
		free(d->files[i].hunks);
	}
	free(d->files);
	d->files = NULL;
	d->nr = d->alloc = 0;
}

/* ---- patch-id, as builtin/patch-id.c of git 2.39 computes it ---- */

/* Add one file's hash into the result, a 20-byte sum with carry. */
static void flush_one_hunk(unsigned char result[20], struct pr_sha1 *ctx)
{
	unsigned char hash[20];
	unsigned carry = 0;
	int i;

	pr_sha1_final(hash, ctx);
	pr_sha1_init(ctx);
	for (i = 0; i < 20; i++) {
		carry += result[i] + hash[i];
		result[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

/* git hashes every line with all whitespace removed. */
static void hash_nospace(struct pr_sha1 *ctx, const struct line *l, size_t *n)
{
	char buf[256];
	size_t i, k = 0;

	/* the bytes gathered first: one update per line, not per word */
	for (i = 0; i < l->len; i++) {
		char c = l->p[i];

		/* git's isspace(): no '\v' or '\f' */
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (k == sizeof(buf)) {
			pr_sha1_update(ctx, buf, k);
			*n += k;
			k = 0;
		}
		buf[k++] = c;
	}
	pr_sha1_update(ctx, buf, k);
	*n += k;
}

/* git's scan_hunk_header: only the line counts matter. */
static void scan_hunk_counts(const struct line *l, long *before, long *after)
{
	const char *p = l->p + 4, *end = l->p + l->len;
	size_t v;

	*before = *after = 1;
	if (!parse_num(&p, end, &v))
		return;
	if (p < end && *p == ',') {
		p++;
		if (!parse_num(&p, end, &v))
			return;
		*before = (long)v;
	}
	if (end - p < 2 || p[0] != ' ' || p[1] != '+')
		return;
	p += 2;
	if (!parse_num(&p, end, &v))
		return;
	if (p < end && *p == ',') {
		p++;
		if (parse_num(&p, end, &v))
			*after = (long)v;
	}
}

/* Lowercase hex digits at the start of p[0..n): the input is not a C string. */
static size_t hex_run(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && strchr("0123456789abcdef", p[i]) && p[i])
		i++;
	return i;
}

int pr_patch_id(char out[41], const char *text, size_t len, bool stable)
{
	struct cursor c = { text, len, 0, 0 };
	struct line l;
	struct pr_sha1 ctx;
	unsigned char result[20] = { 0 };
	char pre[41] = "", post[41] = "";
	long before = -1, after = -1;
	bool is_binary = false;
	size_t patchlen = 0;
	int i;

	pr_sha1_init(&ctx);
	while (next_line(&c, &l)) {
		/* git leaves "\ No newline at end of file" out of the id */
		if (l.len && l.p[0] == '\\')
			continue;
		/* like git, a "From <commit>" line starts the next patch */
		if (starts(&l, "From ") && l.len >= 45 &&
		    hex_run(l.p + 5, l.len - 5) >= 40) {
			if (patchlen)
				break;
			continue;
		}
		if (!patchlen && !starts(&l, "diff "))
			continue;
		if (before == -1) {
			if (starts(&l, "GIT binary patch") ||
			    starts(&l, "Binary files")) {
				is_binary = true;
				before = 0;
				pr_sha1_update(&ctx, pre, strlen(pre));
				pr_sha1_update(&ctx, post, strlen(post));
				if (stable)
					flush_one_hunk(result, &ctx);
				continue;
			} else if (starts(&l, "index ")) {
				const char *a = l.p + 6, *end = l.p + l.len;
				const char *dots = NULL, *sp;
				size_t k;

				for (k = 0; a + k + 1 < end; k++)
					if (a[k] == '.' && a[k + 1] == '.') {
						dots = a + k;
						break;
					}
				if (dots) {
					sp = memchr(dots, ' ', end - dots);
					if (!sp)
						sp = end;
					k = (size_t)(dots - a) < 40
						    ? (size_t)(dots - a)
						    : 40;
					memcpy(pre, a, k);
					pre[k] = '\0';
					k = (size_t)(sp - dots - 2) < 40
						    ? (size_t)(sp - dots - 2)
						    : 40;
					memcpy(post, dots + 2, k);
					post[k] = '\0';
				}
				continue;
			} else if (starts(&l, "--- ")) {
				before = after = 1;
			} else if (!l.len || !isalpha((unsigned char)l.p[0])) {
				break;
			}
		}
		if (is_binary) {
			if (starts(&l, "diff ")) {
				is_binary = false;
				before = -1;
			}
			continue;
		}
		if (before == 0 && after == 0) {
			if (starts(&l, "@@ -")) {
				scan_hunk_counts(&l, &before, &after);
				continue;
			}
			if (!starts(&l, "diff "))
				break;
			if (stable)
				flush_one_hunk(result, &ctx);
			before = after = -1;
		}
		if (l.len && (l.p[0] == '-' || l.p[0] == ' '))
			before--;
		if (l.len && (l.p[0] == '+' || l.p[0] == ' '))
			after--;
		hash_nospace(&ctx, &l, &patchlen);
	}
	if (!patchlen)
		return pr_error(PR_ENOENT, "patch-id: no diff in the text");
	flush_one_hunk(result, &ctx);
	for (i = 0; i < 20; i++) {
		out[2 * i] = "0123456789abcdef"[result[i] >> 4];
		out[2 * i + 1] = "0123456789abcdef"[result[i] & 15];
	}
	out[40] = '\0';
	return 0;
}
