#include "pr.h"
#include "connectors.h"

/*
 * The git connector: as a source, a branch compared against its base is a
 * series and a changed branch head is a new version; as a sink, a version
 * is pushed as a branch.  Only the definition lives here so far; poll and
 * deliver are filled in with the engine.
 */

static const char *const cover_letter_choices[] = { "auto", "always", "never",
						    NULL };

static const struct pr_option git_options[] = {
	{ "url", PR_OPT_STRING, NULL, "the repository: a path or a git URL",
	  offsetof(struct pr_git_ctx, url), true, NULL },
	{ "branch", PR_OPT_STRING, NULL,
	  "source: the branch that holds the series; sink: the branch to push",
	  offsetof(struct pr_git_ctx, branch), false, NULL },
	{ "base", PR_OPT_STRING, NULL,
	  "the upstream the branch is compared against",
	  offsetof(struct pr_git_ctx, base), false, NULL },
	{ "watch", PR_OPT_STRING, NULL,
	  "a branch whose new commits are \"landed\" events",
	  offsetof(struct pr_git_ctx, watch), false, NULL },
	{ "cover-letter", PR_OPT_ENUM, "auto",
	  "auto: a cover letter for two or more patches; always; never",
	  offsetof(struct pr_git_ctx, cover_letter), false,
	  cover_letter_choices },
	PR_OPTIONS_END,
};

const struct pr_connector_type pr_connector_git = {
	.abi = PR_ABI_VERSION,
	.name = "git",
	.summary = "a git repository: branches as series, pushes as a sink",
	.caps = PR_CAP_SOURCE | PR_CAP_SINK,
	.options = git_options,
	.ctx_size = sizeof(struct pr_git_ctx),
};
