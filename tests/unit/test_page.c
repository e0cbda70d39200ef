#include "base/pr.h"

#include <jansson.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

#include "model/model.h"
#include "model/report.h"
#include "engine/store.h"
#include "engine/store_view.h"
#include "page.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/pr-page-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/state.db", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static const char *archive(const char *sink, void *payload)
{
	PR_UNUSED(payload);
	return !strcmp(sink, "list") ? "https://lore.example.org/r/%m" : NULL;
}

/*
 * Series 1: sent, a hostile title and a javascript: link; series 2:
 * refused; series 3: pending with a rejected message.
 */
static struct pr_store *fill(void)
{
	struct pr_store *st = NULL;
	struct pr_store_version v;
	struct pr_store_status status = { 0 };
	struct pr_report r = PR_REPORT_INIT;
	struct pr_recipient_list to = { 0 }, cc = { 0 };
	int64_t id;

	assert_int_equal(pr_store_open(&st, path), 0);
	assert_int_equal(pr_store_record_version(&v, st, "gh", "k/n#1", "f1",
						 NULL, 1, 0),
			 0);
	pr_report_add(&r, "lint", "subject", PR_VERDICT_WARN, 0,
		      "<b>bold</b> & \"quoted\"", "subject too <long>");
	status.title = "<script>alert('x')</script>";
	status.url = "javascript:alert(1)";
	status.submitter = "Eve <eve@example.org>";
	status.report = &r;
	assert_int_equal(pr_store_status_set(st, v.series_id, 1, &status), 0);
	assert_int_equal(
		pr_store_delivery_open(&id, st, v.series_id, 1, "list", 1), 0);
	assert_int_equal(pr_store_delivery_attempt(st, id, 0, NULL), 0);
	assert_int_equal(pr_store_delivery_mark_sent_as(st, id, 0, "a<b@x"), 0);
	pr_recipient_list_add(&to, "A <Person>", "a@example.org", PR_RCPT_TO,
			      "maintainer:X & Y");
	pr_recipient_list_add(&cc, "", "l@example.org", PR_RCPT_CC, "list");
	assert_int_equal(pr_store_recipients_set(st, v.series_id, 1, "list",
						 &to, &cc),
			 0);

	pr_report_release(&r);
	assert_int_equal(pr_store_record_version(&v, st, "gh", "k/n#2", "f2",
						 NULL, 2, 0),
			 0);
	pr_report_add(&r, "size", "files", PR_VERDICT_FAIL, -1, NULL,
		      "too many");
	status.title = "refused one";
	status.url = "https://github.example/k/n/pull/2";
	status.report = &r;
	assert_int_equal(pr_store_status_set(st, v.series_id, 1, &status), 0);

	assert_int_equal(pr_store_record_version(&v, st, "ml", "<c@x>", "f3",
						 NULL, 2, 0),
			 0);
	assert_int_equal(
		pr_store_delivery_open(&id, st, v.series_id, 1, "list", 2), 0);
	assert_int_equal(pr_store_delivery_mark_rejected(st, id, 0, "550"), 0);
	pr_report_release(&r);
	pr_recipient_list_release(&to);
	pr_recipient_list_release(&cc);
	return st;
}

static void test_html(void **state)
{
	struct pr_store *st = fill();
	struct pr_page *p = NULL;
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_page_load(&p, st, 0, 0), 0);
	assert_int_equal(pr_page_count(p), 3);
	assert_int_equal(pr_page_html(&b, p, archive, NULL), 0);
	/* nothing from the store reaches the page unescaped */
	assert_null(strstr(b.ptr, "<script"));
	assert_null(strstr(b.ptr, "<b>"));
	assert_null(strstr(b.ptr, "javascript:alert(1)\""));
	assert_non_null(strstr(
		b.ptr, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
	assert_non_null(strstr(b.ptr, "lint/subject (patch 1): subject too "
				      "&lt;long&gt;"));
	/* a javascript: URL is no link: the key shows as text */
	assert_non_null(strstr(b.ptr, "<td class=\"origin\">gh: k/n#1</td>"));
	assert_non_null(
		strstr(b.ptr, "href=\"https://github.example/k/n/pull/2\""));
	/* states, recipients, the list shows no details */
	assert_non_null(strstr(b.ptr, "<td class=\"state sent\">sent</td>"));
	assert_non_null(
		strstr(b.ptr, "<td class=\"state refused\">refused</td>"));
	assert_non_null(
		strstr(b.ptr, "<td class=\"state rejected\">rejected</td>"));
	assert_non_null(strstr(b.ptr, "A &lt;Person&gt; &lt;a@example.org&gt;"
				      " <span class=\"why\">(maintainer:X "
				      "&amp; Y)</span>"));
	assert_null(strstr(b.ptr, "<details>"));
	pr_page_free(p);

	/* one series: its Message-ID linked into the archive, escaped */
	pr_buf_reset(&b);
	assert_int_equal(pr_page_load(&p, st, 1, 0), 0);
	assert_int_equal(pr_page_count(p), 1);
	assert_int_equal(pr_page_html(&b, p, archive, NULL), 0);
	assert_non_null(strstr(b.ptr, "<a href=\"https://lore.example.org/r/"
				      "a&lt;b@x\" rel=\"noreferrer\">a&lt;b@x"
				      "</a>"));
	assert_non_null(strstr(b.ptr, "<details><summary>details</summary>"
				      "<pre>&lt;b&gt;bold&lt;/b&gt; &amp; "
				      "&quot;quoted&quot;</pre>"));
	assert_non_null(strstr(b.ptr, "(patch 1)"));
	assert_null(strstr(b.ptr, "<script"));
	pr_page_free(p);

	/* an unknown id: an empty page */
	assert_int_equal(pr_page_load(&p, st, 99, 0), 0);
	assert_int_equal(pr_page_count(p), 0);
	pr_page_free(p);
	pr_buf_release(&b);
	pr_store_free(st);
}

static void test_json(void **state)
{
	struct pr_store *st = fill();
	struct pr_page *p = NULL;
	struct pr_buf b = PR_BUF_INIT;
	json_error_t e;
	json_t *root, *s;

	assert_int_equal(pr_page_load(&p, st, 0, 0), 0);
	assert_int_equal(pr_page_json(&b, p, archive, NULL), 0);
	pr_page_free(p);
	root = json_loads(b.ptr, 0, &e);
	assert_non_null(root);
	assert_int_equal(json_array_size(json_object_get(root, "series")), 3);
	json_decref(root);

	pr_buf_reset(&b);
	assert_int_equal(pr_page_load(&p, st, 1, 0), 0);
	assert_int_equal(pr_page_json(&b, p, archive, NULL), 0);
	pr_page_free(p);
	s = json_loads(b.ptr, 0, &e);
	assert_non_null(s);
	assert_string_equal(json_string_value(json_object_get(s, "title")),
			    "<script>alert('x')</script>");
	/* a link that is not http(s) is not handed on */
	assert_true(json_is_null(json_object_get(s, "url")));
	assert_string_equal(json_string_value(json_object_get(s, "state")),
			    "sent");
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(
				json_object_get(
					json_array_get(json_object_get(
							       s, "deliveries"),
						       0),
					"mails"),
				0),
			"archive")),
		"https://lore.example.org/r/a<b@x");
	json_decref(s);
	pr_buf_release(&b);
	pr_store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_html, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
