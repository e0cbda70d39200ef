#include "pr.h"
#include "cfg.h"
#include "outgoing.h"

#include <setjmp.h>
#include <cmocka.h>

static struct pr_patch *patch(const char *name, const char *email,
			      const char *subject, int n)
{
	struct pr_patch *p = pr_patch_new();
	struct pr_buf d = PR_BUF_INIT;

	pr_ident_set(&p->author, name, email);
	p->time = 1796299200;
	p->subject = pr_strdup(subject);
	p->body = pr_strdup("Some words.\n\nSigned-off-by: A U Thor "
			    "<a@example.org>\n");
	p->diffstat = pr_strdup(" f | 1 +\n 1 file changed, 1 insertion(+)\n");
	pr_buf_addf(&d,
		    "diff --git a/f b/f\nindex 0000000..1111111 100644\n"
		    "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+line %d\n",
		    n);
	p->diff = pr_buf_detach(&d, NULL);
	return p;
}

static struct pr_version *series(int number, bool cover)
{
	struct pr_version *v = pr_version_new(number);

	pr_version_add_patch(v, patch("A U Thor", "a@example.org",
				      "net: first change", 1));
	pr_version_add_patch(v, patch("J\xc3\xb6rg Fremd", "jf@other.org",
				      "net: second change", 2));
	pr_version_add_patch(v, patch("A U Thor", "a@example.org",
				      "net: third change", 3));
	if (cover) {
		v->cover = pr_calloc(1, sizeof(*v->cover));
		v->cover->subject = pr_strdup("net: three changes");
		v->cover->body = pr_strdup("\nWhy these changes.\n\n");
	}
	return v;
}

/* The value of the first header `name` of mail (unfolded not needed). */
static void header(struct pr_buf *out, const char *mail, const char *name)
{
	const char *end = strstr(mail, "\n\n");
	const char *p = mail;
	size_t n = strlen(name);

	pr_buf_reset(out);
	while (p && p < end) {
		if (!strncmp(p, name, n) && p[n] == ':') {
			p += n + 2;
			pr_buf_add(out, p, strcspn(p, "\n"));
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

/*
 * Every header line is "Name: value" or a continuation, printable ASCII,
 * at most 998 bytes; returns how many header fields are named `bad`.
 */
static int count_fields(const char *mail, const char *bad)
{
	const char *end = strstr(mail, "\n\n");
	const char *p = mail;
	int nr = 0;

	assert_non_null(end);
	while (p < end) {
		size_t n = strcspn(p, "\n"), i;

		assert_true(n <= 998);
		for (i = 0; i < n; i++)
			assert_true((p[i] >= ' ' && p[i] < 127) ||
				    p[i] == '\t');
		if (p[0] != ' ' && p[0] != '\t') {
			size_t k = strcspn(p, ": \t\n");

			assert_true(k > 0 && p[k] == ':');
			if (k == strlen(bad) && !strncasecmp(p, bad, k))
				nr++;
		}
		p += n + 1;
	}
	return nr;
}

static void test_thread(void **state)
{
	struct pr_version *v = series(2, true);
	struct pr_series *s = pr_series_new("gh", "pr/1");
	struct pr_outgoing_rcpt rc;
	struct pr_outgoing o, again;
	struct pr_ident sender = { "Patch Relay", "relay@example.org" };
	struct pr_outgoing_opts opts = { 0 };
	struct pr_strlist cc = { 0 };
	struct pr_buf h = PR_BUF_INIT;
	size_t i;

	pr_recipient_list_add(&s->recipients, "Maint Ainer", "m@example.org",
			      PR_RCPT_TO, "maintainer:NET");
	pr_recipient_list_add(&s->recipients, "", "list@example.org",
			      PR_RCPT_CC, "open list:NET");
	pr_strlist_add(&cc, "Extra Person <extra@example.org>");
	pr_strlist_add(&cc, "M@EXAMPLE.ORG"); /* already in To: */
	assert_int_equal(pr_outgoing_recipients(&rc, s, NULL, &cc, false), 0);
	assert_int_equal(rc.to.nr, 1);
	assert_int_equal(rc.cc.nr, 2);
	opts.key = "0123456789abcdef0123-v2";
	opts.base_time = 1796300000;
	opts.sender = &sender;
	opts.rcpt = &rc;
	opts.prev_message_id = "0000-v1.0@example.org";
	opts.url = "https://github.com/example/net/pull/1";
	assert_int_equal(pr_outgoing_render(&o, v, &opts), 0);
	assert_int_equal(o.nr, 4);
	assert_string_equal(o.root_message_id,
			    "0123456789abcdef0123-v2.0@example.org");
	header(&h, o.mails[0], "Subject");
	assert_string_equal(h.ptr, "[PATCH v2 0/3] net: three changes");
	header(&h, o.mails[2], "Subject");
	assert_string_equal(h.ptr, "[PATCH v2 2/3] net: second change");
	header(&h, o.mails[1], "From");
	assert_string_equal(h.ptr, "Patch Relay <relay@example.org>");
	header(&h, o.mails[1], "To");
	assert_string_equal(h.ptr, "Maint Ainer <m@example.org>");
	header(&h, o.mails[1], "Cc");
	assert_string_equal(h.ptr, "list@example.org,");
	assert_non_null(strstr(o.mails[1], "Cc: list@example.org,\n\tExtra "
					   "Person <extra@example.org>\n"));
	header(&h, o.mails[3], "Date");
	assert_string_equal(h.ptr, "Thu, 3 Dec 2026 12:13:23 +0000");
	for (i = 0; i < o.nr; i++) {
		struct pr_buf want = PR_BUF_INIT;

		assert_int_equal(count_fields(o.mails[i], "Message-ID"), 1);
		pr_buf_addf(&want, "0123456789abcdef0123-v2.%zu@example.org",
			    i);
		header(&h, o.mails[i], "Message-ID");
		assert_true(h.len == want.len + 2 &&
			    !strncmp(h.ptr + 1, want.ptr, want.len));
		header(&h, o.mails[i], "In-Reply-To");
		if (i)
			assert_string_equal(
				h.ptr,
				"<0123456789abcdef0123-v2.0@example.org>");
		else
			assert_int_equal(h.len, 0);
		assert_null(strstr(o.mails[i], "\nFrom 0000"));
		pr_buf_release(&want);
	}
	/* the foreign author: in-body From, raw UTF-8, MIME headers */
	assert_non_null(strstr(o.mails[2], "\n\nFrom: J\xc3\xb6rg Fremd "
					   "<jf@other.org>\n\nSome words."));
	assert_non_null(strstr(o.mails[2], "Content-Transfer-Encoding: 8bit"));
	assert_non_null(strstr(o.mails[1], "\n\nFrom: A U Thor "
					   "<a@example.org>\n\nSome words."));
	/* the cover: its text, the links, the shortlog */
	assert_non_null(strstr(o.mails[0],
			       "\n\nWhy these changes.\n\n"
			       "Link to v1: <0000-v1.0@example.org>\n"
			       "Pull request: "
			       "https://github.com/example/net/pull/1\n\n"
			       "A U Thor (2):\n  net: first change\n"
			       "  net: third change\n\n"
			       "J\xc3\xb6rg Fremd (1):\n"
			       "  net: second change\n\n-- \n2.39.5\n"));
	assert_null(strstr(o.mails[0], "BLURB"));
	/* stable: the same inputs give the same bytes */
	assert_int_equal(pr_outgoing_render(&again, v, &opts), 0);
	for (i = 0; i < o.nr; i++)
		assert_memory_equal(o.mails[i], again.mails[i], o.lens[i]);
	pr_outgoing_release(&again);
	/* archive-url turns the link into the archive's */
	opts.archive_url = "https://lore.kernel.org/r/%m";
	assert_int_equal(pr_outgoing_render(&again, v, &opts), 0);
	assert_non_null(strstr(again.mails[0],
			       "Link to v1: https://lore.kernel.org/r/"
			       "0000-v1.0@example.org\n"));
	pr_outgoing_release(&again);
	pr_outgoing_release(&o);
	pr_outgoing_rcpt_release(&rc);
	pr_strlist_release(&cc);
	pr_series_free(s);
	pr_version_free(v);
	pr_buf_release(&h);
}

static void test_lone_patch(void **state)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_outgoing o;
	struct pr_outgoing_opts opts = { 0 };
	struct pr_buf h = PR_BUF_INIT;

	pr_version_add_patch(v,
			     patch("A U Thor", "a@example.org", "fix it", 1));
	opts.key = "k-v1";
	opts.base_time = 1796300000;
	opts.sender = &v->patches[0]->author;
	/* the sender's own patch has no in-body From */
	assert_int_equal(pr_outgoing_render(&o, v, &opts), 0);
	assert_null(strstr(o.mails[0], "\n\nFrom:"));
	pr_outgoing_release(&o);
	opts.sender = NULL;
	assert_int_equal(pr_outgoing_render(&o, v, &opts), 0);
	assert_int_equal(o.nr, 1);
	header(&h, o.mails[0], "Subject");
	assert_string_equal(h.ptr, "[PATCH] fix it");
	/* no sender: From is the author, the domain is the author's */
	header(&h, o.mails[0], "From");
	assert_string_equal(h.ptr, "A U Thor <a@example.org>");
	header(&h, o.mails[0], "Message-ID");
	assert_string_equal(h.ptr, "<k-v1.0@example.org>");
	assert_int_equal(count_fields(o.mails[0], "To"), 0);
	pr_outgoing_release(&o);
	pr_version_free(v);
	pr_buf_release(&h);
}

/* Render v with one hostile value; 0 when rendered, else the error. */
static int render_one(struct pr_version *v, struct pr_series *s,
		      const char *sink_cc, int *bcc)
{
	struct pr_outgoing_rcpt rc = { 0 };
	struct pr_outgoing o = { 0 };
	struct pr_outgoing_opts opts = { 0 };
	struct pr_strlist cc = { 0 };
	size_t i;
	int err;

	if (sink_cc)
		pr_strlist_add(&cc, sink_cc);
	err = pr_outgoing_recipients(&rc, s, NULL, &cc, false);
	opts.key = "k-v1";
	opts.base_time = 1796300000;
	opts.rcpt = &rc;
	if (!err)
		err = pr_outgoing_render(&o, v, &opts);
	*bcc = 0;
	for (i = 0; !err && i < o.nr; i++)
		*bcc += count_fields(o.mails[i], "Bcc");
	pr_outgoing_release(&o);
	pr_outgoing_rcpt_release(&rc);
	pr_strlist_release(&cc);
	return err;
}

static void test_injection(void **state)
{
	struct pr_version *v;
	struct pr_series *s;
	int bcc;

	/* a subject with CR LF is encoded: still one Subject, no Bcc */
	v = series(1, true);
	s = pr_series_new("gh", "pr/2");
	free(v->patches[0]->subject);
	v->patches[0]->subject = pr_strdup("evil\r\nBcc: victim@example.org");
	free(v->cover->subject);
	v->cover->subject = pr_strdup("cover\nBcc: victim@example.org");
	assert_int_equal(render_one(v, s, NULL, &bcc), 0);
	assert_int_equal(bcc, 0);
	/* a bare CR alone (git would not encode it) */
	free(v->patches[1]->subject);
	v->patches[1]->subject = pr_strdup("evil\rBcc: victim@example.org");
	assert_int_equal(render_one(v, s, NULL, &bcc), 0);
	assert_int_equal(bcc, 0);
	/* a recipient's display name with CR LF is encoded */
	pr_recipient_list_add(&s->recipients, "Name\r\nBcc: victim@example.org",
			      "n@example.org", PR_RCPT_TO, "x");
	assert_int_equal(render_one(v, s, NULL, &bcc), 0);
	assert_int_equal(bcc, 0);
	/* a name that is all specials and quotes is quoted */
	pr_recipient_list_add(&s->recipients, "Q \"x\" <y>, z@w",
			      "q@example.org", PR_RCPT_CC, "x");
	assert_int_equal(render_one(v, s, NULL, &bcc), 0);
	assert_int_equal(bcc, 0);
	/* an address with CR LF is refused, naming it */
	pr_recipient_list_add(&s->recipients, "",
			      "a@example.org>\r\nBcc: victim@example.org",
			      PR_RCPT_CC, "x");
	assert_int_equal(render_one(v, s, NULL, &bcc), PR_EINVAL);
	assert_non_null(strstr(pr_error_message(), "not a bare address"));
	pr_series_free(s);
	s = pr_series_new("gh", "pr/2");
	/* the sink's fixed cc, the same */
	assert_int_equal(render_one(v, s,
				    "x@example.org\nBcc: victim@example.org",
				    &bcc),
			 PR_EINVAL);
	/* an author name with LF cannot go raw into the in-body From */
	free(v->patches[1]->author.name);
	v->patches[1]->author.name = pr_strdup("J\nBcc: victim@example.org");
	assert_int_equal(render_one(v, s, NULL, &bcc), PR_EINVAL);
	assert_non_null(strstr(pr_error_message(), "control byte"));
	pr_version_free(v);
	/* a subject word too long to fold is encoded into short lines */
	v = series(1, false);
	free(v->patches[2]->subject);
	v->patches[2]->subject = pr_malloc(3001);
	memset(v->patches[2]->subject, 'x', 3000);
	v->patches[2]->subject[3000] = '\0';
	assert_int_equal(render_one(v, s, NULL, &bcc), 0);
	pr_version_free(v);
	pr_series_free(s);
}

static void test_recipients(void **state)
{
	struct pr_series *s = pr_series_new("gh", "pr/3");
	struct pr_outgoing_rcpt rc;
	struct pr_strlist to = { 0 };

	pr_ident_set(&s->submitter, "Sub Mitter", "sub@example.org");
	pr_recipient_list_add(&s->recipients, "", "c@example.org", PR_RCPT_CC,
			      "cc: in PR body");
	pr_recipient_list_add(&s->recipients, "", "t@example.org", PR_RCPT_TO,
			      "maintainer");
	pr_strlist_add(&to, "C@Example.Org");
	pr_strlist_add(&to, "list@example.org");
	assert_int_equal(pr_outgoing_recipients(&rc, s, &to, NULL, false), 0);
	/* To: first the series', then the sink's; c@ moved up, not repeated */
	assert_int_equal(rc.to.nr, 3);
	assert_string_equal(rc.to.items[0].email, "t@example.org");
	assert_string_equal(rc.to.items[1].email, "C@Example.Org");
	assert_int_equal(rc.cc.nr, 0);
	pr_outgoing_rcpt_release(&rc);
	/* a preview goes to the submitter alone */
	assert_int_equal(pr_outgoing_recipients(&rc, s, &to, NULL, true), 0);
	assert_int_equal(rc.to.nr, 1);
	assert_int_equal(rc.cc.nr, 0);
	assert_string_equal(rc.to.items[0].email, "sub@example.org");
	pr_outgoing_rcpt_release(&rc);
	pr_strlist_release(&to);
	pr_series_free(s);
}

static void test_helpers(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	struct pr_ident id = { NULL, NULL };

	assert_int_equal(pr_outgoing_message_id(&b, "abc-v2+preview", 3,
						"example.org"),
			 0);
	assert_string_equal(b.ptr, "abc-v2+preview.3@example.org");
	pr_buf_reset(&b);
	assert_int_equal(
		pr_outgoing_archive_link(&b, "https://x/r/%m?a=%%", "id@h"), 0);
	assert_string_equal(b.ptr, "https://x/r/id@h?a=%");
	assert_int_equal(pr_outgoing_parse_address(&id, "\"A, B\" <ab@x.org>"),
			 0);
	assert_string_equal(id.name, "A, B");
	assert_string_equal(id.email, "ab@x.org");
	pr_ident_release(&id);
	assert_int_equal(pr_outgoing_parse_address(&id, "a b@x.org"),
			 PR_EINVAL);
	assert_int_equal(pr_outgoing_parse_address(&id, "A <a@x.org> junk"),
			 PR_EINVAL);
	pr_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_lone_patch),
		cmocka_unit_test(test_injection),
		cmocka_unit_test(test_recipients),
		cmocka_unit_test(test_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
