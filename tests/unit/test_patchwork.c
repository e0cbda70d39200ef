#include "base/pr.h"
#include "engine/notes.h"
#include "engine/store.h"
#include "patchwork.h"

#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

/* The patchwork connector's parsers, cursor, options and notes. */

static const char page[] =
	"[{\"id\": 12, \"url\": \"http://pw/api/patches/12/\","
	" \"web_url\": \"http://pw/project/netdev/patch/a@b/\","
	" \"msgid\": \"<a@b>\", \"date\": \"2026-12-03T12:00:00\","
	" \"name\": \"[v2,1/3] net: fix\", \"commit_ref\": null,"
	" \"state\": \"new\", \"archived\": false,"
	" \"hash\": \"0123456789abcdef0123456789abcdef01234567\","
	" \"submitter\": {\"id\": 3, \"name\": \"Ada\", \"email\": "
	"\"ada@example.org\"}, \"delegate\": null,"
	" \"series\": [{\"id\": 7, \"version\": 2}], \"check\": \"pending\"},"
	" {\"id\": 13, \"msgid\": \"<c@d>\", \"name\": \"x\","
	" \"state\": \"accepted\", \"commit_ref\": \"abc\", \"series\": [],"
	" \"hash\": null, \"archived\": true, \"submitter\": null}]";

static void test_patches_parse(void **state)
{
	struct pr_pw_patch_list l = { 0 };

	PR_UNUSED(state);
	assert_int_equal(pr_pw_patches_parse(&l, page, strlen(page)), 0);
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.items[0].id, 12);
	assert_int_equal(l.items[0].series_id, 7);
	assert_string_equal(l.items[0].msgid, "a@b");
	assert_string_equal(l.items[0].name, "[v2,1/3] net: fix");
	assert_string_equal(l.items[0].state, "new");
	assert_string_equal(l.items[0].submitter, "ada@example.org");
	assert_string_equal(l.items[0].hash,
			    "0123456789abcdef0123456789abcdef01234567");
	assert_null(l.items[0].commit_ref);
	assert_false(l.items[0].archived);
	assert_int_equal(l.items[1].series_id, 0);
	assert_null(l.items[1].hash);
	assert_null(l.items[1].submitter);
	assert_string_equal(l.items[1].commit_ref, "abc");
	assert_true(l.items[1].archived);
	pr_pw_patch_list_release(&l);

	/* not what the API gives: errors naming the field, nothing kept */
	assert_int_equal(pr_pw_patches_parse(&l, "{}", 2), PR_EPARSE);
	assert_int_equal(pr_pw_patches_parse(&l, "[{\"id\": 1}]", 11),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "'msgid'"));
	assert_int_equal(pr_pw_patches_parse(&l,
					     "[{\"id\": \"1\", \"msgid\": "
					     "\"<x>\"}]",
					     27),
			 PR_EPARSE);
	assert_int_equal(pr_pw_patches_parse(&l, "[1,", 3), PR_EPARSE);
	assert_int_equal(l.nr, 0);
	pr_pw_patch_list_release(&l);
}

static void test_events_and_series(void **state)
{
	static const char events[] =
		"[{\"id\": 5, \"category\": \"series-completed\", "
		"\"project\": {}, \"date\": \"2026-12-03T12:00:00.123456\", "
		"\"actor\": null, \"payload\": {\"series\": {\"id\": 9, "
		"\"url\": \"http://pw/api/series/9/\"}}},"
		" {\"id\": 6, \"category\": \"patch-created\", \"date\": "
		"\"2026-12-03T12:00:01\", \"payload\": {\"patch\": {}}},"
		" {\"id\": 7, \"category\": \"patch-state-changed\", "
		"\"date\": \"2026-12-03T12:00:02\", \"payload\": {\"patch\": "
		"{\"id\": 12, \"msgid\": \"<p@x>\"}, \"previous_state\": "
		"\"new\", \"current_state\": \"superseded\"}}]";
	static const char series[] =
		"{\"id\": 9, \"name\": \"fixes\", \"web_url\": \"w\", "
		"\"mbox\": \"http://pw/series/9/mbox/\", \"version\": 3, "
		"\"total\": 2, \"received_all\": true, \"submitter\": "
		"{\"name\": \"Ada\", \"email\": \"ada@example.org\"}, "
		"\"cover_letter\": {\"id\": 4, \"msgid\": \"<cov@x>\", "
		"\"mbox\": \"http://pw/cover/mbox/\"}, \"patches\": []}";
	struct pr_pw_event_list l = { 0 };
	struct pr_pw_series s;

	PR_UNUSED(state);
	assert_int_equal(pr_pw_events_parse(&l, events, strlen(events)), 0);
	assert_int_equal(l.nr, 3);
	assert_int_equal(l.items[2].patch_id, 12);
	assert_string_equal(l.items[2].patch_msgid, "p@x");
	assert_string_equal(l.items[2].state, "superseded");
	assert_null(l.items[1].state);
	assert_int_equal(l.items[0].id, 5);
	assert_int_equal(l.items[0].series_id, 9);
	assert_string_equal(l.items[0].date, "2026-12-03T12:00:00.123456");
	assert_string_equal(l.items[1].category, "patch-created");
	assert_int_equal(l.items[1].series_id, 0);
	pr_pw_event_list_release(&l);

	assert_int_equal(pr_pw_series_parse(&s, series, strlen(series)), 0);
	assert_int_equal(s.id, 9);
	assert_int_equal(s.version, 3);
	assert_int_equal(s.total, 2);
	assert_true(s.received_all);
	assert_string_equal(s.submitter_email, "ada@example.org");
	assert_string_equal(s.cover_msgid, "cov@x");
	assert_int_equal(s.cover_id, 4);
	pr_pw_series_release(&s);
	assert_int_equal(pr_pw_series_parse(&s, "{\"id\": 1}", 9), PR_EPARSE);
	assert_int_equal(pr_pw_series_parse(&s, "[]", 2), PR_EPARSE);
}

static void test_states_and_errors(void **state)
{
	static const char bad[] =
		"{\"state\": [\"Invalid state mainline. Expected one of: new, "
		"under-review, needs-review-ack.\"]}";
	struct pr_strlist states = { 0 };
	struct pr_buf text = PR_BUF_INIT;

	PR_UNUSED(state);
	assert_int_equal(pr_pw_states_parse(&states, bad), 0);
	assert_int_equal(states.nr, 3);
	assert_string_equal(states.items[0], "new");
	assert_string_equal(states.items[2], "needs-review-ack");
	pr_strlist_release(&states);
	assert_int_equal(pr_pw_states_parse(&states, "{\"detail\": \"x\"}"),
			 PR_ENOENT);
	assert_int_equal(pr_pw_states_parse(&states, NULL), PR_ENOENT);

	assert_int_equal(pr_pw_error_text(&text, bad, strlen(bad)), 0);
	assert_string_equal(text.ptr, "state: Invalid state mainline. Expected "
				      "one of: new, under-review, "
				      "needs-review-ack.");
	pr_buf_reset(&text);
	assert_int_equal(
		pr_pw_error_text(&text, "{\"detail\": \"Invalid token.\"}", 28),
		0);
	assert_string_equal(text.ptr, "Invalid token.");
	pr_buf_reset(&text);
	assert_int_equal(pr_pw_error_text(&text, "<h1>x</h1>", 10), 0);
	assert_string_equal(text.ptr, "a body that is not JSON: \"x\"");
	pr_buf_reset(&text);
	assert_int_equal(pr_pw_error_text(&text,
					  "<html><title>403 Forbidden</title>\n"
					  "<body>\n<h1>Forbidden</h1>",
					  60),
			 0);
	assert_string_equal(text.ptr,
			    "a body that is not JSON: \"403 Forbidden "
			    "Forbidden\"");
	pr_buf_reset(&text);
	assert_int_equal(pr_pw_error_text(&text, "<br/>\n", 6), 0);
	assert_string_equal(text.ptr, "6 bytes that are not JSON");
	pr_buf_release(&text);
}

static void test_cursor(void **state)
{
	struct pr_pw_cursor c;
	struct pr_buf out = PR_BUF_INIT;

	PR_UNUSED(state);
	assert_int_equal(pr_pw_cursor_parse(&c, NULL), 0);
	assert_null(c.since);
	assert_int_equal(pr_pw_cursor_parse(&c,
					    "pw1 since=2026-12-03T12:00:00.5 "
					    "seen=4,17"),
			 0);
	assert_string_equal(c.since, "2026-12-03T12:00:00.5");
	assert_int_equal(c.nr_seen, 2);
	assert_int_equal(c.seen[1], 17);
	assert_int_equal(pr_pw_cursor_format(&out, &c), 0);
	assert_string_equal(out.ptr,
			    "pw1 since=2026-12-03T12:00:00.5 seen=4,17");
	pr_pw_cursor_release(&c);
	pr_buf_release(&out);
	assert_int_equal(pr_pw_cursor_parse(&c, "pw1 since=x y seen="),
			 PR_EPARSE);
	assert_int_equal(pr_pw_cursor_parse(&c, "pw1 since=2026 seen=1,,2"),
			 PR_EPARSE);
	assert_int_equal(pr_pw_cursor_parse(&c, "pw2 since=2026 seen="),
			 PR_EPARSE);
	assert_null(c.since);
}

static int open_with(struct pr_pw **pw, struct pr_instance *inst,
		     struct pr_patchwork_ctx *ctx, const char *match)
{
	pr_strlist_release(&ctx->match);
	if (match)
		pr_strlist_add(&ctx->match, match);
	inst->ctx = ctx;
	return pr_pw_open(pw, inst);
}

static void test_options(void **state)
{
	struct pr_patchwork_ctx ctx;
	struct pr_instance inst;
	struct pr_pw *pw = NULL;

	PR_UNUSED(state);
	memset(&ctx, 0, sizeof(ctx));
	memset(&inst, 0, sizeof(inst));
	inst.name = "pw";
	ctx.api_url = "https://patchwork.example.org/api";
	ctx.project = "netdev";
	ctx.check_context = "patchrelay";
	ctx.on_landed = "accepted";
	ctx.on_superseded = "superseded";
	assert_int_equal(open_with(&pw, &inst, &ctx, NULL), 0);
	assert_string_equal(pw->api.ptr, "https://patchwork.example.org/api/");
	assert_int_equal(pw->nr_match, 3);
	assert_int_equal(pw->match[2], PR_PW_MATCH_PATCH_ID);
	assert_true(pr_pw_state_is_final(pw, "not-applicable"));
	assert_false(pr_pw_state_is_final(pw, "under-review"));
	pr_pw_free(pw);
	assert_int_equal(open_with(&pw, &inst, &ctx, "subject, hash hash"), 0);
	assert_int_equal(pw->nr_match, 2);
	assert_int_equal(pw->match[0], PR_PW_MATCH_SUBJECT);
	assert_int_equal(pw->match[1], PR_PW_MATCH_HASH);
	pr_pw_free(pw);
	assert_int_equal(open_with(&pw, &inst, &ctx, "msgid fuzzy"),
			 PR_ECONFIG);
	assert_non_null(strstr(pr_error_message(), "'fuzzy'"));
	ctx.check_context = "pr relay";
	assert_int_equal(open_with(&pw, &inst, &ctx, NULL), PR_ECONFIG);
	ctx.check_context = "patchrelay";
	ctx.api_url = "ftp://x/";
	assert_int_equal(open_with(&pw, &inst, &ctx, NULL), PR_ECONFIG);
	assert_null(pw);
	pr_strlist_release(&ctx.match);
}

static int count_note(const char *scope, const char *key, const char *value,
		      void *payload)
{
	PR_UNUSED(scope);
	PR_UNUSED(key);
	PR_UNUSED(value);
	(*(int *)payload)++;
	return 0;
}

static void test_notes(void **state)
{
	char dir[] = "/tmp/pr-notes-XXXXXX";
	struct pr_buf path = PR_BUF_INIT, val = PR_BUF_INIT;
	struct pr_store *st = NULL;
	int n = 0;

	PR_UNUSED(state);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(pr_buf_addf(&path, "%s/state.db", dir), 0);
	assert_int_equal(pr_store_open(&st, path.ptr), 0);
	/* no table yet: nothing, no error */
	assert_int_equal(pr_notes_get(&val, st, "patchwork:a", "k"), PR_ENOENT);
	assert_int_equal(pr_notes_foreach(st, "", "", count_note, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(pr_notes_set(st, "patchwork:a", "k", "1"), 0);
	assert_int_equal(pr_notes_set(st, "patchwork:a", "k", "2"), 0);
	assert_int_equal(pr_notes_set(st, "patchwork:a", "kk", "3"), 0);
	assert_int_equal(pr_notes_set(st, "patchwork:ab", "k", "4"), 0);
	assert_int_equal(pr_notes_get(&val, st, "patchwork:a", "k"), 0);
	assert_string_equal(val.ptr, "2");
	assert_int_equal(
		pr_notes_foreach(st, "patchwork:a", "k", count_note, &n), 0);
	assert_int_equal(n, 3);
	n = 0;
	assert_int_equal(
		pr_notes_foreach(st, "patchwork:ab", "", count_note, &n), 0);
	assert_int_equal(n, 1);
	pr_store_free(st);
	/* kept in the file */
	assert_int_equal(pr_store_open(&st, path.ptr), 0);
	pr_buf_reset(&val);
	assert_int_equal(pr_notes_get(&val, st, "patchwork:a", "kk"), 0);
	assert_string_equal(val.ptr, "3");
	pr_store_free(st);
	pr_buf_reset(&val);
	assert_int_equal(pr_buf_addf(&val, "rm -rf '%s'", dir), 0);
	assert_int_equal(system(val.ptr), 0);
	pr_buf_release(&val);
	pr_buf_release(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patches_parse),
		cmocka_unit_test(test_events_and_series),
		cmocka_unit_test(test_states_and_errors),
		cmocka_unit_test(test_cursor),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
