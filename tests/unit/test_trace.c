#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "base/trace.h"

/* One line through pr_trace_line, compared with what must be written. */
static void check(struct pr_trace *t, bool sent, const char *line,
		  const char *want)
{
	struct pr_buf out = PR_BUF_INIT;

	assert_int_equal(pr_trace_line(&out, t, sent, line, strlen(line)), 0);
	assert_string_equal(out.ptr ? out.ptr : "", want);
	pr_buf_release(&out);
}

static void test_http(void **state)
{
	struct pr_trace t = { "http", "gh", true, false };

	PR_UNUSED(state);
	check(&t, true,
	      "GET /repos/kernel/net/pulls?state=open&page=2 HTTP/1.1",
	      "GET /repos/kernel/net/pulls?state=open&page=2 HTTP/1.1");
	check(&t, true, "Authorization: Bearer ghp_s3cret",
	      "Authorization: <redacted>");
	check(&t, true, "PRIVATE-TOKEN: glpat-s3cret",
	      "PRIVATE-TOKEN: <redacted>");
	check(&t, true, "Cookie: a=b", "Cookie: <redacted>");
	check(&t, false, "set-cookie: sid=1; Path=/", "set-cookie: <redacted>");
	check(&t, true, "Accept: application/vnd.github+json",
	      "Accept: application/vnd.github+json");
	/* secret-looking query parameters, wherever the URL is */
	check(&t, true,
	      "GET /api/v4/projects?private_token=glpat-x&per_page=100 HTTP/1.1",
	      "GET /api/v4/projects?private_token=<redacted>&per_page=100 "
	      "HTTP/1.1");
	check(&t, false, "Location: https://h/cb?code=1&access_token=abc#frag",
	      "Location: https://h/cb?code=1&access_token=<redacted>#frag");
	check(&t, true, "GET /x?password=pw HTTP/1.1",
	      "GET /x?password=<redacted> HTTP/1.1");
	check(&t, false, "HTTP/1.1 401 Unauthorized",
	      "HTTP/1.1 401 Unauthorized");
}

static void test_smtp(void **state)
{
	struct pr_trace t = { "smtp", "list", true, false };

	PR_UNUSED(state);
	check(&t, false, "220 mx ESMTP", "220 mx ESMTP");
	check(&t, true, "EHLO relay", "EHLO relay");
	check(&t, true, "MAIL FROM:<bot@example.org>",
	      "MAIL FROM:<bot@example.org>");
	check(&t, true, "RCPT TO:<netdev@vger.kernel.org>",
	      "RCPT TO:<netdev@vger.kernel.org>");
	/* AUTH PLAIN with an initial response */
	check(&t, true, "AUTH PLAIN AGJvdABzM2NyZXQ=", "AUTH PLAIN <redacted>");
	assert_true(t.in_auth);
	check(&t, false, "235 2.7.0 Authentication successful",
	      "235 2.7.0 Authentication successful");
	assert_false(t.in_auth);
	/* AUTH LOGIN: user and password go as lines of their own */
	check(&t, true, "AUTH LOGIN", "AUTH LOGIN");
	check(&t, false, "334 VXNlcm5hbWU6", "334 VXNlcm5hbWU6");
	check(&t, true, "Ym90", "<redacted>");
	check(&t, false, "334 UGFzc3dvcmQ6", "334 UGFzc3dvcmQ6");
	/* even a password whose base64 spells a command */
	check(&t, true, "DATA", "<redacted>");
	check(&t, false, "235 ok", "235 ok");
	check(&t, true, "DATA", "DATA");
	/* anything not known to be harmless */
	check(&t, true, "XCLIENT LOGIN=bob", "<redacted>");
}

static void test_imap(void **state)
{
	struct pr_trace t = { "imap", "list", true, false };

	PR_UNUSED(state);
	check(&t, true, "A001 CAPABILITY", "A001 CAPABILITY");
	check(&t, true, "A002 LOGIN bot \"s3cret\"", "A002 LOGIN <redacted>");
	check(&t, true, "A003 UID SEARCH UID 1:* ALL",
	      "A003 UID SEARCH UID 1:* ALL");
	check(&t, true, "A004 AUTHENTICATE PLAIN AGJvdABzM2NyZXQ=",
	      "A004 AUTHENTICATE PLAIN <redacted>");
	check(&t, false, "+ ", "+ ");
	check(&t, true, "A005 NOOP", "<redacted>");
	check(&t, false, "A004 OK done", "A004 OK done");
	check(&t, true, "A005 NOOP", "A005 NOOP");
	check(&t, true, "s3cret-literal", "<redacted>");
	check(&t, true, "A006 XYZZY secret", "<redacted>");
}

static void test_escaped(void **state)
{
	struct pr_trace t = { "smtp", "list", true, false };
	struct pr_buf out = PR_BUF_INIT, big = PR_BUF_INIT;
	size_t i;

	PR_UNUSED(state);
	/* a server cannot forge a log line or send terminal escapes */
	check(&t, false, "250 ok\rpatchrelay: error: \x1b[31mfake",
	      "250 ok\\x0dpatchrelay: error: \\x1b[31mfake");
	check(&t, false, "250 caf\xc3\xa9", "250 caf\\xc3\\xa9");
	for (i = 0; i < 5000; i++)
		pr_buf_addch(&big, 'x');
	assert_int_equal(pr_trace_line(&out, &t, false, big.ptr, big.len), 0);
	assert_true(out.len < 1100);
	assert_non_null(strstr(out.ptr, "... (5000 bytes)"));
	pr_buf_release(&out);
	pr_buf_release(&big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_smtp),
		cmocka_unit_test(test_imap),
		cmocka_unit_test(test_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
