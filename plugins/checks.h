#ifndef PR_CHECKS_H
#define PR_CHECKS_H

#include "model.h"
#include "report.h"
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
	uint64_t diff_files; /* files the diff text itself shows */
};

/* Count the figures of v (diff text and diffstat summary lines). */
void pr_size_figures_count(struct pr_size_figures *out,
			   const struct pr_version *v);

/* Defaults used by `patchrelay check --step size-limit` without options. */
void pr_size_limit_defaults(struct pr_size_limit_ctx *ctx);
int pr_size_limit_check(struct pr_report *r, const char *step,
			const struct pr_size_limit_ctx *ctx,
			const struct pr_version *v);

struct pr_mass_edit_opts {
	double min_share; /* substitutions must explain this share (0..1) */
	uint64_t min_lines; /* of this many changed line pairs at least */
	uint64_t min_files; /* touching this many files (diff or diffstat) */
	enum pr_verdict severity; /* of a finding: WARN or FAIL */
	const char *const *allow_submitters; /* emails; NULL-terminated */
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

#endif
