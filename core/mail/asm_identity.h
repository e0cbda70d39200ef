#ifndef PR_ASM_IDENTITY_H
#define PR_ASM_IDENTITY_H

#include "mail/assemble.h"

/*
 * The second half of the assembly (core/mail/assemble.h), used by
 * assemble.c only: which postings are versions of one series, and what
 * fills a version's holes.  Versions are moved between series, never
 * merged: a posting stays one version.
 */

/* Sort v's patches by index (extras last, one per index), set complete. */
void pr_asm_finish_version(struct pr_asm_version *v);
/* Ascending number, then the order the postings started. */
int pr_asm_cmp_version(const void *a, const void *b);
/* Read what the mails of v say: b4's change-id, the previous version. */
void pr_asm_scan_version(struct pr_asm_version *v);
/*
 * Join the series of out that are one series by change-id, a named
 * previous version, patch-ids or author and subject, until nothing
 * changes (a series may match another only through a third).
 */
void pr_asm_merge_series(struct pr_assembly *out);
/* Key, supersedes, holes filled from the version before, superseded. */
void pr_asm_finish_series(struct pr_asm_series *s);

#endif
