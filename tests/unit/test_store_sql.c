/* The state store's statement helper, engine/sql.h. */
#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "engine/sql.h"

static int open_memory(void **state)
{
	struct pr_sql *sql = pr_calloc(1, sizeof(*sql));

	*state = sql;
	if (pr_sql_open(sql, ":memory:"))
		return -1;
	return pr_sql_exec(sql, "CREATE TABLE t (k TEXT PRIMARY KEY,"
				" i INTEGER, big INTEGER, n INTEGER,"
				" s TEXT, b BLOB, req TEXT NOT NULL"
				" DEFAULT 'x')")
		       ? -1
		       : 0;
}

static int close_memory(void **state)
{
	pr_sql_close(*state);
	free(*state);
	return 0;
}

/* The SQL type of column `col` of the row with key k. */
static void assert_type(struct pr_sql *sql, const char *k, const char *col,
			const char *type)
{
	struct pr_buf text = PR_BUF_INIT;
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_buf_addf(&text,
				     "SELECT typeof(%s) FROM t"
				     " WHERE k = ?",
				     col),
			 0);
	assert_int_equal(pr_sql_get_bytes(&b, sql, "type", text.ptr, "s", k),
			 0);
	assert_string_equal(b.ptr, type);
	pr_buf_release(&b);
	pr_buf_release(&text);
}

static void test_bind_each_type(void **state)
{
	struct pr_sql *sql = *state;
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	static const char blob[] = { 'a', '\0', 'b', '\n' };
	struct pr_buf b = PR_BUF_INIT;
	int64_t v;

	assert_int_equal(pr_sql_run(sql, "insert",
				    "INSERT INTO t (k, i, big, n, s, b)"
				    " VALUES (?, ?, ?, ?, ?, ?)",
				    "siIzsb", "one", -7, (int64_t)1 << 40,
				    (size_t)3000000000u, "t\xc3\xa9xt", blob,
				    sizeof(blob)),
			 0);
	assert_int_equal(pr_sql_row(&q, sql, "read",
				    "SELECT k, i, big, n, s FROM t"
				    " WHERE k = ?",
				    "s", "one"),
			 0);
	assert_string_equal(pr_sql_text(&q, 0), "one");
	assert_int_equal(pr_sql_int(&q, 1), -7);
	assert_true(pr_sql_int64(&q, 2) == (int64_t)1 << 40);
	assert_true(pr_sql_int64(&q, 3) == 3000000000);
	assert_string_equal(pr_sql_text(&q, 4), "t\xc3\xa9xt");
	pr_sql_finish(&q);
	/* a blob keeps its length, NUL bytes and all */
	assert_int_equal(pr_sql_get_bytes(&b, sql, "read",
					  "SELECT b FROM t WHERE k = ?", "s",
					  "one"),
			 0);
	assert_int_equal(b.len, sizeof(blob));
	assert_memory_equal(b.ptr, blob, sizeof(blob));
	assert_type(sql, "one", "i", "integer");
	assert_type(sql, "one", "n", "integer");
	assert_type(sql, "one", "s", "text");
	assert_type(sql, "one", "b", "blob");
	/* ?N parameters: the format still lists each once */
	assert_int_equal(pr_sql_get_int64(&v, sql, "sum", "SELECT ?1 + ?1 + ?2",
					  "Ii", (int64_t)20, 2),
			 0);
	assert_int_equal(v, 42);
	pr_buf_release(&b);
}

static void test_null(void **state)
{
	struct pr_sql *sql = *state;
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_sql_run(sql, "insert",
				    "INSERT INTO t (k, s, b) VALUES (?, ?, ?)",
				    "ssb", "nulls", (const char *)NULL,
				    (const void *)NULL, (size_t)5),
			 0);
	assert_type(sql, "nulls", "s", "null");
	assert_type(sql, "nulls", "b", "null");
	assert_int_equal(pr_sql_row(&q, sql, "read",
				    "SELECT s, b FROM t WHERE k = ?", "s",
				    "nulls"),
			 0);
	assert_null(pr_sql_text(&q, 0));
	/* NULL appends nothing and is not an error with a message */
	pr_error_clear();
	assert_int_equal(pr_sql_add(&b, &q, 1), PR_ENOENT);
	pr_sql_finish(&q);
	assert_int_equal(pr_sql_get_bytes(&b, sql, "read",
					  "SELECT s FROM t WHERE k = ?", "s",
					  "nulls"),
			 PR_ENOENT);
	assert_int_equal(b.len, 0);
	assert_string_equal(pr_error_message(), "");
	pr_buf_release(&b);
}

static void test_no_row(void **state)
{
	struct pr_sql *sql = *state;
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int64_t v = 99;

	pr_error_clear();
	assert_int_equal(pr_sql_get_int64(&v, sql, "find",
					  "SELECT i FROM t WHERE k = ?", "s",
					  "absent"),
			 PR_ENOENT);
	assert_int_equal(v, 99);
	assert_int_equal(pr_sql_row(&q, sql, "find",
				    "SELECT i FROM t WHERE k = ?", "s",
				    "absent"),
			 PR_ENOENT);
	assert_string_equal(pr_error_message(), "");
	pr_sql_finish(&q);
	/* finishing twice, or a statement never prepared, is safe */
	pr_sql_finish(&q);
}

static void test_constraint_error(void **state)
{
	struct pr_sql *sql = *state;

	assert_int_equal(pr_sql_run(sql, "record thing",
				    "INSERT INTO t (k) VALUES (?)", "s", "dup"),
			 0);
	assert_int_equal(pr_sql_run(sql, "record thing",
				    "INSERT INTO t (k) VALUES (?)", "s", "dup"),
			 PR_ESTATE);
	assert_string_equal(pr_error_message(),
			    "state store ':memory:': record thing:"
			    " UNIQUE constraint failed: t.k");
	assert_int_equal(pr_sql_run(sql, "clear requirement",
				    "UPDATE t SET req = ? WHERE k = ?", "ss",
				    (const char *)NULL, "dup"),
			 PR_ESTATE);
	assert_string_equal(pr_error_message(),
			    "state store ':memory:': clear requirement:"
			    " NOT NULL constraint failed: t.req");
}

static void test_step_error_names_operation(void **state)
{
	struct pr_sql *sql = *state;
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int64_t v;

	/* prepared fine, fails only when it runs */
	assert_int_equal(pr_sql_prepare(&q, sql, "sum amounts", "SELECT abs(?)",
					"I", INT64_MIN),
			 0);
	assert_int_equal(pr_sql_next(&q), PR_ESTATE);
	assert_string_equal(pr_error_message(),
			    "state store ':memory:': sum amounts:"
			    " integer overflow");
	pr_sql_finish(&q);
	assert_int_equal(pr_sql_get_int64(&v, sql, "count widgets",
					  "SELECT count(*) FROM widgets", ""),
			 PR_ESTATE);
	assert_string_equal(pr_error_message(),
			    "state store ':memory:': count widgets:"
			    " no such table: widgets");
}

static void test_misuse(void **state)
{
	struct pr_sql *sql = *state;
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;

	assert_int_equal(pr_sql_run(sql, "insert",
				    "INSERT INTO t (k, i) VALUES (?, ?)", "s",
				    "short"),
			 PR_EINTERNAL);
	assert_string_equal(pr_error_message(),
			    "state store ':memory:': insert:"
			    " values do not match the parameters");
	assert_int_equal(pr_sql_run(sql, "insert",
				    "INSERT INTO t (k) VALUES (?)", "x", 1.5),
			 PR_EINTERNAL);
	assert_string_equal(pr_error_message(),
			    "state store ':memory:': insert:"
			    " unknown value type");
	/* a row where none was expected */
	assert_int_equal(pr_sql_prepare(&q, sql, "peek", "SELECT 1", ""), 0);
	assert_int_equal(pr_sql_done(&q), PR_EINTERNAL);
	pr_sql_finish(&q);
}

static void test_rebind_and_changes(void **state)
{
	struct pr_sql *sql = *state;
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	const char *keys[] = { "a", "b", "c" };
	int64_t v;
	size_t i;

	assert_int_equal(pr_sql_prepare(&q, sql, "insert",
					"INSERT INTO t (k, n) VALUES (?, ?)",
					NULL),
			 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(pr_sql_bind(&q, "sz", keys[i], i), 0);
		assert_int_equal(pr_sql_done(&q), 0);
		assert_int_equal(pr_sql_last_id(sql), (int64_t)i + 1);
	}
	pr_sql_finish(&q);
	assert_int_equal(pr_sql_get_int64(&v, sql, "sum",
					  "SELECT sum(n) FROM t", ""),
			 0);
	assert_int_equal(v, 3);
	assert_int_equal(pr_sql_run(sql, "bump", "UPDATE t SET n = n + 1", ""),
			 0);
	assert_int_equal(pr_sql_changes(sql), 3);
	/* rows in order, then the end */
	assert_int_equal(pr_sql_prepare(&q, sql, "list",
					"SELECT k FROM t ORDER BY k DESC", ""),
			 0);
	assert_int_equal(pr_sql_next(&q), 1);
	assert_string_equal(pr_sql_text(&q, 0), "c");
	assert_int_equal(pr_sql_next(&q), 1);
	assert_int_equal(pr_sql_next(&q), 1);
	assert_string_equal(pr_sql_text(&q, 0), "a");
	assert_int_equal(pr_sql_next(&q), 0);
	pr_sql_finish(&q);
}

static void test_transaction(void **state)
{
	struct pr_sql *sql = *state;
	int64_t v;

	assert_int_equal(pr_sql_begin(sql), 0);
	assert_int_equal(pr_sql_run(sql, "insert",
				    "INSERT INTO t (k) VALUES (?)", "s",
				    "gone"),
			 0);
	/* an error rolls back and is returned as it was */
	assert_int_equal(pr_sql_end(sql, PR_EIO), PR_EIO);
	assert_int_equal(pr_sql_begin(sql), 0);
	assert_int_equal(pr_sql_run(sql, "insert",
				    "INSERT INTO t (k) VALUES (?)", "s",
				    "kept"),
			 0);
	assert_int_equal(pr_sql_end(sql, 0), 0);
	assert_int_equal(pr_sql_get_int64(&v, sql, "count",
					  "SELECT count(*) FROM t", ""),
			 0);
	assert_int_equal(v, 1);
	assert_int_equal(pr_sql_get_int64(&v, sql, "count",
					  "SELECT count(*) FROM t WHERE k = ?",
					  "s", "kept"),
			 0);
	assert_int_equal(v, 1);
}

static void test_open_error_names_file(void **state)
{
	struct pr_sql sql = { NULL, NULL };

	(void)state;
	assert_int_equal(pr_sql_open(&sql, "/nonexistent/dir/state.db"),
			 PR_ESTATE);
	assert_string_equal(pr_error_message(),
			    "state store '/nonexistent/dir/state.db': open:"
			    " unable to open database file");
	pr_sql_close(&sql);
	pr_sql_close(&sql);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bind_each_type,
						open_memory, close_memory),
		cmocka_unit_test_setup_teardown(test_null, open_memory,
						close_memory),
		cmocka_unit_test_setup_teardown(test_no_row, open_memory,
						close_memory),
		cmocka_unit_test_setup_teardown(test_constraint_error,
						open_memory, close_memory),
		cmocka_unit_test_setup_teardown(test_step_error_names_operation,
						open_memory, close_memory),
		cmocka_unit_test_setup_teardown(test_misuse, open_memory,
						close_memory),
		cmocka_unit_test_setup_teardown(test_rebind_and_changes,
						open_memory, close_memory),
		cmocka_unit_test_setup_teardown(test_transaction, open_memory,
						close_memory),
		cmocka_unit_test(test_open_error_names_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
