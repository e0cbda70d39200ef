#ifndef PR_CONNECTORS_GITCOMMIT_H
#define PR_CONNECTORS_GITCOMMIT_H

#include <git2.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/registry.h"
#include "model/model.h"

/*
 * Making commits of a version's patches, for the sinks that push (the git
 * sink, connectors/git.c, and the gerrit sink, connectors/gerrit_sink.c).
 *
 * Invariants:
 * - A commit is what `git am` makes of the patch: its author, author date
 *   and message (subject, blank line, body), the tree of its diff applied
 *   to the parent's tree.  A patch that does not apply is the series'
 *   problem (*applied false, return 0), never an error.
 * - Extra trailers (a Change-Id, a Link) are added to the message's
 *   trailer block as `git interpret-trailers` adds them: right after the
 *   last trailer when the message ends with a trailer block, else after a
 *   blank line.
 * - Errors name the sink: "sink 'NAME': WHAT: libgit2's message".
 * - The caller holds git_libgit2_init().
 */

/* A libgit2 failure as code, "sink 'NAME': WHAT: <libgit2's message>". */
int pr_gitcommit_fail(int code, const char *sink, const char *what);

/* Set out to a permanent refusal whose reason is made like a message. */
void pr_gitcommit_reject(struct pr_deliver_result *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Is hex (40 digits, or "") a commit of repo; fills *out when it is. */
bool pr_gitcommit_have(git_commit **out, git_repository *repo, const char *hex);

/*
 * The commit version v goes on: its base-commit when repo has it, else
 * the parent of its first patch's commit when repo has that, else `base`
 * (a revision, NULL: none) as repo resolves it.  *out NULL (and 0) when
 * none is there.
 */
int pr_gitcommit_find_base(git_commit **out, git_repository *repo,
			   const char *base, const struct pr_version *v);

/*
 * The commit message of p (subject, blank line, body), with `trailers`
 * ("Key: value\n" lines, NULL or "": none) added to its trailer block.
 */
int pr_gitcommit_message(struct pr_buf *out, const struct pr_patch *p,
			 const char *trailers);

/*
 * Apply p on parent into a new commit (message as pr_gitcommit_message
 * with `trailers`); *applied false when the patch does not apply or has
 * no usable author, pr_error_message() then saying why (libgit2's words).
 */
int pr_gitcommit_apply(git_oid *out, bool *applied, git_repository *repo,
		       const char *sink, git_commit *parent,
		       const struct pr_patch *p, const char *trailers,
		       const git_signature *committer);

/*
 * The committer: `committer` ("Name <addr>") when set, else as git picks
 * it for the repository at dir; dated `when` (the delivery's base time,
 * so that a retry makes the same commits) unless GIT_COMMITTER_DATE is
 * set and no committer is configured.
 */
int pr_gitcommit_committer(git_signature **out, const char *committer,
			   const char *sink, const char *dir, int64_t when);

#endif
