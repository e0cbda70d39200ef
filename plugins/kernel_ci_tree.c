#include "base/pr.h"
#include "base/sha1.h"
#include "kernel_ci.h"
#include "mail/am.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The build directory and the kernel tree's worktrees (kernel_ci.h).
 *
 *   <build-dir>/<base12>-<cfg8>/lock   flock'd while a run uses the tree
 *   <build-dir>/<base12>-<cfg8>/src    a git worktree of kernel-tree
 *   <build-dir>/<base12>-<cfg8>/obj    make O=, shared by every version
 *   <build-dir>/initramfs-<id>.cpio    the default initramfs
 *   <logs>/<time>-<series>-v<N>/       one run's stage logs
 *
 * where <logs> is <state dir>/kernel-ci/logs when the engine runs the
 * step, else <build-dir>/logs.  One tree per base and configuration: make
 * decides by time stamps, and git rewrites (new mtime) every file that a
 * reset or a patch changes, so an object is rebuilt exactly when its
 * sources differ from what it was built from.
 */

#define GIT_TIMEOUT_MS (10 * 60 * 1000) /* a worktree of 80k files */

static int mkdir_p(const char *path)
{
	struct pr_buf b = PR_BUF_INIT;
	size_t i;
	int err = 0;

	pr_buf_adds(&b, path);
	for (i = 1; i <= b.len && !err; i++) {
		if (b.ptr[i] != '/' && b.ptr[i] != '\0')
			continue;
		b.ptr[i] = '\0';
		if (mkdir(b.ptr, 0755) && errno != EEXIST)
			err = pr_error(PR_EIO, "cannot create '%s': %s", b.ptr,
				       strerror(errno));
		b.ptr[i] = i < b.len ? '/' : '\0';
	}
	pr_buf_release(&b);
	return err;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	PR_UNUSED(st);
	PR_UNUSED(ftw);
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* An absolute path: relative ones are taken from the current directory. */
static void absolute(struct pr_buf *out, const char *path)
{
	char cwd[4096];

	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		pr_buf_addf(out, "%s/", cwd);
	pr_buf_adds(out, path);
	while (out->len > 1 && out->ptr[out->len - 1] == '/')
		pr_buf_setlen(out, out->len - 1);
}

static void series_tag(struct pr_buf *out, const struct pr_series *s)
{
	const char *k = s && s->origin_key ? s->origin_key : "check";
	size_t start = out->len;

	for (; *k && out->len - start < 48; k++)
		pr_buf_addch(out, isalnum((unsigned char)*k) || *k == '.' ||
						  *k == '-'
					  ? *k
					  : '_');
}

int pr_kci_dirs(struct pr_kci_run *r, const struct pr_series *s,
		const struct pr_version *v)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct pr_buf logs = PR_BUF_INIT;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int err, n;

	if (r->c->build_dir)
		absolute(&r->build_dir, r->c->build_dir);
	else if (r->inst->state_dir) {
		absolute(&r->build_dir, r->inst->state_dir);
		pr_buf_adds(&r->build_dir, "/kernel-ci");
	} else if (cache && *cache)
		pr_buf_addf(&r->build_dir, "%s/patchrelay/kernel-ci", cache);
	else if (home && *home)
		pr_buf_addf(&r->build_dir, "%s/.cache/patchrelay/kernel-ci",
			    home);
	else
		return pr_error(PR_ECONFIG,
				"check '%s': no build-dir, no state directory "
				"and no HOME",
				r->inst->name);
	if ((err = mkdir_p(r->build_dir.ptr)))
		goto done;
	if (r->inst->state_dir) {
		absolute(&logs, r->inst->state_dir);
		pr_buf_adds(&logs, "/kernel-ci/logs");
	} else {
		pr_buf_addf(&logs, "%s/logs", r->build_dir.ptr);
	}
	if ((err = mkdir_p(logs.ptr)))
		goto done;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (n = 0;; n++) {
		pr_buf_reset(&r->log_dir);
		pr_buf_addf(&r->log_dir, "%s/%s-", logs.ptr, stamp);
		series_tag(&r->log_dir, s);
		pr_buf_addf(&r->log_dir, "-v%d", v->number);
		if (n)
			pr_buf_addf(&r->log_dir, ".%d", n);
		if (!mkdir(r->log_dir.ptr, 0755))
			break;
		if (errno != EEXIST || n == 100) {
			err = pr_error(PR_EIO, "cannot create '%s': %s",
				       r->log_dir.ptr, strerror(errno));
			goto done;
		}
	}
done:
	pr_buf_release(&logs);
	return err;
}

/* git in `dir` (-C), its output to apply.log; *out gets the first 64 KiB. */
static int git(struct pr_proc_result *res, struct pr_buf *out,
	       const struct pr_kci_run *r, const char *dir,
	       const char *const *args, const struct pr_buf *input)
{
	const char *argv[16] = { "git", "-C", dir };
	struct pr_buf log = PR_BUF_INIT;
	size_t i, n = 3;
	int err;

	for (i = 0; args[i] && n + 1 < PR_ARRAY_SIZE(argv); i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pr_kci_log_path(&log, r, "apply");
	err = pr_kci_cmd(res, out, 65536, r, "apply", log.ptr, argv, NULL,
			 GIT_TIMEOUT_MS, input);
	if (!err && res->timed_out)
		err = pr_error(PR_ETIMEOUT, "git %s in '%s': no end in %d s",
			       args[0], dir, GIT_TIMEOUT_MS / 1000);
	pr_buf_release(&log);
	return err;
}

/* git ... that must succeed. */
static int git_ok(struct pr_buf *out, const struct pr_kci_run *r,
		  const char *dir, const char *const *args)
{
	struct pr_buf o = PR_BUF_INIT;
	struct pr_proc_result res;
	int err = git(&res, &o, r, dir, args, NULL);

	if (!err && res.status) {
		pr_buf_rtrim(&o);
		err = pr_error(PR_EIO, "git %s in '%s' failed (status %d): %s",
			       args[0], dir, res.status, o.ptr);
	}
	if (!err && out)
		pr_buf_addbuf(out, &o);
	pr_buf_release(&o);
	return err;
}

/* The commit `rev` names in the kernel tree, or "" when none. */
static int resolve(char out[41], const struct pr_kci_run *r, const char *rev)
{
	struct pr_buf spec = PR_BUF_INIT, o = PR_BUF_INIT;
	struct pr_proc_result res;
	int err;

	out[0] = '\0';
	pr_buf_addf(&spec, "%s^{commit}", rev);
	{
		const char *args[] = { "rev-parse", "--verify", "--quiet",
				       spec.ptr, NULL };

		err = git(&res, &o, r, r->c->kernel_tree, args, NULL);
	}
	pr_buf_rtrim(&o);
	if (!err && !res.status && o.len == 40) {
		memcpy(out, o.ptr, 40);
		out[40] = '\0';
	}
	pr_buf_release(&spec);
	pr_buf_release(&o);
	return err;
}

void pr_kci_named_base(char out[41], const struct pr_version *v)
{
	static const char key[] = "base-commit: ";
	size_t i;

	memcpy(out, v->base_commit, 41);
	for (i = 0; i < v->nr + 1 && !out[0]; i++) {
		const char *t = i < v->nr  ? v->patches[i]->diff
				: v->cover ? v->cover->body
					   : NULL;
		const char *p = t;

		while (p && (p = strstr(p, key))) {
			const char *h = p + sizeof(key) - 1;

			if ((p == t || p[-1] == '\n') &&
			    strspn(h, "0123456789abcdef") == 40) {
				memcpy(out, h, 40);
				out[40] = '\0';
				break;
			}
			p = h;
		}
	}
}

static int find_base(struct pr_kci_run *r, const struct pr_version *v)
{
	int err = 0;

	pr_kci_named_base(r->named, v);
	if (r->named[0] && (err = resolve(r->base, r, r->named)))
		return err;
	if (r->base[0])
		return 0;
	r->base_guessed = true;
	if ((err = resolve(r->base, r, "HEAD")))
		return err;
	if (!r->base[0])
		return pr_error(PR_ECONFIG,
				"check '%s': kernel-tree '%s' is not a git "
				"repository with a HEAD commit",
				r->inst->name, r->c->kernel_tree);
	return 0;
}

/* <base12>-<first 8 hex of the SHA-1 of what else shapes the objects> */
static void tree_key(struct pr_buf *out, const struct pr_kci_run *r)
{
	struct pr_sha1 h;
	char hex[PR_SHA1_HEXSZ + 1];

	pr_sha1_init(&h);
	pr_sha1_update(&h, r->fragment.ptr, r->fragment.len);
	pr_sha1_update(&h, r->c->ccache ? "ccache" : "cc",
		       r->c->ccache ? 6 : 2);
	pr_sha1_final_hex(hex, &h);
	pr_buf_addf(out, "%.12s-%.8s", r->base, hex);
}

static int lock_tree(struct pr_kci_run *r)
{
	struct pr_buf path = PR_BUF_INIT;
	int err = 0;

	pr_buf_addf(&path, "%s/lock", r->key_dir.ptr);
	r->lock_fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (r->lock_fd < 0) {
		err = pr_error(PR_EIO, "cannot open '%s': %s", path.ptr,
			       strerror(errno));
		goto done;
	}
	if (flock(r->lock_fd, LOCK_EX | LOCK_NB)) {
		pr_log_info(r->inst->prefix, "%s: waiting for '%s'", r->step,
			    path.ptr);
		if (flock(r->lock_fd, LOCK_EX)) {
			err = pr_error(PR_EIO, "cannot lock '%s': %s", path.ptr,
				       strerror(errno));
			goto done;
		}
	}
	/* the lock's mtime says when the tree was last used */
	futimens(r->lock_fd, NULL);
done:
	pr_buf_release(&path);
	return err;
}

/* src: a clean checkout of the base, made or reset. */
static int clean_worktree(struct pr_kci_run *r, bool *made)
{
	struct pr_buf dotgit = PR_BUF_INIT;
	struct pr_proc_result res;
	struct stat st;
	int err;

	pr_buf_addf(&dotgit, "%s/.git", r->src.ptr);
	*made = stat(dotgit.ptr, &st) != 0;
	if (*made) {
		const char *prune[] = { "worktree", "prune", NULL };
		const char *add[] = { "worktree", "add",      "--detach",
				      "--force",  r->src.ptr, r->base,
				      NULL };

		rm_rf(r->src.ptr);
		if (!(err = git_ok(NULL, r, r->c->kernel_tree, prune)))
			err = git_ok(NULL, r, r->c->kernel_tree, add);
		goto done;
	}
	{
		const char *abort_am[] = { "am", "--abort", NULL };
		const char *reset[] = { "reset", "-q", "--hard", r->base,
					NULL };
		const char *clean[] = { "clean", "-q", "-f", "-d", "-x", NULL };

		/* a run killed while applying left an am session */
		if ((err = git(&res, NULL, r, r->src.ptr, abort_am, NULL)))
			goto done;
		if (!(err = git_ok(NULL, r, r->src.ptr, reset)))
			err = git_ok(NULL, r, r->src.ptr, clean);
	}
done:
	pr_buf_release(&dotgit);
	return err;
}

/* The lines of git am's output that say why, for the message. */
static void why_not(struct pr_buf *out, const char *am)
{
	const char *p = am;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (!strncmp(p, "error: ", 7) && !out->len)
			pr_buf_add(out, p, n);
		p += n;
		if (*p)
			p++;
	}
	if (!out->len)
		pr_buf_adds(out, "git am refused it");
}

static int apply(struct pr_kci_run *r, const struct pr_version *v)
{
	const char *am[] = { "am", "-q", NULL };
	const char *abort_am[] = { "am", "--abort", NULL };
	const char *head[] = { "rev-parse", "HEAD", NULL };
	struct pr_buf mail = PR_BUF_INIT, out = PR_BUF_INIT, why = PR_BUF_INIT;
	struct pr_proc_result res;
	size_t i;
	int err = 0;

	for (i = 0; i < v->nr && !err; i++) {
		const struct pr_patch *p = v->patches[i];

		pr_buf_reset(&mail);
		pr_buf_reset(&out);
		if ((err = pr_am_write_patch(&mail, p, (int)i + 1, (int)v->nr,
					     NULL)) ||
		    (err = git(&res, &out, r, r->src.ptr, am, &mail)))
			break;
		if (!res.status)
			continue;
		why_not(&why, out.ptr);
		pr_buf_addf(&out, "(logs: %s)\n", r->log_dir.ptr);
		pr_report_add(r->report, r->step, "apply", PR_VERDICT_FAIL,
			      (int)i, out.ptr,
			      "patch %zu/%zu '%s' does not apply on %.12s: %s",
			      i + 1, v->nr, p->subject ? p->subject : "",
			      r->base, why.ptr);
		err = git(&res, NULL, r, r->src.ptr, abort_am, NULL);
		if (!err)
			err = 1;
	}
	if (!err) {
		pr_buf_reset(&out);
		if (!(err = git_ok(&out, r, r->src.ptr, head))) {
			pr_buf_rtrim(&out);
			memcpy(r->patched, out.ptr,
			       out.len < 40 ? out.len : 40);
			r->patched[40] = '\0';
		}
	}
	pr_buf_release(&mail);
	pr_buf_release(&out);
	pr_buf_release(&why);
	return err;
}

int pr_kci_apply(struct pr_kci_run *r, const struct pr_version *v)
{
	int64_t start = pr_proc_now_ms();
	struct pr_buf msg = PR_BUF_INIT, logs = PR_BUF_INIT;
	bool made = false;
	int err;

	if ((err = find_base(r, v)))
		goto done;
	pr_buf_addf(&r->key_dir, "%s/", r->build_dir.ptr);
	tree_key(&r->key_dir, r);
	pr_buf_addf(&r->src, "%s/src", r->key_dir.ptr);
	pr_buf_addf(&r->obj, "%s/obj", r->key_dir.ptr);
	if ((err = mkdir_p(r->key_dir.ptr)) || (err = lock_tree(r)) ||
	    (err = clean_worktree(r, &made)))
		goto done;
	if ((err = apply(r, v)))
		goto done;
	pr_buf_addf(&msg, "%zu patch%s applied with git am on %.12s", v->nr,
		    v->nr == 1 ? "" : "es", r->base);
	if (r->base_guessed && r->named[0])
		pr_buf_addf(&msg,
			    " (the tree's HEAD: it lacks the base "
			    "%.12s the series names)",
			    r->named);
	else if (r->base_guessed)
		pr_buf_adds(&msg, " (the tree's HEAD: the series names no "
				  "base)");
	pr_buf_adds(&msg, made ? ", in a new worktree, in " : " in ");
	pr_kci_add_secs(&msg, pr_proc_now_ms() - start);
	pr_buf_reset(&logs);
	pr_buf_addf(&logs, "(logs: %s)\n", r->log_dir.ptr);
	pr_report_add(r->report, r->step, "apply",
		      r->base_guessed && r->named[0] ? PR_VERDICT_WARN
						     : PR_VERDICT_PASS,
		      -1, logs.ptr, "%s", msg.ptr);
done:
	pr_buf_release(&msg);
	pr_buf_release(&logs);
	return err;
}

int pr_kci_checkout(const struct pr_kci_run *r, const char *rev)
{
	const char *args[] = { "checkout", "-q", "--detach", rev, NULL };

	return git_ok(NULL, r, r->src.ptr, args);
}

struct tree_age {
	char *name;
	time_t used;
};

static int by_age(const void *a, const void *b)
{
	const struct tree_age *x = a, *y = b;

	return x->used < y->used ? 1 : x->used > y->used ? -1 : 0;
}

static bool is_key(const char *name)
{
	return strlen(name) == 21 && strspn(name, "0123456789abcdef") == 12 &&
	       name[12] == '-' && strspn(name + 13, "0123456789abcdef") == 8;
}

/* Trees past the `keep` most recently used, each when nobody uses it. */
static void prune(struct pr_kci_run *r)
{
	struct tree_age *t = NULL;
	size_t nr = 0, alloc = 0, i;
	struct dirent *de;
	DIR *d = opendir(r->build_dir.ptr);
	bool removed = false;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct pr_buf lock = PR_BUF_INIT;
		struct stat st;

		if (!is_key(de->d_name))
			continue;
		pr_buf_addf(&lock, "%s/%s/lock", r->build_dir.ptr, de->d_name);
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 8;
			t = pr_reallocarray(t, alloc, sizeof(*t));
		}
		t[nr].name = pr_strdup(de->d_name);
		t[nr++].used = stat(lock.ptr, &st) ? 0 : st.st_mtime;
		pr_buf_release(&lock);
	}
	closedir(d);
	if (nr)
		qsort(t, nr, sizeof(*t), by_age);
	for (i = 0; i < nr; i++) {
		struct pr_buf dir = PR_BUF_INIT, lock = PR_BUF_INIT;
		int fd;

		if ((int64_t)i >= r->c->keep) {
			pr_buf_addf(&dir, "%s/%s", r->build_dir.ptr, t[i].name);
			pr_buf_addf(&lock, "%s/lock", dir.ptr);
			fd = open(lock.ptr, O_RDWR | O_CLOEXEC);
			if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB)) {
				pr_log_debug(r->inst->prefix,
					     "%s: removing the least recently "
					     "used tree '%s'",
					     r->step, dir.ptr);
				rm_rf(dir.ptr);
				removed = true;
			}
			if (fd >= 0)
				close(fd);
		}
		free(t[i].name);
		pr_buf_release(&dir);
		pr_buf_release(&lock);
	}
	free(t);
	if (removed) {
		const char *args[] = { "worktree", "prune", NULL };

		git_ok(NULL, r, r->c->kernel_tree, args);
	}
}

void pr_kci_release(struct pr_kci_run *r)
{
	if (r->lock_fd >= 0) {
		close(r->lock_fd);
		r->lock_fd = -1;
	}
	if (r->build_dir.len && r->c->keep > 0)
		prune(r);
}
