#ifndef PR_HOOK_H
#define PR_HOOK_H

#include <stdbool.h>
#include <stddef.h>

struct pr_buf;

/*
 * Webhooks: how a forge proves a hook is its own, and what a hook is.
 * The web server (server.c) reads a request into a struct pr_hook_req and
 * asks pr_hook_check what to do with it; nothing here does I/O, so the
 * fuzz target drives it whole.
 *
 * A hook is only a hint that something changed: a valid one makes its
 * source poll at once, and the source reads the real state through its
 * API.  So the payload is never data; it is read only for the log line
 * (the event, the number it names).
 *
 * - github: X-Hub-Signature-256 is "sha256=" and the HMAC-SHA256 of the
 *   raw body keyed with the secret, in hex; X-GitHub-Delivery is the
 *   delivery id (a redelivery keeps it).  X-GitHub-Event "ping" (sent
 *   when the hook is made) is answered and polls nothing.
 * - gitlab: X-Gitlab-Token is the secret itself; the delivery id is
 *   Idempotency-Key (GitLab 17.4+, kept across retries), else
 *   X-Gitlab-Event-UUID.
 * - gerrit: the webhooks plugin signs nothing and sends no header of its
 *   own choosing, so the secret is the `token` query parameter of the URL
 *   it posts to; there is no delivery id and the body (whose event
 *   carries its eventCreatedOn) stands for one.
 *
 * Secrets and tokens are compared in constant time: the HMAC with
 * CRYPTO_memcmp, a token through the SHA-256 of both sides so that its
 * length leaks nothing either.  A hook with no delivery id gets the
 * SHA-256 of its body as one.
 */

enum pr_hook_kind {
	PR_HOOK_NONE = -1,
	PR_HOOK_GITHUB = 0,
	PR_HOOK_GITLAB,
	PR_HOOK_GERRIT,
};

/* The source types that take hooks, NULL-terminated (the registry's). */
extern const char *const pr_hook_types[];
/* The kind of a source type; PR_HOOK_NONE when it takes no hooks. */
enum pr_hook_kind pr_hook_kind_of(const char *type);

/*
 * The running digests of one hook's body: the HMAC-SHA256 keyed with the
 * secret and the plain SHA-256, fed as the body arrives.
 */
struct pr_hook_mac;

struct pr_hook_mac *pr_hook_mac_new(const char *secret);
void pr_hook_mac_update(struct pr_hook_mac *m, const void *data, size_t len);
/* Finish both digests (once); safe with NULL. */
void pr_hook_mac_free(struct pr_hook_mac *m);

/* What the server read of one hook. */
struct pr_hook_req {
	enum pr_hook_kind kind;
	const char *secret; /* the source's webhook-secret */
	/* headers as sent, NULL when absent */
	const char *signature; /* X-Hub-Signature-256 */
	const char *token; /* X-Gitlab-Token, or gerrit's ?token= */
	const char *event; /* X-GitHub-Event, X-Gitlab-Event */
	const char *delivery; /* X-GitHub-Delivery, Idempotency-Key, ... */
	const char *body; /* the first PR_LIMIT_HOOK_HINT_BYTES of it */
	size_t body_len; /* of what body holds */
	bool body_cut; /* the body was longer */
	struct pr_hook_mac *mac; /* fed the whole body */
};

enum pr_hook_verdict {
	PR_HOOK_POLL = 0, /* valid: poll the source */
	PR_HOOK_PING, /* valid, and asks for nothing */
	PR_HOOK_UNAUTHORIZED, /* no or a wrong signature or token: 401 */
};

/*
 * Check one hook and read what it says: the verdict, the delivery id in
 * `id` (printable ASCII, at most 128 bytes, else the body's SHA-256 in
 * hex) and a one-line hint for the log in `hint` ("issue_comment created
 * #12"; the event alone, or "", when the body says nothing readable).
 * Finishes req->mac.  Returns the verdict; a negative PR_E* only for a
 * failure to run (out of a buffer's cap).
 */
int pr_hook_check(struct pr_buf *id, struct pr_buf *hint,
		  const struct pr_hook_req *req);

/*
 * "sha256=" and 64 hex digits (either case) to 32 bytes; PR_EINVAL when
 * the header is anything else.
 */
int pr_hook_parse_signature(unsigned char out[32], const char *header);

/*
 * The delivery ids seen lately, per source: the last PR_LIMIT_HOOK_SEEN,
 * the oldest forgotten first.  Used by one thread.
 */
struct pr_hook_seen;

struct pr_hook_seen *pr_hook_seen_new(void);
void pr_hook_seen_free(struct pr_hook_seen *s);
/* Whether (source, id) was added before; add it when not. */
bool pr_hook_seen_add(struct pr_hook_seen *s, const char *source,
		      const char *id);

#endif
