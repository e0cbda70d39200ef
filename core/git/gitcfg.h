#ifndef PR_GITCFG_H
#define PR_GITCFG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The command-line configuration of git: what `git -c key=value` and the
 * GIT_CONFIG_COUNT / GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n> variables
 * pass to a git program.  git reads it after every config file, so it
 * wins over all of them; libgit2 does not read it at all.
 *
 * Invariants:
 * - items[] is in git's reading order: the GIT_CONFIG_COUNT pairs from 0
 *   up, then GIT_CONFIG_PARAMETERS from left to right; for a key given
 *   more than once the last one is the value (pr_gitcfg_get() finds it).
 * - Each key is canonical as git_config_parse_key() makes it: the section
 *   and the variable name lowercased, a subsection between them kept as
 *   written.
 * - A NULL value is a key given with no "=" ("-c core.bare" or the
 *   "'core.bare'=" form), which a boolean reads as true.
 * - A struct pr_gitcfg starts as PR_GITCFG_INIT (or zeroed) and is freed
 *   with pr_gitcfg_release(); after a failed read it holds what it held
 *   before the call.
 */

struct pr_gitcfg_item {
	char *key;
	char *value;
};

struct pr_gitcfg {
	struct pr_gitcfg_item *items;
	size_t nr, alloc;
};

#define PR_GITCFG_INIT     \
	{                  \
		NULL, 0, 0 \
	}

/*
 * Append the command-line config of the environment: GIT_CONFIG_COUNT
 * pairs, then GIT_CONFIG_PARAMETERS.  Malformed input is an error naming
 * the variable, as git refuses to run then.
 */
int pr_gitcfg_read_env(struct pr_gitcfg *cfg);

/*
 * Append the entries of a GIT_CONFIG_PARAMETERS value: single-quoted
 * words separated by white space, each either 'key=value' (before git
 * 2.31) or 'key'='value' ('key'= for no value), as git's quote.c quotes
 * them ('\'' for a quote, '\!' for a '!').
 */
int pr_gitcfg_parse_parameters(struct pr_gitcfg *cfg, const char *text);

/* Append key (made canonical) = value (NULL for none). */
int pr_gitcfg_add(struct pr_gitcfg *cfg, const char *key, const char *value);

/*
 * The last entry for key (canonical, as "core.abbrev"): true with *value
 * set (NULL for an entry with no value), false when there is none.
 */
bool pr_gitcfg_get(const struct pr_gitcfg *cfg, const char *key,
		   const char **value);

/*
 * A boolean as git_parse_maybe_bool() reads it: NULL, "true", "yes",
 * "on" and a non-zero integer are 1; "false", "no", "off", "" and 0 are
 * 0; anything else is -1.
 */
int pr_gitcfg_bool(const char *value);

void pr_gitcfg_release(struct pr_gitcfg *cfg);

#endif
