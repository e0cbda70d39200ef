#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

#include "model/model.h"
#include "model/report.h"
#include "engine/store.h"
#include "engine/store_view.h"

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = pr_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pr-view-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/state.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static int series_line(const struct pr_store_series_view *s, void *payload)
{
	return pr_buf_addf(payload,
			   "%s:%s v%d title=%s url=%s by=%s verdict=%d "
			   "d=%d m=%d s=%d r=%d a=%d landed=%s\n",
			   s->origin, s->key, s->latest,
			   s->title ? s->title : "-", s->url ? s->url : "-",
			   s->submitter ? s->submitter : "-", s->verdict,
			   s->deliveries, s->messages, s->sent, s->rejected,
			   s->attempts,
			   s->landed_commit ? s->landed_commit : "-");
}

static int version_line(const struct pr_store_version_view *v, void *payload)
{
	return pr_buf_addf(payload, "v%d %s %d verdict=%d\n", v->number,
			   v->title ? v->title : "-", v->nr_patches,
			   v->verdict);
}

static int delivery_line(const struct pr_store_delivery_view *d, void *payload)
{
	return pr_buf_addf(payload, "v%d %s %d/%d r=%d a=%d err=%s\n",
			   d->version, d->sink, d->sent, d->nr_messages,
			   d->rejected, d->attempts,
			   d->last_error ? d->last_error : "-");
}

static int message_line(const struct pr_store_message_view *m, void *payload)
{
	return pr_buf_addf(payload, "%d st=%d a=%d id=%s\n", m->index,
			   m->status, m->attempts,
			   m->message_id ? m->message_id : "-");
}

static int rcpt_line(const struct pr_store_recipient_view *r, void *payload)
{
	return pr_buf_addf(payload, "%d %s <%s> (%s)\n", r->role,
			   r->name ? r->name : "", r->email,
			   r->reason ? r->reason : "-");
}

static int entry_line(const struct pr_report_entry *e, void *payload)
{
	return pr_buf_addf(payload, "%s/%s %d %d %s [%s]\n", e->step, e->rule,
			   e->verdict, e->patch, e->message,
			   e->detail ? e->detail : "-");
}

static int identity_line(const char *kind, const char *value, void *payload)
{
	return pr_buf_addf(payload, "%s=%s\n", kind, value);
}

static int count_one(const struct pr_store_series_view *s, void *payload)
{
	PR_UNUSED(s);
	(*(int *)payload)++;
	return 0;
}

/*
 * A version recorded under schema 6 has no status after the migration; a
 * recorded one shows its title, link, submitter, report, delivery counts
 * and recipients; a second record replaces the report and keeps a link the
 * record lacks.
 */
static void test_status_and_walks(void **state)
{
	struct fixture *f = *state;
	struct pr_store *st = NULL;
	struct pr_store_version old, v1, v2;
	struct pr_store_status status = { 0 };
	struct pr_report report = PR_REPORT_INIT;
	struct pr_recipient_list to = { 0 }, cc = { 0 };
	struct pr_buf b = PR_BUF_INIT;
	int64_t id, pending, rejected;
	int n = 0;

	assert_int_equal(pr_store_open_version(&st, f->path, 6), 0);
	assert_int_equal(pr_store_record_version(&old, st, "list", "old", "fo",
						 NULL, 1, 0),
			 0);
	pr_store_free(st);
	assert_int_equal(pr_store_open(&st, f->path), 0);
	assert_true(pr_store_schema_version(st) >= 7);

	assert_int_equal(pr_store_record_version(&v1, st, "gh", "k/n#1", "f1",
						 NULL, 2, 0),
			 0);
	pr_report_add(&report, "size", "max-files", PR_VERDICT_PASS, -1, NULL,
		      "3 files");
	pr_report_add(&report, "lint", "sob", PR_VERDICT_WARN, 1, "long",
		      "no <Signed-off-by>");
	status.title = "net: <script>alert(1)</script>";
	status.url = "https://github.com/k/n/pull/1";
	status.submitter = "Ada <ada@example.org>";
	status.report = &report;
	assert_int_equal(pr_store_status_set(st, v1.series_id, 1, &status), 0);
	/* recipients of a delivery that does not exist */
	assert_int_equal(pr_store_recipients_set(st, v1.series_id, 1, "list",
						 &to, &cc),
			 PR_ENOENT);
	assert_int_equal(
		pr_store_delivery_open(&id, st, v1.series_id, 1, "list", 3), 0);
	assert_int_equal(pr_store_delivery_attempt(st, id, 0, NULL), 0);
	assert_int_equal(pr_store_delivery_mark_sent_as(st, id, 0, "m0@x"), 0);
	assert_int_equal(pr_store_delivery_attempt(st, id, 1, NULL), 0);
	assert_int_equal(pr_store_delivery_mark_rejected(st, id, 1, "550 no"),
			 0);
	pr_recipient_list_add(&to, "Net Dev", "netdev@vger.example", PR_RCPT_TO,
			      "list:NETWORKING");
	pr_recipient_list_add(&cc, "", "ada@example.org", PR_RCPT_CC, "author");
	assert_int_equal(pr_store_recipients_set(st, v1.series_id, 1, "list",
						 &to, &cc),
			 0);
	/* again: replaced, not doubled */
	assert_int_equal(pr_store_recipients_set(st, v1.series_id, 1, "list",
						 &to, &cc),
			 0);
	assert_int_equal(pr_store_identity_add(st, v1.series_id, "patchwork",
					       "1234"),
			 0);

	assert_int_equal(pr_store_foreach_series(st, 0, 0, series_line, &b), 0);
	assert_string_equal(
		b.ptr,
		"gh:k/n#1 v1 title=net: <script>alert(1)</script> "
		"url=https://github.com/k/n/pull/1 by=Ada <ada@example.org> "
		"verdict=2 d=1 m=3 s=1 r=1 a=2 landed=-\n"
		"list:old v1 title=- url=- by=- verdict=-1 d=0 m=0 s=0 r=0 "
		"a=0 landed=-\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_store_foreach_delivery(st, v1.series_id,
						   delivery_line, &b),
			 0);
	assert_string_equal(b.ptr, "v1 list 1/3 r=1 a=2 err=550 no\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_store_foreach_message(st, id, message_line, &b), 0);
	assert_string_equal(b.ptr, "0 st=1 a=1 id=m0@x\n"
				   "1 st=2 a=1 id=-\n"
				   "2 st=0 a=0 id=-\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_store_foreach_recipient(st, id, rcpt_line, &b), 0);
	assert_string_equal(
		b.ptr, "0 Net Dev <netdev@vger.example> (list:NETWORKING)\n"
		       "1  <ada@example.org> (author)\n");
	pr_buf_reset(&b);
	assert_int_equal(
		pr_store_foreach_entry(st, v1.series_id, 1, entry_line, &b), 0);
	assert_string_equal(b.ptr, "size/max-files 1 -1 3 files [-]\n"
				   "lint/sob 2 1 no <Signed-off-by> [long]\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_store_foreach_identity(st, v1.series_id,
						   identity_line, &b),
			 0);
	assert_string_equal(b.ptr, "patchwork=1234\n");
	assert_int_equal(pr_store_count_messages(st, &pending, &rejected), 0);
	assert_int_equal(pending, 1);
	assert_int_equal(rejected, 1);

	/* v2: a new record with no link keeps the link; the report is its own */
	assert_int_equal(pr_store_record_version(&v2, st, "gh", "k/n#1", "f2",
						 NULL, 1, 0),
			 0);
	pr_report_release(&report);
	pr_report_add(&report, "size", "max-files", PR_VERDICT_FAIL, -1, NULL,
		      "300 files");
	status.title = "v2 title";
	status.url = NULL;
	assert_int_equal(pr_store_status_set(st, v2.series_id, 2, &status), 0);
	pr_buf_reset(&b);
	assert_int_equal(pr_store_foreach_series(st, v2.series_id, 0,
						 series_line, &b),
			 0);
	assert_string_equal(b.ptr,
			    "gh:k/n#1 v2 title=v2 title "
			    "url=https://github.com/k/n/pull/1 "
			    "by=Ada <ada@example.org> verdict=3 d=0 m=0 s=0 "
			    "r=0 a=0 landed=-\n");
	pr_buf_reset(&b);
	assert_int_equal(pr_store_foreach_version(st, v2.series_id,
						  version_line, &b),
			 0);
	assert_string_equal(b.ptr, "v2 v2 title 1 verdict=3\n"
				   "v1 net: <script>alert(1)</script> 2 "
				   "verdict=2\n");
	pr_buf_reset(&b);
	assert_int_equal(
		pr_store_foreach_entry(st, v1.series_id, 1, entry_line, &b), 0);
	assert_int_equal(b.len > 0, 1);
	/* a record of v1 again replaces its entries */
	assert_int_equal(pr_store_status_set(st, v1.series_id, 1, &status), 0);
	pr_buf_reset(&b);
	assert_int_equal(
		pr_store_foreach_entry(st, v1.series_id, 1, entry_line, &b), 0);
	assert_string_equal(b.ptr, "size/max-files 3 -1 300 files [-]\n");

	/* limit and an unknown id */
	assert_int_equal(pr_store_foreach_series(st, 0, 1, count_one, &n), 0);
	assert_int_equal(n, 1);
	n = 0;
	assert_int_equal(pr_store_foreach_series(st, 999, 0, count_one, &n), 0);
	assert_int_equal(n, 0);

	pr_buf_release(&b);
	pr_report_release(&report);
	pr_recipient_list_release(&to);
	pr_recipient_list_release(&cc);
	pr_store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_status_and_walks, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
