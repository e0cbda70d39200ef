#ifndef PR_QUOTE_H
#define PR_QUOTE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * Quoting, for the reply relay: a comment written on a forge about a line
 * of a patch is mailed with the lines it is about quoted, as a reviewer
 * on the list quotes them.
 *
 * Invariants:
 * - A quoted line is "> " and the line ("> " alone becomes ">"); the text
 *   is taken as lines of LF (a CR before it is dropped), and the result
 *   always ends with LF unless it is empty.
 * - pr_quote_diff_line reads a unified diff as git writes it: "diff --git"
 *   starts a file, "+++ b/PATH" names it (with "+++ /dev/null", the "---
 *   a/PATH" name), "@@ -a,b +c,d @@" starts a hunk whose lines are counted
 *   on the new side (' ' and '+'); anything else is skipped, so any text
 *   is read without error.  Paths are compared as written, without the
 *   a/ or b/ prefix.
 */

/* Append text with every line quoted. */
int pr_quote_text(struct pr_buf *out, const char *text);

/*
 * Append, quoted, the lines of diff that a comment on line `line` of the
 * new side of `path` answers: the file's "diff --git" line, its hunk's
 * "@@" line, up to `context` lines before that line in the hunk, and the
 * line.  PR_ENOENT (no message) when the diff has no such line.
 */
int pr_quote_diff_line(struct pr_buf *out, const char *diff, const char *path,
		       int64_t line, int context);

/* Whether diff changes path (either side's name). */
bool pr_quote_touches(const char *diff, const char *path);

#endif
