#ifndef PR_GITREPO_H
#define PR_GITREPO_H

#include "base/buf.h"
#include "git/similarity.h"
#include "model/model.h"

/*
 * Reading patch series out of a git repository (libgit2).
 *
 * Invariants:
 * - A REVRANGE is what `git format-patch` takes: "A..B", "A" (meaning
 *   A..HEAD) or "-N" (the last N non-merge commits of HEAD, taken in
 *   git's committer-date walk order, merges neither kept nor counted).
 *   Merge commits are left out, as format-patch leaves them out; the
 *   commits come oldest first.
 * - Each pr_patch gets author, time, tz_minutes, date, subject (the first
 *   paragraph joined with spaces, as git's %s), subject_raw (the first
 *   paragraph with its own line breaks, as `git log` shows it; git's %f
 *   and so the file name use its first line), body (the rest of the
 *   message), commit_id, diff (what format-patch prints after the stat:
 *   index lines abbreviated as pr_abbrev_id() (git/abbrev.h) says,
 *   renames and copies found as git finds them (git/similarity.h), binary
 *   files as --binary writes them) and diffstat (--stat --summary).
 * - libgit2 is initialised and shut down inside each call.
 */

/* Resolve range in the repository at dir into a new version (number 1). */
int pr_gitrepo_load(struct pr_version **out, const char *dir,
		    const char *range);

/* pr_gitrepo_load_flags(): binary files as --no-binary shows them */
#define PR_GITREPO_NO_BINARY 1u
/*
 * pr_gitrepo_load_flags(): a cover letter with its stat comes first (as
 * --cover-letter writes it), which changes what git has read when it
 * picks the abbreviation length under a multi-pack index
 */
#define PR_GITREPO_COVER_STAT 2u

/*
 * The same with flags: PR_GITREPO_NO_BINARY gives each binary file the
 * "Binary files a/X and b/Y differ" line of format-patch --no-binary
 * (abbreviated index ids) instead of a "GIT binary patch".  diff: the
 * rename options of the command line (-M, -C, -B...; NULL: none), the
 * rest from diff.renames and diff.renameLimit (git/treediff.h).
 */
int pr_gitrepo_load_flags(struct pr_version **out, const char *dir,
			  const char *range, unsigned flags,
			  const struct pr_sim_opts *diff);

/* The full id of rev in the repository at dir, as 40 hex digits. */
int pr_gitrepo_resolve(char out[41], const char *dir, const char *rev);

/*
 * Append the --stat --summary text between the trees of from and to, as
 * format-patch prints it for a cover letter.
 */
int pr_gitrepo_stat(struct pr_buf *out, const char *dir, const char *from,
		    const char *to);
/* The same with the rename options of the command line (NULL: none). */
int pr_gitrepo_stat_opts(struct pr_buf *out, const char *dir, const char *from,
			 const char *to, const struct pr_sim_opts *diff);

/*
 * The committer git would use: GIT_COMMITTER_NAME, _EMAIL and _DATE from
 * the environment, else user.name and user.email of the repository's
 * config and the current time (in UTC).
 */
int pr_gitrepo_committer(struct pr_ident *out, int64_t *time, int *tz,
			 const char *dir);

/* 1 when commit descends from (or is) ancestor, 0 when not, or an error. */
int pr_gitrepo_descends(const char *dir, const char *commit,
			const char *ancestor);

/*
 * The patch id git's --base gives rev in "prerequisite-patch-id:" (its
 * internal commit_patch_id, stable form): no rename detection.
 */
int pr_gitrepo_patch_id(char out[41], const char *dir, const char *rev);

/*
 * The commit a cover letter's --stat starts from, as git 2.39 picks it:
 * the one commit outside v that is a parent of a commit of v (v as
 * pr_gitrepo_load() made it; merges are never in v, so a merge whose
 * child is in v is such a commit).  1 with out set when there is exactly
 * one, 0 when there are none (a series from the root) or several (git
 * prints no stat then), or an error.
 */
int pr_gitrepo_boundary(char out[41], const char *dir,
			const struct pr_version *v);

#endif
