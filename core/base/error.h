#ifndef PR_ERROR_H
#define PR_ERROR_H

/*
 * Errors.  A function that can fail returns 0 (or a count) on success and a
 * negative PR_E* code on failure, after recording a one-line message:
 *
 *	return pr_error(PR_EPARSE, "mbox '%s' line %zu: no From line", path, n);
 *
 * Messages are lowercase, put the problem first and the subject in quotes,
 * and have no final period.  A caller that adds context wraps the message:
 *
 *	return pr_error_wrap(err, "series '%s'", key);
 *	-> "series 'pr/12': mbox 'x' line 3: no From line"
 *
 * The message lives in thread-local storage (libgit2's convention); it is
 * valid until the next pr_error* call on the same thread.  Only cli/ and the
 * daemon print it.  Refusing a series is a verdict in a report, not an error.
 */

enum {
	PR_OK = 0,
	PR_EINVAL = -1, /* bad argument or value */
	PR_ENOENT = -2, /* no such file, object or key */
	PR_EIO = -3, /* read or write failed */
	PR_ETOOBIG = -4, /* input over a limit of limits.h */
	PR_EPARSE = -5, /* malformed input */
	PR_ECONFIG = -6, /* bad configuration */
	PR_ENET = -7, /* network or protocol failure */
	PR_ETIMEOUT = -8, /* an operation timed out */
	PR_EAGAIN = -9, /* try again later (rate limit, 4xx) */
	PR_EEXIST = -10, /* already exists */
	PR_EAUTH = -11, /* authentication or permission refused */
	PR_ESTATE = -12, /* state store failure */
	PR_EUNSUPPORTED = -13, /* valid input patchrelay does not handle */
	PR_EINTERNAL = -14, /* a bug: an invariant does not hold */
};

#define PR_ERROR_MAX 1024

int pr_error(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prefix the current message with "<context>: "; returns code. */
int pr_error_wrap(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The last message recorded on this thread, "" when none. */
const char *pr_error_message(void);
void pr_error_clear(void);
/* A short name for a code: "parse error", "not found"... */
const char *pr_strerror(int code);

#endif
