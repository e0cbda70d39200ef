#ifndef PR_RANGEDIFF_H
#define PR_RANGEDIFF_H

#include <stddef.h>

#include "base/buf.h"
#include "model/model.h"

/*
 * Range-diff: what `git range-diff --no-color --creation-factor=60 A..B
 * C..D` (git 2.39) prints for two versions of a series, computed from the
 * model alone (no repository is needed).
 *
 * Invariants and documented behaviour:
 * - Each patch is turned into the text git diffs ("patch text"):
 *
 *	 ## Metadata ##
 *	Author: NAME <EMAIL>
 *
 *	 ## Commit message ##
 *	    subject (the first paragraph, one or more lines)
 *
 *	    body line, tabs expanded to 8 columns, trailing blanks cut
 *
 *	 ## path/to/file (new) ##
 *	@@ path/to/file: funcname
 *	 context
 *	-removed
 *	+added
 *
 *   The commit message is subject, a blank line and body, as `git log`
 *   indents it (blank lines before and after it are dropped).  File headers
 *   say "(new)", "(deleted)", "OLD => NEW" for renames and "(mode change
 *   100644 => 100755)"; a binary file is one "Binary files X and Y differ"
 *   line, as `git log -p` (without --binary) prints it.
 * - The part from the first file header on is the patch's "diff".  Two
 *   patches whose diffs are byte-identical are paired first (among several
 *   identical old ones, the last unpaired one is taken).  The others are
 *   paired by a minimal-cost linear assignment: pairing costs the number of
 *   lines (hunk headers included) of the 3-line-context diff between the
 *   two diffs; leaving a patch unpaired costs its diff's line count times
 *   the creation factor / 100.
 * - Output follows the new version's order; an old patch that has no pair
 *   is printed once every old patch before it was printed.  The header line
 *   is "N:  ID S M:  ID SUBJECT" with S one of '=', '!', '<', '>', numbers
 *   right-aligned to the width of (1 + the longer series), and SUBJECT the
 *   old patch's when there is one.  A '!' pair is followed by the diff of
 *   the two patch texts, indented four spaces, each hunk header "@@" plus
 *   the nearest " ## X ##" or "@@ X" line above it.
 * - The ID column is the first 7 hex digits of commit_id, or what the
 *   caller's pr_rangediff_abbrev_fn makes of it (git abbreviates as
 *   core.abbrev and the repository's size say: pr_gitrepo_abbrev()).
 *   When commit_id is "" (a patch from mail), the first 7 digits of
 *   patch_id are used; when that is "" too, "-------".  The dashes of a
 *   missing side are as long as the id of the first header line, as git
 *   sizes them.
 * - Each version may have at most PR_LIMIT_RANGE_DIFF_PATCHES patches (the
 *   cost matrix is quadratic in their sum); past that PR_ETOOBIG.
 *
 * - A commit's first paragraph (subject_raw of a pr_gitrepo_load() patch)
 *   keeps its line breaks in the "## Commit message ##" part; the header
 *   line shows it joined with spaces (p->subject), as git's oneline does.
 *
 * Known differences from git: tab
 * expansion counts East Asian wide characters as two columns with a small
 * table, not the full Unicode one; and `.mailmap`, notes and merge commits
 * are not handled.
 */

/* Append `git range-diff --no-color` of old..new as git 2.39 prints it. */
int pr_range_diff(struct pr_buf *out, const struct pr_version *old,
		  const struct pr_version *new);

/*
 * The pairing alone: new2old[j] (new->nr entries) is the index of the
 * old patch new patch j is paired with, -1 when it has none, as the
 * range-diff with that creation factor would show them.
 */
int pr_rangediff_pair(int *new2old, const struct pr_version *old,
		      const struct pr_version *new, int creation_factor);

/* The same with another creation factor (git's --creation-factor, 0..). */
int pr_rangediff_format(struct pr_buf *out, const struct pr_version *old,
			const struct pr_version *new, int creation_factor);

/* The longest id the ID column holds: a full SHA-1. */
#define PR_RANGEDIFF_ID_MAX 40

/*
 * Append the ID-column abbreviation of commit id hex (40 hex digits) to
 * out, 1 to PR_RANGEDIFF_ID_MAX characters.
 */
typedef int pr_rangediff_abbrev_fn(struct pr_buf *out, const char *hex,
				   void *payload);

/*
 * The same with commit ids abbreviated by abbrev (NULL: 7 digits), which
 * gets payload; its errors end the call.
 */
int pr_rangediff_format_ids(struct pr_buf *out, const struct pr_version *old,
			    const struct pr_version *new, int creation_factor,
			    pr_rangediff_abbrev_fn *abbrev, void *payload);

/*
 * Append the patch text of p (see above).  *diff_offset is set to the byte
 * offset of the diff part inside what was appended (0 when p has no diff,
 * as git does), *diff_lines to the number of lines from there on.
 */
int pr_rangediff_patch_text(struct pr_buf *out, size_t *diff_offset,
			    size_t *diff_lines, const struct pr_patch *p);

/*
 * Solve the n x n assignment problem for cost[col + n * row] (Jonker and
 * Volgenant's shortest augmenting path method, breaking ties as git's
 * linear-assignment.c does): col2row[col] and row2col[row] receive the
 * pairing.  Costs must be >= 0 and small enough that sums do not overflow.
 */
void pr_rangediff_assign(int *col2row, int *row2col, const int *cost, int n);

#endif
