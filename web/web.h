#ifndef PR_WEB_H
#define PR_WEB_H

#include <stdbool.h>
#include <stdint.h>

struct pr_graph;
struct pr_metrics;
struct pr_strlist;

/*
 * The built-in web server of `patchrelay run` (docs/web.md): webhooks at
 * /hooks/NAME, the status page at / and /series/ID, the same as JSON at
 * /api/series and /api/series/ID, /metrics and /healthz.  libmicrohttpd
 * parses HTTP; one thread of its own answers every request.
 *
 * The run loop and the server meet at two points only:
 * - the poll queue: a valid hook puts its source in the queue and wakes
 *   pr_web_wait; the loop takes the names (pr_web_take) and polls those
 *   sources at once.  The queue holds each source at most once (a hook
 *   for a source already queued joins it), so it is bounded by the
 *   number of hook sources, and a hook that comes while its source is
 *   polled queues it again: no hook is lost, a burst costs one poll.
 * - the metrics (metrics.h), which the loop writes and /metrics reads.
 * Everything else the server reads from its own connection to the state
 * store, which the daemon writes (SQLite's WAL lets both run).
 *
 * Limits: PR_LIMIT_WEB_CONNECTIONS connections at once, the request line
 * and headers within PR_LIMIT_WEB_HEADER_BYTES, a request done within
 * PR_LIMIT_WEB_REQUEST_SECONDS and never idle PR_LIMIT_WEB_IDLE_SECONDS,
 * a hook's body within PR_LIMIT_HOOK_BYTES (streamed through its HMAC,
 * never held), any other body ignored.
 */

struct pr_web;

/*
 * Listen on g->http (core.http) and serve; *out NULL and 0 when g has no
 * core.http.  `state` is the state file, `metrics` what /metrics shows
 * (kept, not owned).  Errors name the address ("cannot listen on
 * '127.0.0.1:8025': Address already in use").
 */
int pr_web_start(struct pr_web **out, const struct pr_graph *g,
		 const char *state, struct pr_metrics *metrics);
/*
 * Take the hook sources and archive links of a graph just swapped in (a
 * reload); the listen address stays (a new one is logged, not taken).
 * A queued source keeps its place when it keeps its name.
 */
void pr_web_update(struct pr_web *w, const struct pr_graph *g);
/* Stop serving (requests in flight end) and free; safe with NULL. */
void pr_web_stop(struct pr_web *w);

/* Wait at most `ms` for a queued source; true when one is queued. */
bool pr_web_wait(struct pr_web *w, int64_t ms);
/* Move the queued source names to `out`, emptying the queue. */
void pr_web_take(struct pr_web *w, struct pr_strlist *out);

#endif
