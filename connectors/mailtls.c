#include "base/pr.h"
#include "mailtls.h"

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
	return rc == CURLE_USE_SSL_FAILED || rc == CURLE_SSL_CONNECT_ERROR ||
	       rc == CURLE_PEER_FAILED_VERIFICATION ||
	       rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_SSL_CERTPROBLEM;
}

int pr_mailtls_add_reason(struct pr_buf *out, CURLcode rc, const char *detail,
			  const char *ca_file)
{
	switch (rc) {
	case CURLE_PEER_FAILED_VERIFICATION:
		if (ca_file)
			return pr_buf_addf(out,
					   "the server's certificate is not "
					   "trusted (%s): no CA of ca-file "
					   "'%s' signed it, or it does not "
					   "name the host",
					   detail, ca_file);
		return pr_buf_addf(out,
				   "the server's certificate is not trusted "
				   "(%s): none of the system's CAs signed it; "
				   "set ca-file to the CA that did",
				   detail);
	case CURLE_USE_SSL_FAILED:
		return pr_buf_addf(out,
				   "the server does not offer STARTTLS (%s) "
				   "and starttls is 'required'",
				   detail);
	case CURLE_SSL_CACERT_BADFILE:
		if (ca_file)
			return pr_buf_addf(out,
					   "ca-file '%s' holds no usable CA "
					   "certificate (%s)",
					   ca_file, detail);
		return pr_buf_addf(out,
				   "the system's CA certificates cannot be "
				   "read (%s)",
				   detail);
	case CURLE_SSL_CONNECT_ERROR:
		return pr_buf_addf(out, "the TLS handshake failed (%s)",
				   detail);
	default:
		return pr_buf_addf(out, "TLS failed (%s)", detail);
	}
}
