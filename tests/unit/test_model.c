#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include "model/model.h"
#include "model/report.h"

static void test_recipients_dedupe(void **state)
{
	struct pr_recipient_list l = { 0 };

	assert_true(pr_recipient_list_add(&l, "", "netdev@vger.kernel.org",
					  PR_RCPT_CC, "list:NETWORKING"));
	assert_true(pr_recipient_list_add(&l, "A", "a@example.org", PR_RCPT_CC,
					  "reviewer:X"));
	assert_false(pr_recipient_list_add(&l, "A", "A@Example.org", PR_RCPT_TO,
					   "maintainer:Y"));
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.items[1].role, PR_RCPT_TO);
	assert_string_equal(l.items[1].reason, "reviewer:X, maintainer:Y");
	assert_non_null(pr_recipient_list_find(&l, "NETDEV@vger.kernel.org"));
	assert_null(pr_recipient_list_find(&l, "b@example.org"));
	pr_recipient_list_release(&l);
}

static void test_series_versions(void **state)
{
	struct pr_series *s = pr_series_new("net-gh", "example/net#12");
	struct pr_version *v1 = pr_version_new(1);
	struct pr_version *v2 = pr_version_new(2);
	struct pr_patch *p = pr_patch_new();

	assert_null(pr_series_latest(s));
	p->subject = pr_strdup("net: fix a thing");
	pr_trailer_list_add(&p->trailers, "Signed-off-by", "A <a@b>");
	assert_true(
		pr_trailer_list_has(&p->trailers, "signed-off-by", "A <a@b>"));
	pr_version_add_patch(v1, p);
	pr_series_add_version(s, v1);
	pr_series_add_version(s, v2);
	assert_ptr_equal(pr_series_latest(s), v2);
	assert_int_equal(s->versions[0]->nr, 1);
	pr_series_free(s);
	pr_series_free(NULL);
}

static void test_report_verdict(void **state)
{
	struct pr_report r = PR_REPORT_INIT;

	assert_int_equal(pr_report_verdict(&r), PR_VERDICT_SKIP);
	pr_report_add(&r, "size", "max-files", PR_VERDICT_WARN, -1, NULL,
		      "%d files changed (limit %d)", 300, 200);
	pr_report_add(&r, "lint", "signoff-missing", PR_VERDICT_FAIL, 0, NULL,
		      "no Signed-off-by");
	assert_int_equal(pr_report_verdict(&r), PR_VERDICT_FAIL);
	assert_string_equal(r.items[0].message,
			    "300 files changed (limit 200)");
	pr_report_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recipients_dedupe),
		cmocka_unit_test(test_series_versions),
		cmocka_unit_test(test_report_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
