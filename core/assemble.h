#ifndef PR_ASSEMBLE_H
#define PR_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/*
 * Series assembly: group parsed patch mails into series and versions the
 * way Patchwork and b4 do.  Invariants:
 * - The assembly borrows the pr_patch pointers it was given: it never
 *   frees or changes them, and they must outlive it.  pr_assemble_release()
 *   frees only the assembly's own arrays.
 * - A mail whose subject is a reply ("Re:") is not a patch and is left out.
 * - Mails are grouped by thread first (Message-ID, In-Reply-To and
 *   References, so a missing cover letter still holds its patches
 *   together), then by version.  A patch numbered without "vN" in the
 *   thread of a "vN" cover letter takes the cover's version.  Threads of
 *   the same author whose cover letters or first patches have the same
 *   subject are one series; a version sent again in a new thread (a
 *   RESEND) is merged into the first copy, its earlier mails winning.
 * - In a version, patches are sorted by index, one per index (a resend of
 *   the same index keeps the first one seen); an index past the total (a
 *   "3/2" extra) comes after the others and does not count for
 *   completeness.  A lone "[PATCH]" is 1/1.
 * - complete means every patch 1..total is there; the cover letter is not
 *   needed.  Versions are in ascending order; series in the order their
 *   first mail came.
 */

struct pr_asm_version {
	int number; /* from the subjects, >= 1 */
	int total; /* N of the n/N markers */
	bool complete;
	struct pr_patch *cover; /* the 0/N mail, NULL when missing */
	struct pr_patch **patches; /* by index; extras last */
	size_t nr, alloc;
};

struct pr_asm_series {
	struct pr_asm_version *versions; /* ascending number */
	size_t nr, alloc;
};

struct pr_assembly {
	struct pr_asm_series *series;
	size_t nr, alloc;
};

/* Group mails[0..nr) into out, which must start zeroed. */
int pr_assemble_mails(struct pr_assembly *out, struct pr_patch *const *mails,
		      size_t nr);
/* The newest complete version of s, NULL when none. */
const struct pr_asm_version *
pr_assemble_latest_complete(const struct pr_asm_series *s);
void pr_assemble_release(struct pr_assembly *a);

#endif
