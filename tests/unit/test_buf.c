#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

static void test_add_and_terminate(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_string_equal(b.ptr, "");
	assert_int_equal(pr_buf_adds(&b, "abc"), 0);
	assert_int_equal(pr_buf_addch(&b, 'd'), 0);
	assert_int_equal(pr_buf_addf(&b, "-%d-", 42), 0);
	assert_string_equal(b.ptr, "abcd-42-");
	assert_int_equal(b.len, 8);
	pr_buf_setlen(&b, 2);
	assert_string_equal(b.ptr, "ab");
	pr_buf_release(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.ptr, "");
}

static void test_cap(void **state)
{
	struct pr_buf b;

	pr_buf_init(&b, 5);
	assert_int_equal(pr_buf_adds(&b, "12345"), 0);
	assert_int_equal(pr_buf_adds(&b, "6"), PR_ETOOBIG);
	assert_string_equal(b.ptr, "12345");
	assert_non_null(strstr(pr_error_message(), "5-byte limit"));
	pr_buf_release(&b);
}

static void test_grow_large(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	size_t i;

	for (i = 0; i < 100000; i++)
		assert_int_equal(pr_buf_addch(&b, 'a' + (int)(i % 26)), 0);
	assert_int_equal(b.len, 100000);
	assert_int_equal(b.ptr[100000], '\0');
	assert_int_equal(b.ptr[26], 'a');
	pr_buf_release(&b);
}

static void test_rtrim_detach(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	char *s;
	size_t len;

	pr_buf_adds(&b, "x y \t\r\n\n");
	pr_buf_rtrim(&b);
	s = pr_buf_detach(&b, &len);
	assert_string_equal(s, "x y");
	assert_int_equal(len, 3);
	assert_int_equal(b.len, 0);
	free(s);
	s = pr_buf_detach(&b, NULL);
	assert_string_equal(s, "");
	free(s);
}

static void test_utf8_cap(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	const char *s = "ab\xc3\xa9\xe2\x82\xac"; /* "abé€", 7 bytes */

	assert_int_equal(pr_utf8_fit(s, 7, 7), 7);
	assert_int_equal(pr_utf8_fit(s, 7, 6), 4); /* not inside the euro */
	assert_int_equal(pr_utf8_fit(s, 7, 5), 4);
	assert_int_equal(pr_utf8_fit(s, 7, 4), 4);
	assert_int_equal(pr_utf8_fit(s, 7, 3), 2); /* not inside the e */
	pr_buf_adds(&b, s);
	pr_buf_cap_utf8(&b, 7);
	assert_string_equal(b.ptr, s);
	pr_buf_cap_utf8(&b, 6); /* 3 bytes of text at the most: "ab" */
	assert_string_equal(b.ptr, "ab...");
	pr_buf_release(&b);
}

static void test_error_wrap(void **state)
{
	int err = pr_error(PR_EPARSE, "line %d: no From line", 3);

	assert_int_equal(err, PR_EPARSE);
	err = pr_error_wrap(err, "mbox '%s'", "x.mbox");
	assert_int_equal(err, PR_EPARSE);
	assert_string_equal(pr_error_message(),
			    "mbox 'x.mbox': line 3: no From line");
}

static void test_read_missing_file(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_buf_read_file(&b, "/nonexistent/x"), PR_ENOENT);
	assert_non_null(strstr(pr_error_message(), "/nonexistent/x"));
	pr_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_terminate),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_grow_large),
		cmocka_unit_test(test_rtrim_detach),
		cmocka_unit_test(test_utf8_cap),
		cmocka_unit_test(test_error_wrap),
		cmocka_unit_test(test_read_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
