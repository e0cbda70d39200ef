#ifndef PR_AM_H
#define PR_AM_H

#include <stdbool.h>
#include <stddef.h>

#include "mail/assemble.h"
#include "mail/mailinfo.h"
#include "model/model.h"

/*
 * Preparing a mailed series for `git am`, with the review trailers its
 * replies gave collected the way b4 collects them.  Invariants:
 * - A reply is a mail whose subject is a reply ("Re:"), or a mail without
 *   a diff that answers another and has no n/N marker.  Only replies give
 *   trailers, and only outside quoted text (pr_trailers_from_reply()).
 * - A reply answers the nearest mail of its thread that is a patch or the
 *   cover letter of the version: In-Reply-To first, then References from
 *   the last to the first, so a reply to a reply counts for the patch the
 *   thread started from.  Replies to other versions give nothing, but
 *   for the two exceptions below.
 * - A trailer sent to the cover letter applies to every patch (b4's rule);
 *   for a partial re-roll without one, the earlier version's cover
 *   letter's apply to the patches reused from that version only.
 * - A trailer sent to a patch of another version counts for the patch of
 *   v with the same patch_id (b4's carry-over of unchanged patches).
 * - Cc: trailers and trailers whose value holds an http(s) URL are not
 *   taken (b4's rule).
 * - A trailer naming an address ("Name <addr>") other than the reply's
 *   sender is dropped unless the sender is in opts->trusted (compared
 *   case-insensitively); the address is the sender's as b4 compares it
 *   (any case, without a +extension, a domain one label deeper, or the
 *   same display name).  A trailer naming no address (Fixes:) is kept.
 * - Collected trailers come in b4's order: those given to the patch, then
 *   those given to the cover letter, each in the order the replies came
 *   in; a trailer (key and value the same in any case, ASCII) is never
 *   added twice nor added when the patch already carries it.
 */

struct pr_am_opts {
	const char *const *trusted; /* sender addresses trusted for others */
	size_t nr_trusted;
};

/* A mail parsed by pr_mailinfo_parse as a new pr_patch: prefix from the
 * raw subject, body is mailinfo's message and diff its patch; trailers
 * parsed from the body (mi's prefix and trailers are taken, being those);
 * patch_id (git patch-id --stable) when the mail has a diff; time from the
 * date (0 when it does not parse). */
int pr_am_patch_from_mailinfo(struct pr_patch **out,
			      const struct pr_mailinfo *mi);
/* The same from a mail's text: git mailinfo's parse, then the above. */
int pr_am_patch_parse(struct pr_patch **out, const char *data, size_t len);
/*
 * p->diff as a git source holds a diff: mailinfo's patch starts at the
 * "---" line with the diffstat and ends with format-patch's signature
 * ("-- \n2.39.5") and maybe its --base lines, which the sinks render again;
 * only the diff from the first "diff --git" is kept, and the stat (the lines
 * between "---" and a blank line before the diff) goes to p->diffstat when
 * that is unset.  A diff without a "diff --git" line is left as it is.
 */
void pr_am_bare_diff(struct pr_patch *p);
/*
 * The mails of mails[0..nr) that make series (patches with a diff and
 * cover letters, no replies), in order, into out (room for nr); returns
 * how many.
 */
size_t pr_am_series_mails(struct pr_patch **out, struct pr_patch *const *mails,
			  size_t nr);
/* Is p a reply by the rule above. */
bool pr_am_is_reply(const struct pr_patch *p);
/*
 * Collect the trailers mails[0..nr) give to the patches of v: out[i] (for
 * v->patches[i], v->nr entries, zeroed by the caller) gets them in order.
 */
int pr_am_collect(struct pr_trailer_list *out, const struct pr_asm_version *v,
		  struct pr_patch *const *mails, size_t nr,
		  const struct pr_am_opts *opts);
/*
 * A trailer given to a version from outside its mails (the reply relay
 * keeps them: engine/bridge.h), and where: what pr_am_collect finds for
 * a reply.  Its trust was checked when it was gathered.
 */
struct pr_am_given {
	const char *key, *value;
	int version; /* the version it was given to */
	long idx; /* the patch's index in that version; -1: the cover letter */
	const char *patch_id; /* that patch's git patch-id; NULL: unknown */
};

/*
 * The trailers given[0..nr) give the patches of v, by the rules above
 * (one implementation with pr_am_collect): out[i] (v->nr entries, zeroed
 * by the caller) gets, in b4's order, those given to patch i of v, then
 * those given to the same change (patch-id) in another version, then
 * those given to v's cover letter; none twice, none the patch carries.
 */
int pr_am_apply(struct pr_trailer_list *out, const struct pr_version *v,
		const struct pr_am_given *given, size_t nr);

/*
 * Append p as one mbox message that `git am` applies: "[PATCH n/total]"
 * subject, author, date, then the message with extra appended to the end
 * of its trailer block (a new block when it has none), then the diff.
 * The name is quoted as format-patch quotes it; a header value holding CR
 * or LF is refused (PR_EINVAL) and out is then left as it was.
 */
int pr_am_write_patch(struct pr_buf *out, const struct pr_patch *p, int n,
		      int total, const struct pr_trailer_list *extra);

/*
 * The base of a mailed version: v->base_commit when set, else the
 * "base-commit: <40 hex digits>" line `git format-patch --base` writes at
 * the end of the cover letter (or, without one, after the first patch's
 * diff); "" when there is none.
 */
void pr_am_base_commit(char out[41], const struct pr_version *v);

#endif
