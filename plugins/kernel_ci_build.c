#include "base/pr.h"
#include "kernel_ci.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The configuration and the build (kernel_ci.h).  The object tree of a base
 * is built once, from the base itself: the warnings it printed are kept
 * beside it (obj/.pr-base-warnings, which also says the base was built), so
 * that a version's build, which recompiles only what its patches change,
 * reports as new only the warnings the base did not have.
 */

/* A serial console, 64-bit, printk, an initramfs and its /init script. */
const char pr_kci_default_config[] = "CONFIG_64BIT=y\n"
				     "CONFIG_PRINTK=y\n"
				     "CONFIG_PRINTK_TIME=y\n"
				     "CONFIG_BUG=y\n"
				     "CONFIG_TTY=y\n"
				     "CONFIG_SERIAL_8250=y\n"
				     "CONFIG_SERIAL_8250_CONSOLE=y\n"
				     "CONFIG_BLK_DEV_INITRD=y\n"
				     "CONFIG_BINFMT_ELF=y\n"
				     "CONFIG_BINFMT_SCRIPT=y\n"
				     "CONFIG_PROC_FS=y\n"
				     "CONFIG_SYSFS=y\n";

#define CONFIG_TIMEOUT_MS (10 * 60 * 1000)
#define FINDINGS_CAP 20
#define BASE_WARNINGS ".pr-base-warnings"

/* make -C src O=obj ARCH=x86_64 -jN [CC=ccache gcc] target */
static int make(struct pr_proc_result *res, const struct pr_kci_run *r,
		const char *stage, const char *logname, const char *target,
		int64_t timeout_ms)
{
	struct pr_buf o = PR_BUF_INIT, j = PR_BUF_INIT, log = PR_BUF_INIT;
	struct pr_buf ccache_dir = PR_BUF_INIT;
	const char *argv[16];
	const char *env[] = { "KBUILD_BUILD_USER=patchrelay",
			      "KBUILD_BUILD_HOST=kernel-ci", NULL, NULL };
	size_t n = 0;
	int err;

	pr_buf_addf(&o, "O=%s", r->obj.ptr);
	pr_buf_addf(&j, "-j%d", r->jobs);
	pr_kci_log_path(&log, r, logname);
	argv[n++] = r->c->make;
	argv[n++] = "-C";
	argv[n++] = r->src.ptr;
	argv[n++] = o.ptr;
	argv[n++] = "ARCH=x86_64";
	argv[n++] = j.ptr;
	if (r->c->ccache) {
		argv[n++] = "CC=ccache gcc";
		pr_buf_addf(&ccache_dir, "CCACHE_DIR=%s/ccache",
			    r->build_dir.ptr);
		env[2] = ccache_dir.ptr;
	}
	argv[n++] = target;
	argv[n] = NULL;
	err = pr_kci_cmd(res, NULL, 0, r, stage, log.ptr, argv, env, timeout_ms,
			 NULL);
	pr_buf_release(&o);
	pr_buf_release(&j);
	pr_buf_release(&log);
	pr_buf_release(&ccache_dir);
	return err;
}

/* A stage's command that failed: a FAIL entry with the log's tail. */
static void failed(const struct pr_kci_run *r, const char *rule,
		   const char *logname, const char *what,
		   const struct pr_proc_result *res, int64_t timeout_ms)
{
	struct pr_buf log = PR_BUF_INIT, tail = PR_BUF_INIT;

	pr_kci_log_path(&log, r, logname);
	pr_kci_tail(&tail, log.ptr, 20);
	pr_buf_addf(&tail, "(full log: %s)\n", log.ptr);
	if (res->timed_out)
		pr_report_add(r->report, r->step, rule, PR_VERDICT_FAIL, -1,
			      tail.ptr, "%s did not finish within %lld s", what,
			      (long long)(timeout_ms / 1000));
	else
		pr_report_add(r->report, r->step, rule, PR_VERDICT_FAIL, -1,
			      tail.ptr, "%s failed (status %d)", what,
			      res->status);
	pr_buf_release(&log);
	pr_buf_release(&tail);
}

/*
 * The fragment's settings that .config does not have: "CONFIG_X=v" must be
 * there as written, "# CONFIG_X is not set" must not be set to anything.
 */
static int unmet(struct pr_buf *out, const struct pr_kci_run *r)
{
	struct pr_buf path = PR_BUF_INIT, cfg = PR_BUF_INIT;
	const char *p = r->fragment.ptr;
	int err;

	pr_buf_addf(&path, "%s/.config", r->obj.ptr);
	pr_buf_init(&cfg, PR_LIMIT_CONFIG_BYTES);
	if ((err = pr_buf_read_file(&cfg, path.ptr)) < 0)
		goto done;
	err = 0;
	while (*p) {
		size_t n = strcspn(p, "\n"), k;
		struct pr_buf want = PR_BUF_INIT;
		const char *hit;

		if (!strncmp(p, "CONFIG_", 7) && memchr(p, '=', n)) {
			pr_buf_addch(&want, '\n');
			pr_buf_add(&want, p, n);
			pr_buf_addch(&want, '\n');
			hit = strstr(cfg.ptr, want.ptr);
			if (!hit &&
			    strncmp(cfg.ptr, want.ptr + 1, want.len - 1))
				pr_buf_addf(out, "%.*s\n", (int)n, p);
		} else if (!strncmp(p, "# CONFIG_", 9) &&
			   (k = strcspn(p + 2, " \n")) < n - 2) {
			pr_buf_addch(&want, '\n');
			pr_buf_add(&want, p + 2, k);
			pr_buf_addch(&want, '=');
			if (strstr(cfg.ptr, want.ptr) ||
			    !strncmp(cfg.ptr, want.ptr + 1, want.len - 1))
				pr_buf_addf(out, "%.*s\n", (int)n, p);
		}
		pr_buf_release(&want);
		p += n;
		if (*p)
			p++;
	}
done:
	pr_buf_release(&path);
	pr_buf_release(&cfg);
	return err;
}

static int append_fragment(const struct pr_kci_run *r)
{
	struct pr_buf path = PR_BUF_INIT;
	int fd, err = 0;

	pr_buf_addf(&path, "%s/.config", r->obj.ptr);
	fd = open(path.ptr, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0 || pr_write_all(fd, "\n", 1) ||
	    pr_write_all(fd, r->fragment.ptr, r->fragment.len))
		err = pr_error(PR_EIO, "cannot append to '%s': %s", path.ptr,
			       strerror(errno));
	if (fd >= 0)
		close(fd);
	pr_buf_release(&path);
	return err;
}

/* Drop every "<dir>/" from text. */
static void strip_dir(struct pr_buf *text, const char *dir)
{
	struct pr_buf prefix = PR_BUF_INIT;
	char *w = text->ptr, *p = text->ptr, *hit;

	if (pr_buf_addf(&prefix, "%s/", dir))
		return;
	while ((hit = strstr(p, prefix.ptr))) {
		memmove(w, p, (size_t)(hit - p));
		w += hit - p;
		p = hit + prefix.len;
	}
	memmove(w, p, strlen(p) + 1);
	pr_buf_setlen(text, (size_t)(w - text->ptr) + strlen(w));
	pr_buf_release(&prefix);
}

/*
 * Paths as the tree names them: "<src>/init/main.c" as "init/main.c".
 * make resolves the source directory's symbolic links (a state directory
 * behind a link), so gcc may name it by its real path as well.
 */
static void strip_src(struct pr_buf *text, const struct pr_kci_run *r)
{
	char *real = realpath(r->src.ptr, NULL);

	strip_dir(text, r->src.ptr);
	if (real && strcmp(real, r->src.ptr))
		strip_dir(text, real);
	free(real);
}

/* Read a log back (up to output-cap) and scan it. */
static int scan_log(struct pr_kci_findings *errors,
		    struct pr_kci_findings *warnings,
		    const struct pr_kci_run *r, const char *logname)
{
	struct pr_buf log = PR_BUF_INIT, text = PR_BUF_INIT;
	int err;

	pr_kci_log_path(&log, r, logname);
	pr_buf_init(&text, r->c->output_cap + 4096);
	err = pr_buf_read_file(&text, log.ptr);
	if (err >= 0 && text.len) {
		err = 0;
		strip_src(&text, r);
		pr_kci_build_scan(errors, warnings, text.ptr, text.len,
				  FINDINGS_CAP);
	}
	pr_buf_release(&log);
	pr_buf_release(&text);
	return err;
}

static void quote_findings(struct pr_buf *out, const struct pr_kci_findings *f,
			   const char *noun)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		pr_buf_adds(out, f->items[i].quote);
	if (f->more)
		pr_buf_addf(out, "[... %zu more %s ...]\n", f->more, noun);
}

/* The base's object tree: built once, its warnings written beside it. */
static int build_base(const struct pr_kci_run *r, int64_t *ms)
{
	struct pr_kci_findings errors = { 0 }, warnings = { 0 };
	struct pr_buf path = PR_BUF_INIT, keys = PR_BUF_INIT;
	struct pr_buf detail = PR_BUF_INIT, tmp = PR_BUF_INIT;
	struct pr_proc_result res;
	int64_t start = pr_proc_now_ms();
	struct stat st;
	size_t i;
	int err = 0;

	*ms = 0;
	pr_buf_addf(&path, "%s/" BASE_WARNINGS, r->obj.ptr);
	if (!stat(path.ptr, &st))
		goto done;
	pr_log_debug(r->inst->prefix,
		     "%s: building the base %.12s first (its object tree "
		     "serves every version on it)",
		     r->step, r->base);
	/* a tree half built, or of another make, starts again */
	if ((err = pr_kci_checkout(r, r->base)))
		goto done;
	pr_buf_addf(&tmp, "%s", r->obj.ptr);
	if (mkdir(tmp.ptr, 0755) && errno != EEXIST) {
		err = pr_error(PR_EIO, "cannot create '%s': %s", tmp.ptr,
			       strerror(errno));
		goto done;
	}
	if ((err = make(&res, r, "base config", "base-config", "tinyconfig",
			CONFIG_TIMEOUT_MS)))
		goto done;
	if (res.status || res.timed_out) {
		failed(r, "base", "base-config", "make tinyconfig of the base",
		       &res, CONFIG_TIMEOUT_MS);
		err = 1;
		goto done;
	}
	if ((err = append_fragment(r)) ||
	    (err = make(&res, r, "base config", "base-config", "olddefconfig",
			CONFIG_TIMEOUT_MS)))
		goto done;
	if (res.status || res.timed_out) {
		failed(r, "base", "base-config",
		       "make olddefconfig of the base", &res,
		       CONFIG_TIMEOUT_MS);
		err = 1;
		goto done;
	}
	if ((err = make(&res, r, "base build", "base-build", "bzImage",
			r->c->timeout)) ||
	    (err = scan_log(&errors, &warnings, r, "base-build")))
		goto done;
	if (res.status || res.timed_out) {
		quote_findings(&detail, &errors, "errors");
		pr_kci_log_path(&tmp, r, "base-build");
		pr_buf_addf(&detail, "(full log: %s)\n", tmp.ptr);
		pr_report_add(r->report, r->step, "base", PR_VERDICT_FAIL, -1,
			      detail.ptr,
			      "the base %.12s itself does not build with this "
			      "configuration (%s): nothing of the series was "
			      "tested",
			      r->base,
			      res.timed_out ? "timeout" : "make failed");
		err = 1;
		goto done;
	}
	for (i = 0; i < warnings.nr; i++)
		pr_buf_addf(&keys, "%s\n", warnings.items[i].key);
	pr_buf_reset(&tmp);
	pr_buf_addf(&tmp, "%s.tmp", path.ptr);
	{
		int fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0644);

		if (fd < 0 || pr_write_all(fd, keys.ptr, keys.len) ||
		    close(fd) || rename(tmp.ptr, path.ptr))
			err = pr_error(PR_EIO, "cannot write '%s': %s",
				       path.ptr, strerror(errno));
	}
	*ms = pr_proc_now_ms() - start;
	if (!err)
		err = pr_kci_checkout(r, r->patched);
done:
	pr_kci_findings_release(&errors);
	pr_kci_findings_release(&warnings);
	pr_buf_release(&path);
	pr_buf_release(&keys);
	pr_buf_release(&detail);
	pr_buf_release(&tmp);
	return err;
}

static int configure(const struct pr_kci_run *r)
{
	struct pr_buf missing = PR_BUF_INIT;
	struct pr_proc_result res;
	int64_t start = pr_proc_now_ms();
	int err;

	if ((err = make(&res, r, "config", "config", "olddefconfig",
			CONFIG_TIMEOUT_MS)))
		goto done;
	if (res.status || res.timed_out) {
		failed(r, "config", "config", "make olddefconfig", &res,
		       CONFIG_TIMEOUT_MS);
		err = 1;
		goto done;
	}
	if ((err = unmet(&missing, r)))
		goto done;
	if (missing.len)
		pr_report_add(r->report, r->step, "config", PR_VERDICT_WARN, -1,
			      missing.ptr,
			      "tinyconfig with the fragment: .config lacks "
			      "some of the fragment's settings (a dependency "
			      "is not met)");
	else
		pr_report_add(r->report, r->step, "config", PR_VERDICT_PASS, -1,
			      NULL,
			      "tinyconfig with the fragment, olddefconfig: "
			      "%.1f s",
			      (double)(pr_proc_now_ms() - start) / 1000.0);
done:
	pr_buf_release(&missing);
	return err;
}

/* The warnings of `all` that the base's build did not print. */
static int new_warnings(struct pr_kci_findings *out,
			const struct pr_kci_findings *all,
			const struct pr_kci_run *r)
{
	struct pr_buf path = PR_BUF_INIT, base = PR_BUF_INIT;
	struct pr_buf want = PR_BUF_INIT;
	size_t i;
	int err;

	pr_buf_addf(&path, "%s/" BASE_WARNINGS, r->obj.ptr);
	pr_buf_addch(&base, '\n');
	if ((err = pr_buf_read_file(&base, path.ptr)) < 0)
		goto done;
	err = 0;
	for (i = 0; i < all->nr; i++) {
		pr_buf_reset(&want);
		pr_buf_addf(&want, "\n%s\n", all->items[i].key);
		if (strstr(base.ptr, want.ptr))
			continue;
		if (out->nr == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 8;
			out->items = pr_reallocarray(out->items, out->alloc,
						     sizeof(*out->items));
		}
		out->items[out->nr].key = pr_strdup(all->items[i].key);
		out->items[out->nr++].quote = pr_strdup(all->items[i].quote);
	}
done:
	pr_buf_release(&path);
	pr_buf_release(&base);
	pr_buf_release(&want);
	return err;
}

static int build(const struct pr_kci_run *r, int64_t base_ms)
{
	struct pr_kci_findings errors = { 0 }, warnings = { 0 }, fresh = { 0 };
	struct pr_buf detail = PR_BUF_INIT, log = PR_BUF_INIT;
	struct pr_buf how = PR_BUF_INIT;
	struct pr_proc_result res;
	int err;

	pr_kci_log_path(&log, r, "build");
	if ((err = make(&res, r, "build", "build", "bzImage", r->c->timeout)) ||
	    (err = scan_log(&errors, &warnings, r, "build")) ||
	    (err = new_warnings(&fresh, &warnings, r)))
		goto done;
	if (base_ms)
		pr_buf_addf(&how,
			    "the base's object tree built first in "
			    "%.1f s, then ",
			    (double)base_ms / 1000.0);
	else
		pr_buf_adds(&how, "incremental on the base's object tree: ");
	if (res.timed_out) {
		failed(r, "build", "build", "the build", &res, r->c->timeout);
		err = 1;
		goto done;
	}
	if (res.status) {
		quote_findings(&detail, &errors, "errors");
		if (!errors.nr)
			pr_kci_tail(&detail, log.ptr, 20);
		pr_buf_addf(&detail, "(full log: %s)\n", log.ptr);
		pr_report_add(r->report, r->step, "build", PR_VERDICT_FAIL, -1,
			      detail.ptr, "the build failed (%s%.1f s): %s",
			      how.ptr, (double)res.elapsed_ms / 1000.0,
			      errors.nr ? errors.items[0].key : "make failed");
		err = 1;
		goto done;
	}
	if (fresh.nr) {
		quote_findings(&detail, &fresh, "warnings");
		pr_buf_addf(&detail, "(full log: %s)\n", log.ptr);
		pr_report_add(r->report, r->step, "build", PR_VERDICT_WARN, -1,
			      detail.ptr,
			      "bzImage built (%s%.1f s) with %zu new warning%s",
			      how.ptr, (double)res.elapsed_ms / 1000.0,
			      fresh.nr, fresh.nr == 1 ? "" : "s");
		goto done;
	}
	pr_kci_tail(&detail, log.ptr, 3);
	pr_buf_addf(&detail, "(full log: %s)\n", log.ptr);
	pr_report_add(r->report, r->step, "build", PR_VERDICT_PASS, -1,
		      detail.ptr, "bzImage built (%s%.1f s), no new warnings",
		      how.ptr, (double)res.elapsed_ms / 1000.0);
done:
	pr_kci_findings_release(&errors);
	pr_kci_findings_release(&warnings);
	pr_kci_findings_release(&fresh);
	pr_buf_release(&detail);
	pr_buf_release(&log);
	pr_buf_release(&how);
	return err;
}

int pr_kci_build(struct pr_kci_run *r)
{
	int64_t base_ms = 0;
	int err;

	if ((err = build_base(r, &base_ms)) || (err = configure(r)))
		return err;
	return build(r, base_ms);
}
