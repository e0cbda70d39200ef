#include "base/pr.h"

#include <sqlite3.h>

#include "engine/sql.h"

int pr_sql_open(struct pr_sql *sql, const char *path)
{
	sql->path = pr_strdup(path);
	/* sqlite3_open_v2 gives a handle even on failure, for its message */
	if (sqlite3_open_v2(path, &sql->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK)
		return pr_sql_error(sql, "open");
	/* another process (patchrelay status) may read while we write */
	sqlite3_busy_timeout(sql->db, 5000);
	return 0;
}

void pr_sql_close(struct pr_sql *sql)
{
	sqlite3_close(sql->db);
	sql->db = NULL;
	free(sql->path);
	sql->path = NULL;
}

int pr_sql_error(struct pr_sql *sql, const char *what)
{
	return pr_error(PR_ESTATE, "state store '%s': %s: %s", sql->path, what,
			sql->db ? sqlite3_errmsg(sql->db) : "out of memory");
}

int pr_sql_exec(struct pr_sql *sql, const char *text)
{
	char *msg = NULL;
	int err;

	if (sqlite3_exec(sql->db, text, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	err = pr_error(PR_ESTATE, "state store '%s': %s", sql->path,
		       msg ? msg : sqlite3_errmsg(sql->db));
	sqlite3_free(msg);
	return err;
}

int pr_sql_begin(struct pr_sql *sql)
{
	return pr_sql_exec(sql, "BEGIN IMMEDIATE");
}

int pr_sql_end(struct pr_sql *sql, int err)
{
	if (!err)
		err = pr_sql_exec(sql, "COMMIT");
	if (err)
		sqlite3_exec(sql->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

static int misuse(struct pr_sql_stmt *q, const char *problem)
{
	return pr_error(PR_EINTERNAL, "state store '%s': %s: %s", q->sql->path,
			q->what, problem);
}

/* Bind the values of fmt to parameters 1, 2, ... */
static int bind_values(struct pr_sql_stmt *q, const char *fmt, va_list ap)
{
	int i, rc = SQLITE_OK;

	if ((int)strlen(fmt) != sqlite3_bind_parameter_count(q->s))
		return misuse(q, "values do not match the parameters");
	for (i = 1; rc == SQLITE_OK && fmt[i - 1]; i++) {
		const char *text;
		const void *blob;
		size_t len;

		switch (fmt[i - 1]) {
		case 'i':
			rc = sqlite3_bind_int(q->s, i, va_arg(ap, int));
			break;
		case 'I':
			rc = sqlite3_bind_int64(q->s, i, va_arg(ap, int64_t));
			break;
		case 'z':
			rc = sqlite3_bind_int64(
				q->s, i, (sqlite3_int64)va_arg(ap, size_t));
			break;
		case 's':
			text = va_arg(ap, const char *);
			rc = text ? sqlite3_bind_text(q->s, i, text, -1,
						      SQLITE_STATIC)
				  : sqlite3_bind_null(q->s, i);
			break;
		case 'b':
			blob = va_arg(ap, const void *);
			len = va_arg(ap, size_t);
			rc = blob ? sqlite3_bind_blob64(q->s, i, blob,
							(sqlite3_uint64)len,
							SQLITE_STATIC)
				  : sqlite3_bind_null(q->s, i);
			break;
		default:
			return misuse(q, "unknown value type");
		}
	}
	return rc == SQLITE_OK ? 0 : pr_sql_error(q->sql, q->what);
}

static int vprepare(struct pr_sql_stmt *q, struct pr_sql *sql, const char *what,
		    const char *text, const char *fmt, va_list ap)
{
	pr_sql_finish(q);
	q->sql = sql;
	q->what = what;
	if (sqlite3_prepare_v2(sql->db, text, -1, &q->s, NULL) != SQLITE_OK)
		return pr_sql_error(sql, what);
	return fmt ? bind_values(q, fmt, ap) : 0;
}

int pr_sql_prepare(struct pr_sql_stmt *q, struct pr_sql *sql, const char *what,
		   const char *text, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vprepare(q, sql, what, text, fmt, ap);
	va_end(ap);
	return err;
}

int pr_sql_bind(struct pr_sql_stmt *q, const char *fmt, ...)
{
	va_list ap;
	int err;

	sqlite3_reset(q->s);
	sqlite3_clear_bindings(q->s);
	va_start(ap, fmt);
	err = bind_values(q, fmt, ap);
	va_end(ap);
	return err;
}

int pr_sql_next(struct pr_sql_stmt *q)
{
	switch (sqlite3_step(q->s)) {
	case SQLITE_ROW:
		return 1;
	case SQLITE_DONE:
		return 0;
	default:
		return pr_sql_error(q->sql, q->what);
	}
}

int pr_sql_done(struct pr_sql_stmt *q)
{
	int rc = pr_sql_next(q);

	if (rc > 0)
		return misuse(q, "a statement meant to return no row gave one");
	return rc;
}

/* Prepare, bind and step to the first row: 0, PR_ENOENT or an error. */
static int vrow(struct pr_sql_stmt *q, struct pr_sql *sql, const char *what,
		const char *text, const char *fmt, va_list ap)
{
	int err = vprepare(q, sql, what, text, fmt, ap);

	if (!err)
		err = pr_sql_next(q);
	return err > 0 ? 0 : err == 0 ? PR_ENOENT : err;
}

int pr_sql_row(struct pr_sql_stmt *q, struct pr_sql *sql, const char *what,
	       const char *text, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vrow(q, sql, what, text, fmt, ap);
	va_end(ap);
	return err;
}

int pr_sql_run(struct pr_sql *sql, const char *what, const char *text,
	       const char *fmt, ...)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vprepare(&q, sql, what, text, fmt, ap);
	va_end(ap);
	if (!err)
		err = pr_sql_done(&q);
	pr_sql_finish(&q);
	return err;
}

/* The first column of the first row of a query, read by `get`. */
static int vget(struct pr_sql *sql, const char *what, const char *text,
		const char *fmt, va_list ap,
		int (*get)(struct pr_sql_stmt *q, void *out), void *out)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	if (!(err = vrow(&q, sql, what, text, fmt, ap)))
		err = get(&q, out);
	pr_sql_finish(&q);
	return err;
}

static int get_int64(struct pr_sql_stmt *q, void *out)
{
	*(int64_t *)out = pr_sql_int64(q, 0);
	return 0;
}

static int get_bytes(struct pr_sql_stmt *q, void *out)
{
	return pr_sql_add(out, q, 0);
}

int pr_sql_get_int64(int64_t *out, struct pr_sql *sql, const char *what,
		     const char *text, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vget(sql, what, text, fmt, ap, get_int64, out);
	va_end(ap);
	return err;
}

int pr_sql_get_bytes(struct pr_buf *out, struct pr_sql *sql, const char *what,
		     const char *text, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vget(sql, what, text, fmt, ap, get_bytes, out);
	va_end(ap);
	return err;
}

int pr_sql_sync(struct pr_sql *sql)
{
	int64_t changes = (int64_t)sqlite3_total_changes64(sql->db);
	sqlite3_file *wal = NULL;
	int rc;

	if (changes == sql->synced)
		return 0;
	rc = sqlite3_file_control(sql->db, "main", SQLITE_FCNTL_JOURNAL_POINTER,
				  &wal);
	/* no log open (nothing written through it): nothing to sync */
	if (rc == SQLITE_OK && wal && wal->pMethods)
		rc = wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL);
	if (rc != SQLITE_OK)
		return pr_error(PR_ESTATE, "state store '%s': sync: %s",
				sql->path, sqlite3_errstr(rc));
	sql->synced = changes;
	return 0;
}

int pr_sql_changes(struct pr_sql *sql)
{
	return sqlite3_changes(sql->db);
}

int64_t pr_sql_last_id(struct pr_sql *sql)
{
	return sqlite3_last_insert_rowid(sql->db);
}

void pr_sql_finish(struct pr_sql_stmt *q)
{
	sqlite3_finalize(q->s);
	q->s = NULL;
	q->sql = NULL;
	q->what = NULL;
}

int pr_sql_int(struct pr_sql_stmt *q, int col)
{
	return sqlite3_column_int(q->s, col);
}

int64_t pr_sql_int64(struct pr_sql_stmt *q, int col)
{
	return sqlite3_column_int64(q->s, col);
}

const char *pr_sql_text(struct pr_sql_stmt *q, int col)
{
	return (const char *)sqlite3_column_text(q->s, col);
}

int pr_sql_add(struct pr_buf *out, struct pr_sql_stmt *q, int col)
{
	const void *bytes;

	if (sqlite3_column_type(q->s, col) == SQLITE_NULL)
		return PR_ENOENT;
	/* a blob read as a blob: text would stop at its first NUL */
	bytes = sqlite3_column_blob(q->s, col);
	return pr_buf_add(out, bytes, (size_t)sqlite3_column_bytes(q->s, col));
}
