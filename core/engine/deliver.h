#ifndef PR_DELIVER_H
#define PR_DELIVER_H

/*
 * Delivery with the store: the rows of a delivery, one per mail, each
 * tried, marked sent with its Message-ID, left pending for a retry or
 * rejected for good (engine.h's pr_engine_deliver is its public face;
 * engine.c's pass calls the whole form below).
 */

#include <stddef.h>

struct pr_engine_stats;
struct pr_engine_version;
struct pr_instance;
struct pr_connector_type;
struct pr_report;
struct pr_store;
struct pr_version_delivery;

/*
 * pr_engine_deliver under another sink key: "<sink>+preview" for a preview
 * keeps its own delivery rows and Message-IDs beside the list's.  Each
 * message is marked sent with its Message-ID (the identity map); a
 * rejection goes into `report` when it is not NULL.
 *
 * With `vd` (a sink whose type has deliver_version) the delivery is the
 * one message vd names (mails is NULL, nr 1), handed over whole: the same
 * rows, attempts and rejections, no Message-ID.
 */
int pr_engine_deliver_mails(struct pr_engine_stats *stats, struct pr_store *st,
			    const struct pr_engine_version *v, const char *sink,
			    struct pr_instance *inst,
			    const struct pr_connector_type *type,
			    const char *const *mails, const size_t *lens,
			    size_t nr, struct pr_report *report,
			    const struct pr_version_delivery *vd);

#endif
