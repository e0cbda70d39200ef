#ifndef PR_PWHASH_H
#define PR_PWHASH_H

#include <stdbool.h>
#include <stddef.h>

struct pr_buf;

/*
 * Patchwork's diff hash (patchwork/hasher.py hash_diff, the same code as
 * b4's), the key its `hash` filter looks a patch up by.
 *
 * Invariants:
 * - pr_pwhash_diff() hashes a text as hash_diff() hashes a str: every CR
 *   removed, leading and trailing whitespace stripped (Python's
 *   str.strip(): the ASCII blanks, \x1c-\x1f and the UTF-8 encoded Unicode
 *   spaces), then each non-empty line: "--- X..." / "+++ X..." as "--- a/"
 *   or "+++ b/" and the path X without its first component (X is the first
 *   run of non-blanks), "@@ -a,b +c,d @@..." as "@@ -b +d @@" (a missing
 *   count is 1), lines starting with '-', '+' or ' ' as they are; every
 *   other line is left out.  Each kept line and a LF go into a SHA-1.
 *   Digits are ASCII digits (Python's \d also takes other scripts' digits).
 * - pr_pwhash_mail() hashes what Patchwork hashes for a mail: the diff its
 *   parser (parse_patch) cuts out of the text/plain body, a hunk-counting
 *   state machine, NUL bytes dropped.  Text around the diff is not in it,
 *   with Patchwork's one quirk kept: after a "GIT binary patch" every line
 *   up to the next "diff" line belongs to the diff, so the "-- " line of
 *   format-patch's signature is hashed when the last file is binary.
 * - For the output of `git diff` (with a/ b/ prefixes and 3 lines of
 *   context, as Patchwork's post-receive hook and b4 run it) both give the
 *   same hash, which is the hash of the mail git format-patch writes for
 *   the commit unless its last file is binary: then it is the hash of the
 *   same diff followed by a signature (pr_pwhash_mail of the diff and
 *   "-- \nX\n"; the line after "-- " keeps its trailing space from the
 *   strip).
 * - Both return the number of hunk headers they hashed.  A hash of no
 *   hunk says nothing about the change and is shared by every patch of its
 *   kind: never look a patch up by it.  A pure rename or a mode change
 *   hashes to PR_PWHASH_EMPTY; a mail whose only file is binary hashes
 *   its signature's "-- " line alone.
 * - Texts over PR_LIMIT_DIFF_BYTES are PR_ETOOBIG.
 */

#define PR_PWHASH_EMPTY "da39a3ee5e6b4b0d3255bfef95601890afd80709"

/*
 * hash_diff() of text: 40 lowercase hex digits and a NUL in out; returns
 * the number of hunk headers hashed.
 */
int pr_pwhash_diff(char out[41], const char *text, size_t len);

/*
 * Patchwork's hash of a mail body: parse_patch's diff of text, hashed;
 * returns the number of hunk headers hashed, or PR_ENOENT (no message)
 * when the text holds no diff.
 */
int pr_pwhash_mail(char out[41], const char *text, size_t len);

/* parse_patch's diff of text appended to out (empty when none). */
int pr_pwhash_extract(struct pr_buf *out, const char *text, size_t len);

/* True for PR_PWHASH_EMPTY: a hash that must never be looked up. */
bool pr_pwhash_is_empty(const char *hex);

#endif
