#ifndef PR_LIMITS_H
#define PR_LIMITS_H

/*
 * Every buffer that holds untrusted input takes its cap from here, so that
 * a size cap is an input error ("mail larger than 64 MiB") and never an
 * out-of-memory abort.  Raise a limit here, not at the call site.
 */

#define PR_KIB ((size_t)1024)
#define PR_MIB (PR_KIB * 1024)

/* One mail message, raw, as read from a file, a mailbox or the network. */
#define PR_LIMIT_MAIL_BYTES (64 * PR_MIB)
/* All the headers of one message, unfolded. */
#define PR_LIMIT_HEADER_BYTES (1 * PR_MIB)
/* Headers in one message. */
#define PR_LIMIT_HEADER_COUNT 10000
/* MIME nesting depth and part count. */
#define PR_LIMIT_MIME_DEPTH 32
#define PR_LIMIT_MIME_PARTS 10000
/* One mailbox file (mbox) read as a whole. */
#define PR_LIMIT_MBOX_BYTES (4096 * PR_MIB)
/* One diff. */
#define PR_LIMIT_DIFF_BYTES (512 * PR_MIB)
/* Files in one diff. */
#define PR_LIMIT_DIFF_FILES 200000
/* A config file. */
#define PR_LIMIT_CONFIG_BYTES (4 * PR_MIB)
/* An HTTP response body. */
#define PR_LIMIT_HTTP_BYTES (256 * PR_MIB)
/* Output captured from an external command. */
#define PR_LIMIT_EXEC_OUTPUT (1 * PR_MIB)
/* Patches in one version of a series. */
#define PR_LIMIT_SERIES_PATCHES 10000
/* Patches on each side of a range-diff (its cost matrix is quadratic). */
#define PR_LIMIT_RANGE_DIFF_PATCHES 1000
/* One line of Gerrit's stream-events (one JSON event). */
#define PR_LIMIT_GERRIT_EVENT_BYTES (4 * PR_MIB)
/* Entries in one Atom feed (core/mail/atom.h). */
#define PR_LIMIT_ATOM_ENTRIES 100000
/*
 * One webhook's body (GitHub caps its payloads at 25 MB).  It goes
 * through the HMAC as it arrives and is never held whole: only its first
 * PR_LIMIT_HOOK_HINT_BYTES are kept, to read the hint (event, number).
 */
#define PR_LIMIT_HOOK_BYTES (25 * PR_MIB)
#define PR_LIMIT_HOOK_HINT_BYTES (256 * PR_KIB)
/* One request's line and headers in the web server. */
#define PR_LIMIT_WEB_HEADER_BYTES (32 * PR_KIB)
/* Webhook delivery ids remembered, to ignore a replay. */
#define PR_LIMIT_HOOK_SEEN 4096
/*
 * Connections the web server serves at once (no cap per address: behind
 * a reverse proxy every client is the proxy).
 */
#define PR_LIMIT_WEB_CONNECTIONS 128
/* Seconds a request may take, and may stay idle. */
#define PR_LIMIT_WEB_REQUEST_SECONDS 30
#define PR_LIMIT_WEB_IDLE_SECONDS 10

#endif
