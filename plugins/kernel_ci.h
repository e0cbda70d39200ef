#ifndef PR_KERNEL_CI_H
#define PR_KERNEL_CI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "model/model.h"
#include "model/report.h"
#include "engine/registry.h"
#include "exec_proc.h"

/*
 * kernel-ci: a version applied with `git am` to a clean worktree of a
 * kernel tree at its base, built out of tree (tinyconfig plus a fragment),
 * and booted under QEMU into an initramfs whose init prints a marker.
 * One file per concept:
 *   kernel_ci.c            the plugin: options and the stages in order
 *   kernel_ci_tree.c       the build directory, locks, worktrees, git am
 *   kernel_ci_build.c      the configuration and make, the base's build
 *   kernel_ci_boot.c       the initramfs and QEMU
 *   kernel_ci_log.c        reading a build log and a console (parsers)
 *   kernel_ci_handoff.c    the same asked of a GitLab pipeline or a
 *                          GitHub Actions workflow instead
 *
 * Nothing is ever loaded into the running kernel: every command is an
 * ordinary process (git, make, qemu-system-x86_64 without KVM).
 */

/* The instance's options (one per key of the table in kernel_ci.c). */
struct pr_kci_ctx {
	char *kernel_tree; /* a git repository of the kernel */
	char *config; /* a fragment; NULL: the built-in one */
	char *initramfs; /* a cpio; NULL: built from busybox at first use */
	char *busybox; /* the static busybox for that cpio */
	char *marker; /* what init prints once it runs */
	char *build_dir; /* NULL: <state dir>/kernel-ci or the cache dir */
	int64_t timeout; /* the build stage, ms */
	int64_t boot_timeout; /* ms */
	int64_t jobs; /* make -j; 0: the CPUs online */
	bool ccache;
	uint64_t output_cap; /* of each stage's log file */
	int64_t progress; /* ms between progress lines; 0: none */
	int64_t memory; /* MiB of the guest */
	int64_t keep; /* base trees kept in the build directory */
	char *make, *qemu; /* the commands */
	/* the hand-off to a CI engine (kernel_ci_handoff.c) */
	char *run_on; /* "local", "gitlab-pipeline", "github-workflow" */
	char *ci_api_url, *ci_project, *ci_ref, *ci_workflow;
	char *ci_trigger_token, *ci_token; /* secrets */
	int64_t ci_timeout, ci_poll; /* ms */
};

/* The built-in configuration fragment. */
extern const char pr_kci_default_config[];

/*
 * One run of the check on one version: where things are, and the report
 * its stages write to.  Paths are absolute.
 */
struct pr_kci_run {
	const struct pr_instance *inst;
	const struct pr_kci_ctx *c;
	struct pr_report *report;
	const char *step; /* the report's step name */
	struct pr_buf build_dir; /* the build directory */
	struct pr_buf key_dir; /* <build-dir>/<base12>-<config8> */
	struct pr_buf src, obj; /* the worktree and the object tree */
	struct pr_buf log_dir; /* this run's logs */
	struct pr_buf fragment; /* the configuration fragment's text */
	char base[41], patched[41];
	char named[41]; /* the base the series names, "" when none */
	bool base_guessed; /* none the tree has: its HEAD */
	int lock_fd;
	int jobs;
};

/*
 * Run argv for a stage: output appended to the log file `log` (a path,
 * capped by output-cap), the first `keep` bytes also to *out (NULL: none),
 * progress lines to the log every `progress` ms.  The environment is ours
 * in the C locale, without GIT_DIR and friends, with `env` added (NULL:
 * nothing).  Returns 0 when the command ran (its status in *res), else a
 * negative PR_E*.
 */
int pr_kci_cmd(struct pr_proc_result *res, struct pr_buf *out, size_t keep,
	       const struct pr_kci_run *r, const char *stage, const char *log,
	       const char *const *argv, const char *const *env,
	       int64_t timeout_ms, const struct pr_buf *input);
/* "<log_dir>/<name>.log" into out (reset first). */
void pr_kci_log_path(struct pr_buf *out, const struct pr_kci_run *r,
		     const char *name);
/* The last `lines` lines of file `path` (at most 64 KiB read), into out. */
int pr_kci_tail(struct pr_buf *out, const char *path, size_t lines);
/* "12.3 s" */
void pr_kci_add_secs(struct pr_buf *out, int64_t ms);

/* kernel_ci_tree.c */
/*
 * The base the version names: its base_commit, else a "base-commit: <40
 * hex>" line (git format-patch --base) in a patch or the cover; "" when
 * none.
 */
void pr_kci_named_base(char out[41], const struct pr_version *v);
/* build_dir resolved and created, log_dir made for this run. */
int pr_kci_dirs(struct pr_kci_run *r, const struct pr_series *s,
		const struct pr_version *v);
/*
 * The base resolved, key_dir locked, src a clean worktree at the base with
 * the version applied (r->patched).  A patch that does not apply is a FAIL
 * entry and returns 1; 0 when all applied; negative on errors.
 */
int pr_kci_apply(struct pr_kci_run *r, const struct pr_version *v);
/* git checkout --detach `rev` in src (the base, then back to the patch). */
int pr_kci_checkout(const struct pr_kci_run *r, const char *rev);
/* Unlock key_dir and drop the least recently used trees past `keep`. */
void pr_kci_release(struct pr_kci_run *r);

/* kernel_ci_build.c */
/*
 * The object tree of the base, built once per base and fragment (the
 * warnings it printed kept beside it); then the version's configuration
 * and build.  Returns 1 when a stage failed (its FAIL entry added), 0 when
 * there is a bzImage, negative on errors.
 */
int pr_kci_build(struct pr_kci_run *r);

/* kernel_ci_boot.c */
/* Boot the bzImage of obj; adds the boot entry. */
int pr_kci_boot(struct pr_kci_run *r);
/*
 * Append a newc cpio entry (mtime 0, owner root) to out: a directory,
 * a regular file with `data`, or a character device (rdev major, minor).
 */
int pr_kci_cpio_add(struct pr_buf *out, uint32_t ino, const char *name,
		    uint32_t mode, uint32_t rmajor, uint32_t rminor,
		    const void *data, size_t len);
/* The TRAILER!!! entry that ends an archive. */
int pr_kci_cpio_end(struct pr_buf *out);
/*
 * The initramfs of the default recipe into out: /init a busybox shell
 * script that prints `marker`, then the kernel's release, then reboots
 * (-no-reboot ends QEMU); /bin/busybox the file `busybox`; /dev/console.
 */
int pr_kci_initramfs(struct pr_buf *out, const char *busybox,
		     const char *marker);

/* kernel_ci_handoff.c */
/*
 * Run the version on the CI engine of run-on instead of here: trigger,
 * wait up to ci-timeout (then cancel), and add its result and each job's
 * as entries.  Negative when the engine could not be asked.
 */
int pr_kci_handoff(struct pr_kci_run *r, const struct pr_series *s,
		   const struct pr_version *v);

/* kernel_ci_log.c: what a build log and a console say. */
struct pr_kci_finding {
	char *key; /* a warning without its line and column: for "new" */
	char *quote; /* the line with its context, as printed */
};

struct pr_kci_findings {
	struct pr_kci_finding *items;
	size_t nr, alloc;
	size_t more; /* found past the cap, not kept */
};

void pr_kci_findings_release(struct pr_kci_findings *f);

/*
 * A build log: compiler, assembler and linker errors and the failing make
 * targets into *errors, warnings into *warnings (each key once), each with
 * its gcc context (the "In function" line before, the caret lines after).
 * At most `cap` of each are kept.
 */
void pr_kci_build_scan(struct pr_kci_findings *errors,
		       struct pr_kci_findings *warnings, const char *log,
		       size_t len, size_t cap);
/* A warning's key: the line without "LINE:COL:" after the file name. */
void pr_kci_warning_key(struct pr_buf *out, const char *line, size_t len);

enum pr_kci_boot_state {
	PR_KCI_BOOT_OK = 0, /* the marker, nothing bad */
	PR_KCI_BOOT_WARNING, /* the marker, after a WARNING: */
	PR_KCI_BOOT_NO_MARKER, /* ended without it */
	PR_KCI_BOOT_OOPS, /* BUG:, Oops:, a general protection fault */
	PR_KCI_BOOT_PANIC, /* Kernel panic - not syncing */
};

struct pr_kci_console {
	enum pr_kci_boot_state state;
	char *headline; /* the line that decided it (NULL when OK) */
	struct pr_buf quote; /* the relevant console lines */
	char *marker_line; /* the marker's line, NULL: not seen */
};

/* Read a serial console (CR LF or LF, any bytes) for `marker`. */
void pr_kci_console_scan(struct pr_kci_console *out, const char *text,
			 size_t len, const char *marker);
void pr_kci_console_release(struct pr_kci_console *c);

#endif
