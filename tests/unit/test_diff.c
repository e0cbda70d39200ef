#include "base/pr.h"
#include "git/diff.h"
#include "git/diffstat.h"

#include <setjmp.h>
#include <cmocka.h>

#define S(x) x, strlen(x)

static const char git_diff[] = "Some commit message text\n"
			       "---\n"
			       " x | 2 +-\n"
			       "\n"
			       "diff --git a/x b/x\n"
			       "index 1..2 100644\n"
			       "--- a/x\n"
			       "+++ b/x\n"
			       "@@ -1,2 +1,2 @@\n"
			       " a\n"
			       "-b\n"
			       "+c\n"
			       "diff --git a/y b/y\n"
			       "new file mode 100644\n"
			       "index 0000000..2\n"
			       "--- /dev/null\n"
			       "+++ b/y\n"
			       "@@ -0,0 +1 @@\n"
			       "+y\n"
			       "-- \n"
			       "2.39.5\n";

static void test_parse_git(void **state)
{
	struct pr_diff d = PR_DIFF_INIT;
	const struct pr_diff_file *f;

	assert_int_equal(pr_diff_parse(&d, S(git_diff)), 0);
	assert_int_equal(d.nr, 2);
	f = &d.files[0];
	assert_string_equal(f->old_path, "x");
	assert_string_equal(f->new_path, "x");
	assert_int_equal(f->status, PR_DIFF_MODIFIED);
	assert_int_equal(f->old_mode, 0100644);
	assert_int_equal(f->added, 1);
	assert_int_equal(f->deleted, 1);
	assert_int_equal(f->nr_hunks, 1);
	assert_int_equal(f->hunks[0].old_start, 1);
	assert_int_equal(f->hunks[0].old_lines, 2);
	assert_int_equal(f->hunks[0].new_lines, 2);
	assert_memory_equal(git_diff + f->offset, "diff --git a/x b/x\n", 19);
	assert_memory_equal(git_diff + f->hunks[0].offset, "@@ -1,2", 7);
	assert_int_equal(f->hunks[0].len,
			 strlen("@@ -1,2 +1,2 @@\n a\n-b\n+c\n"));
	assert_memory_equal(git_diff + f->offset + f->len, "diff --git a/y",
			    14);
	f = &d.files[1];
	assert_string_equal(f->new_path, "y");
	assert_int_equal(f->status, PR_DIFF_ADDED);
	assert_int_equal(f->new_mode, 0100644);
	assert_int_equal(f->hunks[0].old_lines, 0);
	assert_int_equal(f->hunks[0].new_lines, 1);
	/* the signature is not part of the file */
	assert_memory_equal(git_diff + f->offset + f->len, "-- \n", 4);
	pr_diff_release(&d);
	assert_int_equal(d.nr, 0);
}

static void test_parse_headers(void **state)
{
	static const char text[] =
		"diff --git a/old name.c b/new name.c\n"
		"old mode 100644\n"
		"new mode 100755\n"
		"similarity index 90%\n"
		"rename from old name.c\n"
		"rename to new name.c\n"
		"index 1..2\n"
		"--- a/old name.c\n"
		"+++ b/new name.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"\\ No newline at end of file\n"
		"+b\n"
		"diff --git \"a/\\303\\244.txt\" \"b/\\303\\244.txt\"\n"
		"deleted file mode 100644\n"
		"index 1..0\n"
		"Binary files \"a/\\303\\244.txt\" and /dev/null differ\n"
		"diff --git a/l b/l\n"
		"new file mode 120000\n"
		"index 0..1\n"
		"GIT binary patch\n"
		"literal 5\n"
		"McmZQzWMXCj00\n"
		"\n"
		"literal 0\n"
		"HcmV?d00001\n"
		"\n"
		"diff --git a/c b/d\n"
		"similarity index 100%\n"
		"copy from c\n"
		"copy to d\n";
	struct pr_diff d = PR_DIFF_INIT;
	const struct pr_diff_file *f;

	assert_int_equal(pr_diff_parse(&d, S(text)), 0);
	assert_int_equal(d.nr, 4);
	f = &d.files[0];
	assert_string_equal(f->old_path, "old name.c");
	assert_string_equal(f->new_path, "new name.c");
	assert_int_equal(f->status, PR_DIFF_RENAMED);
	assert_int_equal(f->similarity, 90);
	assert_int_equal(f->old_mode, 0100644);
	assert_int_equal(f->new_mode, 0100755);
	assert_true(f->no_newline_old);
	assert_false(f->no_newline_new);
	f = &d.files[1];
	assert_string_equal(f->old_path, "\303\244.txt");
	assert_int_equal(f->status, PR_DIFF_DELETED);
	assert_true(f->binary);
	assert_false(f->binary_sizes);
	f = &d.files[2];
	assert_int_equal(f->status, PR_DIFF_ADDED);
	assert_true(f->binary);
	assert_true(f->binary_sizes);
	assert_int_equal(f->new_size, 5);
	assert_int_equal(f->old_size, 0);
	f = &d.files[3];
	assert_int_equal(f->status, PR_DIFF_COPIED);
	assert_string_equal(f->old_path, "c");
	assert_string_equal(f->new_path, "d");
	pr_diff_release(&d);
}

static void test_parse_plain(void **state)
{
	static const char text[] = "Index: foo\n"
				   "--- foo.orig\t2020-01-01 00:00:00\n"
				   "+++ dir/foo\t2020-01-01 00:00:00\n"
				   "@@ -1,3 +1,2 @@\n"
				   " a\n"
				   "\n"
				   "-c\n"
				   "--- /dev/null\n"
				   "+++ b/new\n"
				   "@@ -0,0 +1 @@\n"
				   "+n\n";
	struct pr_diff d = PR_DIFF_INIT;

	assert_int_equal(pr_diff_parse(&d, S(text)), 0);
	assert_int_equal(d.nr, 2);
	assert_string_equal(d.files[0].old_path, "foo.orig");
	assert_string_equal(d.files[0].new_path, "foo");
	assert_int_equal(d.files[0].deleted, 1);
	assert_int_equal(d.files[0].added, 0);
	assert_string_equal(d.files[1].new_path, "new");
	assert_int_equal(d.files[1].status, PR_DIFF_ADDED);
	pr_diff_release(&d);
}

static void test_parse_errors(void **state)
{
	struct pr_diff d = PR_DIFF_INIT;

	assert_int_equal(pr_diff_parse(&d, S("diff --git a/x b/x\n"
					     "--- a/x\n+++ b/x\n"
					     "@@ -1,2 +1,2 @@\n a\n")),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "line 5"));
	assert_int_equal(d.nr, 0);
	assert_int_equal(pr_diff_parse(&d,
				       S("--- a/x\n+++ b/x\n@@ -1 +x @@\n")),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "line 3: bad hunk header"));
	assert_int_equal(pr_diff_parse(&d, S("--- a/x\n+++ b/x\n@@ -1 +1 @@\n"
					     "*x\n")),
			 PR_EPARSE);
	assert_non_null(strstr(pr_error_message(), "line 4"));
	assert_int_equal(pr_diff_parse(&d, S("diff --git \"a/x b/y\n")),
			 PR_EPARSE);
	/* no diff at all is an empty diff */
	assert_int_equal(pr_diff_parse(&d, S("just text\n")), 0);
	assert_int_equal(d.nr, 0);
}

static void test_binary_delta_sizes(void **state)
{
	/* git format-patch of 13897 bytes growing to 13902 */
	static const char text[] = "diff --git a/b.bin b/b.bin\n"
				   "index eaddf39..0a5430a 100644\n"
				   "GIT binary patch\n"
				   "delta 13\n"
				   "UcmX?^b1r9trx|NWVrC8l04z@hP5=M^\n"
				   "\n"
				   "delta 7\n"
				   "OcmX??b24Xxrx^ecrURb<\n"
				   "\n";
	struct pr_diff d = PR_DIFF_INIT;
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_diff_parse(&d, S(text)), 0);
	assert_int_equal(d.nr, 1);
	assert_true(d.files[0].binary);
	assert_true(d.files[0].binary_sizes);
	assert_int_equal(d.files[0].old_size, 13897);
	assert_int_equal(d.files[0].new_size, 13902);
	assert_int_equal(pr_diffstat_format(&b, &d), 0);
	assert_string_equal(
		b.ptr, " b.bin | Bin 13897 -> 13902 bytes\n"
		       " 1 file changed, 0 insertions(+), 0 deletions(-)\n");
	pr_buf_release(&b);
	/* a damaged delta parses, without sizes */
	assert_int_equal(pr_diff_parse(&d,
				       "diff --git a/b b/b\n"
				       "GIT binary patch\ndelta 13\n"
				       "U!!!!!\n\n",
				       53),
			 0);
	assert_false(d.files[0].binary_sizes);
	pr_diff_release(&d);
}

static void test_patch_id(void **state)
{
	char id[41];
	/* values from git 2.39.5 `git patch-id` on the same text */
	assert_int_equal(pr_patch_id(id, S(git_diff), false), 0);
	assert_string_equal(id, "a7df2c4f3e575d4459d9b80258b1e850632b4743");
	assert_int_equal(pr_patch_id(id, S(git_diff), true), 0);
	assert_string_equal(id, "4da54e1e579e83f72e42865d466e3f5eef0e126b");
	assert_int_equal(pr_patch_id(id, S("no diff here\n"), false),
			 PR_ENOENT);
	/* a following mail of an mbox is not part of this patch */
	{
		struct pr_buf b = PR_BUF_INIT;

		pr_buf_adds(&b, "From 0123456789012345678901234567890123456789 "
				"Mon Sep 17 00:00:00 2001\n");
		pr_buf_adds(&b, git_diff);
		pr_buf_adds(&b, "From 0123456789012345678901234567890123456789 "
				"Mon Sep 17 00:00:00 2001\n"
				"diff --git a/z b/z\n--- a/z\n+++ b/z\n"
				"@@ -1 +1 @@\n-a\n+b\n");
		assert_int_equal(pr_patch_id(id, b.ptr, b.len, false), 0);
		assert_string_equal(id,
				    "a7df2c4f3e575d4459d9b80258b1e850632b4743");
		pr_buf_release(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_git),
		cmocka_unit_test(test_parse_headers),
		cmocka_unit_test(test_parse_plain),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_binary_delta_sizes),
		cmocka_unit_test(test_patch_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
