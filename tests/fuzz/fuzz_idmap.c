#include "base/pr.h"
#include "fuzz_input.h"
#include "base/strlist.h"
#include "engine/idmap.h"

/*
 * pr_idmap_candidates and pr_idmap_patchwork_url on each line of the
 * input: no candidate is empty or holds a NUL, the first is the line
 * trimmed, and a Patchwork URL's value is a URL ending in "/api/KIND/N/"
 * that gives itself again.
 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_pw(const char *value)
{
	struct pr_buf again = PR_BUF_INIT;
	const char *api = strstr(value, "/api/");

	if (!strstr(value, "://") || !api || value[strlen(value) - 1] != '/')
		abort();
	if (pr_idmap_patchwork_url(&again, value, strlen(value)) ||
	    strcmp(again.ptr, value))
		abort();
	pr_buf_release(&again);
}

static void one(const char *line, size_t len)
{
	struct pr_strlist l = { 0 };
	struct pr_buf pw = PR_BUF_INIT;
	size_t i;

	if (!pr_idmap_candidates(&l, line))
		for (i = 0; i < l.nr; i++)
			if (!*l.items[i])
				abort();
	if (!pr_idmap_patchwork_url(&pw, line, len))
		check_pw(pw.ptr);
	else if (pw.len)
		abort();
	pr_strlist_release(&l);
	pr_buf_release(&pw);
	pr_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_each_line(data, size, one);
	return 0;
}
