#ifndef PR_PULL_H
#define PR_PULL_H

#include <stddef.h>

/*
 * Pull-request mails.  Invariants:
 * - On return 1, *url is a malloc'd non-empty string and *ref is malloc'd
 *   or NULL; the caller frees both.  On return 0 both are NULL.
 * - The body need not be NUL-terminated; exactly len bytes are read.
 * - Quoted lines ('>') are skipped: quoting a pull request is not one.
 * - When the URL line carries no ref, *ref is the <sha> of "for you to
 *   fetch changes up to <sha>:" when the body has it.
 */

/* Recognise a `git request-pull` mail body: "are available in the Git repository at:" then the URL and ref on the next non-empty line ("  git://x/y.git tags/foo-6.1" or the URL alone with the ref on the following line when wrapped, also "for you to fetch changes up to <sha>:"). Sets *url and *ref (malloc'd, ref may be NULL when none) and returns 1; returns 0 when the body is not a pull request. */
int pr_pull_detect(char **url, char **ref, const char *body, size_t len);

#endif
