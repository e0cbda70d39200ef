#ifndef PR_PLUGINS_H
#define PR_PLUGINS_H

#include "engine/registry.h"

/*
 * The built-in plugin types, one const definition per file of this folder,
 * listed in cli/registry.c.  Context structs are declared here so that the
 * code implementing run() and the config loader agree on where options are
 * stored.  A limit left unset is 0 and means "no limit".
 */

struct pr_size_limit_ctx {
	int64_t max_files, max_lines, max_patches;
	int64_t warn_files, warn_lines, warn_patches;
	uint64_t max_bytes, warn_bytes;
	/* changed lines of the largest single file change (in one patch) */
	int64_t max_file_lines, warn_file_lines;
};

extern const struct pr_plugin_type pr_plugin_size_limit;

/* check: apply, build and boot a kernel (kernel_ci.c) */
extern const struct pr_plugin_type pr_plugin_kernel_ci;

/* route: the MAINTAINERS routing plugin (maintainers_plugin.c) */
extern const struct pr_plugin_type pr_plugin_maintainers;

#endif
