#include "base/pr.h"

#include <git2.h>
#include <stdlib.h>

#include "forge.h"
#include "gitfetch.h"

/*
 * Fetching a pull request's commits into the cache repository (see
 * pr_forge_fetch() in forge.h).  One bare repository per forge repository;
 * the fetched refs live under refs/patchrelay/ so that nothing the forge
 * names can clash with them, and each PR keeps its own pair.
 */

int pr_forge_cache_path(struct pr_buf *out, const struct pr_forge *f,
			const char *repo)
{
	const char *dir = f->opts->cache_dir, *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int err;

	if (dir && *dir)
		err = pr_buf_adds(out, dir);
	else if (xdg && *xdg == '/')
		err = pr_buf_addf(out, "%s/patchrelay/forge", xdg);
	else if (home && *home)
		err = pr_buf_addf(out, "%s/.cache/patchrelay/forge", home);
	else
		return pr_error(PR_ECONFIG,
				"source '%s': no cache-dir, and neither "
				"XDG_CACHE_HOME nor HOME is set",
				f->inst->name);
	if (!err)
		err = pr_buf_addf(out, "/%s/", f->ops->name);
	if (!err)
		err = pr_gitfetch_escape(out, repo);
	if (!err)
		err = pr_buf_adds(out, ".git");
	return err;
}

/* The API token, under the forge's user name for git, if the server asks. */
static int fetch_refs(git_repository *repo, const struct pr_forge *f,
		      const char *url, const char *src, const char *dst,
		      const char *what)
{
	struct pr_gitfetch_auth auth = {
		NULL, NULL, NULL, NULL, f->opts->timeout, f->opts->ca_file
	};
	struct pr_buf spec = PR_BUF_INIT;
	const char *specs[1];
	int err;

	if (f->opts->token && f->ops->git_user) {
		auth.user = f->ops->git_user;
		auth.password = f->opts->token;
	}
	if ((err = pr_buf_addf(&spec, "+%s:%s", src, dst)) == 0) {
		specs[0] = spec.ptr;
		err = pr_gitfetch(repo, url, specs, 1, &auth, what);
	}
	pr_buf_release(&spec);
	return err;
}

static int resolve(char out[41], git_repository *repo, const char *ref,
		   const char *what)
{
	git_oid oid;

	if (git_reference_name_to_id(&oid, repo, ref) < 0)
		return pr_error(PR_ENOENT, "fetch %s: no %s after the fetch",
				what, ref);
	git_oid_tostr(out, 41, &oid);
	return 0;
}

/* Count the commits of base..head and its merges; the first merge's id. */
static int count_range(struct pr_forge_fetched *out, git_repository *repo)
{
	git_revwalk *walk = NULL;
	git_oid head, base, oid, mb;
	int err = 0, rc;

	if (git_oid_fromstr(&head, out->head) < 0 ||
	    git_oid_fromstr(&base, out->base) < 0 ||
	    git_revwalk_new(&walk, repo) < 0 || git_revwalk_push(walk, &head) ||
	    git_revwalk_hide(walk, &base) < 0) {
		err = pr_error(PR_EINTERNAL, "fetch: cannot walk %s..%s",
			       out->base, out->head);
		goto done;
	}
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		git_commit *c = NULL;

		if (git_commit_lookup(&c, repo, &oid) < 0) {
			err = pr_error(PR_ENOENT, "fetch: commit %s missing",
				       git_oid_tostr_s(&oid));
			goto done;
		}
		out->commits++;
		if (git_commit_parentcount(c) > 1 && !out->merges++)
			git_oid_tostr(out->first_merge, 41, &oid);
		git_commit_free(c);
	}
	if (rc != GIT_ITEROVER) {
		err = pr_error(PR_EIO, "fetch: walking %s..%s failed",
			       out->base, out->head);
		goto done;
	}
	if (git_merge_base(&mb, repo, &head, &base) == 0)
		git_oid_tostr(out->merge_base, 41, &mb);
done:
	git_revwalk_free(walk);
	return err;
}

int pr_forge_fetch(struct pr_forge_fetched *out, struct pr_forge *f,
		   const char *repo_name, const struct pr_forge_pr *pr)
{
	git_repository *repo = NULL;
	struct pr_buf head_ref = PR_BUF_INIT, base_ref = PR_BUF_INIT;
	struct pr_buf base_src = PR_BUF_INIT, range = PR_BUF_INIT;
	int err;

	memset(out, 0, sizeof(*out));
	if (!pr->fetch_url || !pr->fetch_ref || !pr->base_url || !pr->base_ref)
		return pr_error(PR_EPARSE,
				"%s#%lld: the forge gave no git URL or ref",
				repo_name, (long long)pr->number);
	git_libgit2_init();
	if ((err = pr_forge_cache_path(&out->dir, f, repo_name)) ||
	    (err = pr_buf_addf(&head_ref, "refs/patchrelay/head/%lld",
			       (long long)pr->number)) ||
	    (err = pr_buf_addf(&base_ref, "refs/patchrelay/base/%lld",
			       (long long)pr->number)) ||
	    (err = pr_buf_addf(&base_src, "refs/heads/%s", pr->base_ref)))
		goto done;
	/* the path is made as needed; an existing repository is opened */
	if ((err = pr_gitfetch_open_cache(&repo, out->dir.ptr)) ||
	    (err = fetch_refs(repo, f, pr->fetch_url, pr->fetch_ref,
			      head_ref.ptr, pr->fetch_ref)) ||
	    (err = fetch_refs(repo, f, pr->base_url, base_src.ptr, base_ref.ptr,
			      base_src.ptr)) ||
	    (err = resolve(out->head, repo, head_ref.ptr, pr->fetch_ref)) ||
	    (err = resolve(out->base, repo, base_ref.ptr, base_src.ptr)))
		goto done;
	if ((err = count_range(out, repo)) ||
	    (err = pr_buf_addf(&range, "%s..%s", base_ref.ptr, head_ref.ptr)))
		goto done;
	out->range = pr_buf_detach(&range, NULL);
done:
	git_repository_free(repo);
	git_libgit2_shutdown();
	pr_buf_release(&head_ref);
	pr_buf_release(&base_ref);
	pr_buf_release(&base_src);
	pr_buf_release(&range);
	if (err)
		pr_forge_fetched_release(out);
	return err;
}

void pr_forge_fetched_release(struct pr_forge_fetched *f)
{
	pr_buf_release(&f->dir);
	free(f->range);
	memset(f, 0, sizeof(*f));
}
