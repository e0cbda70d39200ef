#ifndef PR_DELIVERY_H
#define PR_DELIVERY_H

#include <stddef.h>
#include <stdint.h>

/*
 * struct pr_delivery: one message of a delivery, handed by the engine to a
 * sink's deliver().
 *
 * Invariants:
 * - `key` names the delivery (series, version, sink) and is the same on
 *   every retry, including after a crash and restart; (key, index) names
 *   the message.  A sink that can see what it already wrote (a maildir, an
 *   mbox journal) uses the pair so that a retry never writes a second copy.
 * - `mail` is the message exactly as the core rendered it (LF line ends,
 *   no mbox "From " quoting), `len` bytes, not NUL-terminated necessarily.
 * - The engine delivers the messages of a delivery in index order and
 *   records each one as sent only after deliver() returned PR_DELIVER_OK.
 */

struct pr_delivery {
	const char *key;
	size_t index; /* 0-based */
	size_t nr; /* messages in the delivery */
	const char *mail;
	size_t len;
};

/*
 * struct pr_version_delivery: a whole version handed at once to a sink
 * whose type has deliver_version (a git push: its commits are made from
 * the version's patches, not from mails).  The engine keeps it as a
 * delivery of one message under the same key, so a version is pushed
 * until the sink says PR_DELIVER_OK once, and never again after.
 * `time` is the delivery's base time (pr_store_delivery_base_time): the
 * same on every retry, so a retry can make the same objects.
 * `store` and `series_id` let the sink keep what it must remember of the
 * series between versions (the gerrit sink's Change-Ids) in the identity
 * map, and read an earlier version (pr_engine_stored_version).
 */
struct pr_series;
struct pr_version;
struct pr_store;

struct pr_version_delivery {
	const char *key;
	const struct pr_series *series;
	const struct pr_version *version; /* number is the store's */
	int64_t time;
	struct pr_store *store;
	int64_t series_id;
};

/*
 * struct pr_relay: what crosses a bridge to a sink that takes it itself
 * (engine/bridge.h): a comment from the other side of a series (a list
 * reply going to the pull request), or a change of the series' state.
 * `series` names the series as the store knows it (origin, key, its URL
 * when it has one); `store` and `series_id` reach its identity map.
 */
struct pr_event;

struct pr_relay {
	const char *item; /* the comment's id at its source; NULL: a state */
	const struct pr_series *series;
	struct pr_store *store;
	int64_t series_id;
	const struct pr_event *comment; /* NULL: a state */
	/* the Subject of the mail it answers ("[PATCH 2/3] ..."); NULL */
	const char *answered;
	/* which: version and mail (0 the cover letter, i patch i); 0: none */
	int version;
	int idx;
};

/*
 * struct pr_report_post: one report shown where a route's `report-to`
 * names (engine/report_fanout.h), handed to a connector's report op.
 * `version` is the store's number; `verdict` PASS, WARN or FAIL (a report
 * whose steps all skipped is PASS); `context` the name the report goes
 * under (a status's context, a check's); `description` one line of at
 * most 140 bytes; `text` the whole report as plain text.  The connector
 * finds where the series is on its side (the store's identity map, its
 * mails) and posts there.
 */
struct pr_report;

struct pr_report_post {
	const struct pr_series *series;
	struct pr_store *store;
	int64_t series_id;
	int version;
	const struct pr_report *report;
	int verdict; /* enum pr_verdict */
	const char *context;
	const char *description;
	const char *text;
};

#endif
