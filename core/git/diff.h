#ifndef PR_DIFF_H
#define PR_DIFF_H

#include <stdbool.h>
#include <stddef.h>

struct pr_buf;

/*
 * Diff parsing: the files, hunks and line counts of a git diff or a plain
 * unified diff, plus the patch-id git computes from the same text.  The
 * diffstat and --summary of a parsed diff are git/diffstat.h's.
 *
 * Invariants:
 * - A parsed pr_diff owns every string it points at; free it with
 *   pr_diff_release(), after which it is empty and re-usable.  Start from
 *   PR_DIFF_INIT (or all zero).
 * - `offset`/`len` of files and hunks are byte ranges of the text that was
 *   parsed; they are only meaningful against that same text.
 * - Paths are unquoted (C-style "a/\303\244" becomes the raw bytes) and have
 *   their "a/" / "b/" prefix removed.  An added or deleted file has
 *   old_path equal to new_path (never "/dev/null").
 * - Modes are 0 when the diff does not say.  similarity is -1 unless a
 *   "similarity index" line gave it, or a "dissimilarity index" line (-B's
 *   complete rewrite), which also sets rewrite.
 * - `added`/`deleted` count '+'/'-' lines of the hunks; 0 for binary files.
 * - A diff has at most PR_LIMIT_DIFF_FILES files and PR_LIMIT_DIFF_BYTES of
 *   text; past either the parse fails with PR_ETOOBIG.
 */

enum pr_diff_status {
	PR_DIFF_MODIFIED,
	PR_DIFF_ADDED,
	PR_DIFF_DELETED,
	PR_DIFF_RENAMED,
	PR_DIFF_COPIED,
	PR_DIFF_TYPECHANGE,
};

struct pr_diff_hunk {
	size_t old_start, old_lines, new_start, new_lines;
	size_t offset, len; /* bytes of the hunk in the diff text */
};

struct pr_diff_file {
	char *old_path, *new_path;
	unsigned old_mode, new_mode;
	enum pr_diff_status status;
	int similarity;
	bool rewrite;
	bool binary;
	bool no_newline_old, no_newline_new;
	size_t added, deleted;
	/*
	 * Blob sizes from a "GIT binary patch" (a "literal N" hunk gives its
	 * blob's, a delta hunk both); valid only when binary_sizes is true:
	 * not for "Binary files ... differ", nor a lone literal hunk.
	 */
	bool binary_sizes;
	size_t old_size, new_size;
	struct pr_diff_hunk *hunks;
	size_t nr_hunks, alloc_hunks;
	size_t offset, len; /* bytes of this file's section */
};

struct pr_diff {
	struct pr_diff_file *files;
	size_t nr, alloc;
};

#define PR_DIFF_INIT       \
	{                  \
		NULL, 0, 0 \
	}

/*
 * Parse git diffs and plain unified diffs (---/+++ only): quoted paths,
 * renames, copies, mode changes, new and deleted files, binary patches
 * ("GIT binary patch" and "Binary files ... differ"), "\ No newline at end
 * of file".  Text before the first diff and after the last (a "-- "
 * signature) is ignored.  Bad input gives PR_EPARSE naming the line number.
 * `out` is released first; on error it is left empty.  Each "diff --git"
 * section is one file, so a type change written as delete + create gives
 * two files; PR_DIFF_TYPECHANGE is for one section whose modes differ in
 * type.
 */
int pr_diff_parse(struct pr_diff *out, const char *text, size_t len);
void pr_diff_release(struct pr_diff *d);

/*
 * A path as git's quote_c_style writes it with core.quotePath on: as it is,
 * or in double quotes with C escapes when it holds a control character, a
 * byte of 0x7f or more, '"' or a backslash.  quote_two quotes prefix and
 * path as one string when either needs it: "a/" and "ä" give the quoted
 * a/\303\244.
 */
bool pr_diff_needs_quote(const char *s);
void pr_diff_quote(struct pr_buf *out, const char *s);
void pr_diff_quote_two(struct pr_buf *out, const char *prefix, const char *s);

/*
 * git patch-id (default, or --stable) of the first patch in text: 40 hex
 * chars + NUL, as `git patch-id` 2.39 prints.  A "From <commit>" line after
 * the diff ends the patch.  PR_ENOENT when the text has no diff.
 */
int pr_patch_id(char out[41], const char *text, size_t len, bool stable);

#endif
