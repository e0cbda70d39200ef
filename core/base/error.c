#include "base/pr.h"

static _Thread_local char last_error[PR_ERROR_MAX];

int pr_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return code;
}

int pr_error_wrap(int code, const char *fmt, ...)
{
	char prefix[PR_ERROR_MAX];
	char old[PR_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, last_error, sizeof(old));
	if (old[0])
		snprintf(last_error, sizeof(last_error), "%s: %s", prefix, old);
	else
		snprintf(last_error, sizeof(last_error), "%s: %s", prefix,
			 pr_strerror(code));
	return code;
}

const char *pr_error_message(void)
{
	return last_error;
}

void pr_error_clear(void)
{
	last_error[0] = '\0';
}

const char *pr_strerror(int code)
{
	switch (code) {
	case PR_OK:
		return "success";
	case PR_EINVAL:
		return "invalid argument";
	case PR_ENOENT:
		return "not found";
	case PR_EIO:
		return "input/output error";
	case PR_ETOOBIG:
		return "over a size limit";
	case PR_EPARSE:
		return "parse error";
	case PR_ECONFIG:
		return "configuration error";
	case PR_ENET:
		return "network error";
	case PR_ETIMEOUT:
		return "timed out";
	case PR_EAGAIN:
		return "try again later";
	case PR_EEXIST:
		return "already exists";
	case PR_EAUTH:
		return "permission denied";
	case PR_ESTATE:
		return "state store error";
	case PR_EUNSUPPORTED:
		return "not supported";
	case PR_EINTERNAL:
		return "internal error";
	}
	return "unknown error";
}
