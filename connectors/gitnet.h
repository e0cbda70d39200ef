#ifndef PR_CONNECTORS_GITNET_H
#define PR_CONNECTORS_GITNET_H

#include <git2.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * A libgit2 transfer (a fetch, a push) run in a child process under a
 * watchdog, so that a server that stops answering cannot hang the relay:
 * libgit2 1.5 has no timeout of its own (GIT_OPT_SET_SERVER_TIMEOUT came
 * in 1.7), neither in its HTTP client nor over ssh, where libssh2 waits
 * for ever.
 *
 * Invariants:
 * - fn(extra, payload) runs in a forked child and returns 0 or a negative
 *   PR_E* after pr_error(); the child sends that code, the message and
 *   what fn appended to extra (a push's refusal) back through a pipe and
 *   ends with _exit(): it never touches the store, stdio buffers or the
 *   parent's other state, and dies with the parent (PR_SET_PDEATHSIG).
 * - The watchdog is idle time, not total time: the child is killed once
 *   no byte was read or written by it (its /proc/PID/io counters) for
 *   idle_ms, so a long transfer that moves goes on.  That is PR_ETIMEOUT,
 *   "WHAT: nothing came or went for N s: the server does not answer".
 * - What the child wrote (objects, refs) is on disk when this returns;
 *   the parent's libgit2 reads it (an object it does not find makes the
 *   odb look for new packs).
 * - A child that ends without its record (killed, crashed) is PR_ENET
 *   naming the signal.
 */

typedef int (*pr_gitnet_fn)(struct pr_buf *extra, void *payload);

/* idle_ms 0: 60 s.  `what` starts the messages ("fetch refs from 'URL'"). */
int pr_gitnet_run(struct pr_buf *extra, int64_t idle_ms, const char *what,
		  pr_gitnet_fn fn, void *payload);

/*
 * url as git rewrites a URL it is given: the longest prefix that a
 * url.<base>.insteadOf of the config files git reads for repo
 * (pr_libgit_config: system, global, the repository's) names is replaced
 * by <base>; on a tie, the one git reads first.  For a push (push true),
 * a url.<base>.pushInsteadOf that matches is taken instead, and else the
 * insteadOf result, as git makes a push URL.  No match: url itself.
 * The entries are walked by hand: libgit2 1.5 applies both to an
 * anonymous remote made without GIT_REMOTE_CREATE_SKIP_INSTEADOF, but
 * its lookup loses a pcre2 match block (about 20 KB) per config entry
 * per direction on every remote it makes (docs/connectors/git.md).
 */
int pr_gitnet_rewrite(struct pr_buf *out, git_repository *repo, const char *url,
		      bool push);

#endif
