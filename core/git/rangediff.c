#include "base/pr.h"
#include "git/rangediff.h"
#include "git/diff.h"

#include <git2.h>

/* <limits.h> is core/base/limits.h here: take int's maximum from stdint.h */
#define RD_INT_MAX INT32_MAX

/*
 * The "infinite" cost of a pairing that must not happen; git uses the same
 * value, small enough that sums of a few costs cannot overflow an int.
 */
#define RD_COST_MAX (1 << 16)
#define RD_ABBREV 7
/* xdiff keeps at most this many bytes of a hunk's function line */
#define RD_FUNC_MAX 80
#define RD_TAB 8

struct rd_patch {
	const struct pr_patch *p;
	struct pr_buf text; /* the patch text */
	size_t diff_offset; /* where its diff part starts */
	size_t diff_lines;
	int index;
	int match; /* index on the other side, -1 when unpaired */
	bool shown;
	char id[PR_RANGEDIFF_ID_MAX + 1];
};

/* How the ids of one run are abbreviated (NULL: RD_ABBREV digits). */
struct rd_ids {
	pr_rangediff_abbrev_fn *abbrev;
	void *payload;
};

/* git's isspace(): space, tab, LF and CR only */
static bool git_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Length of an ANSI "ESC [ digits/; m" sequence at s, 0 when none. */
static size_t esc_len(const unsigned char *s, const unsigned char *end)
{
	const unsigned char *p = s;

	if (p >= end || *p++ != 0x1b || p >= end || *p++ != '[')
		return 0;
	while (p < end && ((*p >= '0' && *p <= '9') || *p == ';'))
		p++;
	if (p >= end || *p++ != 'm')
		return 0;
	return (size_t)(p - s);
}

/* Decode one UTF-8 character at *s; -1 when malformed. */
static long utf8_next(const unsigned char **s, const unsigned char *end)
{
	const unsigned char *p = *s;
	unsigned char c = *p;
	long cp, min;
	int more, k;

	if (c < 0x80) {
		*s = p + 1;
		return c;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		more = 1;
		cp = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		more = 2;
		cp = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		more = 3;
		cp = c & 0x07;
		min = 0x10000;
	} else {
		return -1;
	}
	if (end - p <= more)
		return -1;
	for (k = 1; k <= more; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (p[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*s = p + 1 + more;
	return cp;
}

/*
 * Display width of a code point: -1 for control characters (git adds
 * that -1 too), 0 for common combining marks, 2 for the main East Asian
 * wide blocks, else 1.  A small table, not the full Unicode one.
 */
static int cp_width(long cp)
{
	static const long zero[][2] = {
		{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
		{ 0x200b, 0x200f }, { 0x20d0, 0x20ff }, { 0xfe20, 0xfe2f },
	};
	static const long wide[][2] = {
		{ 0x1100, 0x115f },   { 0x2e80, 0x303e },
		{ 0x3041, 0x33ff },   { 0x3400, 0x4dbf },
		{ 0x4e00, 0x9fff },   { 0xa000, 0xa4cf },
		{ 0xac00, 0xd7a3 },   { 0xf900, 0xfaff },
		{ 0xfe30, 0xfe4f },   { 0xff00, 0xff60 },
		{ 0xffe0, 0xffe6 },   { 0x1f300, 0x1f64f },
		{ 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd },
		{ 0x30000, 0x3fffd },
	};
	size_t i;

	if (cp == 0)
		return 0;
	if (cp < 32 || (cp >= 0x7f && cp < 0xa0))
		return -1;
	for (i = 0; i < PR_ARRAY_SIZE(zero); i++)
		if (cp >= zero[i][0] && cp <= zero[i][1])
			return 0;
	for (i = 0; i < PR_ARRAY_SIZE(wide); i++)
		if (cp >= wide[i][0] && cp <= wide[i][1])
			return 2;
	return 1;
}

/* Width of s[0..len) as git's utf8_strnwidth(); -1 when not UTF-8. */
static int text_width(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	int width = 0;

	while (p < end) {
		size_t skip;
		long cp;

		while ((skip = esc_len(p, end)))
			p += skip;
		if (p >= end)
			break;
		cp = utf8_next(&p, end);
		if (cp < 0)
			return -1;
		width += cp_width(cp);
	}
	return width;
}

/*
 * One message line as `git log` prints it: tabs expanded to the next
 * multiple of 8 columns, until a segment that is not UTF-8, after which the
 * rest goes as it is.
 */
static int add_expanded(struct pr_buf *out, const char *line, size_t len)
{
	const char *tab;
	int err = 0;

	while (!err && (tab = memchr(line, '\t', len))) {
		int w = text_width(line, (size_t)(tab - line));

		if (w < 0)
			break;
		err = pr_buf_add(out, line, (size_t)(tab - line));
		if (!err)
			err = pr_buf_addf(out, "%*s", RD_TAB - w % RD_TAB, "");
		len -= (size_t)(tab + 1 - line);
		line = tab + 1;
	}
	if (!err)
		err = pr_buf_add(out, line, len);
	return err;
}

/*
 * The commit message, indented four spaces as `git log` does, each line
 * cut of trailing blanks; blank lines before and after it are dropped.
 */
static int add_message(struct pr_buf *out, const struct pr_patch *p)
{
	struct pr_buf msg = PR_BUF_INIT;
	const char *body = p->body ? p->body : "";
	const char *subject = p->subject ? p->subject : "";
	const char *s;
	size_t blanks = 0;
	bool started = false;
	int err;

	/*
	 * A commit's first paragraph is shown with its own line breaks
	 * (gitrepo keeps them in subject_raw; a mail's subject_raw is its
	 * Subject: header).  gitrepo bodies start with the blank separator
	 * line, mailinfo's not.
	 */
	if (p->commit_id[0] && p->subject_raw)
		subject = p->subject_raw;
	err = pr_buf_addf(&msg, "%s\n%s%s", subject,
			  *body && *body != '\n' ? "\n" : "", body);
	for (s = msg.ptr; !err && *s;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		const char *line = s;

		s += len + (nl ? 1 : 0);
		while (len && git_space((unsigned char)line[len - 1]))
			len--;
		if (!len) {
			blanks += started;
			continue;
		}
		for (; !err && blanks; blanks--)
			err = pr_buf_addch(out, '\n');
		started = true;
		if (!err)
			err = pr_buf_adds(out, "    ");
		if (!err)
			err = add_expanded(out, line, len);
		if (!err)
			err = pr_buf_addch(out, '\n');
	}
	pr_buf_release(&msg);
	return err;
}

static int add_file_header(struct pr_buf *out, const struct pr_diff_file *f)
{
	int err;

	switch (f->status) {
	case PR_DIFF_ADDED:
		err = pr_buf_addf(out, " ## %s (new)", f->new_path);
		break;
	case PR_DIFF_DELETED:
		err = pr_buf_addf(out, " ## %s (deleted)", f->old_path);
		break;
	case PR_DIFF_RENAMED:
		err = pr_buf_addf(out, " ## %s => %s", f->old_path,
				  f->new_path);
		break;
	default:
		err = pr_buf_addf(out, " ## %s", f->new_path);
		break;
	}
	if (!err && f->old_mode && f->new_mode && f->old_mode != f->new_mode)
		err = pr_buf_addf(out, " (mode change %06o => %06o)",
				  f->old_mode, f->new_mode);
	if (!err)
		err = pr_buf_adds(out, " ##\n");
	return err;
}

/*
 * One hunk: "@@ FILE: FUNC" when the hunk header names a function, else
 * "@@"; then its lines, '+', '-' and ' ' lines as they are and anything
 * else ("\ No newline at end of file") as a context line.
 */
static int add_hunk(struct pr_buf *out, size_t *lines, const char *diff,
		    const struct pr_diff_hunk *h, const char *file)
{
	const char *s = diff + h->offset, *end = s + h->len;
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	const char *hdr_end = nl ? nl : end;
	const char *close = NULL, *q;
	int err;

	for (q = s + 3; q + 1 < hdr_end; q++)
		if (q[0] == '@' && q[1] == '@') {
			close = q;
			break;
		}
	err = pr_buf_adds(out, "@@");
	if (!err && close && close + 2 < hdr_end)
		err = pr_buf_addf(out, " %s:%.*s", file,
				  (int)(hdr_end - close - 2), close + 2);
	if (!err)
		err = pr_buf_addch(out, '\n');
	(*lines)++;
	for (s = nl ? nl + 1 : end; !err && s < end;) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		size_t len = e ? (size_t)(e - s) : (size_t)(end - s);

		if (!len || (*s != '+' && *s != '-' && *s != ' '))
			err = pr_buf_addch(out, ' ');
		if (!err)
			err = pr_buf_add(out, s, len);
		if (!err)
			err = pr_buf_addch(out, '\n');
		(*lines)++;
		s += len + (e ? 1 : 0);
	}
	return err;
}

static int add_diff(struct pr_buf *out, size_t *diff_offset, size_t *lines,
		    const char *diff)
{
	struct pr_diff d = PR_DIFF_INIT;
	size_t i, k;
	int err;

	err = pr_diff_parse(&d, diff, strlen(diff));
	for (i = 0; !err && i < d.nr; i++) {
		const struct pr_diff_file *f = &d.files[i];
		const char *file = f->status == PR_DIFF_ADDED ? f->new_path
							      : f->old_path;

		err = pr_buf_addch(out, '\n');
		if (!i)
			*diff_offset = out->len;
		if (!err)
			err = add_file_header(out, f);
		(*lines)++;
		/* git log -p runs without --binary */
		if (!err && f->binary) {
			err = pr_buf_addf(
				out, " Binary files %s and %s differ\n",
				f->status == PR_DIFF_ADDED ? "/dev/null"
							   : f->old_path,
				f->status == PR_DIFF_DELETED ? "/dev/null"
							     : f->new_path);
			(*lines)++;
		}
		for (k = 0; !err && k < f->nr_hunks; k++)
			err = add_hunk(out, lines, diff, &f->hunks[k], file);
	}
	pr_diff_release(&d);
	return err;
}

int pr_rangediff_patch_text(struct pr_buf *out, size_t *diff_offset,
			    size_t *diff_lines, const struct pr_patch *p)
{
	size_t start = out->len, off = 0, lines = 0;
	int err;

	err = pr_buf_addf(out, " ## Metadata ##\nAuthor: %s <%s>\n\n",
			  p->author.name ? p->author.name : "",
			  p->author.email ? p->author.email : "");
	if (!err)
		err = pr_buf_adds(out, " ## Commit message ##\n");
	if (!err)
		err = add_message(out, p);
	if (!err && p->diff)
		err = add_diff(out, &off, &lines, p->diff);
	if (err) {
		pr_buf_setlen(out, start);
		return err;
	}
	*diff_offset = off ? off - start : 0;
	*diff_lines = lines;
	return 0;
}

/* The libgit2 diff of two texts, git's defaults: Myers, 3 lines. */
static int diff_texts(const char *a, size_t alen, const char *b, size_t blen,
		      bool heuristic, git_diff_hunk_cb hunk_cb,
		      git_diff_line_cb line_cb, void *payload)
{
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	int rc;

	opts.flags = GIT_DIFF_FORCE_TEXT;
	if (heuristic)
		opts.flags |= GIT_DIFF_INDENT_HEURISTIC;
	opts.context_lines = 3;
	opts.interhunk_lines = 0;
	rc = git_diff_buffers(a, alen, NULL, b, blen, NULL, &opts, NULL, NULL,
			      hunk_cb, line_cb, payload);
	return rc;
}

static int count_hunk(const git_diff_delta *delta, const git_diff_hunk *hunk,
		      void *payload)
{
	(*(long *)payload)++;
	return 0;
}

static int count_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
		      const git_diff_line *line, void *payload)
{
	if (line->origin == GIT_DIFF_LINE_CONTEXT ||
	    line->origin == GIT_DIFF_LINE_ADDITION ||
	    line->origin == GIT_DIFF_LINE_DELETION)
		(*(long *)payload)++;
	return 0;
}

/* git's diffsize(): the lines of the diff, hunk headers included. */
static int diff_size(int *out, const struct rd_patch *a,
		     const struct rd_patch *b)
{
	long n = 0;

	if (diff_texts(
		    a->text.ptr + a->diff_offset, a->text.len - a->diff_offset,
		    b->text.ptr + b->diff_offset, b->text.len - b->diff_offset,
		    false, count_hunk, count_line, &n) < 0)
		return pr_error(PR_EINTERNAL, "range-diff: libgit2 diff: %s",
				git_error_last() ? git_error_last()->message
						 : "failed");
	*out = n > RD_INT_MAX / 4 ? RD_INT_MAX / 4 : (int)n;
	return 0;
}

struct emit_ctx {
	struct pr_buf *out;
	const char *old;
	size_t *starts; /* starts[i]: offset of line i of old; one extra */
	size_t nr_lines;
	long func_limit; /* lines above it were searched already */
	const char *func;
	size_t func_len;
	bool have_func;
	int err;
};

/*
 * The function name range-diff's section-header driver takes from a line:
 * the X of " ## X ##" or of "@@ X" (one optional character before the @@).
 */
static bool section_name(const char *line, size_t len, const char **name,
			 size_t *name_len)
{
	const char *s = NULL;
	size_t n = 0;

	if (len && line[len - 1] == '\n')
		len--;
	if (len && line[len - 1] == '\r')
		len--;
	if (len >= 7 && !memcmp(line, " ## ", 4) &&
	    !memcmp(line + len - 3, " ##", 3)) {
		s = line + 4;
		n = len - 7;
	} else if (len >= 3 && !memcmp(line, "@@ ", 3)) {
		s = line + 3;
		n = len - 3;
	} else if (len >= 4 && !memcmp(line + 1, "@@ ", 3)) {
		s = line + 4;
		n = len - 4;
	} else {
		return false;
	}
	if (n > RD_FUNC_MAX)
		n = RD_FUNC_MAX;
	while (n && git_space((unsigned char)s[n - 1]))
		n--;
	*name = s;
	*name_len = n;
	return true;
}

static int emit_hunk(const git_diff_delta *delta, const git_diff_hunk *hunk,
		     void *payload)
{
	struct emit_ctx *c = payload;
	long first = hunk->old_lines ? (long)hunk->old_start - 1
				     : (long)hunk->old_start;
	long l;

	/* xdiff: the nearest matching line above the hunk, in the old text */
	for (l = first - 1; l > c->func_limit && l >= 0; l--) {
		const char *line = c->old + c->starts[l];
		size_t len = c->starts[l + 1] - c->starts[l];

		if (section_name(line, len, &c->func, &c->func_len)) {
			c->have_func = true;
			break;
		}
	}
	c->func_limit = first - 1;
	c->err = pr_buf_adds(c->out, "    @@");
	if (!c->err && c->have_func && c->func_len)
		c->err =
			pr_buf_addf(c->out, " %.*s", (int)c->func_len, c->func);
	if (!c->err)
		c->err = pr_buf_addch(c->out, '\n');
	return c->err ? -1 : 0;
}

static int emit_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
		     const git_diff_line *line, void *payload)
{
	struct emit_ctx *c = payload;

	if (line->origin != GIT_DIFF_LINE_CONTEXT &&
	    line->origin != GIT_DIFF_LINE_ADDITION &&
	    line->origin != GIT_DIFF_LINE_DELETION)
		return 0; /* patch texts always end in a newline */
	c->err = pr_buf_addf(c->out, "    %c", line->origin);
	if (!c->err)
		c->err = pr_buf_add(c->out, line->content, line->content_len);
	return c->err ? -1 : 0;
}

/* The diff of two patch texts, indented, as range-diff prints it. */
static int add_inner_diff(struct pr_buf *out, const struct pr_buf *a,
			  const struct pr_buf *b)
{
	struct emit_ctx c = { 0 };
	size_t i, n = 0;
	int err = 0;

	c.out = out;
	c.old = a->ptr;
	c.func_limit = -1;
	for (i = 0; i < a->len; i++)
		n += a->ptr[i] == '\n';
	c.starts = pr_calloc(n + 2, sizeof(*c.starts));
	for (i = 0; i < a->len; i++)
		if (a->ptr[i] == '\n')
			c.starts[++c.nr_lines] = i + 1;
	c.starts[c.nr_lines + 1] = a->len;
	if (diff_texts(a->ptr, a->len, b->ptr, b->len, true, emit_hunk,
		       emit_line, &c) < 0)
		err = c.err ? c.err
			    : pr_error(PR_EINTERNAL,
				       "range-diff: libgit2 diff: %s",
				       git_error_last()
					       ? git_error_last()->message
					       : "failed");
	free(c.starts);
	return err;
}

#define COST(col, row) cost[(size_t)(col) + (size_t)n * (size_t)(row)]

/*
 * Column reduction and reduction transfer: each column's dual is its
 * cheapest row, and a row cheapest for exactly one column takes it.
 * Returns the number of rows left free, listed in free_rows.
 */
static int assign_reduce(int *col2row, int *row2col, int *v, int *free_rows,
			 const int *cost, int n)
{
	int i, j, nfree = 0;

	/* last column first, as Jonker and Volgenant do */
	for (j = n - 1; j >= 0; j--) {
		int best = 0;

		for (i = 1; i < n; i++)
			if (COST(j, i) < COST(j, best))
				best = i;
		v[j] = COST(j, best);
		if (row2col[best] == -1) {
			row2col[best] = j;
			col2row[j] = best;
		} else if (row2col[best] >= 0) {
			/* cheapest for several columns: keep it, mark it */
			row2col[best] = -2 - row2col[best];
		}
	}
	for (i = 0; i < n; i++) {
		int j1 = row2col[i], min = RD_INT_MAX;

		if (j1 == -1) {
			free_rows[nfree++] = i;
			continue;
		}
		if (j1 < -1) {
			row2col[i] = -2 - j1;
			continue;
		}
		for (j = 0; j < n; j++)
			if (j != j1 && COST(j, i) - v[j] < min)
				min = COST(j, i) - v[j];
		v[j1] -= min;
	}
	return nfree;
}

/*
 * Augmenting row reduction: a free row takes its cheapest column (the
 * later one of equal reduced costs), pushing out that column's row, which
 * is tried again at once when the dual could be lowered, or kept for the
 * next pass when two columns tie.
 */
static int assign_row_reduce(int *col2row, int *row2col, int *v, int *free_rows,
			     int nfree, const int *cost, int n)
{
	int k = 0, todo = nfree;

	nfree = 0;
	while (k < todo) {
		int i = free_rows[k++], j, j1 = 0, j2 = -1, i0;
		int u1 = COST(0, i) - v[0], u2 = RD_INT_MAX;

		for (j = 1; j < n; j++) {
			int h = COST(j, i) - v[j];

			if (h >= u2)
				continue;
			if (h > u1) {
				u2 = h;
				j2 = j;
			} else {
				u2 = u1;
				u1 = h;
				j2 = j1;
				j1 = j;
			}
		}
		i0 = col2row[j1];
		if (u1 < u2)
			v[j1] -= u2 - u1;
		else if (i0 >= 0 && j2 >= 0) {
			j1 = j2;
			i0 = col2row[j1];
		}
		if (i0 >= 0) {
			if (u1 < u2)
				free_rows[--k] = i0;
			else
				free_rows[nfree++] = i0;
		}
		row2col[i] = j1;
		col2row[j1] = i;
	}
	return nfree;
}

/* A free column, or -1: the fallback when the search has nowhere to go. */
static int any_free_column(const int *col2row, int n)
{
	int j;

	for (j = 0; j < n; j++)
		if (col2row[j] < 0)
			return j;
	return -1;
}

/*
 * Shortest augmenting path (Dijkstra on reduced costs) from row start.
 *
 * One quirk of git 2.39.5 is reproduced on purpose: when the free column
 * is found among the columns just gathered at the new smallest distance,
 * git augments along the column its gathering loop looked at last, not
 * along the free one.  That can leave a cheaper pairing unmade (a patch
 * shown as removed and added although it changed little), and
 * range-diffs only match git's byte for byte with the same choice.  The
 * walk back is bounded so that the inconsistent state this can leave
 * never loops.
 */
static void assign_augment(int *col2row, int *row2col, int *v, int *d,
			   int *pred, int *cols, int start, const int *cost,
			   int n)
{
	int low = 0, up = 0, last = 0, min = 0, end = -1, steps = 0;
	int i, j = -1, k, jlast = -1;

	for (k = 0; k < n; k++) {
		d[k] = COST(k, start) - v[k];
		pred[k] = start;
		cols[k] = k;
	}
	/*
	 * cols[0..low) are done, cols[low..up) are at distance min and wait
	 * to be scanned, cols[up..n) are further away.
	 */
	while (end < 0) {
		if (low == up) {
			if (up >= n) {
				end = any_free_column(col2row, n);
				if (end < 0)
					return;
				break;
			}
			last = low;
			min = d[cols[up++]];
			for (k = up; k < n; k++) {
				j = jlast = cols[k];
				if (d[j] > min)
					continue;
				if (d[j] < min) {
					up = low;
					min = d[j];
				}
				cols[k] = cols[up];
				cols[up++] = j;
			}
			for (k = low; k < up && end < 0; k++)
				if (col2row[cols[k]] < 0)
					end = jlast >= 0 ? jlast : cols[k];
			if (end >= 0)
				break;
		}
		{
			int j1 = cols[low++], u1;

			i = col2row[j1];
			u1 = COST(j1, i) - v[j1] - min;
			for (k = up; k < n && end < 0; k++) {
				int h;

				j = jlast = cols[k];
				h = COST(j, i) - v[j] - u1;
				if (h >= d[j])
					continue;
				d[j] = h;
				pred[j] = i;
				if (h != min)
					continue;
				if (col2row[j] < 0) {
					end = j;
				} else {
					cols[k] = cols[up];
					cols[up++] = j;
				}
			}
		}
	}
	for (k = 0; k < last; k++)
		v[cols[k]] += d[cols[k]] - min;
	j = end;
	do {
		int t;

		i = pred[j];
		col2row[j] = i;
		t = row2col[i];
		row2col[i] = j;
		j = t;
	} while (i != start && j >= 0 && j < n && ++steps <= n);
}

void pr_rangediff_assign(int *col2row, int *row2col, const int *cost, int n)
{
	int *v, *free_rows, *d, *pred, *cols;
	int i, nfree, pass;

	if (n < 2) {
		/* git pairs the lone row and column without looking */
		if (n == 1)
			col2row[0] = row2col[0] = 0;
		return;
	}
	for (i = 0; i < n; i++)
		col2row[i] = row2col[i] = -1;
	v = pr_calloc((size_t)n, sizeof(*v));
	free_rows = pr_calloc((size_t)n, sizeof(*free_rows));
	d = pr_calloc((size_t)n, sizeof(*d));
	pred = pr_calloc((size_t)n, sizeof(*pred));
	cols = pr_calloc((size_t)n, sizeof(*cols));
	nfree = assign_reduce(col2row, row2col, v, free_rows, cost, n);
	for (pass = 0; pass < 2 && nfree; pass++)
		nfree = assign_row_reduce(col2row, row2col, v, free_rows, nfree,
					  cost, n);
	for (i = 0; i < nfree; i++)
		assign_augment(col2row, row2col, v, d, pred, cols, free_rows[i],
			       cost, n);
	free(v);
	free(free_rows);
	free(d);
	free(pred);
	free(cols);
}

static int set_id(struct rd_patch *rp, const struct rd_ids *ids)
{
	const char *src = rp->p->commit_id[0] ? rp->p->commit_id
					      : rp->p->patch_id;
	struct pr_buf abbrev = PR_BUF_INIT;
	int err = 0;

	if (ids->abbrev && rp->p->commit_id[0]) {
		/* a commit: abbreviated as its repository says */
		err = ids->abbrev(&abbrev, rp->p->commit_id, ids->payload);
		if (!err &&
		    (abbrev.len < 1 || abbrev.len > PR_RANGEDIFF_ID_MAX))
			err = pr_error(PR_EINVAL,
				       "range-diff: abbreviation of '%s' has "
				       "%zu digits",
				       rp->p->commit_id, abbrev.len);
		if (!err)
			memcpy(rp->id, abbrev.ptr, abbrev.len + 1);
	} else if (strlen(src) >= RD_ABBREV) {
		memcpy(rp->id, src, RD_ABBREV);
		rp->id[RD_ABBREV] = '\0';
	} else {
		memset(rp->id, '-', RD_ABBREV);
		rp->id[RD_ABBREV] = '\0';
	}
	pr_buf_release(&abbrev);
	return err;
}

static int load_side(struct rd_patch **out, const struct pr_version *v,
		     const char *which, const struct rd_ids *ids)
{
	struct rd_patch *r;
	size_t i;
	int err = 0;

	if (v->nr > PR_LIMIT_RANGE_DIFF_PATCHES)
		return pr_error(PR_ETOOBIG,
				"range-diff: %s version has more than %d "
				"patches",
				which, PR_LIMIT_RANGE_DIFF_PATCHES);
	r = pr_calloc(v->nr ? v->nr : 1, sizeof(*r));
	for (i = 0; i < v->nr; i++) {
		r[i].p = v->patches[i];
		r[i].index = (int)i;
		r[i].match = -1;
		pr_buf_init(&r[i].text, PR_LIMIT_DIFF_BYTES);
	}
	for (i = 0; i < v->nr && !err; i++)
		err = set_id(&r[i], ids);
	for (i = 0; i < v->nr && !err; i++) {
		err = pr_rangediff_patch_text(&r[i].text, &r[i].diff_offset,
					      &r[i].diff_lines, v->patches[i]);
		if (err)
			err = pr_error_wrap(err, "range-diff: %s patch %zu",
					    which, i + 1);
	}
	*out = r;
	return err;
}

static void free_side(struct rd_patch *r, size_t nr)
{
	size_t i;

	for (i = 0; r && i < nr; i++)
		pr_buf_release(&r[i].text);
	free(r);
}

static bool same_diff(const struct rd_patch *a, const struct rd_patch *b)
{
	size_t la = a->text.len - a->diff_offset;
	size_t lb = b->text.len - b->diff_offset;

	return la == lb && !memcmp(a->text.ptr + a->diff_offset,
				   b->text.ptr + b->diff_offset, la);
}

/*
 * Pair identical diffs: each new patch takes the last unpaired old one
 * with the same diff (git's hash map hands back the newest entry first).
 */
static void exact_matches(struct rd_patch *a, int na, struct rd_patch *b,
			  int nb)
{
	int i, j;

	for (j = 0; j < nb; j++)
		for (i = na - 1; i >= 0; i--)
			if (a[i].match < 0 && same_diff(&a[i], &b[j])) {
				a[i].match = j;
				b[j].match = i;
				break;
			}
}

static int creation_cost(const struct rd_patch *p, int factor)
{
	int64_t c = (int64_t)p->diff_lines * factor / 100;

	return c > RD_INT_MAX / 4 ? RD_INT_MAX / 4 : (int)c;
}

static int correspondences(struct rd_patch *a, int na, struct rd_patch *b,
			   int nb, int factor)
{
	int n = na + nb, i, j, c = 0, err = 0;
	int *cost = pr_calloc((size_t)n * (size_t)n + 1, sizeof(*cost));
	int *a2b = pr_calloc((size_t)n + 1, sizeof(*a2b));
	int *b2a = pr_calloc((size_t)n + 1, sizeof(*b2a));

	/* columns are old patches, rows new ones; the rest are dummies */
	for (i = 0; i < na && !err; i++) {
		for (j = 0; j < nb && !err; j++) {
			if (a[i].match == j)
				c = 0;
			else if (a[i].match < 0 && b[j].match < 0)
				err = diff_size(&c, &a[i], &b[j]);
			else
				c = RD_COST_MAX;
			COST(i, j) = c;
		}
		c = a[i].match < 0 ? creation_cost(&a[i], factor) : RD_COST_MAX;
		for (j = nb; j < n; j++)
			COST(i, j) = c;
	}
	for (j = 0; j < nb; j++) {
		c = b[j].match < 0 ? creation_cost(&b[j], factor) : RD_COST_MAX;
		for (i = na; i < n; i++)
			COST(i, j) = c;
	}
	if (err)
		goto done;
	pr_rangediff_assign(a2b, b2a, cost, n);
	for (i = 0; i < na; i++)
		if (a2b[i] >= 0 && a2b[i] < nb) {
			a[i].match = a2b[i];
			b[a2b[i]].match = i;
		}
done:
	free(cost);
	free(a2b);
	free(b2a);
	return err;
}

/*
 * One "N:  ID S M:  ID SUBJECT" line.  git sizes the dashes of a missing
 * side once, from the id of the first line printed: *dashes is that
 * length, 0 before the first line.
 */
static int add_pair_header(struct pr_buf *out, int width, int *dashes,
			   const struct rd_patch *a, const struct rd_patch *b)
{
	static const char dash[PR_RANGEDIFF_ID_MAX + 1] =
		"----------------------------------------";
	const struct rd_patch *named = a ? a : b;
	char status;
	int err;

	if (!b)
		status = '<';
	else if (!a)
		status = '>';
	else if (a->text.len != b->text.len ||
		 memcmp(a->text.ptr, b->text.ptr, a->text.len))
		status = '!';
	else
		status = '=';
	if (!*dashes)
		*dashes = (int)strlen(named->id);
	if (a)
		err = pr_buf_addf(out, "%*d:  %s ", width, a->index + 1, a->id);
	else
		err = pr_buf_addf(out, "%*s:  %.*s ", width, "-", *dashes,
				  dash);
	if (!err)
		err = pr_buf_addch(out, status);
	if (!err && b)
		err = pr_buf_addf(out, " %*d:  %s", width, b->index + 1, b->id);
	else if (!err)
		err = pr_buf_addf(out, " %*s:  %.*s", width, "-", *dashes,
				  dash);
	if (!err)
		err = pr_buf_addf(out, " %s\n",
				  named->p->subject ? named->p->subject : "");
	if (!err && status == '!')
		err = add_inner_diff(out, &a->text, &b->text);
	return err;
}

static int digits(int v)
{
	int w = 1;

	for (; v >= 10; v /= 10)
		w++;
	return w;
}

/*
 * New patches in order; an unpaired old patch goes out as soon as every
 * old patch before it has been shown.
 */
static int output(struct pr_buf *out, struct rd_patch *a, int na,
		  struct rd_patch *b, int nb)
{
	int width = digits(1 + (na > nb ? na : nb));
	int i = 0, j = 0, err = 0, dashes = 0;

	while (!err && (i < na || j < nb)) {
		while (i < na && a[i].shown)
			i++;
		if (i < na && a[i].match < 0) {
			err = add_pair_header(out, width, &dashes, &a[i], NULL);
			i++;
			continue;
		}
		while (!err && j < nb && b[j].match < 0) {
			err = add_pair_header(out, width, &dashes, NULL, &b[j]);
			j++;
		}
		if (!err && j < nb) {
			struct rd_patch *pa = &a[b[j].match];

			err = add_pair_header(out, width, &dashes, pa, &b[j]);
			pa->shown = true;
			j++;
		}
	}
	return err;
}

int pr_rangediff_format(struct pr_buf *out, const struct pr_version *old,
			const struct pr_version *new, int creation_factor)
{
	return pr_rangediff_format_ids(out, old, new, creation_factor, NULL,
				       NULL);
}

int pr_rangediff_format_ids(struct pr_buf *out, const struct pr_version *old,
			    const struct pr_version *new, int creation_factor,
			    pr_rangediff_abbrev_fn *abbrev, void *payload)
{
	const struct rd_ids ids = { abbrev, payload };
	struct rd_patch *a = NULL, *b = NULL;
	size_t start = out->len;
	int err;

	if (!old || !new)
		return pr_error(PR_EINVAL, "range-diff: no version given");
	if (creation_factor < 0 || creation_factor > 100000)
		return pr_error(PR_EINVAL,
				"range-diff: creation factor '%d' out of range",
				creation_factor);
	git_libgit2_init();
	err = load_side(&a, old, "old", &ids);
	if (!err)
		err = load_side(&b, new, "new", &ids);
	if (err)
		goto done;
	exact_matches(a, (int)old->nr, b, (int)new->nr);
	err = correspondences(a, (int)old->nr, b, (int)new->nr,
			      creation_factor);
	if (!err)
		err = output(out, a, (int)old->nr, b, (int)new->nr);
done:
	if (err)
		pr_buf_setlen(out, start);
	free_side(a, old->nr);
	free_side(b, new->nr);
	git_libgit2_shutdown();
	return err;
}

int pr_rangediff_pair(int *new2old, const struct pr_version *old,
		      const struct pr_version *new, int creation_factor)
{
	const struct rd_ids ids = { NULL, NULL };
	struct rd_patch *a = NULL, *b = NULL;
	size_t j;
	int err;

	if (!old || !new)
		return pr_error(PR_EINVAL, "range-diff: no version given");
	git_libgit2_init();
	err = load_side(&a, old, "old", &ids);
	if (!err)
		err = load_side(&b, new, "new", &ids);
	if (!err) {
		exact_matches(a, (int)old->nr, b, (int)new->nr);
		err = correspondences(a, (int)old->nr, b, (int)new->nr,
				      creation_factor);
	}
	for (j = 0; !err && j < new->nr; j++)
		new2old[j] = b[j].match;
	free_side(a, old->nr);
	free_side(b, new->nr);
	git_libgit2_shutdown();
	return err;
}

int pr_range_diff(struct pr_buf *out, const struct pr_version *old,
		  const struct pr_version *new)
{
	return pr_rangediff_format(out, old, new, 60);
}
