#ifndef PR_SQL_H
#define PR_SQL_H

#include <stdint.h>

struct pr_buf;
struct sqlite3;
struct sqlite3_stmt;

/*
 * The state store's SQLite statements, so that each query reads as its SQL
 * and its values:
 *
 *	err = pr_sql_row(&q, &st->sql, "find series",
 *			 "SELECT id FROM series WHERE origin = ? AND key = ?",
 *			 "ss", origin, key);
 *	if (!err)
 *		*out = pr_sql_int64(&q, 0);
 *	pr_sql_finish(&q);
 *
 * The values come after a format of their types, one letter each, bound to
 * parameters 1, 2, ... in order (`?` or `?N` in the SQL):
 *
 *	i  int
 *	I  int64_t
 *	z  size_t (stored as a 64-bit integer)
 *	s  const char *, a NUL-terminated text; NULL binds SQL NULL
 *	b  const void *, size_t: a blob of that length; NULL binds SQL NULL
 *
 * The arguments must have exactly these types (cast where they do not):
 * they are read with va_arg.  A format that does not match the statement's
 * parameter count, or an unknown letter, is PR_EINTERNAL.  Texts and blobs
 * are not copied: they must live until the statement is finished or bound
 * again.
 *
 * Invariants:
 * - Every failure records one message, `state store 'PATH': WHAT: REASON`:
 *   PATH the file as opened, WHAT the operation the caller named ("find
 *   series"), REASON SQLite's (a constraint, a locked database...), and
 *   returns PR_ESTATE (PR_EINTERNAL for a misuse of this API).
 *   pr_sql_exec runs fixed SQL and names no WHAT.
 * - A query that finds no row returns PR_ENOENT without a message: the
 *   caller decides whether that is an error.
 * - `struct pr_sql_stmt` starts as PR_SQL_STMT_INIT and ends with
 *   pr_sql_finish, which is safe on a statement never prepared, and safe
 *   twice.  Column reads are valid while the statement stands on a row.
 * - One connection is used by one thread at a time.
 */

/* A database connection and the path its messages name. */
struct pr_sql {
	struct sqlite3 *db;
	char *path;
	int64_t synced; /* sqlite3_total_changes() at the last pr_sql_sync */
};

/* One prepared statement of a connection. */
struct pr_sql_stmt {
	struct pr_sql *sql;
	struct sqlite3_stmt *s;
	const char *what; /* the operation, for messages */
};

#define PR_SQL_STMT_INIT         \
	{                        \
		NULL, NULL, NULL \
	}

/*
 * Open (creating if needed) the database at `path`, waiting up to 5 s for
 * a lock another process holds.  Close it with pr_sql_close, also after a
 * failure.
 */
int pr_sql_open(struct pr_sql *sql, const char *path);
/* Close the connection and free the path; safe on a zeroed struct. */
void pr_sql_close(struct pr_sql *sql);

/* Record `state store 'PATH': WHAT: <SQLite's last message>`; PR_ESTATE. */
int pr_sql_error(struct pr_sql *sql, const char *what);

/* Run one or more statements that take no values and return no rows. */
int pr_sql_exec(struct pr_sql *sql, const char *text);
/* BEGIN IMMEDIATE: take the write lock now, not at the first write. */
int pr_sql_begin(struct pr_sql *sql);
/*
 * End the transaction pr_sql_begin started: commit when err is 0, roll
 * back otherwise (or when the commit fails).  Returns err, or the commit's
 * error.
 */
int pr_sql_end(struct pr_sql *sql, int err);

/*
 * Prepare `text` and bind the values of `fmt`; fmt NULL binds nothing yet
 * (pr_sql_bind will, before each run).  A statement that holds one is
 * finished first, so one local can serve several queries in turn.
 */
int pr_sql_prepare(struct pr_sql_stmt *q, struct pr_sql *sql, const char *what,
		   const char *text, const char *fmt, ...);
/* Reset a prepared statement and bind new values, to run it again. */
int pr_sql_bind(struct pr_sql_stmt *q, const char *fmt, ...);
/* Step: 1 on a row, 0 when there are no more, or an error. */
int pr_sql_next(struct pr_sql_stmt *q);
/* Run a prepared statement that returns no row: 0 or an error. */
int pr_sql_done(struct pr_sql_stmt *q);

/*
 * Prepare, bind and step to the first row: 0 with q on the row, PR_ENOENT
 * (no message) when there is none, or an error.  Finish q in every case.
 */
int pr_sql_row(struct pr_sql_stmt *q, struct pr_sql *sql, const char *what,
	       const char *text, const char *fmt, ...);
/* Prepare, bind, run and finish a statement that returns no row. */
int pr_sql_run(struct pr_sql *sql, const char *what, const char *text,
	       const char *fmt, ...);
/*
 * Prepare, bind, step and finish a query for its first row's first
 * column: as an integer in *out, or its bytes (text or blob) appended to
 * out.  PR_ENOENT (no message) when there is no row; for _bytes also when
 * the column is NULL.
 */
int pr_sql_get_int64(int64_t *out, struct pr_sql *sql, const char *what,
		     const char *text, const char *fmt, ...);
int pr_sql_get_bytes(struct pr_buf *out, struct pr_sql *sql, const char *what,
		     const char *text, const char *fmt, ...);

/*
 * Make every committed transaction durable: fsync the write-ahead log
 * (the store runs WAL with synchronous = NORMAL, whose commits reach the
 * log but are synced only at checkpoints).  Nothing is synced when no row
 * changed since the last call.  Call it outside a transaction.
 */
int pr_sql_sync(struct pr_sql *sql);

/* Rows changed by the last INSERT, UPDATE or DELETE of the connection. */
int pr_sql_changes(struct pr_sql *sql);
/* The rowid of the last INSERT of the connection. */
int64_t pr_sql_last_id(struct pr_sql *sql);

/* Finalize; the statement is PR_SQL_STMT_INIT again. */
void pr_sql_finish(struct pr_sql_stmt *q);

/* Column `col` (0-based) of the current row. */
int pr_sql_int(struct pr_sql_stmt *q, int col);
int64_t pr_sql_int64(struct pr_sql_stmt *q, int col);
/* NULL for SQL NULL; valid until the next step or finish. */
const char *pr_sql_text(struct pr_sql_stmt *q, int col);
/*
 * Append the bytes of a text or blob column to out; PR_ENOENT (no
 * message) when it is NULL.
 */
int pr_sql_add(struct pr_buf *out, struct pr_sql_stmt *q, int col);

#endif
