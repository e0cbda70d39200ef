#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "forge.h"
#include "github.h"

/*
 * The GitHub REST mapping: connectors/github.c's table as
 * connectors/forge_rest.c reads it.  Repository URLs, the JSON of pull
 * requests, issue comments and users onto forge.h's model (in the shapes
 * GitHub documents, tests/data/github/), request bodies, and what open
 * refuses.  The requests themselves are tested by
 * tests/integration/forge_github.sh against tests/emulators/github.py.
 */

static void test_repo_url(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_github_rest.repo_url(&b, "https://api.github.com/",
						 "netdev/linux",
						 "/issues/5/comments"),
			 0);
	assert_string_equal(
		b.ptr,
		"https://api.github.com/repos/netdev/linux/issues/5/comments");
	pr_buf_reset(&b);
	/* each part is one path segment: a space or '?' cannot escape it */
	assert_int_equal(pr_github_rest.repo_url(&b, "http://h:8/api/v3",
						 "a b/c?d", NULL),
			 0);
	assert_string_equal(b.ptr, "http://h:8/api/v3/repos/a%20b/c%3Fd");
	pr_buf_reset(&b);
	assert_int_equal(pr_github_rest.repo_url(&b, "http://h", "a/b/c", NULL),
			 PR_EINVAL);
	assert_int_equal(pr_github_rest.repo_url(&b, "http://h", "ab", NULL),
			 PR_EINVAL);
	assert_int_equal(pr_github_rest.repo_url(&b, "http://h", "/b", NULL),
			 PR_EINVAL);
	assert_non_null(strstr(pr_error_message(), "'/b'"));
	pr_buf_release(&b);
}

static json_t *load(const char *text)
{
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);

	assert_non_null(j);
	return j;
}

static void test_pulls(void **state)
{
	struct pr_forge_pr_list l = { 0 };
	json_error_t jerr;
	json_t *j = json_load_file(PR_TEST_DATA "/github/pulls.json", 0, &jerr);
	json_t *v;
	size_t i;

	assert_non_null(j);
	json_array_foreach(j, i, v)
	{
		assert_int_equal(
			pr_forge_rest_pr_from_json(pr_forge_pr_list_add(&l),
						   &pr_github_rest, v),
			0);
	}
	json_decref(j);
	assert_int_equal(l.nr, 2);
	/* the number, never the global id */
	assert_int_equal(l.items[0].number, 7);
	assert_string_equal(l.items[0].title, "net: fix caf\xc3\xa9 leak");
	assert_string_equal(l.items[0].body,
			    "Fixes the leak.\r\n\r\nCc: x@example.org");
	assert_string_equal(l.items[0].author, "alice");
	assert_string_equal(l.items[0].head_sha,
			    "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(l.items[0].base_ref, "main");
	assert_string_equal(l.items[0].web_url,
			    "https://github.com/netdev/linux/pull/7");
	/* refs/pull/N/head is in the base repository, also for a fork */
	assert_string_equal(l.items[0].fetch_url,
			    "https://github.com/netdev/linux.git");
	assert_string_equal(l.items[0].fetch_ref, "refs/pull/7/head");
	assert_string_equal(l.items[0].base_url,
			    "https://github.com/netdev/linux.git");
	assert_string_equal(l.items[0].updated_at, "2026-12-03T10:00:00Z");
	assert_false(l.items[0].draft);
	assert_int_equal(l.items[0].labels.nr, 2);
	assert_string_equal(l.items[0].labels.items[0], "bug");
	assert_string_equal(l.items[0].labels.items[1], "netdev");

	/* null body, a deleted fork (head.repo null), a draft */
	assert_int_equal(l.items[1].number, 8);
	assert_string_equal(l.items[1].body, "");
	assert_string_equal(l.items[1].author, "ghost");
	assert_string_equal(l.items[1].base_ref, "net-next");
	assert_string_equal(l.items[1].fetch_url,
			    "https://github.com/netdev/linux.git");
	assert_string_equal(l.items[1].fetch_ref, "refs/pull/8/head");
	assert_true(l.items[1].draft);
	assert_int_equal(l.items[1].labels.nr, 0);
	pr_forge_pr_list_release(&l);
}

/* A minimal pull with `extra` fields spliced in before the end. */
#define PULL(extra)                                                \
	"{\"number\":4,\"title\":\"t\",\"head\":{\"sha\":\"abc\"," \
	"\"repo\":null},\"base\":{\"ref\":\"main\",\"repo\":{"     \
	"\"clone_url\":\"http://h/o/r.git\"}}" extra "}"

static void expect_pr_error(const char *json, const char *words)
{
	struct pr_forge_pr_list l = { 0 };
	json_t *j = load(json);

	assert_int_equal(pr_forge_rest_pr_from_json(pr_forge_pr_list_add(&l),
						    &pr_github_rest, j),
			 PR_EPARSE);
	if (!strstr(pr_error_message(), words))
		fail_msg("'%s' does not say '%s'", pr_error_message(), words);
	json_decref(j);
	/* the half-filled item is freed with its list */
	pr_forge_pr_list_release(&l);
}

static void test_pull_errors(void **state)
{
	struct pr_forge_pr pr = { 0 };
	json_t *j = load(PULL(""));

	/* the minimal one is fine */
	assert_int_equal(pr_forge_rest_pr_from_json(&pr, &pr_github_rest, j),
			 0);
	assert_null(pr.author);
	assert_string_equal(pr.fetch_url, "http://h/o/r.git");
	pr_forge_pr_release(&pr);
	json_decref(j);

	expect_pr_error("{\"title\":\"t\"}", "'number'");
	expect_pr_error("{\"number\":0,\"title\":\"t\"}", "'number'");
	expect_pr_error("{\"number\":\"4\",\"title\":\"t\"}", "'number'");
	expect_pr_error("{\"number\":4}", "no 'title'");
	expect_pr_error(PULL(",\"title\":7"), "'title' is not a string");
	expect_pr_error(PULL(",\"body\":[]"), "'body' is not a string");
	expect_pr_error(PULL(",\"user\":\"eve\""), "'user' is not an object");
	expect_pr_error(PULL(",\"user\":{\"id\":1}"), "no 'login'");
	expect_pr_error(PULL(",\"user\":{\"login\":5}"),
			"'login' is not a string");
	expect_pr_error(PULL(",\"labels\":[\"bug\"]"), "label 1");
	expect_pr_error(PULL(",\"labels\":[{\"name\":\"a\"},{\"id\":2}]"),
			"label 2");
	expect_pr_error(PULL(",\"labels\":\"a,b\""), "'labels' is not a list");
	expect_pr_error(PULL(",\"draft\":\"yes\""), "'draft'");
	expect_pr_error(PULL(",\"html_url\":1"), "'html_url'");
	/* the error names the PR once its number is known */
	expect_pr_error(PULL(",\"updated_at\":1"), "#4");
	expect_pr_error("{\"number\":4,\"title\":\"t\",\"base\":{}}",
			"no 'head'");
	expect_pr_error("{\"number\":4,\"title\":\"t\",\"head\":\"x\"}",
			"'head' is not an object");
	expect_pr_error("{\"number\":4,\"title\":\"t\",\"head\":{},"
			"\"base\":{}}",
			"head: no 'sha'");
	expect_pr_error("{\"number\":4,\"title\":\"t\",\"head\":{\"sha\":"
			"\"a\",\"repo\":7},\"base\":{\"ref\":\"m\"}}",
			"'repo' is not an object");
	expect_pr_error("{\"number\":4,\"title\":\"t\",\"head\":{\"sha\":"
			"\"a\"},\"base\":{\"ref\":\"m\",\"repo\":null}}",
			"base: no 'repo'");
	expect_pr_error("{\"number\":4,\"title\":\"t\",\"head\":{\"sha\":"
			"\"a\"},\"base\":{\"ref\":\"m\",\"repo\":{}}}",
			"base repo: no 'clone_url'");
	expect_pr_error("[]", "not an object");
}

static const char comments_json[] =
	"[{\"id\":1001,\"node_id\":\"IC_1\",\"html_url\":\"https://github."
	"com/netdev/linux/pull/7#issuecomment-1001\",\"body\":\"/submit\","
	"\"user\":{\"login\":\"alice\",\"id\":101},\"created_at\":"
	"\"2026-12-03T10:00:00Z\",\"author_association\":\"CONTRIBUTOR\"},"
	"{\"id\":1002,\"body\":\"orphan\",\"user\":null},"
	"{\"id\":3000000000,\"body\":null,\"user\":{\"login\":\"bob\"}},"
	"{\"id\":1004,\"body\":\"LGTM\\r\\nCc: x@y\",\"user\":{\"login\":"
	"\"bob\"}}]";

static int comment_error(const char *json)
{
	struct pr_forge_comment_list l = { 0 };
	json_t *j = load(json);
	int err = pr_forge_rest_comment_from_json(&l, &pr_github_rest, j);

	json_decref(j);
	pr_forge_comment_list_release(&l);
	return err;
}

static void test_comments(void **state)
{
	struct pr_forge_comment_list l = { 0 };
	json_t *j = load(comments_json), *v;
	size_t i;

	json_array_foreach(j, i, v)
	{
		assert_int_equal(
			pr_forge_rest_comment_from_json(&l, &pr_github_rest, v),
			0);
	}
	json_decref(j);
	assert_int_equal(l.nr, 3); /* the one without a user is dropped */
	assert_int_equal(l.items[0].id, 1001);
	assert_string_equal(l.items[0].author, "alice");
	assert_string_equal(l.items[0].body, "/submit");
	/* ids beyond 32 bits */
	assert_int_equal(l.items[1].id, 3000000000LL);
	assert_string_equal(l.items[1].body, "");
	assert_string_equal(l.items[2].body, "LGTM\r\nCc: x@y");
	pr_forge_comment_list_release(&l);

	assert_int_equal(comment_error("{\"body\":\"x\",\"user\":{\"login\":"
				       "\"a\"}}"),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "'id'"));
	assert_int_equal(comment_error("{\"id\":1,\"user\":{}}"), PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "no 'login'"));
	assert_int_equal(comment_error("{\"id\":1,\"user\":[]}"), PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "'user' is not an object"));
	assert_int_equal(comment_error("{\"id\":9,\"user\":{\"login\":\"a\"},"
				       "\"body\":2}"),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "comment 9"));
	assert_non_null(strstr(pr_error_message(), "'body'"));
	assert_int_equal(comment_error("\"x\""), PR_EPARSE);
}

static void test_user(void **state)
{
	json_t *u = load("{\"login\":\"relay-bot\",\"id\":1,\"type\":\"Bot\","
			 "\"name\":null}");
	json_t *bad = load("{\"id\":1}");
	char *s = NULL;

	assert_int_equal(pr_forge_rest_user_from_json(&s, &pr_github_rest, u),
			 0);
	assert_string_equal(s, "relay-bot");
	free(s);
	assert_int_equal(pr_forge_rest_user_from_json(&s, &pr_github_rest, bad),
			 PR_EPARSE);
	assert_null(s);
	assert_non_null(strstr(pr_error_message(), "'login'"));
	json_decref(u);
	json_decref(bad);
}

static void test_bodies(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_forge_rest_comment_json(&b, &pr_github_rest,
						    "say \"hi\"\n\\ \x01"),
			 0);
	assert_string_equal(b.ptr,
			    "{\"body\":\"say \\\"hi\\\"\\n\\\\ \\u0001\"}");
	pr_buf_reset(&b);
	assert_int_equal(pr_forge_rest_comment_json(&b, &pr_github_rest,
						    "bad \xff utf-8"),
			 PR_EINVAL);
	assert_int_equal(b.len, 0);
	assert_int_equal(pr_forge_rest_close_json(&b, &pr_github_rest), 0);
	assert_string_equal(b.ptr, "{\"state\":\"closed\"}");
	pr_buf_reset(&b);
	/* GitHub labels may hold a comma: it is one array element */
	assert_int_equal(
		pr_forge_rest_label_json(&b, &pr_github_rest, "sent, v1"), 0);
	assert_string_equal(b.ptr, "{\"labels\":[\"sent, v1\"]}");
	pr_buf_reset(&b);
	assert_int_equal(pr_forge_rest_label_json(&b, &pr_github_rest, "\xc3"),
			 PR_EINVAL);
	assert_int_equal(b.len, 0);
	pr_buf_release(&b);
}

/* What the table cannot serve is refused at open; its headers are set. */
static void test_open(void **state)
{
	struct pr_forge_opts o = { 0 };
	struct pr_instance inst = { 0 };
	struct pr_forge *f = NULL;

	inst.name = "gh";
	inst.ctx = &o;
	/* GitHub has no groups */
	pr_strlist_add(&o.repo, "grp/sub/repo");
	assert_int_equal(pr_forge_open(&f, &inst, &pr_github_rest.ops),
			 PR_ECONFIG);
	assert_non_null(strstr(pr_error_message(), "'grp/sub/repo'"));
	assert_null(f);
	pr_strlist_release(&o.repo);
	/* a label may hold a comma: it is one element of a list */
	pr_strlist_add(&o.repo, "netdev/linux");
	o.label_sent = pr_strdup("sent, v1");
	assert_int_equal(pr_forge_open(&f, &inst, &pr_github_rest.ops), 0);
	assert_string_equal(f->http.auth_header, "Authorization: Bearer %s");
	assert_non_null(strstr(f->http.user_agent, "patchrelay/"));
	assert_string_equal(f->http.headers[0],
			    "Accept: application/vnd.github+json");
	pr_forge_close(f);
	pr_strlist_release(&o.repo);
	free(o.label_sent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repo_url),
		cmocka_unit_test(test_pulls),
		cmocka_unit_test(test_pull_errors),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_bodies),
		cmocka_unit_test(test_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
