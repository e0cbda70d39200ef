/*
 * Diff parser, diffstat and patch-id.  Work in progress: see diff.h.
 */
#include "pr.h"
#include "diff.h"

void pr_diff_release(struct pr_diff *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++) {
		free(d->files[i].old_path);
		free(d->files[i].new_path);
		free(d->files[i].hunks);
	}
	free(d->files);
	d->files = NULL;
	d->nr = d->alloc = 0;
}

int pr_diff_parse(struct pr_diff *out, const char *text, size_t len)
{
	pr_diff_release(out);
	return pr_error(PR_EUNSUPPORTED, "diff parsing is not implemented yet");
}

int pr_diffstat_format(struct pr_buf *out, const struct pr_diff *d)
{
	return pr_error(PR_EUNSUPPORTED, "diffstat is not implemented yet");
}

int pr_diff_summary_format(struct pr_buf *out, const struct pr_diff *d)
{
	return pr_error(PR_EUNSUPPORTED, "diff summary is not implemented yet");
}

int pr_patch_id(char out[41], const char *text, size_t len, bool stable)
{
	return pr_error(PR_EUNSUPPORTED, "patch-id is not implemented yet");
}
