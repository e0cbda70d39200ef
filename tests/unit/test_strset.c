/* The string set, base/strset.h. */
#include "base/pr.h"
#include "base/strset.h"

#include <setjmp.h>
#include <cmocka.h>

static void test_add_and_has(void **state)
{
	struct pr_strset set = { NULL, 0, 0 };

	(void)state;
	assert_false(pr_strset_has(&set, "a"));
	assert_true(pr_strset_add(&set, "a"));
	assert_false(pr_strset_add(&set, "a"));
	assert_true(pr_strset_add(&set, ""));
	assert_true(pr_strset_has(&set, "a"));
	assert_true(pr_strset_has(&set, ""));
	assert_false(pr_strset_has(&set, "b"));
	assert_int_equal(set.nr, 2);
	pr_strset_release(&set);
	assert_int_equal(set.nr, 0);
	assert_false(pr_strset_has(&set, "a"));
}

/* Many strings: every one found after the set grew, no other one. */
static void test_grows(void **state)
{
	struct pr_strset set = { NULL, 0, 0 };
	char s[32];
	int i;

	(void)state;
	for (i = 0; i < 20000; i++) {
		snprintf(s, sizeof(s), "<%d@example.org>", i);
		assert_true(pr_strset_add(&set, s));
	}
	assert_int_equal(set.nr, 20000);
	assert_true(set.size >= 2 * set.nr);
	for (i = 0; i < 20000; i++) {
		snprintf(s, sizeof(s), "<%d@example.org>", i);
		assert_true(pr_strset_has(&set, s));
		assert_false(pr_strset_add(&set, s));
	}
	assert_false(pr_strset_has(&set, "<20000@example.org>"));
	pr_strset_release(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_has),
		cmocka_unit_test(test_grows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
