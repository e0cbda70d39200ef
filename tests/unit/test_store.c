#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <unistd.h>

#include "model/model.h"
#include "engine/sql.h"
#include "engine/store.h"

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = pr_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pr-store-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/state.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_open_is_wal_and_latest(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_schema_version(st), PR_STORE_SCHEMA_LATEST);
	pr_store_free(st);
	/* reopening an up-to-date store changes nothing */
	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_schema_version(st), PR_STORE_SCHEMA_LATEST);
	pr_store_free(st);

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s,
					    NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0), "wal");
	sqlite3_finalize(s);
	sqlite3_close(db);
	pr_store_free(NULL);
}

static void test_migrate_from_first_schema(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version v;
	int64_t d;

	assert_int_equal(pr_store_open_version(&st, f->path, 1), 0);
	assert_int_equal(pr_store_schema_version(st), 1);
	pr_store_free(st);
	/* data as the first schema held it */
	raw_exec(
		f->path,
		"INSERT INTO series (id, origin, key) VALUES (7, 'gh', 'pr/1');"
		"INSERT INTO versions VALUES (7, 1, 'abc', 2);"
		"INSERT INTO deliveries VALUES (3, 7, 1, 'list', 2);"
		"INSERT INTO delivery_messages VALUES (3, 0, 1, 1);"
		"INSERT INTO delivery_messages VALUES (3, 1, 0, 2);");

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_schema_version(st), PR_STORE_SCHEMA_LATEST);
	/* the old rows survived and the new columns work */
	assert_int_equal(pr_store_record_version(&v, st, "gh", "pr/1", "abc",
						 NULL, 2, 0),
			 0);
	assert_int_equal(v.series_id, 7);
	assert_int_equal(v.number, 1);
	assert_false(v.is_new);
	assert_int_equal(pr_store_delivery_open(&d, st, 7, 1, "list", 2), 0);
	assert_int_equal(d, 3);
	assert_int_equal(pr_store_delivery_status(st, d, 0), PR_STORE_SENT);
	assert_int_equal(pr_store_delivery_pending(st, d), 1);
	assert_int_equal(pr_store_delivery_attempt(st, d, 1, "smtp 451"), 0);
	assert_int_equal(pr_store_delivery_attempts(st, d, 1), 3);
	assert_int_equal(pr_store_record_version(&v, st, "gh", "pr/1", "def",
						 NULL, 2, 0),
			 0);
	assert_int_equal(v.number, 2);
	assert_true(v.is_new);
	pr_store_free(st);
}

/*
 * Schema 2 to 3: a version recorded by the older binary has no mbox; the
 * new tables and columns work on the migrated database.
 */
static void test_migrate_from_second_schema(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version v;
	struct pr_buf b = PR_BUF_INIT;
	int64_t d, t;

	assert_int_equal(pr_store_open_version(&st, f->path, 2), 0);
	assert_int_equal(pr_store_record_version(&v, st, "gh", "pr/1", "abc",
						 NULL, 2, 0),
			 0);
	assert_int_equal(
		pr_store_delivery_open(&d, st, v.series_id, 1, "list", 2), 0);
	pr_store_free(st);
	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_schema_version(st), PR_STORE_SCHEMA_LATEST);
	assert_int_equal(pr_store_version_mbox_get(&b, st, v.series_id, 1),
			 PR_ENOENT);
	assert_int_equal(pr_store_version_fingerprint(&b, st, v.series_id, 1),
			 0);
	assert_string_equal(b.ptr, "abc");
	pr_buf_reset(&b);
	assert_int_equal(pr_store_delivery_find(&d, st, v.series_id, 1, "list"),
			 0);
	assert_true(d > 0);
	assert_int_equal(pr_store_delivery_find(&d, st, v.series_id, 2, "list"),
			 PR_ENOENT);
	/* the first base time sticks */
	assert_int_equal(pr_store_delivery_base_time(&t, st, v.series_id, 1,
						     "list", 1000),
			 0);
	assert_int_equal(t, 1000);
	assert_int_equal(pr_store_delivery_base_time(&t, st, v.series_id, 1,
						     "list", 2000),
			 0);
	assert_int_equal(t, 1000);
	assert_int_equal(pr_store_delivery_base_time(&t, st, v.series_id, 1,
						     "list+preview", 3000),
			 0);
	assert_int_equal(t, 3000);
	/* the mbox is kept as bytes, NULs included */
	assert_int_equal(pr_store_version_mbox_set(st, v.series_id, 1,
						   "From x\n\0y", 9),
			 0);
	assert_int_equal(pr_store_version_mbox_get(&b, st, v.series_id, 1), 0);
	assert_int_equal(b.len, 9);
	assert_memory_equal(b.ptr, "From x\n\0y", 9);
	assert_int_equal(pr_store_version_mbox_set(st, v.series_id, 5, "x", 1),
			 PR_ENOENT);
	pr_store_free(st);
	/* and it survives a reopen */
	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_delivery_base_time(&t, st, v.series_id, 1,
						     "list", 5000),
			 0);
	assert_int_equal(t, 1000);
	pr_store_free(st);
	pr_buf_release(&b);
}

/*
 * Schema 3 to 4: messages sent by the older binary have no Message-ID;
 * marking one sent with its Message-ID, rejecting one, and the identity
 * lookups both ways work on the migrated database.
 */
static void test_migrate_from_third_schema(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version v;
	struct pr_store_message m;
	struct pr_buf b = PR_BUF_INIT;
	int64_t d;

	assert_int_equal(pr_store_open_version(&st, f->path, 3), 0);
	assert_int_equal(pr_store_schema_version(st), 3);
	assert_int_equal(pr_store_record_version(&v, st, "gh", "o/r#7", "abc",
						 NULL, 3, 0),
			 0);
	assert_int_equal(
		pr_store_delivery_open(&d, st, v.series_id, 1, "list", 3), 0);
	assert_int_equal(pr_store_delivery_mark_sent(st, d, 0), 0);
	assert_int_equal(pr_store_identity_add(st, v.series_id, "github", "7"),
			 0);
	pr_store_free(st);

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_schema_version(st), PR_STORE_SCHEMA_LATEST);
	/* sent before the migration: sent, but no Message-ID known */
	assert_int_equal(pr_store_delivery_status(st, d, 0), PR_STORE_SENT);
	assert_int_equal(pr_store_message_id_get(&b, st, v.series_id, 1, "list",
						 0),
			 PR_ENOENT);
	assert_int_equal(
		pr_store_delivery_mark_sent_as(st, d, 1, "k.1@example.org"), 0);
	assert_int_equal(pr_store_delivery_status(st, d, 1), PR_STORE_SENT);
	assert_int_equal(
		pr_store_message_id_get(&b, st, v.series_id, 1, "list", 1), 0);
	assert_string_equal(b.ptr, "k.1@example.org");
	pr_buf_reset(&b);
	assert_int_equal(
		pr_store_message_id_find(&m, &b, st, "k.1@example.org"), 0);
	assert_int_equal(m.series_id, v.series_id);
	assert_int_equal(m.version, 1);
	assert_int_equal(m.index, 1);
	assert_string_equal(b.ptr, "list");
	pr_buf_reset(&b);
	assert_int_equal(pr_store_message_id_find(&m, NULL, st, "k.9@x.org"),
			 PR_ENOENT);
	/* a rejected message is not pending and keeps its reason */
	assert_int_equal(pr_store_delivery_pending(st, d), 1);
	assert_int_equal(pr_store_delivery_mark_rejected(st, d, 2, "550 no"),
			 0);
	assert_int_equal(pr_store_delivery_status(st, d, 2), PR_STORE_REJECTED);
	assert_int_equal(pr_store_delivery_pending(st, d), 0);
	assert_int_equal(pr_store_delivery_mark_rejected(st, d, 3, "x"),
			 PR_ENOENT);
	/* an external id, recorded before the migration, both ways */
	assert_int_equal(pr_store_identity_get(&b, st, v.series_id, "github"),
			 0);
	assert_string_equal(b.ptr, "7");
	pr_buf_reset(&b);
	assert_int_equal(pr_store_identity_get(&b, st, v.series_id,
					       "patchwork"),
			 PR_ENOENT);
	assert_int_equal(pr_store_identity_add(st, v.series_id, "patchwork",
					       "123456"),
			 0);
	assert_int_equal(
		pr_store_identity_get(&b, st, v.series_id, "patchwork"), 0);
	assert_string_equal(b.ptr, "123456");
	pr_buf_reset(&b);
	assert_int_equal(pr_store_identity_find(&d, st, "patchwork", "123456"),
			 0);
	assert_int_equal(d, v.series_id);
	pr_store_free(st);
	pr_buf_release(&b);
}

static void test_newer_schema_refused(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	pr_store_free(st);
	raw_exec(f->path, "UPDATE schema_version SET version = 99");
	assert_int_equal(pr_store_open(&st, f->path), PR_ESTATE);
	assert_null(st);
	assert_non_null(strstr(pr_error_message(), "schema version 99"));
	assert_int_equal(pr_store_open_version(&st, f->path, 0), PR_EINVAL);
}

static void test_record_version_idempotent(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version v, w;
	int64_t id;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_series_find(&id, st, "git", "topic"),
			 PR_ENOENT);
	assert_int_equal(pr_store_record_version(&v, st, "git", "topic", "f1",
						 NULL, 3, 0),
			 0);
	assert_true(v.is_new);
	assert_int_equal(v.number, 1);
	/* an unchanged re-poll, even after reopening, is not a new version */
	pr_store_free(st);
	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_record_version(&w, st, "git", "topic", "f1",
						 NULL, 3, 0),
			 0);
	assert_false(w.is_new);
	assert_int_equal(w.number, 1);
	assert_int_equal(w.series_id, v.series_id);
	assert_int_equal(pr_store_version_count(st, v.series_id), 1);
	/* a changed series is version 2; the same key elsewhere is another */
	assert_int_equal(pr_store_record_version(&w, st, "git", "topic", "f2",
						 NULL, 3, 0),
			 0);
	assert_true(w.is_new);
	assert_int_equal(w.number, 2);
	assert_int_equal(pr_store_record_version(&w, st, "gh", "topic", "f2",
						 NULL, 3, 0),
			 0);
	assert_true(w.is_new);
	assert_int_equal(w.number, 1);
	assert_true(w.series_id != v.series_id);
	assert_int_equal(pr_store_version_count(st, v.series_id), 2);
	assert_int_equal(pr_store_series_find(&id, st, "git", "topic"), 0);
	assert_int_equal(id, v.series_id);
	pr_store_free(st);
}

/*
 * A source that reads old mail again (a lost cursor) sees v1 after v2: it
 * is v1, not a new v3, even after reopening; nothing is written for it.
 * A third fingerprint is v3; the latest number is reported throughout.
 */
static void test_record_version_matches_any(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version v;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_record_version(&v, st, "list", "a1", "f1",
						 NULL, 2, 0),
			 0);
	assert_true(v.is_new);
	assert_int_equal(v.number, 1);
	assert_int_equal(v.latest, 1);
	assert_int_equal(pr_store_record_version(&v, st, "list", "a1", "f2",
						 NULL, 2, 0),
			 0);
	assert_true(v.is_new);
	assert_int_equal(v.number, 2);
	assert_int_equal(v.latest, 2);
	pr_store_free(st);
	assert_int_equal(pr_store_open(&st, f->path), 0);
	/* the old mail again: v1, then v2, each found, none recorded */
	assert_int_equal(pr_store_record_version(&v, st, "list", "a1", "f1",
						 NULL, 2, 0),
			 0);
	assert_false(v.is_new);
	assert_int_equal(v.number, 1);
	assert_int_equal(v.latest, 2);
	assert_int_equal(pr_store_record_version(&v, st, "list", "a1", "f2",
						 NULL, 2, 0),
			 0);
	assert_false(v.is_new);
	assert_int_equal(v.number, 2);
	assert_int_equal(v.latest, 2);
	assert_int_equal(pr_store_version_count(st, v.series_id), 2);
	/* the same fingerprint in another series is that series' own v1 */
	assert_int_equal(pr_store_record_version(&v, st, "list", "b", "f2",
						 NULL, 2, 0),
			 0);
	assert_true(v.is_new);
	assert_int_equal(v.number, 1);
	/* a changed version is still new, numbered after the latest */
	assert_int_equal(pr_store_record_version(&v, st, "list", "a1", "f3",
						 NULL, 2, 0),
			 0);
	assert_true(v.is_new);
	assert_int_equal(v.number, 3);
	assert_int_equal(v.latest, 3);
	assert_int_equal(pr_store_version_count(st, v.series_id), 3);
	pr_store_free(st);
}

/*
 * A store written before any version matched holds two versions with one
 * fingerprint (v1, and v3 recorded from the same patches): the first wins.
 */
static void test_record_version_duplicate_rows(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version v;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	pr_store_free(st);
	raw_exec(f->path,
		 "INSERT INTO series (id, origin, key) VALUES (4, 'l', 'k');"
		 "INSERT INTO versions (series_id, number, fingerprint,"
		 " nr_patches) VALUES (4, 1, 'fa', 1), (4, 2, 'fb', 1),"
		 " (4, 3, 'fa', 1);");
	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(
		pr_store_record_version(&v, st, "l", "k", "fa", NULL, 1, 0), 0);
	assert_false(v.is_new);
	assert_int_equal(v.number, 1);
	assert_int_equal(v.latest, 3);
	pr_store_free(st);
}

static void git_blob_sha1(char out[41], const char *content)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "printf '%s' | git hash-object --stdin",
		 content);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, 41, p));
	pclose(p);
}

static struct pr_patch *patch(const char *id, const char *commit,
			      const char *diff)
{
	struct pr_patch *p = pr_patch_new();

	snprintf(p->patch_id, sizeof(p->patch_id), "%s", id);
	snprintf(p->commit_id, sizeof(p->commit_id), "%s", commit);
	p->diff = diff ? pr_strdup(diff) : NULL;
	return p;
}

static void test_fingerprint(void **state)
{
	struct pr_version *a = pr_version_new(1), *b = pr_version_new(1);
	char fa[41], fb[41], ref[41];
	const char *id1 = "1111111111111111111111111111111111111111";
	const char *id2 = "2222222222222222222222222222222222222222";

	pr_version_add_patch(a, patch(id1, "aaaa", "x"));
	pr_version_add_patch(a, patch(id2, "bbbb", "y"));
	/* rebased: other commits and diffs context, same patch-ids */
	pr_version_add_patch(b, patch(id1, "cccc", "x2"));
	pr_version_add_patch(b, patch(id2, "dddd", "y2"));
	assert_int_equal(pr_store_fingerprint(fa, a), 0);
	assert_int_equal(pr_store_fingerprint(fb, b), 0);
	assert_int_equal(strlen(fa), 40);
	assert_string_equal(fa, fb);
	/* the same hash git computes for the fingerprinted text */
	git_blob_sha1(ref, "id 1111111111111111111111111111111111111111\\n"
			   "id 2222222222222222222222222222222222222222\\n");
	assert_string_equal(fa, ref);

	/* order matters */
	pr_version_free(b);
	b = pr_version_new(1);
	pr_version_add_patch(b, patch(id2, "", NULL));
	pr_version_add_patch(b, patch(id1, "", NULL));
	assert_int_equal(pr_store_fingerprint(fb, b), 0);
	assert_string_not_equal(fa, fb);

	/* without a patch-id the diff counts */
	pr_version_free(b);
	b = pr_version_new(1);
	pr_version_add_patch(b, patch("", "", "ab"));
	assert_int_equal(pr_store_fingerprint(fb, b), 0);
	git_blob_sha1(ref, "diff 2\\nab\\n");
	assert_string_equal(fb, ref);
	pr_version_free(a);
	pr_version_free(b);
}

/* Subjects and messages in order; patch-ids and diffs do not count. */
static void test_text_fingerprint(void **state)
{
	struct pr_version *a = pr_version_new(1), *b = pr_version_new(1);
	struct pr_patch *p;
	char fa[41], fb[41], ref[41];

	PR_UNUSED(state);
	p = patch("1111111111111111111111111111111111111111", "", "x");
	p->subject = pr_strdup("f: add b");
	p->body = pr_strdup("Why.\n\nSigned-off-by: A <a@x>\n");
	pr_version_add_patch(a, p);
	p = patch("2222222222222222222222222222222222222222", "", "y");
	p->subject = pr_strdup("f: add c");
	pr_version_add_patch(a, p);
	assert_int_equal(pr_store_text_fingerprint(fa, a), 0);
	git_blob_sha1(ref, "8 29\\nf: add b\\nWhy.\\n\\nSigned-off-by: A "
			   "<a@x>\\n\\n8 0\\nf: add c\\n\\n");
	assert_string_equal(fa, ref);
	/* other diffs and patch-ids, the same messages: the same text */
	p = patch("3333333333333333333333333333333333333333", "", "z");
	p->subject = pr_strdup("f: add b");
	p->body = pr_strdup("Why.\n\nSigned-off-by: A <a@x>\n");
	pr_version_add_patch(b, p);
	p = patch("", "", NULL);
	p->subject = pr_strdup("f: add c");
	pr_version_add_patch(b, p);
	assert_int_equal(pr_store_text_fingerprint(fb, b), 0);
	assert_string_equal(fa, fb);
	/* a word of a message, or a trailer, changed: another text */
	free(b->patches[0]->body);
	b->patches[0]->body = pr_strdup(
		"Why.\n\nSigned-off-by: A <a@x>\nAcked-by: B <b@x>\n");
	assert_int_equal(pr_store_text_fingerprint(fb, b), 0);
	assert_string_not_equal(fa, fb);
	/* a subject's end moved into the body is not the same text */
	free(b->patches[0]->body);
	b->patches[0]->body = pr_strdup("Why.\n\nSigned-off-by: A <a@x>\n");
	free(b->patches[1]->subject);
	b->patches[1]->subject = pr_strdup("f:");
	b->patches[1]->body = pr_strdup(" add c");
	assert_int_equal(pr_store_text_fingerprint(fb, b), 0);
	assert_string_not_equal(fa, fb);
	pr_version_free(a);
	pr_version_free(b);
}

/*
 * The same patches with reworded messages are a new version; the same
 * text again is found; a row without text (schema 8) matches any text
 * once and learns it; NULL matches on the patches alone.  A new series'
 * first version takes the number its source gave.
 */
static void test_record_version_text(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version v;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_record_version(&v, st, "git", "t", "f1", "t1",
						 2, 0),
			 0);
	assert_true(v.is_new);
	assert_int_equal(pr_store_record_version(&v, st, "git", "t", "f1", "t2",
						 2, 0),
			 0);
	assert_true(v.is_new);
	assert_int_equal(v.number, 2);
	assert_int_equal(pr_store_record_version(&v, st, "git", "t", "f1", "t1",
						 2, 0),
			 0);
	assert_false(v.is_new);
	assert_int_equal(v.number, 1);
	assert_int_equal(pr_store_record_version(&v, st, "git", "t", "f1", NULL,
						 2, 0),
			 0);
	assert_false(v.is_new);
	assert_int_equal(v.number, 1);
	/* a row from before the text: found by its patches, then knows it */
	assert_int_equal(pr_store_record_version(&v, st, "git", "u", "g1", NULL,
						 2, 0),
			 0);
	assert_true(v.is_new);
	assert_int_equal(pr_store_record_version(&v, st, "git", "u", "g1", "s1",
						 2, 0),
			 0);
	assert_false(v.is_new);
	assert_int_equal(v.number, 1);
	assert_int_equal(pr_store_record_version(&v, st, "git", "u", "g1", "s2",
						 2, 0),
			 0);
	assert_true(v.is_new);
	assert_int_equal(v.number, 2);
	assert_int_equal(pr_store_version_count(st, v.series_id), 2);
	/* a series first seen at v3 (a list's) is v3, then v4 */
	assert_int_equal(pr_store_record_version(&v, st, "list", "w", "h1",
						 "r1", 2, 3),
			 0);
	assert_true(v.is_new);
	assert_int_equal(v.number, 3);
	assert_int_equal(v.latest, 3);
	assert_int_equal(pr_store_record_version(&v, st, "list", "w", "h2",
						 "r2", 2, 7),
			 0);
	assert_int_equal(v.number, 4);
	assert_int_equal(pr_store_record_version(&v, st, "list", "w", "h1",
						 "r1", 2, 3),
			 0);
	assert_false(v.is_new);
	assert_int_equal(v.number, 3);
	assert_int_equal(v.latest, 4);
	/* two versions, the latest numbered 4 */
	assert_int_equal(pr_store_version_count(st, v.series_id), 2);
	assert_int_equal(pr_store_version_latest(st, v.series_id), 4);
	pr_store_free(st);
}

static void test_cursor(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_buf c = PR_BUF_INIT, e = PR_BUF_INIT;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_cursor_get(st, "gh", &c, &e), PR_ENOENT);
	assert_int_equal(pr_store_cursor_set(st, "gh", "page=3", "W/\"x\""), 0);
	assert_int_equal(pr_store_cursor_get(st, "gh", &c, &e), 0);
	assert_string_equal(c.ptr, "page=3");
	assert_string_equal(e.ptr, "W/\"x\"");
	assert_int_equal(pr_store_cursor_set(st, "gh", "page=4", NULL), 0);
	pr_buf_reset(&c);
	pr_buf_reset(&e);
	assert_int_equal(pr_store_cursor_get(st, "gh", &c, &e), 0);
	assert_string_equal(c.ptr, "page=4");
	assert_string_equal(e.ptr, "");
	assert_int_equal(pr_store_cursor_get(st, "other", NULL, NULL),
			 PR_ENOENT);
	pr_buf_release(&c);
	pr_buf_release(&e);
	pr_store_free(st);
}

static void test_identity(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version a, b;
	int64_t id;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_record_version(&a, st, "gh", "pr/1", "f",
						 NULL, 1, 0),
			 0);
	assert_int_equal(pr_store_record_version(&b, st, "gh", "pr/2", "f",
						 NULL, 1, 0),
			 0);
	assert_int_equal(pr_store_identity_add(st, a.series_id, "message-id",
					       "cover.1@example.org"),
			 0);
	assert_int_equal(
		pr_store_identity_add(st, a.series_id, "gerrit", "I1234"), 0);
	assert_int_equal(pr_store_identity_add(st, a.series_id, "message-id",
					       "cover.1@example.org"),
			 0);
	assert_int_equal(pr_store_identity_add(st, b.series_id, "message-id",
					       "cover.1@example.org"),
			 PR_EEXIST);
	assert_int_equal(pr_store_identity_find(&id, st, "gerrit", "I1234"), 0);
	assert_int_equal(id, a.series_id);
	assert_int_equal(pr_store_identity_find(&id, st, "gerrit", "I9"),
			 PR_ENOENT);
	pr_store_free(st);
}

static void test_delivery_resume(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version v;
	int64_t d, d2;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_record_version(&v, st, "git", "t", "f", NULL,
						 3, 0),
			 0);
	assert_int_equal(pr_store_delivery_open(&d, st, v.series_id, 1,
						"maildir", 3),
			 0);
	assert_int_equal(pr_store_delivery_pending(st, d), 3);
	assert_int_equal(pr_store_delivery_attempt(st, d, 0, NULL), 0);
	assert_int_equal(pr_store_delivery_mark_sent(st, d, 0), 0);
	assert_int_equal(pr_store_delivery_attempt(st, d, 1, "disk full"), 0);
	assert_int_equal(pr_store_delivery_status(st, d, 3), PR_ENOENT);
	assert_int_equal(pr_store_delivery_mark_sent(st, d, 5), PR_ENOENT);
	pr_store_free(st);

	/* a restarted run finds the same delivery where it stopped */
	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_delivery_open(&d2, st, v.series_id, 1,
						"maildir", 3),
			 0);
	assert_int_equal(d2, d);
	assert_int_equal(pr_store_delivery_status(st, d, 0), PR_STORE_SENT);
	assert_int_equal(pr_store_delivery_status(st, d, 1), PR_STORE_PENDING);
	assert_int_equal(pr_store_delivery_attempts(st, d, 1), 1);
	assert_int_equal(pr_store_delivery_attempts(st, d, 2), 0);
	assert_int_equal(pr_store_delivery_pending(st, d), 2);
	/* only an attempt that never came back was cut short */
	assert_int_equal(pr_store_delivery_cut_short(st, d, 0), 0);
	assert_int_equal(pr_store_delivery_cut_short(st, d, 1), 0);
	assert_int_equal(pr_store_delivery_cut_short(st, d, 2), 0);
	assert_int_equal(pr_store_delivery_attempt(st, d, 2, NULL), 0);
	assert_int_equal(pr_store_delivery_cut_short(st, d, 2), 1);
	assert_int_equal(pr_store_delivery_note(st, d, 2, "451"), 0);
	assert_int_equal(pr_store_delivery_cut_short(st, d, 2), 0);
	assert_int_equal(pr_store_delivery_cut_short(st, d, 3), PR_ENOENT);
	assert_int_equal(pr_store_delivery_open(&d2, st, v.series_id, 1,
						"maildir", 4),
			 PR_ESTATE);
	/* another sink is another delivery */
	assert_int_equal(
		pr_store_delivery_open(&d2, st, v.series_id, 1, "mbox", 3), 0);
	assert_true(d2 != d);
	assert_int_equal(pr_store_delivery_pending(st, d2), 3);
	pr_store_free(st);
}

static int collect(const struct pr_store_row *r, void *payload)
{
	struct pr_buf *b = payload;

	return pr_buf_addf(b, "%s:%s n=%d %s v%d %d/%d r=%d a=%d e=%s\n",
			   r->origin, r->key, r->nr_versions,
			   r->sink ? r->sink : "-", r->version, r->sent,
			   r->nr_messages, r->rejected, r->attempts,
			   r->last_error ? r->last_error : "-");
}

static void test_rows(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version v;
	struct pr_buf b = PR_BUF_INIT;
	int64_t d;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_foreach_row(st, collect, &b), 0);
	assert_string_equal(b.ptr, "");
	assert_int_equal(pr_store_record_version(&v, st, "git", "a", "f1", NULL,
						 2, 0),
			 0);
	assert_int_equal(pr_store_record_version(&v, st, "git", "a", "f2", NULL,
						 2, 0),
			 0);
	assert_int_equal(
		pr_store_delivery_open(&d, st, v.series_id, 2, "box", 2), 0);
	assert_int_equal(pr_store_delivery_attempt(st, d, 0, NULL), 0);
	assert_int_equal(pr_store_delivery_mark_sent(st, d, 0), 0);
	assert_int_equal(pr_store_delivery_attempt(st, d, 1, "disk full"), 0);
	assert_int_equal(pr_store_delivery_attempt(st, d, 1, NULL), 0);
	assert_int_equal(pr_store_delivery_note(st, d, 1, "still full"), 0);
	assert_int_equal(pr_store_record_version(&v, st, "gh", "pr/9", "f",
						 NULL, 1, 0),
			 0);
	assert_int_equal(pr_store_foreach_row(st, collect, &b), 0);
	assert_string_equal(b.ptr, "git:a n=2 box v2 1/2 r=0 a=3 e=still full\n"
				   "gh:pr/9 n=1 - v0 0/0 r=0 a=0 e=-\n");
	assert_int_equal(pr_store_delivery_mark_rejected(st, d, 1, "550 no"),
			 0);
	pr_buf_reset(&b);
	assert_int_equal(pr_store_foreach_row(st, collect, &b), 0);
	assert_string_equal(b.ptr, "git:a n=2 box v2 1/2 r=1 a=3 e=550 no\n"
				   "gh:pr/9 n=1 - v0 0/0 r=0 a=0 e=-\n");
	pr_buf_release(&b);
	pr_store_free(st);
}

/* Collects pr_store_foreach_landed rows as "origin:key vN branch commit". */
static int landed_line(const struct pr_store_landed *l, void *payload)
{
	return pr_buf_addf(payload, "%s:%s v%d %s %s\n", l->origin, l->key,
			   l->number, l->branch, l->commit);
}

/*
 * Schema 4 to 5, then landing: a version recorded before the migration
 * has no patch-ids and never lands; one recorded after lands once every
 * patch with a patch-id has landed (over two calls here), once only; two
 * versions sharing a patch land each when complete.
 */
static void test_land(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version old, v1, v2;
	struct pr_store_landed *l = NULL;
	struct pr_buf b = PR_BUF_INIT;
	const char *ids1[] = { "p1", "", "p2" }, *ids2[] = { "p1", "p3" };
	const char *first[] = { "p1", "zz" }, *first_c[] = { "c1", "cz" };
	const char *rest[] = { "p2", "p3" }, *rest_c[] = { "c2", "c3" };
	size_t nr;

	assert_int_equal(pr_store_open_version(&st, f->path, 4), 0);
	assert_int_equal(pr_store_record_version(&old, st, "list", "old", "fo",
						 NULL, 1, 0),
			 0);
	pr_store_free(st);
	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_schema_version(st), PR_STORE_SCHEMA_LATEST);
	assert_int_equal(pr_store_record_version(&v1, st, "git", "topic", "f1",
						 NULL, 3, 0),
			 0);
	assert_int_equal(
		pr_store_version_patches_set(st, v1.series_id, 1, ids1, 3), 0);
	/* again: nothing changes */
	assert_int_equal(
		pr_store_version_patches_set(st, v1.series_id, 1, ids1, 3), 0);
	assert_int_equal(pr_store_record_version(&v2, st, "list", "other", "f2",
						 NULL, 2, 0),
			 0);
	assert_int_equal(
		pr_store_version_patches_set(st, v2.series_id, 1, ids2, 2), 0);

	/* p1 and an unknown patch: nothing complete yet */
	assert_int_equal(pr_store_land(&l, &nr, st, "main", first, first_c, 2),
			 0);
	assert_int_equal(nr, 0);
	pr_store_landed_free(l, nr);
	/* p2 and p3: both versions complete (the "" patch does not count) */
	assert_int_equal(pr_store_land(&l, &nr, st, "main", rest, rest_c, 2),
			 0);
	assert_int_equal(nr, 2);
	assert_string_equal(l[0].key, "topic");
	assert_int_equal(l[0].number, 1);
	assert_string_equal(l[0].commit, "c2");
	assert_string_equal(l[0].branch, "main");
	assert_string_equal(l[1].key, "other");
	assert_string_equal(l[1].commit, "c3");
	pr_store_landed_free(l, nr);
	/* the same commits again (a lost cursor): landed once only */
	assert_int_equal(pr_store_land(&l, &nr, st, "main", rest, rest_c, 2),
			 0);
	assert_int_equal(nr, 0);
	pr_store_landed_free(l, nr);
	pr_store_free(st);

	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_foreach_landed(st, landed_line, &b), 0);
	assert_string_equal(b.ptr, "git:topic v1 main c2\n"
				   "list:other v1 main c3\n");
	pr_buf_release(&b);
	pr_store_free(st);
}

/* NORMAL commits, made durable by pr_store_sync: only after a write. */
static void test_sync(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_sql *sql;
	struct pr_buf cur = PR_BUF_INIT;
	int64_t v = -1, synced;

	assert_int_equal(pr_store_open(&st, f->path), 0);
	sql = pr_store_sql(st);
	assert_int_equal(pr_sql_get_int64(&v, sql, "synchronous",
					  "PRAGMA synchronous", ""),
			 0);
	assert_int_equal(v, 1); /* NORMAL */
	assert_int_equal(pr_store_cursor_set(st, "src", "c1", NULL), 0);
	assert_int_equal(pr_store_sync(st), 0);
	synced = sql->synced;
	assert_true(synced > 0);
	/* nothing written since: nothing to sync */
	assert_int_equal(pr_store_sync(st), 0);
	assert_int_equal(sql->synced, synced);
	assert_int_equal(pr_store_cursor_set(st, "src", "c2", NULL), 0);
	assert_int_equal(pr_store_sync(st), 0);
	assert_true(sql->synced > synced);
	pr_store_free(st);
	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_int_equal(pr_store_cursor_get(st, "src", &cur, NULL), 0);
	assert_string_equal(cur.ptr, "c2");
	pr_buf_release(&cur);
	pr_store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_is_wal_and_latest,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_first_schema,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_second_schema,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_third_schema,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_version_idempotent,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_version_matches_any,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_record_version_duplicate_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_land, setup, teardown),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_text_fingerprint),
		cmocka_unit_test_setup_teardown(test_record_version_text, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cursor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delivery_resume, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rows, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
