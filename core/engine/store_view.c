#include "base/pr.h"

#include "model/model.h"
#include "model/report.h"
#include "engine/sql.h"
#include "engine/store.h"
#include "engine/store_view.h"

int pr_store_status_set(struct pr_store *st, int64_t series_id, int number,
			const struct pr_store_status *status)
{
	const struct pr_report *r = status->report;
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	size_t i;
	int err;

	if ((err = pr_sql_begin(pr_store_sql(st))))
		return err;
	/* a link or submitter once known stays when a later record lacks it */
	if ((err = pr_sql_run(pr_store_sql(st), "record series status",
			      "UPDATE series SET url = coalesce(?, url),"
			      " submitter = coalesce(?, submitter),"
			      " updated = strftime('%s', 'now') WHERE id = ?",
			      "ssI", status->url, status->submitter,
			      series_id)) ||
	    (err = pr_sql_run(pr_store_sql(st), "record version status",
			      "UPDATE versions SET title = ?, verdict = ?"
			      " WHERE series_id = ? AND number = ?",
			      "siIi", status->title,
			      r ? (int)pr_report_verdict(r) : -1, series_id,
			      number)) ||
	    (err = pr_sql_run(pr_store_sql(st), "record report",
			      "DELETE FROM report_entries WHERE"
			      " series_id = ? AND version = ?",
			      "Ii", series_id, number)))
		goto done;
	if (!r || !r->nr)
		goto done;
	if ((err = pr_sql_prepare(&q, pr_store_sql(st), "record report",
				  "INSERT INTO report_entries (series_id,"
				  " version, idx, step, rule, verdict, patch,"
				  " message, detail)"
				  " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
				  NULL)))
		goto done;
	for (i = 0; i < r->nr && !err; i++) {
		const struct pr_report_entry *e = &r->items[i];

		if (!(err = pr_sql_bind(&q, "Iizssiiss", series_id, number, i,
					e->step ? e->step : "",
					e->rule ? e->rule : "", (int)e->verdict,
					e->patch, e->message ? e->message : "",
					e->detail)))
			err = pr_sql_done(&q);
	}
done:
	pr_sql_finish(&q);
	return pr_sql_end(pr_store_sql(st), err);
}

static int add_recipients(struct pr_sql_stmt *q, int64_t delivery, int *idx,
			  const struct pr_recipient_list *l)
{
	size_t i;
	int err = 0;

	for (i = 0; l && i < l->nr && !err; i++) {
		const struct pr_recipient *r = &l->items[i];

		if (!(err = pr_sql_bind(q, "Iiisss", delivery, (*idx)++,
					(int)r->role, r->name, r->email,
					r->reason)))
			err = pr_sql_done(q);
	}
	return err;
}

int pr_store_recipients_set(struct pr_store *st, int64_t series_id, int version,
			    const char *sink,
			    const struct pr_recipient_list *to,
			    const struct pr_recipient_list *cc)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int64_t id;
	int err, idx = 0;

	if ((err = pr_store_delivery_find(&id, st, series_id, version, sink)))
		return err;
	if ((err = pr_sql_begin(pr_store_sql(st))))
		return err;
	if ((err = pr_sql_run(pr_store_sql(st), "record recipients",
			      "DELETE FROM delivery_recipients"
			      " WHERE delivery_id = ?",
			      "I", id)) ||
	    (err = pr_sql_prepare(&q, pr_store_sql(st), "record recipients",
				  "INSERT INTO delivery_recipients"
				  " (delivery_id, idx, role, name, email,"
				  " reason) VALUES (?, ?, ?, ?, ?, ?)",
				  NULL)) ||
	    (err = add_recipients(&q, id, &idx, to)))
		goto done;
	err = add_recipients(&q, id, &idx, cc);
done:
	pr_sql_finish(&q);
	return pr_sql_end(pr_store_sql(st), err);
}

/*
 * The latest version of each series, and the messages of that version's
 * deliveries summed up (a series with no delivery yet has zeros).
 */
static const char series_sql[] =
	"SELECT s.id, s.origin, s.key, s.url, s.submitter, v.number,"
	" v.title, coalesce(v.verdict, -1),"
	" (SELECT min(created) FROM versions WHERE series_id = s.id),"
	" max(coalesce(s.updated, 0), coalesce(v.created, 0)) AS touched,"
	" coalesce(a.nd, 0), coalesce(a.nm, 0), coalesce(a.ns, 0),"
	" coalesce(a.nr, 0), coalesce(a.na, 0),"
	" v.landed_branch, v.landed_commit"
	" FROM series s JOIN versions v ON v.series_id = s.id"
	" AND v.number = (SELECT max(number) FROM versions"
	"  WHERE series_id = s.id)"
	" LEFT JOIN (SELECT d.series_id AS sid, d.version AS ver,"
	"  count(DISTINCT d.id) AS nd, count(m.idx) AS nm,"
	"  sum(m.status = 1) AS ns, sum(m.status = 2) AS nr,"
	"  sum(m.attempts) AS na FROM deliveries d"
	"  LEFT JOIN delivery_messages m ON m.delivery_id = d.id"
	"  GROUP BY d.series_id, d.version) a"
	" ON a.sid = s.id AND a.ver = v.number"
	" WHERE ?1 = 0 OR s.id = ?1"
	" ORDER BY touched DESC, s.id DESC LIMIT ?2";

int pr_store_foreach_series(struct pr_store *st, int64_t only, int limit,
			    pr_store_series_fn fn, void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	/* SQLite takes a negative LIMIT as none */
	err = pr_sql_prepare(&q, pr_store_sql(st), "list series", series_sql,
			     "Ii", only, limit > 0 ? limit : -1);
	while (!err && (err = pr_sql_next(&q)) > 0) {
		struct pr_store_series_view s = {
			pr_sql_int64(&q, 0), pr_sql_text(&q, 1),
			pr_sql_text(&q, 2),  pr_sql_text(&q, 3),
			pr_sql_text(&q, 4),  pr_sql_int(&q, 5),
			pr_sql_text(&q, 6),  pr_sql_int(&q, 7),
			pr_sql_int64(&q, 8), pr_sql_int64(&q, 9),
			pr_sql_int(&q, 10),  pr_sql_int(&q, 11),
			pr_sql_int(&q, 12),  pr_sql_int(&q, 13),
			pr_sql_int(&q, 14),  pr_sql_text(&q, 15),
			pr_sql_text(&q, 16),
		};

		err = fn(&s, payload);
	}
	pr_sql_finish(&q);
	return err;
}

int pr_store_foreach_version(struct pr_store *st, int64_t series_id,
			     pr_store_version_fn fn, void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_prepare(&q, pr_store_sql(st), "list versions",
			     "SELECT number, title, nr_patches,"
			     " coalesce(created, 0), coalesce(verdict, -1),"
			     " landed_branch, landed_commit FROM versions"
			     " WHERE series_id = ? ORDER BY number DESC",
			     "I", series_id);
	while (!err && (err = pr_sql_next(&q)) > 0) {
		struct pr_store_version_view v = {
			pr_sql_int(&q, 0),  pr_sql_text(&q, 1),
			pr_sql_int(&q, 2),  pr_sql_int64(&q, 3),
			pr_sql_int(&q, 4),  pr_sql_text(&q, 5),
			pr_sql_text(&q, 6),
		};

		err = fn(&v, payload);
	}
	pr_sql_finish(&q);
	return err;
}

int pr_store_foreach_delivery(struct pr_store *st, int64_t series_id,
			      pr_store_delivery_fn fn, void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_prepare(
		&q, pr_store_sql(st), "list deliveries",
		"SELECT d.id, d.version, d.sink, d.nr_messages,"
		" sum(m.status = 1), sum(m.status = 2), sum(m.attempts),"
		" (SELECT last_error FROM delivery_messages e"
		"  WHERE e.delivery_id = d.id AND last_error IS NOT NULL"
		"  AND last_error != '' ORDER BY updated DESC, idx DESC"
		"  LIMIT 1),"
		" coalesce(max(m.updated), 0)"
		" FROM deliveries d JOIN delivery_messages m"
		" ON m.delivery_id = d.id WHERE d.series_id = ?"
		" GROUP BY d.id ORDER BY d.version DESC, d.sink",
		"I", series_id);
	while (!err && (err = pr_sql_next(&q)) > 0) {
		struct pr_store_delivery_view d = {
			pr_sql_int64(&q, 0), pr_sql_int(&q, 1),
			pr_sql_text(&q, 2),  pr_sql_int(&q, 3),
			pr_sql_int(&q, 4),   pr_sql_int(&q, 5),
			pr_sql_int(&q, 6),   pr_sql_text(&q, 7),
			pr_sql_int64(&q, 8),
		};

		err = fn(&d, payload);
	}
	pr_sql_finish(&q);
	return err;
}

int pr_store_foreach_message(struct pr_store *st, int64_t delivery,
			     pr_store_message_fn fn, void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_prepare(&q, pr_store_sql(st), "list messages",
			     "SELECT idx, status, attempts, message_id,"
			     " last_error, coalesce(updated, 0)"
			     " FROM delivery_messages WHERE delivery_id = ?"
			     " ORDER BY idx",
			     "I", delivery);
	while (!err && (err = pr_sql_next(&q)) > 0) {
		struct pr_store_message_view m = {
			pr_sql_int(&q, 0),  pr_sql_int(&q, 1),
			pr_sql_int(&q, 2),  pr_sql_text(&q, 3),
			pr_sql_text(&q, 4), pr_sql_int64(&q, 5),
		};

		err = fn(&m, payload);
	}
	pr_sql_finish(&q);
	return err;
}

int pr_store_foreach_recipient(struct pr_store *st, int64_t delivery,
			       pr_store_recipient_fn fn, void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_prepare(&q, pr_store_sql(st), "list recipients",
			     "SELECT role, name, email, reason"
			     " FROM delivery_recipients WHERE delivery_id = ?"
			     " ORDER BY idx",
			     "I", delivery);
	while (!err && (err = pr_sql_next(&q)) > 0) {
		struct pr_store_recipient_view r = {
			pr_sql_int(&q, 0),
			pr_sql_text(&q, 1),
			pr_sql_text(&q, 2),
			pr_sql_text(&q, 3),
		};

		err = fn(&r, payload);
	}
	pr_sql_finish(&q);
	return err;
}

int pr_store_foreach_identity(struct pr_store *st, int64_t series_id,
			      pr_store_identity_fn fn, void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_prepare(&q, pr_store_sql(st), "list identities",
			     "SELECT kind, value FROM identities"
			     " WHERE series_id = ? ORDER BY kind, rowid",
			     "I", series_id);
	while (!err && (err = pr_sql_next(&q)) > 0)
		err = fn(pr_sql_text(&q, 0), pr_sql_text(&q, 1), payload);
	pr_sql_finish(&q);
	return err;
}

int pr_store_foreach_entry(struct pr_store *st, int64_t series_id, int version,
			   pr_store_entry_fn fn, void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_prepare(&q, pr_store_sql(st), "list report",
			     "SELECT step, rule, verdict, patch, message,"
			     " detail FROM report_entries"
			     " WHERE series_id = ? AND version = ?"
			     " ORDER BY idx",
			     "Ii", series_id, version);
	while (!err && (err = pr_sql_next(&q)) > 0) {
		/* the walk lends its strings; the entry owns none */
		struct pr_report_entry e = {
			(char *)pr_sql_text(&q, 0),
			(char *)pr_sql_text(&q, 1),
			(enum pr_verdict)pr_sql_int(&q, 2),
			pr_sql_int(&q, 3),
			(char *)pr_sql_text(&q, 4),
			(char *)pr_sql_text(&q, 5),
		};

		err = fn(&e, payload);
	}
	pr_sql_finish(&q);
	return err;
}

int pr_store_count_messages(struct pr_store *st, int64_t *pending,
			    int64_t *rejected)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_row(&q, pr_store_sql(st), "count messages",
			 "SELECT coalesce(sum(status = 0), 0),"
			 " coalesce(sum(status = 2), 0) FROM delivery_messages",
			 "");
	if (!err) {
		*pending = pr_sql_int64(&q, 0);
		*rejected = pr_sql_int64(&q, 1);
	}
	pr_sql_finish(&q);
	return err;
}
