#include "base/pr.h"
#include "git/diff.h"
#include "git/diffstat.h"

#include <setjmp.h>
#include <cmocka.h>

#define S(x) x, strlen(x)

static void test_diffstat(void **state)
{
	static const char text[] =
		"diff --git a/dir/sub/a.c b/dir/other/a.c\n"
		"similarity index 100%\n"
		"rename from dir/sub/a.c\n"
		"rename to dir/other/a.c\n"
		"diff --git a/m b/m\n"
		"old mode 100644\n"
		"new mode 100755\n"
		"diff --git a/x b/x\n"
		"--- a/x\n+++ b/x\n"
		"@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n"
		"diff --git a/bin b/bin\n"
		"new file mode 100644\n"
		"GIT binary patch\nliteral 123\nxx\n\nliteral 0\nyy\n\n";
	struct pr_diff d = PR_DIFF_INIT;
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_diff_parse(&d, S(text)), 0);
	assert_int_equal(pr_diffstat_format(&b, &d), 0);
	assert_string_equal(
		b.ptr, " dir/{sub => other}/a.c |   0\n"
		       " m                      |   0\n"
		       " x                      |   3 ++-\n"
		       " bin                    | Bin 0 -> 123 bytes\n"
		       " 4 files changed, 2 insertions(+), 1 deletion(-)\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_diff_summary_format(&b, &d), 0);
	assert_string_equal(b.ptr, " rename dir/{sub => other}/a.c (100%)\n"
				   " mode change 100644 => 100755 m\n"
				   " create mode 100644 bin\n");
	pr_buf_release(&b);
	pr_diff_release(&d);
}

/*
 * A quoted name, a name shortened to "...", the graph scaled to the width
 * format-patch gives it: the stat git 2.39 format-patch printed for the
 * same commit.
 */
static void test_width_and_names(void **state)
{
	static const char dir[] =
		"drivers/net/ethernet/some_vendor/"
		"some_very_long_driver_directory_name/main_file.c";
	struct pr_diff d = PR_DIFF_INIT;
	struct pr_buf text = PR_BUF_INIT, b = PR_BUF_INIT;
	int i;

	(void)state;
	pr_buf_adds(&text, "diff --git \"a/caf\\303\\251.txt\" "
			   "\"b/caf\\303\\251.txt\"\n"
			   "new file mode 100644\nindex 0000000..1\n"
			   "--- /dev/null\n+++ \"b/caf\\303\\251.txt\"\n"
			   "@@ -0,0 +1 @@\n+caf\303\251\n");
	pr_buf_addf(&text,
		    "diff --git a/%s b/%s\nnew file mode 100644\n"
		    "index 0000000..2\n--- /dev/null\n+++ b/%s\n"
		    "@@ -0,0 +1,200 @@\n",
		    dir, dir, dir);
	for (i = 1; i <= 200; i++)
		pr_buf_addf(&text, "+%d\n", i);
	pr_buf_adds(&text, "diff --git a/short b/short\nindex 1..2 100644\n"
			   "--- a/short\n+++ b/short\n"
			   "@@ -1 +1,4 @@\n x\n+1\n+2\n+3\n");
	assert_int_equal(pr_diff_parse(&d, text.ptr, text.len), 0);
	assert_int_equal(pr_diffstat_format(&b, &d), 0);
	assert_int_equal(pr_diff_summary_format(&b, &d), 0);
	assert_string_equal(
		b.ptr,
		" \"caf\\303\\251.txt\"                             |   1 +\n"
		" .../main_file.c                               | 200 "
		"++++++++++++++++++\n"
		" short                                         |   3 +\n"
		" 3 files changed, 204 insertions(+)\n"
		" create mode 100644 \"caf\\303\\251.txt\"\n"
		" create mode 100644 drivers/net/ethernet/some_vendor/"
		"some_very_long_driver_directory_name/main_file.c\n");
	pr_buf_release(&b);
	pr_buf_release(&text);
	pr_diff_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diffstat),
		cmocka_unit_test(test_width_and_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
