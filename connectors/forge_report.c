#include "base/pr.h"

#include "engine/delivery.h"
#include "engine/store.h"
#include "forge.h"
#include "model/model.h"

/*
 * report-to on a forge (engine/report_fanout.h): the report as a commit
 * status on the head of the series' pull request, under the report's
 * context.  The pull request is the series' own when it came from this
 * instance (its key "owner/repo#N"), else the one the forge's sink opened
 * for it (the identity map's "github"/"gitlab" id), else, for a sink,
 * the open one of the series' branch.  Its head is the version's last
 * commit when the series came from here, else the PR's head now (the
 * sink pushed the version there).  A repository the instance does not
 * name is not ours: nothing is posted.
 */

static bool names_repo(const struct pr_forge *f, const char *repo)
{
	size_t i;

	for (i = 0; i < f->opts->repo.nr; i++)
		if (!strcmp(f->opts->repo.items[i], repo))
			return true;
	return false;
}

/* The PR of the series on this forge: *number 0 when there is none. */
static int find_pr(struct pr_buf *repo, int64_t *number, bool *own,
		   struct pr_forge *f, const struct pr_report_post *p)
{
	const struct pr_series *s = p->series;
	struct pr_buf id = PR_BUF_INIT, branch = PR_BUF_INIT;
	struct pr_forge_pr pr = { 0 };
	int err = 0;

	*number = 0;
	*own = s->origin_connector &&
	       !strcmp(s->origin_connector, f->inst->name);
	if (*own) {
		err = pr_forge_split_key(repo, number, s->origin_key);
		goto done;
	}
	err = pr_store_identity_get(&id, p->store, p->series_id, f->ops->name);
	if (!err) {
		err = pr_forge_split_key(repo, number, id.ptr);
		goto done;
	}
	if (err != PR_ENOENT || !f->sink || !f->opts->repo.nr)
		goto done;
	pr_error_clear();
	if ((err = pr_forge_sink_branch(&branch,
					f->sink->branch_prefix
						? f->sink->branch_prefix
						: "patchrelay/",
					s->origin_connector, s->origin_key)))
		goto done;
	err = f->ops->find_pr(f, &pr, f->opts->repo.items[0], branch.ptr);
	if (!err) {
		*number = pr.number;
		err = pr_buf_adds(repo, f->opts->repo.items[0]);
	}
done:
	if (err == PR_ENOENT) {
		pr_error_clear();
		err = 0;
		*number = 0;
	}
	if (!err && *number && !names_repo(f, repo->ptr))
		*number = 0;
	pr_forge_pr_release(&pr);
	pr_buf_release(&id);
	pr_buf_release(&branch);
	return err;
}

int pr_forge_type_report(struct pr_instance *inst,
			 const struct pr_report_post *p)
{
	struct pr_forge *f = inst->state;
	const struct pr_version *v = pr_series_latest(p->series);
	struct pr_buf repo = PR_BUF_INIT;
	struct pr_forge_pr pr = { 0 };
	const char *sha = NULL;
	int64_t number;
	bool own;
	int err;

	if ((err = find_pr(&repo, &number, &own, f, p)) || !number)
		goto done;
	if (own && v && v->nr && v->patches[v->nr - 1]->commit_id[0])
		sha = v->patches[v->nr - 1]->commit_id;
	else if (!(err = f->ops->get_pr(f, &pr, repo.ptr, number)))
		sha = pr.head_sha;
	if (err || !sha || !*sha)
		goto done;
	err = f->ops->post_status(f, repo.ptr, sha, p->verdict, p->context,
				  p->description);
	if (!err) {
		pr_log_info(inst->prefix, "status '%s' on %s#%lld (%.12s)",
			    p->context, repo.ptr, (long long)number, sha);
		err = 1;
	}
done:
	pr_forge_pr_release(&pr);
	pr_buf_release(&repo);
	return err;
}
