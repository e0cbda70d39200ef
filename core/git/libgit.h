#ifndef PR_LIBGIT_H
#define PR_LIBGIT_H

#include <git2.h>

/*
 * What the modules of core/git that call libgit2 share: its last error
 * turned into a pr_error() message.  Each caller initialises libgit2 for
 * its own calls (git_libgit2_init()).
 */

/*
 * After a libgit2 call failed: record "WHAT 'ARG': MESSAGE", MESSAGE
 * libgit2's last error, and return PR_EINVAL.
 */
int pr_libgit_fail(const char *what, const char *arg);

/*
 * The configuration files git reads for repo, honouring what libgit2 does
 * not (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL); git's
 * command-line config (git/gitcfg.h) is not in it: callers look that up
 * first, as git reads it last.  *out is the caller's to free.
 */
int pr_libgit_config(git_config **out, git_repository *repo);

#endif
