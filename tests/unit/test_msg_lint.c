#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include "checks.h"

#define SOB "Signed-off-by: A U Thor <a@example.org>"
#define TEXT "The frobnicator dropped every second frame; count them.\n"

struct ml_case {
	const char *rule;
	/* firing message, then a correct message near it */
	const char *email[2], *subject[2], *text[2], *trailers[2];
};

static const struct ml_case cases[] = {
	{ "signoff-missing",
	  { NULL, NULL },
	  { NULL, NULL },
	  { NULL, NULL },
	  { "Acked-by: B <b@example.org>",
	    "Acked-by: B <b@example.org>\n" SOB } },
	{ "signoff-author-mismatch",
	  { NULL, NULL },
	  { NULL, NULL },
	  { NULL, NULL },
	  { "Signed-off-by: B <b@example.org>",
	    "Signed-off-by: B <b@example.org>\n" SOB } },
	{ "subject-prefix",
	  { NULL, NULL },
	  { "fix the frobnicator", "net: fix the frobnicator" },
	  { NULL, NULL },
	  { NULL, NULL } },
	{ "subject-length",
	  { NULL, NULL },
	  { "net: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaa",
	    "net: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaa" },
	  { NULL, NULL },
	  { NULL, NULL } },
	{ "subject-trailing-period",
	  { NULL, NULL },
	  { "net: fix the frobnicator.", "net: fix the frobnicator" },
	  { NULL, NULL },
	  { NULL, NULL } },
	{ "body-empty",
	  { NULL, NULL },
	  { NULL, NULL },
	  { "", TEXT },
	  { NULL, NULL } },
	{ "body-line-length",
	  { NULL, NULL },
	  { NULL, NULL },
	  { "This line is far too long for a commit message body, it goes past "
	    "seventy-five.\n",
	    "See https://example.org/a/very/long/link/that/is/allowed/to/be/"
	    "longer/than/75\n" },
	  { NULL, NULL } },
	{ "fixes-format",
	  { NULL, NULL },
	  { NULL, NULL },
	  { NULL, NULL },
	  { "Fixes: abc123 net: old\n" SOB,
	    "Fixes: 0123456789ab (\"net: old\")\n" SOB } },
	{ "link-lkml-org",
	  { NULL, NULL },
	  { NULL, NULL },
	  { NULL, NULL },
	  { "Link: https://lkml.org/lkml/2020/1/16/1\n" SOB,
	    "Link: https://lore.kernel.org/lkml/x@y/\n" SOB } },
	{ "reported-by-without-closes",
	  { NULL, NULL },
	  { NULL, NULL },
	  { NULL, NULL },
	  { "Reported-by: R <r@example.org>\n" SOB,
	    "Reported-by: R <r@example.org>\n"
	    "Closes: https://lore.kernel.org/r/x@y/\n" SOB } },
	{ "trailer-unknown",
	  { NULL, NULL },
	  { NULL, NULL },
	  { NULL, NULL },
	  { "Frobbed-by: F <f@example.org>\n" SOB,
	    "Reviewed-by: F <f@example.org>\n" SOB } },
	{ "co-developed-by-without-signoff",
	  { NULL, NULL },
	  { NULL, NULL },
	  { NULL, NULL },
	  { "Co-developed-by: C <c@example.org>\n" SOB,
	    "Co-developed-by: C <c@example.org>\n"
	    "Signed-off-by: C <c@example.org>\n" SOB } },
	{ "fixup-commit",
	  { NULL, NULL },
	  { "fixup! net: fix the frobnicator", "net: handle fixup! lines" },
	  { NULL, NULL },
	  { NULL, NULL } },
	{ "merge-commit",
	  { NULL, NULL },
	  { "Merge branch 'net' of git://example.org/net",
	    "git: fix Merge branch parsing" },
	  { NULL, NULL },
	  { NULL, NULL } },
	{ "noreply-author",
	  { "a@users.noreply.github.com", "a@example.org" },
	  { NULL, NULL },
	  { NULL, NULL },
	  { "Signed-off-by: A U Thor <a@users.noreply.github.com>", NULL } },
};

static struct pr_patch *make_patch(const char *email, const char *subject,
				   const char *text, const char *trailers)
{
	struct pr_patch *p = pr_patch_new();
	struct pr_buf b = PR_BUF_INIT;
	const char *l;

	pr_ident_set(&p->author, "A U Thor", email ? email : "a@example.org");
	p->subject = pr_strdup(subject ? subject : "net: fix the frobnicator");
	if (!trailers)
		trailers = SOB;
	pr_buf_adds(&b, text ? text : TEXT);
	if (b.len)
		pr_buf_addch(&b, '\n');
	pr_buf_addf(&b, "%s\n", trailers);
	p->body = pr_buf_detach(&b, NULL);
	for (l = trailers; *l;) {
		size_t n = strcspn(l, "\n");
		const char *c = memchr(l, ':', n);
		char *k = pr_strndup(l, (size_t)(c - l));
		char *v = pr_strndup(c + 2, n - (size_t)(c - l) - 2);

		pr_trailer_list_add(&p->trailers, k, v);
		free(k);
		free(v);
		l += n;
		if (*l)
			l++;
	}
	return p;
}

static bool fires(const char *rule, struct pr_patch *p)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_report r = PR_REPORT_INIT;
	struct pr_msg_lint_opts o;
	bool found = false;
	size_t i;

	pr_version_add_patch(v, p);
	pr_msg_lint_defaults(&o);
	assert_int_equal(pr_msg_lint_check(&r, "lint", &o, v), 0);
	for (i = 0; i < r.nr; i++) {
		if (!strcmp(r.items[i].rule, rule))
			found = true;
		if (r.items[i].verdict != PR_VERDICT_PASS)
			print_message("  %s: %s\n", r.items[i].rule,
				      r.items[i].message);
	}
	pr_report_release(&r);
	pr_version_free(v);
	return found;
}

static void test_each_rule_fires(void **state)
{
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(cases); i++) {
		const struct ml_case *c = &cases[i];

		print_message("fire %s\n", c->rule);
		assert_true(
			fires(c->rule, make_patch(c->email[0], c->subject[0],
						  c->text[0], c->trailers[0])));
	}
}

static void test_each_rule_quiet(void **state)
{
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(cases); i++) {
		const struct ml_case *c = &cases[i];

		print_message("quiet %s\n", c->rule);
		assert_false(
			fires(c->rule, make_patch(c->email[1], c->subject[1],
						  c->text[1], c->trailers[1])));
	}
}

static void test_every_rule_has_a_case(void **state)
{
	const struct pr_msg_lint_rule *rules = pr_msg_lint_rules();
	size_t i, k;

	for (i = 0; i < PR_ML_NR; i++) {
		bool found = false;

		assert_non_null(rules[i].id);
		assert_non_null(rules[i].explain);
		for (k = 0; k < PR_ARRAY_SIZE(cases); k++)
			found |= !strcmp(cases[k].rule, rules[i].id);
		/* Needs a repository: test_fixes_unknown_commit. */
		found |= i == PR_ML_FIXES_UNKNOWN_COMMIT;
		assert_true(found);
	}
}

static void test_clean_passes(void **state)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_report r = PR_REPORT_INIT;
	struct pr_msg_lint_opts o;

	pr_version_add_patch(v, make_patch(NULL, NULL, NULL, NULL));
	pr_msg_lint_defaults(&o);
	assert_int_equal(pr_msg_lint_check(&r, "lint", &o, v), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_PASS);
	pr_report_release(&r);
	pr_version_free(v);
}

static void test_severity_per_route(void **state)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_report r = PR_REPORT_INIT;
	struct pr_msg_lint_opts o;

	pr_version_add_patch(v, make_patch(NULL, "fix it.", NULL, NULL));
	pr_msg_lint_defaults(&o);
	assert_int_equal(pr_msg_lint_set(&o, "subject-prefix", "fail"), 0);
	assert_int_equal(pr_msg_lint_set(&o, "subject-trailing-period", "off"),
			 0);
	assert_int_equal(pr_msg_lint_set(&o, "no-such-rule", "off"), PR_EINVAL);
	assert_int_equal(pr_msg_lint_set(&o, "body-empty", "loud"), PR_EINVAL);
	assert_int_equal(pr_msg_lint_check(&r, "lint", &o, v), 0);
	assert_int_equal(r.nr, 1);
	assert_string_equal(r.items[0].rule, "subject-prefix");
	assert_int_equal(r.items[0].verdict, PR_VERDICT_FAIL);
	assert_int_equal(r.items[0].patch, 0);
	pr_report_release(&r);
	pr_version_free(v);
}

static int fixes_findings(const char *repo, const char *fixes)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_report r = PR_REPORT_INIT;
	struct pr_msg_lint_opts o;
	struct pr_buf t = PR_BUF_INIT;
	size_t i;
	int n = 0;

	pr_buf_addf(&t, "Fixes: %s\n" SOB, fixes);
	pr_version_add_patch(v, make_patch(NULL, NULL, NULL, t.ptr));
	pr_msg_lint_defaults(&o);
	o.repo = repo;
	assert_int_equal(pr_msg_lint_check(&r, "lint", &o, v), 0);
	for (i = 0; i < r.nr; i++)
		if (!strcmp(r.items[i].rule, "fixes-unknown-commit")) {
			print_message("  %s\n", r.items[i].message);
			n++;
		}
	pr_report_release(&r);
	pr_version_free(v);
	pr_buf_release(&t);
	return n;
}

static void test_fixes_unknown_commit(void **state)
{
	char dir[] = "/tmp/pr_msg_lint_XXXXXX";
	char hash[13] = "", cmd[512];
	struct pr_buf f = PR_BUF_INIT;
	FILE *p;

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && git init -q && git -c user.name=A -c "
		 "user.email=a@example.org commit -q --allow-empty -m "
		 "'net: old bug' && git rev-parse --short=12 HEAD",
		 dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(hash, sizeof(hash), p));
	pclose(p);
	assert_int_equal(strlen(hash), 12);

	/* Right commit and subject: quiet. */
	pr_buf_addf(&f, "%s (\"net: old bug\")", hash);
	assert_int_equal(fixes_findings(dir, f.ptr), 0);
	/* Without a repository the rule cannot run: quiet. */
	pr_buf_reset(&f);
	pr_buf_addf(&f, "%s (\"net: other\")", hash);
	assert_int_equal(fixes_findings(NULL, f.ptr), 0);
	/* Wrong subject, unknown commit: fires. */
	assert_int_equal(fixes_findings(dir, f.ptr), 1);
	assert_int_equal(fixes_findings(dir, "0123456789ab (\"net: old bug\")"),
			 1);
	pr_buf_release(&f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_plugin_definition(void **state)
{
	const struct pr_plugin_type *t = &pr_plugin_msg_lint;
	const struct pr_msg_lint_rule *rules = pr_msg_lint_rules();
	struct pr_msg_lint_ctx ctx = { 0 };
	struct pr_instance inst = { 0 };
	struct pr_version *v = pr_version_new(1);
	struct pr_report r = PR_REPORT_INIT;
	const struct pr_option *opt;
	size_t i;

	/* Every rule is an option whose key is its id, at its own slot. */
	for (i = 0; i < PR_ML_NR; i++) {
		for (opt = t->options; opt->key; opt++)
			if (!strcmp(opt->key, rules[i].id))
				break;
		assert_non_null(opt->key);
		assert_int_equal(opt->offset,
				 offsetof(struct pr_msg_lint_ctx, severity) +
					 i * sizeof(char *));
	}
	ctx.severity[PR_ML_SUBJECT_PREFIX] = (char *)"fail";
	inst.name = "lint";
	inst.ctx = &ctx;
	pr_version_add_patch(v, make_patch(NULL, "no prefix", NULL, NULL));
	assert_int_equal(t->run(&inst, NULL, v, &r), 0);
	assert_int_equal(r.nr, 1);
	assert_string_equal(r.items[0].rule, "subject-prefix");
	assert_int_equal(r.items[0].verdict, PR_VERDICT_FAIL);
	pr_report_release(&r);
	ctx.severity[PR_ML_SUBJECT_PREFIX] = (char *)"off";
	assert_int_equal(t->run(&inst, NULL, v, &r), 0);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_PASS);
	pr_report_release(&r);
	pr_version_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_rule_fires),
		cmocka_unit_test(test_each_rule_quiet),
		cmocka_unit_test(test_every_rule_has_a_case),
		cmocka_unit_test(test_clean_passes),
		cmocka_unit_test(test_severity_per_route),
		cmocka_unit_test(test_plugin_definition),
		cmocka_unit_test(test_fixes_unknown_commit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
