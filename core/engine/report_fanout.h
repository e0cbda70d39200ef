#ifndef PR_REPORT_FANOUT_H
#define PR_REPORT_FANOUT_H

#include <stdint.h>

struct pr_graph;
struct pr_graph_route;
struct pr_report;
struct pr_series;
struct pr_store;

/*
 * One report, every place that shows it: a route's `report-to` names
 * sources and sinks, and each shows the report of a version in its own
 * form, where the series is on its side.  A connector with a report op
 * (registry.h) posts it (a GitHub or GitLab commit status, a Gerrit vote
 * with a message, Patchwork checks per patch); a mail sink without one
 * that names a sender (smtp's `from`) gets a reply to the version's cover
 * letter (else its first patch), as it went out or came in, delivered as
 * the sink delivers, so naming it in report-to is the list reply's
 * opt-in.
 *
 * Invariants:
 * - The context is the route's `report-context`, else "patchrelay/"
 *   and the route's name.
 * - A note (scope "report:NODE", key "SERIES_ID/vN/CONTEXT") holds the
 *   verdict last posted there and a count of posts ("fail 2"); a node is
 *   posted to only when the verdict differs from the noted one, so a
 *   version read again posts nothing new, and a changed verdict posts
 *   once more.  A node that found nothing to show it on notes nothing.
 * - A list reply's Message-ID and Date come from its own delivery key
 *   (the sink, the context and the post's count), so a reply cut off by
 *   a crash goes again as the same mail, and never twice.
 */
struct pr_report_fanout {
	const struct pr_graph *g;
	const struct pr_graph_route *route;
	struct pr_store *st;
	const struct pr_series *series; /* its recipients as the steps left */
	int64_t series_id;
	int version; /* the store's number */
};

/*
 * Show report at every report-to node of f->route.  0 when each showed
 * it, had it already, or has nothing to show it on; 1 when one failed
 * (logged; the caller holds the source's cursor so that a later pass
 * tries again); a negative PR_E* when the store failed.
 */
int pr_report_fanout(const struct pr_report_fanout *f,
		     const struct pr_report *report);

#endif
