#include "base/pr.h"
#include "git/format.h"

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

static void test_from_long(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_format_from_header(
				 &b,
				 "Very Long Author Name With Many Words That "
				 "Goes On And On Past The Line",
				 "very.long.address@example.org"),
			 0);
	assert_string_equal(b.ptr, "From: Very Long Author Name With Many "
				   "Words That Goes On And On Past The Line\n"
				   " <very.long.address@example.org>\n");
	pr_buf_reset(&b);
	assert_int_equal(
		pr_format_from_header(&b,
				      "J\xc3\xb6hn Jacob Jingleheimer Schmidt "
				      "\xc3\x9cmlaut von und zu Irgendwo",
				      "jjjs@example.org"),
		0);
	assert_string_equal(b.ptr,
			    "From: =?UTF-8?q?J=C3=B6hn=20Jacob=20Jinglehe"
			    "imer=20Schmidt=20=C3=9Cmlaut?=\n"
			    " =?UTF-8?q?=20von=20und=20zu=20Irgendwo?= "
			    "<jjjs@example.org>\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_format_from_header(
				 &b,
				 "Averyveryveryveryveryveryveryveryveryveryvery"
				 "veryveryveryveryverylongword x",
				 "a@b.c"),
			 0);
	assert_string_equal(b.ptr, "From: \n"
				   " Averyveryveryveryveryveryveryveryveryvery"
				   "veryveryveryveryveryverylongword x\n"
				   " <a@b.c>\n");
	pr_buf_reset(&b);
	assert_int_equal(
		pr_format_subject_header(
			&b, "PATCH", 0, 0,
			"Averyveryveryveryveryveryveryveryveryveryvery"
			"veryveryveryveryverylongwordsubject more words"),
		0);
	assert_string_equal(b.ptr, "Subject: [PATCH] \n"
				   " Averyveryveryveryveryveryveryveryveryvery"
				   "veryveryveryveryveryverylongwordsubject\n"
				   " more words\n");
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

/* expected bytes from git 2.39.5 format-patch --from=... --thread */
static void test_from_and_thread(void **state)
{
	struct pr_buf b = PR_BUF_INIT, id = PR_BUF_INIT;
	struct pr_patch *p = pr_patch_new();
	struct pr_ident me = { 0 };
	struct pr_format_opts o = { .subject_prefix = "PATCH" };

	pr_ident_set(&me, "C O Mitter", "c@example.org");
	pr_ident_set(&p->author, "J\xc3\xb6hn D\xc5\x93", "author@example.org");
	p->time = 1796295600;
	p->tz_minutes = 60;
	p->subject = pr_strdup("four");
	memcpy(p->commit_id, "5749a50595a6a8264774274cd36faefe9cde20d4", 41);
	assert_int_equal(pr_format_patch_message_id(&id, p->commit_id,
						    1796304276,
						    "c@example.org"),
			 0);
	o.sender = &me;
	o.message_id = id.ptr;
	o.in_reply_to = "foo@bar";
	assert_int_equal(pr_format_patch(&b, p, &o), 0);
	assert_string_equal(
		b.ptr,
		"From 5749a50595a6a8264774274cd36faefe9cde20d4 Mon Sep 17 "
		"00:00:00 2001\n"
		"Message-Id: <5749a50595a6a8264774274cd36faefe9cde20d4."
		"1796304276.git.c@example.org>\n"
		"In-Reply-To: <foo@bar>\n"
		"References: <foo@bar>\n"
		"From: C O Mitter <c@example.org>\n"
		"Date: Thu, 3 Dec 2026 12:00:00 +0100\n"
		"Subject: [PATCH] four\n"
		"MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=UTF-8\n"
		"Content-Transfer-Encoding: 8bit\n"
		"\n"
		"From: J\xc3\xb6hn D\xc5\x93 <author@example.org>\n"
		"\n"
		"---\n"
		"\n"
		"-- \n2.39.5\n\n");
	/* the sender is the author: no in-body line, the name encoded */
	pr_buf_reset(&b);
	o.sender = &p->author;
	o.message_id = NULL;
	o.in_reply_to = NULL;
	assert_int_equal(pr_format_patch(&b, p, &o), 0);
	assert_non_null(strstr(b.ptr, "From: =?UTF-8?q?J=C3=B6hn=20D=C5=93?= "
				      "<author@example.org>\n"));
	assert_null(strstr(b.ptr, "\n\nFrom: "));
	assert_null(strstr(b.ptr, "MIME-Version"));
	assert_null(strstr(b.ptr, "Message-Id"));
	pr_ident_release(&me);
	pr_patch_free(p);
	pr_buf_release(&id);
	pr_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_rfc2047),
		cmocka_unit_test(test_from_quoted),
		cmocka_unit_test(test_from_long),
		cmocka_unit_test(test_subject_rfc2047_fold),
		cmocka_unit_test(test_subject_wrap),
		cmocka_unit_test(test_filename),
		cmocka_unit_test(test_slug),
		cmocka_unit_test(test_date),
		cmocka_unit_test(test_threading),
		cmocka_unit_test(test_body_and_patch),
		cmocka_unit_test(test_from_and_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
