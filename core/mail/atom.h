#ifndef PR_ATOM_H
#define PR_ATOM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * The entries of an Atom feed (RFC 4287), as public-inbox's new.atom and
 * lore's serve them; only what a source needs is kept.  Invariants:
 *
 * - Entries are in feed order.  Each holds, from its direct children only
 *   (an <author>'s or <source>'s <title> does not count), the text of <id>,
 *   <updated> and <title> (entities and CDATA decoded, NULL when absent)
 *   and the href of its first <link> whose rel is absent or "alternate"
 *   (NULL when none).  `time` is <updated> as seconds since the epoch, or
 *   -1 when it is absent or not an RFC 3339 date.
 * - <content> and <summary> are skipped whole, whatever they hold.
 * - The feed is not validated beyond what the entries need: a tag that does
 *   not end, an unknown entity, an <entry> inside an <entry> or one that
 *   does not end is PR_EPARSE naming the feed and the byte offset; more
 *   than PR_LIMIT_ATOM_ENTRIES entries or a text over PR_LIMIT_HEADER_BYTES
 *   is PR_ETOOBIG.  On error *out holds no entries.
 * - Every string is owned by the feed; pr_atom_feed_release frees them and
 *   is safe on a zeroed feed.
 */

struct pr_atom_entry {
	char *id;
	char *link;
	char *updated;
	char *title;
	int64_t time;
};

struct pr_atom_feed {
	struct pr_atom_entry *v;
	size_t nr, alloc;
};

/* Parse len bytes of data; name (a URL or a file) is for error messages. */
int pr_atom_parse(struct pr_atom_feed *out, const char *data, size_t len,
		  const char *name);
void pr_atom_feed_release(struct pr_atom_feed *f);

/*
 * An RFC 3339 date-time ("2026-11-10T10:15:00Z", "...T11:15:00.5+01:00")
 * as seconds since the epoch; PR_EPARSE when it is not one.
 */
int pr_atom_parse_time(int64_t *out, const char *s);

#endif
