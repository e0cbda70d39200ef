#include "base/pr.h"
#include "kernel_ci.h"

#include <ctype.h>

/*
 * What a kernel build log and a serial console say (kernel_ci.h).  Both are
 * read as lines of any bytes: LF ends a line, CRs before it are dropped,
 * so QEMU's CR LF console reads as the kernel wrote it.
 */

#define QUOTE_LINE_MAX 512 /* a quoted line is cut here */
#define CONTEXT_BEFORE 4
#define CONTEXT_AFTER 8
#define CONSOLE_QUOTE 40

struct line {
	const char *p;
	size_t n;
};

struct lines {
	struct line *items;
	size_t nr, alloc;
};

static void split_lines(struct lines *out, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (out->nr == out->alloc) {
			out->alloc = out->alloc ? out->alloc * 2 : 256;
			out->items = pr_reallocarray(out->items, out->alloc,
						     sizeof(*out->items));
		}
		out->items[out->nr].p = p;
		while (n && p[n - 1] == '\r')
			n--;
		out->items[out->nr++].n = n;
		p = nl ? nl + 1 : end;
	}
}

/* memmem for a NUL-terminated needle. */
static const char *find(const struct line *l, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; k <= l->n && i + k <= l->n; i++)
		if (l->p[i] == needle[0] && !memcmp(l->p + i, needle, k))
			return l->p + i;
	return NULL;
}

static bool starts(const struct line *l, const char *prefix)
{
	size_t k = strlen(prefix);

	return l->n >= k && !memcmp(l->p, prefix, k);
}

/* A line of the quote: printable, cut at QUOTE_LINE_MAX. */
static void add_line(struct pr_buf *out, const struct line *l)
{
	size_t i, n = l->n < QUOTE_LINE_MAX ? l->n : QUOTE_LINE_MAX;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)l->p[i];

		pr_buf_addch(out, ch == '\t' || ch >= 0x20 ? ch : '?');
	}
	if (n < l->n)
		pr_buf_adds(out, "...");
	pr_buf_addch(out, '\n');
}

void pr_kci_findings_release(struct pr_kci_findings *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++) {
		free(f->items[i].key);
		free(f->items[i].quote);
	}
	free(f->items);
	memset(f, 0, sizeof(*f));
}

static bool has_key(const struct pr_kci_findings *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (!strcmp(f->items[i].key, key))
			return true;
	return false;
}

static void add_finding(struct pr_kci_findings *f, size_t cap, char *key,
			struct pr_buf *quote)
{
	if (has_key(f, key)) {
		free(key);
		return;
	}
	if (f->nr == cap) {
		f->more++;
		free(key);
		return;
	}
	if (f->nr == f->alloc) {
		f->alloc = f->alloc ? f->alloc * 2 : 8;
		f->items =
			pr_reallocarray(f->items, f->alloc, sizeof(*f->items));
	}
	f->items[f->nr].key = key;
	f->items[f->nr++].quote = pr_buf_detach(quote, NULL);
}

void pr_kci_warning_key(struct pr_buf *out, const char *line, size_t len)
{
	struct line l = { line, len };
	const char *w = find(&l, ": warning: ");
	size_t loc, i;
	int cut;

	if (!w) {
		pr_buf_add(out, line, len);
		return;
	}
	/* "file.c:12:5" -> "file.c": drop up to two ":digits" at its end. */
	loc = (size_t)(w - line);
	for (cut = 0; cut < 2; cut++) {
		i = loc;
		while (i && isdigit((unsigned char)line[i - 1]))
			i--;
		if (i == loc || !i || line[i - 1] != ':')
			break;
		loc = i - 1;
	}
	pr_buf_add(out, line, loc);
	pr_buf_add(out, w, len - (size_t)(w - line));
}

enum build_kind {
	B_NONE,
	B_ERROR,
	B_WARNING,
	B_MAKE
};

static enum build_kind classify(const struct line *l)
{
	if (find(l, ": error: ") || find(l, ": fatal error: ") ||
	    find(l, "undefined reference to ") ||
	    starts(l, "ERROR: modpost: ") || find(l, ": Error: "))
		return B_ERROR;
	if (find(l, ": warning: ") || starts(l, "WARNING: modpost: "))
		return B_WARNING;
	if (starts(l, "make") && find(l, ": *** "))
		return B_MAKE;
	return B_NONE;
}

/* gcc's lines before a diagnostic: where it was included, the function. */
static bool lead_line(const struct line *l)
{
	return starts(l, "In file included from ") ||
	       starts(l, "                 from ") ||
	       find(l, ": In function ") || find(l, ": At top level:") ||
	       find(l, ": In member function ");
}

/* gcc's lines after one: the source line and the caret, notes. */
static bool trail_line(const struct line *l)
{
	size_t i = 0;

	if (find(l, ": note: "))
		return true;
	while (i < l->n && (l->p[i] == ' ' || isdigit((unsigned char)l->p[i])))
		i++;
	return i && i < l->n && l->p[i] == '|';
}

static void quote_at(struct pr_buf *q, const struct lines *ls, size_t i)
{
	size_t from = i, to = i + 1;

	while (from > 0 && i - from < CONTEXT_BEFORE &&
	       lead_line(&ls->items[from - 1]))
		from--;
	while (to < ls->nr && to - i <= CONTEXT_AFTER &&
	       trail_line(&ls->items[to]))
		to++;
	for (; from < to; from++)
		add_line(q, &ls->items[from]);
}

void pr_kci_build_scan(struct pr_kci_findings *errors,
		       struct pr_kci_findings *warnings, const char *log,
		       size_t len, size_t cap)
{
	struct pr_kci_findings make = { 0 };
	struct lines ls;
	size_t i, nr_make;

	split_lines(&ls, log, len);
	for (i = 0; i < ls.nr; i++) {
		const struct line *l = &ls.items[i];
		enum build_kind k = classify(l);
		struct pr_buf key = PR_BUF_INIT, q = PR_BUF_INIT;

		if (k == B_NONE)
			continue;
		if (k == B_WARNING)
			pr_kci_warning_key(&key, l->p, l->n);
		else
			pr_buf_add(&key, l->p, l->n);
		quote_at(&q, &ls, i);
		if (k == B_ERROR)
			add_finding(errors, cap, pr_buf_detach(&key, NULL), &q);
		else if (k == B_WARNING)
			add_finding(warnings, cap, pr_buf_detach(&key, NULL),
				    &q);
		else
			add_finding(&make, cap, pr_buf_detach(&key, NULL), &q);
		pr_buf_release(&q);
	}
	/* make's "*** [target] Error 1" says where, when nothing else does */
	nr_make = errors->nr ? 0 : make.nr;
	for (i = 0; i < nr_make; i++) {
		struct pr_buf q = PR_BUF_INIT;

		pr_buf_adds(&q, make.items[i].quote);
		add_finding(errors, cap, pr_strdup(make.items[i].key), &q);
		pr_buf_release(&q);
	}
	pr_kci_findings_release(&make);
	free(ls.items);
}

static const char *const panic_marks[] = {
	"Kernel panic - not syncing",
	NULL,
};

static const char *const oops_marks[] = {
	"BUG: ",
	"Oops: ",
	"kernel BUG at ",
	"general protection fault",
	"Unable to handle kernel ",
	"stack segment: ",
	"invalid opcode: ",
	"divide error: ",
	"double fault: ",
	NULL,
};

static const char *const warning_marks[] = {
	"WARNING: CPU: ",
	"------------[ cut here ]------------",
	NULL,
};

static bool marked(const struct line *l, const char *const *marks)
{
	for (; *marks; marks++)
		if (find(l, *marks))
			return true;
	return false;
}

static char *line_dup(const struct line *l)
{
	struct pr_buf b = PR_BUF_INIT;

	add_line(&b, l);
	pr_buf_rtrim(&b);
	return pr_buf_detach(&b, NULL);
}

static void quote_range(struct pr_buf *q, const struct lines *ls, size_t from,
			size_t to)
{
	for (; from < to && from < ls->nr; from++)
		add_line(q, &ls->items[from]);
}

void pr_kci_console_scan(struct pr_kci_console *out, const char *text,
			 size_t len, const char *marker)
{
	size_t i, marker_at = SIZE_MAX, bad = SIZE_MAX, panic = SIZE_MAX;
	size_t warn = SIZE_MAX, end, from;
	struct lines ls;

	memset(out, 0, sizeof(*out));
	pr_buf_init(&out->quote, 0);
	split_lines(&ls, text, len);
	for (i = 0; i < ls.nr; i++) {
		const struct line *l = &ls.items[i];

		if (marker_at == SIZE_MAX && *marker && find(l, marker))
			marker_at = i;
		if (panic == SIZE_MAX && marked(l, panic_marks))
			panic = i;
		if (bad == SIZE_MAX &&
		    (marked(l, panic_marks) || marked(l, oops_marks)))
			bad = i;
		if (warn == SIZE_MAX && marked(l, warning_marks))
			warn = i;
	}
	if (marker_at != SIZE_MAX)
		out->marker_line = line_dup(&ls.items[marker_at]);
	if (bad != SIZE_MAX) {
		out->state = panic != SIZE_MAX ? PR_KCI_BOOT_PANIC
					       : PR_KCI_BOOT_OOPS;
		out->headline = line_dup(&ls.items[bad]);
		/* from just before it to its trace's end, or a screenful */
		from = bad >= 2 ? bad - 2 : 0;
		if (warn < bad && bad - warn <= 4)
			from = warn; /* the cut-here line that opened it */
		for (end = bad; end < ls.nr && end - from < CONSOLE_QUOTE;
		     end++)
			if (find(&ls.items[end], "---[ end ")) {
				end++;
				break;
			}
		quote_range(&out->quote, &ls, from, end);
		if (panic != SIZE_MAX && panic >= end) {
			pr_buf_adds(&out->quote, "[...]\n");
			add_line(&out->quote, &ls.items[panic]);
		}
	} else if (marker_at == SIZE_MAX) {
		out->state = PR_KCI_BOOT_NO_MARKER;
		quote_range(&out->quote, &ls, ls.nr > 30 ? ls.nr - 30 : 0,
			    ls.nr);
	} else if (warn != SIZE_MAX) {
		out->state = PR_KCI_BOOT_WARNING;
		out->headline = line_dup(&ls.items[warn]);
		quote_range(&out->quote, &ls, warn, warn + CONSOLE_QUOTE);
	} else {
		out->state = PR_KCI_BOOT_OK;
		quote_range(&out->quote, &ls,
			    marker_at >= 6 ? marker_at - 6 : 0, marker_at + 2);
	}
	free(ls.items);
}

void pr_kci_console_release(struct pr_kci_console *c)
{
	free(c->headline);
	free(c->marker_line);
	pr_buf_release(&c->quote);
	memset(c, 0, sizeof(*c));
}
