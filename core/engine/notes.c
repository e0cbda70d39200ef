#include "base/pr.h"

#include <sqlite3.h>

#include "engine/notes.h"
#include "engine/store.h"

static int db_error(sqlite3 *db, const char *path, const char *what)
{
	return pr_error(PR_ESTATE, "state store '%s': notes: %s: %s", path,
			what, db ? sqlite3_errmsg(db) : "out of memory");
}

/*
 * A connection of our own to the store's file; with `create` the table
 * is made when missing, else *out is NULL when there is no table yet.
 */
static int notes_open(sqlite3 **out, struct pr_store *st, bool create)
{
	const char *path = pr_store_path(st);
	sqlite3_stmt *s = NULL;
	sqlite3 *db = NULL;
	int err = 0;

	*out = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		err = db_error(db, path, "open");
		goto done;
	}
	sqlite3_busy_timeout(db, 5000);
	if (create) {
		if (sqlite3_exec(db,
				 "CREATE TABLE IF NOT EXISTS notes ("
				 "scope TEXT NOT NULL, key TEXT NOT NULL, "
				 "value TEXT NOT NULL, "
				 "PRIMARY KEY (scope, key))",
				 NULL, NULL, NULL) != SQLITE_OK)
			err = db_error(db, path, "create");
	} else {
		if (sqlite3_prepare_v2(db,
				       "SELECT 1 FROM sqlite_master WHERE "
				       "type = 'table' AND name = 'notes'",
				       -1, &s, NULL) != SQLITE_OK) {
			err = db_error(db, path, "read schema");
			goto done;
		}
		if (sqlite3_step(s) != SQLITE_ROW)
			goto done;
	}
	if (!err) {
		*out = db;
		db = NULL;
	}
done:
	sqlite3_finalize(s);
	sqlite3_close(db);
	return err;
}

int pr_notes_get(struct pr_buf *out, struct pr_store *st, const char *scope,
		 const char *key)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int err, rc;

	if ((err = notes_open(&db, st, false)) || !db)
		return err ? err : PR_ENOENT;
	if (sqlite3_prepare_v2(db,
			       "SELECT value FROM notes WHERE scope = ?1 "
			       "AND key = ?2",
			       -1, &s, NULL) != SQLITE_OK) {
		err = db_error(db, pr_store_path(st), "get");
		goto done;
	}
	sqlite3_bind_text(s, 1, scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		err = pr_buf_adds(out, (const char *)sqlite3_column_text(s, 0));
	else if (rc == SQLITE_DONE)
		err = PR_ENOENT;
	else
		err = db_error(db, pr_store_path(st), "get");
done:
	sqlite3_finalize(s);
	sqlite3_close(db);
	return err;
}

int pr_notes_set(struct pr_store *st, const char *scope, const char *key,
		 const char *value)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int err;

	if ((err = notes_open(&db, st, true)))
		return err;
	if (sqlite3_prepare_v2(db,
			       "INSERT OR REPLACE INTO notes (scope, key, "
			       "value) VALUES (?1, ?2, ?3)",
			       -1, &s, NULL) != SQLITE_OK) {
		err = db_error(db, pr_store_path(st), "set");
		goto done;
	}
	sqlite3_bind_text(s, 1, scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, value, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		err = db_error(db, pr_store_path(st), "set");
done:
	sqlite3_finalize(s);
	sqlite3_close(db);
	return err;
}

/* The prefix as a LIKE-free range: [p, p + U+10FFFF) in byte order. */
static int bind_prefix(sqlite3_stmt *s, int i, struct pr_buf *hi, const char *p)
{
	int err;

	sqlite3_bind_text(s, i, p, -1, SQLITE_STATIC);
	if ((err = pr_buf_adds(hi, p)) || (err = pr_buf_adds(hi, "\xff")))
		return err;
	sqlite3_bind_text(s, i + 1, hi->ptr, (int)hi->len, SQLITE_STATIC);
	return 0;
}

int pr_notes_foreach(struct pr_store *st, const char *scope_prefix,
		     const char *key_prefix, pr_notes_fn fn, void *payload)
{
	struct pr_buf hi1 = PR_BUF_INIT, hi2 = PR_BUF_INIT;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int err, rc;

	if ((err = notes_open(&db, st, false)) || !db)
		return err;
	if (sqlite3_prepare_v2(db,
			       "SELECT scope, key, value FROM notes WHERE "
			       "scope >= ?1 AND scope < ?2 AND key >= ?3 AND "
			       "key < ?4 ORDER BY scope, key",
			       -1, &s, NULL) != SQLITE_OK) {
		err = db_error(db, pr_store_path(st), "walk");
		goto done;
	}
	if ((err = bind_prefix(s, 1, &hi1, scope_prefix)) ||
	    (err = bind_prefix(s, 3, &hi2, key_prefix)))
		goto done;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		err = fn((const char *)sqlite3_column_text(s, 0),
			 (const char *)sqlite3_column_text(s, 1),
			 (const char *)sqlite3_column_text(s, 2), payload);
		if (err)
			goto done;
	}
	if (rc != SQLITE_DONE)
		err = db_error(db, pr_store_path(st), "walk");
done:
	sqlite3_finalize(s);
	sqlite3_close(db);
	pr_buf_release(&hi1);
	pr_buf_release(&hi2);
	return err;
}
