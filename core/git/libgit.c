#include "base/pr.h"
#include "git/libgit.h"

#include <git2.h>

int pr_libgit_fail(const char *what, const char *arg)
{
	const git_error *e = git_error_last();

	return pr_error(PR_EINVAL, "%s '%s': %s", what, arg,
			e && e->message ? e->message : "libgit2 error");
}
