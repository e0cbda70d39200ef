#ifndef PR_MAILTLS_H
#define PR_MAILTLS_H

#include <curl/curl.h>
#include <stdbool.h>

#include "base/buf.h"

/*
 * TLS for the mail connectors that speak to a server through libcurl: the
 * smtp sink and the imap source share the `starttls` and `ca-file` options
 * and what a TLS failure says.
 *
 * - `starttls` is one of pr_mailtls_starttls_choices.  "required" (the
 *   default, also for NULL) fails unless the server offers STARTTLS;
 *   "optional" uses it when offered and else goes on in plain text, the
 *   password included; "never" does not ask.  On an implicit-TLS url
 *   (smtps://, imaps://) it does not apply: the whole connection is TLS.
 * - The certificate and the host name are always verified; ca-file only
 *   replaces the system's CAs.
 */

extern const char *const pr_mailtls_starttls_choices[];

/* The CURLOPT_USE_SSL value for url and a starttls choice. */
long pr_mailtls_use_ssl(const char *url, const char *starttls);

/* Whether rc is a TLS failure, one a retry cannot mend. */
bool pr_mailtls_failure(CURLcode rc);

/*
 * Append a plain sentence for the TLS failure rc: what went wrong, then
 * libcurl's own words (detail) in parentheses, then what to change.
 * ca_file is the option's value (NULL: the system's CAs were used).
 */
int pr_mailtls_add_reason(struct pr_buf *out, CURLcode rc, const char *detail,
			  const char *ca_file);

#endif
