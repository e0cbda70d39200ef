#include "base/pr.h"
#include "git/libgit.h"

#include <git2.h>
#include <unistd.h>

int pr_libgit_fail(const char *what, const char *arg)
{
	const git_error *e = git_error_last();

	return pr_error(PR_EINVAL, "%s '%s': %s", what, arg,
			e && e->message ? e->message : "libgit2 error");
}

/* git_env_bool: "1", "true", "yes", "on" and their opposites; else 0 */
static bool env_true(const char *name)
{
	const char *v = getenv(name);
	char *end = NULL;
	long n;

	if (!v || !*v)
		return false;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "on"))
		return true;
	n = strtol(v, &end, 10);
	return end != v && !*end && n != 0;
}

static int add_config_file(git_config *cfg, const char *path,
			   git_config_level_t level, git_repository *repo)
{
	/* a file that is not there is no error, as for git */
	if (!path || !*path || access(path, F_OK))
		return 0;
	if (git_config_add_file_ondisk(cfg, path, level, repo, 0) < 0)
		return pr_libgit_fail("config", path);
	return 0;
}

/*
 * The configuration git reads for the repository, honouring what libgit2
 * does not: GIT_CONFIG_NOSYSTEM (no system file), GIT_CONFIG_SYSTEM and
 * GIT_CONFIG_GLOBAL (the files read instead of the system and of the
 * global and XDG ones).  The command-line config (GIT_CONFIG_COUNT and
 * -c parameters) is pr_gitcfg's, which callers look up first.  Not read:
 * worktree-specific config.
 */
int pr_libgit_config(git_config **out, git_repository *repo)
{
	git_config *cfg = NULL;
	git_buf sys = { 0 };
	struct pr_buf path = PR_BUF_INIT;
	const char *env, *home = getenv("HOME"),
			 *xdg = getenv("XDG_CONFIG_HOME");
	int err = 0;

	*out = NULL;
	if (git_config_new(&cfg) < 0) {
		err = pr_libgit_fail("config", "new");
		goto done;
	}
	if (!env_true("GIT_CONFIG_NOSYSTEM")) {
		env = getenv("GIT_CONFIG_SYSTEM");
		if (!env && !git_config_find_system(&sys))
			env = sys.ptr;
		if ((err = add_config_file(cfg, env, GIT_CONFIG_LEVEL_SYSTEM,
					   repo)))
			goto done;
	}
	if ((env = getenv("GIT_CONFIG_GLOBAL"))) {
		err = add_config_file(cfg, env, GIT_CONFIG_LEVEL_GLOBAL, repo);
	} else {
		if (xdg && *xdg)
			pr_buf_addf(&path, "%s/git/config", xdg);
		else if (home)
			pr_buf_addf(&path, "%s/.config/git/config", home);
		err = add_config_file(cfg, path.ptr, GIT_CONFIG_LEVEL_XDG,
				      repo);
		pr_buf_reset(&path);
		if (!err && home && !pr_buf_addf(&path, "%s/.gitconfig", home))
			err = add_config_file(cfg, path.ptr,
					      GIT_CONFIG_LEVEL_GLOBAL, repo);
	}
	if (err)
		goto done;
	pr_buf_reset(&path);
	pr_buf_addf(&path, "%sconfig", git_repository_commondir(repo));
	if ((err = add_config_file(cfg, path.ptr, GIT_CONFIG_LEVEL_LOCAL,
				   repo)))
		goto done;
	*out = cfg;
	cfg = NULL;
done:
	git_config_free(cfg);
	git_buf_dispose(&sys);
	pr_buf_release(&path);
	return err;
}
