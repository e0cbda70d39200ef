/*
 * Test helper, not a public command: reads a patch mail or diff and prints
 * what core/git/diff.c computes from it, for comparison with git.
 *
 *	diffstat_tool stat FILE		diffstat then --summary lines
 *	diffstat_tool patch-id [--stable] FILE
 */
#include "base/pr.h"
#include "git/diff.h"
#include "git/diffstat.h"

int main(int argc, char **argv)
{
	struct pr_buf in, out = PR_BUF_INIT;
	struct pr_diff d = PR_DIFF_INIT;
	char id[41];
	int err, ret = 1;

	pr_buf_init(&in, PR_LIMIT_DIFF_BYTES);
	if (argc == 3 && !strcmp(argv[1], "stat")) {
		err = pr_buf_read_file(&in, argv[2]);
		if (!err)
			err = pr_diff_parse(&d, in.ptr, in.len);
		if (!err)
			err = pr_diffstat_format(&out, &d);
		if (!err)
			err = pr_diff_summary_format(&out, &d);
		if (!err)
			fwrite(out.ptr, 1, out.len, stdout);
	} else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "patch-id")) {
		err = pr_buf_read_file(&in, argv[argc - 1]);
		if (!err)
			err = pr_patch_id(id, in.ptr, in.len, argc == 4);
		if (!err)
			printf("%s\n", id);
	} else {
		fprintf(stderr,
			"usage: diffstat_tool stat|patch-id [--stable] FILE\n");
		goto done;
	}
	if (err)
		fprintf(stderr, "diffstat_tool: %s\n", pr_error_message());
	else
		ret = 0;
done:
	pr_diff_release(&d);
	pr_buf_release(&in);
	pr_buf_release(&out);
	return ret;
}
