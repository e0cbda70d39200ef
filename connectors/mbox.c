#include "pr.h"
#include "connectors.h"

/*
 * The mbox connector: as a source, a folder where each new mbox file is one
 * series version; as a sink, one mbox file the mails are appended to.  Only
 * the definition and its options live here so far; poll and deliver are
 * filled in with the engine.
 */

static const struct pr_option mbox_options[] = {
	{ "path", PR_OPT_PATH, NULL,
	  "source: the folder to watch for mbox files; sink: the mbox file to "
	  "append to",
	  offsetof(struct pr_mbox_ctx, path), true, NULL },
	PR_OPTIONS_END,
};

const struct pr_connector_type pr_connector_mbox = {
	.abi = PR_ABI_VERSION,
	.name = "mbox",
	.summary =
		"mbox files: a folder of series as a source, a file as a sink",
	.caps = PR_CAP_SOURCE | PR_CAP_SINK,
	.options = mbox_options,
	.ctx_size = sizeof(struct pr_mbox_ctx),
};
