#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include "mail/am.h"
#include "mail/assemble.h"
#include "mail/mailinfo.h"

struct mails {
	struct pr_patch *v[32];
	size_t nr;
};

/* Parse one mail given as text, the way cmd_am does. */
static struct pr_patch *mail(struct mails *m, const char *text)
{
	struct pr_mailinfo mi;
	struct pr_patch *p = NULL;

	pr_mailinfo_init(&mi);
	assert_int_equal(pr_mailinfo_parse(&mi, text, strlen(text)), 0);
	assert_int_equal(pr_am_patch_from_mailinfo(&p, &mi), 0);
	pr_mailinfo_release(&mi);
	m->v[m->nr++] = p;
	return p;
}

#define DIFF                   \
	"---\n"                \
	" f | 1 +\n"           \
	"diff --git a/f b/f\n" \
	"--- a/f\n"            \
	"+++ b/f\n"            \
	"@@ -1 +1,2 @@\n"      \
	" a\n"                 \
	"+b\n"

static void patch(struct mails *m, const char *id, int n, const char *body)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "From: A U Thor <a@example.org>\n"
		 "Subject: [PATCH %d/2] change %d\n"
		 "Date: Thu, 3 Dec 2026 10:00:0%d +0000\n"
		 "Message-Id: <%s>\n"
		 "In-Reply-To: <cover>\n"
		 "References: <cover>\n"
		 "\n%s" DIFF,
		 n, n, n, id, body);
	mail(m, text);
}

static void reply(struct mails *m, const char *from, const char *irt,
		  const char *refs, const char *body)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "From: %s\n"
		 "Subject: Re: [PATCH] change\n"
		 "Message-Id: <r%zu>\n"
		 "In-Reply-To: <%s>\n"
		 "References: %s\n"
		 "\n%s\n",
		 from, m->nr, irt, refs, body);
	mail(m, text);
}

static void series(struct mails *m)
{
	mail(m, "From: A U Thor <a@example.org>\n"
		"Subject: [PATCH 0/2] two changes\n"
		"Message-Id: <cover>\n"
		"\nThe cover.\n");
	patch(m, "p1", 1,
	      "Why 1.\n\nSigned-off-by: A U Thor <a@example.org>\n");
	patch(m, "p2", 2, "Why 2.\n");
}

struct run {
	struct pr_assembly a;
	const struct pr_asm_version *v;
	struct pr_trailer_list out[4];
};

static void collect(struct run *r, struct mails *m,
		    const struct pr_am_opts *opts)
{
	struct pr_patch *pat[32];
	size_t i, n = 0;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < m->nr; i++)
		if (!pr_am_is_reply(m->v[i]))
			pat[n++] = m->v[i];
	assert_int_equal(pr_assemble_mails(&r->a, pat, n), 0);
	assert_int_equal(r->a.nr, 1);
	r->v = pr_assemble_latest_complete(&r->a.series[0]);
	assert_non_null(r->v);
	assert_true(r->v->nr <= 4);
	assert_int_equal(pr_am_collect(r->out, r->v, m->v, m->nr, opts), 0);
}

static void release(struct run *r, struct mails *m)
{
	size_t i;

	for (i = 0; i < 4; i++)
		pr_trailer_list_release(&r->out[i]);
	pr_assemble_release(&r->a);
	for (i = 0; i < m->nr; i++)
		pr_patch_free(m->v[i]);
}

static void want(const struct pr_trailer_list *l, size_t i, const char *key,
		 const char *value)
{
	assert_true(i < l->nr);
	assert_string_equal(l->items[i].key, key);
	assert_string_equal(l->items[i].value, value);
}

static void test_is_reply(void **state)
{
	struct mails m = { 0 };
	size_t i;

	PR_UNUSED(state);
	series(&m);
	reply(&m, "R <r@example.org>", "p1", "<cover> <p1>", "ok");
	mail(&m, "From: R <r@example.org>\nSubject: no re\n"
		 "In-Reply-To: <p2>\n\nthanks\n");
	assert_false(pr_am_is_reply(m.v[0])); /* cover */
	assert_false(pr_am_is_reply(m.v[1]));
	assert_true(pr_am_is_reply(m.v[3]));
	assert_true(pr_am_is_reply(m.v[4]));
	for (i = 0; i < m.nr; i++)
		pr_patch_free(m.v[i]);
}

static void test_cover_and_patch(void **state)
{
	struct mails m = { 0 };
	struct run r;

	PR_UNUSED(state);
	series(&m);
	reply(&m, "Ack <ack@example.org>", "p2", "<cover> <p2>",
	      "Acked-by: Ack <ack@example.org>");
	reply(&m, "Rev <rev@example.org>", "cover", "<cover>",
	      "> Tested-by: Rev <rev@example.org>\n\n"
	      "Reviewed-by: Rev <rev@example.org>");
	/* a reply to the reply above still counts for the cover */
	reply(&m, "Tst <tst@example.org>", "r4", "<cover> <r4>",
	      "Tested-by: Tst <tst@example.org>");
	/* came last, but to the patch itself: before the cover's (b4) */
	reply(&m, "Ack <ack@example.org>", "p1", "<cover> <p1>",
	      "Acked-by: Ack <ack@example.org>");
	collect(&r, &m, NULL);
	assert_int_equal(r.out[0].nr, 3);
	want(&r.out[0], 0, "Acked-by", "Ack <ack@example.org>");
	want(&r.out[0], 1, "Reviewed-by", "Rev <rev@example.org>");
	want(&r.out[0], 2, "Tested-by", "Tst <tst@example.org>");
	assert_int_equal(r.out[1].nr, 3);
	want(&r.out[1], 0, "Acked-by", "Ack <ack@example.org>");
	want(&r.out[1], 1, "Reviewed-by", "Rev <rev@example.org>");
	want(&r.out[1], 2, "Tested-by", "Tst <tst@example.org>");
	release(&r, &m);
}

static void test_sender_and_trust(void **state)
{
	struct mails m = { 0 };
	const char *trusted[] = { "BOT@example.org" };
	struct pr_am_opts opts = { trusted, 1 };
	struct run r;

	PR_UNUSED(state);
	series(&m);
	reply(&m, "Bot <bot@example.org>", "p1", "<cover> <p1>",
	      "Acked-by: Someone <someone@example.org>\n"
	      "Fixes: 0123456789ab (\"old\")");
	reply(&m, "Eve <eve@example.org>", "p2", "<cover> <p2>",
	      "Acked-by: Boss <boss@example.org>\n"
	      "Reviewed-by: Eve <EVE@example.org>");
	collect(&r, &m, NULL);
	assert_int_equal(r.out[0].nr, 1);
	want(&r.out[0], 0, "Fixes", "0123456789ab (\"old\")");
	assert_int_equal(r.out[1].nr, 1);
	want(&r.out[1], 0, "Reviewed-by", "Eve <EVE@example.org>");
	release(&r, &m);

	memset(&m, 0, sizeof(m));
	series(&m);
	reply(&m, "Bot <bot@example.org>", "p1", "<cover> <p1>",
	      "Acked-by: Someone <someone@example.org>");
	collect(&r, &m, &opts);
	assert_int_equal(r.out[0].nr, 1);
	want(&r.out[0], 0, "Acked-by", "Someone <someone@example.org>");
	release(&r, &m);
}

static void test_no_duplicates(void **state)
{
	struct mails m = { 0 };
	struct run r;

	PR_UNUSED(state);
	series(&m);
	/* p1 already carries the author's sign-off */
	reply(&m, "A U Thor <a@example.org>", "p1", "<cover> <p1>",
	      "signed-off-by: A U Thor <a@example.org>");
	reply(&m, "Rev <rev@example.org>", "p2", "<cover> <p2>",
	      "Reviewed-by: Rev <rev@example.org>");
	/* the same in another case: key and value compared as b4 does */
	reply(&m, "Rev <rev@example.org>", "cover", "<cover>",
	      "reviewed-by: REV <rev@EXAMPLE.org>");
	collect(&r, &m, NULL);
	assert_int_equal(r.out[0].nr, 1);
	want(&r.out[0], 0, "reviewed-by", "REV <rev@EXAMPLE.org>");
	assert_int_equal(r.out[1].nr, 1);
	want(&r.out[1], 0, "Reviewed-by", "Rev <rev@example.org>");
	release(&r, &m);
}

static void test_other_version(void **state)
{
	struct mails m = { 0 };
	struct run r;

	PR_UNUSED(state);
	series(&m);
	reply(&m, "Rev <rev@example.org>", "old-v1-patch", "<old-v1-patch>",
	      "Reviewed-by: Rev <rev@example.org>");
	collect(&r, &m, NULL);
	assert_int_equal(r.out[0].nr, 0);
	assert_int_equal(r.out[1].nr, 0);
	release(&r, &m);
}

/* Cc: and URLs are not taken from replies, as b4 does not take them. */
static void test_not_taken(void **state)
{
	struct mails m = { 0 };
	struct run r;

	PR_UNUSED(state);
	series(&m);
	reply(&m, "Rev <rev@example.org>", "p1", "<cover> <p1>",
	      "Cc: Rev <rev@example.org>\n"
	      "Link: https://bugzilla.example.org/1\n"
	      "Link: http://example.org/2\n"
	      "Fixes: 0123456789ab (\"old\")\n"
	      "Reviewed-by: Rev <rev@example.org>");
	collect(&r, &m, NULL);
	assert_int_equal(r.out[0].nr, 2);
	want(&r.out[0], 0, "Fixes", "0123456789ab (\"old\")");
	want(&r.out[0], 1, "Reviewed-by", "Rev <rev@example.org>");
	release(&r, &m);
}

/* As b4 0.12 compares a trailer's address with the reply's sender. */
static void test_sender_fuzzy(void **state)
{
	struct mails m = { 0 };
	struct run r;

	PR_UNUSED(state);
	series(&m);
	/* a +extension, a domain one label deeper: the same address */
	reply(&m, "Rev <rev+lkml@example.org>", "p1", "<cover> <p1>",
	      "Reviewed-by: Rev <rev@example.org>");
	reply(&m, "Sd <sd@mail.example.org>", "p1", "<cover> <p1>",
	      "Tested-by: Sd <sd@example.org>");
	/* two labels deeper, another local part: not */
	reply(&m, "X <d@a.b.example.org>", "p1", "<cover> <p1>",
	      "Acked-by: Deep <d@example.org>");
	reply(&m, "Y <aa@example.org>", "p1", "<cover> <p1>",
	      "Acked-by: Bee <ab@example.org>");
	/* the same name from another address: not (b4 0.12 takes it) */
	reply(&m, "Jane Doe <jane@home.example>", "p2", "<cover> <p2>",
	      "Reviewed-by: jane doe <jane@corp.example>");
	reply(&m, "Doe, Jane <jd@home.example>", "p2", "<cover> <p2>",
	      "Tested-by: \"Doe, Jane\" <jd@corp.example>");
	/* only the name counts, not a name that contains it */
	reply(&m, "Jane <x@evil.example>", "p2", "<cover> <p2>",
	      "Acked-by: Janet <jane@corp.example>");
	collect(&r, &m, NULL);
	assert_int_equal(r.out[0].nr, 2);
	want(&r.out[0], 0, "Reviewed-by", "Rev <rev@example.org>");
	want(&r.out[0], 1, "Tested-by", "Sd <sd@example.org>");
	assert_int_equal(r.out[1].nr, 0);
	release(&r, &m);
}

#define DIFF_B                 \
	"---\n"                \
	" g | 1 +\n"           \
	"diff --git a/g b/g\n" \
	"--- a/g\n"            \
	"+++ b/g\n"            \
	"@@ -1 +1,2 @@\n"      \
	" a\n"                 \
	"+%s\n"

/* [PATCH vV n/2] with a diff adding line ADD to g, answering IRT. */
static void vpatch(struct mails *m, const char *id, int v, int n,
		   const char *irt, const char *add)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "From: A U Thor <a@example.org>\n"
		 "Subject: [PATCH v%d %d/2] change %d\n"
		 "Message-Id: <%s>\n"
		 "In-Reply-To: <%s>\n"
		 "References: <cover> <%s>\n"
		 "\nWhy %d.\n" DIFF_B,
		 v, n, n, id, irt, irt, n, add);
	mail(m, text);
}

/* b4 carries trailers over from another version of the same change. */
static void test_carry_over(void **state)
{
	struct mails m = { 0 };
	struct run r;

	PR_UNUSED(state);
	mail(&m, "From: A U Thor <a@example.org>\n"
		 "Subject: [PATCH 0/2] two changes\n"
		 "Message-Id: <cover>\n\nThe cover.\n");
	vpatch(&m, "p1", 1, 1, "cover", "b");
	vpatch(&m, "p2", 1, 2, "cover", "c");
	mail(&m, "From: A U Thor <a@example.org>\n"
		 "Subject: [PATCH v2 0/2] two changes\n"
		 "Message-Id: <cover2>\nIn-Reply-To: <cover>\n"
		 "References: <cover>\n\nThe cover, v2.\n");
	vpatch(&m, "q1", 2, 1, "cover2", "b"); /* the same as p1 */
	vpatch(&m, "q2", 2, 2, "cover2", "changed");
	reply(&m, "Old <old@example.org>", "p1", "<cover> <p1>",
	      "Reviewed-by: Old <old@example.org>");
	reply(&m, "Old <old@example.org>", "p2", "<cover> <p2>",
	      "Acked-by: Old <old@example.org>");
	reply(&m, "Cov <cov@example.org>", "cover2", "<cover> <cover2>",
	      "Acked-by: Cov <cov@example.org>");
	reply(&m, "New <new@example.org>", "q1", "<cover> <cover2> <q1>",
	      "Tested-by: New <new@example.org>");
	collect(&r, &m, NULL);
	assert_int_equal(r.v->number, 2);
	/* its own, then the carried one, then the cover's */
	assert_int_equal(r.out[0].nr, 3);
	want(&r.out[0], 0, "Tested-by", "New <new@example.org>");
	want(&r.out[0], 1, "Reviewed-by", "Old <old@example.org>");
	want(&r.out[0], 2, "Acked-by", "Cov <cov@example.org>");
	/* a changed patch keeps nothing from v1 */
	assert_int_equal(r.out[1].nr, 1);
	want(&r.out[1], 0, "Acked-by", "Cov <cov@example.org>");
	release(&r, &m);
}

/* A partial re-roll: v1's cover trailers go to the patches kept from v1. */
static void test_partial_reroll_cover(void **state)
{
	struct mails m = { 0 };
	struct run r;

	PR_UNUSED(state);
	mail(&m, "From: A U Thor <a@example.org>\n"
		 "Subject: [PATCH 0/2] two changes\n"
		 "Message-Id: <cover>\n\nThe cover.\n");
	vpatch(&m, "p1", 1, 1, "cover", "b");
	vpatch(&m, "p2", 1, 2, "cover", "c");
	vpatch(&m, "q2", 2, 2, "p2", "changed");
	reply(&m, "Rev <rev@example.org>", "cover", "<cover>",
	      "Reviewed-by: Rev <rev@example.org>");
	reply(&m, "Tst <tst@example.org>", "q2", "<cover> <p2> <q2>",
	      "Tested-by: Tst <tst@example.org>");
	collect(&r, &m, NULL);
	assert_int_equal(r.v->number, 2);
	assert_true(r.v->partial_reroll);
	assert_int_equal(r.out[0].nr, 1);
	want(&r.out[0], 0, "Reviewed-by", "Rev <rev@example.org>");
	assert_int_equal(r.out[1].nr, 1);
	want(&r.out[1], 0, "Tested-by", "Tst <tst@example.org>");
	release(&r, &m);
}

static void test_write(void **state)
{
	struct mails m = { 0 };
	struct pr_trailer_list extra = { 0 };
	struct pr_buf out = PR_BUF_INIT;
	size_t i;

	PR_UNUSED(state);
	series(&m);
	pr_trailer_list_add(&extra, "Acked-by", "Ack <ack@example.org>");
	assert_int_equal(pr_am_write_patch(&out, m.v[1], 1, 2, &extra), 0);
	assert_string_equal(
		out.ptr,
		"From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
		"From: A U Thor <a@example.org>\n"
		"Date: Thu, 3 Dec 2026 10:00:01 +0000\n"
		"Subject: [PATCH 1/2] change 1\n"
		"MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=UTF-8\n"
		"Content-Transfer-Encoding: 8bit\n"
		"\n"
		"Why 1.\n"
		"\n"
		"Signed-off-by: A U Thor <a@example.org>\n"
		"Acked-by: Ack <ack@example.org>\n" DIFF "\n");
	/* no trailer block yet: a new paragraph */
	pr_buf_reset(&out);
	assert_int_equal(pr_am_write_patch(&out, m.v[2], 2, 2, &extra), 0);
	assert_non_null(strstr(out.ptr,
			       "\n\nWhy 2.\n\n"
			       "Acked-by: Ack <ack@example.org>\n---\n"));
	/* nothing to add: the message is unchanged */
	pr_buf_reset(&out);
	assert_int_equal(pr_am_write_patch(&out, m.v[2], 2, 2, NULL), 0);
	assert_non_null(strstr(out.ptr, "\n\nWhy 2.\n---\n"));
	pr_buf_release(&out);
	pr_trailer_list_release(&extra);
	for (i = 0; i < m.nr; i++)
		pr_patch_free(m.v[i]);
}

static void test_write_headers(void **state)
{
	struct mails m = { 0 };
	struct pr_buf out = PR_BUF_INIT;
	struct pr_mailinfo mi;
	struct pr_patch *p;

	PR_UNUSED(state);
	p = mail(&m, "From: \"Doe, John \\\"JD\\\"\" <j@example.org>\n"
		     "Subject: [PATCH] one\n\nWhy.\n" DIFF);
	assert_string_equal(p->author.name, "Doe, John \"JD\"");
	assert_int_equal(pr_am_write_patch(&out, p, 1, 1, NULL), 0);
	assert_non_null(strstr(
		out.ptr, "\nFrom: \"Doe, John \\\"JD\\\"\" <j@example.org>\n"
			 "Subject: [PATCH 1/1] one\n"));
	/* the name reads back the same; no Date: when the mail had none */
	assert_null(strstr(out.ptr, "\nDate:"));
	pr_mailinfo_init(&mi);
	assert_int_equal(pr_mailinfo_parse(&mi, out.ptr, out.len), 0);
	assert_string_equal(mi.name, "Doe, John \"JD\"");
	assert_string_equal(mi.email, "j@example.org");
	assert_string_equal(mi.subject, "one");
	pr_mailinfo_release(&mi);
	/* a line break in a header value is refused, out is unchanged */
	free(p->subject);
	p->subject = pr_strdup("one\nBcc: x@example.org");
	pr_buf_reset(&out);
	assert_int_equal(pr_buf_adds(&out, "kept"), 0);
	assert_int_equal(pr_am_write_patch(&out, p, 1, 1, NULL), PR_EINVAL);
	assert_string_equal(out.ptr, "kept");
	pr_buf_release(&out);
	pr_patch_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_reply),
		cmocka_unit_test(test_cover_and_patch),
		cmocka_unit_test(test_sender_and_trust),
		cmocka_unit_test(test_no_duplicates),
		cmocka_unit_test(test_other_version),
		cmocka_unit_test(test_not_taken),
		cmocka_unit_test(test_sender_fuzzy),
		cmocka_unit_test(test_carry_over),
		cmocka_unit_test(test_partial_reroll_cover),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_write_headers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
