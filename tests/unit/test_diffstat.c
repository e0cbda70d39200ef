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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diffstat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
