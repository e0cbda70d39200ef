#ifndef PR_TREEDIFF_H
#define PR_TREEDIFF_H

#include <stdbool.h>

#include <git2.h>

#include "base/buf.h"
#include "git/similarity.h"

struct pr_abbrev_ctx;

/*
 * The diff between two trees as git format-patch prints it: libgit2's tree
 * diff for the changed paths, git's own pairing of them (git/similarity.h:
 * renames, copies, -B's rewrites, in git's order), each pair's header
 * written as git's diff.c writes it (quoted names, modes, similarity and
 * dissimilarity, index lines abbreviated as git abbreviates them,
 * git/abbrev.h), its hunks from libgit2's xdiff with git's defaults (the
 * indent heuristic on) and git's hunk headers (the function line cut at 80
 * bytes and then trimmed, the header cut at its first byte that is not
 * UTF-8), a complete rewrite as all lines out and in,
 * "GIT binary patch" data deflated at git's level; and the --stat
 * --summary text computed from that diff.
 *
 * Known differences from git: .gitattributes (diff drivers, binary) are
 * libgit2's reading of them for the hunks only; a binary file's "literal"
 * or "delta" is chosen on libgit2's compressed sizes.
 *
 * Invariants: the caller opens the repository and initialises libgit2;
 * nothing here does.  Text is appended to the buffers given.
 */

/*
 * Fill the fields of o that come from the config (PR_SIM_FROM_CONFIG):
 * diff.renames (true, false, copies) and diff.renameLimit, git's
 * command-line config first, as git reads it.
 */
int pr_treediff_config(struct pr_sim_opts *o, git_repository *repo);

/*
 * Append the diff of old and new (either NULL: the empty tree) to text
 * and, when stat is not NULL, its --stat --summary lines to stat.  o: the
 * rename options (NULL: git's defaults and config); binary: "GIT binary
 * patch" data (--binary) rather than a "Binary files ... differ" line.
 * ctx carries the run's abbreviation length; when it has none yet, what
 * git reads of this diff joins its seeds first.
 */
int pr_treediff_render(struct pr_buf *text, struct pr_buf *stat,
		       git_repository *repo, git_tree *old, git_tree *new,
		       const struct pr_sim_opts *o, bool binary,
		       struct pr_abbrev_ctx *ctx);

/*
 * The patch id git's commit_patch_id gives the diff of old and new (the
 * "prerequisite-patch-id" of --base): renames as diff.renames says, each
 * pair hashed on its own (its paths and modes, a binary file's two blob
 * ids, else the lines of a plain 3-line-context diff without white space)
 * and the hashes summed.  40 hex digits and a NUL go to out.
 */
int pr_treediff_patch_id(char out[41], git_repository *repo, git_tree *old,
			 git_tree *new);

/* Only add what git reads of that diff to ctx's seeds. */
int pr_treediff_seeds(struct pr_abbrev_ctx *ctx, git_repository *repo,
		      git_tree *old, git_tree *new,
		      const struct pr_sim_opts *o);

#endif
