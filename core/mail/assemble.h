#ifndef PR_ASSEMBLE_H
#define PR_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "model/model.h"

/*
 * Series assembly: a stream of mails (an mbox, a maildir, a poll of a list)
 * becomes postings, and postings become series and their versions.  The
 * mails are read in the order given, which is the order the list received
 * them; a file or a poll is a stream, never "one version".  Invariants:
 *
 * - The assembly borrows the pr_patch pointers it was given: it never
 *   frees or changes them, and they must outlive it.  pr_assemble_release()
 *   frees only the assembly's own arrays.
 * - Only patches (a diff) and cover letters (0/N, no "Re:") are given;
 *   a mail whose subject is a reply ("Re:") is left out, and so is a second
 *   mail with a Message-ID already read.
 *
 * Postings (one pr_asm_version each) follow Patchwork's parser
 * (patchwork/parser.py: find_series, parse_mail), so that a version here is
 * a series there (docs/internals/assemble.md has the cases):
 * - A patch n/N is looked up by reference: its own Message-ID, its
 *   In-Reply-To, then its References from the newest; the posting that
 *   holds the first of these it finds as a reference is its posting.  A
 *   posting holds as references the In-Reply-To, References and Message-ID
 *   of the patch that started it (the first posting to hold an id keeps
 *   it) and the Message-ID of a cover letter that started it.
 * - Else by markers: the newest posting of the same submitter (any case;
 *   pr_assemble_submitter()), with the same version and total, whose
 *   first mail is dated within 20 minutes of this one, that does not have
 *   patch n yet.
 * - A posting that already has patch n is not taken: the patch starts a
 *   new one (a resend, or the same series sent twice).  So does a patch
 *   found nowhere.
 * - A patch without n/N is a posting of its own, 1 of 1.
 * - A cover letter joins the posting that holds its Message-ID as a
 *   reference (its patches came first) unless that one has a cover, else
 *   starts one.  A 0/N mail with In-Reply-To or References whose subject
 *   is the subject of a cover letter read before is not a cover (Patchwork
 *   takes it for a comment) and is left out.
 * Where patchrelay differs, on purpose:
 * - A reference found to a posting of another version counts only when the
 *   patch has no version of its own ("[PATCH 1/4]" under a "v3" cover: it
 *   then takes the posting's version).  Patchwork's version check never
 *   rejects (its date test cannot be true), which puts a v2 patch into
 *   v1's series when that one lacks the patch's number.
 * - A mail without a date is never within 20 minutes of anything.  Mails
 *   without a Message-ID (git format-patch --stdout without --thread;
 *   Patchwork refuses them) group by markers among themselves whatever
 *   their dates, as format-patch dates each patch with its author date.
 * - A version's number is its cover letter's version when it has one, else
 *   that of the patch that started it.
 * - In a version, patches are sorted by index; an index past the total (a
 *   "3/2" extra) comes after the others and does not count for
 *   completeness.  complete means every patch 1..total is there; the cover
 *   letter is not needed.
 *
 * Series: postings that are versions of one series are joined (Patchwork
 * leaves that to the reader).  Versions are in ascending number, postings
 * of the same number in the order they started (an unlabeled revision, a
 * resend); series in the order their first posting started.  Two postings
 * are one series, strongest rule first:
 * - b4's change-id: a line "change-id: ID" in a cover letter (b4 writes it
 *   under the "---" at its end) or in any mail of the version, or a
 *   "change-id" trailer of a patch (the key in lower case exactly: Gerrit's
 *   per-commit "Change-Id" is not a series identity).  The same change-id
 *   joins; two different ones never do.
 * - A mail of one answers (In-Reply-To or References) a mail of the other,
 *   and they have different versions, or the same version and total and
 *   author (an unlabeled revision threaded into the first): v2 threaded
 *   into v1 is one series from the start, while a lone patch answering a
 *   series ("[PATCH] an orphaned patch") is not a version of it.
 * - The previous version named by a mail of the version: b4's "v1: URL" and
 *   "- Link to v1: URL" lines (URL a lore link ending in the Message-ID,
 *   "/r/<msgid>" or "/<list>/<msgid>/"), or "Supersedes: <msgid>".
 * - The same patch-ids (pr_patch.patch_id, where computed) in the same
 *   order in a version of the same number: a resend under a new subject.
 * - Else the submitter and the subject of both cover letters, else of both
 *   first patches.
 * Each series gets a key (its change-id, else the first version's cover
 * Message-ID, else its first patch's; NULL only when none has one) and
 * each version its supersedes (the previous version's cover Message-ID,
 * else its first own patch's; for the first version the Message-ID its
 * mails name as the previous version, when they do; else NULL).
 *
 * Holes filled from the version before (partial_reroll is then set):
 * - b4's partial re-roll (as `b4 am` does without --no-partial-reroll): a
 *   version N > 1 without a cover letter, whose every patch answers
 *   (In-Reply-To) the patch of the same n/M in the version before it, with
 *   the same total.
 * - A partial resend: an incomplete version without a cover letter after a
 *   version of the same number and total that has every index it has
 *   ("[PATCH RESEND 2/3]" alone).
 * An incomplete version with a complete one after it in its series is
 * superseded: a later posting completed what it lacked.
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
	bool superseded; /* incomplete, with a complete version after it */
	size_t first; /* the index of its first mail in the input */
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
/*
 * Who sent p, as Patchwork's submitter: its From: header's address
 * (pr_patch.sender), else its author's; "" when neither is known.
 */
const char *pr_assemble_submitter(const struct pr_patch *p);
/* The newest complete version of s, NULL when none. */
const struct pr_asm_version *
pr_assemble_latest_complete(const struct pr_asm_series *s);
void pr_assemble_release(struct pr_assembly *a);
/*
 * Drop from p the text the assembly does not read, to hold many mails for
 * it: body and diff keep only the lines that may name a change-id or a
 * previous version (a diff that was not empty stays so), the trailers
 * only a change-id, and the author's name and the date text go.  The
 * assembly of slimmed mails is that of the whole ones.
 */
void pr_assemble_slim(struct pr_patch *p);

/*
 * The Message-ID a lore-style link names: the path segment after "/r/",
 * else the last segment holding an '@' (or "%40"), with %XX escapes and angle
 * brackets removed; appended to out.  PR_ENOENT when url names none.
 */
int pr_assemble_link_msgid(struct pr_buf *out, const char *url, size_t len);

#endif
