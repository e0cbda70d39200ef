#ifndef PR_REPORT_RENDER_H
#define PR_REPORT_RENDER_H

#include "base/buf.h"
#include "model/report.h"

/*
 * One pr_report rendered for the places it is read: a terminal, a program
 * (JSON), a pull-request comment (Markdown) and a mail (plain text).
 *
 * Invariants: rendering only appends to `out` and never changes the report;
 * every format shows every entry in report order with its step, rule,
 * verdict, patch and message; a detail (tool output) longer than
 * PR_RENDER_DETAIL_LINES lines is cut to its first and last lines with a
 * line saying how many were left out.  JSON keeps the whole detail.
 */

enum pr_render_format {
	PR_RENDER_TEXT = 0,
	PR_RENDER_JSON,
	PR_RENDER_MARKDOWN,
	PR_RENDER_MAIL,
};

#define PR_RENDER_DETAIL_LINES 40

/* "text", "json", "markdown", "mail" -> format; PR_EINVAL when unknown. */
int pr_render_format_parse(enum pr_render_format *out, const char *name);
int pr_report_render(struct pr_buf *out, const struct pr_report *r,
		     enum pr_render_format fmt);
/*
 * Append text cut to its first head and last tail lines, with
 * "[... N lines left out ...]" between them when lines were dropped.
 */
int pr_render_cut(struct pr_buf *out, const char *text, size_t head,
		  size_t tail);

#endif
