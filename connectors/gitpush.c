#include "base/pr.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <sys/stat.h>
#include <git2.h>

#include "gitcommit.h"
#include "gitfetch.h"
#include "gitnet.h"
#include "gitpush.h"
#include "mail/am.h"

/*
 * A version pushed as a branch (gitpush.h): the commits made with
 * gitcommit.c, in the repository itself or in a scratch copy of a
 * remote's branches that is pushed from.
 */

void pr_gitpush_result_release(struct pr_gitpush_result *r)
{
	free(r->commits);
	memset(r, 0, sizeof(*r));
}

bool pr_gitpush_is_remote(const char *url)
{
	size_t colon = strcspn(url, ":"), slash = strcspn(url, "/");

	return strstr(url, "://") || (url[colon] && colon < slash && colon > 1);
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	PR_UNUSED(sb);
	PR_UNUSED(flag);
	PR_UNUSED(ftw);
	return remove(path);
}

/*
 * Where the commits are made.  A local directory is used in place; for a
 * remote, a scratch bare repository (removed by close_target) fetches its
 * branches and tags first, so that the base can be found there.
 */
struct target {
	git_repository *repo;
	git_remote *remote; /* NULL: local */
	git_remote *push; /* the remote for a push: remote, or its push URL's */
	char scratch[96];
	/* a remote's URLs, rewritten by insteadOf when auth->insteadof */
	struct pr_buf url, push_url;
	/* a remote's callbacks: gitfetch's first, then push_status's */
	struct push_cb {
		struct pr_gitfetch_cb cb;
		struct pr_buf why;
	} cb;
};

/* A remote's failure, its URL with any password as <redacted>. */
static int remote_fail(int code, const char *sink, const char *url)
{
	struct pr_buf safe = PR_BUF_INIT;
	int err;

	pr_gitfetch_safe_url(&safe, url);
	err = pr_gitcommit_fail(code, sink, safe.ptr);
	pr_buf_release(&safe);
	return err;
}

#define SCRATCH_PREFIX "patchrelay-git-"

/*
 * Remove the scratch repositories a relay that was killed left in dir:
 * ours (this user's), named after a process that is gone.
 */
static void sweep_scratch(const char *dir)
{
	struct pr_buf path = PR_BUF_INIT;
	struct dirent *e;
	struct stat sb;
	DIR *d = opendir(dir);
	long pid;
	char *end;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)))
			continue;
		pid = strtol(e->d_name + strlen(SCRATCH_PREFIX), &end, 10);
		if (pid <= 0 || *end != '-' || !kill((pid_t)pid, 0) ||
		    errno != ESRCH)
			continue;
		pr_buf_reset(&path);
		if (pr_buf_addf(&path, "%s/%s", dir, e->d_name) ||
		    lstat(path.ptr, &sb) || !S_ISDIR(sb.st_mode) ||
		    sb.st_uid != getuid())
			continue;
		nftw(path.ptr, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	}
	if (d)
		closedir(d);
	pr_buf_release(&path);
}

/*
 * A transfer of the remote, run in a child process under gitnet.h's
 * watchdog (libgit2 alone would wait for ever on a server that does not
 * answer); what the push refused comes back in t->cb.why.
 */
struct remote_job {
	struct target *t;
	const struct pr_gitpush *p;
	git_strarray *specs;
	git_fetch_options *fo;
	git_push_options *po;
};

static int fetch_job(struct pr_buf *extra, void *payload)
{
	const struct remote_job *j = payload;

	PR_UNUSED(extra);
	if (pr_gitfetch_trust(j->p->auth))
		return pr_error_wrap(PR_ECONFIG, "sink '%s'", j->p->sink);
	if (git_remote_fetch(j->t->remote, j->specs, j->fo, NULL) < 0)
		return remote_fail(PR_ENET, j->p->sink, j->t->url.ptr);
	return 0;
}

static int push_job(struct pr_buf *extra, void *payload)
{
	const struct remote_job *j = payload;
	struct pr_buf what = PR_BUF_INIT;
	int err;

	if (pr_gitfetch_trust(j->p->auth))
		return pr_error_wrap(PR_ECONFIG, "sink '%s'", j->p->sink);
	if (git_remote_push(j->t->push, j->specs, j->po) < 0) {
		/* the message names the remote, its password as <redacted> */
		pr_buf_adds(&what, "push to '");
		pr_gitfetch_safe_url(&what, j->t->push_url.ptr);
		pr_buf_addch(&what, '\'');
		err = pr_gitcommit_fail(PR_ENET, j->p->sink, what.ptr);
		pr_buf_release(&what);
		return err;
	}
	return pr_buf_addbuf(extra, &j->t->cb.why);
}

static int remote_run(const char *verb, const char *url, struct remote_job *job,
		      pr_gitnet_fn fn)
{
	struct pr_buf what = PR_BUF_INIT;
	int err;

	if (!(err = pr_buf_addf(&what, "sink '%s': %s '", job->p->sink,
				verb)) &&
	    !(err = pr_gitfetch_safe_url(&what, url)) &&
	    !(err = pr_buf_addch(&what, '\'')))
		err = pr_gitnet_run(&job->t->cb.why,
				    job->p->auth ? job->p->auth->timeout_ms : 0,
				    what.ptr, fn, job);
	pr_buf_release(&what);
	return err;
}

/* The remote's fetch and push URLs, as git makes them of p->url. */
static int remote_urls(struct target *t, const struct pr_gitpush *p)
{
	int err;

	pr_buf_init(&t->url, 0);
	pr_buf_init(&t->push_url, 0);
	if (!p->auth || !p->auth->insteadof) {
		if (!(err = pr_buf_adds(&t->url, p->url)))
			err = pr_buf_adds(&t->push_url, p->url);
		return err;
	}
	if ((err = pr_gitnet_rewrite(&t->url, t->repo, p->url, false)) ||
	    (err = pr_gitnet_rewrite(&t->push_url, t->repo, p->url, true)))
		return pr_error_wrap(err, "sink '%s'", p->sink);
	return 0;
}

static int open_target(struct target *t, const struct pr_gitpush *p)
{
	struct remote_job job = { NULL, NULL, NULL, NULL, NULL };
	static const char *const fetch_specs[] = { "+refs/heads/*:refs/heads/*",
						   "+refs/tags/*:refs/tags/*" };
	git_strarray specs = { (char **)fetch_specs, 2 };
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	git_remote_create_options create = GIT_REMOTE_CREATE_OPTIONS_INIT;
	const char *tmp = getenv("TMPDIR");
	int err;

	memset(t, 0, sizeof(*t));
	pr_buf_init(&t->cb.why, 0);
	if (!pr_gitpush_is_remote(p->url)) {
		if (git_repository_open_ext(&t->repo, p->url,
					    GIT_REPOSITORY_OPEN_NO_SEARCH,
					    NULL) < 0)
			return pr_gitcommit_fail(PR_EIO, p->sink, p->url);
		return 0;
	}
	if (!tmp || !*tmp || strlen(tmp) >= 40)
		tmp = "/tmp";
	sweep_scratch(tmp);
	snprintf(t->scratch, sizeof(t->scratch),
		 "%s/" SCRATCH_PREFIX "%d-XXXXXX", tmp, (int)getpid());
	if (!mkdtemp(t->scratch)) {
		t->scratch[0] = '\0';
		return pr_error(PR_EIO,
				"sink '%s': cannot make a scratch "
				"repository: %s",
				p->sink, strerror(errno));
	}
	if (git_repository_init(&t->repo, t->scratch, 1) < 0)
		return pr_gitcommit_fail(PR_EIO, p->sink, "scratch repository");
	if ((err = remote_urls(t, p)))
		return err;
	/* libgit2's insteadOf lookup leaks (gitnet.h): ours was applied */
	create.repository = t->repo;
	create.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
	if (git_remote_create_with_opts(&t->remote, t->url.ptr, &create) < 0)
		return remote_fail(PR_EINVAL, p->sink, t->url.ptr);
	/*
	 * A push URL of its own is a remote of its own: libgit2 1.5's
	 * file:// push goes to the remote's url whatever its pushurl.
	 */
	t->push = t->remote;
	if (strcmp(t->url.ptr, t->push_url.ptr) &&
	    git_remote_create_with_opts(&t->push, t->push_url.ptr, &create) < 0)
		return remote_fail(PR_EINVAL, p->sink, t->push_url.ptr);
	pr_gitfetch_callbacks(&fo.callbacks, &t->cb.cb, p->auth, t->url.ptr);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	job.t = t;
	job.p = p;
	job.specs = &specs;
	job.fo = &fo;
	return remote_run("fetch from", t->url.ptr, &job, fetch_job);
}

static void close_target(struct target *t)
{
	pr_buf_release(&t->cb.why); /* safe when zeroed: alloc 0 */
	pr_buf_release(&t->url);
	pr_buf_release(&t->push_url);
	if (t->push != t->remote)
		git_remote_free(t->push);
	git_remote_free(t->remote);
	git_repository_free(t->repo);
	if (t->scratch[0])
		nftw(t->scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	memset(t, 0, sizeof(*t));
}

/* libgit2 tells each pushed ref's fate here: a refusal is kept. */
static int push_status(const char *refname, const char *status, void *data)
{
	struct pr_buf *why = &((struct push_cb *)data)->why;

	if (status && !why->len)
		pr_buf_addf(why, "'%s': %s", refname, status);
	return 0;
}

/*
 * Set refname to tip in the target: a ref, or a forced push.  1 when the
 * remote refused it (out says why).
 */
static int set_branch(struct target *t, const struct pr_gitpush *p,
		      const char *refname, const git_oid *tip, const char *log,
		      struct pr_deliver_result *out)
{
	git_push_options po = GIT_PUSH_OPTIONS_INIT;
	struct remote_job job = { NULL, NULL, NULL, NULL, NULL };
	git_reference *ref = NULL;
	struct pr_buf spec = PR_BUF_INIT;
	char *specp;
	git_strarray specs = { &specp, 1 };
	git_oid had;
	int err = 0;

	/*
	 * The remote's branches were fetched: one already at tip (a push
	 * whose answer was lost, or a crash before it was recorded) is not
	 * pushed again, not even as a no-op update.
	 */
	if (t->remote && !git_reference_name_to_id(&had, t->repo, refname) &&
	    git_oid_equal(&had, tip))
		goto done;
	git_error_clear();
	if (git_reference_create(&ref, t->repo, refname, tip, 1, log) < 0) {
		err = pr_gitcommit_fail(PR_EIO, p->sink, refname);
		goto done;
	}
	if (!t->remote)
		goto done;
	/* the branch belongs to patchrelay: forced, like the local ref */
	if ((err = pr_buf_addf(&spec, "+%s:%s", refname, refname)))
		goto done;
	specp = spec.ptr;
	pr_gitfetch_callbacks(&po.callbacks, &t->cb.cb, p->auth,
			      t->push_url.ptr);
	po.callbacks.push_update_reference = push_status;
	job.t = t;
	job.p = p;
	job.specs = &specs;
	job.po = &po;
	if ((err = remote_run("push to", t->push_url.ptr, &job, push_job)))
		goto done;
	if (t->cb.why.len) {
		pr_gitcommit_reject(out, "push refused: %s", t->cb.why.ptr);
		err = 1;
	}
done:
	git_reference_free(ref);
	pr_buf_release(&spec);
	return err;
}

/*
 * The UTC offset of an RFC 2822 date ("... +0200"), in minutes: git am
 * keeps the author's zone, and a mail source gives the time without it.
 */
static int date_tz(const char *date)
{
	const char *p = date ? strrchr(date, ' ') : NULL;
	int hh, mm;

	if (!p || (p[1] != '+' && p[1] != '-') ||
	    strspn(p + 2, "0123456789") != 4 || p[6])
		return 0;
	hh = (p[2] - '0') * 10 + (p[3] - '0');
	mm = (p[4] - '0') * 10 + (p[5] - '0');
	return (p[1] == '-' ? -1 : 1) * (hh * 60 + mm);
}

/* Commit the patches of v on base in turn; the new tip in *tip. */
static int make_commits(git_commit **tip, struct pr_gitpush_result *res,
			struct pr_deliver_result *out, git_repository *repo,
			const struct pr_gitpush *p, const struct pr_version *v,
			const git_signature *committer)
{
	size_t i;
	int err = 0;

	for (i = 0; i < v->nr; i++) {
		struct pr_patch q = *v->patches[i];
		git_oid id;
		bool applied;

		/* a shallow copy: only the zone changes, nothing is freed */
		if (!q.tz_minutes)
			q.tz_minutes = date_tz(q.date);
		if ((err = pr_gitcommit_apply(
			     &id, &applied, repo, p->sink, *tip, &q,
			     p->trailers ? p->trailers[i] : NULL, committer)))
			return err;
		if (!applied) {
			pr_gitcommit_reject(
				out,
				"patch %zu/%zu '%s' does not apply on %s: %s",
				i + 1, v->nr, q.subject ? q.subject : "",
				git_oid_tostr_s(git_commit_id(*tip)),
				pr_error_message());
			pr_error_clear();
			return 0;
		}
		git_oid_tostr(res->commits[i], 41, &id);
		git_commit_free(*tip);
		*tip = NULL;
		if (git_commit_lookup(tip, repo, &id) < 0)
			return pr_gitcommit_fail(PR_EIO, p->sink,
						 "read commit");
	}
	return 0;
}

int pr_gitpush_version(struct pr_gitpush_result *res,
		       struct pr_deliver_result *out,
		       const struct pr_gitpush *p, const struct pr_version *v)
{
	struct target t;
	git_commit *base = NULL, *tip = NULL;
	git_signature *committer = NULL;
	struct pr_buf refname = PR_BUF_INIT, log = PR_BUF_INIT;
	struct pr_version shallow = *v;
	int err;

	memset(res, 0, sizeof(*res));
	out->status = PR_DELIVER_RETRY;
	out->retry_after_ms = 0;
	memset(&t, 0, sizeof(t));
	/* a mailed version names its base in its text (format-patch --base) */
	if (!shallow.base_commit[0])
		pr_am_base_commit(shallow.base_commit, v);
	git_libgit2_init();
	if ((err = pr_buf_addf(&refname, "refs/heads/%s", p->branch)) ||
	    (err = open_target(&t, p)))
		goto done;
	if ((err = pr_gitcommit_committer(&committer, p->committer, p->sink,
					  t.remote ? t.scratch : p->url,
					  p->time)) ||
	    (err = pr_gitcommit_find_base(&base, t.repo, p->base, &shallow)))
		goto done;
	if (!base) {
		pr_gitcommit_reject(
			out,
			"no base for v%d of '%s' in '%s' (base-commit '%s', "
			"base '%s')",
			v->number, p->what, p->url, shallow.base_commit,
			p->base ? p->base : "");
		goto done;
	}
	res->commits = pr_calloc(v->nr ? v->nr : 1, sizeof(*res->commits));
	res->nr = v->nr;
	git_oid_tostr(res->base, sizeof(res->base), git_commit_id(base));
	tip = base;
	base = NULL;
	if ((err = make_commits(&tip, res, out, t.repo, p, v, committer)) ||
	    out->status == PR_DELIVER_REJECTED)
		goto done;
	if ((err = pr_buf_addf(&log, "patchrelay: v%d of %s", v->number,
			       p->what)))
		goto done;
	err = set_branch(&t, p, refname.ptr, git_commit_id(tip), log.ptr, out);
	if (err) {
		/* 1: the remote refused the push, out says why */
		if (err > 0)
			err = 0;
		goto done;
	}
	git_oid_tostr(res->tip, sizeof(res->tip), git_commit_id(tip));
	out->status = PR_DELIVER_OK;
done:
	if (err || out->status != PR_DELIVER_OK)
		pr_gitpush_result_release(res);
	git_commit_free(tip);
	git_commit_free(base);
	git_signature_free(committer);
	close_target(&t);
	git_libgit2_shutdown();
	pr_buf_release(&refname);
	pr_buf_release(&log);
	return err;
}
