#include "base/pr.h"
#include "mail/mailinfo.h"

#include <setjmp.h>
#include <cmocka.h>

static void check_subject(const char *in, const char *want)
{
	struct pr_buf b = PR_BUF_INIT;

	pr_buf_adds(&b, in);
	pr_mailinfo_clean_subject(&b);
	assert_string_equal(b.ptr, want);
	pr_buf_release(&b);
}

static void test_clean_subject(void **state)
{
	check_subject("[PATCH v2 1/3] foo: bar", "foo: bar");
	check_subject("Re: RE: [PATCH] [net] x", "x");
	check_subject("Re:", "Re:");
	check_subject("  :: [a] [b]  c  ", "c");
	check_subject("Reply to all", "Reply to all");
	check_subject("[unterminated x", "[unterminated x");
}

static void check_from(const char *in, const char *name, const char *email)
{
	struct pr_buf n = PR_BUF_INIT, e = PR_BUF_INIT;

	assert_int_equal(pr_mailinfo_split_from(&n, &e, in), 0);
	assert_string_equal(n.ptr, name);
	assert_string_equal(e.ptr, email);
	pr_buf_release(&n);
	pr_buf_release(&e);
}

static void test_split_from(void **state)
{
	check_from("John Doe <john@x.org>", "John Doe", "john@x.org");
	check_from("\"Doe, John\" <john@x.org>", "Doe, John", "john@x.org");
	check_from("john@x.org (John Doe)", "John Doe", "john@x.org");
	check_from("<john@x.org>", "john@x.org", "john@x.org");
	check_from("Bogus <bogus>", "Bogus", "bogus");
	check_from("nobody", "", "");
}

static void parse_file(struct pr_mailinfo *mi, const char *name)
{
	struct pr_buf path = PR_BUF_INIT, data = PR_BUF_INIT;

	pr_buf_addf(&path, "%s/mail/%s", PR_TEST_DATA, name);
	assert_int_equal(pr_buf_read_file(&data, path.ptr), 0);
	pr_mailinfo_init(mi);
	assert_int_equal(pr_mailinfo_parse(mi, data.ptr, data.len), 0);
	pr_buf_release(&path);
	pr_buf_release(&data);
}

static void test_inbody(void **state)
{
	struct pr_mailinfo mi;

	parse_file(&mi, "inbody.eml");
	assert_string_equal(mi.name, "Real Author");
	assert_string_equal(mi.email, "real@example.com");
	/* the submitter stays the From: header's */
	assert_string_equal(mi.sender, "sender@example.com");
	/* git keeps the in-body header's newline as a space */
	assert_string_equal(mi.date, "Fri, 5 Jan 2024 01:02:03 +0000 ");
	assert_string_equal(mi.subject, "the in-body subject continued");
	assert_string_equal(mi.msg.ptr, "The body.\n");
	assert_int_equal(mi.kind, PR_MAIL_PATCH);
	assert_true(!strncmp(mi.patch.ptr, "---\n x | 2 +-\n", 14));
	pr_mailinfo_release(&mi);
}

static void test_rfc2047_ids(void **state)
{
	struct pr_mailinfo mi;

	parse_file(&mi, "rfc2047-folded.eml");
	assert_string_equal(mi.name, "J\xc3\xb6rg M\xc3\xbcller");
	assert_string_equal(mi.subject,
			    "caf\xc3\xa9 na\xc3\xafve fix for folded subject");
	assert_string_equal(mi.message_id, "abc@example.org");
	assert_string_equal(mi.in_reply_to, "cover@example.org");
	assert_int_equal(mi.nr_references, 2);
	assert_string_equal(mi.references[1], "prev@example.org");
	pr_mailinfo_release(&mi);
}

static void test_multipart_attachment(void **state)
{
	struct pr_mailinfo mi;

	parse_file(&mi, "nested-multipart.eml");
	/*
	 * As in git: the line after a part's headers is not checked for a
	 * boundary, so the inner multipart's first part is read as text.
	 */
	assert_string_equal(
		mi.msg.ptr,
		"--inner\nContent-Type: text/plain; charset=iso-8859-1\n"
		"Content-Transfer-Encoding: quoted-printable\n\n"
		"Message text caf=E9.\n\n\n");
	assert_string_equal(mi.patch.ptr,
			    "diff --git a/p b/p\n--- a/p\n+++ b/p\n"
			    "@@ -1 +1 @@\n-old\n+new\n\n");
	pr_mailinfo_release(&mi);
}

static void test_reply_and_bogus(void **state)
{
	struct pr_mailinfo mi;

	parse_file(&mi, "raw8bit.eml");
	assert_int_equal(mi.kind, PR_MAIL_REPLY);
	assert_string_equal(mi.name, "Ren\xc3\xa9 Latin");
	assert_string_equal(mi.subject, "caf\xc3\xa9 raw 8-bit");
	pr_mailinfo_release(&mi);
	parse_file(&mi, "bogus-charset.eml");
	assert_string_equal(mi.subject, "=?x-unknown-42?q?kept_text?= stays");
	assert_string_equal(mi.msg.ptr, "Body in bogus charset \xc3\xbf.\n");
	assert_int_equal(mi.kind, PR_MAIL_OTHER);
	pr_mailinfo_release(&mi);
}

static void test_no_headers(void **state)
{
	struct pr_mailinfo mi;

	pr_mailinfo_init(&mi);
	assert_int_equal(pr_mailinfo_parse(&mi, "\nno headers\n", 12),
			 PR_EPARSE);
	pr_mailinfo_release(&mi);
}

static void test_kinds(void **state)
{
	struct pr_mailinfo mi;

	parse_file(&mi, "pull.eml");
	assert_int_equal(mi.kind, PR_MAIL_PULL);
	assert_string_equal(mi.pull_url,
			    "git://git.example.org/pub/scm/net.git");
	assert_string_equal(mi.pull_ref, "tags/net-6.7-rc2");
	pr_mailinfo_release(&mi);

	parse_file(&mi, "reply-trailer.eml");
	assert_int_equal(mi.kind, PR_MAIL_REPLY);
	assert_int_equal(mi.trailers.nr, 1);
	assert_string_equal(mi.trailers.items[0].key, "Reviewed-by");
	assert_string_equal(mi.trailers.items[0].value,
			    "Rev Iewer <rev@example.com>");
	assert_string_equal(mi.prefix.list, "net-next");
	assert_int_equal(mi.prefix.version, 3);
	assert_int_equal(mi.prefix.index, 2);
	assert_int_equal(mi.prefix.total, 7);
	pr_mailinfo_release(&mi);

	parse_file(&mi, "comment-from.eml");
	assert_int_equal(mi.kind, PR_MAIL_COVER);
	assert_true(mi.prefix.rfc);
	pr_mailinfo_release(&mi);

	parse_file(&mi, "rfc2047-folded.eml");
	assert_int_equal(mi.kind, PR_MAIL_PATCH);
	assert_int_equal(mi.trailers.nr, 1);
	assert_string_equal(mi.trailers.items[0].key, "Signed-off-by");
	pr_mailinfo_release(&mi);

	parse_file(&mi, "no-from.eml");
	assert_int_equal(mi.kind, PR_MAIL_OTHER);
	assert_string_equal(mi.name, "");
	pr_mailinfo_release(&mi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_subject),
		cmocka_unit_test(test_split_from),
		cmocka_unit_test(test_inbody),
		cmocka_unit_test(test_rfc2047_ids),
		cmocka_unit_test(test_multipart_attachment),
		cmocka_unit_test(test_reply_and_bogus),
		cmocka_unit_test(test_no_headers),
		cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
