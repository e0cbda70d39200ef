#ifndef PR_CONNECTORS_GITPUSH_H
#define PR_CONNECTORS_GITPUSH_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/registry.h"
#include "gitfetch.h"
#include "model/model.h"

/*
 * A version pushed as a branch: the git sink (connectors/git.c) and the
 * github and gitlab sinks (connectors/forge_sink.c).
 *
 * Invariants:
 * - The commits are what `git am` makes of the version's mails
 *   (gitcommit.h): author, author date with its UTC offset, message, the
 *   tree of each diff applied in turn; the committer is the sink's.  The
 *   base is the version's base-commit when the repository has it, else the
 *   parent of its first commit (a version that came from git), else the
 *   `base` revision.
 * - A local directory is written in place; a remote URL (pr_gitpush_is_
 *   remote) is fetched (its branches and tags) into a scratch bare
 *   repository, the commits are made there and the branch is pushed,
 *   forced (it belongs to patchrelay), then the scratch is removed.
 * - A version with no base, a patch that does not apply and a push the
 *   remote refuses are rejections (out->status PR_DELIVER_REJECTED, the
 *   reason naming the patch, "patch 2/3 'subject' does not apply on
 *   <base>: <why>", or the ref); nothing is pushed then and the branch is
 *   not touched.  A transport failure is a negative PR_E* (retried).
 * - With auth->insteadof the remote's fetch and push URLs are git's
 *   rewrites of url (pr_gitnet_rewrite), and messages name them.
 * - Messages name the URL with any password as <redacted>.
 */

struct pr_gitpush {
	const char *sink; /* the sink's name, for messages */
	const char *url; /* a local directory or a git URL */
	const struct pr_gitfetch_auth *auth; /* offered to a remote */
	const char *committer; /* "Name <addr>"; NULL: as git picks it */
	const char *base; /* the fallback base revision; NULL: none */
	const char *branch; /* the branch, without refs/heads/ */
	const char *what; /* the series, for the reflog and messages */
	int64_t time; /* the delivery's base time: the committer date */
	/* trailers[i] ("Key: value\n" lines) added to patch i; NULL: none */
	const char *const *trailers;
};

/* What a push made: the base, the tip and each patch's commit. */
struct pr_gitpush_result {
	char base[41];
	char tip[41];
	char (*commits)[41]; /* one per patch, malloc'ed */
	size_t nr;
};

void pr_gitpush_result_release(struct pr_gitpush_result *r);

/*
 * What the server of a push said back: the first ref it refused and its
 * reason, and the text of its progress channel (the "remote:" lines, cut
 * at 256 KiB), which Gerrit answers on.
 */
struct pr_gitpush_said {
	struct pr_buf ref; /* the refused ref; empty: none was */
	struct pr_buf status; /* why it was refused */
	struct pr_buf remote; /* the progress channel's text */
};

void pr_gitpush_said_release(struct pr_gitpush_said *s);

/*
 * Push specs[0..nr) through remote (made in the parent, push URL url) in
 * a child process under the watchdog of auth's timeout (gitnet.h), so
 * that a server that stops answering is PR_ETIMEOUT and what libgit2
 * loses per connection dies with the child.  0 with *said filled (a
 * refusal is the caller's to judge), or a negative PR_E* "push to 'URL':
 * why" (the password as <redacted>; PR_EAUTH for an ssh host key
 * refused), which the caller prefixes with its instance.
 */
int pr_gitpush_send(struct pr_gitpush_said *said, git_remote *remote,
		    const char *url, const char *const *specs, size_t nr,
		    const struct pr_gitfetch_auth *auth);

/* Is url a remote ("scheme://...", or scp-like "host:path"). */
bool pr_gitpush_is_remote(const char *url);

/*
 * Make the commits of v and set the branch to them (see above).  Returns
 * 0 with out->status PR_DELIVER_OK (res filled) or PR_DELIVER_REJECTED
 * (out->reason says why; res empty), or a negative PR_E*.
 */
int pr_gitpush_version(struct pr_gitpush_result *res,
		       struct pr_deliver_result *out,
		       const struct pr_gitpush *p, const struct pr_version *v);

#endif
