#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "pi_feed.h"

/*
 * new.atom as public-inbox-httpd 1.9 served it for tests/data/sources/list:
 * 15 entries, newest first, one a minute from 10:15:00 (c-1@example.org,
 * 1794305700) back to 10:01:00 (a1-0@example.org).
 */
static void read_feed(struct pr_buf *b)
{
	assert_int_equal(
		pr_buf_read_file(b, PR_TEST_DATA "/atom/public-inbox.atom"), 0);
}

static void test_first_page(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	struct pr_pi_walk w = { NULL, NULL, NULL, 0, "test" };
	struct pr_pi_page p;

	PR_UNUSED(state);
	read_feed(&b);
	assert_int_equal(pr_pi_page_read(&p, b.ptr, b.len, "u", &w), 0);
	/* no cursor: every entry, oldest first; page on from its second */
	assert_int_equal(p.entries, 15);
	assert_int_equal(p.nr, 15);
	assert_string_equal(p.v[0].mid, "a1-0@example.org");
	assert_string_equal(p.v[0].pos,
			    "00000000001794304860.a1-0@example.org");
	assert_string_equal(p.v[14].mid, "c-1@example.org");
	assert_true(p.more);
	assert_false(p.stuck);
	assert_string_equal(p.next_t, "20261110100100");
	pr_pi_page_release(&p);
	pr_buf_release(&b);
}

static void test_cursor_reached(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	/* nothing waits, the newest seen is 10:12 (r3@example.org) */
	const char *at = "00000000001794305520.r3@example.org";
	struct pr_pi_walk w = { at, at, NULL, 0, "test" };
	struct pr_pi_page p;

	PR_UNUSED(state);
	read_feed(&b);
	assert_int_equal(pr_pi_page_read(&p, b.ptr, b.len, "u", &w), 0);
	/* 10:13, 10:14, 10:15: not the one at high, nor older ones */
	assert_int_equal(p.nr, 3);
	assert_string_equal(p.v[0].pos, "00000000001794305580.r4@example.org");
	assert_string_equal(p.v[2].mid, "c-1@example.org");
	assert_false(p.more);
	assert_false(p.stuck);
	pr_pi_page_release(&p);

	/* a version waits from 10:12: the entry at high is wanted again */
	w.high = "00000000001794305700.c-1@example.org";
	assert_int_equal(pr_pi_page_read(&p, b.ptr, b.len, "u", &w), 0);
	assert_int_equal(p.nr, 4);
	assert_string_equal(p.v[0].mid, "r3@example.org");
	assert_false(p.more);
	pr_pi_page_release(&p);

	/* the cursor's second is the page's oldest: that second may go on */
	w.low = w.high = "00000000001794304860.zz@example.org";
	assert_int_equal(pr_pi_page_read(&p, b.ptr, b.len, "u", &w), 0);
	assert_int_equal(p.nr, 14);
	assert_true(p.more);
	pr_pi_page_release(&p);

	/* a cursor older than the page: all of it, and page on */
	w.low = w.high = "00000000001700000000.old@example.org";
	assert_int_equal(pr_pi_page_read(&p, b.ptr, b.len, "u", &w), 0);
	assert_int_equal(p.nr, 15);
	assert_true(p.more);
	pr_pi_page_release(&p);
	pr_buf_release(&b);
}

/* A feed of n entries named m<i>, entry i received at times[i]. */
static void feed(struct pr_buf *b, const char *const *updated, size_t n)
{
	size_t i;

	pr_buf_reset(b);
	assert_int_equal(pr_buf_adds(b, "<?xml version=\"1.0\"?><feed>"), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(
			pr_buf_addf(b,
				    "<entry><title>t</title><updated>%s"
				    "</updated><link\nhref=\"http://h/i/m%zu%%"
				    "2Fx@h/\"/><id>%zu</id><content>&lt;"
				    "</content></entry>",
				    updated[i], i, i),
			0);
	assert_int_equal(pr_buf_adds(b, "</feed>"), 0);
}

static void test_short_and_stuck(void **state)
{
	static const char *const same[] = { "2026-11-10T10:00:05Z",
					    "2026-11-10T10:00:05Z",
					    "2026-11-10T10:00:05Z" };
	static const char *const two[] = { "2026-11-10T10:00:09Z",
					   "2026-11-10T10:00:07Z" };
	struct pr_buf b = PR_BUF_INIT;
	struct pr_pi_walk w = { NULL, NULL, "20261110100009", 3, "test" };
	struct pr_pi_page p;

	PR_UNUSED(state);
	/* shorter than the first page, yet with an older second: the
	 * archive may have left a message out, page on */
	feed(&b, two, 2);
	assert_int_equal(pr_pi_page_read(&p, b.ptr, b.len, "u", &w), 0);
	assert_int_equal(p.nr, 2);
	assert_string_equal(p.v[0].mid, "m1/x@h");
	assert_string_equal(p.v[1].pos, "00000000001794304809.m0/x@h");
	assert_string_equal(p.next_t, "20261110100007");
	assert_true(p.more);
	assert_false(p.stuck);
	pr_pi_page_release(&p);

	/* short, and nothing older than the second asked for: the oldest */
	w.t = "20261110100007";
	assert_int_equal(pr_pi_page_read(&p, b.ptr, b.len, "u", &w), 0);
	assert_false(p.more);
	assert_false(p.stuck);
	pr_pi_page_release(&p);

	/* a full page all in the second it was asked for: stuck */
	feed(&b, same, 3);
	w.t = "20261110100005";
	assert_int_equal(pr_pi_page_read(&p, b.ptr, b.len, "u", &w), 0);
	assert_int_equal(p.nr, 3);
	assert_false(p.more);
	assert_true(p.stuck);
	pr_pi_page_release(&p);

	/* the same page asked for with an older t moves on */
	w.t = "20261110100006";
	assert_int_equal(pr_pi_page_read(&p, b.ptr, b.len, "u", &w), 0);
	assert_true(p.more);
	assert_string_equal(p.next_t, "20261110100005");
	pr_pi_page_release(&p);
	pr_buf_release(&b);
}

static void test_odd_entries(void **state)
{
	static const char page[] =
		"<feed><entry><updated>2026-11-10T10:00:00Z</updated>"
		"<link href=\"///\"/></entry>"
		"<entry><updated>2026-11-10T10:00:01Z</updated>"
		"<link href=\"http://h/i/a%zz/\"/></entry>"
		"<entry><updated>yesterday</updated>"
		"<link href=\"http://h/i/undated@h/\"/></entry>"
		"<entry><updated>2026-11-10T10:00:02Z</updated>"
		"<link href=\"http://h/i/ok@h/\"/></entry>"
		"<entry><updated>2026-11-10T10:00:03Z</updated></entry>"
		"</feed>";
	static const char undated[] =
		"<feed><entry><link href=\"http://h/i/u@h/\"/></entry></feed>";
	struct pr_pi_walk w = { NULL, NULL, NULL, 0, "test" };
	struct pr_pi_page p;

	PR_UNUSED(state);
	/* links naming no message are skipped; an undated entry sorts at 0
	 * and does not move the page's oldest second */
	assert_int_equal(pr_pi_page_read(&p, page, sizeof(page) - 1, "u", &w),
			 0);
	assert_int_equal(p.entries, 5);
	assert_int_equal(p.nr, 2);
	assert_string_equal(p.v[0].mid, "ok@h");
	assert_string_equal(p.v[1].pos, "00000000000000000000.undated@h");
	assert_string_equal(p.next_t, "20261110100002");
	assert_true(p.more);
	pr_pi_page_release(&p);

	/* no dated entry: nothing to page back from */
	assert_int_equal(
		pr_pi_page_read(&p, undated, sizeof(undated) - 1, "u", &w), 0);
	assert_int_equal(p.nr, 1);
	assert_false(p.more);
	assert_false(p.stuck);
	pr_pi_page_release(&p);

	/* an empty page: the end */
	assert_int_equal(pr_pi_page_read(&p, "<feed></feed>\n", 14, "u", &w),
			 0);
	assert_int_equal(p.nr, 0);
	assert_false(p.more);
	pr_pi_page_release(&p);
}

static void test_malformed(void **state)
{
	static const char cut[] = "<feed><entry><updated>2026-11-10T10:00:00Z"
				  "</updated><link href=\"http://h/i/a@h/\"";
	static const char whole[] = "<feed><entry><updated>2026-11-10T10:00:00Z"
				    "</updated><link href=\"http://h/i/a@h/\"/>"
				    "</entry>\n";
	struct pr_pi_walk w = { NULL, NULL, NULL, 0, "test" };
	struct pr_pi_page p;

	PR_UNUSED(state);
	assert_int_equal(pr_pi_page_read(&p, cut, sizeof(cut) - 1,
					 "http://h/i/new.atom?t=2026", &w),
			 PR_EPARSE);
	assert_string_equal(pr_error_message(),
			    "atom 'http://h/i/new.atom?t=2026' offset 52: a "
			    "tag that does not end");
	assert_int_equal(p.nr, 0);
	assert_null(p.v);
	assert_false(p.more);

	/* cut between two entries: it parses, but is not a whole page */
	assert_int_equal(pr_pi_page_read(&p, whole, sizeof(whole) - 1,
					 "http://h/i/new.atom", &w),
			 PR_EPARSE);
	assert_string_equal(pr_error_message(),
			    "atom 'http://h/i/new.atom' offset 90: a page that "
			    "does not end with </feed>");
	assert_int_equal(p.nr, 0);
	pr_error_clear();
}

static void test_link_mid(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	PR_UNUSED(state);
	assert_int_equal(pr_pi_link_mid(&b, "http://h/i/odd%2Fid+x%25y%23z@h/"),
			 0);
	assert_string_equal(b.ptr, "odd/id+x%y#z@h");
	pr_buf_reset(&b);
	assert_int_equal(pr_pi_link_mid(&b, "x@h"), 0);
	assert_string_equal(b.ptr, "x@h");
	pr_buf_reset(&b);
	assert_int_equal(pr_pi_link_mid(&b, "http://h/i/a%00b/"), PR_EPARSE);
	assert_string_equal(pr_error_message(),
			    "link 'http://h/i/a%00b/': names no message");
	pr_buf_reset(&b);
	assert_int_equal(pr_pi_link_mid(&b, "http://h/i/a%2"), PR_EPARSE);
	pr_buf_reset(&b);
	assert_int_equal(pr_pi_link_mid(&b, "///"), PR_EPARSE);
	pr_error_clear();
	pr_buf_release(&b);
}

static void test_mail_time(void **state)
{
	static const char both[] =
		"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		"Received: from a by b\n"
		"\tid 1; Tue, 10 Nov 2026 12:00:07 +0100\n"
		"Received: from c by a; Tue, 10 Nov 2026 09:00:00 +0000\n"
		"Date: Mon, 9 Nov 2026 10:00:00 +0000\n"
		"Subject: s\n\nReceived: body; Tue, 10 Nov 2026 13:00:00 +0000\n";
	static const char bad_received[] =
		"Received: from a by b (no date)\n"
		"Received: from a by b; yesterday\n"
		"Received: from c; Tue, 10 Nov 2026 09:00:00 +0000\n"
		"Date: Mon, 9 Nov 2026 10:00:00 +0000\n\n";
	static const char date_only[] = "Subject: s\n"
					"Date: Mon, 9 Nov 2026 10:00:00 -0030\n"
					"\nbody\n";
	static const char neither[] = "Subject: s\nDate: soon\n\nbody\n";
	int64_t t = 0;

	PR_UNUSED(state);
	/* the first Received: that has a date, folded; not the Date */
	assert_int_equal(pr_pi_mail_time(&t, both, sizeof(both) - 1), 0);
	assert_int_equal(t, 1794312007 - 3600);
	assert_int_equal(
		pr_pi_mail_time(&t, bad_received, sizeof(bad_received) - 1), 0);
	assert_int_equal(t, 1794301200);
	assert_int_equal(pr_pi_mail_time(&t, date_only, sizeof(date_only) - 1),
			 0);
	assert_int_equal(t, 1794218400 + 1800);
	t = 5;
	assert_int_equal(pr_pi_mail_time(&t, neither, sizeof(neither) - 1),
			 PR_ENOENT);
	assert_int_equal(t, 5);
	assert_int_equal(pr_pi_mail_time(&t, "", 0), PR_ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_page),
		cmocka_unit_test(test_cursor_reached),
		cmocka_unit_test(test_short_and_stuck),
		cmocka_unit_test(test_odd_entries),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_link_mid),
		cmocka_unit_test(test_mail_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
