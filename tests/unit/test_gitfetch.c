#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "gitfetch.h"

/*
 * connectors/gitfetch.c: the cache directory name of a source, the URL as
 * messages show it (a password never), and the port the known_hosts
 * lookup takes.  The fetches themselves are tests/integration/
 * run_git_remote.sh and run_git_auth.sh, against real servers.
 */

static void check_safe(const char *url, const char *want)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_gitfetch_safe_url(&b, url), 0);
	assert_string_equal(b.ptr, want);
	pr_buf_release(&b);
}

static void test_safe_url(void **state)
{
	(void)state;
	check_safe("https://bob:s3cret@example.org/r.git",
		   "https://bob:<redacted>@example.org/r.git");
	/* an '@' in the password: the last one before the path ends it */
	check_safe("https://bob:p@ss@example.org:8443/r.git",
		   "https://bob:<redacted>@example.org:8443/r.git");
	check_safe("https://bob:@example.org/",
		   "https://bob:<redacted>@example.org/");
	/* no password: nothing to hide */
	check_safe("ssh://git@example.org:2222/r.git",
		   "ssh://git@example.org:2222/r.git");
	check_safe("https://example.org:443/a@b",
		   "https://example.org:443/a@b");
	check_safe("git@example.org:r.git", "git@example.org:r.git");
	check_safe("/srv/git/r.git", "/srv/git/r.git");
	check_safe("file:///srv/r.git", "file:///srv/r.git");
	check_safe("", "");
}

static void test_ssh_port(void **state)
{
	(void)state;
	assert_int_equal(pr_gitfetch_ssh_port("ssh://h/r.git"), 22);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://u@h:2222/r.git"), 2222);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://u:p@h:29418/r"), 29418);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://[::1]:2200/r"), 2200);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://[::1]/r"), 22);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://[::1/r:5"), 22);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://h:/r"), 22);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://h:x/r"), 22);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://h:99999999999999999999/r"),
			 22);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://h:65536"), 22);
	assert_int_equal(pr_gitfetch_ssh_port("u@h:r.git"), 22);
	assert_int_equal(pr_gitfetch_ssh_port("ssh://h"), 22);
}

static void test_escape(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	(void)state;
	assert_int_equal(pr_gitfetch_escape(&b, "net-next_1.2"), 0);
	assert_string_equal(b.ptr, "net-next_1.2");
	pr_buf_reset(&b);
	/* a name cannot climb out of the cache folder */
	assert_int_equal(pr_gitfetch_escape(&b, "../a/b c"), 0);
	assert_string_equal(b.ptr, "..%2Fa%2Fb%20c");
	pr_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_safe_url),
		cmocka_unit_test(test_ssh_port),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
