#include "base/pr.h"
#include "engine/cfg.h"
#include "mail/outgoing.h"

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

/* The raw field `name` of mail, continuation lines included. */
static void field(struct pr_buf *out, const char *mail, const char *name)
{
	const char *end = strstr(mail, "\n\n"), *p = mail, *e;
	size_t n = strlen(name);

	pr_buf_reset(out);
	for (; p && p < end; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ':')
			break;
	if (!p || p >= end)
		return;
	for (e = strchr(p, '\n'); e < end && (e[1] == ' ' || e[1] == '\t');
	     e = strchr(e + 1, '\n'))
		;
	pr_buf_add(out, p, (size_t)(e - p));
}

/* Mail 0 of a lone patch sent from `from` to the sink's to and cc. */
static void render_to(struct pr_buf *head, const char *from,
		      const char *const *to, const char *const *cc)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_series *s = pr_series_new("gh", "pr/9");
	struct pr_strlist tl = { 0 }, cl = { 0 };
	struct pr_outgoing_rcpt rc;
	struct pr_outgoing_opts opts = { 0 };
	struct pr_ident sender = { NULL, NULL };
	struct pr_outgoing o;
	const char *p;
	size_t n;

	pr_version_add_patch(v,
			     patch("A U Thor", "a@example.org", "fix it", 1));
	for (; to && *to; to++)
		pr_strlist_add(&tl, *to);
	for (; cc && *cc; cc++)
		pr_strlist_add(&cl, *cc);
	assert_int_equal(pr_outgoing_parse_address(&sender, from), 0);
	assert_int_equal(pr_outgoing_recipients(&rc, s, &tl, &cl, false), 0);
	opts.key = "k-v1";
	opts.base_time = 1796300000;
	opts.sender = &sender;
	opts.rcpt = &rc;
	assert_int_equal(pr_outgoing_render(&o, v, &opts), 0);
	n = (size_t)(strstr(o.mails[0], "\n\n") - o.mails[0]);
	pr_buf_reset(head);
	pr_buf_add(head, o.mails[0], n + 2);
	/* RFC 5322's 78 columns hold for every header line here */
	for (p = head->ptr; *p; p += strcspn(p, "\n") + 1)
		assert_true(strcspn(p, "\n") <= 78);
	pr_outgoing_release(&o);
	pr_outgoing_rcpt_release(&rc);
	pr_strlist_release(&tl);
	pr_strlist_release(&cl);
	pr_ident_release(&sender);
	pr_series_free(s);
	pr_version_free(v);
}

/*
 * Names as git send-email writes them (sanitize_address), and folded
 * where git's single line would pass 78 columns;
 * tests/integration/smtp_vs_send_email.sh compares with git itself.
 */
static void test_names(void **state)
{
	static const char *const to[] = {
		"J\xc3\xb6rg M\xc3\xbcller <jm@example.org>",
		"\"Doe, Jane\" <jane@example.org>",
		"\"Jane \\\"JJ\\\" Doe\" <jj@example.org>",
		"\"Back\\\\slash\" <bs@example.org>",
		"=?UTF-8?q?J=C3=B6rg?= <enc@example.org>",
		"\"A Quite Long Plain ASCII Display Name That Will Not Fit On "
		"One Header Line, Jr.\" <long@example.org>",
		NULL,
	};
	static const char *const cc[] = {
		"first@example.org",
		"\xc3\x96g\xc3\xbct Abcdefghijklmnopqrstuvwxyzabc "
		"<x78@example.org>",
		"\xc3\x96g\xc3\xbct Abcdefghijklmnopqrstuvwxyzabcd "
		"<x79@example.org>",
		"jane@example.org",
		"\"Z\xc3\xb6\xc3\xab \xc3\x85ngstr\xc3\xb6m-\xc5\x81ukasiewicz van "
		"der Berg-Papadopoulou, Ph.D.\" <zoe@example.org>",
		NULL,
	};
	struct pr_buf head = PR_BUF_INIT, f = PR_BUF_INIT;

	render_to(&head, "P\xc3\xa4tch R\xc3\xablay <relay@example.org>", to,
		  cc);
	field(&f, head.ptr, "From");
	assert_string_equal(f.ptr, "From: =?UTF-8?q?P=C3=A4tch=20R=C3=ABlay?= "
				   "<relay@example.org>");
	field(&f, head.ptr, "To");
	assert_string_equal(
		f.ptr,
		"To: =?UTF-8?q?J=C3=B6rg=20M=C3=BCller?= <jm@example.org>,\n"
		"\t\"Doe, Jane\" <jane@example.org>,\n"
		"\t\"Jane \\\"JJ\\\" Doe\" <jj@example.org>,\n"
		"\t\"Back\\\\slash\" <bs@example.org>,\n"
		"\t=?UTF-8?q?J=C3=B6rg?= <enc@example.org>,\n"
		"\t\"A Quite Long Plain ASCII Display Name That Will Not Fit "
		"On One Header Line,\n"
		" Jr.\" <long@example.org>");
	/* 78 columns exactly: one line, as git; 79: folded */
	field(&f, head.ptr, "Cc");
	assert_string_equal(
		f.ptr,
		"Cc: first@example.org,\n"
		"\t=?UTF-8?q?=C3=96g=C3=BCt=20Abcdefghijklmnopqrstuvwxyzabc?= "
		"<x78@example.org>,\n"
		"\t=?UTF-8?q?=C3=96g=C3=BCt=20Abcdefghijklmnopqrstuvwxyzabcd?=\n"
		" <x79@example.org>,\n"
		"\t=?UTF-8?q?Z=C3=B6=C3=AB=20=C3=85ngstr=C3=B6m-=C5=81ukasiewicz"
		"=20van=20der?=\n"
		" =?UTF-8?q?=20Berg-Papadopoulou=2C=20Ph=2ED=2E?= "
		"<zoe@example.org>");
	/* a sender too long for one line */
	render_to(&head,
		  "\"Ein sehr langer Absendername mit \xc3\x9cmlauten, der "
		  "nicht in eine Zeile passt\" <relay@example.org>",
		  to + 5, NULL);
	field(&f, head.ptr, "From");
	assert_string_equal(f.ptr,
			    "From: =?UTF-8?q?Ein=20sehr=20langer=20Absendername"
			    "=20mit=20=C3=9Cmlauten?=\n"
			    " =?UTF-8?q?=2C=20der=20nicht=20in=20eine=20Zeile="
			    "20passt?= <relay@example.org>");
	pr_buf_release(&head);
	pr_buf_release(&f);
}

/* The in-body From line as git send-email writes it (and where not). */
static void test_in_body_from(void **state)
{
	static const struct {
		const char *author, *line;
	} cases[] = {
		{ "Ada Lovelace", "From: Ada Lovelace <x@example.org>\n\n" },
		/* git: the patch's From: header, quotes kept */
		{ "Doe, Jane (JD)",
		  "From: \"Doe, Jane (JD)\" <x@example.org>\n\n" },
		/* git: RFC 2047 decoded, raw */
		{ "J\xc3\xb6rg M\xc3\xbcller, Jr",
		  "From: J\xc3\xb6rg M\xc3\xbcller, Jr <x@example.org>\n\n" },
		/* not git: raw, git am would drop the quotes */
		{ "J\xc3\xb6rg \"JJ\" M\xc3\xbcller",
		  "From: \"J\xc3\xb6rg \\\"JJ\\\" M\xc3\xbcller\" "
		  "<x@example.org>\n\n" },
	};
	struct pr_ident sender = { NULL, NULL };
	size_t i;

	pr_ident_set(&sender, "Bot", "bot@example.org");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pr_version *v = pr_version_new(1);
		struct pr_outgoing_opts opts = { 0 };
		struct pr_outgoing o;
		const char *body;

		pr_version_add_patch(v, patch(cases[i].author, "x@example.org",
					      "fix it", 1));
		opts.key = "k-v1";
		opts.sender = &sender;
		assert_int_equal(pr_outgoing_render(&o, v, &opts), 0);
		body = strstr(o.mails[0], "\n\n");
		assert_non_null(body);
		assert_true(!strncmp(body + 2, cases[i].line,
				     strlen(cases[i].line)));
		pr_outgoing_release(&o);
		pr_version_free(v);
	}
	pr_ident_release(&sender);
}

static void test_parse_names(void **state)
{
	static const struct {
		const char *in, *name, *email;
	} ok[] = {
		{ "\"Jane \\\"JJ\\\" Doe\" <jj@x.org>", "Jane \"JJ\" Doe",
		  "jj@x.org" },
		{ "\"Back\\\\slash\" <b@x.org>", "Back\\slash", "b@x.org" },
		/* quotes in a phrase are syntax, as for git */
		{ "Jane \"JJ\" Doe <j@x.org>", "Jane JJ Doe", "j@x.org" },
		{ "=?UTF-8?q?J=C3=B6rg?= <e@x.org>", "J\xc3\xb6rg", "e@x.org" },
		/* no encoded words inside a quoted string (RFC 2047 5) */
		{ "\"=?UTF-8?q?J=C3=B6rg?=\" <e@x.org>",
		  "=?UTF-8?q?J=C3=B6rg?=", "e@x.org" },
		{ "\"a <b@c>\" <c@x.org>", "a <b@c>", "c@x.org" },
		{ "Ada (kernel) Lovelace <a@x.org>", "Ada (kernel) Lovelace",
		  "a@x.org" },
		{ "<bare@x.org>", NULL, "bare@x.org" },
	};
	struct pr_ident id = { NULL, NULL };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(pr_outgoing_parse_address(&id, ok[i].in), 0);
		if (ok[i].name)
			assert_string_equal(id.name, ok[i].name);
		else
			assert_true(!id.name || !*id.name);
		assert_string_equal(id.email, ok[i].email);
		pr_ident_release(&id);
	}
	/* a decoded CR LF would be an injection: refused, naming it */
	assert_int_equal(pr_outgoing_parse_address(
				 &id,
				 "=?UTF-8?q?a=0D=0ABcc:_v@x.org?= <e@x.org>"),
			 PR_EINVAL);
	assert_non_null(strstr(pr_error_message(), "control byte"));
	assert_int_equal(pr_outgoing_parse_address(&id, "\"open <o@x.org>"),
			 PR_EINVAL);
	assert_int_equal(pr_outgoing_parse_address(&id, "\"a\" \"b <o@x.org>"),
			 PR_EINVAL);
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

/* A mirrored review: threaded under its patch, names encoded, once. */
static void test_reply(void **state)
{
	struct pr_ident from = { "Zo\xc3\xab Reviewer", "relay@example.org" };
	struct pr_ident bad = { "Eve\r\nBcc: x@y", "relay@example.org" };
	struct pr_outgoing_rcpt rcpt = { 0 };
	struct pr_outgoing_reply r = { 0 };
	struct pr_buf b = PR_BUF_INIT;

	(void)state;
	pr_recipient_list_add(&rcpt.to, "List", "list@example.org", PR_RCPT_TO,
			      "");
	r.message_id = "abc-v2.0@example.org";
	r.time = 1796299200;
	r.from = &from;
	r.rcpt = &rcpt;
	r.subject = "Re: [PATCH v2 2/3] net: add dev2";
	r.in_reply_to = "k-v2.2@example.org";
	r.refs = "k-v2.0@example.org";
	r.body = "Patch Set 2: Code-Review+1\n\nd\xc3\xa9j\xc3\xa0 vu";
	assert_int_equal(pr_outgoing_reply(&b, &r), 0);
	assert_string_equal(
		b.ptr,
		"From: =?UTF-8?q?Zo=C3=AB=20Reviewer?= <relay@example.org>\n"
		"To: List <list@example.org>\n"
		"Subject: Re: [PATCH v2 2/3] net: add dev2\n"
		"Date: Thu, 3 Dec 2026 12:00:00 +0000\n"
		"Message-ID: <abc-v2.0@example.org>\n"
		"In-Reply-To: <k-v2.2@example.org>\n"
		"References:\n <k-v2.0@example.org>\n"
		" <k-v2.2@example.org>\n"
		"MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=UTF-8\n"
		"Content-Transfer-Encoding: 8bit\n"
		"\n"
		"Patch Set 2: Code-Review+1\n\nd\xc3\xa9j\xc3\xa0 vu\n");
	/* a name cannot break out of its header */
	pr_buf_reset(&b);
	r.from = &bad;
	assert_int_equal(pr_outgoing_reply(&b, &r), PR_EINVAL);
	assert_int_equal(b.len, 0);
	pr_outgoing_rcpt_release(&rcpt);
	pr_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_lone_patch),
		cmocka_unit_test(test_injection),
		cmocka_unit_test(test_recipients),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_parse_names),
		cmocka_unit_test(test_in_body_from),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
