#ifndef PR_PI_FEED_H
#define PR_PI_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * One page of a public-inbox inbox's Atom feed, and whether the walk back
 * through the pages goes on.  public-inbox serves <inbox>/new.atom as the
 * newest `feedmax` messages (25 by default) by arrival time, newest first,
 * and <inbox>/new.atom?t=T (T is YYYYMMDDhhmmss, UTC) as the newest ones
 * that arrived at or before T: PublicInbox::View's paginate_recent, which
 * reads over.sqlite3 only, so it works without Xapian.  Invariants:
 *
 * - Each entry is a Message-ID (from its link, core/mail/atom.h) and a position
 *   "<time as 20 digits>.<Message-ID>", as connectors/mailsrc.h's.  `want`
 *   holds, oldest first, the entries a poll from the cursor (low, high)
 *   must see: at or after low (every entry when there is no cursor), less
 *   the one at high when nothing waits (low == high).  An entry whose link
 *   names no message is logged, with the url, and skipped.
 * - `more` is true when an older page may hold wanted entries: the page
 *   has dated entries, the oldest arrived no earlier than low's second,
 *   and its oldest second differs from the t it was read with.  When that
 *   last test fails on a page as long as the first one, more than a page
 *   of messages share one second and no ?t= reaches past them: `stuck` is
 *   set.  (On a shorter page it is the oldest page.)
 * - next_t is the oldest entry's second as YYYYMMDDhhmmss: the next page
 *   repeats the messages of that second; the caller dedupes them by
 *   Message-ID.
 * - A malformed page is PR_EPARSE naming the url and the byte offset (the
 *   Atom parser's bounds apply), and so is one that does not end with
 *   </feed> (cut short); on error *out holds nothing.
 */

struct pr_pi_want {
	char *mid;
	char *pos;
};

struct pr_pi_page {
	struct pr_pi_want *v;
	size_t nr, alloc;
	size_t entries; /* entries on the page, wanted or not */
	bool more, stuck;
	char next_t[16];
};

struct pr_pi_walk {
	const char *low, *high; /* the cursor's; NULL: no cursor */
	const char *t; /* the ?t= the page was read with; NULL: new.atom */
	size_t first_entries; /* entries on the first page; 0: this is it */
	const char *prefix; /* for log lines */
};

int pr_pi_page_read(struct pr_pi_page *out, const char *data, size_t len,
		    const char *url, const struct pr_pi_walk *w);
void pr_pi_page_release(struct pr_pi_page *p);

/*
 * The Message-ID an entry's link names: the last path segment of
 * ".../<msgid>/", %-decoded, into out.  0, or PR_EPARSE when the link has
 * no such segment or a bad or NUL %-escape.
 */
int pr_pi_link_mid(struct pr_buf *out, const char *link);

/*
 * When the archive received a mail, as public-inbox's msg_timestamp
 * (PublicInbox::MsgTime) reads it and sorts its feed and its ?t= pages
 * by: the date after the last ';' of the first Received: header that has
 * one (the hop nearest the archive), else the Date: header.  0, or
 * PR_ENOENT (no error recorded) when the mail has neither.
 */
int pr_pi_mail_time(int64_t *out, const char *data, size_t len);

#endif
