#ifndef PR_PAGE_H
#define PR_PAGE_H

#include <stdbool.h>
#include <stdint.h>

struct pr_buf;
struct pr_store;

/*
 * The status page and its JSON twin, from the state store (store_view.h):
 * the series in flight at /, one series with every identity it has at
 * /series/ID, and the same as JSON at /api/series and /api/series/ID.
 *
 * A page is loaded first (pr_page_load: every query, into memory that the
 * page owns) and then rendered as HTML or JSON, so the two never differ
 * in what they say.
 *
 * Invariants:
 * - The HTML is plain and server-rendered: no script, no form, no
 *   outside resource; every text from the store is escaped (& < > " '),
 *   and only http: and https: links are links (a `javascript:` URL a
 *   forge handed over is shown as text).  The server adds a
 *   Content-Security-Policy that allows inline style and nothing else.
 * - The JSON is valid UTF-8 whatever the store holds (base/json.h).
 * - A series' state is one word: "landed" (its latest version is on a
 *   watched branch), "refused" (a step failed it and nothing was sent),
 *   "rejected" (a sink refused a message for good), "pending" (messages
 *   left to send or retry), "sent" (every message of every delivery of
 *   the latest version sent), else "seen".
 */

struct pr_page;

/*
 * Load the series of a page: the `limit` most recently updated (0: all)
 * for the list, or with `only` the one series of that id, with its
 * versions, every version's report, identities and messages.  A series
 * that does not exist gives an empty page (pr_page_count 0).
 */
int pr_page_load(struct pr_page **out, struct pr_store *st, int64_t only,
		 int limit);
void pr_page_free(struct pr_page *p);
size_t pr_page_count(const struct pr_page *p);

/* The archive-url template of a sink (%m a Message-ID); NULL: none. */
typedef const char *(*pr_page_archive_fn)(const char *sink, void *payload);

/* The list page (/) or, for a page of one series, its page. */
int pr_page_html(struct pr_buf *out, const struct pr_page *p,
		 pr_page_archive_fn archive, void *payload);
/* {"series":[...]} or, for a page of one series, that series' object. */
int pr_page_json(struct pr_buf *out, const struct pr_page *p,
		 pr_page_archive_fn archive, void *payload);

#endif
