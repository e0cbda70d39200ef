#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include "mail/mail.h"
#include "mailsrc.h"

/* ---- cursor text ---- */

static void test_cursor_round_trip(void **state)
{
	struct pr_mailsrc_cursor c = { "1700000001",
				       "00000000000000000007.a:b c", "-", 42 },
				 back;
	struct pr_buf b = PR_BUF_INIT;

	PR_UNUSED(state);
	assert_int_equal(pr_mailsrc_cursor_format(&b, &c), 0);
	/* ':' and ' ' are escaped, a lone "-" is not NULL */
	assert_string_equal(b.ptr, "mailsrc1 epoch=1700000001 "
				   "low=00000000000000000007.a%3Ab%20c "
				   "high=%2D time=42");
	assert_int_equal(pr_mailsrc_cursor_parse(&back, b.ptr), 0);
	assert_string_equal(back.epoch, "1700000001");
	assert_string_equal(back.low, "00000000000000000007.a:b c");
	assert_string_equal(back.high, "-");
	assert_int_equal(back.time, 42);
	pr_mailsrc_cursor_release(&back);
	pr_buf_release(&b);
}

static void test_cursor_nulls(void **state)
{
	struct pr_mailsrc_cursor c = { NULL, NULL, NULL, 0 }, back;
	struct pr_buf b = PR_BUF_INIT;

	PR_UNUSED(state);
	assert_int_equal(pr_mailsrc_cursor_format(&b, &c), 0);
	assert_string_equal(b.ptr, "mailsrc1 epoch= low=- high=- time=0");
	assert_int_equal(pr_mailsrc_cursor_parse(&back, b.ptr), 0);
	/* an empty epoch reads back as "", NULL positions as NULL */
	assert_string_equal(back.epoch, "");
	assert_null(back.low);
	assert_null(back.high);
	pr_mailsrc_cursor_release(&back);
	pr_buf_release(&b);
}

static void test_cursor_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"mailsrc2 epoch= low=- high=- time=0",
		"mailsrc1 epoch= low=- high=- time=",
		"mailsrc1 epoch= low=- high=- time=-1",
		"mailsrc1 epoch= low=- high=- time=1x",
		"mailsrc1 epoch= high=- low=- time=1",
		"mailsrc1 epoch= low=a:b high=- time=1",
		"mailsrc1 epoch= low=%4 high=- time=1",
		"mailsrc1 epoch= low=%zz high=- time=1",
		"mailsrc1 epoch= low=a%00b high=- time=1",
		"mailsrc1 epoch= low=- high=- time=1 ",
		"mailsrc1  epoch= low=- high=- time=1",
		"mailsrc1 epoch= low=- high=- time=99999999999999999999",
		"mailsrc1 epoch= low=- high=- time=1 seen",
		"mailsrc1 epoch= low=- high=- time=1 seen=a,,b",
		"mailsrc1 epoch= low=- high=- time=1 seen=a,",
		"mailsrc1 epoch= low=- high=- time=1 seen=,a",
		"mailsrc1 epoch= low=- high=- time=1 seen=a%00",
		"mailsrc1 epoch= low=- high=- time=1 seen=a b",
		"mailsrc1 epoch= low=- high=- time=1 other=a",
		"mailsrc1 epoch= low=- high=- time=1 seen= held=",
		"mailsrc1 epoch= low=- high=- time=1 held=a, seen=",
		"mailsrc1 epoch= low=- high=- time=1 held= seen= ",
	};
	struct pr_mailsrc_cursor c;
	size_t i;

	PR_UNUSED(state);
	for (i = 0; i < PR_ARRAY_SIZE(bad); i++) {
		c.epoch = (char *)"x";
		assert_int_equal(pr_mailsrc_cursor_parse(&c, bad[i]),
				 PR_EPARSE);
		assert_null(c.epoch);
		assert_null(c.low);
		assert_non_null(strstr(pr_error_message(), "cursor '"));
	}
}

static void test_cursor_seen(void **state)
{
	/* in the order parsing sorts them into */
	static const char *const names[] = { "-", "1796300000.M1P2.host,S=3",
					     "b:c" };
	struct pr_mailsrc_cursor c, back;
	struct pr_buf b = PR_BUF_INIT;
	size_t i;

	PR_UNUSED(state);
	memset(&c, 0, sizeof(c));
	c.high = (char *)"00000000001796300000.b";
	c.has_seen = true;
	assert_int_equal(pr_mailsrc_cursor_format(&b, &c), 0);
	/* no name yet: the field is there, empty */
	assert_string_equal(b.ptr, "mailsrc1 epoch= low=- "
				   "high=00000000001796300000.b time=0 seen=");
	assert_int_equal(pr_mailsrc_cursor_parse(&back, b.ptr), 0);
	assert_true(back.has_seen);
	assert_int_equal(back.seen.nr, 0);
	pr_mailsrc_cursor_release(&back);
	for (i = 0; i < PR_ARRAY_SIZE(names); i++)
		pr_strlist_add(&c.seen, names[i]);
	pr_buf_reset(&b);
	assert_int_equal(pr_mailsrc_cursor_format(&b, &c), 0);
	/* ',' and ':' escaped; a name "-" is a name */
	assert_non_null(strstr(b.ptr, " seen=-,1796300000.M1P2.host%2CS%3D3,"
				      "b%3Ac"));
	assert_int_equal(pr_mailsrc_cursor_parse(&back, b.ptr), 0);
	assert_int_equal(back.seen.nr, PR_ARRAY_SIZE(names));
	for (i = 0; i < PR_ARRAY_SIZE(names); i++)
		assert_string_equal(back.seen.items[i], names[i]);
	/* held before seen */
	pr_mailsrc_cursor_release(&back);
	c.has_held = true;
	pr_strlist_add(&c.held, "00000000001796300000.b");
	pr_buf_reset(&b);
	assert_int_equal(pr_mailsrc_cursor_format(&b, &c), 0);
	assert_non_null(
		strstr(b.ptr, " time=0 held=00000000001796300000.b seen=-,"));
	assert_int_equal(pr_mailsrc_cursor_parse(&back, b.ptr), 0);
	assert_true(back.has_held);
	assert_true(pr_mailsrc_list_has(&back.held, "00000000001796300000.b"));
	assert_false(pr_mailsrc_list_has(&back.held, "b"));
	assert_int_equal(back.seen.nr, PR_ARRAY_SIZE(names));
	pr_strlist_release(&c.held);
	/* a cursor without the fields (older, or not maildir) has none */
	pr_mailsrc_cursor_release(&back);
	assert_int_equal(pr_mailsrc_cursor_parse(&back, "mailsrc1 epoch= "
							"low=- high=- time=1"),
			 0);
	assert_false(back.has_seen);
	assert_false(back.has_held);
	pr_mailsrc_cursor_release(&back);
	pr_strlist_release(&c.seen);
	pr_buf_release(&b);
}

/* ---- dates ---- */

static void test_dates(void **state)
{
	int64_t t = 0;

	PR_UNUSED(state);
	assert_int_equal(
		pr_mail_parse_date(&t, "Tue, 10 Nov 2026 10:01:00 +0000"), 0);
	assert_int_equal(t, 1794304860);
	/* a zone east of UTC is earlier in UTC; no day name, no seconds */
	assert_int_equal(pr_mail_parse_date(&t, "10 Nov 2026 12:01 +0200"), 0);
	assert_int_equal(t, 1794304860);
	assert_int_equal(pr_mail_parse_date(&t, "1 Jan 1970 00:00:00 GMT"), 0);
	assert_int_equal(t, 0);
	/* a two-digit year after 1950 is 19xx */
	assert_int_equal(pr_mail_parse_date(&t, "29 Feb 96 23:59:59 -0100"), 0);
	assert_int_equal(t, 825641999);
	assert_int_equal(pr_mail_parse_date(&t, "tomorrow"), PR_EPARSE);
	assert_int_equal(pr_mail_parse_date(&t, "10 Foo 2026 10:00"),
			 PR_EPARSE);
	assert_int_equal(pr_mail_parse_date(&t, "10 Nov 2026 25:00"),
			 PR_EPARSE);
	assert_int_equal(pr_mail_parse_date(&t, NULL), PR_EPARSE);
}

/* ---- emitting ---- */

struct seen {
	struct pr_buf log; /* "kind key vN;" per event */
	char *cursor;
	size_t nr;
};

static int record(const struct pr_event *ev, void *payload)
{
	struct seen *s = payload;
	const struct pr_version *v = pr_series_latest(ev->series);
	static const char *const kinds[] = { "series", "version", "comment",
					     "state" };

	pr_buf_addf(&s->log, "%s %s v%d/%zu;", kinds[ev->kind],
		    ev->series->origin_key, v ? v->number : 0, v ? v->nr : 0);
	free(s->cursor);
	s->cursor = ev->cursor ? pr_strdup(ev->cursor) : NULL;
	s->nr++;
	return 0;
}

static void mail(struct pr_mailsrc_batch *b, const char *pos, const char *hdrs,
		 const char *body)
{
	struct pr_buf m = PR_BUF_INIT;

	pr_buf_addf(&m, "From: A U Thor <a@example.org>\n%s\n\n%s", hdrs, body);
	pr_mailsrc_batch_add(b, pos, m.ptr, m.len, 0);
	pr_buf_release(&m);
}

#define DIFF                                                      \
	"Body.\n\nSigned-off-by: A U Thor <a@example.org>\n---\n" \
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"

static void add_p1(struct pr_mailsrc_batch *b)
{
	mail(b, "01",
	     "Date: Tue, 10 Nov 2026 10:01:00 +0000\n"
	     "Subject: [PATCH 1/2] f: one\nMessage-ID: <p1@x>",
	     DIFF);
}

static void add_p2(struct pr_mailsrc_batch *b)
{
	mail(b, "03",
	     "Date: Tue, 10 Nov 2026 10:03:00 +0000\n"
	     "Subject: [PATCH 2/2] f: two\nMessage-ID: <p2@x>\n"
	     "In-Reply-To: <p1@x>\nReferences: <p1@x>",
	     DIFF);
}

static void add_reply(struct pr_mailsrc_batch *b)
{
	mail(b, "02",
	     "Date: Tue, 10 Nov 2026 10:02:00 +0000\n"
	     "Subject: Re: [PATCH 1/2] f: one\nMessage-ID: <r1@x>\n"
	     "In-Reply-To: <p1@x>\nReferences: <p1@x>",
	     "> Reviewed-by: Q <q@example.org>\n\nAcked-by: A U Thor "
	     "<a@example.org>\n");
}

/* One poll of b from `from` (NULL: the beginning) at time `now`. */
static void poll_once(struct seen *s, struct pr_mailsrc_batch *b,
		      const char *from, int64_t now, int64_t wait_ms)
{
	struct pr_mailsrc_cursor prev;
	struct pr_mailsrc_opts o = { "list", "test", wait_ms, NULL, now, NULL };

	pr_buf_reset(&s->log);
	free(s->cursor);
	s->cursor = NULL;
	s->nr = 0;
	if (from)
		assert_int_equal(pr_mailsrc_cursor_parse(&prev, from), 0);
	assert_int_equal(pr_mailsrc_emit(b, from ? &prev : NULL, &o, record, s),
			 0);
	if (from)
		pr_mailsrc_cursor_release(&prev);
}

static void test_emit_waits_then_once(void **state)
{
	struct pr_mailsrc_batch b = { NULL, 0, 0 };
	struct seen s = { PR_BUF_INIT, NULL, 0 };
	int64_t t0 = 1794304860; /* the Date of p1 */
	char *c1;

	PR_UNUSED(state);
	add_p1(&b);
	add_reply(&b);
	/* p2 is missing and the hour has not passed: only the reply */
	poll_once(&s, &b, NULL, t0 + 600, 3600000);
	assert_string_equal(s.log.ptr, "comment p1@x v1/1;");
	/* the cursor keeps p1 for the next poll, past the reply */
	assert_string_equal(s.cursor,
			    "mailsrc1 epoch= low=01 high=02 time=1794305460 "
			    "held=01");
	c1 = pr_strdup(s.cursor);

	/* the same mails again: nothing new, nothing emitted */
	poll_once(&s, &b, c1, t0 + 1200, 3600000);
	assert_int_equal(s.nr, 0);

	/* p2 arrives: the version, complete, and no second comment */
	add_p2(&b);
	poll_once(&s, &b, c1, t0 + 1800, 3600000);
	assert_string_equal(s.log.ptr, "series p1@x v1/2;");
	assert_string_equal(s.cursor,
			    "mailsrc1 epoch= low=03 high=03 time=1794306660 "
			    "held=");
	free(c1);
	pr_mailsrc_batch_release(&b);
	pr_buf_release(&s.log);
	free(s.cursor);
}

static void test_emit_incomplete_when_due(void **state)
{
	struct pr_mailsrc_batch b = { NULL, 0, 0 };
	struct seen s = { PR_BUF_INIT, NULL, 0 };
	int64_t t0 = 1794304860;
	char *c1, *c2;

	PR_UNUSED(state);
	add_p1(&b);
	poll_once(&s, &b, NULL, t0 + 60, 3600000);
	assert_int_equal(s.nr, 0); /* waits, and no cursor is stored */
	poll_once(&s, &b, NULL, t0 + 3600, 3600000);
	assert_string_equal(s.log.ptr, "series p1@x v1/1;");
	c1 = pr_strdup(s.cursor);
	/* emitted once: due at the poll that emitted it */
	poll_once(&s, &b, c1, t0 + 7200, 3600000);
	assert_int_equal(s.nr, 0);
	/* the missing patch makes it a complete version, emitted again */
	add_p2(&b);
	poll_once(&s, &b, c1, t0 + 7300, 3600000);
	assert_string_equal(s.log.ptr, "series p1@x v1/2;");
	c2 = pr_strdup(s.cursor);
	poll_once(&s, &b, c2, t0 + 7400, 3600000);
	assert_int_equal(s.nr, 0);
	free(c1);
	free(c2);
	pr_mailsrc_batch_release(&b);
	pr_buf_release(&s.log);
	free(s.cursor);
}

static void test_emit_fragment_not_again(void **state)
{
	struct pr_mailsrc_batch b = { NULL, 0, 0 }, tail = { NULL, 0, 0 };
	struct seen s = { PR_BUF_INIT, NULL, 0 };
	int64_t t0 = 1794304860;
	char *c1;

	PR_UNUSED(state);
	add_p1(&b);
	add_p2(&b);
	poll_once(&s, &b, NULL, t0 + 200, 3600000);
	assert_string_equal(s.log.ptr, "series p1@x v1/2;");
	c1 = pr_strdup(s.cursor);
	/* the next polls re-read from the cursor's low: p2 alone, a part of
	 * the version emitted whole; not held, not emitted again when due */
	add_p2(&tail);
	poll_once(&s, &tail, c1, t0 + 300, 3600000);
	assert_int_equal(s.nr, 0);
	poll_once(&s, &tail, c1, t0 + 4000, 3600000);
	assert_int_equal(s.nr, 0);
	free(c1);
	pr_mailsrc_batch_release(&b);
	pr_mailsrc_batch_release(&tail);
	pr_buf_release(&s.log);
	free(s.cursor);
}

static void test_emit_epoch_and_junk(void **state)
{
	struct pr_mailsrc_batch b = { NULL, 0, 0 };
	struct seen s = { PR_BUF_INIT, NULL, 0 };
	struct pr_mailsrc_opts o = { "list", "test", 0, NULL, 5, "77" };

	PR_UNUSED(state);
	pr_mailsrc_batch_add(&b, "00", "\0\0\0", 3, 0);
	add_p1(&b);
	add_p2(&b);
	assert_int_equal(pr_mailsrc_emit(&b, NULL, &o, record, &s), 0);
	assert_string_equal(s.log.ptr, "series p1@x v1/2;");
	assert_string_equal(s.cursor,
			    "mailsrc1 epoch=77 low=03 high=03 time=5 held=");
	pr_mailsrc_batch_release(&b);
	pr_buf_release(&s.log);
	free(s.cursor);
}

/* "kind key vN/M [cursor];" per event */
static int record_cursor(const struct pr_event *ev, void *payload)
{
	struct seen *s = payload;

	record(ev, payload);
	pr_buf_addf(&s->log, "[%s];", ev->cursor ? ev->cursor : "");
	return 0;
}

/* b's messages in parts of one, from `from` (NULL: the beginning). */
static void poll_parts(struct seen *s, const struct pr_mailsrc_batch *b,
		       const char *from, int64_t now, int64_t wait_ms)
{
	struct pr_mailsrc_opts o = { "list", "test", wait_ms, NULL, now, NULL };
	struct pr_mailsrc_cursor prev;
	struct pr_mailsrc_parts p;
	size_t i;

	pr_buf_reset(&s->log);
	if (from)
		assert_int_equal(pr_mailsrc_cursor_parse(&prev, from), 0);
	setenv("PATCHRELAY_MAIL_PART", "1", 1);
	assert_int_equal(pr_mailsrc_parts_init(&p, from ? &prev : NULL), 0);
	unsetenv("PATCHRELAY_MAIL_PART");
	for (i = 0; i < b->nr; i++) {
		pr_mailsrc_parts_add(&p, b->v[i].pos, b->v[i].data, b->v[i].len,
				     0);
		assert_true(pr_mailsrc_parts_full(&p));
		assert_int_equal(pr_mailsrc_parts_emit(&p, i + 1 == b->nr, &o,
						       record_cursor, s),
				 0);
	}
	pr_mailsrc_parts_release(&p);
	if (from)
		pr_mailsrc_cursor_release(&prev);
}

static void test_parts(void **state)
{
	struct pr_mailsrc_batch b = { NULL, 0, 0 };
	struct seen s = { PR_BUF_INIT, NULL, 0 };

	PR_UNUSED(state);
	add_p1(&b);
	add_reply(&b);
	add_p2(&b);
	/*
	 * Parts of one mail, wait 0: p1 is due but waits for the next part,
	 * carried into the one with the reply (which answers it: a comment
	 * on v1, its cursor holding p1) and into the one with p2.
	 */
	poll_parts(&s, &b, NULL, 5, 0);
	assert_string_equal(
		s.log.ptr,
		"comment p1@x v1/1;[mailsrc1 epoch= low=01 high=02 time=5 "
		"held=01];series p1@x v1/2;[mailsrc1 epoch= low=03 high=03 "
		"time=5 held=];");
	/*
	 * A cursor that held p1 and p2 (and saw the reply): p2, after the
	 * first parts, stays held in their cursors, so the last part emits
	 * the version; the reply was seen.
	 */
	poll_parts(&s, &b, "mailsrc1 epoch= low=01 high=03 time=4 held=01,03",
		   5, 0);
	assert_string_equal(s.log.ptr,
			    "series p1@x v1/2;[mailsrc1 epoch= low=03 "
			    "high=03 time=5 held=];");
	pr_mailsrc_batch_release(&b);
	pr_buf_release(&s.log);
	free(s.cursor);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor_round_trip),
		cmocka_unit_test(test_cursor_nulls),
		cmocka_unit_test(test_cursor_refused),
		cmocka_unit_test(test_cursor_seen),
		cmocka_unit_test(test_dates),
		cmocka_unit_test(test_emit_waits_then_once),
		cmocka_unit_test(test_emit_incomplete_when_due),
		cmocka_unit_test(test_emit_fragment_not_again),
		cmocka_unit_test(test_emit_epoch_and_junk),
		cmocka_unit_test(test_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
