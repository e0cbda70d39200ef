#include "pr.h"

#include <git2.h>

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

/*
 * The branch description as `git format-patch --cover-from-description=
 * subject` takes it: the first paragraph, its lines joined with spaces, is
 * the subject; the rest is the body.  Without a description the subject
 * is the branch name.  Empty result when the repository cannot be opened
 * (a remote URL): the caller falls back to the branch name.
 */
static int read_description(struct pr_buf *out, const char *dir,
			    const char *branch)
{
	git_repository *repo = NULL;
	git_config *cfg = NULL;
	git_buf val = { NULL, 0, 0 };
	struct pr_buf name = PR_BUF_INIT;
	int err = 0;

	git_libgit2_init();
	if ((err = pr_buf_addf(&name, "branch.%s.description", branch)))
		goto done;
	if (git_repository_open(&repo, dir) < 0 ||
	    git_repository_config_snapshot(&cfg, repo) < 0 ||
	    git_config_get_string_buf(&val, cfg, name.ptr) < 0)
		goto done;
	err = pr_buf_add(out, val.ptr, val.size);
done:
	git_buf_dispose(&val);
	git_config_free(cfg);
	git_repository_free(repo);
	git_libgit2_shutdown();
	pr_buf_release(&name);
	return err;
}

/* Give v its cover letter as the cover-letter option says. */
static int add_cover(struct pr_version *v, const struct pr_git_ctx *ctx)
{
	struct pr_buf desc = PR_BUF_INIT, subj = PR_BUF_INIT;
	struct pr_buf stat = PR_BUF_INIT, parent = PR_BUF_INIT;
	const char *mode = ctx->cover_letter ? ctx->cover_letter : "auto";
	const char *p;
	int err;

	if (!strcmp(mode, "never") || (!strcmp(mode, "auto") && v->nr < 2))
		return 0;
	if ((err = read_description(&desc, ctx->url, ctx->branch)))
		goto done;
	/* the first paragraph, lines trimmed and joined with spaces */
	for (p = desc.ptr; *p && !err;) {
		size_t n = strcspn(p, "\n"), e = n;

		while (e && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
		if (!e && subj.len)
			break;
		if (e && subj.len)
			err = pr_buf_addch(&subj, ' ');
		if (!err)
			err = pr_buf_add(&subj, p, e);
		p += n + (p[n] ? 1 : 0);
	}
	if (err)
		goto done;
	v->cover = pr_calloc(1, sizeof(*v->cover));
	v->cover->subject = pr_strdup(subj.len ? subj.ptr : ctx->branch);
	v->cover->body = pr_strdup(subj.len ? p : "");
	/* the stat from the first patch's parent, as format-patch shows it */
	if (v->patches[0]->commit_id[0] &&
	    !(err = pr_buf_addf(&parent, "%s^", v->patches[0]->commit_id)) &&
	    pr_gitrepo_stat(&stat, ctx->url, parent.ptr,
			    v->patches[v->nr - 1]->commit_id) == 0)
		v->cover->stat = pr_buf_detach(&stat, NULL);
	else
		pr_error_clear();
done:
	pr_buf_release(&desc);
	pr_buf_release(&subj);
	pr_buf_release(&stat);
	pr_buf_release(&parent);
	return err;
}

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
	if (v->nr == 0 || (err = pr_store_fingerprint(fp, v)) ||
	    (err = add_cover(v, ctx)))
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
