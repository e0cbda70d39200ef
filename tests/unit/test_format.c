#include "pr.h"
#include "format.h"

#include <setjmp.h>
#include <cmocka.h>

/* Expected strings below were produced by git 2.39.5 format-patch. */

static void test_from_rfc2047(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_format_from_header(&b,
					       "J\xc3\xb6hn D\xc5\x93 "
					       "\xc3\x9cmlaut-Stra\xc3\x9f"
					       "e",
					       "j@x.org"),
			 0);
	assert_string_equal(b.ptr, "From: =?UTF-8?q?J=C3=B6hn=20D=C5=93=20=C3="
				   "9Cmlaut-Stra=C3=9Fe?= <j@x.org>\n");
	pr_buf_release(&b);
}

static void test_from_quoted(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_format_from_header(&b, "A. U. Thor", "a@x.org"), 0);
	assert_string_equal(b.ptr, "From: \"A. U. Thor\" <a@x.org>\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_format_from_header(&b, "Plain Name", "p@x.org"), 0);
	assert_string_equal(b.ptr, "From: Plain Name <p@x.org>\n");
	pr_buf_release(&b);
}

static void test_subject_rfc2047_fold(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_format_subject_header(
				 &b, "PATCH", 1, 2,
				 "\xc3\x84rger mit dem sehr langen Betreff der "
				 "\xc3\xbc"
				 "ber die Zeile hinaus geht und gefaltet wird"),
			 0);
	assert_string_equal(
		b.ptr,
		"Subject: [PATCH 1/2] =?UTF-8?q?=C3=84rger=20mit=20dem=20sehr="
		"20langen=20Be?=\n"
		" =?UTF-8?q?treff=20der=20=C3=BCber=20die=20Zeile=20hinaus=20geht="
		"20und=20g?=\n"
		" =?UTF-8?q?efaltet=20wird?=\n");
	pr_buf_release(&b);
}

static void test_subject_wrap(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_format_subject_header(
				 &b, "PATCH", 2, 2,
				 "net: this is a fairly long subject line that "
				 "should fold somewhere after seventy-eight "
				 "columns ok..."),
			 0);
	assert_string_equal(b.ptr,
			    "Subject: [PATCH 2/2] net: this is a fairly long "
			    "subject line that should fold\n"
			    " somewhere after seventy-eight columns ok...\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_format_subject_header(&b, "PATCH", 3, 10, "x"), 0);
	assert_string_equal(b.ptr, "Subject: [PATCH 03/10] x\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_format_subject_header(&b, "PATCH", 0, 0, "x"), 0);
	assert_string_equal(b.ptr, "Subject: [PATCH] x\n");
	pr_buf_release(&b);
}

static void test_filename(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_format_filename(&b, "3", 1,
					    "\xc3\x84rger mit dem sehr langen "
					    "Betreff der \xc3\xbc"
					    "ber die Zeile hinaus geht"),
			 0);
	assert_string_equal(
		b.ptr,
		"v3-0001-rger-mit-dem-sehr-langen-Betreff-der-ber-die-Zeil.patch");
	pr_buf_reset(&b);
	assert_int_equal(pr_format_filename(&b, NULL, 2,
					    "net: this is a fairly long "
					    "subject line that should fold"),
			 0);
	assert_string_equal(
		b.ptr,
		"0002-net-this-is-a-fairly-long-subject-line-that-should-f.patch");
	pr_buf_reset(&b);
	assert_int_equal(pr_format_filename(&b, NULL, 0, NULL), 0);
	assert_string_equal(b.ptr, "0000-cover-letter.patch");
	pr_buf_release(&b);
}

static void test_slug(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	const char *s = "  Fix... the [foo] bar_baz!! v1.2 --";

	assert_int_equal(pr_format_slug(&b, s, strlen(s)), 0);
	assert_string_equal(b.ptr, "Fix.-the-foo-bar_baz-v1.2");
	pr_buf_release(&b);
}

static void test_date(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	/* 2026-12-03 12:00:00 +0100 */
	assert_int_equal(pr_format_date(&b, 1796295600, 60), 0);
	assert_string_equal(b.ptr, "Thu, 3 Dec 2026 12:00:00 +0100");
	pr_buf_reset(&b);
	assert_int_equal(pr_format_date(&b, 1796295600, -330), 0);
	assert_string_equal(b.ptr, "Thu, 3 Dec 2026 05:30:00 -0530");
	pr_buf_release(&b);
}

static void test_threading(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	/* the form of git send-email's make_message_id */
	assert_int_equal(pr_format_message_id(&b, 1796295600, 4242, 2,
					      "a@example.org"),
			 0);
	assert_string_equal(b.ptr, "20261203110000.4242-2-a@example.org");
	pr_buf_reset(&b);
	assert_int_equal(pr_format_thread_headers(&b, "c@x", NULL), 0);
	assert_string_equal(b.ptr, "Message-ID: <c@x>\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_format_thread_headers(&b, "p1@x", "c@x"), 0);
	assert_string_equal(b.ptr, "Message-ID: <p1@x>\nIn-Reply-To: <c@x>\n"
				   "References: <c@x>\n");
	pr_buf_release(&b);
}

static void test_body_and_patch(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	struct pr_patch *p = pr_patch_new();
	struct pr_format_opts o = { .subject_prefix = "PATCH" };

	pr_ident_set(&p->author, "A U Thor", "a@x.org");
	p->time = 1796295600;
	p->tz_minutes = 60;
	p->subject = pr_strdup("x");
	p->body = pr_strdup("\n\nline  \n\n\nend\t\n\n");
	p->diffstat = pr_strdup(" f | 1 +\n 1 file changed, 1 insertion(+)\n");
	p->diff = pr_strdup("diff --git a/f b/f\n");
	memcpy(p->commit_id, "0123456789012345678901234567890123456789", 41);
	assert_int_equal(pr_format_patch(&b, p, &o), 0);
	assert_string_equal(
		b.ptr, "From 0123456789012345678901234567890123456789 Mon Sep "
		       "17 00:00:00 2001\n"
		       "From: A U Thor <a@x.org>\n"
		       "Date: Thu, 3 Dec 2026 12:00:00 +0100\n"
		       "Subject: [PATCH] x\n"
		       "\n"
		       "line\n\n\nend\n"
		       "---\n"
		       " f | 1 +\n 1 file changed, 1 insertion(+)\n"
		       "\n"
		       "diff --git a/f b/f\n"
		       "-- \n2.39.5\n\n");
	pr_patch_free(p);
	pr_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_rfc2047),
		cmocka_unit_test(test_from_quoted),
		cmocka_unit_test(test_subject_rfc2047_fold),
		cmocka_unit_test(test_subject_wrap),
		cmocka_unit_test(test_filename),
		cmocka_unit_test(test_slug),
		cmocka_unit_test(test_date),
		cmocka_unit_test(test_threading),
		cmocka_unit_test(test_body_and_patch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
