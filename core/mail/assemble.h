#ifndef PR_ASSEMBLE_H
#define PR_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "model/model.h"

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
 *
 * Identity across versions (threads sent apart joined into one series),
 * strongest first:
 * - b4's change-id: a line "change-id: ID" in a cover letter (b4 writes it
 *   under the "---" at its end) or in any mail of the version, or a
 *   "change-id" trailer of a patch (the key in lower case exactly: Gerrit's
 *   per-commit "Change-Id" is not a series identity).  Two threads with
 *   the same change-id are one series; two with different ones never are.
 * - The previous version named by a mail of the version: b4's "v1: URL" and
 *   "- Link to v1: URL" lines (URL a lore link ending in the Message-ID,
 *   "/r/<msgid>" or "/<list>/<msgid>/"), or "Supersedes: <msgid>".  The
 *   thread holding that Message-ID is the same series.
 * - A v2 threaded into v1 (its cover In-Reply-To v1's) is one thread, and
 *   so one series, from the start.
 * - The same patch-ids (pr_patch.patch_id, where computed) in the same
 *   order in a version of the same number: a resend under a new subject.
 * - Else the author and the subject of the cover letters or first patches.
 * Each series gets a key (its change-id, else the first version's cover
 * Message-ID, else its first patch's; NULL only when none has one) and
 * each version its supersedes (the previous version's cover Message-ID,
 * else its first own patch's; for the first version the Message-ID its
 * mails name as the previous version, when they do; else NULL).
 *
 * Partial re-rolls (b4's rule, as `b4 am` does without
 * --no-partial-reroll): a version N > 1 without a cover letter, whose
 * every patch answers (In-Reply-To) the patch of the same n/M in the
 * version before it, with the same total, is completed with the earlier
 * version's patches for the numbers it did not resend; partial_reroll is
 * then set.  Any other version with holes stays incomplete.
 */

struct pr_asm_version {
	int number; /* from the subjects, >= 1 */
	int total; /* N of the n/N markers */
	bool complete;
	struct pr_patch *cover; /* the 0/N mail, NULL when missing */
	struct pr_patch **patches; /* by index; extras last */
	size_t nr, alloc;
	/* the previous version's root Message-ID (see above); NULL: none */
	const char *supersedes;
	bool partial_reroll; /* holes filled from the version before */
	char *change_id; /* owned; NULL when its mails give none */
	char *prev_id; /* owned; the previous version its mails name */
	int prev_number; /* the version number prev_id was named for */
};

struct pr_asm_series {
	struct pr_asm_version *versions; /* ascending number */
	size_t nr, alloc;
	char *key; /* owned; see above */
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

/*
 * The Message-ID a lore-style link names: the path segment after "/r/",
 * else the last segment holding an '@' (or "%40"), with %XX escapes and angle
 * brackets removed; appended to out.  PR_ENOENT when url names none.
 */
int pr_assemble_link_msgid(struct pr_buf *out, const char *url, size_t len);

#endif
