#include "base/pr.h"

#include <git2.h>

#include "base/sha1.h"
#include "model/model.h"
#include "engine/sql.h"
#include "engine/store.h"

struct pr_store {
	struct pr_sql sql;
};

/*
 * Forward migrations: step i (0-based) takes the schema from version i to
 * version i + 1.  Never edit a step once released; add a new one.
 */
static const char *const migrations[] = {
	/* 1: the first schema */
	"CREATE TABLE schema_version (version INTEGER NOT NULL);"
	"INSERT INTO schema_version VALUES (0);"
	"CREATE TABLE cursors (source TEXT PRIMARY KEY, cursor TEXT,"
	" etag TEXT);"
	"CREATE TABLE series (id INTEGER PRIMARY KEY, origin TEXT NOT NULL,"
	" key TEXT NOT NULL, UNIQUE (origin, key));"
	"CREATE TABLE versions (series_id INTEGER NOT NULL REFERENCES series,"
	" number INTEGER NOT NULL, fingerprint TEXT NOT NULL,"
	" nr_patches INTEGER NOT NULL, PRIMARY KEY (series_id, number));"
	"CREATE TABLE identities (kind TEXT NOT NULL, value TEXT NOT NULL,"
	" series_id INTEGER NOT NULL REFERENCES series,"
	" PRIMARY KEY (kind, value));"
	"CREATE TABLE deliveries (id INTEGER PRIMARY KEY,"
	" series_id INTEGER NOT NULL REFERENCES series,"
	" version INTEGER NOT NULL, sink TEXT NOT NULL,"
	" nr_messages INTEGER NOT NULL, UNIQUE (series_id, version, sink));"
	"CREATE TABLE delivery_messages (delivery_id INTEGER NOT NULL"
	" REFERENCES deliveries, idx INTEGER NOT NULL,"
	" status INTEGER NOT NULL DEFAULT 0,"
	" attempts INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY (delivery_id, idx));",
	/* 2: remember why a message failed, and when things happened */
	"ALTER TABLE delivery_messages ADD COLUMN last_error TEXT;"
	"ALTER TABLE delivery_messages ADD COLUMN updated INTEGER;"
	"ALTER TABLE versions ADD COLUMN created INTEGER;",
	/*
	 * 3: each version's patches (the format-patch mbox, for the
	 * range-diff of the next version) and each delivery's base Date
	 */
	"ALTER TABLE versions ADD COLUMN mbox BLOB;"
	"CREATE TABLE delivery_times (series_id INTEGER NOT NULL"
	" REFERENCES series, version INTEGER NOT NULL, sink TEXT NOT NULL,"
	" base_time INTEGER NOT NULL,"
	" PRIMARY KEY (series_id, version, sink));",
	/*
	 * 4: the identity map's Message-IDs (each sent message's, in the
	 * same row as its status), the way back from a series to its
	 * external ids, and status 2, rejected (no DDL: a value)
	 */
	"ALTER TABLE delivery_messages ADD COLUMN message_id TEXT;"
	"CREATE INDEX delivery_messages_by_message_id"
	" ON delivery_messages (message_id);"
	"CREATE INDEX identities_by_series ON identities (series_id, kind);",
	/*
	 * 5: each version's patch-ids, so that commits landing on a watched
	 * branch find their versions, and where and when a version landed
	 */
	"CREATE TABLE version_patches (series_id INTEGER NOT NULL"
	" REFERENCES series, number INTEGER NOT NULL, idx INTEGER NOT NULL,"
	" patch_id TEXT NOT NULL, landed_commit TEXT,"
	" PRIMARY KEY (series_id, number, idx));"
	"CREATE INDEX version_patches_by_patch_id"
	" ON version_patches (patch_id);"
	"ALTER TABLE versions ADD COLUMN landed_branch TEXT;"
	"ALTER TABLE versions ADD COLUMN landed_commit TEXT;"
	"ALTER TABLE versions ADD COLUMN landed_time INTEGER;",
	/* 6: what connectors keep about the world they talk to (notes.h) */
	/* parenthesised: clang's -Wstring-concatenation takes a lone pair
	 * in a list for a missing comma */
	("CREATE TABLE notes (scope TEXT NOT NULL, key TEXT NOT NULL,"
	 " value TEXT NOT NULL, PRIMARY KEY (scope, key));"),
	/*
	 * 7: what the status page shows (store_view.h): a version's title
	 * and the verdict and entries of the last report a route made of
	 * it, the series' link and submitter, each delivery's recipients
	 */
	"ALTER TABLE series ADD COLUMN url TEXT;"
	"ALTER TABLE series ADD COLUMN submitter TEXT;"
	"ALTER TABLE series ADD COLUMN updated INTEGER;"
	"ALTER TABLE versions ADD COLUMN title TEXT;"
	"ALTER TABLE versions ADD COLUMN verdict INTEGER;"
	"CREATE TABLE report_entries (series_id INTEGER NOT NULL"
	" REFERENCES series, version INTEGER NOT NULL, idx INTEGER NOT NULL,"
	" step TEXT NOT NULL, rule TEXT NOT NULL, verdict INTEGER NOT NULL,"
	" patch INTEGER NOT NULL, message TEXT NOT NULL, detail TEXT,"
	" PRIMARY KEY (series_id, version, idx));"
	"CREATE TABLE delivery_recipients (delivery_id INTEGER NOT NULL"
	" REFERENCES deliveries, idx INTEGER NOT NULL, role INTEGER NOT NULL,"
	" name TEXT, email TEXT NOT NULL, reason TEXT,"
	" PRIMARY KEY (delivery_id, idx));",
	/*
	 * 8: the bridge (engine/idmap.h): each mail of a version, seen or
	 * sent, with what a reply to it needs; each comment that crossed to
	 * a sink and what it became there; the review trailers gathered
	 */
	("CREATE TABLE mails (message_id TEXT PRIMARY KEY,"
	 " series_id INTEGER NOT NULL REFERENCES series,"
	 " version INTEGER NOT NULL, idx INTEGER NOT NULL,"
	 " subject TEXT NOT NULL, refs TEXT NOT NULL);"
	 "CREATE INDEX mails_by_series ON mails (series_id, version, idx);"
	 "CREATE TABLE relays (item TEXT NOT NULL, sink TEXT NOT NULL,"
	 " series_id INTEGER NOT NULL REFERENCES series, posted TEXT,"
	 " time INTEGER, PRIMARY KEY (item, sink));"
	 "CREATE INDEX relays_by_posted ON relays (posted);"
	 "CREATE TABLE trailers (seq INTEGER PRIMARY KEY,"
	 " series_id INTEGER NOT NULL REFERENCES series,"
	 " version INTEGER NOT NULL, idx INTEGER NOT NULL, patch_id TEXT,"
	 " key TEXT NOT NULL, value TEXT NOT NULL, item TEXT NOT NULL,"
	 " UNIQUE (series_id, item, version, idx, key, value));"),
	/*
	 * 9: each version's text fingerprint (pr_store_text_fingerprint), so
	 * that a version whose commit messages alone changed is new; NULL in
	 * the rows written before
	 */
	"ALTER TABLE versions ADD COLUMN text_fp TEXT;",
};

_Static_assert(PR_ARRAY_SIZE(migrations) == PR_STORE_SCHEMA_LATEST,
	       "PR_STORE_SCHEMA_LATEST must match the migration list");

static int read_version(int *out, struct pr_store *st)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int64_t n;
	int err;

	*out = 0;
	if ((err = pr_sql_get_int64(&n, &st->sql, "read schema",
				    "SELECT count(*) FROM sqlite_master"
				    " WHERE type = 'table' AND"
				    " name = 'schema_version'",
				    "")) ||
	    n == 0)
		return err;
	err = pr_sql_row(&q, &st->sql, "read schema",
			 "SELECT version FROM schema_version", "");
	if (!err)
		*out = pr_sql_int(&q, 0);
	else if (err == PR_ENOENT)
		err = pr_error(PR_ESTATE, "state store '%s': no schema version",
			       st->sql.path);
	pr_sql_finish(&q);
	return err;
}

static int migrate(struct pr_store *st, int target)
{
	struct pr_buf sql = PR_BUF_INIT;
	int version, err;

	if ((err = read_version(&version, st)))
		goto done;
	if (version > PR_STORE_SCHEMA_LATEST) {
		err = pr_error(PR_ESTATE,
			       "state store '%s': schema version %d is newer"
			       " than this patchrelay (%d)",
			       st->sql.path, version, PR_STORE_SCHEMA_LATEST);
		goto done;
	}
	for (; version < target; version++) {
		pr_buf_reset(&sql);
		if ((err = pr_buf_addf(&sql,
				       "%s UPDATE schema_version SET version"
				       " = %d;",
				       migrations[version], version + 1)) ||
		    (err = pr_sql_begin(&st->sql)))
			goto done;
		err = pr_sql_end(&st->sql, pr_sql_exec(&st->sql, sql.ptr));
		if (err) {
			err = pr_error_wrap(err, "migration to schema %d",
					    version + 1);
			goto done;
		}
	}
done:
	pr_buf_release(&sql);
	return err;
}

int pr_store_open_version(struct pr_store **out, const char *path,
			  int max_version)
{
	struct pr_store *st;
	int err = 0;

	*out = NULL;
	if (max_version < 1 || max_version > PR_STORE_SCHEMA_LATEST)
		return pr_error(PR_EINVAL, "state store '%s': no schema %d",
				path, max_version);
	st = pr_calloc(1, sizeof(*st));
	if ((err = pr_sql_open(&st->sql, path)))
		goto done;
	/*
	 * WAL with synchronous = NORMAL: a commit is appended to the log
	 * without an fsync, so a process that is killed loses nothing (the
	 * log is in the kernel's cache) and the database is never corrupt;
	 * only a power cut or kernel crash can take back the newest commits,
	 * and then a prefix of the history survives (the log's frames are
	 * checksummed in a chain).  The engine makes the store durable with
	 * pr_store_sync() before anything goes out to a sink or a feedback
	 * node, and after each source's poll (docs/internals/run.md).
	 */
	if ((err = pr_sql_exec(&st->sql, "PRAGMA journal_mode = WAL;"
					 "PRAGMA synchronous = NORMAL;"
					 "PRAGMA foreign_keys = ON;")))
		goto done;
	if ((err = migrate(st, max_version)))
		goto done;
	*out = st;
	st = NULL;
done:
	pr_store_free(st);
	return err;
}

int pr_store_sync(struct pr_store *st)
{
	return pr_sql_sync(&st->sql);
}

struct pr_sql *pr_store_sql(struct pr_store *st)
{
	return &st->sql;
}

const char *pr_store_path(const struct pr_store *st)
{
	return st->sql.path;
}

int pr_store_open(struct pr_store **out, const char *path)
{
	return pr_store_open_version(out, path, PR_STORE_SCHEMA_LATEST);
}

void pr_store_free(struct pr_store *st)
{
	if (!st)
		return;
	pr_sql_close(&st->sql);
	free(st);
}

int pr_store_schema_version(struct pr_store *st)
{
	int version, err;

	if ((err = read_version(&version, st)))
		return err;
	return version;
}

int pr_store_cursor_get(struct pr_store *st, const char *source,
			struct pr_buf *cursor, struct pr_buf *etag)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_row(&q, &st->sql, "read cursor",
			 "SELECT cursor, etag FROM cursors WHERE source = ?",
			 "s", source);
	/* a NULL cursor or etag appends nothing */
	if (!err && cursor && pr_sql_text(&q, 0))
		err = pr_buf_adds(cursor, pr_sql_text(&q, 0));
	if (!err && etag && pr_sql_text(&q, 1))
		err = pr_buf_adds(etag, pr_sql_text(&q, 1));
	pr_sql_finish(&q);
	return err;
}

int pr_store_cursor_set(struct pr_store *st, const char *source,
			const char *cursor, const char *etag)
{
	return pr_sql_run(&st->sql, "write cursor",
			  "INSERT INTO cursors (source, cursor, etag)"
			  " VALUES (?, ?, ?) ON CONFLICT (source) DO UPDATE"
			  " SET cursor = excluded.cursor, etag = excluded.etag",
			  "sss", source, cursor, etag);
}

int pr_store_fingerprint(char out[41], const struct pr_version *v)
{
	struct pr_buf all = PR_BUF_INIT;
	size_t i;
	int err = 0;

	out[0] = '\0';
	for (i = 0; i < v->nr; i++) {
		const struct pr_patch *p = v->patches[i];

		/* a separator per patch so two patches never read as one */
		if (p->patch_id[0])
			err = pr_buf_addf(&all, "id %s\n", p->patch_id);
		else
			err = pr_buf_addf(&all, "diff %zu\n%s\n",
					  p->diff ? strlen(p->diff) : 0,
					  p->diff ? p->diff : "");
		if (err)
			goto done;
	}
	pr_sha1_git_blob_hex(out, all.ptr, all.len);
done:
	pr_buf_release(&all);
	return err;
}

int pr_store_text_fingerprint(char out[41], const struct pr_version *v)
{
	struct pr_buf all = PR_BUF_INIT;
	size_t i;
	int err = 0;

	out[0] = '\0';
	/* lengths first, so that no two messages run together */
	for (i = 0; i < v->nr && !err; i++) {
		const struct pr_patch *p = v->patches[i];
		const char *subject = p->subject ? p->subject : "";
		const char *body = p->body ? p->body : "";

		err = pr_buf_addf(&all, "%zu %zu\n%s\n%s\n", strlen(subject),
				  strlen(body), subject, body);
	}
	if (!err)
		pr_sha1_git_blob_hex(out, all.ptr, all.len);
	pr_buf_release(&all);
	return err;
}

int pr_store_series_find(int64_t *out, struct pr_store *st, const char *origin,
			 const char *key)
{
	return pr_sql_get_int64(out, &st->sql, "find series",
				"SELECT id FROM series WHERE origin = ?"
				" AND key = ?",
				"ss", origin, key);
}

/*
 * The version of a series with `fingerprint` (*match, 0 if none) and its
 * latest version number (*latest, 0 if none).  Any stored version counts,
 * not only the latest: a source that reads old mail again (a lost cursor,
 * a new IMAP UIDVALIDITY) must find v1 as v1, not record it as v3.
 */
static int find_version(int *match, int *latest, struct pr_store *st,
			int64_t series_id, const char *fingerprint,
			const char *text_fp)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	*match = 0;
	*latest = 0;
	/*
	 * the lowest number wins should two versions share a fingerprint
	 * (a store written before this lookup matched any version); without
	 * a text, the query of schema 8 (the tests' older stores use it)
	 */
	if (text_fp)
		err = pr_sql_row(&q, &st->sql, "read versions",
				 "SELECT coalesce(max(number), 0),"
				 " (SELECT min(number) FROM versions WHERE"
				 "  series_id = ?1 AND fingerprint = ?2 AND"
				 "  (text_fp IS NULL OR text_fp = ?3))"
				 " FROM versions WHERE series_id = ?1",
				 "Iss", series_id, fingerprint, text_fp);
	else
		err = pr_sql_row(&q, &st->sql, "read versions",
				 "SELECT coalesce(max(number), 0),"
				 " (SELECT min(number) FROM versions WHERE"
				 "  series_id = ?1 AND fingerprint = ?2)"
				 " FROM versions WHERE series_id = ?1",
				 "Is", series_id, fingerprint);
	if (!err) {
		*latest = pr_sql_int(&q, 0);
		*match = pr_sql_int(&q, 1);
	}
	pr_sql_finish(&q);
	/* a row from before schema 9 learns its text */
	if (!err && *match && text_fp)
		err = pr_sql_run(&st->sql, "record version text",
				 "UPDATE versions SET text_fp = ?"
				 " WHERE series_id = ? AND number = ?"
				 " AND text_fp IS NULL",
				 "sIi", text_fp, series_id, *match);
	return err;
}

int pr_store_record_version(struct pr_store_version *out, struct pr_store *st,
			    const char *origin, const char *key,
			    const char *fingerprint, const char *text_fp,
			    size_t nr_patches, int first)
{
	int err, number, match;

	out->series_id = 0;
	out->number = 0;
	out->latest = 0;
	out->is_new = false;
	if ((err = pr_sql_begin(&st->sql)))
		goto done;
	err = pr_store_series_find(&out->series_id, st, origin, key);
	if (err == PR_ENOENT &&
	    !(err = pr_sql_run(&st->sql, "record series",
			       "INSERT INTO series (origin, key) VALUES (?, ?)",
			       "ss", origin, key)))
		out->series_id = pr_sql_last_id(&st->sql);
	if (!err)
		err = find_version(&match, &number, st, out->series_id,
				   fingerprint, text_fp);
	if (err)
		goto end;
	out->latest = number;
	if (match) {
		out->number = match;
		goto end;
	}
	/* the next number; a new series' first version keeps its own */
	number = number == 0 && first > 1 ? first - 1 : number;
	if (text_fp)
		err = pr_sql_run(
			&st->sql, "record version",
			"INSERT INTO versions (series_id, number,"
			" fingerprint, text_fp, nr_patches, created)"
			" VALUES (?, ?, ?, ?, ?, strftime('%s', 'now'))",
			"Iissz", out->series_id, number + 1, fingerprint,
			text_fp, nr_patches);
	else
		err = pr_sql_run(&st->sql, "record version",
				 "INSERT INTO versions (series_id, number,"
				 " fingerprint, nr_patches, created)"
				 " VALUES (?, ?, ?, ?, strftime('%s', 'now'))",
				 "Iisz", out->series_id, number + 1,
				 fingerprint, nr_patches);
	if (err)
		goto end;
	out->number = number + 1;
	out->latest = number + 1;
	out->is_new = true;
end:
	err = pr_sql_end(&st->sql, err);
done:
	if (err) {
		out->is_new = false;
		err = pr_error_wrap(err, "series '%s' of '%s'", key, origin);
	}
	return err;
}

/* A count(*) query, as an int. */
static int count(struct pr_store *st, const char *what, const char *sql,
		 int64_t id)
{
	int64_t n;
	int err = pr_sql_get_int64(&n, &st->sql, what, sql, "I", id);

	return err ? err : (int)n;
}

int pr_store_version_count(struct pr_store *st, int64_t series_id)
{
	return count(st, "count versions",
		     "SELECT count(*) FROM versions WHERE series_id = ?",
		     series_id);
}

int pr_store_version_latest(struct pr_store *st, int64_t series_id)
{
	return count(st, "read latest version",
		     "SELECT coalesce(max(number), 0) FROM versions"
		     " WHERE series_id = ?",
		     series_id);
}

int pr_store_delivery_pending(struct pr_store *st, int64_t delivery)
{
	return count(st, "count pending messages",
		     "SELECT count(*) FROM delivery_messages WHERE"
		     " delivery_id = ? AND status = 0",
		     delivery);
}

int pr_store_identity_find(int64_t *series_id, struct pr_store *st,
			   const char *kind, const char *value)
{
	return pr_sql_get_int64(series_id, &st->sql, "find identity",
				"SELECT series_id FROM identities WHERE"
				" kind = ? AND value = ?",
				"ss", kind, value);
}

int pr_store_identity_add(struct pr_store *st, int64_t series_id,
			  const char *kind, const char *value)
{
	int64_t other;
	int err;

	err = pr_store_identity_find(&other, st, kind, value);
	if (!err && other != series_id)
		return pr_error(PR_EEXIST,
				"identity %s '%s' already names another series",
				kind, value);
	if (err != PR_ENOENT)
		return err;
	return pr_sql_run(&st->sql, "record identity",
			  "INSERT INTO identities (kind, value, series_id)"
			  " VALUES (?, ?, ?)",
			  "ssI", kind, value, series_id);
}

int pr_store_identity_get(struct pr_buf *out, struct pr_store *st,
			  int64_t series_id, const char *kind)
{
	/* the first recorded, when a series has several of one kind */
	return pr_sql_get_bytes(out, &st->sql, "find identity",
				"SELECT value FROM identities WHERE"
				" series_id = ? AND kind = ?"
				" ORDER BY rowid LIMIT 1",
				"Is", series_id, kind);
}

int pr_store_delivery_open(int64_t *out, struct pr_store *st, int64_t series_id,
			   int version, const char *sink, size_t nr_messages)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int64_t found;
	size_t i;
	int err;

	*out = 0;
	if ((err = pr_sql_begin(&st->sql)))
		goto done;
	err = pr_sql_row(&q, &st->sql, "find delivery",
			 "SELECT id, nr_messages FROM deliveries WHERE"
			 " series_id = ? AND version = ? AND sink = ?",
			 "Iis", series_id, version, sink);
	if (!err) {
		*out = pr_sql_int64(&q, 0);
		found = pr_sql_int64(&q, 1);
		if ((size_t)found != nr_messages)
			err = pr_error(PR_ESTATE,
				       "delivery to sink '%s' has %lld"
				       " messages, not %zu",
				       sink, (long long)found, nr_messages);
		goto end;
	}
	if (err != PR_ENOENT ||
	    (err = pr_sql_run(&st->sql, "record delivery",
			      "INSERT INTO deliveries (series_id, version,"
			      " sink, nr_messages) VALUES (?, ?, ?, ?)",
			      "Iisz", series_id, version, sink, nr_messages)))
		goto end;
	*out = pr_sql_last_id(&st->sql);
	if ((err = pr_sql_prepare(&q, &st->sql, "record delivery message",
				  "INSERT INTO delivery_messages"
				  " (delivery_id, idx) VALUES (?, ?)",
				  NULL)))
		goto end;
	for (i = 0; i < nr_messages && !err; i++)
		if (!(err = pr_sql_bind(&q, "Iz", *out, i)))
			err = pr_sql_done(&q);
end:
	pr_sql_finish(&q);
	err = pr_sql_end(&st->sql, err);
done:
	if (err) {
		*out = 0;
		err = pr_error_wrap(err, "state store '%s'", st->sql.path);
	}
	return err;
}

static int no_message(struct pr_store *st, int64_t delivery, size_t index)
{
	return pr_error(PR_ENOENT,
			"state store '%s': no message %zu in delivery %lld",
			st->sql.path, index, (long long)delivery);
}

/* An integer column of one message row; it must exist. */
static int message_column(struct pr_store *st, const char *sql,
			  int64_t delivery, size_t index)
{
	int64_t v;
	int err = pr_sql_get_int64(&v, &st->sql, "read delivery message", sql,
				   "Iz", delivery, index);

	if (err == PR_ENOENT)
		return no_message(st, delivery, index);
	return err ? err : (int)v;
}

/* One column of one delivery_messages row (?1 delivery, ?2 index). */
#define MESSAGE_COLUMN(expr)                                           \
	"SELECT " expr " FROM delivery_messages WHERE delivery_id = ?" \
	" AND idx = ?"

int pr_store_delivery_status(struct pr_store *st, int64_t delivery,
			     size_t index)
{
	return message_column(st, MESSAGE_COLUMN("status"), delivery, index);
}

int pr_store_delivery_attempts(struct pr_store *st, int64_t delivery,
			       size_t index)
{
	return message_column(st, MESSAGE_COLUMN("attempts"), delivery, index);
}

/* An attempt that returned noted its error, or marked the row. */
int pr_store_delivery_cut_short(struct pr_store *st, int64_t delivery,
				size_t index)
{
	return message_column(st,
			      MESSAGE_COLUMN("status = 0 AND attempts > 0 AND"
					     " last_error IS NULL"),
			      delivery, index);
}

/* After an update of one message row: it must have existed. */
static int one_message(struct pr_store *st, int err, int64_t delivery,
		       size_t index)
{
	if (!err && pr_sql_changes(&st->sql) != 1)
		err = no_message(st, delivery, index);
	return err;
}

/* Update one message row (?1 delivery, ?2 index, ?3 text). */
static int message_update(struct pr_store *st, const char *sql,
			  int64_t delivery, size_t index, const char *text)
{
	return one_message(st,
			   pr_sql_run(&st->sql, "update delivery message", sql,
				      "Izs", delivery, index, text),
			   delivery, index);
}

int pr_store_delivery_attempt(struct pr_store *st, int64_t delivery,
			      size_t index, const char *error)
{
	return message_update(st,
			      "UPDATE delivery_messages SET attempts ="
			      " attempts + 1, last_error = ?3,"
			      " updated = strftime('%s', 'now')"
			      " WHERE delivery_id = ?1 AND idx = ?2",
			      delivery, index, error);
}

int pr_store_delivery_note(struct pr_store *st, int64_t delivery, size_t index,
			   const char *error)
{
	return message_update(st,
			      "UPDATE delivery_messages SET last_error = ?3,"
			      " updated = strftime('%s', 'now')"
			      " WHERE delivery_id = ?1 AND idx = ?2",
			      delivery, index, error);
}

int pr_store_delivery_mark_sent(struct pr_store *st, int64_t delivery,
				size_t index)
{
	/* no message_id: a store before schema 4 has no such column */
	return one_message(st,
			   pr_sql_run(&st->sql, "update delivery message",
				      "UPDATE delivery_messages SET status = 1,"
				      " updated = strftime('%s', 'now')"
				      " WHERE delivery_id = ? AND idx = ?",
				      "Iz", delivery, index),
			   delivery, index);
}

int pr_store_delivery_mark_sent_as(struct pr_store *st, int64_t delivery,
				   size_t index, const char *message_id)
{
	return message_update(st,
			      "UPDATE delivery_messages SET status = 1,"
			      " message_id = ?3,"
			      " updated = strftime('%s', 'now')"
			      " WHERE delivery_id = ?1 AND idx = ?2",
			      delivery, index, message_id);
}

int pr_store_delivery_mark_rejected(struct pr_store *st, int64_t delivery,
				    size_t index, const char *reason)
{
	return message_update(st,
			      "UPDATE delivery_messages SET status = 2,"
			      " last_error = ?3,"
			      " updated = strftime('%s', 'now')"
			      " WHERE delivery_id = ?1 AND idx = ?2",
			      delivery, index, reason);
}

int pr_store_message_id_find(struct pr_store_message *out, struct pr_buf *sink,
			     struct pr_store *st, const char *message_id)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_row(&q, &st->sql, "find message-id",
			 "SELECT d.series_id, d.version, m.idx, d.sink"
			 " FROM delivery_messages m JOIN deliveries d"
			 " ON d.id = m.delivery_id WHERE m.message_id = ?"
			 " ORDER BY d.id LIMIT 1",
			 "s", message_id);
	if (!err) {
		out->series_id = pr_sql_int64(&q, 0);
		out->version = pr_sql_int(&q, 1);
		out->index = (size_t)pr_sql_int64(&q, 2);
		if (sink)
			err = pr_sql_add(sink, &q, 3);
	}
	pr_sql_finish(&q);
	return err;
}

int pr_store_message_id_get(struct pr_buf *out, struct pr_store *st,
			    int64_t series_id, int version, const char *sink,
			    size_t index)
{
	return pr_sql_get_bytes(out, &st->sql, "find message-id",
				"SELECT m.message_id FROM delivery_messages m"
				" JOIN deliveries d ON d.id = m.delivery_id"
				" WHERE d.series_id = ? AND d.version = ?"
				" AND d.sink = ? AND m.idx = ?",
				"Iisz", series_id, version, sink, index);
}

int pr_store_foreach_row(struct pr_store *st, pr_store_row_fn fn, void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_prepare(
		&q, &st->sql, "list deliveries",
		"SELECT s.origin, s.key,"
		" (SELECT count(*) FROM versions v WHERE v.series_id = s.id),"
		" d.sink, d.version, d.nr_messages,"
		" (SELECT count(*) FROM delivery_messages m"
		"  WHERE m.delivery_id = d.id AND m.status = 1),"
		" (SELECT coalesce(sum(attempts), 0) FROM"
		"  delivery_messages m WHERE m.delivery_id = d.id),"
		" (SELECT last_error FROM delivery_messages m"
		"  WHERE m.delivery_id = d.id AND"
		"  last_error IS NOT NULL AND last_error != ''"
		"  ORDER BY updated DESC, idx DESC LIMIT 1),"
		" (SELECT count(*) FROM delivery_messages m"
		"  WHERE m.delivery_id = d.id AND m.status = 2)"
		" FROM series s LEFT JOIN deliveries d ON d.series_id = s.id"
		" ORDER BY s.id, d.version, d.sink",
		"");
	while (!err && (err = pr_sql_next(&q)) > 0) {
		struct pr_store_row row = {
			pr_sql_text(&q, 0), pr_sql_text(&q, 1),
			pr_sql_int(&q, 2),  pr_sql_text(&q, 3),
			pr_sql_int(&q, 4),  pr_sql_int(&q, 5),
			pr_sql_int(&q, 6),  pr_sql_int(&q, 7),
			pr_sql_text(&q, 8), pr_sql_int(&q, 9),
		};

		err = fn(&row, payload);
	}
	pr_sql_finish(&q);
	return err;
}

int pr_store_version_mbox_set(struct pr_store *st, int64_t series_id,
			      int number, const char *mbox, size_t len)
{
	int err = pr_sql_run(&st->sql, "store version mbox",
			     "UPDATE versions SET mbox = ? WHERE series_id = ?"
			     " AND number = ?",
			     "bIi", mbox, len, series_id, number);

	if (!err && pr_sql_changes(&st->sql) != 1)
		err = pr_error(PR_ENOENT,
			       "state store '%s': no version %d of series %lld",
			       st->sql.path, number, (long long)series_id);
	return err;
}

int pr_store_version_mbox_get(struct pr_buf *out, struct pr_store *st,
			      int64_t series_id, int number)
{
	return pr_sql_get_bytes(out, &st->sql, "read version",
				"SELECT mbox FROM versions WHERE series_id = ?"
				" AND number = ?",
				"Ii", series_id, number);
}

int pr_store_version_fingerprint(struct pr_buf *out, struct pr_store *st,
				 int64_t series_id, int number)
{
	return pr_sql_get_bytes(out, &st->sql, "read version",
				"SELECT fingerprint FROM versions WHERE"
				" series_id = ? AND number = ?",
				"Ii", series_id, number);
}

int pr_store_delivery_find(int64_t *out, struct pr_store *st, int64_t series_id,
			   int version, const char *sink)
{
	*out = 0;
	return pr_sql_get_int64(out, &st->sql, "find delivery",
				"SELECT id FROM deliveries WHERE series_id = ?"
				" AND version = ? AND sink = ?",
				"Iis", series_id, version, sink);
}

int pr_store_delivery_base_time(int64_t *out, struct pr_store *st,
				int64_t series_id, int version,
				const char *sink, int64_t now)
{
	int err;

	/* the first call decides; every later one reads what it stored */
	if ((err = pr_sql_run(&st->sql, "record delivery time",
			      "INSERT OR IGNORE INTO delivery_times"
			      " (series_id, version, sink, base_time)"
			      " VALUES (?, ?, ?, ?)",
			      "IisI", series_id, version, sink, now)))
		return err;
	return pr_sql_get_int64(out, &st->sql, "read delivery time",
				"SELECT base_time FROM delivery_times WHERE"
				" series_id = ? AND version = ? AND sink = ?",
				"Iis", series_id, version, sink);
}

int pr_store_version_patches_set(struct pr_store *st, int64_t series_id,
				 int number, const char *const *patch_ids,
				 size_t nr)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	size_t i;
	int err;

	if ((err = pr_sql_begin(&st->sql)))
		return err;
	err = pr_sql_prepare(&q, &st->sql, "record patch-id",
			     "INSERT OR IGNORE INTO version_patches (series_id,"
			     " number, idx, patch_id) VALUES (?, ?, ?, ?)",
			     NULL);
	for (i = 0; i < nr && !err; i++) {
		/* a patch with no diff has no id and nothing to land */
		if (!patch_ids[i] || !patch_ids[i][0])
			continue;
		if (!(err = pr_sql_bind(&q, "Iizs", series_id, number, i,
					patch_ids[i])))
			err = pr_sql_done(&q);
	}
	pr_sql_finish(&q);
	return pr_sql_end(&st->sql, err);
}

/*
 * The versions all of whose patches have landed and that are not marked
 * landed yet: mark them (the commit of the last patch) and keep them in
 * *out for the caller.
 */
static int land_versions(struct pr_store_landed **out, size_t *nr,
			 struct pr_store *st, const char *branch)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT, u = PR_SQL_STMT_INIT;
	size_t alloc = 0;
	int err;

	if ((err = pr_sql_prepare(
		     &q, &st->sql, "find landed versions",
		     "SELECT v.series_id, v.number, se.origin, se.key,"
		     " (SELECT p.landed_commit FROM version_patches p"
		     "  WHERE p.series_id = v.series_id AND"
		     "  p.number = v.number ORDER BY p.idx DESC LIMIT 1)"
		     " FROM versions v JOIN series se ON se.id = v.series_id"
		     " WHERE v.landed_commit IS NULL"
		     " AND EXISTS (SELECT 1 FROM version_patches p"
		     "  WHERE p.series_id = v.series_id"
		     "  AND p.number = v.number)"
		     " AND NOT EXISTS (SELECT 1 FROM version_patches p"
		     "  WHERE p.series_id = v.series_id"
		     "  AND p.number = v.number AND p.landed_commit IS NULL)"
		     " ORDER BY v.series_id, v.number",
		     "")) ||
	    (err = pr_sql_prepare(&u, &st->sql, "record landed version",
				  "UPDATE versions SET landed_branch = ?,"
				  " landed_commit = ?,"
				  " landed_time = strftime('%s', 'now')"
				  " WHERE series_id = ? AND number = ?",
				  NULL)))
		goto done;
	while ((err = pr_sql_next(&q)) > 0) {
		struct pr_store_landed *l;

		PR_ALLOC_GROW(*out, *nr + 1, alloc);
		l = &(*out)[(*nr)++];
		l->series_id = pr_sql_int64(&q, 0);
		l->number = pr_sql_int(&q, 1);
		l->origin = pr_strdup(pr_sql_text(&q, 2));
		l->key = pr_strdup(pr_sql_text(&q, 3));
		l->commit = pr_strdup(pr_sql_text(&q, 4));
		l->branch = pr_strdup(branch);
		if ((err = pr_sql_bind(&u, "ssIi", branch, l->commit,
				       l->series_id, l->number)) ||
		    (err = pr_sql_done(&u)))
			goto done;
	}
done:
	pr_sql_finish(&q);
	pr_sql_finish(&u);
	return err;
}

int pr_store_land(struct pr_store_landed **out, size_t *nr, struct pr_store *st,
		  const char *branch, const char *const *patch_ids,
		  const char *const *commits, size_t nr_commits)
{
	size_t i;
	int err;

	*out = NULL;
	*nr = 0;
	if ((err = pr_sql_begin(&st->sql)))
		goto done;
	for (i = 0; i < nr_commits && !err; i++)
		if (patch_ids[i] && patch_ids[i][0])
			err = pr_sql_run(&st->sql, "record landed patch",
					 "UPDATE version_patches SET"
					 " landed_commit = ? WHERE patch_id = ?"
					 " AND landed_commit IS NULL",
					 "ss", commits[i], patch_ids[i]);
	if (!err)
		err = land_versions(out, nr, st, branch);
	err = pr_sql_end(&st->sql, err);
done:
	if (err) {
		pr_store_landed_free(*out, *nr);
		*out = NULL;
		*nr = 0;
		err = pr_error_wrap(err, "landed on '%s'", branch);
	}
	return err;
}

void pr_store_landed_free(struct pr_store_landed *l, size_t nr)
{
	size_t i;

	for (i = 0; l && i < nr; i++) {
		free(l[i].origin);
		free(l[i].key);
		free(l[i].branch);
		free(l[i].commit);
	}
	free(l);
}

int pr_store_foreach_landed(struct pr_store *st, pr_store_landed_fn fn,
			    void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_prepare(&q, &st->sql, "list landed versions",
			     "SELECT v.series_id, v.number, se.origin, se.key,"
			     " v.landed_branch, v.landed_commit"
			     " FROM versions v JOIN series se"
			     " ON se.id = v.series_id"
			     " WHERE v.landed_commit IS NOT NULL"
			     " ORDER BY v.series_id, v.number",
			     "");
	while (!err && (err = pr_sql_next(&q)) > 0) {
		struct pr_store_landed l = {
			pr_sql_int64(&q, 0),	    pr_sql_int(&q, 1),
			(char *)pr_sql_text(&q, 2), (char *)pr_sql_text(&q, 3),
			(char *)pr_sql_text(&q, 4), (char *)pr_sql_text(&q, 5),
		};

		err = fn(&l, payload);
	}
	pr_sql_finish(&q);
	return err;
}
