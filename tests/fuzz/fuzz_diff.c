/*
 * Fuzz the diff parser and everything computed from a parsed diff: any
 * input must either parse or fail with an error, never crash or leak.
 */
#include "base/pr.h"
#include "git/diff.h"
#include "git/diffstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_diff d = PR_DIFF_INIT;
	struct pr_buf b = PR_BUF_INIT;
	char id[41];

	if (!pr_diff_parse(&d, (const char *)data, size)) {
		pr_diffstat_format(&b, &d);
		pr_diff_summary_format(&b, &d);
	}
	pr_patch_id(id, (const char *)data, size, false);
	pr_patch_id(id, (const char *)data, size, true);
	pr_buf_release(&b);
	pr_diff_release(&d);
	return 0;
}
