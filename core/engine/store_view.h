#ifndef PR_STORE_VIEW_H
#define PR_STORE_VIEW_H

#include <stdint.h>

struct pr_store;
struct pr_report;
struct pr_report_entry;
struct pr_recipient_list;

/*
 * What the status page shows of the state store (schema 7): the engine
 * records, for each version a route handled, its title, the series' link
 * and submitter and the route's report, and for each delivery its
 * recipients; the web server reads them back with the walks below.
 *
 * Invariants:
 * - A record replaces the one before it: a version keeps the report of the
 *   last route that handled it (its verdict, and every entry in order),
 *   a delivery the recipients of its last rendering.
 * - Each record is one transaction.
 * - The walks hand strings that live until the callback returns; a
 *   non-zero return of the callback stops the walk and is returned.  A
 *   walk is a read: it is safe on a second connection of the same file
 *   while the daemon writes (WAL), which is how the web server uses it.
 */

/* What the engine knows of a version when its route is done with it. */
struct pr_store_status {
	const char *title; /* the cover's subject, else the lone patch's */
	const char *url; /* the series' link (a pull request); NULL: none */
	const char *submitter; /* "Name <email>"; NULL: unknown */
	const struct pr_report *report;
};

int pr_store_status_set(struct pr_store *st, int64_t series_id, int number,
			const struct pr_store_status *status);
/*
 * The recipients of the delivery (series, version, sink), To then Cc in
 * order.  PR_ENOENT (no message) when there is no such delivery.
 */
int pr_store_recipients_set(struct pr_store *st, int64_t series_id, int version,
			    const char *sink,
			    const struct pr_recipient_list *to,
			    const struct pr_recipient_list *cc);

/* One series with its latest version and that version's deliveries. */
struct pr_store_series_view {
	int64_t id;
	const char *origin;
	const char *key;
	const char *url; /* NULL: none */
	const char *submitter; /* NULL: unknown */
	int latest; /* version number */
	const char *title; /* of the latest version; NULL: not recorded */
	int verdict; /* of its report, a pr_verdict; -1: none */
	int64_t created; /* when the first version was seen (epoch s) */
	int64_t updated; /* last record or version, epoch s */
	/* the latest version's messages over all its deliveries */
	int deliveries;
	int messages, sent, rejected, attempts;
	const char *landed_branch, *landed_commit; /* NULL: not landed */
};

typedef int (*pr_store_series_fn)(const struct pr_store_series_view *s,
				  void *payload);
/*
 * Series most recently updated first, at most `limit` (0: all); with
 * `only` not 0 only that series (none when it is unknown).
 */
int pr_store_foreach_series(struct pr_store *st, int64_t only, int limit,
			    pr_store_series_fn fn, void *payload);

struct pr_store_version_view {
	int number;
	const char *title; /* NULL: not recorded */
	int nr_patches;
	int64_t created;
	int verdict; /* -1: no report */
	const char *landed_branch, *landed_commit; /* NULL: not landed */
};

typedef int (*pr_store_version_fn)(const struct pr_store_version_view *v,
				   void *payload);
/* The versions of a series, newest first. */
int pr_store_foreach_version(struct pr_store *st, int64_t series_id,
			     pr_store_version_fn fn, void *payload);

struct pr_store_delivery_view {
	int64_t id;
	int version;
	const char *sink;
	int nr_messages, sent, rejected, attempts;
	const char *last_error; /* NULL: none */
	int64_t updated; /* its last message's change, 0: none yet */
};

typedef int (*pr_store_delivery_fn)(const struct pr_store_delivery_view *d,
				    void *payload);
/* The deliveries of a series, newest version first, then by sink. */
int pr_store_foreach_delivery(struct pr_store *st, int64_t series_id,
			      pr_store_delivery_fn fn, void *payload);

struct pr_store_message_view {
	int index;
	int status; /* a pr_store_msg_status */
	int attempts;
	const char *message_id; /* NULL: not sent, or not recorded */
	const char *last_error;
	int64_t updated;
};

typedef int (*pr_store_message_fn)(const struct pr_store_message_view *m,
				   void *payload);
/* The messages of a delivery, in order. */
int pr_store_foreach_message(struct pr_store *st, int64_t delivery,
			     pr_store_message_fn fn, void *payload);

struct pr_store_recipient_view {
	int role; /* a pr_recipient_role */
	const char *name; /* may be NULL or "" */
	const char *email;
	const char *reason; /* NULL: none */
};

typedef int (*pr_store_recipient_fn)(const struct pr_store_recipient_view *r,
				     void *payload);
int pr_store_foreach_recipient(struct pr_store *st, int64_t delivery,
			       pr_store_recipient_fn fn, void *payload);

typedef int (*pr_store_identity_fn)(const char *kind, const char *value,
				    void *payload);
/* The external ids of a series (identities table), by kind. */
int pr_store_foreach_identity(struct pr_store *st, int64_t series_id,
			      pr_store_identity_fn fn, void *payload);

typedef int (*pr_store_entry_fn)(const struct pr_report_entry *e,
				 void *payload);
/* The entries of a version's last report, in order. */
int pr_store_foreach_entry(struct pr_store *st, int64_t series_id, int version,
			   pr_store_entry_fn fn, void *payload);

/* Messages pending in every delivery, and those rejected for good. */
int pr_store_count_messages(struct pr_store *st, int64_t *pending,
			    int64_t *rejected);

#endif
