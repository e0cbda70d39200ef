#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include "mail/pull.h"

static int detect(char **url, char **ref, const char *body)
{
	return pr_pull_detect(url, ref, body, strlen(body));
}

static void check(const char *body, int want, const char *want_url,
		  const char *want_ref)
{
	char *url = (char *)"x", *ref = (char *)"x";

	assert_int_equal(detect(&url, &ref, body), want);
	if (want_url)
		assert_string_equal(url, want_url);
	else
		assert_null(url);
	if (want_ref)
		assert_string_equal(ref, want_ref);
	else
		assert_null(ref);
	free(url);
	free(ref);
}

static const char sha[] = "a5e880f3b5e5e2b305693ea19b18fdafbf1c0772";

static void test_plain(void **state)
{
	check("Hi Linus,\n\nThe following changes since commit 1234567:\n\n"
	      "  one (2026-12-03)\n\n"
	      "are available in the Git repository at:\n\n"
	      "  git://git.kernel.org/pub/scm/x/y.git tags/foo-6.1\n\n"
	      "for you to fetch changes up to "
	      "a5e880f3b5e5e2b305693ea19b18fdafbf1c0772:\n\n  two\n",
	      1, "git://git.kernel.org/pub/scm/x/y.git", "tags/foo-6.1");
}

static void test_wrapped(void **state)
{
	check("are available in the Git repository at:\r\n\r\n"
	      "  https://git.example.org/a/very/long/path/repo.git\r\n"
	      "  tags/net-next-6.2\r\n\r\n"
	      "for you to fetch changes up to "
	      "a5e880f3b5e5e2b305693ea19b18fdafbf1c0772:\r\n",
	      1, "https://git.example.org/a/very/long/path/repo.git",
	      "tags/net-next-6.2");
}

static void test_no_ref(void **state)
{
	/* No ref on the URL line: the sha fetched up to stands in. */
	check("are available in the Git repository at:\n\n"
	      "  git://x/y.git\n\n"
	      "for you to fetch changes up to "
	      "a5e880f3b5e5e2b305693ea19b18fdafbf1c0772:\n",
	      1, "git://x/y.git", sha);
	check("are available in the git repository at:\n\n  git://x/y.git\n", 1,
	      "git://x/y.git", NULL);
}

static void test_not_pull(void **state)
{
	check("", 0, NULL, NULL);
	check("just a patch\n---\n a | 1 +\n", 0, NULL, NULL);
	/* a reply quoting a pull request */
	check("> are available in the Git repository at:\n>\n>   git://x/y.git "
	      "main\n\nPulled, thanks.\n",
	      0, NULL, NULL);
	/* the marker with nothing after it */
	check("are available in the Git repository at:\n\n\n", 0, NULL, NULL);
}

static void test_not_nul_terminated(void **state)
{
	const char body[] = "are available in the Git repository at:\n"
			    "  git://x/y.git mainXXXX";
	char *url, *ref;

	/* cut inside "main": the length is honoured */
	assert_int_equal(pr_pull_detect(&url, &ref, body, sizeof(body) - 6), 1);
	assert_string_equal(url, "git://x/y.git");
	assert_string_equal(ref, "mai");
	free(url);
	free(ref);
	/* NUL bytes are blanks: the URL is the word after them */
	assert_int_equal(pr_pull_detect(&url, &ref,
					"are available in the Git repository "
					"at:\n\0\0 git://z main\n",
					56),
			 1);
	assert_string_equal(url, "git://z");
	assert_string_equal(ref, "main");
	free(url);
	free(ref);
}

/* Real `git request-pull` output from a repository made in a temp dir. */
static void test_git_request_pull(void **state)
{
	static const char script[] =
		"set -e; d=$(mktemp -d); cd \"$d\"; export HOME=\"$d\" "
		"GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x "
		"GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@x; "
		"git init -q -b main r; cd r; "
		"git commit -q --allow-empty -m one; git tag base; "
		"git commit -q --allow-empty -m two; "
		"git tag -a -m 'tag msg' foo-6.1; "
		"printf '%s\\n' \"file://$d/r\"; git rev-parse HEAD; "
		"git request-pull base \"file://$d/r\" foo-6.1 2>/dev/null; "
		"cd /; rm -rf \"$d\"";
	struct pr_buf out = PR_BUF_INIT;
	char *url = NULL, *ref = NULL, *nl1, *nl2;
	FILE *f = popen(script, "r");

	assert_non_null(f);
	assert_int_equal(pr_buf_read_fd(&out, fileno(f)), 0);
	assert_int_equal(pclose(f), 0);
	/* first line: the URL given, second: the head commit, then the mail */
	nl1 = strchr(out.ptr, '\n');
	assert_non_null(nl1);
	*nl1 = '\0';
	nl2 = strchr(nl1 + 1, '\n');
	assert_non_null(nl2);
	assert_int_equal(pr_pull_detect(&url, &ref, nl2 + 1,
					out.len - (nl2 + 1 - out.ptr)),
			 1);
	assert_string_equal(url, out.ptr);
	assert_string_equal(ref, "tags/foo-6.1");
	free(url);
	free(ref);
	pr_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_wrapped),
		cmocka_unit_test(test_no_ref),
		cmocka_unit_test(test_not_pull),
		cmocka_unit_test(test_not_nul_terminated),
		cmocka_unit_test(test_git_request_pull),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
