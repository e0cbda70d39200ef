#include "base/pr.h"
#include "kernel_ci.h"
#include "plugins.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * kernel-ci: apply, build, boot (kernel_ci.h has the map of its files).
 * The stages run in order and each adds its entry, with its time, to the
 * report: apply (git am on a clean worktree at the base; a patch that does
 * not apply stops here, nothing built), config (tinyconfig with the
 * fragment, olddefconfig), build (make bzImage: errors and new warnings
 * picked out), boot (QEMU to the marker).  Every command has a timeout and
 * a capped log under the run's log directory.
 */

static const char *const run_on_choices[] = { "local", "gitlab-pipeline",
					      "github-workflow", NULL };

static const struct pr_option kci_options[] = {
	{ "kernel-tree", PR_OPT_PATH, NULL,
	  "a git repository of the kernel; versions are applied to worktrees "
	  "of it (required to run here)",
	  offsetof(struct pr_kci_ctx, kernel_tree), false, NULL },
	{ "config", PR_OPT_PATH, NULL,
	  "a configuration fragment added to tinyconfig (default: a serial "
	  "console, 64-bit, printk and an initramfs)",
	  offsetof(struct pr_kci_ctx, config), false, NULL },
	{ "initramfs", PR_OPT_PATH, NULL,
	  "a cpio whose init prints the marker (default: one made from "
	  "busybox at first use)",
	  offsetof(struct pr_kci_ctx, initramfs), false, NULL },
	{ "busybox", PR_OPT_PATH, "/bin/busybox",
	  "the static busybox of the default initramfs (busybox-static)",
	  offsetof(struct pr_kci_ctx, busybox), false, NULL },
	{ "marker", PR_OPT_STRING, "patchrelay-kernel-ci: init is running",
	  "the line init prints once it runs; the boot passes only with it",
	  offsetof(struct pr_kci_ctx, marker), false, NULL },
	{ "build-dir", PR_OPT_PATH, NULL,
	  "worktrees, object trees and the initramfs (default: kernel-ci in "
	  "the state directory, else ~/.cache/patchrelay/kernel-ci)",
	  offsetof(struct pr_kci_ctx, build_dir), false, NULL },
	{ "timeout", PR_OPT_DURATION, "60m", "the build's timeout",
	  offsetof(struct pr_kci_ctx, timeout), false, NULL },
	{ "boot-timeout", PR_OPT_DURATION, "5m",
	  "the boot's timeout: no marker by then is a hang",
	  offsetof(struct pr_kci_ctx, boot_timeout), false, NULL },
	{ "jobs", PR_OPT_INT, "0", "make -j (0: the CPUs online)",
	  offsetof(struct pr_kci_ctx, jobs), false, NULL },
	{ "ccache", PR_OPT_BOOL, "false",
	  "compile through ccache (its cache in the build directory)",
	  offsetof(struct pr_kci_ctx, ccache), false, NULL },
	{ "output-cap", PR_OPT_SIZE, "64M", "the most kept of a stage's log",
	  offsetof(struct pr_kci_ctx, output_cap), false, NULL },
	{ "progress", PR_OPT_DURATION, "60s",
	  "a progress line this often while a stage runs (0: none)",
	  offsetof(struct pr_kci_ctx, progress), false, NULL },
	{ "memory", PR_OPT_INT, "256", "the guest's memory in MiB",
	  offsetof(struct pr_kci_ctx, memory), false, NULL },
	{ "keep", PR_OPT_INT, "4",
	  "base trees kept in the build directory (the least recently used "
	  "go)",
	  offsetof(struct pr_kci_ctx, keep), false, NULL },
	{ "make", PR_OPT_STRING, "make", "the make command",
	  offsetof(struct pr_kci_ctx, make), false, NULL },
	{ "qemu", PR_OPT_STRING, "qemu-system-x86_64", "the QEMU command",
	  offsetof(struct pr_kci_ctx, qemu), false, NULL },
	{ "run-on", PR_OPT_ENUM, "local",
	  "where the version is built and booted: here, or handed to the "
	  "project's CI",
	  offsetof(struct pr_kci_ctx, run_on), false, run_on_choices },
	{ "ci-api-url", PR_OPT_STRING, NULL,
	  "the CI's API: https://gitlab.example.org/api/v4, "
	  "https://api.github.com",
	  offsetof(struct pr_kci_ctx, ci_api_url), false, NULL },
	{ "ci-project", PR_OPT_STRING, NULL,
	  "the GitLab project (group/name or id) or GitHub owner/repo",
	  offsetof(struct pr_kci_ctx, ci_project), false, NULL },
	{ "ci-ref", PR_OPT_STRING, "main",
	  "the branch the pipeline or workflow runs on",
	  offsetof(struct pr_kci_ctx, ci_ref), false, NULL },
	{ "ci-workflow", PR_OPT_STRING, NULL,
	  "GitHub: the workflow file (kernel-ci.yml) or id",
	  offsetof(struct pr_kci_ctx, ci_workflow), false, NULL },
	{ "ci-trigger-token", PR_OPT_SECRET, NULL,
	  "GitLab: the pipeline trigger token",
	  offsetof(struct pr_kci_ctx, ci_trigger_token), false, NULL },
	{ "ci-token", PR_OPT_SECRET, NULL,
	  "the API token that reads the run (GitLab) or also starts it "
	  "(GitHub)",
	  offsetof(struct pr_kci_ctx, ci_token), false, NULL },
	{ "ci-timeout", PR_OPT_DURATION, "90m",
	  "a run not finished by then is cancelled and fails",
	  offsetof(struct pr_kci_ctx, ci_timeout), false, NULL },
	{ "ci-poll", PR_OPT_DURATION, "30s", "how often the run is asked",
	  offsetof(struct pr_kci_ctx, ci_poll), false, NULL },
	PR_OPTIONS_END,
};

void pr_kci_log_path(struct pr_buf *out, const struct pr_kci_run *r,
		     const char *name)
{
	pr_buf_reset(out);
	pr_buf_addf(out, "%s/%s.log", r->log_dir.ptr, name);
}

void pr_kci_add_secs(struct pr_buf *out, int64_t ms)
{
	pr_buf_addf(out, "%.1f s", (double)ms / 1000.0);
}

int pr_kci_tail(struct pr_buf *out, const char *path, size_t lines)
{
	char chunk[65536];
	ssize_t n;
	off_t size;
	size_t i, start = 0, seen = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return pr_error(PR_EIO, "cannot open '%s': %s", path,
				strerror(errno));
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof(chunk))
		lseek(fd, size - (off_t)sizeof(chunk), SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, chunk, sizeof(chunk));
	close(fd);
	if (n <= 0)
		return 0;
	/* back from the end over `lines` line ends (a last one unended) */
	for (i = (size_t)n; i > 0; i--)
		if (chunk[i - 1] == '\n' && i != (size_t)n && ++seen == lines) {
			start = i;
			break;
		}
	for (i = start; i < (size_t)n; i++)
		pr_buf_addch(out, chunk[i] == '\r' ? '\n'
				  : (unsigned char)chunk[i] >= 0x20 ||
						  chunk[i] == '\n' ||
						  chunk[i] == '\t'
					  ? chunk[i]
					  : '?');
	if (out->len && out->ptr[out->len - 1] != '\n')
		pr_buf_addch(out, '\n');
	return 0;
}

struct tick {
	const struct pr_kci_run *r;
	const char *stage;
};

static void on_progress(const struct pr_proc_progress *p, void *payload)
{
	const struct tick *t = payload;

	pr_log_info(t->r->inst->prefix,
		    "%s: %s running for %lld s, %llu lines of output",
		    t->r->step, t->stage, (long long)(p->elapsed_ms / 1000),
		    (unsigned long long)p->lines);
}

int pr_kci_cmd(struct pr_proc_result *res, struct pr_buf *out, size_t keep,
	       const struct pr_kci_run *r, const char *stage, const char *log,
	       const char *const *argv, const char *const *env,
	       int64_t timeout_ms, const struct pr_buf *input)
{
	const char *all[16] = { "LC_ALL=C",
				"GIT_DIR",
				"GIT_WORK_TREE",
				"GIT_INDEX_FILE",
				"GIT_COMMITTER_NAME=patchrelay",
				"GIT_COMMITTER_EMAIL=patchrelay@localhost" };
	size_t nr_env = 6;
	struct tick t = { r, stage };
	struct pr_buf line = PR_BUF_INIT;
	struct pr_proc p;
	size_t i;
	int err, fd;

	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return pr_error(PR_EIO, "cannot open '%s': %s", log,
				strerror(errno));
	pr_buf_adds(&line, "$");
	for (i = 0; argv[i]; i++)
		pr_buf_addf(&line, " %s", argv[i]);
	pr_buf_addch(&line, '\n');
	pr_write_all(fd, line.ptr, line.len);
	pr_proc_init(&p);
	p.argv = argv;
	for (i = 0; env && env[i] && nr_env + 1 < PR_ARRAY_SIZE(all); i++)
		all[nr_env++] = env[i];
	p.env = all;
	p.input = input;
	p.timeout_ms = timeout_ms;
	p.output_cap = keep;
	p.log_fd = fd;
	p.log_cap = r->c->output_cap;
	p.progress_ms = r->c->progress;
	p.progress = on_progress;
	p.payload = &t;
	err = pr_proc_run(res, out, &p);
	pr_buf_reset(&line);
	if (!err) {
		if (res->log_dropped)
			pr_buf_addf(&line,
				    "[... %llu more bytes left out: "
				    "output-cap ...]\n",
				    (unsigned long long)res->log_dropped);
		pr_buf_addf(&line, "[%s: %s %d after %.1f s]\n", stage,
			    res->timed_out ? "killed at its timeout, status"
					   : "exit status",
			    res->status, (double)res->elapsed_ms / 1000.0);
		pr_write_all(fd, line.ptr, line.len);
	}
	close(fd);
	pr_buf_release(&line);
	return err;
}

/* A hand-off's keys: those its engine needs. */
static int check_handoff(const struct pr_instance *inst)
{
	const struct pr_kci_ctx *c = inst->ctx;
	bool lab = !strcmp(c->run_on, "gitlab-pipeline");
	const char *missing = !c->ci_api_url		    ? "ci-api-url"
			      : !c->ci_project		    ? "ci-project"
			      : !c->ci_token		    ? "ci-token"
			      : lab && !c->ci_trigger_token ? "ci-trigger-token"
			      : !lab && !c->ci_workflow	    ? "ci-workflow"
							    : NULL;

	if (missing)
		return pr_error(PR_ECONFIG, "check '%s': run-on = %s needs %s",
				inst->name, c->run_on, missing);
	if (c->ci_timeout <= 0 || c->ci_poll <= 0)
		return pr_error(PR_ECONFIG,
				"check '%s': ci-timeout and ci-poll must be "
				"over 0",
				inst->name);
	return 0;
}

/* What open() refuses, refused before anything runs. */
static int kci_check_options(const struct pr_instance *inst)
{
	const struct pr_kci_ctx *c = inst->ctx;
	struct stat st;

	if (strcmp(c->run_on, "local"))
		return check_handoff(inst);
	if (!c->kernel_tree)
		return pr_error(PR_ECONFIG,
				"check '%s': no kernel-tree (run-on = local "
				"builds here)",
				inst->name);
	if (stat(c->kernel_tree, &st) || !S_ISDIR(st.st_mode))
		return pr_error(PR_ECONFIG,
				"check '%s': kernel-tree '%s' is not a "
				"directory",
				inst->name, c->kernel_tree);
	if (c->config && stat(c->config, &st))
		return pr_error(PR_ECONFIG, "check '%s': config '%s': %s",
				inst->name, c->config, strerror(errno));
	if (c->initramfs && stat(c->initramfs, &st))
		return pr_error(PR_ECONFIG, "check '%s': initramfs '%s': %s",
				inst->name, c->initramfs, strerror(errno));
	if (!*c->marker || strchr(c->marker, '\'') || strchr(c->marker, '\n'))
		return pr_error(PR_ECONFIG,
				"check '%s': marker '%s' is empty or holds a "
				"quote",
				inst->name, c->marker);
	if (c->jobs < 0 || c->jobs > 1024 || c->memory < 1 ||
	    c->memory > 65536 || c->keep < 0 || c->timeout <= 0 ||
	    c->boot_timeout <= 0 || !c->output_cap)
		return pr_error(PR_ECONFIG,
				"check '%s': jobs 0..1024, memory 1..65536, "
				"keep >= 0, timeouts and output-cap over 0",
				inst->name);
	return 0;
}

static int kci_open(struct pr_instance *inst)
{
	return kci_check_options(inst);
}

static int read_fragment(struct pr_kci_run *r)
{
	int err;

	if (!r->c->config)
		return pr_buf_adds(&r->fragment, pr_kci_default_config);
	pr_buf_init(&r->fragment, PR_LIMIT_CONFIG_BYTES);
	err = pr_buf_read_file(&r->fragment, r->c->config);
	if (err < 0)
		return pr_error_wrap(err, "check '%s': config", r->inst->name);
	if (r->fragment.len && r->fragment.ptr[r->fragment.len - 1] != '\n')
		pr_buf_addch(&r->fragment, '\n');
	return 0;
}

static int kci_run(struct pr_instance *inst, struct pr_series *s,
		   struct pr_version *v, struct pr_report *report)
{
	struct pr_kci_run r;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int err;

	memset(&r, 0, sizeof(r));
	r.inst = inst;
	r.c = inst->ctx;
	r.report = report;
	r.step = inst->name;
	r.lock_fd = -1;
	r.jobs = r.c->jobs ? (int)r.c->jobs : cpus > 0 ? (int)cpus : 1;
	pr_buf_init(&r.build_dir, 0);
	if (!v->nr) {
		pr_report_add(report, r.step, "", PR_VERDICT_SKIP, -1, NULL,
			      "no patch to build");
		return 0;
	}
	if ((err = kci_check_options(inst)))
		goto done;
	if (strcmp(r.c->run_on, "local")) {
		err = pr_kci_handoff(&r, s, v);
		goto done;
	}
	if ((err = read_fragment(&r)) || (err = pr_kci_dirs(&r, s, v)))
		goto done;
	pr_log_debug(inst->prefix, "%s: logs in %s", r.step, r.log_dir.ptr);
	/* each stage returns 1 when it failed the version: stop there */
	if ((err = pr_kci_apply(&r, v)) || (err = pr_kci_build(&r)) ||
	    (err = pr_kci_boot(&r)))
		goto done;
done:
	pr_kci_release(&r);
	pr_buf_release(&r.build_dir);
	pr_buf_release(&r.key_dir);
	pr_buf_release(&r.src);
	pr_buf_release(&r.obj);
	pr_buf_release(&r.log_dir);
	pr_buf_release(&r.fragment);
	return err > 0 ? 0 : err;
}

const struct pr_plugin_type pr_plugin_kernel_ci = {
	.abi = PR_ABI_VERSION,
	.name = "kernel-ci",
	.summary = "apply a version to a kernel tree, build it and boot it "
		   "under QEMU",
	.kind = PR_PLUGIN_CHECK,
	.options = kci_options,
	.ctx_size = sizeof(struct pr_kci_ctx),
	.open = kci_open,
	.run = kci_run,
};
