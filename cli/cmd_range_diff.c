#include "base/pr.h"
#include "commands.h"
#include "git/abbrev.h"
#include "git/gitrepo.h"
#include "git/rangediff.h"

static void range_diff_usage(void)
{
	fprintf(stderr, "usage: patchrelay range-diff [--git-dir DIR] "
			"[--creation-factor N] OLD-RANGE NEW-RANGE\n"
			"   or: patchrelay range-diff [--git-dir DIR] "
			"[--creation-factor N] BASE OLD-TIP NEW-TIP\n");
}

/* A whole non-negative decimal number. */
static bool parse_factor(const char *s, int *out)
{
	long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (v > 100000)
		return false;
	*out = (int)v;
	return true;
}

/* The ID column as git abbreviates it; payload is the repository dir. */
static int abbrev_id(struct pr_buf *out, const char *hex, void *payload)
{
	const char *const *dir = payload;

	return pr_abbrev_id(out, *dir, hex);
}

/*
 * patchrelay range-diff [--git-dir DIR] [--creation-factor N] A..B C..D:
 * load both ranges with pr_gitrepo_load() and print pr_range_diff(), which
 * is what `git range-diff --no-color A..B C..D` prints.  The three-argument
 * form BASE OLD NEW means BASE..OLD BASE..NEW, as in git.
 */
int cmd_range_diff(int argc, char **argv)
{
	struct pr_version *old = NULL, *new = NULL;
	struct pr_buf out = PR_BUF_INIT, r1 = PR_BUF_INIT, r2 = PR_BUF_INIT;
	const char *dir = ".", *args[3];
	int i, nargs = 0, factor = 60, ret = PR_EXIT_OK;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--git-dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strncmp(a, "--git-dir=", 10)) {
			dir = a + 10;
		} else if (!strcmp(a, "--creation-factor") && i + 1 < argc) {
			if (!parse_factor(argv[++i], &factor))
				goto usage;
		} else if (!strncmp(a, "--creation-factor=", 18)) {
			if (!parse_factor(a + 18, &factor))
				goto usage;
		} else if (!strcmp(a, "--no-color")) {
			/* the only output there is */
		} else if (a[0] == '-' || nargs == 3) {
			goto usage;
		} else {
			args[nargs++] = a;
		}
	}
	if (nargs == 3) {
		pr_buf_addf(&r1, "%s..%s", args[0], args[1]);
		pr_buf_addf(&r2, "%s..%s", args[0], args[2]);
	} else if (nargs == 2 && strstr(args[0], "..") &&
		   strstr(args[1], "..")) {
		pr_buf_adds(&r1, args[0]);
		pr_buf_adds(&r2, args[1]);
	} else {
		goto usage;
	}
	if (pr_gitrepo_load(&old, dir, r1.ptr)) {
		pr_cli_error(r1.ptr);
		ret = PR_EXIT_USAGE;
		goto done;
	}
	if (pr_gitrepo_load(&new, dir, r2.ptr)) {
		pr_cli_error(r2.ptr);
		ret = PR_EXIT_USAGE;
		goto done;
	}
	if (pr_rangediff_format_ids(&out, old, new, factor, abbrev_id, &dir)) {
		pr_cli_error("range-diff");
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	if (fwrite(out.ptr, 1, out.len, stdout) != out.len || fflush(stdout)) {
		fprintf(stderr, "patchrelay: error: writing stdout failed\n");
		ret = PR_EXIT_RUNTIME;
	}
	goto done;
usage:
	range_diff_usage();
	ret = PR_EXIT_USAGE;
done:
	pr_version_free(old);
	pr_version_free(new);
	pr_buf_release(&out);
	pr_buf_release(&r1);
	pr_buf_release(&r2);
	return ret;
}
