#include "base/pr.h"
#include "mail/mail.h"

#include <setjmp.h>
#include <cmocka.h>

static void test_headers_unfold(void **state)
{
	static const char m[] = "From: A <a@b>\r\n"
				"Subject: one\r\n"
				"  two\r\n"
				"\tthree  \n"
				"X-Empty:\n"
				"\n"
				"body\n";
	struct pr_mail_headers h = PR_MAIL_HEADERS_INIT;
	size_t off;

	assert_int_equal(pr_mail_headers_parse(&h, m, strlen(m), &off), 0);
	assert_int_equal(h.nr, 3);
	assert_string_equal(pr_mail_headers_get(&h, "subject"),
			    "one  two three");
	assert_string_equal(pr_mail_headers_get(&h, "FROM"), "A <a@b>");
	assert_string_equal(pr_mail_headers_get(&h, "x-empty"), "");
	assert_null(pr_mail_headers_get(&h, "Date"));
	assert_string_equal(m + off, "\nbody\n");
	pr_mail_headers_release(&h);
}

static void test_headers_stop_at_non_header(void **state)
{
	static const char m[] = "Subject: x\nnot a header line\nFrom: y\n";
	struct pr_mail_headers h = PR_MAIL_HEADERS_INIT;
	size_t off;

	assert_int_equal(pr_mail_headers_parse(&h, m, strlen(m), &off), 0);
	assert_int_equal(h.nr, 1);
	assert_string_equal(m + off, "not a header line\nFrom: y\n");
	pr_mail_headers_release(&h);
}

static void test_headers_nul_in_value(void **state)
{
	/* git reads on past a NUL in a value; the value ends there */
	static const char m[] = "Subject: a\0b\nDate: d\nX\0Y: z\nbody\n";
	struct pr_mail_headers h = PR_MAIL_HEADERS_INIT;
	size_t off;

	assert_int_equal(pr_mail_headers_parse(&h, m, sizeof(m) - 1, &off), 0);
	assert_int_equal(h.nr, 2);
	assert_string_equal(pr_mail_headers_get(&h, "subject"), "a");
	assert_string_equal(pr_mail_headers_get(&h, "date"), "d");
	/* a NUL in a name: not a header, the body starts there */
	assert_int_equal(off, 21);
	pr_mail_headers_release(&h);
}

static void check_words(const char *in, const char *want)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_mail_decode_words(&b, in, strlen(in)), 0);
	assert_string_equal(b.ptr, want);
	pr_buf_release(&b);
}

static void test_encoded_words(void **state)
{
	check_words("=?ISO-8859-1?Q?J=F6rg_M=FCller?=",
		    "J\xc3\xb6rg M\xc3\xbcller");
	check_words("=?utf-8?b?Y2Fmw6k=?= =?utf-8?q?_x?=", "caf\xc3\xa9 x");
	check_words("a =?koi8-r?B?8NLJ18XU?= b",
		    "a \xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 b");
	check_words("=?iso-2022-jp?B?GyRCRnxLXDhsGyhC?=",
		    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e");
	/* RFC 2231 language suffix */
	check_words("=?utf-8*en?q?hi?=", "hi");
	/* bogus charset and broken words keep their text */
	check_words("=?x-bogus?q?kept?= tail", "=?x-bogus?q?kept?= tail");
	check_words("=?utf-8?q?unterminated", "=?utf-8?q?unterminated");
	check_words("=?utf-8?z?bad_encoding?=", "=?utf-8?z?bad_encoding?=");
	/* many unterminated words are kept (and scanned once, not quadratically) */
	check_words("=?u?q?a=?u?q?b=?u?q?c", "=?u?q?a=?u?q?b=?u?q?c");
	/* raw 8-bit latin-1 becomes UTF-8 */
	check_words("caf\xe9", "caf\xc3\xa9");
	check_words("caf\xc3\xa9", "caf\xc3\xa9");
	/* a UTF-8 word whose bytes are not UTF-8 (found by fuzz_mail) */
	check_words("=?utf-8?q?a=EAb?=", "a\xc3\xaa"
					 "b");
	/* a character split over two UTF-8 words is joined, as git does */
	check_words("=?utf-8?B?U2Noww==?= =?utf-8?B?tm4=?=", "Sch\xc3\xb6n");
	check_words("=?utf-8?q?=C3?= =?UTF8?q?=B6?=", "\xc3\xb6");
	/* ... but not over a word in another charset */
	check_words("=?utf-8?q?=C3?= =?iso-8859-1?q?=B6?=", "\xc3\x83\xc2\xb6");
}

static void test_qp_b64(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_mail_qp_decode(&b, "a=3Db=\n", 7, false), 0);
	assert_string_equal(b.ptr, "a=b");
	pr_buf_reset(&b);
	assert_int_equal(pr_mail_qp_decode(&b, "a_b=ZZ", 6, true), 0);
	assert_string_equal(b.ptr, "a b=ZZ");
	pr_buf_reset(&b);
	assert_int_equal(pr_mail_b64_decode(&b, "aGVsbG8K", 8), 0);
	assert_string_equal(b.ptr, "hello\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_mail_b64_decode(&b, "aGV sbG8=!", 10), 0);
	assert_string_equal(b.ptr, "hello");
	pr_buf_release(&b);
}

static void test_charset(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_mail_to_utf8(&b, "\xe9", 1, "iso-8859-1"), 0);
	assert_string_equal(b.ptr, "\xc3\xa9");
	assert_int_equal(pr_mail_to_utf8(&b, "x", 1, "no-such-charset"),
			 PR_EPARSE);
	assert_string_equal(b.ptr, "\xc3\xa9");
	/* invalid input in a real charset adds nothing */
	assert_int_equal(pr_mail_to_utf8(&b, "\xff\xfe", 2, "utf-16be") < 0 ||
				 b.len > 2,
			 1);
	pr_buf_release(&b);
	assert_false(pr_mail_is_utf8("\xc0\xaf", 2));
	assert_false(pr_mail_is_utf8("\xed\xa0\x80", 3));
	assert_true(pr_mail_is_utf8("\xf0\x9f\x98\x80", 4));
}

static void test_param(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_true(pr_mail_param(&b, "multipart/mixed; boundary=\"a b\"",
				  "boundary="));
	assert_string_equal(b.ptr, "a b");
	assert_true(pr_mail_param(&b, "text/plain; CHARSET=koi8-r; x=y",
				  "charset="));
	assert_string_equal(b.ptr, "koi8-r");
	assert_false(pr_mail_param(&b, "text/plain", "charset="));
	pr_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers_unfold),
		cmocka_unit_test(test_headers_stop_at_non_header),
		cmocka_unit_test(test_headers_nul_in_value),
		cmocka_unit_test(test_encoded_words),
		cmocka_unit_test(test_qp_b64),
		cmocka_unit_test(test_charset),
		cmocka_unit_test(test_param),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
