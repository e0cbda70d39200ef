#ifndef PR_TREEDIFF_H
#define PR_TREEDIFF_H

#include <stdbool.h>

#include <git2.h>

#include "base/buf.h"

struct pr_abbrev_ctx;

/*
 * The diff between two trees as git format-patch prints it, made with
 * libgit2 and brought to git's bytes: renames paired by git's measure for
 * binary files (libgit2's signature for text), "GIT binary patch" data
 * deflated at git's level, a tab after a ---/+++ name that holds a space,
 * index lines abbreviated as git abbreviates them (git/abbrev.h); and the
 * --stat --summary text computed from that diff.
 *
 * Invariants: the caller opens the repository and initialises libgit2;
 * nothing here does.  Text is appended to the buffers given.
 */

/*
 * Append the diff of old and new (either NULL: the empty tree) to text
 * and, when stat is not NULL, its --stat --summary lines to stat.
 * renames: pair renamed files (diff.renames, git's default); binary:
 * "GIT binary patch" data (--binary) rather than a "Binary files ...
 * differ" line.  ctx carries the run's abbreviation length.
 */
int pr_treediff_render(struct pr_buf *text, struct pr_buf *stat,
		       git_repository *repo, git_tree *old, git_tree *new,
		       bool renames, bool binary, struct pr_abbrev_ctx *ctx);

#endif
