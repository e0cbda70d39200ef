#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "maintainers.h"

/*
 * The golden files were written by scripts/get_maintainer.pl (6.1)
 * --no-tree --no-git --no-git-fallback, run in tests/data/maintainers/tree.
 */

#define DIR PR_TEST_DATA "/maintainers"

static void check(const struct pr_maint_opts *o, const char *golden)
{
	struct pr_maint *m = NULL;
	struct pr_buf patch = PR_BUF_INIT, want = PR_BUF_INIT,
		      got = PR_BUF_INIT;

	assert_int_equal(
		pr_maint_load(&m, DIR "/tree/MAINTAINERS", DIR "/tree"), 0);
	assert_int_equal(pr_maint_nsections(m), 4);
	assert_int_equal(pr_buf_read_file(&patch, DIR "/p1.patch"), 0);
	assert_int_equal(pr_buf_read_file(&want, golden), 0);
	assert_int_equal(pr_maint_route(&got, m, o, &patch, 1), 0);
	assert_string_equal(got.ptr, want.ptr);
	pr_buf_release(&patch);
	pr_buf_release(&want);
	pr_buf_release(&got);
	pr_maint_free(m);
}

static void test_default(void **state)
{
	struct pr_maint_opts o;

	(void)state;
	pr_maint_opts_init(&o);
	check(&o, DIR "/p1.default.out");
}

static void test_no_rolestats_no_lists(void **state)
{
	struct pr_maint_opts o;

	(void)state;
	pr_maint_opts_init(&o);
	o.rolestats = false;
	o.lists = false;
	check(&o, DIR "/p1.no-rolestats-no-l.out");
}

static void test_subsystem_status_separator(void **state)
{
	struct pr_maint_opts o;

	(void)state;
	pr_maint_opts_init(&o);
	o.subsystem = true;
	o.status = true;
	o.reviewers = false;
	o.separator = ";";
	check(&o, DIR "/p1.subsystem-status.out");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_no_rolestats_no_lists),
		cmocka_unit_test(test_subsystem_status_separator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
