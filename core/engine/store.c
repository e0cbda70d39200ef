#include "base/pr.h"

#include <git2.h>
#include <sqlite3.h>

#include "model/model.h"
#include "engine/store.h"

struct pr_store {
	sqlite3 *db;
	char *path;
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
};

_Static_assert(PR_ARRAY_SIZE(migrations) == PR_STORE_SCHEMA_LATEST,
	       "PR_STORE_SCHEMA_LATEST must match the migration list");

static int db_error(struct pr_store *st, const char *what)
{
	return pr_error(PR_ESTATE, "state store '%s': %s: %s", st->path, what,
			sqlite3_errmsg(st->db));
}

static int exec(struct pr_store *st, const char *sql)
{
	char *msg = NULL;
	int err;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	err = pr_error(PR_ESTATE, "state store '%s': %s", st->path,
		       msg ? msg : sqlite3_errmsg(st->db));
	sqlite3_free(msg);
	return err;
}

/* End a transaction begun with BEGIN IMMEDIATE: commit, or roll back. */
static int tx_end(struct pr_store *st, int err)
{
	if (!err)
		err = exec(st, "COMMIT");
	if (err)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

static int prepare(sqlite3_stmt **out, struct pr_store *st, const char *sql)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK)
		return db_error(st, "prepare");
	return 0;
}

/* Run a statement that returns no row. */
static int step_done(struct pr_store *st, sqlite3_stmt *s, const char *what)
{
	if (sqlite3_step(s) != SQLITE_DONE)
		return db_error(st, what);
	return 0;
}

static int read_version(int *out, struct pr_store *st)
{
	sqlite3_stmt *s = NULL;
	int err = 0, rc;

	*out = 0;
	rc = sqlite3_prepare_v2(st->db,
				"SELECT count(*) FROM sqlite_master"
				" WHERE type = 'table' AND"
				" name = 'schema_version'",
				-1, &s, NULL);
	if (rc != SQLITE_OK || sqlite3_step(s) != SQLITE_ROW) {
		err = db_error(st, "read schema");
		goto done;
	}
	if (sqlite3_column_int(s, 0) == 0)
		goto done;
	sqlite3_finalize(s);
	s = NULL;
	if ((err = prepare(&s, st, "SELECT version FROM schema_version")))
		goto done;
	if (sqlite3_step(s) != SQLITE_ROW) {
		err = pr_error(PR_ESTATE, "state store '%s': no schema version",
			       st->path);
		goto done;
	}
	*out = sqlite3_column_int(s, 0);
done:
	sqlite3_finalize(s);
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
			       st->path, version, PR_STORE_SCHEMA_LATEST);
		goto done;
	}
	while (version < target) {
		pr_buf_reset(&sql);
		if ((err = pr_buf_addf(
			     &sql,
			     "BEGIN IMMEDIATE; %s"
			     " UPDATE schema_version SET version = %d;",
			     migrations[version], version + 1)))
			goto done;
		if ((err = exec(st, sql.ptr))) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			err = pr_error_wrap(err, "migration to schema %d",
					    version + 1);
			goto done;
		}
		if ((err = exec(st, "COMMIT"))) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			goto done;
		}
		version++;
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
	st->path = pr_strdup(path);
	if (sqlite3_open_v2(path, &st->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK) {
		err = db_error(st, "open");
		goto done;
	}
	/* another process (patchrelay status) may read while we write */
	sqlite3_busy_timeout(st->db, 5000);
	if ((err = exec(st, "PRAGMA journal_mode = WAL;"
			    "PRAGMA synchronous = FULL;"
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

const char *pr_store_path(const struct pr_store *st)
{
	return st->path;
}

int pr_store_open(struct pr_store **out, const char *path)
{
	return pr_store_open_version(out, path, PR_STORE_SCHEMA_LATEST);
}

void pr_store_free(struct pr_store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

int pr_store_schema_version(struct pr_store *st)
{
	int version, err;

	if ((err = read_version(&version, st)))
		return err;
	return version;
}

static void bind_text(sqlite3_stmt *s, int i, const char *text)
{
	if (text)
		sqlite3_bind_text(s, i, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

int pr_store_cursor_get(struct pr_store *st, const char *source,
			struct pr_buf *cursor, struct pr_buf *etag)
{
	sqlite3_stmt *s = NULL;
	const char *v;
	int err, rc;

	if ((err = prepare(&s, st,
			   "SELECT cursor, etag FROM cursors WHERE source = ?")))
		goto done;
	bind_text(s, 1, source);
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		err = PR_ENOENT;
		goto done;
	}
	if (rc != SQLITE_ROW) {
		err = db_error(st, "read cursor");
		goto done;
	}
	v = (const char *)sqlite3_column_text(s, 0);
	if (cursor && v && (err = pr_buf_adds(cursor, v)))
		goto done;
	v = (const char *)sqlite3_column_text(s, 1);
	if (etag && v && (err = pr_buf_adds(etag, v)))
		goto done;
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_cursor_set(struct pr_store *st, const char *source,
			const char *cursor, const char *etag)
{
	sqlite3_stmt *s = NULL;
	int err;

	if ((err = prepare(&s, st,
			   "INSERT INTO cursors (source, cursor, etag)"
			   " VALUES (?, ?, ?) ON CONFLICT (source) DO UPDATE"
			   " SET cursor = excluded.cursor,"
			   " etag = excluded.etag")))
		goto done;
	bind_text(s, 1, source);
	bind_text(s, 2, cursor);
	bind_text(s, 3, etag);
	err = step_done(st, s, "write cursor");
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_fingerprint(char out[41], const struct pr_version *v)
{
	struct pr_buf all = PR_BUF_INIT;
	git_oid oid;
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
	git_libgit2_init();
	if (git_odb_hash(&oid, all.ptr, all.len, GIT_OBJECT_BLOB) < 0)
		err = pr_error(PR_EINTERNAL, "fingerprint of version %d: %s",
			       v->number, git_error_last()->message);
	else
		git_oid_tostr(out, 41, &oid);
	git_libgit2_shutdown();
done:
	pr_buf_release(&all);
	return err;
}

int pr_store_series_find(int64_t *out, struct pr_store *st, const char *origin,
			 const char *key)
{
	sqlite3_stmt *s = NULL;
	int err, rc;

	if ((err = prepare(&s, st,
			   "SELECT id FROM series WHERE origin = ?"
			   " AND key = ?")))
		goto done;
	bind_text(s, 1, origin);
	bind_text(s, 2, key);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else if (rc == SQLITE_DONE)
		err = PR_ENOENT;
	else
		err = db_error(st, "find series");
done:
	sqlite3_finalize(s);
	return err;
}

/*
 * The version of a series with `fingerprint` (*match, 0 if none) and its
 * latest version number (*latest, 0 if none).  Any stored version counts,
 * not only the latest: a source that reads old mail again (a lost cursor,
 * a new IMAP UIDVALIDITY) must find v1 as v1, not record it as v3.
 */
static int find_version(int *match, int *latest, struct pr_store *st,
			int64_t series_id, const char *fingerprint)
{
	sqlite3_stmt *s = NULL;
	int err, rc;

	*match = 0;
	*latest = 0;
	/* the lowest number wins should two versions share a fingerprint
	 * (a store written before this lookup matched any version) */
	if ((err = prepare(&s, st,
			   "SELECT coalesce(max(number), 0),"
			   " (SELECT min(number) FROM versions WHERE"
			   "  series_id = ?1 AND fingerprint = ?2)"
			   " FROM versions WHERE series_id = ?1")))
		goto done;
	sqlite3_bind_int64(s, 1, series_id);
	bind_text(s, 2, fingerprint);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*latest = sqlite3_column_int(s, 0);
		*match = sqlite3_column_int(s, 1);
	} else {
		err = db_error(st, "read versions");
	}
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_record_version(struct pr_store_version *out, struct pr_store *st,
			    const char *origin, const char *key,
			    const char *fingerprint, size_t nr_patches)
{
	sqlite3_stmt *s = NULL;
	bool in_tx = false;
	int err, number, match;

	out->series_id = 0;
	out->number = 0;
	out->latest = 0;
	out->is_new = false;
	if ((err = exec(st, "BEGIN IMMEDIATE")))
		goto done;
	in_tx = true;
	err = pr_store_series_find(&out->series_id, st, origin, key);
	if (err == PR_ENOENT) {
		if ((err = prepare(&s, st,
				   "INSERT INTO series (origin, key)"
				   " VALUES (?, ?)")))
			goto done;
		bind_text(s, 1, origin);
		bind_text(s, 2, key);
		if ((err = step_done(st, s, "record series")))
			goto done;
		out->series_id = sqlite3_last_insert_rowid(st->db);
		sqlite3_finalize(s);
		s = NULL;
	} else if (err) {
		goto done;
	}
	if ((err = find_version(&match, &number, st, out->series_id,
				fingerprint)))
		goto done;
	out->latest = number;
	if (match) {
		out->number = match;
		goto done;
	}
	if ((err = prepare(&s, st,
			   "INSERT INTO versions (series_id, number,"
			   " fingerprint, nr_patches, created)"
			   " VALUES (?, ?, ?, ?, strftime('%s', 'now'))")))
		goto done;
	sqlite3_bind_int64(s, 1, out->series_id);
	sqlite3_bind_int(s, 2, number + 1);
	bind_text(s, 3, fingerprint);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)nr_patches);
	if ((err = step_done(st, s, "record version")))
		goto done;
	out->number = number + 1;
	out->latest = number + 1;
	out->is_new = true;
done:
	sqlite3_finalize(s);
	if (in_tx)
		err = tx_end(st, err);
	if (err) {
		out->is_new = false;
		err = pr_error_wrap(err, "series '%s' of '%s'", key, origin);
	}
	return err;
}

/* Run a one-integer query with one int64 parameter. */
static int count_query(struct pr_store *st, const char *sql, int64_t a,
		       int64_t b, int nparams)
{
	sqlite3_stmt *s = NULL;
	int err;

	if ((err = prepare(&s, st, sql)))
		goto done;
	sqlite3_bind_int64(s, 1, a);
	if (nparams > 1)
		sqlite3_bind_int64(s, 2, b);
	if (sqlite3_step(s) != SQLITE_ROW) {
		err = db_error(st, "query");
		goto done;
	}
	err = sqlite3_column_int(s, 0);
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_version_count(struct pr_store *st, int64_t series_id)
{
	return count_query(st,
			   "SELECT count(*) FROM versions WHERE"
			   " series_id = ?",
			   series_id, 0, 1);
}

int pr_store_identity_find(int64_t *series_id, struct pr_store *st,
			   const char *kind, const char *value)
{
	sqlite3_stmt *s = NULL;
	int err, rc;

	if ((err = prepare(&s, st,
			   "SELECT series_id FROM identities WHERE kind = ?"
			   " AND value = ?")))
		goto done;
	bind_text(s, 1, kind);
	bind_text(s, 2, value);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*series_id = sqlite3_column_int64(s, 0);
	else if (rc == SQLITE_DONE)
		err = PR_ENOENT;
	else
		err = db_error(st, "find identity");
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_identity_add(struct pr_store *st, int64_t series_id,
			  const char *kind, const char *value)
{
	sqlite3_stmt *s = NULL;
	int64_t other;
	int err;

	err = pr_store_identity_find(&other, st, kind, value);
	if (!err && other == series_id)
		goto done;
	if (!err) {
		err = pr_error(PR_EEXIST,
			       "identity %s '%s' already names another series",
			       kind, value);
		goto done;
	}
	if (err != PR_ENOENT)
		goto done;
	if ((err = prepare(&s, st,
			   "INSERT INTO identities (kind, value, series_id)"
			   " VALUES (?, ?, ?)")))
		goto done;
	bind_text(s, 1, kind);
	bind_text(s, 2, value);
	sqlite3_bind_int64(s, 3, series_id);
	err = step_done(st, s, "record identity");
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_delivery_open(int64_t *out, struct pr_store *st, int64_t series_id,
			   int version, const char *sink, size_t nr_messages)
{
	sqlite3_stmt *s = NULL;
	bool in_tx = false;
	size_t i;
	int err, rc;

	*out = 0;
	if ((err = exec(st, "BEGIN IMMEDIATE")))
		goto done;
	in_tx = true;
	if ((err = prepare(&s, st,
			   "SELECT id, nr_messages FROM deliveries WHERE"
			   " series_id = ? AND version = ? AND sink = ?")))
		goto done;
	sqlite3_bind_int64(s, 1, series_id);
	sqlite3_bind_int(s, 2, version);
	bind_text(s, 3, sink);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(s, 0);
		if ((size_t)sqlite3_column_int64(s, 1) != nr_messages)
			err = pr_error(
				PR_ESTATE,
				"delivery to sink '%s' has %lld messages,"
				" not %zu",
				sink, (long long)sqlite3_column_int64(s, 1),
				nr_messages);
		goto done;
	}
	if (rc != SQLITE_DONE) {
		err = db_error(st, "find delivery");
		goto done;
	}
	sqlite3_finalize(s);
	s = NULL;
	if ((err = prepare(&s, st,
			   "INSERT INTO deliveries (series_id, version, sink,"
			   " nr_messages) VALUES (?, ?, ?, ?)")))
		goto done;
	sqlite3_bind_int64(s, 1, series_id);
	sqlite3_bind_int(s, 2, version);
	bind_text(s, 3, sink);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)nr_messages);
	if ((err = step_done(st, s, "record delivery")))
		goto done;
	*out = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(s);
	s = NULL;
	if ((err = prepare(&s, st,
			   "INSERT INTO delivery_messages (delivery_id, idx)"
			   " VALUES (?, ?)")))
		goto done;
	for (i = 0; i < nr_messages; i++) {
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, *out);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
		if ((err = step_done(st, s, "record delivery message")))
			goto done;
	}
done:
	sqlite3_finalize(s);
	if (in_tx)
		err = tx_end(st, err);
	if (err) {
		*out = 0;
		err = pr_error_wrap(err, "state store '%s'", st->path);
	}
	return err;
}

static int message_column(struct pr_store *st, const char *sql,
			  int64_t delivery, size_t index)
{
	sqlite3_stmt *s = NULL;
	int err, rc;

	if ((err = prepare(&s, st, sql)))
		goto done;
	sqlite3_bind_int64(s, 1, delivery);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)index);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		err = sqlite3_column_int(s, 0);
	else if (rc == SQLITE_DONE)
		err = pr_error(PR_ENOENT,
			       "state store '%s': no message %zu in delivery"
			       " %lld",
			       st->path, index, (long long)delivery);
	else
		err = db_error(st, "read delivery message");
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_delivery_status(struct pr_store *st, int64_t delivery,
			     size_t index)
{
	return message_column(st,
			      "SELECT status FROM delivery_messages WHERE"
			      " delivery_id = ? AND idx = ?",
			      delivery, index);
}

int pr_store_delivery_attempts(struct pr_store *st, int64_t delivery,
			       size_t index)
{
	return message_column(st,
			      "SELECT attempts FROM delivery_messages WHERE"
			      " delivery_id = ? AND idx = ?",
			      delivery, index);
}

/* Update one message row; it must exist. */
static int message_update(struct pr_store *st, const char *sql,
			  int64_t delivery, size_t index, const char *text)
{
	sqlite3_stmt *s = NULL;
	int err;

	if ((err = prepare(&s, st, sql)))
		goto done;
	sqlite3_bind_int64(s, 1, delivery);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)index);
	if (sqlite3_bind_parameter_count(s) >= 3)
		bind_text(s, 3, text);
	if ((err = step_done(st, s, "update delivery message")))
		goto done;
	if (sqlite3_changes(st->db) != 1)
		err = pr_error(PR_ENOENT,
			       "state store '%s': no message %zu in delivery"
			       " %lld",
			       st->path, index, (long long)delivery);
done:
	sqlite3_finalize(s);
	return err;
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
	return message_update(st,
			      "UPDATE delivery_messages SET status = 1,"
			      " updated = strftime('%s', 'now')"
			      " WHERE delivery_id = ?1 AND idx = ?2",
			      delivery, index, NULL);
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
	sqlite3_stmt *s = NULL;
	int err, rc;

	if ((err = prepare(&s, st,
			   "SELECT d.series_id, d.version, m.idx, d.sink"
			   " FROM delivery_messages m JOIN deliveries d"
			   " ON d.id = m.delivery_id WHERE m.message_id = ?"
			   " ORDER BY d.id LIMIT 1")))
		goto done;
	bind_text(s, 1, message_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->series_id = sqlite3_column_int64(s, 0);
		out->version = sqlite3_column_int(s, 1);
		out->index = (size_t)sqlite3_column_int64(s, 2);
		if (sink)
			err = pr_buf_adds(
				sink, (const char *)sqlite3_column_text(s, 3));
	} else if (rc == SQLITE_DONE) {
		err = PR_ENOENT;
	} else {
		err = db_error(st, "find message-id");
	}
done:
	sqlite3_finalize(s);
	return err;
}

/* Append the first column of the one-row query, bound to a, b, c, d. */
static int text_query(struct pr_buf *out, struct pr_store *st, const char *sql,
		      int64_t a, int64_t b, const char *c, int64_t d)
{
	sqlite3_stmt *s = NULL;
	const unsigned char *text;
	int err, rc;

	if ((err = prepare(&s, st, sql)))
		goto done;
	sqlite3_bind_int64(s, 1, a);
	if (sqlite3_bind_parameter_count(s) >= 2)
		sqlite3_bind_int64(s, 2, b);
	if (sqlite3_bind_parameter_count(s) >= 3)
		bind_text(s, 3, c);
	if (sqlite3_bind_parameter_count(s) >= 4)
		sqlite3_bind_int64(s, 4, d);
	rc = sqlite3_step(s);
	text = rc == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
	if (text)
		err = pr_buf_adds(out, (const char *)text);
	else if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		err = PR_ENOENT;
	else
		err = db_error(st, "query");
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_message_id_get(struct pr_buf *out, struct pr_store *st,
			    int64_t series_id, int version, const char *sink,
			    size_t index)
{
	return text_query(out, st,
			  "SELECT m.message_id FROM delivery_messages m"
			  " JOIN deliveries d ON d.id = m.delivery_id"
			  " WHERE d.series_id = ?1 AND d.version = ?2"
			  " AND d.sink = ?3 AND m.idx = ?4",
			  series_id, version, sink, (int64_t)index);
}

int pr_store_identity_get(struct pr_buf *out, struct pr_store *st,
			  int64_t series_id, const char *kind)
{
	/* the first recorded, when a series has several of one kind */
	return text_query(out, st,
			  "SELECT value FROM identities WHERE series_id = ?1"
			  " AND kind = ?3 ORDER BY rowid LIMIT 1",
			  series_id, 0, kind, 0);
}

int pr_store_delivery_pending(struct pr_store *st, int64_t delivery)
{
	return count_query(st,
			   "SELECT count(*) FROM delivery_messages WHERE"
			   " delivery_id = ? AND status = 0",
			   delivery, 0, 1);
}

int pr_store_foreach_row(struct pr_store *st, pr_store_row_fn fn, void *payload)
{
	sqlite3_stmt *s = NULL;
	int err, rc;

	if ((err = prepare(&s, st,
			   "SELECT s.origin, s.key,"
			   " (SELECT count(*) FROM versions v"
			   "  WHERE v.series_id = s.id),"
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
			   " FROM series s LEFT JOIN deliveries d"
			   " ON d.series_id = s.id"
			   " ORDER BY s.id, d.version, d.sink")))
		goto done;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct pr_store_row row = {
			(const char *)sqlite3_column_text(s, 0),
			(const char *)sqlite3_column_text(s, 1),
			sqlite3_column_int(s, 2),
			(const char *)sqlite3_column_text(s, 3),
			sqlite3_column_int(s, 4),
			sqlite3_column_int(s, 5),
			sqlite3_column_int(s, 6),
			sqlite3_column_int(s, 7),
			(const char *)sqlite3_column_text(s, 8),
			sqlite3_column_int(s, 9),
		};

		if ((err = fn(&row, payload)))
			goto done;
	}
	if (rc != SQLITE_DONE)
		err = db_error(st, "list deliveries");
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_version_mbox_set(struct pr_store *st, int64_t series_id,
			      int number, const char *mbox, size_t len)
{
	sqlite3_stmt *s = NULL;
	int err;

	if ((err = prepare(&s, st,
			   "UPDATE versions SET mbox = ? WHERE series_id = ?"
			   " AND number = ?")))
		goto done;
	sqlite3_bind_blob64(s, 1, mbox, (sqlite3_uint64)len, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, series_id);
	sqlite3_bind_int(s, 3, number);
	if ((err = step_done(st, s, "store version mbox")))
		goto done;
	if (sqlite3_changes(st->db) != 1)
		err = pr_error(PR_ENOENT,
			       "state store '%s': no version %d of "
			       "series %lld",
			       st->path, number, (long long)series_id);
done:
	sqlite3_finalize(s);
	return err;
}

/* Append column 0 of the one row of a (series, number) query. */
static int version_column(struct pr_buf *out, struct pr_store *st,
			  const char *sql, int64_t series_id, int number)
{
	sqlite3_stmt *s = NULL;
	int err, rc;

	if ((err = prepare(&s, st, sql)))
		goto done;
	sqlite3_bind_int64(s, 1, series_id);
	sqlite3_bind_int(s, 2, number);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		err = pr_buf_add(out, sqlite3_column_blob(s, 0),
				 (size_t)sqlite3_column_bytes(s, 0));
	} else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
		err = PR_ENOENT;
	} else {
		err = db_error(st, "read version");
	}
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_version_mbox_get(struct pr_buf *out, struct pr_store *st,
			      int64_t series_id, int number)
{
	return version_column(out, st,
			      "SELECT mbox FROM versions WHERE series_id = ?"
			      " AND number = ?",
			      series_id, number);
}

int pr_store_version_fingerprint(struct pr_buf *out, struct pr_store *st,
				 int64_t series_id, int number)
{
	return version_column(out, st,
			      "SELECT fingerprint FROM versions WHERE"
			      " series_id = ? AND number = ?",
			      series_id, number);
}

int pr_store_delivery_find(int64_t *out, struct pr_store *st, int64_t series_id,
			   int version, const char *sink)
{
	sqlite3_stmt *s = NULL;
	int err, rc;

	*out = 0;
	if ((err = prepare(&s, st,
			   "SELECT id FROM deliveries WHERE series_id = ?"
			   " AND version = ? AND sink = ?")))
		goto done;
	sqlite3_bind_int64(s, 1, series_id);
	sqlite3_bind_int(s, 2, version);
	bind_text(s, 3, sink);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else if (rc == SQLITE_DONE)
		err = PR_ENOENT;
	else
		err = db_error(st, "find delivery");
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_delivery_base_time(int64_t *out, struct pr_store *st,
				int64_t series_id, int version,
				const char *sink, int64_t now)
{
	sqlite3_stmt *s = NULL;
	int err, rc;

	/* the first call decides; every later one reads what it stored */
	if ((err = prepare(&s, st,
			   "INSERT OR IGNORE INTO delivery_times (series_id,"
			   " version, sink, base_time) VALUES (?, ?, ?, ?)")))
		goto done;
	sqlite3_bind_int64(s, 1, series_id);
	sqlite3_bind_int(s, 2, version);
	bind_text(s, 3, sink);
	sqlite3_bind_int64(s, 4, now);
	if ((err = step_done(st, s, "record delivery time")))
		goto done;
	sqlite3_finalize(s);
	s = NULL;
	if ((err = prepare(&s, st,
			   "SELECT base_time FROM delivery_times WHERE"
			   " series_id = ? AND version = ? AND sink = ?")))
		goto done;
	sqlite3_bind_int64(s, 1, series_id);
	sqlite3_bind_int(s, 2, version);
	bind_text(s, 3, sink);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		err = db_error(st, "read delivery time");
		goto done;
	}
	*out = sqlite3_column_int64(s, 0);
done:
	sqlite3_finalize(s);
	return err;
}

int pr_store_version_patches_set(struct pr_store *st, int64_t series_id,
				 int number, const char *const *patch_ids,
				 size_t nr)
{
	sqlite3_stmt *s = NULL;
	bool in_tx = false;
	size_t i;
	int err;

	if ((err = exec(st, "BEGIN IMMEDIATE")))
		goto done;
	in_tx = true;
	if ((err = prepare(&s, st,
			   "INSERT OR IGNORE INTO version_patches (series_id,"
			   " number, idx, patch_id) VALUES (?, ?, ?, ?)")))
		goto done;
	for (i = 0; i < nr; i++) {
		/* a patch with no diff has no id and nothing to land */
		if (!patch_ids[i] || !patch_ids[i][0])
			continue;
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, series_id);
		sqlite3_bind_int(s, 2, number);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)i);
		bind_text(s, 4, patch_ids[i]);
		if ((err = step_done(st, s, "record patch-id")))
			goto done;
	}
done:
	sqlite3_finalize(s);
	if (in_tx)
		err = tx_end(st, err);
	return err;
}

/* Mark every not yet landed patch with patch_id as landed as commit. */
static int land_patch(struct pr_store *st, const char *patch_id,
		      const char *commit)
{
	sqlite3_stmt *s = NULL;
	int err;

	if ((err = prepare(&s, st,
			   "UPDATE version_patches SET landed_commit = ?"
			   " WHERE patch_id = ? AND landed_commit IS NULL")))
		goto done;
	bind_text(s, 1, commit);
	bind_text(s, 2, patch_id);
	err = step_done(st, s, "record landed patch");
done:
	sqlite3_finalize(s);
	return err;
}

/*
 * The versions all of whose patches have landed and that are not marked
 * landed yet: mark them (the commit of the last patch) and keep them in
 * *out for the caller.
 */
static int land_versions(struct pr_store_landed **out, size_t *nr,
			 struct pr_store *st, const char *branch)
{
	sqlite3_stmt *s = NULL, *u = NULL;
	size_t alloc = 0;
	int err, rc;

	if ((err = prepare(&s, st,
			   "SELECT v.series_id, v.number, se.origin, se.key,"
			   " (SELECT p.landed_commit FROM version_patches p"
			   "  WHERE p.series_id = v.series_id AND"
			   "  p.number = v.number ORDER BY p.idx DESC LIMIT 1)"
			   " FROM versions v JOIN series se"
			   " ON se.id = v.series_id"
			   " WHERE v.landed_commit IS NULL"
			   " AND EXISTS (SELECT 1 FROM version_patches p"
			   "  WHERE p.series_id = v.series_id"
			   "  AND p.number = v.number)"
			   " AND NOT EXISTS (SELECT 1 FROM version_patches p"
			   "  WHERE p.series_id = v.series_id"
			   "  AND p.number = v.number"
			   "  AND p.landed_commit IS NULL)"
			   " ORDER BY v.series_id, v.number")) ||
	    (err = prepare(&u, st,
			   "UPDATE versions SET landed_branch = ?,"
			   " landed_commit = ?,"
			   " landed_time = strftime('%s', 'now')"
			   " WHERE series_id = ? AND number = ?")))
		goto done;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct pr_store_landed *l;

		PR_ALLOC_GROW(*out, *nr + 1, alloc);
		l = &(*out)[(*nr)++];
		memset(l, 0, sizeof(*l));
		l->series_id = sqlite3_column_int64(s, 0);
		l->number = sqlite3_column_int(s, 1);
		l->origin = pr_strdup((const char *)sqlite3_column_text(s, 2));
		l->key = pr_strdup((const char *)sqlite3_column_text(s, 3));
		l->commit = pr_strdup((const char *)sqlite3_column_text(s, 4));
		l->branch = pr_strdup(branch);
		sqlite3_reset(u);
		bind_text(u, 1, branch);
		bind_text(u, 2, l->commit);
		sqlite3_bind_int64(u, 3, l->series_id);
		sqlite3_bind_int(u, 4, l->number);
		if ((err = step_done(st, u, "record landed version")))
			goto done;
	}
	if (rc != SQLITE_DONE)
		err = db_error(st, "find landed versions");
done:
	sqlite3_finalize(s);
	sqlite3_finalize(u);
	return err;
}

int pr_store_land(struct pr_store_landed **out, size_t *nr, struct pr_store *st,
		  const char *branch, const char *const *patch_ids,
		  const char *const *commits, size_t nr_commits)
{
	bool in_tx = false;
	size_t i;
	int err;

	*out = NULL;
	*nr = 0;
	if ((err = exec(st, "BEGIN IMMEDIATE")))
		goto done;
	in_tx = true;
	for (i = 0; i < nr_commits; i++)
		if (patch_ids[i] && patch_ids[i][0] &&
		    (err = land_patch(st, patch_ids[i], commits[i])))
			goto done;
	err = land_versions(out, nr, st, branch);
done:
	if (in_tx)
		err = tx_end(st, err);
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
	sqlite3_stmt *s = NULL;
	int err, rc;

	if ((err = prepare(&s, st,
			   "SELECT v.series_id, v.number, se.origin, se.key,"
			   " v.landed_branch, v.landed_commit"
			   " FROM versions v JOIN series se"
			   " ON se.id = v.series_id"
			   " WHERE v.landed_commit IS NOT NULL"
			   " ORDER BY v.series_id, v.number")))
		goto done;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct pr_store_landed l = {
			sqlite3_column_int64(s, 0),
			sqlite3_column_int(s, 1),
			(char *)sqlite3_column_text(s, 2),
			(char *)sqlite3_column_text(s, 3),
			(char *)sqlite3_column_text(s, 4),
			(char *)sqlite3_column_text(s, 5),
		};

		if ((err = fn(&l, payload)))
			goto done;
	}
	if (rc != SQLITE_DONE)
		err = db_error(st, "list landed versions");
done:
	sqlite3_finalize(s);
	return err;
}
