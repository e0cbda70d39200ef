#include "pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "gitlab.h"

/*
 * The GitLab REST mapping of connectors/gitlab.c: URLs, pagination, the
 * JSON of merge requests, notes, users and projects (in the shapes GitLab
 * 16/17 and tests/emulators/gitlab.py answer), request bodies and the
 * mapping of error answers to PR_E* codes.
 */

static void test_project_url(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_gitlab_project_url(&b, "https://gitlab.com/api/v4/",
					       "group/sub/project",
					       "/merge_requests/5/notes"),
			 0);
	assert_string_equal(
		b.ptr,
		"https://gitlab.com/api/v4/projects/group%2Fsub%2Fproject"
		"/merge_requests/5/notes");
	pr_buf_reset(&b);
	/* a '+' or space in a path segment would change its meaning */
	assert_int_equal(pr_gitlab_project_url(&b, "http://h/api/v4", "a b/c+d",
					       NULL),
			 0);
	assert_string_equal(b.ptr, "http://h/api/v4/projects/a%20b%2Fc%2Bd");
	pr_buf_release(&b);
}

static void test_next_url(void **state)
{
	struct pr_http_response r = { 0 };
	struct pr_buf b = PR_BUF_INIT;

	r.next_page = "3";
	assert_int_equal(pr_gitlab_next_url(&b,
					    "http://h/x?per_page=100&page=2&"
					    "sort=asc",
					    &r),
			 1);
	assert_string_equal(b.ptr, "http://h/x?per_page=100&page=3&sort=asc");
	pr_buf_reset(&b);
	r.next_page = "2";
	assert_int_equal(pr_gitlab_next_url(&b, "http://h/x?per_page=100", &r),
			 1);
	assert_string_equal(b.ptr, "http://h/x?per_page=100&page=2");
	pr_buf_reset(&b);
	/* per_page= is not page= */
	assert_int_equal(pr_gitlab_next_url(&b, "http://h/x?per_page=9", &r),
			 1);
	assert_string_equal(b.ptr, "http://h/x?per_page=9&page=2");
	pr_buf_reset(&b);
	assert_int_equal(pr_gitlab_next_url(&b, "http://h/x", &r), 1);
	assert_string_equal(b.ptr, "http://h/x?page=2");
	pr_buf_reset(&b);

	/* empty x-next-page: the last page, whatever Link says */
	r.next_page = "";
	r.link = "<http://h/x?page=9>; rel=\"next\"";
	assert_int_equal(pr_gitlab_next_url(&b, "http://h/x", &r), 0);
	/* no x-next-page (keyset pagination): Link rel=next */
	r.next_page = NULL;
	r.link = "<http://h/x?id_after=42&pagination=keyset>; rel=\"next\"";
	assert_int_equal(pr_gitlab_next_url(&b, "http://h/x", &r), 1);
	assert_string_equal(b.ptr, "http://h/x?id_after=42&pagination=keyset");
	pr_buf_reset(&b);
	r.link = NULL;
	assert_int_equal(pr_gitlab_next_url(&b, "http://h/x", &r), 0);

	r.next_page = "2&admin=1";
	assert_int_equal(pr_gitlab_next_url(&b, "http://h/x", &r), PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "x-next-page"));
	pr_buf_release(&b);
}

static const char mrs_json[] =
	"[{\"id\":901,\"iid\":7,\"project_id\":3,\"title\":\"net: fix "
	"\\u00e9\",\"description\":null,\"state\":\"opened\","
	"\"updated_at\":\"2026-12-03T10:00:00.000Z\",\"target_branch\":"
	"\"main\",\"source_branch\":\"topic\",\"author\":{\"id\":5,"
	"\"username\":\"alice\",\"name\":\"Alice\"},\"labels\":[\"netdev\","
	"\"bug\"],\"draft\":true,\"sha\":\"0123456789abcdef0123456789abcdef"
	"01234567\",\"web_url\":\"https://gl/g/p/-/merge_requests/7\"},"
	"{\"id\":902,\"iid\":8,\"title\":\"second\",\"description\":\"Cc: "
	"x@y\",\"state\":\"opened\",\"target_branch\":\"main\",\"author\":"
	"{\"username\":\"bob\"},\"labels\":[{\"name\":\"detailed\"}],"
	"\"work_in_progress\":false,\"sha\":null}]";

static void test_parse_mrs(void **state)
{
	struct pr_gitlab_mr *mrs = NULL;
	size_t nr = 0;

	assert_int_equal(
		pr_gitlab_parse_mrs(&mrs, &nr, mrs_json, strlen(mrs_json)), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(mrs[0].iid, 7);
	assert_string_equal(mrs[0].title, "net: fix \xc3\xa9");
	assert_string_equal(mrs[0].description, "");
	assert_string_equal(mrs[0].state, "opened");
	assert_string_equal(mrs[0].author, "alice");
	assert_string_equal(mrs[0].target_branch, "main");
	assert_string_equal(mrs[0].source_branch, "topic");
	assert_string_equal(mrs[0].sha,
			    "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(mrs[0].web_url,
			    "https://gl/g/p/-/merge_requests/7");
	assert_string_equal(mrs[0].updated_at, "2026-12-03T10:00:00.000Z");
	assert_true(mrs[0].draft);
	assert_int_equal(mrs[0].labels.nr, 2);
	assert_string_equal(mrs[0].labels.items[1], "bug");
	assert_int_equal(mrs[1].iid, 8);
	assert_string_equal(mrs[1].description, "Cc: x@y");
	assert_null(mrs[1].sha);
	assert_null(mrs[1].web_url);
	assert_false(mrs[1].draft);
	assert_string_equal(mrs[1].labels.items[0], "detailed");

	/* a second page appends */
	assert_int_equal(
		pr_gitlab_parse_mrs(&mrs, &nr, mrs_json, strlen(mrs_json)), 0);
	assert_int_equal(nr, 4);
	assert_int_equal(mrs[3].iid, 8);
	pr_gitlab_mrs_free(mrs, nr);
	pr_gitlab_mrs_free(NULL, 0);
}

static void expect_mr_error(const char *json, const char *words)
{
	struct pr_gitlab_mr mr = { 0 };
	struct pr_gitlab_mr *mrs = NULL;
	struct pr_buf list = PR_BUF_INIT;
	size_t nr = 0;

	assert_int_equal(pr_gitlab_parse_mr(&mr, json, strlen(json)),
			 PR_EPARSE);
	if (!strstr(pr_error_message(), words))
		fail_msg("'%s' does not say '%s'", pr_error_message(), words);
	assert_null(mr.title);
	/* the same object inside a list, after a good one */
	pr_buf_addf(&list,
		    "[{\"iid\":1,\"title\":\"t\",\"state\":\"o\","
		    "\"target_branch\":\"m\"},%s]",
		    json);
	assert_int_equal(pr_gitlab_parse_mrs(&mrs, &nr, list.ptr, list.len),
			 PR_EPARSE);
	assert_int_equal(nr, 1);
	pr_gitlab_mrs_free(mrs, nr);
	pr_buf_release(&list);
}

static void test_parse_mr_errors(void **state)
{
	struct pr_gitlab_mr mr = { 0 };
	const char *one = "{\"iid\":3,\"title\":\"t\",\"state\":\"merged\","
			  "\"target_branch\":\"main\",\"changes_count\":"
			  "\"1000+\"}";

	assert_int_equal(pr_gitlab_parse_mr(&mr, one, strlen(one)), 0);
	assert_int_equal(mr.iid, 3);
	assert_string_equal(mr.state, "merged");
	assert_null(mr.author);
	pr_gitlab_mr_release(&mr);
	pr_gitlab_mr_release(&mr);

	expect_mr_error("{\"title\":\"t\"}", "'iid'");
	expect_mr_error("{\"iid\":-1,\"title\":\"t\"}", "'iid'");
	expect_mr_error("{\"iid\":\"4\",\"title\":\"t\"}", "'iid'");
	expect_mr_error("{\"iid\":4,\"state\":\"opened\",\"target_branch\":"
			"\"m\"}",
			"no 'title'");
	expect_mr_error("{\"iid\":4,\"title\":\"t\",\"state\":\"o\","
			"\"target_branch\":\"m\",\"author\":\"eve\"}",
			"'author' is not an object");
	expect_mr_error("{\"iid\":4,\"title\":\"t\",\"state\":\"o\","
			"\"target_branch\":\"m\",\"labels\":[1]}",
			"label 1");
	expect_mr_error("7", "not an object");
	/* jansson refuses NUL bytes in strings, so they never get through */
	one = "{\"iid\":4,\"title\":\"a\\u0000b\"}";
	assert_int_equal(pr_gitlab_parse_mr(&mr, one, strlen(one)), PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "bad JSON"));
	assert_int_equal(pr_gitlab_parse_mr(&mr, "{\"iid\":4,", 9), PR_EPARSE);
	/* a list where one object is wanted and the reverse */
	assert_int_equal(pr_gitlab_parse_mr(&mr, "[]", 2), PR_EPARSE);
	{
		struct pr_gitlab_mr *mrs = NULL;
		size_t nr = 0;

		assert_int_equal(pr_gitlab_parse_mrs(&mrs, &nr, "{}", 2),
				 PR_EPARSE);
		assert_non_null(strstr(pr_error_message(), "not a list"));
		free(mrs);
	}
}

static const char notes_json[] =
	"[{\"id\":11,\"body\":\"/submit\",\"author\":{\"username\":\"alice\"},"
	"\"created_at\":\"2026-12-03T10:00:00.000Z\",\"system\":false},"
	"{\"id\":12,\"body\":\"added 3 commits\",\"author\":{\"username\":"
	"\"alice\"},\"system\":true},"
	"{\"id\":13,\"body\":\"LGTM\\r\\nCc: x@y\",\"author\":{\"username\":"
	"\"bob\"},\"system\":false,\"internal\":false}]";

static void test_parse_notes(void **state)
{
	struct pr_gitlab_note *n = NULL;
	size_t nr = 0;
	const char *bad = "[{\"id\":1,\"body\":\"x\",\"system\":false}]";
	const char *nobody = "[{\"id\":1,\"author\":{\"username\":\"a\"}}]";

	assert_int_equal(pr_gitlab_parse_notes(&n, &nr, notes_json,
					       strlen(notes_json)),
			 0);
	assert_int_equal(nr, 2); /* the system note is dropped */
	assert_int_equal(n[0].id, 11);
	assert_string_equal(n[0].author, "alice");
	assert_string_equal(n[0].body, "/submit");
	assert_string_equal(n[0].created_at, "2026-12-03T10:00:00.000Z");
	assert_int_equal(n[1].id, 13);
	assert_string_equal(n[1].author, "bob");
	assert_string_equal(n[1].body, "LGTM\r\nCc: x@y");
	assert_null(n[1].created_at);
	pr_gitlab_notes_free(n, nr);

	n = NULL;
	nr = 0;
	assert_int_equal(pr_gitlab_parse_notes(&n, &nr, bad, strlen(bad)),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "no author"));
	pr_gitlab_notes_free(n, nr);
	n = NULL;
	nr = 0;
	assert_int_equal(pr_gitlab_parse_notes(&n, &nr, nobody, strlen(nobody)),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "'body'"));
	pr_gitlab_notes_free(n, nr);
	n = NULL;
	nr = 0;
	assert_int_equal(pr_gitlab_parse_notes(&n, &nr, "{}", 2), PR_EPARSE);
	assert_int_equal(nr, 0);
	pr_gitlab_notes_free(n, nr);
}

static void test_parse_user_project(void **state)
{
	const char *u = "{\"id\":1,\"username\":\"relay-bot\",\"name\":\"R\","
			"\"state\":\"active\"}";
	const char *p = "{\"id\":3,\"path_with_namespace\":\"g/p\","
			"\"http_url_to_repo\":\"https://gl/g/p.git\"}";
	char *s = NULL;

	assert_int_equal(pr_gitlab_parse_user(&s, u, strlen(u)), 0);
	assert_string_equal(s, "relay-bot");
	free(s);
	assert_int_equal(pr_gitlab_parse_user(&s, "{\"id\":1}", 8), PR_EPARSE);
	assert_null(s);
	assert_int_equal(pr_gitlab_parse_user(&s, "[]", 2), PR_EPARSE);
	assert_int_equal(pr_gitlab_parse_project(&s, p, strlen(p)), 0);
	assert_string_equal(s, "https://gl/g/p.git");
	free(s);
	assert_int_equal(pr_gitlab_parse_project(&s, u, strlen(u)), PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "http_url_to_repo"));
}

static void test_bodies(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_gitlab_note_json(&b, "say \"hi\"\n\\ \x01"), 0);
	assert_string_equal(b.ptr,
			    "{\"body\":\"say \\\"hi\\\"\\n\\\\ \\u0001\"}");
	pr_buf_reset(&b);
	assert_int_equal(pr_gitlab_note_json(&b, "bad \xff utf-8"), PR_EINVAL);
	assert_int_equal(b.len, 0);
	assert_int_equal(pr_gitlab_close_json(&b), 0);
	assert_string_equal(b.ptr, "{\"state_event\":\"close\"}");
	pr_buf_reset(&b);
	assert_int_equal(pr_gitlab_labels_json(&b, "sent", "refused"), 0);
	assert_string_equal(b.ptr, "{\"add_labels\":\"sent\",\"remove_labels\":"
				   "\"refused\"}");
	pr_buf_reset(&b);
	assert_int_equal(pr_gitlab_labels_json(&b, NULL, "x"), 0);
	assert_string_equal(b.ptr, "{\"remove_labels\":\"x\"}");
	pr_buf_release(&b);
}

static void expect_status(long status, const char *body, int code,
			  const char *words)
{
	struct pr_http_response r = { 0 };

	r.status = status;
	pr_buf_init(&r.body, 0);
	if (body)
		pr_buf_adds(&r.body, body);
	assert_int_equal(pr_gitlab_check(&r, "GET", "http://h/api/v4/x"), code);
	if (words) {
		assert_non_null(strstr(pr_error_message(), words));
		assert_non_null(
			strstr(pr_error_message(), "http://h/api/v4/x"));
	}
	pr_buf_release(&r.body);
}

static void test_check(void **state)
{
	expect_status(200, "[]", 0, NULL);
	expect_status(201, "{}", 0, NULL);
	expect_status(304, NULL, 0, NULL);
	expect_status(401, "{\"message\":\"401 Unauthorized\"}", PR_EAUTH,
		      "status 401: 401 Unauthorized");
	expect_status(403, "not json", PR_EAUTH, "status 403");
	expect_status(404, "{\"message\":\"404 Project Not Found\"}", PR_ENOENT,
		      "404 Project Not Found");
	expect_status(400,
		      "{\"error\":\"state_event does not have a valid value\"}",
		      PR_EINVAL, "state_event does not have a valid value");
	expect_status(429,
		      "{\"message\":{\"error\":\"This endpoint has been "
		      "requested too many times. Try again later.\"}}",
		      PR_EAGAIN, "requested too many times");
	expect_status(502, "<html>", PR_ENET, "status 502");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_project_url),
		cmocka_unit_test(test_next_url),
		cmocka_unit_test(test_parse_mrs),
		cmocka_unit_test(test_parse_mr_errors),
		cmocka_unit_test(test_parse_notes),
		cmocka_unit_test(test_parse_user_project),
		cmocka_unit_test(test_bodies),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
