#include "base/pr.h"

#include "engine/notes.h"
#include "engine/sql.h"
#include "engine/store.h"

int pr_notes_get(struct pr_buf *out, struct pr_store *st, const char *scope,
		 const char *key)
{
	return pr_sql_get_bytes(out, pr_store_sql(st), "get note",
				"SELECT value FROM notes"
				" WHERE scope = ? AND key = ?",
				"ss", scope, key);
}

int pr_notes_set(struct pr_store *st, const char *scope, const char *key,
		 const char *value)
{
	return pr_sql_run(pr_store_sql(st), "set note",
			  "INSERT OR REPLACE INTO notes (scope, key, value)"
			  " VALUES (?, ?, ?)",
			  "sss", scope, key, value);
}

/* The end of a prefix range: every text that starts with p sorts below it. */
static int prefix_end(struct pr_buf *hi, const char *p)
{
	int err = pr_buf_adds(hi, p);

	return err ? err : pr_buf_adds(hi, "\xff");
}

int pr_notes_foreach(struct pr_store *st, const char *scope_prefix,
		     const char *key_prefix, pr_notes_fn fn, void *payload)
{
	struct pr_buf hi1 = PR_BUF_INIT, hi2 = PR_BUF_INIT;
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err, more;

	if ((err = prefix_end(&hi1, scope_prefix)) ||
	    (err = prefix_end(&hi2, key_prefix)) ||
	    (err = pr_sql_prepare(&q, pr_store_sql(st), "walk notes",
				  "SELECT scope, key, value FROM notes"
				  " WHERE scope >= ? AND scope < ?"
				  " AND key >= ? AND key < ?"
				  " ORDER BY scope, key",
				  "ssss", scope_prefix, hi1.ptr, key_prefix,
				  hi2.ptr)))
		goto done;
	while ((more = pr_sql_next(&q)) == 1) {
		if ((err = fn(pr_sql_text(&q, 0), pr_sql_text(&q, 1),
			      pr_sql_text(&q, 2), payload)))
			goto done;
	}
	err = more < 0 ? more : 0;
done:
	pr_sql_finish(&q);
	pr_buf_release(&hi1);
	pr_buf_release(&hi2);
	return err;
}
