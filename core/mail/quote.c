#include "base/pr.h"

#include "mail/quote.h"

/* Append one line (n bytes, no LF), quoted. */
static int quote_line(struct pr_buf *out, const char *s, size_t n)
{
	int err;

	if (n && s[n - 1] == '\r')
		n--;
	if (!n)
		return pr_buf_adds(out, ">\n");
	if ((err = pr_buf_adds(out, "> ")) || (err = pr_buf_add(out, s, n)))
		return err;
	return pr_buf_addch(out, '\n');
}

int pr_quote_text(struct pr_buf *out, const char *text)
{
	const char *p = text ? text : "";
	int err = 0;

	while (*p && !err) {
		size_t n = strcspn(p, "\n");

		err = quote_line(out, p, n);
		p += n + (p[n] ? 1 : 0);
	}
	return err;
}

/* Does the line (n bytes) start with the text pfx. */
static bool starts(const char *line, size_t n, const char *pfx)
{
	size_t k = strlen(pfx);

	return n >= k && !memcmp(line, pfx, k);
}

/* Is the name after a "+++ " or "--- " (n bytes) path, past "a/"/"b/". */
static bool names(const char *name, size_t n, const char *path)
{
	size_t k = strlen(path);

	if (n >= 2 && (name[0] == 'a' || name[0] == 'b') && name[1] == '/') {
		name += 2;
		n -= 2;
	}
	/* git ends a name holding a space with a tab */
	if (n && name[n - 1] == '\t')
		n--;
	return n == k && !memcmp(name, path, k);
}

/* The new side's first line of a hunk header "@@ -a,b +c,d @@"; -1. */
static int64_t hunk_start(const char *line, size_t n)
{
	const char *plus = memchr(line, '+', n);
	int64_t v = 0;
	size_t i;

	if (!plus)
		return -1;
	for (i = (size_t)(plus - line) + 1;
	     i < n && line[i] >= '0' && line[i] <= '9' && v < INT32_MAX; i++)
		v = v * 10 + (line[i] - '0');
	return i > (size_t)(plus - line) + 1 ? v : -1;
}

/*
 * The line count of one side of a hunk header ("-a,b" or "+c,d", sign
 * '-' or '+'): b or d, 1 when absent; -1 when there is no such side.
 */
static int64_t hunk_count(const char *line, size_t n, char sign)
{
	const char *at = n > 3 ? memchr(line + 3, sign, n - 3) : NULL;
	int64_t v = 0;
	size_t i;

	if (!at)
		return -1;
	i = (size_t)(at - line) + 1;
	while (i < n && line[i] >= '0' && line[i] <= '9')
		i++;
	if (i >= n || line[i] != ',')
		return 1;
	for (i++; i < n && line[i] >= '0' && line[i] <= '9' && v < INT32_MAX;
	     i++)
		v = v * 10 + (line[i] - '0');
	return v;
}

/* The reading state of pr_quote_diff_line and pr_quote_touches. */
struct reader {
	const char *path;
	const char *file; /* the "diff --git" line of the current file */
	size_t file_len;
	const char *minus; /* the "--- " name, for a deleted file */
	size_t minus_len;
	bool in_file; /* the current file is path */
	const char *hunk; /* its "@@" line */
	size_t hunk_len;
	int64_t next; /* the new side's number of the next ' '/'+' line */
	int64_t left_old, left_new; /* the hunk's lines yet to come */
};

/* Read one line: the file, hunk and line number it moves on to. */
static void read_line(struct reader *r, const char *line, size_t n)
{
	if (starts(line, n, "diff --git ")) {
		r->file = line;
		r->file_len = n;
		r->in_file = false;
		r->hunk = NULL;
		r->minus = NULL;
	} else if (!r->hunk && starts(line, n, "--- ")) {
		r->minus = line + 4;
		r->minus_len = n - 4;
	} else if (!r->hunk && starts(line, n, "+++ ")) {
		if (names(line + 4, n - 4, "/dev/null"))
			r->in_file = r->minus &&
				     names(r->minus, r->minus_len, r->path);
		else
			r->in_file = names(line + 4, n - 4, r->path);
	} else if (starts(line, n, "@@ ")) {
		r->hunk = line;
		r->hunk_len = n;
		r->next = hunk_start(line, n);
		r->left_old = hunk_count(line, n, '-');
		r->left_new = hunk_count(line, n, '+');
	}
}

bool pr_quote_touches(const char *diff, const char *path)
{
	struct reader r = { 0 };
	const char *p = diff ? diff : "";

	r.path = path;
	while (*p) {
		size_t n = strcspn(p, "\n");

		read_line(&r, p, n);
		if (r.in_file)
			return true;
		p += n + (p[n] ? 1 : 0);
	}
	return false;
}

int pr_quote_diff_line(struct pr_buf *out, const char *diff, const char *path,
		       int64_t line, int context)
{
	struct reader r = { 0 };
	const char *p = diff ? diff : "", *body = NULL;
	size_t start = out->len;
	int err = 0;

	r.path = path;
	while (*p) {
		size_t n = strcspn(p, "\n");
		bool counted = false;

		if (starts(p, n, "@@ ") || starts(p, n, "diff --git ") ||
		    (!r.hunk &&
		     (starts(p, n, "--- ") || starts(p, n, "+++ ")))) {
			read_line(&r, p, n);
			body = NULL;
		} else if (r.hunk && r.next >= 0 &&
			   (r.left_old > 0 || r.left_new > 0) &&
			   (!n || p[0] == ' ' || p[0] == '+' || p[0] == '-')) {
			/*
			 * an empty line is context a mailer stripped; the
			 * hunk ends with its counts (a "-- " signature after
			 * the last one is no line of it)
			 */
			if (!body)
				body = p;
			counted = !n || p[0] != '-';
			r.left_old -= !n || p[0] != '+';
			r.left_new -= counted;
		}
		if (counted && r.in_file && r.next == line) {
			/* the context: at most `context` lines before it */
			const char *from = p;
			int k = 0;

			while (from > body && k < context) {
				from--;
				while (from > body && from[-1] != '\n')
					from--;
				k++;
			}
			if (r.file)
				err = quote_line(out, r.file, r.file_len);
			if (!err)
				err = quote_line(out, r.hunk, r.hunk_len);
			while (!err && from <= p) {
				size_t m = strcspn(from, "\n");

				err = quote_line(out, from, m);
				from += m + 1;
			}
			if (err)
				pr_buf_setlen(out, start);
			return err;
		}
		if (counted)
			r.next++;
		p += n + (p[n] ? 1 : 0);
	}
	return PR_ENOENT;
}
