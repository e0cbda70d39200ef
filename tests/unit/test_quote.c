#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "mail/quote.h"

/* Two files, one of them with two hunks; a deleted file last. */
static const char diff[] = "diff --git a/a.txt b/a.txt\n"
			   "index 5626abf..814f4a4 100644\n"
			   "--- a/a.txt\n"
			   "+++ b/a.txt\n"
			   "@@ -1,3 +1,4 @@\n"
			   " one\n"
			   "-two\n"
			   "+2\n"
			   "+two and a half\n"
			   " three\n"
			   "@@ -10,2 +11,3 @@ int main(void)\n"
			   " ten\n"
			   "+--- not a header\n"
			   " eleven\n"
			   "diff --git a/b b/b\n"
			   "--- a/b\n"
			   "+++ b/b\n"
			   "@@ -1,2 +1,3 @@\n"
			   " x\n"
			   "\n"
			   "+y\n"
			   "diff --git a/gone.c b/gone.c\n"
			   "deleted file mode 100644\n"
			   "--- a/gone.c\n"
			   "+++ /dev/null\n"
			   "@@ -1 +0,0 @@\n"
			   "-int gone;\n";

static void test_text(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	PR_UNUSED(state);
	assert_int_equal(pr_quote_text(&b, "a\n\nb\r\nc"), 0);
	assert_string_equal(b.ptr, "> a\n>\n> b\n> c\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_quote_text(&b, ""), 0);
	assert_string_equal(b.ptr, "");
	pr_buf_release(&b);
}

static void test_line(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	PR_UNUSED(state);
	/* an added line with the context before it, the removed one too */
	assert_int_equal(pr_quote_diff_line(&b, diff, "a.txt", 3, 2), 0);
	assert_string_equal(b.ptr, "> diff --git a/a.txt b/a.txt\n"
				   "> @@ -1,3 +1,4 @@\n"
				   "> -two\n"
				   "> +2\n"
				   "> +two and a half\n");
	/* the second hunk counts from its own start; "+---" is a line */
	pr_buf_reset(&b);
	assert_int_equal(pr_quote_diff_line(&b, diff, "a.txt", 12, 0), 0);
	assert_string_equal(b.ptr, "> diff --git a/a.txt b/a.txt\n"
				   "> @@ -10,2 +11,3 @@ int main(void)\n"
				   "> +--- not a header\n");
	/* an empty line (a stripped context line) counts */
	pr_buf_reset(&b);
	assert_int_equal(pr_quote_diff_line(&b, diff, "b", 3, 1), 0);
	assert_string_equal(b.ptr, "> diff --git a/b b/b\n"
				   "> @@ -1,2 +1,3 @@\n"
				   ">\n"
				   "> +y\n");
	/* a line the diff does not show, a file it does not touch */
	pr_buf_reset(&b);
	assert_int_equal(pr_quote_diff_line(&b, diff, "a.txt", 9, 2),
			 PR_ENOENT);
	assert_int_equal(pr_quote_diff_line(&b, diff, "c.txt", 1, 2),
			 PR_ENOENT);
	/* the hunk ends with its counts: a signature after it is no line */
	assert_int_equal(pr_quote_diff_line(&b,
					    "diff --git a/s b/s\n--- a/s\n"
					    "+++ b/s\n@@ -1 +1,2 @@\n one\n"
					    "+two\n-- \n2.39.5\n\n",
					    "s", 3, 2),
			 PR_ENOENT);
	assert_int_equal(b.len, 0);
	pr_buf_release(&b);
}

static void test_touches(void **state)
{
	PR_UNUSED(state);
	assert_true(pr_quote_touches(diff, "a.txt"));
	assert_true(pr_quote_touches(diff, "b"));
	/* a deleted file by its old name */
	assert_true(pr_quote_touches(diff, "gone.c"));
	assert_false(pr_quote_touches(diff, "a"));
	assert_false(pr_quote_touches(diff, "/dev/null"));
	assert_false(pr_quote_touches(NULL, "a.txt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_touches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
