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
	struct pr_gitfetch_cb cb; /* the fetch's callbacks */
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

#define PUSH_TEXT_MAX (256 * PR_KIB)

void pr_gitpush_said_release(struct pr_gitpush_said *s)
{
	pr_buf_release(&s->ref);
	pr_buf_release(&s->status);
	pr_buf_release(&s->remote);
}

/* A push in the child of pr_gitnet_run, and what the server said. */
struct send_job {
	struct pr_gitfetch_cb cb; /* first: the callbacks' payload */
	struct pr_gitpush_said said;
	git_remote *remote;
	const char *url;
	git_strarray specs;
	const struct pr_gitfetch_auth *auth;
};

static int on_progress(const char *str, int len, void *payload)
{
	struct send_job *j = payload;

	/* a flood is cut, not an error */
	if (len > 0 && j->said.remote.len < PUSH_TEXT_MAX)
		pr_buf_add(&j->said.remote, str, (size_t)len);
	return 0;
}

/* libgit2 tells each pushed ref's fate here: the first refusal is kept. */
static int on_update(const char *refname, const char *status, void *payload)
{
	struct send_job *j = payload;

	if (status && !j->said.ref.len && !pr_buf_adds(&j->said.ref, refname))
		pr_buf_adds(&j->said.status, status);
	return 0;
}

static int push_fail(const char *url)
{
	const git_error *e = git_error_last();
	struct pr_buf safe = PR_BUF_INIT;
	int err;

	pr_gitfetch_safe_url(&safe, url);
	err = pr_error(e && e->klass == GIT_ERROR_SSH && e->message &&
				       strstr(e->message, "host key")
			       ? PR_EAUTH
			       : PR_ENET,
		       "push to '%s': %s", safe.ptr,
		       e && e->message ? e->message : "failed");
	pr_buf_release(&safe);
	return err;
}

/* The child: push, and send back "REF\0STATUS\0TEXT" in extra. */
static int send_job(struct pr_buf *extra, void *payload)
{
	struct send_job *j = payload;
	git_push_options po = GIT_PUSH_OPTIONS_INIT;
	int err;

	if ((err = pr_gitfetch_trust(j->auth)))
		return err;
	pr_gitfetch_callbacks(&po.callbacks, &j->cb, j->auth, j->url);
	po.callbacks.sideband_progress = on_progress;
	po.callbacks.push_update_reference = on_update;
	if (git_remote_push(j->remote, &j->specs, &po) < 0)
		return push_fail(j->url);
	if (!(err = pr_buf_addbuf(extra, &j->said.ref)) &&
	    !(err = pr_buf_add(extra, "", 1)) &&
	    !(err = pr_buf_addbuf(extra, &j->said.status)) &&
	    !(err = pr_buf_add(extra, "", 1)))
		err = pr_buf_addbuf(extra, &j->said.remote);
	pr_gitpush_said_release(&j->said);
	return err;
}

/* rec[0..len) up to the next NUL into out; *at past it. */
static int take_field(struct pr_buf *out, const struct pr_buf *rec, size_t *at)
{
	const char *p = rec->ptr + *at;
	const char *nul = memchr(p, '\0', rec->len - *at);
	size_t n = nul ? (size_t)(nul - p) : rec->len - *at;

	*at += n + (nul ? 1 : 0);
	return pr_buf_add(out, p, n);
}

int pr_gitpush_send(struct pr_gitpush_said *said, git_remote *remote,
		    const char *url, const char *const *specs, size_t nr,
		    const struct pr_gitfetch_auth *auth)
{
	struct send_job j;
	struct pr_buf what = PR_BUF_INIT, rec = PR_BUF_INIT;
	size_t at = 0;
	int err;

	memset(&j, 0, sizeof(j));
	pr_buf_init(&said->ref, 0);
	pr_buf_init(&said->status, 0);
	pr_buf_init(&said->remote, 0);
	pr_buf_init(&j.said.ref, 0);
	pr_buf_init(&j.said.status, 0);
	pr_buf_init(&j.said.remote, 0);
	j.remote = remote;
	j.url = url;
	j.specs.strings = (char **)specs;
	j.specs.count = nr;
	j.auth = auth;
	if ((err = pr_buf_adds(&what, "push to '")) ||
	    (err = pr_gitfetch_safe_url(&what, url)) ||
	    (err = pr_buf_addch(&what, '\'')) ||
	    (err = pr_gitnet_run(&rec, auth ? auth->timeout_ms : 0, what.ptr,
				 send_job, &j)))
		goto done;
	if (rec.len && !(err = take_field(&said->ref, &rec, &at)) &&
	    !(err = take_field(&said->status, &rec, &at)))
		err = take_field(&said->remote, &rec, &at);
done:
	if (err)
		pr_gitpush_said_release(said);
	pr_buf_release(&what);
	pr_buf_release(&rec);
	return err;
}

/* The scratch repository's fetch of the remote, in a child (gitnet.h). */
struct fetch_job {
	struct target *t;
	const struct pr_gitpush *p;
	git_strarray *specs;
	git_fetch_options *fo;
};

static int fetch_job(struct pr_buf *extra, void *payload)
{
	const struct fetch_job *j = payload;

	PR_UNUSED(extra);
	if (pr_gitfetch_trust(j->p->auth))
		return pr_error_wrap(PR_ECONFIG, "sink '%s'", j->p->sink);
	if (git_remote_fetch(j->t->remote, j->specs, j->fo, NULL) < 0)
		return remote_fail(PR_ENET, j->p->sink, j->t->url.ptr);
	return 0;
}

static int fetch_run(struct fetch_job *job)
{
	struct pr_buf what = PR_BUF_INIT;
	int err;

	if (!(err = pr_buf_addf(&what, "sink '%s': fetch from '",
				job->p->sink)) &&
	    !(err = pr_gitfetch_safe_url(&what, job->t->url.ptr)) &&
	    !(err = pr_buf_addch(&what, '\'')))
		err = pr_gitnet_run(NULL,
				    job->p->auth ? job->p->auth->timeout_ms : 0,
				    what.ptr, fetch_job, job);
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
	struct fetch_job job = { NULL, NULL, NULL, NULL };
	static const char *const fetch_specs[] = { "+refs/heads/*:refs/heads/*",
						   "+refs/tags/*:refs/tags/*" };
	git_strarray specs = { (char **)fetch_specs, 2 };
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	git_remote_create_options create = GIT_REMOTE_CREATE_OPTIONS_INIT;
	const char *tmp = getenv("TMPDIR");
	int err;

	memset(t, 0, sizeof(*t));
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
	pr_gitfetch_callbacks(&fo.callbacks, &t->cb, p->auth, t->url.ptr);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	job.t = t;
	job.p = p;
	job.specs = &specs;
	job.fo = &fo;
	return fetch_run(&job);
}

static void close_target(struct target *t)
{
	pr_buf_release(&t->url); /* safe when zeroed: alloc 0 */
	pr_buf_release(&t->push_url);
	if (t->push != t->remote)
		git_remote_free(t->push);
	git_remote_free(t->remote);
	git_repository_free(t->repo);
	if (t->scratch[0])
		nftw(t->scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	memset(t, 0, sizeof(*t));
}

/*
 * Set refname to tip in the target: a ref, or a forced push.  1 when the
 * remote refused it (out says why).
 */
static int set_branch(struct target *t, const struct pr_gitpush *p,
		      const char *refname, const git_oid *tip, const char *log,
		      struct pr_deliver_result *out)
{
	struct pr_gitpush_said said;
	git_reference *ref = NULL;
	struct pr_buf spec = PR_BUF_INIT;
	const char *specp;
	git_oid had;
	int err = 0;

	memset(&said, 0, sizeof(said));
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
	if ((err = pr_gitpush_send(&said, t->push, t->push_url.ptr, &specp, 1,
				   p->auth))) {
		err = pr_error_wrap(err, "sink '%s'", p->sink);
		goto done;
	}
	if (said.ref.len) {
		pr_gitcommit_reject(out, "push refused: '%s': %s", said.ref.ptr,
				    said.status.ptr);
		err = 1;
	}
done:
	pr_gitpush_said_release(&said);
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
