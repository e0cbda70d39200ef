#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "forge.h"
#include "github.h"
#include "gitlab.h"

/*
 * What the forge sinks and the reply relay add to the forges' tables:
 * the branch a series is pushed as, the request bodies that open and
 * update a pull request, the JSON of comments on lines and of reviews
 * (in the shapes GitHub and GitLab document), and the cursor's marks.
 * The requests are tested by tests/integration/relay_*.sh.
 */

static json_t *load(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);

	assert_non_null(j);
	return j;
}

static void test_branch(void **state)
{
	struct pr_buf a = PR_BUF_INIT, b = PR_BUF_INIT;
	size_t n;

	PR_UNUSED(state);
	assert_int_equal(pr_forge_sink_branch(&a, "patchrelay/", "netdev",
					      "cover.17.git.ada@example.org"),
			 0);
	assert_int_equal(
		strncmp(a.ptr, "patchrelay/cover.17.git.ada-example.org-", 40),
		0);
	assert_int_equal(a.len, 40 + 8);
	/* the same every time; another source, another branch */
	assert_int_equal(pr_forge_sink_branch(&b, "patchrelay/", "netdev",
					      "cover.17.git.ada@example.org"),
			 0);
	assert_string_equal(a.ptr, b.ptr);
	pr_buf_reset(&b);
	assert_int_equal(pr_forge_sink_branch(&b, "patchrelay/", "other",
					      "cover.17.git.ada@example.org"),
			 0);
	assert_string_not_equal(a.ptr, b.ptr);
	/* what git refuses never gets in: "..", a leading '.', long keys */
	pr_buf_reset(&a);
	assert_int_equal(pr_forge_sink_branch(&a, "p/", "s", "..a//b..c@@~^:"),
			 0);
	assert_null(strstr(a.ptr, ".."));
	assert_null(strpbrk(a.ptr + 2, "/~^:@"));
	assert_true(a.ptr[2] != '.');
	pr_buf_reset(&a);
	assert_int_equal(pr_forge_sink_branch(&a, "p/", "s",
					      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
					      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
			 0);
	n = a.len;
	assert_int_equal(n, 2 + 48 + 1 + 8);
	pr_buf_release(&a);
	pr_buf_release(&b);
}

static void test_bodies(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	PR_UNUSED(state);
	assert_int_equal(pr_forge_rest_pr_json(&b, &pr_github_rest, "p/x",
					       "main", "T", "B\n\"q\""),
			 0);
	assert_string_equal(b.ptr,
			    "{\"title\":\"T\",\"body\":\"B\\n\\\"q\\\"\","
			    "\"head\":\"p/x\",\"base\":\"main\"}");
	pr_buf_reset(&b);
	assert_int_equal(pr_forge_rest_pr_json(&b, &pr_gitlab_rest, NULL, NULL,
					       "T", "D"),
			 0);
	assert_string_equal(b.ptr, "{\"title\":\"T\",\"description\":\"D\"}");
	pr_buf_reset(&b);
	/* text that is not UTF-8 is refused */
	assert_int_equal(pr_forge_rest_pr_json(&b, &pr_gitlab_rest, "b", "m",
					       "\xff", "D"),
			 PR_EINVAL);
	pr_buf_release(&b);
}

static void test_github_lines(void **state)
{
	struct pr_forge_comment_list l = { 0 };
	json_t *c = load(
		"{\"id\":1009,\"user\":{\"login\":\"grace\"},"
		"\"body\":\"Why?\",\"path\":\"b.txt\",\"line\":2,"
		"\"original_line\":2,\"diff_hunk\":\"@@ -1 +1,2 @@\\n x\\n+y\","
		"\"html_url\":\"https://github.com/o/r/pull/1#discussion_r1009\","
		"\"commit_id\":\"abc\"}");
	json_t *outdated = load("{\"id\":1010,\"user\":{\"login\":\"g\"},"
				"\"body\":\"b\",\"path\":\"a.c\",\"line\":null,"
				"\"original_line\":7}");
	json_t *review = load("{\"id\":77,\"user\":{\"login\":\"grace\"},"
			      "\"body\":\"ok\",\"state\":\"APPROVED\","
			      "\"html_url\":\"https://x/pull/1#r77\"}");
	json_t *bad = load("{\"id\":5,\"user\":{\"login\":\"g\"},"
			   "\"body\":\"b\",\"path\":7}");

	PR_UNUSED(state);
	assert_int_equal(
		pr_forge_rest_comment_from_json(&l, &pr_github_rest, c), 0);
	assert_string_equal(l.items[0].path, "b.txt");
	assert_int_equal(l.items[0].line, 2);
	assert_string_equal(l.items[0].hunk, "@@ -1 +1,2 @@\n x\n+y");
	assert_string_equal(l.items[0].url,
			    "https://github.com/o/r/pull/1#discussion_r1009");
	assert_null(l.items[0].state);
	/* an outdated comment: the line it was written on */
	assert_int_equal(pr_forge_rest_comment_from_json(&l, &pr_github_rest,
							 outdated),
			 0);
	assert_int_equal(l.items[1].line, 7);
	assert_int_equal(pr_forge_rest_comment_from_json(&l, &pr_github_rest,
							 review),
			 0);
	assert_string_equal(l.items[2].state, "APPROVED");
	assert_null(l.items[2].path);
	assert_int_equal(pr_forge_rest_comment_from_json(&l, &pr_github_rest,
							 bad),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "'path'"));
	pr_forge_comment_list_release(&l);
	json_decref(c);
	json_decref(outdated);
	json_decref(review);
	json_decref(bad);
}

static void test_gitlab_lines(void **state)
{
	struct pr_forge_comment_list l = { 0 };
	json_t *n = load("{\"id\":8,\"type\":\"DiffNote\",\"body\":\"yy?\","
			 "\"author\":{\"username\":\"grace\"},\"system\":false,"
			 "\"position\":{\"position_type\":\"text\","
			 "\"new_path\":\"b.txt\",\"old_path\":\"b.txt\","
			 "\"new_line\":2,\"old_line\":null}}");
	json_t *removed = load("{\"id\":9,\"body\":\"why drop it?\","
			       "\"author\":{\"username\":\"g\"},"
			       "\"position\":{\"new_path\":\"a.c\","
			       "\"new_line\":null,\"old_line\":4}}");
	json_t *plain = load("{\"id\":10,\"body\":\"hi\",\"position\":null,"
			     "\"author\":{\"username\":\"g\"}}");
	json_t *bad = load("{\"id\":11,\"body\":\"b\",\"position\":[],"
			   "\"author\":{\"username\":\"g\"}}");

	PR_UNUSED(state);
	assert_int_equal(
		pr_forge_rest_comment_from_json(&l, &pr_gitlab_rest, n), 0);
	assert_string_equal(l.items[0].path, "b.txt");
	assert_int_equal(l.items[0].line, 2);
	assert_null(l.items[0].url);
	assert_null(l.items[0].hunk);
	assert_int_equal(pr_forge_rest_comment_from_json(&l, &pr_gitlab_rest,
							 removed),
			 0);
	assert_int_equal(l.items[1].line, 4);
	assert_int_equal(
		pr_forge_rest_comment_from_json(&l, &pr_gitlab_rest, plain), 0);
	assert_null(l.items[2].path);
	assert_int_equal(l.items[2].line, 0);
	assert_int_equal(pr_forge_rest_comment_from_json(&l, &pr_gitlab_rest,
							 bad),
			 PR_EPARSE);
	pr_forge_comment_list_release(&l);
	json_decref(n);
	json_decref(removed);
	json_decref(plain);
	json_decref(bad);
}

static void test_cursor_marks(void **state)
{
	struct pr_forge_cursor c = { 0 };
	struct pr_forge_pr_state *p;
	struct pr_buf t = PR_BUF_INIT;

	PR_UNUSED(state);
	assert_int_equal(
		pr_forge_cursor_parse(&c, "{\"v\":1,\"prs\":{\"o/r#1\":{\"c\":"
					  "3,\"m\":4,\"r\":5,\"re\":\"E\","
					  "\"v\":6,\"ve\":\"F\"}}}"),
		0);
	p = pr_forge_cursor_pr(&c, "o/r#1", false);
	assert_non_null(p);
	assert_int_equal(p->last_mirror, 4);
	assert_int_equal(p->last_line, 5);
	assert_int_equal(p->last_review, 6);
	assert_string_equal(p->line_etag, "E");
	assert_string_equal(p->review_etag, "F");
	assert_int_equal(pr_forge_cursor_format(&t, &c), 0);
	assert_non_null(strstr(t.ptr, "\"m\":4,\"r\":5,\"v\":6,\"re\":\"E\","
				      "\"ve\":\"F\""));
	pr_forge_cursor_release(&c);
	pr_buf_release(&t);
	/* a mark that is not a number is no cursor */
	assert_int_equal(
		pr_forge_cursor_parse(&c, "{\"v\":1,\"prs\":{\"o/r#1\":{\"r\":"
					  "\"x\"}}}"),
		PR_EPARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_branch),
		cmocka_unit_test(test_bodies),
		cmocka_unit_test(test_github_lines),
		cmocka_unit_test(test_gitlab_lines),
		cmocka_unit_test(test_cursor_marks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
