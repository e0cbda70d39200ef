#include "pr.h"
#include "connectors.h"

/*
 * The maildir sink: writes each mail as the core renders it into
 * PATH/new.  Only the definition lives here so far; deliver is filled in
 * with the engine.
 */

static const struct pr_option maildir_options[] = {
	{ "path", PR_OPT_PATH, NULL,
	  "the maildir to write to (cur/, new/ and tmp/ are created)",
	  offsetof(struct pr_maildir_ctx, path), true, NULL },
	PR_OPTIONS_END,
};

const struct pr_connector_type pr_connector_maildir = {
	.abi = PR_ABI_VERSION,
	.name = "maildir",
	.summary = "a maildir sink",
	.caps = PR_CAP_SINK,
	.options = maildir_options,
	.ctx_size = sizeof(struct pr_maildir_ctx),
};
