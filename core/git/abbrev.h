#ifndef PR_ABBREV_H
#define PR_ABBREV_H

#include <git2.h>

#include "base/buf.h"

/*
 * Object ids abbreviated as git abbreviates them: the length core.abbrev
 * sets, else the one git derives from the number of packed objects (pack
 * indexes, multi-pack indexes and alternates read as git 2.39 reads them),
 * each id then lengthened while another object shares its prefix.
 *
 * Invariants:
 * - pr_abbrev_id() opens the repository itself and initialises libgit2
 *   inside the call; the pr_abbrev_ctx functions take a repository and
 *   libgit2 objects from their caller (core/git's readers of
 *   repositories) and never initialise libgit2.
 * - A pr_abbrev_ctx starts all zero; its length is computed once, at the
 *   first abbreviation, and kept for the rest of the run.
 */

/*
 * The abbreviation length of one run (a format-patch): git computes it
 * once, at its first abbreviation, from the packs it had opened by then,
 * which are those of the objects it had read: seeds, the commits of the
 * walk, to which the first diff adds its trees and blobs.
 */
struct pr_abbrev_ctx {
	int len; /* 0 until the first abbreviation */
	git_oid *seeds;
	size_t nr, alloc;
};

/* id is one of the objects git has read by then (the null id is not). */
void pr_abbrev_ctx_add(struct pr_abbrev_ctx *ctx, const git_oid *id);
/*
 * The subtrees git's tree diff reads down to path in tree (every folder
 * on the way: a changed file changes them all).  The blobs of changed
 * files are added with pr_abbrev_ctx_add() (git/treediff.c does both).
 */
void pr_abbrev_ctx_add_dirs(struct pr_abbrev_ctx *ctx, git_tree *tree,
			    const char *path);
void pr_abbrev_ctx_release(struct pr_abbrev_ctx *ctx);

/*
 * Rewrite the full "index A..B" ids of a diff text as git
 * abbreviates them (a binary file's stay full), at ctx's length.
 */
int pr_abbrev_index_lines(struct pr_buf *text, git_repository *repo,
			  struct pr_abbrev_ctx *ctx);

/*
 * Append hex (40 digits) abbreviated as git abbreviates ids in the
 * repository at dir: core.abbrev digits when it is set to a number (the
 * command-line config of `git -c` and GIT_CONFIG_COUNT over the files), else
 * a length that grows with the number of packed objects (7 below 2^14,
 * 8 below 2^16, ...), lengthened while another object shares the prefix.
 * Here every pack of a multi-pack index counts; pr_gitrepo_load() counts
 * only those git 2.39 has opened when it abbreviates its first index line
 * (the packs of the walked commits and of the first patch's trees and
 * blobs, and of the cover letter's stat with PR_GITREPO_COVER_STAT).
 */
int pr_abbrev_id(struct pr_buf *out, const char *dir, const char *hex);

#endif
