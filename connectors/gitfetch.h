#ifndef PR_CONNECTORS_GITFETCH_H
#define PR_CONNECTORS_GITFETCH_H

#include <git2.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * Fetching from a git remote into a bare cache repository, shared by the
 * forges' pull-request fetch (forge_fetch.c) and the git source with a
 * remote url (git.c).
 *
 * Invariants:
 * - The remote is anonymous.  Its URL is used as given, or, with
 *   auth->insteadof, as git rewrites it by the user's url.<base>.insteadOf
 *   (pr_gitnet_rewrite; messages then name the rewritten URL).  libgit2's
 *   own rewrite is off (GIT_REMOTE_CREATE_SKIP_INSTEADOF): 1.5's lookup
 *   leaks a pcre2 match block per config entry.
 * - Every spec is forced ("+SRC:DST") and names one ref; a SRC the remote
 *   does not advertise is PR_ENOENT and nothing is fetched, so a cache
 *   ref is never left standing for a ref the remote no longer has.
 * - Tags are not followed, FETCH_HEAD is not written, nothing is pruned.
 * - Messages name the URL with its password (user:PASSWORD@) as
 *   <redacted>, and never hold auth->password.
 * - TLS certificates are checked by libgit2, against auth->ca_file's CAs
 *   too when it is set (in the transfer's child process only, see
 *   pr_gitfetch_trust), and a certificate that does not verify says so
 *   and what to change; an ssh host key must be in auth->known_hosts (libgit2 1.5 on its own reads ~/.ssh/known_hosts
 *   only, and says no more than "invalid or unknown remote ssh hostkey").
 * - The caller holds git_libgit2_init().
 * - pr_gitfetch and pr_gitfetch_names run in a child process under
 *   gitnet.h's watchdog: a server that stops answering is PR_ETIMEOUT
 *   after auth->timeout_ms without a byte moving, not a hang.
 */

/*
 * How the remote is reached: what is offered when the server asks for
 * credentials (each once), the CAs its TLS certificate must come from,
 * and how long a transfer may go without a byte moving before it is given
 * up (connectors/gitnet.h).
 */
struct pr_gitfetch_auth {
	const char *user; /* HTTP user; ssh user when the URL has none */
	const char *password; /* HTTP password or token (a secret) */
	const char *ssh_key; /* private key file; NULL: ssh-agent */
	const char *known_hosts; /* NULL: ~/.ssh/known_hosts */
	int64_t timeout_ms; /* 0: 60 s */
	const char *ca_file; /* NULL: the system's CAs */
	/* apply url.<base>.insteadOf and pushInsteadOf: a URL the user wrote */
	bool insteadof;
};

/*
 * The credentials and host key callbacks pr_gitfetch() uses, for another
 * transfer (the git sink's fetch and push): out's credentials,
 * certificate_check and payload are set, the payload being cb, which
 * must outlive the transfer.  A caller whose other callbacks need their
 * own payload embeds cb as the first member of it.
 */
struct pr_gitfetch_cb {
	const struct pr_gitfetch_auth *auth;
	const char *url;
	unsigned tried; /* GIT_CREDENTIAL_* kinds offered already */
};

void pr_gitfetch_callbacks(git_remote_callbacks *out, struct pr_gitfetch_cb *cb,
			   const struct pr_gitfetch_auth *auth,
			   const char *url);

/*
 * In the child of a transfer (gitnet.h) only: make libgit2 trust the CAs
 * of auth->ca_file besides the system's (a process-wide setting, which the
 * child's end takes away).  Nothing when it is NULL.
 */
int pr_gitfetch_trust(const struct pr_gitfetch_auth *auth);

/* Append name as one directory name: bytes outside [A-Za-z0-9._-] %XX. */
int pr_gitfetch_escape(struct pr_buf *out, const char *name);

/* Append url with the password of its user:password@ as <redacted>. */
int pr_gitfetch_safe_url(struct pr_buf *out, const char *url);

/*
 * The port an ssh URL names, ssh://[user@]host[:port]/path, as the
 * known_hosts lookup takes it: 22 when it names none (and for scp-like
 * host:path, or a port that is not 1..65535).
 */
int pr_gitfetch_ssh_port(const char *url);

/*
 * Whether the ssh host key key[0..len) of host (and port: 22 is written
 * "host", others "[host]:port" in the file) is in the known_hosts file
 * (NULL: ~/.ssh/known_hosts), as ssh's StrictHostKeyChecking=yes takes
 * it.  type is libssh2's LIBSSH2_KNOWNHOST_KEY_* (0: one that cannot be
 * checked).  0 when it is; -1 with the reason in why ("host key of 'H'
 * port P is not in 'FILE'", "... does not match the one in 'FILE'").
 */
int pr_gitfetch_known_host(struct pr_buf *why, const char *known_hosts,
			   const char *host, int port, const char *key,
			   size_t len, int type);

/* Open the bare repository at dir, made (with its parents) if absent. */
int pr_gitfetch_open_cache(git_repository **out, const char *dir);

/*
 * Fetch specs[0..nr) from url into repo.  `what` names the fetch in
 * messages: "fetch WHAT from 'URL': ..." (PR_ENET, or PR_EAUTH when the
 * server refused the credentials, PR_ENOENT for a missing ref).
 */
int pr_gitfetch(git_repository *repo, const char *url, const char *const *specs,
		size_t nr, const struct pr_gitfetch_auth *auth,
		const char *what);

/*
 * Fetch what names[0..nr) stand for on the remote at url into repo, each
 * resolved against the refs the remote advertises by the rules
 * gitrevisions(7) gives for a short name, in their order: a name that
 * starts with "refs/" is that ref, any other NAME the first of refs/NAME,
 * refs/tags/NAME, refs/heads/NAME, refs/remotes/NAME and
 * refs/remotes/NAME/HEAD.  A suffix from the first '~' or '^' on (main~3,
 * v6.8^{}) is left for the local rev-parse: only the name before it is
 * resolved.  Each ref found is fetched, forced, under its own name, and
 * refs of repo that the name would find before it (left by an earlier
 * fetch: the remote has none of them) are deleted, so that rev-parse of
 * the name in repo finds what the remote's name stands for.  A name
 * nothing matches is PR_ENOENT, "fetch WHAT from 'URL': the remote has
 * no 'NAME' ...", and nothing is fetched.  Other errors as pr_gitfetch().
 */
int pr_gitfetch_names(git_repository *repo, const char *url,
		      const char *const *names, size_t nr,
		      const struct pr_gitfetch_auth *auth, const char *what);

#endif
