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

#endif
