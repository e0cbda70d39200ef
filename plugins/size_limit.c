#include "base/pr.h"
#include "plugins.h"
#include "checks.h"
#include "engine/cfg.h"

/*
 * The size-limit check: fails (max-) or warns (warn-) when a version
 * touches too many files, changes too many lines, or has too many bytes or
 * patches.  The definition lives here, the counting in size_limit_check.c.
 */

#define SL_OPT(key, field, help)                                               \
	{                                                                      \
		key, PR_OPT_INT, NULL, help,                                   \
			offsetof(struct pr_size_limit_ctx, field), false, NULL \
	}

static const struct pr_option size_limit_options[] = {
	SL_OPT("max-files", max_files, "fail above this many files touched"),
	SL_OPT("max-lines", max_lines, "fail above this many changed lines"),
	{ "max-bytes", PR_OPT_SIZE, NULL,
	  "fail above this size of the patches (2M, 512k)",
	  offsetof(struct pr_size_limit_ctx, max_bytes), false, NULL },
	SL_OPT("max-patches", max_patches, "fail above this many patches"),
	SL_OPT("warn-files", warn_files, "warn above this many files touched"),
	SL_OPT("warn-lines", warn_lines, "warn above this many changed lines"),
	{ "warn-bytes", PR_OPT_SIZE, NULL,
	  "warn above this size of the patches (2M, 512k)",
	  offsetof(struct pr_size_limit_ctx, warn_bytes), false, NULL },
	SL_OPT("warn-patches", warn_patches, "warn above this many patches"),
	SL_OPT("max-file-lines", max_file_lines,
	       "fail above this many changed lines in one file"),
	SL_OPT("warn-file-lines", warn_file_lines,
	       "warn above this many changed lines in one file"),
	PR_OPTIONS_END,
};

/*
 * A size-limit made outside a config file (`patchrelay check --step
 * size-limit`) has these limits unless given others; a config section
 * states its own (docs/plugins/size-limit.md).
 */
static const char *const size_limit_step_defaults[] = {
	"max-files=1000",  "warn-files=100",  "max-lines=50000",
	"warn-lines=5000", "max-patches=200", "warn-patches=50",
	"max-bytes=16M",   "warn-bytes=2M",   NULL,
};

void pr_size_limit_defaults(struct pr_size_limit_ctx *ctx)
{
	const char *const *s;

	memset(ctx, 0, sizeof(*ctx));
	for (s = size_limit_step_defaults; *s; s++) {
		const char *eq = strchr(*s, '=');
		char *key = pr_strndup(*s, (size_t)(eq - *s));

		pr_cfg_set_option(ctx,
				  pr_cfg_find_option(size_limit_options, key),
				  eq + 1);
		free(key);
	}
}

const struct pr_plugin_type pr_plugin_size_limit = {
	.abi = PR_ABI_VERSION,
	.name = "size-limit",
	.summary = "fail or warn on series that are too large",
	.kind = PR_PLUGIN_CHECK,
	.options = size_limit_options,
	.ctx_size = sizeof(struct pr_size_limit_ctx),
	.run = pr_size_limit_run,
	.step_defaults = size_limit_step_defaults,
};
