#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include "model/report_render.h"

static void fill(struct pr_report *r)
{
	pr_report_add(r, "size", "files", PR_VERDICT_FAIL, -1, NULL,
		      "%d files changed", 3000);
	pr_report_add(r, "lint", "", PR_VERDICT_PASS, 1, NULL, "ok");
}

static void test_text(void **state)
{
	struct pr_report r = PR_REPORT_INIT;
	struct pr_buf b = PR_BUF_INIT;

	fill(&r);
	assert_int_equal(pr_report_render(&b, &r, PR_RENDER_TEXT), 0);
	assert_string_equal(b.ptr, "fail size/files: 3000 files changed\n"
				   "pass lint patch 2: ok\n"
				   "verdict: fail\n");
	pr_buf_release(&b);
	pr_report_release(&r);
}

static void test_markdown(void **state)
{
	struct pr_report r = PR_REPORT_INIT;
	struct pr_buf b = PR_BUF_INIT;

	fill(&r);
	assert_int_equal(pr_report_render(&b, &r, PR_RENDER_MARKDOWN), 0);
	assert_string_equal(b.ptr,
			    "### patchrelay check: fail\n\n"
			    "- **fail** `size/files`: 3000 files changed\n"
			    "- **pass** `lint` patch 2: ok\n");
	pr_buf_release(&b);
	pr_report_release(&r);
}

static void test_json(void **state)
{
	struct pr_report r = PR_REPORT_INIT;
	struct pr_buf b = PR_BUF_INIT;
	json_error_t jerr;
	json_t *root, *e;

	fill(&r);
	assert_int_equal(pr_report_render(&b, &r, PR_RENDER_JSON), 0);
	root = json_loads(b.ptr, 0, &jerr);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "verdict")),
			    "fail");
	e = json_array_get(json_object_get(root, "entries"), 1);
	assert_string_equal(json_string_value(json_object_get(e, "step")),
			    "lint");
	assert_int_equal(json_integer_value(json_object_get(e, "patch")), 1);
	json_decref(root);
	pr_buf_release(&b);
	pr_report_release(&r);
}

static void test_cut(void **state)
{
	struct pr_buf in = PR_BUF_INIT, out = PR_BUF_INIT;
	int i;

	for (i = 1; i <= 10; i++)
		pr_buf_addf(&in, "line %d\n", i);
	assert_int_equal(pr_render_cut(&out, in.ptr, 2, 3), 0);
	assert_string_equal(out.ptr, "line 1\nline 2\n"
				     "[... 5 lines left out ...]\n"
				     "line 8\nline 9\nline 10\n");
	pr_buf_reset(&out);
	/* Short text is kept whole. */
	assert_int_equal(pr_render_cut(&out, in.ptr, 5, 5), 0);
	assert_string_equal(out.ptr, in.ptr);
	pr_buf_release(&in);
	pr_buf_release(&out);
}

static void test_detail_cut_in_text(void **state)
{
	struct pr_report r = PR_REPORT_INIT;
	struct pr_buf d = PR_BUF_INIT, b = PR_BUF_INIT;
	int i;

	for (i = 0; i < 1000; i++)
		pr_buf_addf(&d, "warning %d\n", i);
	pr_report_add(&r, "exec", "", PR_VERDICT_WARN, -1, d.ptr, "tool");
	assert_int_equal(pr_report_render(&b, &r, PR_RENDER_MAIL), 0);
	assert_non_null(strstr(b.ptr, "    [... 960 lines left out ...]\n"));
	assert_non_null(strstr(b.ptr, "    warning 999\n"));
	assert_null(strstr(b.ptr, "warning 500\n"));
	assert_non_null(strstr(b.ptr, "Verdict: warn\n"));
	pr_buf_release(&b);
	pr_buf_release(&d);
	pr_report_release(&r);
}

static void test_format_parse(void **state)
{
	enum pr_render_format f;

	assert_int_equal(pr_render_format_parse(&f, "markdown"), 0);
	assert_int_equal(f, PR_RENDER_MARKDOWN);
	assert_int_equal(pr_render_format_parse(&f, "html"), PR_EINVAL);
	assert_non_null(strstr(pr_error_message(), "'html'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_detail_cut_in_text),
		cmocka_unit_test(test_format_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
