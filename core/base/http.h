#ifndef PR_HTTP_H
#define PR_HTTP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * A small HTTP client (libcurl) for the forges' REST APIs.
 *
 * Invariants:
 * - TLS peers are always verified; `ca_file` only replaces the system's
 *   CA bundle.
 * - The token goes out as one header built from `auth_header` ("PRIVATE-
 *   TOKEN: %s" or "Authorization: Bearer %s") and never reaches a log line
 *   or an error message: those show the method, the URL and the status.
 * - The response body is capped at PR_LIMIT_HTTP_BYTES (or a smaller
 *   `max_body`); a bigger one is PR_ETOOBIG.
 * - A request that got any HTTP answer returns 0 with resp->status set,
 *   whatever the status (304, 403, 404...); the caller decides.  Only a
 *   transport failure (DNS, connect, TLS, timeout, a connection lost) is
 *   an error (PR_ENET or PR_ETIMEOUT), and a TLS one says what to change
 *   (pr_http_tls_reason).
 * - Response headers are kept only for the names a forge client needs:
 *   etag, link, x-next-page, x-total, x-ratelimit-remaining,
 *   x-ratelimit-reset, ratelimit-remaining, ratelimit-reset, retry-after.
 *   Each pr_http_response owns its strings; release it with
 *   pr_http_response_release (safe on a zeroed one).
 */

struct pr_http_client {
	const char *user_agent; /* NULL: "patchrelay" */
	const char *ca_file; /* NULL: the system's */
	const char *auth_header; /* printf format with one %s, or NULL */
	const char *token; /* NULL: no auth header */
	const char *const *headers; /* extra "Name: value" lines, NULL-ended */
	int64_t timeout_ms; /* 0: 60 s */
	size_t max_body; /* 0: PR_LIMIT_HTTP_BYTES */
	const char *log_prefix; /* for debug log lines */
	/*
	 * NULL, or a pr_http_share_new(): the requests made with it keep
	 * their connections open for the next one (a catch-up of thousands
	 * of requests to one archive; a new connection each cost public-inbox
	 * about half again the time of the request).  A kept connection the
	 * server closed is replaced by a new one, once, without an error;
	 * sockets are close-on-exec.
	 */
	void *share;
};

/* A connection cache for pr_http_client.share; free it after the last
 * request that uses it.  NULL when libcurl cannot make one (then unused). */
void *pr_http_share_new(void);
void pr_http_share_free(void *share);

struct pr_http_response {
	long status;
	struct pr_buf body;
	char *etag;
	char *link;
	char *next_page; /* x-next-page: NULL or "" on the last page */
	char *total; /* x-total */
	int64_t ratelimit_remaining; /* -1 when absent */
	int64_t ratelimit_reset; /* epoch seconds, -1 when absent */
	int64_t retry_after; /* seconds, -1 when absent */
};

/*
 * Send `method` ("GET", "POST", "PATCH", "PUT", "DELETE") to url with an
 * optional JSON body (NULL: none) and If-None-Match `etag` (NULL: none).
 * resp must be zeroed or released before.
 */
int pr_http_request(struct pr_http_response *resp,
		    const struct pr_http_client *c, const char *method,
		    const char *url, const char *json_body, const char *etag);

void pr_http_response_release(struct pr_http_response *resp);

/*
 * Whether libcurl's code rc (a CURLcode) is a failure of TLS itself (the
 * handshake, the certificate, the CA file): one a retry cannot mend.
 */
bool pr_http_tls_failure(int rc);

/*
 * Append a plain sentence for such a failure: what went wrong, libcurl's
 * own words (detail) in parentheses, then what to change.  ca_file is the
 * option's value (NULL: the system's CAs were used).  pr_http_request's
 * message for a TLS failure is this sentence.
 */
int pr_http_tls_reason(struct pr_buf *out, int rc, const char *detail,
		       const char *ca_file);

/*
 * Whether resp asks the client to wait, and until when (epoch seconds):
 * a 429, 503 or 403 with Retry-After waits that long; a 403 or 429 whose
 * rate limit is used up (x-ratelimit-remaining or ratelimit-remaining 0)
 * waits for its reset; a 429 with neither, a minute.
 */
bool pr_http_rate_limited(int64_t *until, const struct pr_http_response *resp,
			  int64_t now);

/*
 * The URL of the relation `rel` ("next") in a Link header value, appended
 * to out.  Returns 1 when found, 0 when not, or PR_ETOOBIG.
 */
int pr_http_link_rel(struct pr_buf *out, const char *link, const char *rel);

/*
 * Append s percent-encoded for one URL path segment or query value
 * (everything but A-Z a-z 0-9 - . _ ~ is %XX, so '/' becomes %2F).
 */
int pr_http_escape(struct pr_buf *out, const char *s);

#endif
