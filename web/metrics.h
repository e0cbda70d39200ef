#ifndef PR_METRICS_H
#define PR_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct pr_buf;
struct pr_engine_pass_stats;

/*
 * The daemon's counters, gauges and histograms, as /metrics serves them
 * in the Prometheus text format (version 0.0.4).  The run loop writes
 * them after each poll and pass, the web server's hooks count theirs, and
 * a scrape renders them: every call takes the one mutex, so any thread
 * may call any function.
 *
 * Counters start at 0 with the process (Prometheus takes a restart as a
 * reset).  Labels are instance names from the config, never a value a
 * request brings: a hook for an unknown source counts under source="".
 * At most 256 names per family; further ones count under "other".
 */

struct pr_metrics;

struct pr_metrics *pr_metrics_new(void);
/* Safe with NULL. */
void pr_metrics_free(struct pr_metrics *m);

/*
 * After a pass: its counts, and how many sources are failing now.  Every
 * function below is a no-op on a NULL m.
 */
void pr_metrics_pass(struct pr_metrics *m, const struct pr_engine_pass_stats *s,
		     size_t failing_sources);
/* One route's poll of `source`: its seconds and what it returned. */
void pr_metrics_poll(struct pr_metrics *m, const char *source, double seconds,
		     int err);
/* One version delivered to `sink`: the seconds the sink took. */
void pr_metrics_delivery(struct pr_metrics *m, const char *sink,
			 double seconds);
/*
 * One hook for `source` (NULL: no such source), `result` one of
 * "accepted", "ping", "replayed", "unauthorized", "refused" (too big,
 * too slow, a wrong method) or "unknown".
 */
void pr_metrics_hook(struct pr_metrics *m, const char *source,
		     const char *result);

/*
 * Append the text format; `pending` and `rejected` are the store's
 * counts of messages (gauges: what the store holds, not this process).
 */
int pr_metrics_render(struct pr_buf *out, struct pr_metrics *m, int64_t pending,
		      int64_t rejected);

#endif
