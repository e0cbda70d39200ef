#include "pr.h"
#include "connectors.h"
#include "gitrepo.h"
#include "model.h"
#include "store.h"

/*
 * The git connector: as a source, a branch compared against its base is a
 * series and a changed branch head is a new version; as a sink, a version
 * is pushed as a branch.  The sink's deliver and the "watch" events are
 * not written yet.
 *
 * poll: the series is base..branch (key: the branch name); the cursor is
 * the version's fingerprint, so an unchanged branch emits nothing and a
 * rebase that changes no patch emits nothing either.
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

static int git_poll(struct pr_instance *inst, const char *cursor,
		    pr_event_fn emit, void *payload)
{
	const struct pr_git_ctx *ctx = inst->ctx;
	struct pr_event ev = { 0 };
	struct pr_buf range = PR_BUF_INIT;
	struct pr_version *v = NULL;
	char fp[41];
	int err;

	if (!ctx->branch || !ctx->base) {
		err = pr_error(
			PR_ECONFIG,
			"source '%s': a git source needs branch and base",
			inst->name);
		goto done;
	}
	if ((err = pr_buf_addf(&range, "%s..%s", ctx->base, ctx->branch)) ||
	    (err = pr_gitrepo_load(&v, ctx->url, range.ptr)))
		goto done;
	if (v->nr == 0 || (err = pr_store_fingerprint(fp, v)))
		goto done;
	if (cursor && !strcmp(cursor, fp))
		goto done;
	ev.kind = PR_EVENT_VERSION;
	ev.series = pr_series_new(inst->name, ctx->branch);
	pr_series_add_version(ev.series, v);
	v = NULL;
	ev.cursor = pr_strdup(fp);
	err = emit(&ev, payload);
done:
	if (err < 0)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	pr_event_release(&ev);
	pr_version_free(v);
	pr_buf_release(&range);
	return err;
}

const struct pr_connector_type pr_connector_git = {
	.abi = PR_ABI_VERSION,
	.name = "git",
	.summary = "a git repository: branches as series, pushes as a sink",
	.caps = PR_CAP_SOURCE | PR_CAP_SINK,
	.options = git_options,
	.ctx_size = sizeof(struct pr_git_ctx),
	.poll = git_poll,
};
