/*
 * The URL scanners of connectors/gitfetch.c: the URL as messages show it
 * and the port of an ssh URL.  Beyond not crashing: a URL that is shown
 * changed holds "<redacted>" where a password was, the bytes before the
 * user's ':' are kept, and a port is always one ssh could use.
 */
#include "base/pr.h"
#include "gitfetch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_buf url = PR_BUF_INIT, safe = PR_BUF_INIT;
	int port;

	if (pr_buf_add(&url, data, size))
		abort();
	/* a C string: the config reader never gives a NUL inside */
	pr_buf_setlen(&url, strlen(url.ptr));
	if (pr_gitfetch_safe_url(&safe, url.ptr))
		abort();
	if (strcmp(safe.ptr, url.ptr)) {
		const char *r = strstr(safe.ptr, ":<redacted>@");

		if (!r || strncmp(safe.ptr, url.ptr, (size_t)(r - safe.ptr)) ||
		    url.ptr[r - safe.ptr] != ':')
			abort();
	}
	port = pr_gitfetch_ssh_port(url.ptr);
	if (port < 1 || port > 65535)
		abort();
	pr_buf_release(&url);
	pr_buf_release(&safe);
	return 0;
}
