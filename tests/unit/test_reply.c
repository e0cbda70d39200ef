#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "mail/outgoing.h"

static void test_reply(void **state)
{
	struct pr_ident from = { (char *)"Grace Hopper via github",
				 (char *)"relay@example.org" };
	struct pr_outgoing_rcpt rc = { { 0 }, { 0 } };
	struct pr_outgoing_reply r = { 0 };
	struct pr_buf b = PR_BUF_INIT;

	PR_UNUSED(state);
	pr_recipient_list_add(&rc.to, "", "list@example.org", PR_RCPT_TO, "");
	pr_recipient_list_add(&rc.cc, "Ada", "ada@example.org", PR_RCPT_CC, "");
	r.from = &from;
	r.rcpt = &rc;
	r.subject = "[PATCH 2/3] b: add y";
	r.in_reply_to = "p2@x";
	/* brackets and blanks are dropped, the answered id is not repeated */
	r.refs = "<c@x>  p2@x";
	r.message_id = "r@x";
	r.time = 1796400000;
	r.body = "text";
	assert_int_equal(pr_outgoing_reply(&b, &r), 0);
	assert_string_equal(b.ptr, "From: Grace Hopper via github "
				   "<relay@example.org>\n"
				   "To: list@example.org\n"
				   "Cc: Ada <ada@example.org>\n"
				   "Subject: Re: [PATCH 2/3] b: add y\n"
				   "Date: Fri, 4 Dec 2026 16:00:00 +0000\n"
				   "Message-ID: <r@x>\n"
				   "In-Reply-To: <p2@x>\n"
				   "References:\n <c@x>\n <p2@x>\n"
				   "MIME-Version: 1.0\n"
				   "Content-Type: text/plain; charset=UTF-8\n"
				   "Content-Transfer-Encoding: 8bit\n"
				   "\n"
				   "text\n");
	/* "Re:" is not doubled; a non-ASCII subject is encoded */
	pr_buf_reset(&b);
	r.subject = "Re: [PATCH] f\xc3\xbcr";
	r.refs = NULL;
	assert_int_equal(pr_outgoing_reply(&b, &r), 0);
	assert_non_null(strstr(b.ptr, "\nSubject: Re: =?UTF-8?q?"));
	assert_null(strstr(b.ptr, "Re: Re:"));
	assert_non_null(strstr(b.ptr, "References:\n <p2@x>\n"));
	/* an id that could break a header is refused, out is unchanged */
	pr_buf_reset(&b);
	pr_buf_adds(&b, "kept");
	r.in_reply_to = "p2@x>\nBcc: evil@example.org";
	assert_int_equal(pr_outgoing_reply(&b, &r), PR_EINVAL);
	assert_string_equal(b.ptr, "kept");
	pr_buf_release(&b);
	pr_outgoing_rcpt_release(&rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
