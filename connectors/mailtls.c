#include "base/pr.h"
#include "mailtls.h"

#include "base/http.h"

const char *const pr_mailtls_starttls_choices[] = { "required", "optional",
						    "never", NULL };

long pr_mailtls_use_ssl(const char *url, const char *starttls)
{
	const char *colon = strstr(url, "://");

	/* smtps://, imaps://: TLS from the first byte */
	if (colon && colon > url && colon[-1] == 's')
		return CURLUSESSL_ALL;
	if (!starttls || !strcmp(starttls, "required"))
		return CURLUSESSL_ALL;
	if (!strcmp(starttls, "optional"))
		return CURLUSESSL_TRY;
	return CURLUSESSL_NONE;
}

bool pr_mailtls_failure(CURLcode rc)
{
	return rc == CURLE_USE_SSL_FAILED || pr_http_tls_failure(rc);
}

int pr_mailtls_add_reason(struct pr_buf *out, CURLcode rc, const char *detail,
			  const char *ca_file)
{
	if (rc == CURLE_USE_SSL_FAILED)
		return pr_buf_addf(out,
				   "the server does not offer STARTTLS (%s) "
				   "and starttls is 'required'",
				   detail);
	return pr_http_tls_reason(out, rc, detail, ca_file);
}
