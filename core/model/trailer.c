#include "base/pr.h"

#include <ctype.h>

#include "model/trailer.h"

/*
 * pr_trailers_parse() follows git 2.39's trailer.c step by step, with its
 * default configuration (separator ':', comment character '#', no
 * configured trailer keys), so that the result equals
 * `git interpret-trailers --parse`.  Like git it works on a NUL-terminated
 * string and so stops at an embedded NUL.
 */

static const char comment_char = '#';
static const char scissors[] =
	"\n# ------------------------ >8 ------------------------\n";
static const char *const git_generated_prefixes[] = {
	"Signed-off-by: ",
	"(cherry picked from commit ",
};

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The start of the line after the one s is in, or the final NUL. */
static const char *next_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? nl + 1 : s + strlen(s);
}

/* The start of the last line of buf[0..len), -1 when empty. */
static ssize_t last_line(const char *buf, size_t len)
{
	ssize_t i;

	if (len == 0)
		return -1;
	if (len == 1)
		return 0;
	/* a final newline belongs to the last line */
	for (i = (ssize_t)len - 2; i >= 0; i--)
		if (buf[i] == '\n')
			return i + 1;
	return 0;
}

static bool is_blank_line(const char *s)
{
	while (*s && *s != '\n' && isspace((unsigned char)*s))
		s++;
	return !*s || *s == '\n';
}

/*
 * Where the ':' of "Key: value" is, or -1.  The key is letters, digits and
 * '-', then maybe blanks before the separator ("Key : value" counts).
 */
static ssize_t find_separator(const char *line)
{
	bool blank_seen = false;
	const char *c;

	for (c = line; *c; c++) {
		if (*c == ':')
			return c - line;
		if (!blank_seen && (isalnum((unsigned char)*c) || *c == '-'))
			continue;
		if (c != line && (*c == ' ' || *c == '\t')) {
			blank_seen = true;
			continue;
		}
		break;
	}
	return -1;
}

/* The first "---" line followed by whitespace starts the patch. */
static size_t find_patch_start(const char *s0)
{
	const char *s;

	for (s = s0; *s; s = next_line(s))
		if (starts_with(s, "---") && isspace((unsigned char)s[3]))
			return s - s0;
	return s - s0;
}

/* Where a commit template's scissors line cuts buf[0..len). */
static size_t locate_scissors(const char *buf, size_t len)
{
	const char *p;

	if (starts_with(buf, scissors + 1))
		return 0;
	p = strstr(buf, scissors);
	if (p && (size_t)(p - buf) + 1 < len)
		return p - buf + 1;
	return len;
}

/*
 * Bytes at the end of buf[0..len) that are not part of the message proper:
 * a run of comment lines and empty lines, an old "Conflicts:" block.
 */
static size_t ignored_tail(const char *buf, size_t len)
{
	size_t boc = 0, bol = 0;
	size_t cutoff = locate_scissors(buf, len);
	bool in_conflicts = false;

	while (bol < cutoff) {
		const char *nl = memchr(buf + bol, '\n', len - bol);
		size_t next = nl ? (size_t)(nl - buf) + 1 : len;

		if (buf[bol] == comment_char || buf[bol] == '\n') {
			if (!boc)
				boc = bol;
		} else if (starts_with(buf + bol, "Conflicts:\n")) {
			in_conflicts = true;
			if (!boc)
				boc = bol;
		} else if (in_conflicts && buf[bol] == '\t') {
			; /* a path of the conflicts block */
		} else if (boc) {
			boc = 0;
			in_conflicts = false;
		}
		bol = next;
	}
	return boc ? len - boc : len - cutoff;
}

static bool has_git_prefix(const char *bol)
{
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(git_generated_prefixes); i++)
		if (starts_with(bol, git_generated_prefixes[i]))
			return true;
	return false;
}

/*
 * The start of the trailer block of buf[0..len): scanning up from the end,
 * the blank line above a paragraph that is all trailers, or that has a
 * git-generated trailer and at least 25% trailer lines.  len when none.
 */
static size_t find_trailer_start(const char *buf, size_t len)
{
	const char *s;
	ssize_t end_of_title, l;
	bool only_spaces = true, recognized = false;
	int trailer_lines = 0, non_trailer_lines = 0;
	/* indented lines: continuations if a trailer comes above them */
	int maybe_continuations = 0;

	/* the first paragraph is the title and holds no trailers */
	for (s = buf; s < buf + len; s = next_line(s)) {
		if (s[0] == comment_char)
			continue;
		if (is_blank_line(s))
			break;
	}
	end_of_title = s - buf;

	for (l = last_line(buf, len); l >= end_of_title;
	     l = last_line(buf, l)) {
		const char *bol = buf + l;
		ssize_t sep;

		if (bol[0] == comment_char) {
			non_trailer_lines += maybe_continuations;
			maybe_continuations = 0;
			continue;
		}
		if (is_blank_line(bol)) {
			if (only_spaces)
				continue;
			non_trailer_lines += maybe_continuations;
			if (recognized &&
			    trailer_lines * 3 >= non_trailer_lines)
				return next_line(bol) - buf;
			if (trailer_lines && !non_trailer_lines)
				return next_line(bol) - buf;
			return len;
		}
		only_spaces = false;
		if (has_git_prefix(bol)) {
			trailer_lines++;
			maybe_continuations = 0;
			recognized = true;
			continue;
		}
		sep = find_separator(bol);
		if (sep >= 1 && !isspace((unsigned char)bol[0])) {
			trailer_lines++;
			maybe_continuations = 0;
		} else if (isspace((unsigned char)bol[0])) {
			maybe_continuations++;
		} else {
			non_trailer_lines += 1 + maybe_continuations;
			maybe_continuations = 0;
		}
	}
	return len;
}

/* Trim s[0..n) into the buffer, continuation newlines made one space. */
static int add_unfolded(struct pr_buf *b, const char *s, size_t n)
{
	size_t i = 0;
	int err = 0;

	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	while (i < n && !err) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t run = nl ? (size_t)(nl - s) - i : n - i;

		err = pr_buf_add(b, s + i, run);
		i += run;
		if (err || !nl)
			break;
		/* a newline and the indent after it: one space */
		for (i++; i < n && isspace((unsigned char)s[i]); i++)
			;
		err = pr_buf_addch(b, ' ');
	}
	return err;
}

/* One trailer, text[0..n) with its continuation lines, into out. */
static int add_trailer(struct pr_trailer_list *out, const char *text, size_t n)
{
	struct pr_buf key = PR_BUF_INIT, val = PR_BUF_INIT;
	char *line = pr_memdup(text, n);
	ssize_t sep = find_separator(line);
	int err = 0;

	if (line[0] == comment_char || sep < 1)
		goto done; /* --parse keeps only "Key: value" lines */
	pr_buf_init(&key, PR_LIMIT_MAIL_BYTES);
	pr_buf_init(&val, PR_LIMIT_MAIL_BYTES);
	err = add_unfolded(&key, line, sep);
	if (!err)
		err = add_unfolded(&val, line + sep + 1, n - sep - 1);
	if (!err)
		pr_trailer_list_add(out, key.ptr, val.ptr);
done:
	pr_buf_release(&key);
	pr_buf_release(&val);
	free(line);
	return err;
}

int pr_trailers_parse(struct pr_trailer_list *out, const char *msg, size_t len)
{
	char *buf = NULL;
	size_t end, start, pos, cur = 0;
	bool have_cur = false;
	int err = 0;

	if (len > PR_LIMIT_MAIL_BYTES)
		return pr_error(
			PR_ETOOBIG,
			"commit message of %zu bytes over the mail limit", len);
	buf = pr_memdup(msg, len);
	len = strlen(buf);
	end = find_patch_start(buf);
	end -= ignored_tail(buf, end);
	start = find_trailer_start(buf, end);

	/* split into lines; an indented line continues a "Key:" line */
	for (pos = start; pos < end && !err;) {
		const char *nl = memchr(buf + pos, '\n', end - pos);
		size_t next = nl ? (size_t)(nl - buf) + 1 : end;

		if (have_cur && isspace((unsigned char)buf[pos])) {
			pos = next;
			continue;
		}
		if (have_cur)
			err = add_trailer(out, buf + cur, pos - cur);
		cur = pos;
		have_cur = true;
		/* only a line with a separator takes continuations */
		if (find_separator(buf + pos) < 1) {
			if (!err)
				err = add_trailer(out, buf + cur, next - cur);
			have_cur = false;
		}
		pos = next;
	}
	if (have_cur && !err)
		err = add_trailer(out, buf + cur, end - cur);
	free(buf);
	return err;
}

/* Keys a reply may give besides any "X-by". */
static const char *const reply_keys[] = { "Cc", "Link", "Fixes" };

/* A line of a unified diff that is not at column 0 text of a reply. */
static bool is_diff_line(const char *p, size_t n)
{
	static const char *const heads[] = {
		"diff ",      "index ",	       "new file",     "deleted file",
		"similarity", "dissimilarity", "rename ",      "copy ",
		"old mode",   "new mode",      "Binary files", "GIT binary",
		"--- ",	      "+++ ",	       "Index: ",      "==="
	};
	size_t i;

	if (n == 0)
		return true; /* a blank line does not end a hunk */
	if (p[0] == ' ' || p[0] == '+' || p[0] == '-' || p[0] == '@' ||
	    p[0] == '\\')
		return true;
	for (i = 0; i < PR_ARRAY_SIZE(heads); i++)
		if (n >= strlen(heads[i]) &&
		    !strncmp(p, heads[i], strlen(heads[i])))
			return true;
	return false;
}

static bool starts_diff(const char *p, size_t n, const char *next,
			size_t next_n)
{
	if ((n >= 11 && !strncmp(p, "diff --git ", 11)) ||
	    (n >= 7 && !strncmp(p, "Index: ", 7)))
		return true;
	return n >= 4 && !strncmp(p, "--- ", 4) && next_n >= 4 &&
	       !strncmp(next, "+++ ", 4);
}

/* Add "Key: value" from line p[0..n) when it is a reply trailer. */
static void reply_line(struct pr_trailer_list *out, const char *p, size_t n)
{
	size_t k = 0, v, e;
	char *key = NULL, *val = NULL;
	bool by, ok = false;
	size_t i;

	while (k < n && (isalnum((unsigned char)p[k]) || p[k] == '-'))
		k++;
	if (k == 0 || k >= n || p[k] != ':' || !isalpha((unsigned char)p[0]))
		return;
	v = k + 1;
	while (v < n && isspace((unsigned char)p[v]))
		v++;
	e = n;
	while (e > v && isspace((unsigned char)p[e - 1]))
		e--;
	if (e == v)
		return;
	by = k > 3 && !strncasecmp(p + k - 3, "-by", 3);
	for (i = 0; i < PR_ARRAY_SIZE(reply_keys) && !by && !ok; i++)
		ok = strlen(reply_keys[i]) == k &&
		     !strncasecmp(p, reply_keys[i], k);
	if (!by && !ok)
		return;
	/* people and lists need an address; a Fixes needs a commit id */
	if ((by || k == 2) && !memchr(p + v, '@', e - v))
		return;
	if (k == 5 && !strncasecmp(p, "Fixes", 5)) {
		size_t h = v;

		while (h < e && isxdigit((unsigned char)p[h]))
			h++;
		if (h - v < 7)
			return;
	}
	key = pr_strndup(p, k);
	val = pr_strndup(p + v, e - v);
	if (!pr_trailer_list_has(out, key, val))
		pr_trailer_list_add(out, key, val);
	free(key);
	free(val);
}

int pr_trailers_from_reply(struct pr_trailer_list *out, const char *body,
			   size_t len)
{
	size_t pos = 0;
	bool in_diff = false;

	if (len > PR_LIMIT_MAIL_BYTES)
		return pr_error(PR_ETOOBIG,
				"reply of %zu bytes over the mail limit", len);
	while (pos < len) {
		const char *p = body + pos, *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;
		const char *next = p + n + 1, *nnl;
		size_t next_n = 0;

		pos += n + (nl ? 1 : 0);
		if (n && p[n - 1] == '\r')
			n--;
		if (nl && pos < len) {
			nnl = memchr(next, '\n', len - pos);
			next_n = nnl ? (size_t)(nnl - next) : len - pos;
		}
		if (n == 3 && !strncmp(p, "-- ", 3))
			break; /* the signature */
		if (n && p[0] == '>')
			continue; /* quoted text, quoted patch included */
		if (in_diff && is_diff_line(p, n))
			continue;
		in_diff = starts_diff(p, n, next, next_n);
		if (!in_diff)
			reply_line(out, p, n);
	}
	return 0;
}

int pr_trailers_append(struct pr_buf *msg, size_t start, const char *lines)
{
	struct pr_trailer_list have = { 0 };
	int err = 0;

	if (!lines || !*lines)
		return 0;
	pr_buf_rtrim(msg);
	if (msg->len > start) {
		if ((err = pr_buf_addch(msg, '\n')))
			return err;
		err = pr_trailers_parse(&have, msg->ptr + start,
					msg->len - start);
		if (!err && !have.nr)
			err = pr_buf_addch(msg, '\n');
	}
	if (!err)
		err = pr_buf_adds(msg, lines);
	pr_trailer_list_release(&have);
	return err;
}
