#include "base/pr.h"
#include "commands.h"

#include <errno.h>
#include <unistd.h>

/*
 * The `patchrelay` that users run: a small front executable.
 *
 * `patchrelay route` runs here, in a binary that links libpcre2 and libc
 * only, because its one-shot use (a process per patch, as get_maintainer.pl
 * is run) is bounded by process start-up: the full binary loads about 40
 * shared libraries (libgit2, libcurl and their TLS, LDAP, Kerberos and SSH
 * dependencies, SQLite, jansson) before main() runs.  Every other command
 * is exec()ed, with the same argv, into the full binary, which is found
 * relative to this executable's own path (see find_full()), so that a
 * relocated install and the build tree both work.  exec() keeps the process
 * id, so signals sent to `patchrelay run` reach the daemon itself.
 *
 * See docs/internals/front.md for why this shape was chosen.
 */

#ifndef PR_FULL_NAME
#define PR_FULL_NAME "patchrelay-full"
#endif
/* meson sets it: libexecdir/patchrelay, relative to bindir or absolute */
#ifndef PR_FULL_DIR
#define PR_FULL_DIR "../libexec/patchrelay"
#endif

/* Linux's PATH_MAX (core/base/limits.h shadows <limits.h> here). */
#define FRONT_PATH_MAX 4096

/* The directory of the running executable, without a trailing '/'. */
static int self_dir(struct pr_buf *out)
{
	char path[FRONT_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	if (n <= 0 || (size_t)n >= sizeof(path) - 1)
		return pr_error(PR_EIO, "/proc/self/exe: cannot read the link");
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return pr_error(PR_EIO, "/proc/self/exe: '%s' has no directory",
				path);
	pr_buf_add(out, path, (size_t)(slash - path));
	return 0;
}

/*
 * The full binary: next to this one (the build tree, where both are built
 * in cli/), else in PR_FULL_DIR, taken from this one's directory when it
 * is relative (an install: bin/ and libexec/patchrelay/ under one prefix,
 * wherever that prefix was moved).  `tried` lists the places looked at,
 * for the error message.
 */
static int find_full(struct pr_buf *out, struct pr_buf *tried)
{
	struct pr_buf dir = PR_BUF_INIT;
	const char *const places[] = { "", PR_FULL_DIR };
	size_t i;
	int err;

	if ((err = self_dir(&dir)))
		goto done;
	for (i = 0; i < PR_ARRAY_SIZE(places); i++) {
		const char *p = places[i];

		pr_buf_reset(out);
		if (*p == '/')
			pr_buf_addf(out, "%s/%s", p, PR_FULL_NAME);
		else
			pr_buf_addf(out, "%s%s%s/%s", dir.ptr, *p ? "/" : "", p,
				    PR_FULL_NAME);
		if (!access(out->ptr, X_OK)) {
			err = 0;
			goto done;
		}
		pr_buf_addf(tried, "%s'%s'", i ? ", " : "", out->ptr);
	}
	err = pr_error(PR_ENOENT, "the full patchrelay binary is missing: %s",
		       tried->ptr);
done:
	pr_buf_release(&dir);
	return err;
}

int main(int argc, char **argv)
{
	struct pr_buf full = PR_BUF_INIT, tried = PR_BUF_INIT;

	if (argc >= 2 && !strcmp(argv[1], "route")) {
		int ret = cmd_route(argc - 1, argv + 1);

		/* a Fixes: tag to look up with libgit2, or --bench */
		if (ret != PR_EXIT_FULL)
			return ret;
	}
	if (!find_full(&full, &tried)) {
		execv(full.ptr, argv);
		pr_error(PR_EIO, "exec '%s': %s", full.ptr, strerror(errno));
	}
	pr_cli_error(NULL);
	pr_buf_release(&full);
	pr_buf_release(&tried);
	return PR_EXIT_RUNTIME;
}
