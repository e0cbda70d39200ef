#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "forge.h"
#include "gitlab.h"

/*
 * The GitLab REST mapping: connectors/gitlab.c's table as
 * connectors/forge_rest.c reads it.  Project URLs, the JSON of merge
 * requests, notes and users onto forge.h's model (in the shapes GitLab
 * 16/17 and tests/emulators/gitlab.py answer), request bodies, and what
 * open refuses.  The requests themselves are tested by
 * tests/integration/forge_gitlab.sh.
 */

static void test_project_url(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_gitlab_rest.repo_url(&b,
						 "https://gitlab.com/api/v4/",
						 "group/sub/project",
						 "/merge_requests/5/notes"),
			 0);
	assert_string_equal(
		b.ptr,
		"https://gitlab.com/api/v4/projects/group%2Fsub%2Fproject"
		"/merge_requests/5/notes");
	pr_buf_reset(&b);
	/* a '+' or space in a path segment would change its meaning */
	assert_int_equal(pr_gitlab_rest.repo_url(&b, "http://h/api/v4",
						 "a b/c+d", NULL),
			 0);
	assert_string_equal(b.ptr, "http://h/api/v4/projects/a%20b%2Fc%2Bd");
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

static json_t *load(const char *text)
{
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);

	assert_non_null(j);
	return j;
}

static void test_mr(void **state)
{
	struct pr_forge_pr_list l = { 0 };
	json_t *j = load(mrs_json), *v;
	size_t i;

	json_array_foreach(j, i, v)
	{
		assert_int_equal(
			pr_forge_rest_pr_from_json(pr_forge_pr_list_add(&l),
						   &pr_gitlab_rest, v),
			0);
	}
	json_decref(j);
	assert_int_equal(l.nr, 2);
	/* the iid, never the instance-wide id */
	assert_int_equal(l.items[0].number, 7);
	assert_string_equal(l.items[0].title, "net: fix \xc3\xa9");
	assert_string_equal(l.items[0].body, "");
	assert_string_equal(l.items[0].author, "alice");
	assert_string_equal(l.items[0].base_ref, "main");
	assert_string_equal(l.items[0].head_sha,
			    "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(l.items[0].web_url,
			    "https://gl/g/p/-/merge_requests/7");
	assert_string_equal(l.items[0].updated_at, "2026-12-03T10:00:00.000Z");
	assert_string_equal(l.items[0].fetch_ref, "refs/merge-requests/7/head");
	assert_true(l.items[0].draft);
	assert_int_equal(l.items[0].labels.nr, 2);
	assert_string_equal(l.items[0].labels.items[1], "bug");
	assert_int_equal(l.items[1].number, 8);
	assert_string_equal(l.items[1].body, "Cc: x@y");
	assert_string_equal(l.items[1].fetch_ref, "refs/merge-requests/8/head");
	assert_null(l.items[1].head_sha);
	assert_null(l.items[1].web_url);
	assert_false(l.items[1].draft);
	assert_string_equal(l.items[1].labels.items[0], "detailed");
	pr_forge_pr_list_release(&l);
}

static void expect_mr_error(const char *json, const char *words)
{
	struct pr_forge_pr_list l = { 0 };
	json_t *j = load(json);

	assert_int_equal(pr_forge_rest_pr_from_json(pr_forge_pr_list_add(&l),
						    &pr_gitlab_rest, j),
			 PR_EPARSE);
	if (!strstr(pr_error_message(), words))
		fail_msg("'%s' does not say '%s'", pr_error_message(), words);
	json_decref(j);
	/* the half-filled item is freed with its list */
	pr_forge_pr_list_release(&l);
}

static void test_mr_errors(void **state)
{
	expect_mr_error("{\"title\":\"t\"}", "'iid'");
	expect_mr_error("{\"iid\":-1,\"title\":\"t\"}", "'iid'");
	expect_mr_error("{\"iid\":\"4\",\"title\":\"t\"}", "'iid'");
	expect_mr_error("{\"iid\":4,\"target_branch\":\"m\"}", "no 'title'");
	expect_mr_error("{\"iid\":4,\"title\":7,\"target_branch\":\"m\"}",
			"'title' is not a string");
	expect_mr_error("{\"iid\":4,\"title\":\"t\"}", "no 'target_branch'");
	expect_mr_error("{\"iid\":4,\"title\":\"t\",\"target_branch\":"
			"\"m\",\"author\":\"eve\"}",
			"'author' is not an object");
	expect_mr_error("{\"iid\":4,\"title\":\"t\",\"target_branch\":"
			"\"m\",\"author\":{\"id\":1}}",
			"no 'username'");
	expect_mr_error("{\"iid\":4,\"title\":\"t\",\"target_branch\":"
			"\"m\",\"labels\":[1]}",
			"label 1");
	expect_mr_error("{\"iid\":4,\"title\":\"t\",\"target_branch\":"
			"\"m\",\"labels\":\"a,b\"}",
			"not a list");
	expect_mr_error("7", "not an object");
	/* jansson refuses NUL bytes in strings, so they never get this far */
	assert_null(json_loads("{\"title\":\"a\\u0000b\"}", 0, NULL));
}

static const char notes_json[] =
	"[{\"id\":11,\"body\":\"/submit\",\"author\":{\"username\":\"alice\"},"
	"\"created_at\":\"2026-12-03T10:00:00.000Z\",\"system\":false},"
	"{\"id\":12,\"body\":\"added 3 commits\",\"author\":{\"username\":"
	"\"alice\"},\"system\":true},"
	"{\"id\":13,\"body\":\"LGTM\\r\\nCc: x@y\",\"author\":{\"username\":"
	"\"bob\"},\"system\":false,\"internal\":false}]";

static int note_error(const char *json)
{
	struct pr_forge_comment_list l = { 0 };
	json_t *j = load(json);
	int err = pr_forge_rest_comment_from_json(&l, &pr_gitlab_rest, j);

	json_decref(j);
	pr_forge_comment_list_release(&l);
	return err;
}

static void test_notes(void **state)
{
	struct pr_forge_comment_list l = { 0 };
	json_t *j = load(notes_json), *v;
	size_t i;

	json_array_foreach(j, i, v)
	{
		assert_int_equal(
			pr_forge_rest_comment_from_json(&l, &pr_gitlab_rest, v),
			0);
	}
	json_decref(j);
	assert_int_equal(l.nr, 2); /* the system note is dropped */
	assert_int_equal(l.items[0].id, 11);
	assert_string_equal(l.items[0].author, "alice");
	assert_string_equal(l.items[0].body, "/submit");
	assert_int_equal(l.items[1].id, 13);
	assert_string_equal(l.items[1].author, "bob");
	assert_string_equal(l.items[1].body, "LGTM\r\nCc: x@y");
	pr_forge_comment_list_release(&l);

	assert_int_equal(note_error("{\"id\":1,\"body\":\"x\"}"), PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "no author"));
	assert_int_equal(note_error("{\"id\":1,\"author\":{\"username\":"
				    "\"a\"}}"),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "'body'"));
	assert_int_equal(note_error("{\"body\":\"x\",\"author\":{\"username\":"
				    "\"a\"}}"),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "'id'"));
	assert_int_equal(note_error("[]"), PR_EPARSE);
	/* a system note is dropped before its fields are looked at */
	assert_int_equal(note_error("{\"system\":true}"), 0);
}

static void test_user(void **state)
{
	json_t *u = load("{\"id\":1,\"username\":\"relay-bot\",\"name\":"
			 "\"R\",\"state\":\"active\"}");
	json_t *bad = load("{\"id\":1}");
	char *s = NULL;

	assert_int_equal(pr_forge_rest_user_from_json(&s, &pr_gitlab_rest, u),
			 0);
	assert_string_equal(s, "relay-bot");
	free(s);
	assert_int_equal(pr_forge_rest_user_from_json(&s, &pr_gitlab_rest, bad),
			 PR_EPARSE);
	assert_null(s);
	json_decref(u);
	json_decref(bad);
}

static void test_bodies(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_forge_rest_comment_json(&b, &pr_gitlab_rest,
						    "say \"hi\"\n\\ \x01"),
			 0);
	assert_string_equal(b.ptr,
			    "{\"body\":\"say \\\"hi\\\"\\n\\\\ \\u0001\"}");
	pr_buf_reset(&b);
	assert_int_equal(pr_forge_rest_comment_json(&b, &pr_gitlab_rest,
						    "bad \xff utf-8"),
			 PR_EINVAL);
	assert_int_equal(b.len, 0);
	assert_int_equal(pr_forge_rest_close_json(&b, &pr_gitlab_rest), 0);
	assert_string_equal(b.ptr, "{\"state_event\":\"close\"}");
	pr_buf_reset(&b);
	assert_int_equal(pr_forge_rest_label_json(&b, &pr_gitlab_rest,
						  "sent to list"),
			 0);
	assert_string_equal(b.ptr, "{\"add_labels\":\"sent to list\"}");
	pr_buf_reset(&b);
	/* a comma would make two labels */
	assert_int_equal(pr_forge_rest_label_json(&b, &pr_gitlab_rest, "a,b"),
			 PR_EINVAL);
	assert_int_equal(b.len, 0);
	pr_buf_release(&b);
}

/* What the table cannot serve is refused at open; its header is set. */
static void test_open(void **state)
{
	struct pr_forge_opts o = { 0 };
	struct pr_instance inst = { 0 };
	struct pr_forge *f = NULL;

	inst.name = "gl";
	inst.ctx = &o;
	pr_strlist_add(&o.repo, "grp/sub/project");
	/* add_labels is a comma list: "a,b" would be two labels */
	o.label_landed = pr_strdup("merged,landed");
	assert_int_equal(pr_forge_open(&f, &inst, &pr_gitlab_rest.ops),
			 PR_ECONFIG);
	assert_non_null(strstr(pr_error_message(), "'merged,landed'"));
	assert_null(f);
	free(o.label_landed);
	o.label_landed = pr_strdup("merged");
	/* a project may sit in groups */
	assert_int_equal(pr_forge_open(&f, &inst, &pr_gitlab_rest.ops), 0);
	assert_string_equal(f->http.auth_header, "PRIVATE-TOKEN: %s");
	assert_null(f->http.headers);
	pr_forge_close(f);
	pr_strlist_release(&o.repo);
	free(o.label_landed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_project_url),
		cmocka_unit_test(test_mr),
		cmocka_unit_test(test_mr_errors),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_bodies),
		cmocka_unit_test(test_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
