#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <time.h>
#include "checks.h"

static struct pr_version *two_patches(void)
{
	struct pr_version *v = pr_version_new(1);
	int i;

	for (i = 0; i < 2; i++) {
		struct pr_patch *p = pr_patch_new();

		pr_ident_set(&p->author, "A U Thor", "a@example.org");
		p->subject = pr_strdup(i ? "net: second" : "net: first");
		p->body = pr_strdup(
			"Text.\n\nSigned-off-by: A <a@example.org>\n");
		p->diff = pr_strdup("diff --git a/x b/x\n--- a/x\n+++ b/x\n"
				    "@@ -1 +1 @@\n-a\n+b\n");
		pr_version_add_patch(v, p);
	}
	return v;
}

static void run(struct pr_report *r, const char *const *argv, bool per_patch,
		int64_t timeout_ms, size_t cap)
{
	struct pr_version *v = two_patches();
	struct pr_exec_opts o;

	pr_exec_defaults(&o);
	o.argv = argv;
	o.per_patch = per_patch;
	if (timeout_ms)
		o.timeout_ms = timeout_ms;
	if (cap)
		o.output_cap = cap;
	o.warn_status[o.nr_warn_status++] = 3;
	assert_int_equal(pr_exec_check(r, "ex", &o, v), 0);
	pr_version_free(v);
}

static void test_stdin_is_the_mbox(void **state)
{
	const char *const argv[] = { "grep", "-c", "^Subject: \\[PATCH", NULL };
	struct pr_report r = PR_REPORT_INIT;

	run(&r, argv, false, 0, 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_PASS);
	assert_int_equal(r.items[0].patch, -1);
	assert_string_equal(r.items[0].detail, "2\n");
	pr_report_release(&r);
}

static void test_per_patch_env(void **state)
{
	const char *const argv[] = {
		"sh", "-c",
		"echo \"$PR_PATCH_INDEX/$PR_PATCH_TOTAL $PR_SUBJECT\"", NULL
	};
	struct pr_report r = PR_REPORT_INIT;

	run(&r, argv, true, 0, 0);
	assert_int_equal(r.nr, 2);
	assert_string_equal(r.items[0].detail, "1/2 net: first\n");
	assert_string_equal(r.items[1].detail, "2/2 net: second\n");
	assert_int_equal(r.items[1].patch, 1);
	pr_report_release(&r);
}

static void test_status_map(void **state)
{
	const char *const warn[] = { "sh", "-c", "exit 3", NULL };
	const char *const fail[] = { "sh", "-c", "echo bad; exit 1", NULL };
	const char *const none[] = { "/nonexistent/tool", NULL };
	struct pr_report r = PR_REPORT_INIT;

	run(&r, warn, false, 0, 0);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_WARN);
	run(&r, fail, false, 0, 0);
	assert_int_equal(r.items[1].verdict, PR_VERDICT_FAIL);
	assert_string_equal(r.items[1].message, "'sh' exited with status 1");
	assert_string_equal(r.items[1].detail, "bad\n");
	run(&r, none, false, 0, 0);
	assert_string_equal(r.items[2].rule, "exec");
	assert_int_equal(r.items[2].verdict, PR_VERDICT_FAIL);
	pr_report_release(&r);
}

static void test_timeout_kills(void **state)
{
	const char *const argv[] = { "sh", "-c", "echo started; sleep 30",
				     NULL };
	struct pr_report r = PR_REPORT_INIT;
	time_t t0 = time(NULL);

	run(&r, argv, true, 300, 0);
	/* Both patches were run, each killed at its timeout. */
	assert_true(time(NULL) - t0 < 10);
	assert_int_equal(r.nr, 2);
	assert_string_equal(r.items[0].rule, "timeout");
	assert_int_equal(r.items[0].verdict, PR_VERDICT_FAIL);
	assert_string_equal(r.items[0].detail, "started\n");
	assert_non_null(strstr(r.items[0].message, "300 ms"));
	pr_report_release(&r);
}

static void test_output_capped(void **state)
{
	/* 100 MB of output, not read from stdin at all. */
	const char *const argv[] = { "sh", "-c", "yes | head -c 100000000",
				     NULL };
	struct pr_report r = PR_REPORT_INIT;

	run(&r, argv, false, 60000, 4096);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_PASS);
	assert_int_equal(strspn(r.items[0].detail, "y\n"), 4097);
	assert_non_null(strstr(r.items[0].detail + 4096,
			       "[... 99995904 more bytes of output left out"));
	pr_report_release(&r);
}

static void test_no_command(void **state)
{
	struct pr_version *v = two_patches();
	struct pr_report r = PR_REPORT_INIT;
	struct pr_exec_opts o;

	pr_exec_defaults(&o);
	assert_int_equal(pr_exec_check(&r, "ex", &o, v), PR_EINVAL);
	pr_version_free(v);
}

static void test_plugin_definition(void **state)
{
	char *cmd[] = { (char *)"sh", (char *)"-c", (char *)"exit 4" };
	char *warn[] = { (char *)"4" };
	struct pr_exec_ctx ctx = { 0 };
	struct pr_instance inst = { 0 };
	struct pr_version *v = two_patches();
	struct pr_report r = PR_REPORT_INIT;

	ctx.command.items = cmd;
	ctx.command.nr = 3;
	inst.name = "cp";
	inst.ctx = &ctx;
	assert_int_equal(pr_plugin_exec.run(&inst, NULL, v, &r), 0);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_FAIL);
	pr_report_release(&r);
	ctx.warn_status.items = warn;
	ctx.warn_status.nr = 1;
	ctx.per_patch = true;
	assert_int_equal(pr_plugin_exec.run(&inst, NULL, v, &r), 0);
	assert_int_equal(r.nr, 2);
	assert_int_equal(r.items[1].verdict, PR_VERDICT_WARN);
	assert_string_equal(r.items[1].step, "cp");
	pr_report_release(&r);
	pr_version_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stdin_is_the_mbox),
		cmocka_unit_test(test_per_patch_env),
		cmocka_unit_test(test_status_map),
		cmocka_unit_test(test_timeout_kills),
		cmocka_unit_test(test_output_capped),
		cmocka_unit_test(test_no_command),
		cmocka_unit_test(test_plugin_definition),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
