#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "mail/atom.h"

/* new.atom as public-inbox-httpd 1.9 served it for tests/data/sources/list */
static void test_public_inbox_feed(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	struct pr_atom_feed f;
	size_t i;

	PR_UNUSED(state);
	assert_int_equal(pr_buf_read_file(&b, PR_TEST_DATA
					  "/atom/public-inbox.atom"),
			 0);
	assert_int_equal(pr_atom_parse(&f, b.ptr, b.len, "public-inbox.atom"),
			 0);
	assert_int_equal(f.nr, 15);
	/* newest first; the feed's own <title>, <link> and <id> are not one */
	assert_string_equal(f.v[0].id,
			    "urn:uuid:cdaf4aa4-cfbd-7a93-175c-1d57764f7be3");
	assert_string_equal(f.v[0].link,
			    "http://127.0.0.1:18123/test/c-1@example.org/");
	assert_string_equal(f.v[0].updated, "2026-11-10T10:15:00Z");
	assert_string_equal(f.v[0].title, "[PATCH 1/2] mm: part 1");
	assert_int_equal(f.v[0].time, 1794305700);
	/* a reply: its thr:in-reply-to href is not its link */
	assert_string_equal(f.v[1].link,
			    "http://127.0.0.1:18123/test/r5@example.org/");
	assert_string_equal(f.v[1].title, "Re: [PATCH 1/3] fs: step 1");
	assert_string_equal(f.v[14].link,
			    "http://127.0.0.1:18123/test/a1-0@example.org/");
	for (i = 0; i < f.nr; i++) {
		assert_non_null(f.v[i].id);
		assert_int_equal(f.v[i].time, 1794305700 - 60 * (int64_t)i);
	}
	pr_atom_feed_release(&f);
	pr_buf_release(&b);
}

static void test_text_and_skips(void **state)
{
	static const char feed[] =
		"<?xml version=\"1.0\"?>\n<!-- <entry> in a comment -->"
		"<feed><title>feed</title><entry>"
		"<author><name>A</name><title>not mine</title></author>"
		"<link rel=\"self\" href=\"self\"/>"
		"<link rel='alternate' href=\"x/a%2Fb&amp;c@d/\" />"
		"<link href=\"second\"/>"
		"<title type=\"html\">&lt;b&gt; &#65;&#x42; caf&#xe9; "
		"<![CDATA[<raw>&amp;]]></title>"
		"<content type=\"xhtml\"><div><pre>&lt;entry&gt;"
		"<link href=\"inside\"/><entry></pre></div></content>"
		"<updated>2026-11-10T11:15:00.5+01:00</updated>"
		"<id>one</id><id>two</id></entry>"
		"<entry><updated>yesterday</updated></entry>"
		"<entry/></feed>";
	struct pr_atom_feed f;

	PR_UNUSED(state);
	assert_int_equal(pr_atom_parse(&f, feed, sizeof(feed) - 1, "t"), 0);
	assert_int_equal(f.nr, 3);
	assert_string_equal(f.v[0].link, "x/a%2Fb&c@d/");
	assert_string_equal(f.v[0].title, "<b> AB caf\xc3\xa9 <raw>&amp;");
	assert_string_equal(f.v[0].id, "one");
	assert_int_equal(f.v[0].time, 1794305700);
	assert_null(f.v[1].link);
	assert_null(f.v[1].id);
	assert_string_equal(f.v[1].updated, "yesterday");
	assert_int_equal(f.v[1].time, -1);
	assert_null(f.v[2].updated);
	pr_atom_feed_release(&f);
}

static void refused(const char *feed, const char *what)
{
	struct pr_atom_feed f;

	assert_int_equal(pr_atom_parse(&f, feed, strlen(feed), "bad.atom"),
			 PR_EPARSE);
	assert_int_equal(f.nr, 0);
	assert_null(f.v);
	assert_non_null(strstr(pr_error_message(), "atom 'bad.atom' offset"));
	assert_non_null(strstr(pr_error_message(), what));
	pr_error_clear();
}

static void test_refused(void **state)
{
	PR_UNUSED(state);
	refused("<feed><entry><id>x</id></entry><entry><title", "not end");
	refused("<entry><id>a &nbsp; b</id></entry>", "unknown entity");
	refused("<entry><id>&#0;</id></entry>", "unknown entity");
	refused("<entry><id>&#x110000;</id></entry>", "unknown entity");
	refused("<entry><id>a & b</id></entry>", "starts no entity");
	refused("<entry><entry></entry></entry>", "inside an <entry>");
	refused("<feed><entry><id>x</id>", "an <entry> that does not end");
	refused("<entry><content>never closed", "<content> that does not");
	refused("<entry>< id>", "starts no tag");
	refused("<!-- open", "comment");
	refused("<entry><title><![CDATA[x</title></entry>", "CDATA");
}

static void test_time(void **state)
{
	int64_t t = 0;

	PR_UNUSED(state);
	assert_int_equal(pr_atom_parse_time(&t, "2026-11-10T10:15:00Z"), 0);
	assert_int_equal(t, 1794305700);
	assert_int_equal(pr_atom_parse_time(&t, "1969-12-31T23:59:59Z"), 0);
	assert_int_equal(t, -1);
	assert_int_equal(pr_atom_parse_time(&t, "2000-02-29T00:00:00-05:30"),
			 0);
	assert_int_equal(t, 951802200);
	assert_int_equal(pr_atom_parse_time(&t, "2026-11-10 10:15:00Z"),
			 PR_EPARSE);
	pr_error_clear();
	assert_int_equal(pr_atom_parse_time(&t, "2026-13-10T10:15:00Z"),
			 PR_EPARSE);
	pr_error_clear();
	assert_int_equal(pr_atom_parse_time(&t, "2026-11-10T10:15:00"),
			 PR_EPARSE);
	pr_error_clear();
	assert_int_equal(pr_atom_parse_time(&t, "2026-11-10T10:15:00Zjunk"),
			 PR_EPARSE);
	pr_error_clear();
	assert_int_equal(pr_atom_parse_time(&t, "2026"), PR_EPARSE);
	pr_error_clear();
	assert_int_equal(pr_atom_parse_time(&t, NULL), PR_EPARSE);
	pr_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_public_inbox_feed),
		cmocka_unit_test(test_text_and_skips),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
