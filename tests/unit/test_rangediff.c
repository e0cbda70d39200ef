#include "base/pr.h"
#include "git/rangediff.h"

#include <setjmp.h>
#include <cmocka.h>

/*
 * The byte-for-byte comparison with git range-diff is
 * tests/integration/rangediff_vs_git.sh; these tests pin the parts that
 * need no repository: the patch text, the assignment, the id column.
 */

static const char diff_b_to_c[] = "diff --git a/f.c b/f.c\n"
				  "index 1111111..2222222 100644\n"
				  "--- a/f.c\n"
				  "+++ b/f.c\n"
				  "@@ -1,3 +1,3 @@ int main(void)\n"
				  " a\n"
				  "-b\n"
				  "+c\n"
				  " d\n";

static const char diff_new_file[] = "diff --git a/g.txt b/g.txt\n"
				    "new file mode 100644\n"
				    "index 0000000..3333333\n"
				    "--- /dev/null\n"
				    "+++ b/g.txt\n"
				    "@@ -0,0 +1 @@\n"
				    "+g\n";

static struct pr_patch *patch(const char *id, const char *subject,
			      const char *subject_raw, const char *diff)
{
	struct pr_patch *p = pr_patch_new();

	pr_ident_set(&p->author, "A U Thor", "a@x.org");
	p->subject = pr_strdup(subject);
	p->subject_raw = subject_raw ? pr_strdup(subject_raw) : NULL;
	p->body = pr_strdup("\nBody.\n");
	p->diff = pr_strdup(diff);
	if (id)
		memcpy(p->commit_id, id, 41);
	return p;
}

static struct pr_version *version(struct pr_patch *p)
{
	struct pr_version *v = pr_version_new(1);

	pr_version_add_patch(v, p);
	return v;
}

static const char id_a[] = "0123456789abcdef0123456789abcdef01234567";
static const char id_b[] = "fedcba9876543210fedcba9876543210fedcba98";

static void test_patch_text(void **state)
{
	struct pr_patch *p = patch(id_a, "x: change", NULL, diff_b_to_c);
	struct pr_buf b = PR_BUF_INIT;
	size_t off = 0, lines = 0;

	assert_int_equal(pr_rangediff_patch_text(&b, &off, &lines, p), 0);
	assert_string_equal(b.ptr, " ## Metadata ##\n"
				   "Author: A U Thor <a@x.org>\n"
				   "\n"
				   " ## Commit message ##\n"
				   "    x: change\n"
				   "\n"
				   "    Body.\n"
				   "\n"
				   " ## f.c ##\n"
				   "@@ f.c: int main(void)\n"
				   " a\n"
				   "-b\n"
				   "+c\n"
				   " d\n");
	assert_string_equal(b.ptr + off, " ## f.c ##\n"
					 "@@ f.c: int main(void)\n"
					 " a\n"
					 "-b\n"
					 "+c\n"
					 " d\n");
	assert_int_equal(lines, 6);
	pr_buf_release(&b);
	pr_patch_free(p);
}

/* A commit's first paragraph keeps its lines; the header joins them. */
static void test_paragraph(void **state)
{
	struct pr_patch *p = patch(id_a, "x: one two three",
				   "x: one\ntwo three", diff_b_to_c);
	struct pr_version *a = version(p);
	struct pr_buf b = PR_BUF_INIT;
	size_t off, lines;

	assert_int_equal(pr_rangediff_patch_text(&b, &off, &lines, p), 0);
	assert_non_null(strstr(b.ptr, " ## Commit message ##\n"
				      "    x: one\n"
				      "    two three\n"
				      "\n"
				      "    Body.\n"));
	pr_buf_reset(&b);
	assert_int_equal(pr_range_diff(&b, a, a), 0);
	assert_string_equal(b.ptr, "1:  0123456 = 1:  0123456 x: one two "
				   "three\n");
	pr_buf_release(&b);
	pr_version_free(a);
}

static void test_assign(void **state)
{
	/* cost[col + n * row]: the optimum is 0->1, 1->0, 2->2 (cost 5) */
	static const int cost[9] = { 4, 1, 3, 2, 0, 5, 3, 2, 2 };
	int col2row[3], row2col[3];

	pr_rangediff_assign(col2row, row2col, cost, 3);
	assert_int_equal(row2col[0], 1);
	assert_int_equal(row2col[1], 0);
	assert_int_equal(row2col[2], 2);
	assert_int_equal(col2row[0], 1);
	assert_int_equal(col2row[1], 0);
	assert_int_equal(col2row[2], 2);
}

static int abbrev9(struct pr_buf *out, const char *hex, void *payload)
{
	int *calls = payload;

	(*calls)++;
	return pr_buf_add(out, hex, 9);
}

static int abbrev_fails(struct pr_buf *out, const char *hex, void *payload)
{
	PR_UNUSED(out);
	PR_UNUSED(payload);
	return pr_error(PR_EINVAL, "object '%s': not found", hex);
}

static void test_ids(void **state)
{
	struct pr_version *a =
		version(patch(id_a, "x: change", NULL, diff_b_to_c));
	struct pr_version *b =
		version(patch(id_b, "y: other", NULL, diff_new_file));
	struct pr_buf out = PR_BUF_INIT;
	int calls = 0;

	/* unpaired (creation factor 0): dashes as long as the first id */
	assert_int_equal(
		pr_rangediff_format_ids(&out, a, b, 0, abbrev9, &calls), 0);
	assert_string_equal(out.ptr,
			    "1:  012345678 < -:  --------- x: change\n"
			    "-:  --------- > 1:  fedcba987 y: other\n");
	assert_int_equal(calls, 2);
	/* without a callback: 7 digits */
	pr_buf_reset(&out);
	assert_int_equal(pr_rangediff_format(&out, a, b, 0), 0);
	assert_string_equal(out.ptr, "1:  0123456 < -:  ------- x: change\n"
				     "-:  ------- > 1:  fedcba9 y: other\n");
	/* a failing callback fails the call and leaves out as it was */
	pr_buf_reset(&out);
	pr_buf_adds(&out, "kept");
	assert_int_equal(pr_rangediff_format_ids(&out, a, b, 60, abbrev_fails,
						 NULL),
			 PR_EINVAL);
	assert_string_equal(out.ptr, "kept");
	pr_buf_release(&out);
	pr_version_free(a);
	pr_version_free(b);
}

/* A patch from mail has no commit id: its patch id, else dashes. */
static void test_mail_ids(void **state)
{
	struct pr_patch *p =
		patch(NULL, "x: change", "[PATCH] x: change", diff_b_to_c);
	struct pr_version *a, *b;
	struct pr_buf out = PR_BUF_INIT;
	int calls = 0;

	a = version(p);
	b = version(patch(NULL, "x: change", NULL, diff_b_to_c));
	memcpy(p->patch_id, id_b, 41);
	assert_int_equal(
		pr_rangediff_format_ids(&out, a, b, 60, abbrev9, &calls), 0);
	assert_string_equal(out.ptr, "1:  fedcba9 = 1:  ------- x: change\n");
	assert_int_equal(calls, 0);
	pr_buf_release(&out);
	pr_version_free(a);
	pr_version_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patch_text),
		cmocka_unit_test(test_paragraph),
		cmocka_unit_test(test_assign),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_mail_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
