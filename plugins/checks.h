#ifndef PR_CHECKS_H
#define PR_CHECKS_H

#include "model/model.h"
#include "model/report.h"
#include "plugins.h"

/*
 * The check plugins as plain functions, for direct calls (patchrelay check,
 * unit tests) and for the plugin definitions' run().
 *
 * Invariants: a check never modifies the version it reads; it adds zero or
 * more entries to `r` under the step name `step` and returns 0, or a
 * negative PR_E* code when it could not run at all.  A finding is a verdict
 * in the report, never an error.  Counts come from the diff text and from
 * the diffstat summary line ("N files changed, ..."), taking the larger of
 * the two, so a diff cut short still counts whole.
 */

/* Figures of one version, as size-limit and mass-edit see them. */
struct pr_size_figures {
	uint64_t files, added, removed, bytes, patches, binary;
	uint64_t largest_lines; /* most changed lines in one file */
	char largest_file[256]; /* its path (cut to fit), "" when none */
	int largest_patch; /* 0-based index of the patch holding it */
	uint64_t diff_files; /* files the diff text itself shows */
};

/* Count the figures of v (diff text and diffstat summary lines). */
void pr_size_figures_count(struct pr_size_figures *out,
			   const struct pr_version *v);

/* The limits of `patchrelay check --step size-limit` without options (its
 * step_defaults); a config section without limits has none. */
void pr_size_limit_defaults(struct pr_size_limit_ctx *ctx);
int pr_size_limit_check(struct pr_report *r, const char *step,
			const struct pr_size_limit_ctx *ctx,
			const struct pr_version *v);

struct pr_maint;

/*
 * mass-edit's sections rule: with `maint` set and max_sections > 0, the
 * files a version touches (its diff's "diff --git" paths and its diffstat's
 * paths; a path git shortened with "..." is left out) are matched against
 * MAINTAINERS, and more than max_sections distinct sections, THE REST not
 * counted, is a finding.
 */
struct pr_mass_edit_opts {
	double min_share; /* substitutions must explain this share (0..1) */
	uint64_t min_lines; /* of this many changed line pairs at least */
	uint64_t min_files; /* touching this many files (diff or diffstat) */
	enum pr_verdict severity; /* of a finding: WARN or FAIL */
	const char *const *allow_submitters; /* emails; NULL-terminated */
	uint64_t max_sections; /* 0: sections not counted */
	const struct pr_maint *maint; /* NULL: sections not counted */
};

void pr_mass_edit_defaults(struct pr_mass_edit_opts *o);
int pr_mass_edit_check(struct pr_report *r, const char *step,
		       const struct pr_mass_edit_opts *o,
		       const struct pr_version *v);

/*
 * The smallest substitution s -> t (every occurrence of s replaced by t)
 * turning `old` into `new`; s and t are allocated into *s, *t.  Returns 1
 * when found, 0 when no single substitution explains the pair.
 */
int pr_mass_edit_substitution(char **s, char **t, const char *old,
			      const char *new);

/* "46,294": n with thousands separators, appended to b. */
int pr_buf_add_count(struct pr_buf *b, uint64_t n);

/*
 * msg-lint: commit-message rules.  Each rule has an id, a default severity
 * (a route may change it, or turn it off with PR_VERDICT_SKIP) and a
 * one-line explanation that says how to fix it.  Findings are per patch.
 */
enum pr_msg_lint_rule_id {
	PR_ML_SIGNOFF_MISSING = 0,
	PR_ML_SIGNOFF_AUTHOR_MISMATCH,
	PR_ML_SUBJECT_PREFIX,
	PR_ML_SUBJECT_LENGTH,
	PR_ML_SUBJECT_TRAILING_PERIOD,
	PR_ML_BODY_EMPTY,
	PR_ML_BODY_LINE_LENGTH,
	PR_ML_FIXES_FORMAT,
	PR_ML_LINK_LKML_ORG,
	PR_ML_REPORTED_BY_WITHOUT_CLOSES,
	PR_ML_TRAILER_UNKNOWN,
	PR_ML_CO_DEVELOPED_BY_WITHOUT_SIGNOFF,
	PR_ML_FIXUP_COMMIT,
	PR_ML_MERGE_COMMIT,
	PR_ML_NOREPLY_AUTHOR,
	PR_ML_FIXES_UNKNOWN_COMMIT, /* only with a reference repository */
	PR_ML_NR
};

struct pr_msg_lint_rule {
	const char *id; /* "signoff-missing" */
	enum pr_verdict severity; /* default */
	const char *explain; /* one line, with the fix */
};

/* The rule table, indexed by enum pr_msg_lint_rule_id. */
const struct pr_msg_lint_rule *pr_msg_lint_rules(void);

struct pr_msg_lint_opts {
	enum pr_verdict severity[PR_ML_NR]; /* SKIP: rule off */
	unsigned subject_max; /* 75 */
	unsigned body_max; /* 75 */
	const char *repo; /* reference git repository for Fixes:, or NULL */
};

void pr_msg_lint_defaults(struct pr_msg_lint_opts *o);
/* Set a rule's severity by id ("off", "warn", "fail"). */
int pr_msg_lint_set(struct pr_msg_lint_opts *o, const char *id,
		    const char *severity);
int pr_msg_lint_check(struct pr_report *r, const char *step,
		      const struct pr_msg_lint_opts *o,
		      const struct pr_version *v);

/* run() of the size-limit definition (plugins/size_limit.c). */
int pr_size_limit_run(struct pr_instance *inst, struct pr_series *s,
		      struct pr_version *v, struct pr_report *report);

/* Config contexts of the mass-edit and msg-lint definitions. */
struct pr_mass_edit_ctx {
	int64_t min_lines, min_files, min_share; /* share in percent */
	char *severity; /* "warn" or "fail" */
	struct pr_strlist allow_submitters;
	int64_t max_sections; /* 0: off */
	char *kernel_tree, *maintainers; /* as the maintainers step's */
};

struct pr_msg_lint_ctx {
	int64_t subject_max, body_max;
	char *severity[PR_ML_NR]; /* "off", "warn", "fail"; NULL: default */
	char *repo; /* reference repository, NULL: none */
};

extern const struct pr_plugin_type pr_plugin_mass_edit;
extern const struct pr_plugin_type pr_plugin_msg_lint;

/*
 * exec: run an external command (argv[0] looked up in PATH, no shell) per
 * patch or per series, the mbox on standard input, PR_PATCH_INDEX (1-based,
 * 0 for the series), PR_PATCH_TOTAL and PR_SUBJECT in the environment.
 * Exit 0 passes, a status in warn_status warns, anything else fails; a
 * timeout kills the command's process group and fails.  Output past
 * output_cap is dropped and counted in the detail.
 */
struct pr_exec_opts {
	const char *const *argv; /* NULL-terminated */
	const char *cwd; /* NULL: the current directory */
	int64_t timeout_ms;
	size_t output_cap;
	bool per_patch;
	int warn_status[8];
	size_t nr_warn_status;
};

void pr_exec_defaults(struct pr_exec_opts *o);
int pr_exec_check(struct pr_report *r, const char *step,
		  const struct pr_exec_opts *o, const struct pr_version *v);

/* Config context of the exec definition. */
struct pr_exec_ctx {
	struct pr_strlist command; /* argv, one word per repeated key */
	char *cmd; /* or the argv as one line, split at blanks */
	char *cwd;
	int64_t timeout; /* ms; 0: the default */
	uint64_t output_cap; /* 0: PR_LIMIT_EXEC_OUTPUT */
	bool per_patch;
	struct pr_strlist warn_status; /* exit statuses that only warn */
};

extern const struct pr_plugin_type pr_plugin_exec;

#endif
