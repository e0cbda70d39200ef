#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "engine/cfg.h"
#include "forge.h"
#include "model/model.h"

/*
 * connectors/forge.c: the cursor's JSON round trip and its refusals, who
 * may trigger a send, and the Cc: lines of a PR body (with attempts to
 * smuggle headers in through CR and LF).
 */

static void test_cursor_round_trip(void **state)
{
	struct pr_forge_cursor c = { 0 }, d = { 0 };
	struct pr_forge_pr_state *p;
	struct pr_buf a = PR_BUF_INIT, b = PR_BUF_INIT;

	assert_int_equal(pr_forge_cursor_parse(&c, NULL), 0);
	assert_int_equal(c.nr_prs, 0);
	c.retry_at = 1999999999;
	c.self = pr_strdup("relay-bot");
	c.self_etag = pr_strdup("W/\"u1\"");
	p = pr_forge_cursor_pr(&c, "o/r#7", true);
	p->last_comment = 42;
	p->head = pr_strdup("0123456789abcdef0123456789abcdef01234567");
	p->etag = pr_strdup("W/\"c\\\"q\"");
	pr_strlist_add(&p->allowed, "newbie");
	pr_strlist_add(&p->told, "stranger");
	assert_ptr_equal(pr_forge_cursor_pr(&c, "o/r#7", false), p);
	assert_null(pr_forge_cursor_pr(&c, "o/r#8", false));
	pr_forge_cursor_pr(&c, "o/r#8", true);
	assert_int_equal(pr_forge_cursor_format(&a, &c), 0);
	assert_non_null(strstr(a.ptr, "\"v\":1"));

	assert_int_equal(pr_forge_cursor_parse(&d, a.ptr), 0);
	assert_int_equal(d.retry_at, 1999999999);
	assert_string_equal(d.self, "relay-bot");
	assert_int_equal(d.nr_prs, 2);
	p = pr_forge_cursor_pr(&d, "o/r#7", false);
	assert_non_null(p);
	assert_int_equal(p->last_comment, 42);
	assert_string_equal(p->etag, "W/\"c\\\"q\"");
	assert_int_equal(p->allowed.nr, 1);
	assert_string_equal(p->allowed.items[0], "newbie");
	assert_string_equal(p->told.items[0], "stranger");
	p = pr_forge_cursor_pr(&d, "o/r#8", false);
	assert_null(p->head);
	assert_int_equal(p->last_comment, 0);
	/* the same text again: a fixed order */
	assert_int_equal(pr_forge_cursor_format(&b, &d), 0);
	assert_string_equal(a.ptr, b.ptr);

	pr_forge_cursor_release(&c);
	pr_forge_cursor_release(&d);
	pr_buf_release(&a);
	pr_buf_release(&b);
}

static void test_cursor_bad(void **state)
{
	static const char *const bad[] = {
		"not json",
		"[]",
		"{}",
		"{\"v\":2}",
		"{\"v\":1,\"prs\":[]}",
		"{\"v\":1,\"prs\":{\"o/r#1\":5}}",
		"{\"v\":1,\"prs\":{\"o/r#1\":{\"c\":\"x\"}}}",
		"{\"v\":1,\"prs\":{\"o/r#1\":{\"allowed\":[1]}}}",
		"{\"v\":1,\"lists\":{\"o/r\":3}}",
		"{\"v\":1,",
		"a-git-fingerprint-0123456789abcdef",
	};
	struct pr_forge_cursor c;
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(bad); i++) {
		assert_int_equal(pr_forge_cursor_parse(&c, bad[i]), PR_EPARSE);
		assert_non_null(strstr(pr_error_message(), "cursor"));
		assert_int_equal(c.nr_prs, 0);
		assert_null(c.self);
	}
	/* unknown keys are fine */
	assert_int_equal(pr_forge_cursor_parse(&c, "{\"v\":1,\"later\":[1]}"),
			 0);
	pr_forge_cursor_release(&c);
}

static void test_may_trigger(void **state)
{
	struct pr_forge_opts o = { 0 };
	struct pr_forge_pr pr = { 0 };
	struct pr_strlist allowed = { 0 };

	pr.author = pr_strdup("Alice");
	pr_strlist_add(&o.allow, "trusted");
	pr_strlist_add(&o.maintainers, "maint");
	assert_true(pr_forge_may_trigger(&o, &pr, NULL, "alice"));
	assert_true(pr_forge_may_trigger(&o, &pr, NULL, "Alice"));
	assert_true(pr_forge_may_trigger(&o, &pr, NULL, "TRUSTED"));
	assert_false(pr_forge_may_trigger(&o, &pr, NULL, "stranger"));
	/* a maintainer may /allow, but is not allowed to submit by that */
	assert_false(pr_forge_may_trigger(&o, &pr, NULL, "maint"));
	assert_false(pr_forge_may_trigger(&o, &pr, NULL, ""));
	assert_false(pr_forge_may_trigger(&o, &pr, NULL, NULL));
	assert_false(pr_forge_may_trigger(&o, &pr, NULL, "alic"));
	pr_strlist_add(&allowed, "stranger");
	assert_true(pr_forge_may_trigger(&o, &pr, &allowed, "stranger"));
	assert_false(pr_forge_may_trigger(&o, &pr, &allowed, "other"));
	pr_strlist_release(&allowed);
	pr_strlist_release(&o.allow);
	pr_strlist_release(&o.maintainers);
	pr_forge_pr_release(&pr);
}

static void test_parse_cc(void **state)
{
	struct pr_recipient_list l = { 0 };
	char *rest = NULL;

	assert_int_equal(
		pr_forge_parse_cc(&l, &rest,
				  "Fixes the frobnicator.\r\n"
				  "\r\n"
				  "Cc: Dev One <one@example.org>\r\n"
				  "cc: two@example.org\n"
				  "CC:   Three <three@example.org>   \n"
				  "Cc: evil@example.org\rBcc: spy@example.org\n"
				  "Cc: a@example.org, b@example.org\n"
				  "Cc: x@example.org\nBcc: y@example.org\n"
				  "Cc: not an address\n"
				  "Cc: Bad <b\x01@example.org>\n"
				  "Cc: One Again <ONE@example.org>\n"
				  "Thanks"),
		0);
	assert_int_equal(l.nr, 4);
	assert_string_equal(l.items[0].email, "one@example.org");
	assert_string_equal(l.items[0].name, "Dev One");
	assert_int_equal(l.items[0].role, PR_RCPT_CC);
	assert_non_null(strstr(l.items[0].reason, "cc: in PR body"));
	assert_string_equal(l.items[1].email, "two@example.org");
	assert_string_equal(l.items[2].email, "three@example.org");
	assert_string_equal(l.items[2].name, "Three");
	/* the line after a LF is a line of its own, not a header */
	assert_string_equal(l.items[3].email, "x@example.org");
	assert_null(pr_recipient_list_find(&l, "spy@example.org"));
	assert_null(pr_recipient_list_find(&l, "evil@example.org"));
	assert_null(pr_recipient_list_find(&l, "y@example.org"));
	assert_null(pr_recipient_list_find(&l, "a@example.org"));
	/* the Cc: lines leave the body; the other lines stay */
	assert_string_equal(rest, "Fixes the frobnicator.\n\nBcc: "
				  "y@example.org\nThanks");
	free(rest);
	pr_recipient_list_release(&l);

	assert_int_equal(pr_forge_parse_cc(&l, &rest, NULL), 0);
	assert_string_equal(rest, "");
	assert_int_equal(l.nr, 0);
	free(rest);
}

/* A fake forge that records the calls feedback makes. */
struct calls {
	struct pr_buf log;
};

static struct calls *calls_of(struct pr_forge *f)
{
	return (struct calls *)f->inst->state;
}

static int fake_post(struct pr_forge *f, const char *repo, int64_t n,
		     const char *body, int64_t *id)
{
	if (id)
		*id = 1;
	return pr_buf_addf(&calls_of(f)->log, "comment %s %lld: %s\n", repo,
			   (long long)n, body);
}

static int fake_close(struct pr_forge *f, const char *repo, int64_t n)
{
	return pr_buf_addf(&calls_of(f)->log, "close %s %lld\n", repo,
			   (long long)n);
}

static int fake_label(struct pr_forge *f, const char *repo, int64_t n,
		      const char *label)
{
	return pr_buf_addf(&calls_of(f)->log, "label %s %lld %s\n", repo,
			   (long long)n, label);
}

static const struct pr_forge_ops fake_ops = {
	.name = "fake",
	.post_comment = fake_post,
	.close_pr = fake_close,
	.add_label = fake_label,
};

static void test_feedback(void **state)
{
	struct pr_forge_opts o = { 0 };
	struct calls c = { PR_BUF_INIT };
	struct pr_instance inst = { 0 };
	struct pr_report r = PR_REPORT_INIT;
	struct pr_series *s = pr_series_new("gh", "grp/sub/repo#12");
	struct pr_forge *f = NULL;

	inst.name = "gh";
	inst.ctx = &o;
	inst.state = &c;
	pr_strlist_add(&o.repo, "grp/sub/repo");
	o.close = pr_strdup("after-send");
	o.label_sent = pr_strdup("sent");
	o.label_refused = pr_strdup("refused");
	assert_int_equal(pr_forge_open(&f, &inst, &fake_ops), 0);

	pr_report_add(&r, "size", "max-files", PR_VERDICT_FAIL, -1, NULL,
		      "46294 files, over max-files 200");
	assert_int_equal(pr_forge_feedback(f, s, &r, NULL), 0);
	assert_non_null(strstr(c.log.ptr, "comment grp/sub/repo 12: "
					  "patchrelay did not send"));
	assert_non_null(strstr(c.log.ptr, "46294 files"));
	assert_non_null(strstr(c.log.ptr, "label grp/sub/repo 12 refused\n"));
	assert_null(strstr(c.log.ptr, "close"));

	pr_buf_reset(&c.log);
	assert_int_equal(
		pr_forge_feedback(f, s, &r, "sent as v1 to l@example.org"), 0);
	assert_string_equal(c.log.ptr, "comment grp/sub/repo 12: sent as v1 to "
				       "l@example.org\n"
				       "label grp/sub/repo 12 sent\n"
				       "close grp/sub/repo 12\n");

	/* a preview is reported, but neither labels nor closes the PR */
	pr_buf_reset(&c.log);
	f->emitting_preview = true;
	assert_int_equal(pr_forge_feedback(f, s, &r, "sent as v1 to a@b.org"),
			 0);
	assert_string_equal(c.log.ptr,
			    "comment grp/sub/repo 12: sent as v1 to a@b.org\n");
	f->emitting_preview = false;

	/* landed: after-send closed the PR already; no label-landed set */
	pr_buf_reset(&c.log);
	s->state = PR_SERIES_ACCEPTED;
	assert_int_equal(pr_forge_feedback(f, s, &r, "landed in main as abc"),
			 0);
	assert_string_equal(c.log.ptr,
			    "comment grp/sub/repo 12: landed in main as abc\n");

	/* close = on-merge: a send leaves the PR open, the landing closes */
	free(o.close);
	o.close = pr_strdup("on-merge");
	o.label_landed = pr_strdup("merged");
	pr_buf_reset(&c.log);
	s->state = PR_SERIES_SENT;
	assert_int_equal(pr_forge_feedback(f, s, &r, "sent as v2 to a@b.org"),
			 0);
	assert_string_equal(c.log.ptr,
			    "comment grp/sub/repo 12: sent as v2 to a@b.org\n"
			    "label grp/sub/repo 12 sent\n");
	pr_buf_reset(&c.log);
	s->state = PR_SERIES_ACCEPTED;
	assert_int_equal(pr_forge_feedback(f, s, &r, NULL), 0);
	assert_string_equal(c.log.ptr,
			    "comment grp/sub/repo 12: The commits of this pull "
			    "request landed.\n"
			    "label grp/sub/repo 12 merged\n"
			    "close grp/sub/repo 12\n");

	/* a key that is not a forge's */
	pr_series_free(s);
	s = pr_series_new("gh", "some-branch");
	pr_buf_reset(&c.log);
	assert_int_equal(pr_forge_feedback(f, s, &r, "x"), PR_EINVAL);
	assert_non_null(strstr(pr_error_message(), "some-branch"));
	assert_int_equal(c.log.len, 0);

	pr_forge_close(f);
	pr_series_free(s);
	pr_report_release(&r);
	pr_buf_release(&c.log);
	pr_strlist_release(&o.repo);
	free(o.close);
	free(o.label_sent);
	free(o.label_refused);
	free(o.label_landed);
}

static void test_open_checks(void **state)
{
	static const char *const bad[] = { "norepo", "/x", "o/", "o/r#1",
					   "o/ r" };
	struct pr_forge_opts o = { 0 };
	struct pr_instance inst = { 0 };
	struct pr_forge *f = NULL;
	size_t i;

	inst.name = "gh";
	inst.ctx = &o;
	for (i = 0; i < PR_ARRAY_SIZE(bad); i++) {
		pr_strlist_add(&o.repo, bad[i]);
		assert_int_equal(pr_forge_open(&f, &inst, &fake_ops),
				 PR_ECONFIG);
		assert_non_null(strstr(pr_error_message(), bad[i]));
		assert_null(f);
		pr_strlist_release(&o.repo);
	}
	pr_strlist_add(&o.repo, "o/r");
	o.trigger = pr_strdup("label");
	assert_int_equal(pr_forge_open(&f, &inst, &fake_ops), PR_ECONFIG);
	assert_non_null(strstr(pr_error_message(), "'label'"));
	o.label = pr_strdup("send-it");
	assert_int_equal(pr_forge_open(&f, &inst, &fake_ops), 0);
	assert_non_null(f);
	pr_forge_close(f);
	pr_strlist_release(&o.repo);
	free(o.trigger);
	free(o.label);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor_round_trip),
		cmocka_unit_test(test_cursor_bad),
		cmocka_unit_test(test_may_trigger),
		cmocka_unit_test(test_parse_cc),
		cmocka_unit_test(test_feedback),
		cmocka_unit_test(test_open_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
