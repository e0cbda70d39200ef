#include "pr.h"

#include <git2.h>
#include <stdlib.h>

#include "forge.h"

/*
 * Fetching a pull request's commits into the cache repository (see
 * pr_forge_fetch() in forge.h).  One bare repository per forge repository;
 * the fetched refs live under refs/patchrelay/ so that nothing the forge
 * names can clash with them, and each PR keeps its own pair.
 */

/* Bytes kept as they are in a cache directory name; the rest is %XX. */
static bool plain_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

int pr_forge_cache_path(struct pr_buf *out, const struct pr_forge *f,
			const char *repo)
{
	const char *dir = f->opts->cache_dir, *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	const unsigned char *p;
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
	/* "grp/sub/proj" is one directory: a name cannot climb out */
	for (p = (const unsigned char *)repo; *p && !err; p++)
		err = plain_byte(*p) ? pr_buf_addch(out, *p)
				     : pr_buf_addf(out, "%%%02X", *p);
	if (!err)
		err = pr_buf_adds(out, ".git");
	return err;
}

static int git_fail(const char *what, const char *url)
{
	const git_error *e = git_error_last();

	return pr_error(PR_ENET, "fetch %s from '%s': %s", what, url,
			e && e->message ? e->message : "failed");
}

struct cred_ctx {
	const struct pr_forge *f;
	int tries;
};

/*
 * Asked only when the server wants credentials (a private repository over
 * HTTPS): the API token, under the forge's user name for git.  Once:
 * libgit2 asks again when the answer was refused.
 */
static int credentials(git_credential **out, const char *url,
		       const char *user_from_url, unsigned int allowed,
		       void *payload)
{
	struct cred_ctx *c = payload;

	PR_UNUSED(url);
	PR_UNUSED(user_from_url);
	if (c->tries++ || !(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) ||
	    !c->f->opts->token || !c->f->ops->git_user)
		return GIT_PASSTHROUGH;
	return git_credential_userpass_plaintext_new(out, c->f->ops->git_user,
						     c->f->opts->token);
}

static int fetch_refs(git_repository *repo, const struct pr_forge *f,
		      const char *url, const char *src, const char *dst,
		      const char *what)
{
	git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
	git_remote_create_options create = GIT_REMOTE_CREATE_OPTIONS_INIT;
	git_remote *remote = NULL;
	struct pr_buf spec = PR_BUF_INIT;
	struct cred_ctx cred = { f, 0 };
	char *specs[1];
	git_strarray refspecs = { specs, 1 };
	int err;

	if ((err = pr_buf_addf(&spec, "+%s:%s", src, dst)))
		goto done;
	specs[0] = spec.ptr;
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	opts.prune = GIT_FETCH_NO_PRUNE;
	opts.update_fetchhead = 0;
	opts.callbacks.credentials = credentials;
	opts.callbacks.payload = &cred;
	/*
	 * An anonymous remote, without url.*.insteadOf: the URL is the one
	 * the forge's API gave.  (libgit2 1.5's insteadOf lookup also leaks
	 * a pcre2 match block per config entry, fixed only in 1.6.)
	 */
	create.repository = repo;
	create.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
	if (git_remote_create_with_opts(&remote, url, &create) < 0 ||
	    git_remote_fetch(remote, &refspecs, &opts, NULL) < 0)
		err = git_fail(what, url);
done:
	git_remote_free(remote);
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
	if (git_repository_open_bare(&repo, out->dir.ptr) < 0 &&
	    git_repository_init(&repo, out->dir.ptr, 1) < 0) {
		const git_error *e = git_error_last();

		err = pr_error(PR_EIO, "cache repository '%s': %s",
			       out->dir.ptr,
			       e && e->message ? e->message : "cannot create");
		goto done;
	}
	if ((err = fetch_refs(repo, f, pr->fetch_url, pr->fetch_ref,
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
