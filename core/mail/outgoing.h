#ifndef PR_OUTGOING_H
#define PR_OUTGOING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "model/model.h"
#include "base/strlist.h"

/*
 * Outgoing mail: one version of a series rendered for one sink as the
 * thread that `git format-patch --cover-letter --thread -vN` followed by
 * `git send-email` (no --chain-reply-to) would send.
 *
 * Invariants:
 * - The thread is the cover letter (when the version has one) and then
 *   each patch in order; mail 0 is the root, and every later mail has
 *   In-Reply-To and References naming it.  A lone patch without a cover
 *   gets none.
 * - Message-IDs depend only on the delivery key, the mail's index and the
 *   domain of the sender address (pr_outgoing_message_id), and the Date of
 *   mail i is base_time + i seconds, so that rendering the same delivery
 *   again (a retry, a restart) gives the same bytes.
 * - No header value is passed through raw: a display name or subject that
 *   holds a control byte (CR, LF, ...), a non-ASCII byte or "=?" is written
 *   as RFC 2047 words, one with a specials character is quoted (as git
 *   send-email's sanitize_address does); a name whose single line would
 *   pass 78 columns is folded, which git does not do; an address
 *   that is not a bare addr-spec is refused with PR_EINVAL (the message
 *   names it).  An author name that must go raw into the in-body From line
 *   and holds a control byte is refused the same way.  The in-body From
 *   line is git send-email's: the name quoted when it is ASCII with a
 *   special, raw when non-ASCII unless it holds '"' (git am keeps it).  Every header line
 *   of a rendered mail is printable ASCII and at most 998 bytes; the
 *   renderer checks it before returning (PR_EINTERNAL otherwise).
 * - Mails have LF line ends, no mbox "From " line, and no byte is changed
 *   in the body that format-patch wrote (the cover letter's blurb aside).
 * - The recipient lists are deduplicated without regard to case, an
 *   address in To: never appears again in Cc:, and the order is the order
 *   of first appearance.
 */

/* The addresses one delivery goes to. */
struct pr_outgoing_rcpt {
	struct pr_recipient_list to; /* role PR_RCPT_TO */
	struct pr_recipient_list cc; /* role PR_RCPT_CC */
};

void pr_outgoing_rcpt_release(struct pr_outgoing_rcpt *r);
static inline size_t pr_outgoing_rcpt_count(const struct pr_outgoing_rcpt *r)
{
	return r->to.nr + r->cc.nr;
}

/*
 * Gather the recipients: s->recipients by role, then the sink's fixed
 * `to` and `cc` values (each may be "a@b.org" or "Name <a@b.org>", NULL
 * for none).  When `preview` the series' submitter is the only recipient
 * (To:) and nothing else is taken.  A value that is not an address is
 * PR_EINVAL naming it.
 */
int pr_outgoing_recipients(struct pr_outgoing_rcpt *out,
			   const struct pr_series *s,
			   const struct pr_strlist *sink_to,
			   const struct pr_strlist *sink_cc, bool preview);

/*
 * Split "Name <addr>" or "addr" into id; PR_EINVAL when it is neither.
 * The name is what a reader sees: quoted strings unquoted, RFC 2047 words
 * outside them decoded; one holding a control byte is PR_EINVAL.
 */
int pr_outgoing_parse_address(struct pr_ident *id, const char *text);

/* 0 when addr is a bare addr-spec safe for a header; else PR_EINVAL. */
int pr_outgoing_check_address(const char *what, const char *addr);

/*
 * Append the Message-ID (no angle brackets) of mail `index` of the
 * delivery `key`: "<key>.<index>@<domain>", every byte of key outside
 * [A-Za-z0-9+-] dropped.
 */
int pr_outgoing_message_id(struct pr_buf *out, const char *key, size_t index,
			   const char *domain);

/*
 * The domain of the Message-IDs: the sender's, else that of the first
 * patch's author, else "patchrelay.invalid".
 */
const char *pr_outgoing_domain(const struct pr_ident *sender,
			       const struct pr_version *v);

struct pr_outgoing_opts {
	const char *key; /* the delivery key */
	int64_t base_time; /* Date of mail 0, seconds since the epoch */
	/* the sink's From (its `from` option); NULL: each mail's author */
	const struct pr_ident *sender;
	const struct pr_outgoing_rcpt *rcpt;
	const char *signature; /* NULL: git's "2.39.5"; "" none */
	/* the cover letter's --stat --summary text; NULL: none */
	const char *stat;
	/* the previous version's root Message-ID (no brackets); NULL: none */
	const char *prev_message_id;
	/* sink's archive-url template, %m = a Message-ID; NULL: none */
	const char *archive_url;
	const char *url; /* the series' URL (a pull request); NULL: none */
	const char *range_diff; /* git range-diff text; NULL: none */
};

/* The rendered thread: mails[0..nr), lens[i] bytes each. */
struct pr_outgoing {
	char **mails;
	size_t *lens;
	size_t nr;
	char *root_message_id; /* of mail 0, no angle brackets */
};

/* Render v; out is filled only on success.  Release with _release. */
int pr_outgoing_render(struct pr_outgoing *out, const struct pr_version *v,
		       const struct pr_outgoing_opts *opts);
void pr_outgoing_release(struct pr_outgoing *o);

/*
 * A reply to one mail of a thread (the reply relay: a review written
 * elsewhere, mailed under the patch it is about), as a mail client writes
 * one: From, To, Cc, Subject ("Re: " and the answered subject, unless it
 * already starts with "Re:"), Date, Message-ID, In-Reply-To, References
 * (the answered mail's References and its Message-ID), then the MIME
 * headers of UTF-8 text and the body as given.  The header rules are
 * pr_outgoing_render's: names and subjects encoded as they must be, an
 * address that is not a bare addr-spec refused (PR_EINVAL), every header
 * line checked.
 */
struct pr_outgoing_reply {
	const struct pr_ident *from;
	const struct pr_outgoing_rcpt *rcpt;
	const char *subject; /* of the answered mail, decoded */
	const char *in_reply_to; /* its Message-ID, no brackets */
	const char *refs; /* its References, space-separated, no brackets */
	const char *message_id; /* the reply's, no brackets */
	int64_t time; /* the Date */
	const char *body; /* LF line ends */
};

int pr_outgoing_reply(struct pr_buf *out, const struct pr_outgoing_reply *r);

/* Append the archive-url template with each %m replaced by mid, %% by %. */
int pr_outgoing_archive_link(struct pr_buf *out, const char *tmpl,
			     const char *mid);

#endif
