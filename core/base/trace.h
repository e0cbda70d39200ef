#ifndef PR_TRACE_H
#define PR_TRACE_H

#include <curl/curl.h>
#include <stdbool.h>

#include "base/buf.h"

/*
 * PATCHRELAY_TRACE=http,smtp,imap (or "all"): libcurl's conversation
 * with a server, one stderr line per protocol line,
 *
 *	patchrelay: trace [smtp:list] > MAIL FROM:<bot@example.org>
 *
 * ('>' sent, '<' received, '*' libcurl's own notes, '=' body sizes).
 * Invariants:
 * - No credential is written.  HTTP: the values of Authorization,
 *   Proxy-Authorization, Cookie, Set-Cookie and token headers, and of
 *   query parameters named like a token, password, secret or key, are
 *   <redacted>.  SMTP and IMAP: a line sent is written only when its
 *   command is a known one that carries no secret (MAIL, RCPT, SELECT,
 *   UID FETCH...); AUTH and LOGIN keep their command and mechanism only;
 *   every line sent during an AUTH or AUTHENTICATE exchange (until the
 *   server answers other than a continuation) and any other line sent is
 *   <redacted>.
 * - Bodies (the mail, a JSON document) are not written, only their size.
 * - A line is cut after 1000 bytes ("... (N bytes)"); bytes outside
 *   printable ASCII are written as \xNN, so that a server can put neither
 *   terminal escapes nor a forged log line into the trace.
 */

struct pr_trace {
	const char *topic; /* "http", "smtp" or "imap" */
	const char *prefix; /* the instance's, for the line */
	bool on; /* PATCHRELAY_TRACE names the topic */
	bool in_auth; /* in an AUTH exchange: what is sent is a credential */
};

void pr_trace_init(struct pr_trace *t, const char *topic, const char *prefix);

/*
 * Write what libcurl's trace callback got (type, data, size) when t->on.
 * Handles that look at the trace themselves call this from their own
 * callback; the others use pr_trace_curl_cb with the pr_trace as data.
 */
void pr_trace_curl(struct pr_trace *t, curl_infotype type, const char *data,
		   size_t size);
int pr_trace_curl_cb(CURL *h, curl_infotype type, char *data, size_t size,
		     void *payload);

/* Install pr_trace_curl_cb on h when t->on; nothing otherwise. */
void pr_trace_attach(CURL *h, struct pr_trace *t);

/*
 * One protocol line (no CRLF) as it is traced, appended to out: redacted
 * as above and escaped.  `sent`: the line went to the server.  Updates
 * t->in_auth.  For pr_trace_curl and the tests.
 */
int pr_trace_line(struct pr_buf *out, struct pr_trace *t, bool sent,
		  const char *line, size_t len);

#endif
