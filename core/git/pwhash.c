#include "base/pr.h"

#include "base/sha1.h"
#include "git/pwhash.h"

/*
 * Bytes of the whitespace character (Python's str.isspace()) that starts
 * at p, or 0.  The multi-byte ones are the UTF-8 forms of U+0085, U+00A0,
 * U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F and U+3000.
 */
static size_t space_at(const unsigned char *p, const unsigned char *end)
{
	size_t n = (size_t)(end - p);

	if (!n)
		return 0;
	if ((*p >= 0x09 && *p <= 0x0d) || (*p >= 0x1c && *p <= 0x20))
		return 1;
	if (n >= 2 && p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
		return 2;
	if (n < 3)
		return 0;
	if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80)
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x80 &&
	    (p[2] <= 0x8a || p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf) &&
	    p[2] >= 0x80)
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)
		return 3;
	if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
		return 3;
	return 0;
}

/* Bytes of the whitespace character that ends just before end, or 0. */
static size_t space_before(const unsigned char *start, const unsigned char *end)
{
	size_t k;

	for (k = 1; k <= 3 && k <= (size_t)(end - start); k++)
		if (space_at(end - k, end) == k)
			return k;
	return 0;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Read "\d+" at *p (before end): the digits without leading zeros ("0"
 * for zeros only) into [*ds, *ds + *dn).  False when there is no digit.
 */
static bool read_digits(const unsigned char **p, const unsigned char *end,
			const unsigned char **ds, size_t *dn)
{
	const unsigned char *s = *p;

	while (*p < end && is_digit(**p))
		(*p)++;
	if (*p == s)
		return false;
	while (s + 1 < *p && *s == '0')
		s++;
	*ds = s;
	*dn = (size_t)(*p - s);
	return true;
}

struct hunk_counts {
	const unsigned char *old, *new;
	size_t old_len, new_len; /* 0: not given (means 1) */
};

/*
 * One side of a hunk header at *p, after its "-" or "+": "\d+(,\d+)?";
 * the count (without leading zeros) in [*c, *c + *n), *n 0 when absent.
 */
static bool read_range(const unsigned char **p, const unsigned char *end,
		       const unsigned char **c, size_t *n)
{
	const unsigned char *start;
	size_t len;

	*c = NULL;
	*n = 0;
	if (!read_digits(p, end, &start, &len))
		return false;
	if (*p < end && **p == ',') {
		(*p)++;
		return read_digits(p, end, c, n);
	}
	return true;
}

/* HUNK_RE: "^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@" at the line start. */
static bool match_hunk(struct hunk_counts *h, const unsigned char *p,
		       const unsigned char *end)
{
	memset(h, 0, sizeof(*h));
	if (end - p < 4 || memcmp(p, "@@ -", 4))
		return false;
	p += 4;
	if (!read_range(&p, end, &h->old, &h->old_len) || end - p < 2 ||
	    memcmp(p, " +", 2))
		return false;
	p += 2;
	if (!read_range(&p, end, &h->new, &h->new_len))
		return false;
	return end - p >= 3 && !memcmp(p, " @@", 3);
}

static void sha_count(struct pr_sha1 *s, const unsigned char *d, size_t n)
{
	if (n)
		pr_sha1_update(s, d, n);
	else
		pr_sha1_update(s, "1", 1);
}

/*
 * One line of hash_diff (without its LF, not empty) into the hash; 1 when
 * it was a hunk header.
 */
static int hash_line(struct pr_sha1 *s, const unsigned char *p,
		     const unsigned char *end)
{
	struct hunk_counts h;
	const unsigned char *tok, *slash;
	size_t n = (size_t)(end - p);

	/* FILENAME_RE: "^(---|\+\+\+) (\S+)" */
	if (n > 4 && (!memcmp(p, "--- ", 4) || !memcmp(p, "+++ ", 4)) &&
	    !space_at(p + 4, end)) {
		tok = p + 4;
		while (tok < end && !space_at(tok, end))
			tok++;
		pr_sha1_update(s, p[0] == '-' ? "--- a/" : "+++ b/", 6);
		slash = memchr(p + 4, '/', (size_t)(tok - (p + 4)));
		if (slash)
			pr_sha1_update(s, slash + 1, (size_t)(tok - slash - 1));
		pr_sha1_update(s, "\n", 1);
		return 0;
	}
	if (match_hunk(&h, p, end)) {
		pr_sha1_update(s, "@@ -", 4);
		sha_count(s, h.old, h.old_len);
		pr_sha1_update(s, " +", 2);
		sha_count(s, h.new, h.new_len);
		pr_sha1_update(s, " @@\n", 4);
		return 1;
	}
	if (*p == '-' || *p == '+' || *p == ' ') {
		pr_sha1_update(s, p, n);
		pr_sha1_update(s, "\n", 1);
	}
	return 0;
}

/* hash_diff over text with CR (and, when drop_nul, NUL) bytes removed. */
static int hash_text(char out[41], const char *text, size_t len, bool drop_nul)
{
	struct pr_buf clean = PR_BUF_INIT;
	const unsigned char *p, *end, *nl;
	struct pr_sha1 s;
	size_t i, k;
	int err, hunks = 0;

	if (len > PR_LIMIT_DIFF_BYTES)
		return pr_error(PR_ETOOBIG,
				"diff of %zu bytes: over the limit "
				"of %zu",
				len, (size_t)PR_LIMIT_DIFF_BYTES);
	if ((err = pr_buf_grow(&clean, len)))
		return err;
	for (i = 0; i < len; i++)
		if (text[i] != '\r' && (text[i] || !drop_nul))
			clean.ptr[clean.len++] = text[i];
	clean.ptr[clean.len] = '\0';
	p = (const unsigned char *)clean.ptr;
	end = p + clean.len;
	/* str.strip(): the lines are the stripped text plus a LF */
	while ((k = space_at(p, end)))
		p += k;
	while (end > p && (k = space_before(p, end)))
		end -= k;
	pr_sha1_init(&s);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl > p && hash_line(&s, p, nl) && hunks < INT32_MAX)
			hunks++;
		p = nl + 1;
	}
	pr_sha1_final_hex(out, &s);
	pr_buf_release(&clean);
	return hunks;
}

int pr_pwhash_diff(char out[41], const char *text, size_t len)
{
	return hash_text(out, text, len, false);
}

bool pr_pwhash_is_empty(const char *hex)
{
	return hex && !strcmp(hex, PR_PWHASH_EMPTY);
}

static bool starts(const char *p, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(p, prefix, k);
}

/* parse_patch's EXTENDED_HEADER_LINES */
static bool extended_header(const char *p, size_t n)
{
	static const char *const heads[] = {
		"old mode ",
		"new mode ",
		"deleted file mode ",
		"new file mode ",
		"copy from ",
		"copy to ",
		"rename from ",
		"rename to ",
		"similarity index ",
		"dissimilarity index ",
		"index ",
	};
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(heads); i++)
		if (starts(p, n, heads[i]))
			return true;
	return false;
}

/* A hunk count for the state machine: saturated, "" means 1. */
static long long count_of(const unsigned char *d, size_t n)
{
	long long v = 0;
	size_t i;

	if (!n)
		return 1;
	for (i = 0; i < n; i++) {
		v = v * 10 + (d[i] - '0');
		if (v > 1000000000000LL)
			return 1000000000000LL;
	}
	return v;
}

/* The held header and the line go into the diff; nothing is held. */
static int flush(struct pr_buf *out, struct pr_buf *held,
		 const struct pr_buf *line)
{
	int err = pr_buf_addbuf(out, held);

	pr_buf_reset(held);
	return err ? err : pr_buf_addbuf(out, line);
}

/*
 * The state machine of parse_patch.  States: 0 text, 1 a suspected patch
 * header (diff, Index:), 2 "---", 3 "+++" (or a hunk just ended), 4/5 in a
 * hunk, 6 extended header lines, 7 a binary patch.  A suspected header is
 * held in buf and moves into the diff once a hunk (or a binary patch)
 * follows; otherwise it is comment text and dropped.
 */
int pr_pwhash_extract(struct pr_buf *out, const char *text, size_t len)
{
	struct pr_buf buf = PR_BUF_INIT, line = PR_BUF_INIT;
	const char *p = text, *end = text + len, *nl;
	long long lc[2] = { 0, 0 };
	struct hunk_counts h;
	int state = 0, hunks = 0, err = 0;
	bool last = false;

	if (len > PR_LIMIT_DIFF_BYTES)
		return pr_error(PR_ETOOBIG,
				"mail of %zu bytes: over the limit "
				"of %zu",
				len, (size_t)PR_LIMIT_DIFF_BYTES);
	/* content.split('\n'), each piece with a LF: the last one too */
	while (!last && !err) {
		const char *l;
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			nl = end;
			last = true;
		}
		pr_buf_reset(&line);
		if ((err = pr_buf_add(&line, p, (size_t)(nl - p))) ||
		    (err = pr_buf_addch(&line, '\n')))
			break;
		p = last ? end : nl + 1;
		l = line.ptr;
		n = line.len;
		switch (state) {
		case 0:
			if (starts(l, n, "diff ") || starts(l, n, "Index: "))
				state = 1;
			else if (starts(l, n, "--- "))
				state = 2;
			else
				break;
			err = pr_buf_addbuf(&buf, &line);
			break;
		case 1:
			err = pr_buf_addbuf(&buf, &line);
			if (starts(l, n, "--- "))
				state = 2;
			if (extended_header(l, n))
				state = 6;
			break;
		case 2:
			if (starts(l, n, "+++ ")) {
				state = 3;
				err = pr_buf_addbuf(&buf, &line);
			} else if (hunks) {
				state = 1;
				err = pr_buf_addbuf(&buf, &line);
			} else {
				state = 0;
				pr_buf_reset(&buf);
			}
			break;
		case 3:
			if (match_hunk(&h, (const unsigned char *)l,
				       (const unsigned char *)l + n)) {
				lc[0] = count_of(h.old, h.old_len);
				lc[1] = count_of(h.new, h.new_len);
				state = 4;
				err = flush(out, &buf, &line);
			} else if (starts(l, n, "--- ")) {
				err = flush(out, &buf, &line);
				state = 2;
			} else if (hunks &&
				   starts(l, n,
					  "\\ No newline at end of file")) {
				err = pr_buf_addbuf(out, &line);
			} else if (hunks) {
				state = 1;
				err = pr_buf_addbuf(&buf, &line);
			} else {
				state = 0;
				pr_buf_reset(&buf);
			}
			break;
		case 4:
		case 5:
			if (l[0] == '-')
				lc[0]--;
			else if (l[0] == '+')
				lc[1]--;
			else if (!starts(l, n,
					 "\\ No newline at end of file")) {
				lc[0]--;
				lc[1]--;
			}
			err = pr_buf_addbuf(out, &line);
			if (lc[0] <= 0 && lc[1] <= 0) {
				state = 3;
				hunks++;
			} else {
				state = 5;
			}
			break;
		case 6:
			if (extended_header(l, n) || starts(l, n, "--- ") ||
			    starts(l, n, "GIT binary patch")) {
				err = flush(out, &buf, &line);
				if (starts(l, n, "--- "))
					state = 2;
				else if (!extended_header(l, n))
					state = 7;
			} else {
				err = pr_buf_addbuf(&buf, &line);
				state = 1;
			}
			break;
		default: /* 7: everything up to the next "diff" line */
			if (starts(l, n, "diff")) {
				err = pr_buf_addbuf(&buf, &line);
				state = 0;
			} else {
				err = flush(out, &buf, &line);
			}
			break;
		}
	}
	pr_buf_release(&buf);
	pr_buf_release(&line);
	return err;
}

int pr_pwhash_mail(char out[41], const char *text, size_t len)
{
	struct pr_buf diff = PR_BUF_INIT;
	int err;

	if ((err = pr_pwhash_extract(&diff, text, len)))
		goto done;
	if (!diff.len) {
		err = PR_ENOENT;
		goto done;
	}
	err = hash_text(out, diff.ptr, diff.len, true);
done:
	pr_buf_release(&diff);
	return err;
}
