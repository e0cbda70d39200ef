#ifndef PR_LIBGIT_H
#define PR_LIBGIT_H

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

#endif
