#ifndef PR_DIFFSTAT_H
#define PR_DIFFSTAT_H

struct pr_buf;
struct pr_diff;

/*
 * The --stat and --summary text of a parsed diff (git/diff.h), as git
 * format-patch prints them below a commit message or in a cover letter:
 * git's diff --stat layout, name quoting and shortening, and graph
 * scaling, computed from the diff text alone.
 *
 * Invariants: the pr_diff is only read; text is appended to `out`.
 */

/*
 * The diffstat as `git format-patch` prints it (stat width 72, git's
 * MAIL_DEFAULT_WRAP, name truncation with "...", graph scaling): one line
 * per file, then " N files changed, N insertions(+), N deletions(-)".
 * A binary file shows "Bin X -> Y bytes" when its "GIT binary patch"
 * gives both blob sizes (binary_sizes in git/diff.h); a "Binary files ...
 * differ" line carries none and the line is a bare "Bin", where git would
 * print the sizes.  A type change, which git writes
 * as a deletion and a creation of the same path, counts as one modified
 * file with a mode change, as git prints it.
 */
int pr_diffstat_format(struct pr_buf *out, const struct pr_diff *d);
/*
 * The --summary lines format-patch prints after the diffstat: " create
 * mode 100644 x", " delete mode ...", " rename a => b (90%)", " copy ...",
 * " rewrite x (75%)" (-B's dissimilarity, then a mode change without the
 * name), " mode change 100644 => 100755 x".
 */
int pr_diff_summary_format(struct pr_buf *out, const struct pr_diff *d);

#endif
