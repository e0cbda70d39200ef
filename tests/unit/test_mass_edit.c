#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>
#include "checks.h"
#include "maintainers.h"

static void expect_sub(const char *old, const char *new, const char *s,
		       const char *t)
{
	char *gs, *gt;

	assert_int_equal(pr_mass_edit_substitution(&gs, &gt, old, new), 1);
	assert_string_equal(gs, s);
	assert_string_equal(gt, t);
	free(gs);
	free(gt);
}

static void test_substitution_single(void **state)
{
	expect_sub("Unknown", "Unkyeswn", "no", "yes");
	expect_sub("int node;", "int yesde;", "no", "yes");
	expect_sub("foo(a, b)", "foo(a)", ", b", "");
	expect_sub("x = 1;", "x = 2;", "1", "2");
}

static void test_substitution_many(void **state)
{
	/* Several occurrences in one line: one shortest substitution. */
	expect_sub("no node knows", "yes yesde kyesws", "no", "yes");
	expect_sub("old_a(old_b)", "new_a(new_b)", "old", "new");
}

static void test_substitution_none(void **state)
{
	char *s = (char *)"x", *t = (char *)"y";

	assert_int_equal(pr_mass_edit_substitution(&s, &t, "same", "same"), 0);
	assert_null(s);
	assert_null(t);
	/* A pure insertion replaces nothing. */
	assert_int_equal(pr_mass_edit_substitution(&s, &t, "", "new line"), 0);
	assert_null(s);
}

static struct pr_version *version_of(const char *email, const char *diff)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_patch *p = pr_patch_new();

	pr_ident_set(&p->author, "A", email);
	p->subject = pr_strdup("x: y");
	p->body = pr_strdup("");
	p->diff = pr_strdup(diff);
	pr_version_add_patch(v, p);
	return v;
}

/* n files, each with `lines` pairs "-old_fn(i)" / "+new_fn(i)". */
static char *rename_diff(int files, int lines, bool whitespace)
{
	struct pr_buf b = PR_BUF_INIT;
	int f, l;

	for (f = 0; f < files; f++) {
		pr_buf_addf(&b,
			    "diff --git a/f%d.c b/f%d.c\n--- a/f%d.c\n"
			    "+++ b/f%d.c\n@@ -1,%d +1,%d @@\n",
			    f, f, f, f, lines, lines);
		for (l = 0; l < lines; l++)
			pr_buf_addf(&b, "-\told_fn(%d);\n", l);
		for (l = 0; l < lines; l++)
			pr_buf_addf(&b,
				    whitespace ? "+    old_fn(%d);\n"
					       : "+\tnew_fn(%d);\n",
				    l);
	}
	return pr_buf_detach(&b, NULL);
}

static void test_check_rename_fails(void **state)
{
	struct pr_mass_edit_opts o;
	struct pr_report r = PR_REPORT_INIT;
	char *d = rename_diff(25, 4, false);
	struct pr_version *v = version_of("a@example.org", d);

	pr_mass_edit_defaults(&o);
	assert_int_equal(pr_mass_edit_check(&r, "me", &o, v), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_FAIL);
	assert_string_equal(r.items[0].rule, "substitution");
	assert_non_null(strstr(r.items[0].message,
			       "'old' -> 'new' inside words on 100 of 100 "
			       "changed lines, 25 files"));
	pr_report_release(&r);

	/* Allowed by policy, not by loosening the detector. */
	{
		const char *const allow[] = { "A@Example.org", NULL };

		o.allow_submitters = allow;
		assert_int_equal(pr_mass_edit_check(&r, "me", &o, v), 0);
		assert_int_equal(r.items[0].verdict, PR_VERDICT_PASS);
		assert_string_equal(r.items[0].rule, "allowed");
		pr_report_release(&r);
	}
	pr_version_free(v);
	free(d);
}

/* A version of `files` files f0.c, f1.c... each changed by `hunk`. */
static struct pr_version *same_hunk(int files, const char *hunk)
{
	struct pr_buf d = PR_BUF_INIT;
	struct pr_version *v;
	int f;

	for (f = 0; f < files; f++)
		pr_buf_addf(&d,
			    "diff --git a/f%d.c b/f%d.c\n--- a/f%d.c\n"
			    "+++ b/f%d.c\n%s",
			    f, f, f, f, hunk);
	v = version_of("a@example.org", d.ptr);
	pr_buf_release(&d);
	return v;
}

/*
 * A typo sweep: 'ro' -> 'o' is the smallest edit, and the words it changed
 * say what the sweep was, most frequent first, with their counts.
 */
static void test_check_typo_words(void **state)
{
	struct pr_mass_edit_opts o;
	struct pr_report r = PR_REPORT_INIT;
	struct pr_version *v = same_hunk(25, "@@ -1,5 +1,5 @@\n"
					     "-\treturn error;\n"
					     "-\tif (error && error_count)\n"
					     "-\t/* Error: errors, terror */\n"
					     "-\tprint(\"error\");\n"
					     "+\treturn eror;\n"
					     "+\tif (eror && eror_count)\n"
					     "+\t/* Eror: erors, teror */\n"
					     "+\tprint(\"eror\");\n"
					     " keep\n");

	pr_mass_edit_defaults(&o);
	assert_int_equal(pr_mass_edit_check(&r, "me", &o, v), 0);
	assert_int_equal(r.nr, 1);
	assert_string_equal(r.items[0].rule, "substitution");
	/* the facts of before, then the words: error 75, the rest 25 each */
	assert_non_null(strstr(r.items[0].message,
			       "'ro' -> 'o' inside words on 100 of 100 changed "
			       "lines, 25 files: 'error' -> 'eror' 75 times, "
			       "'Error' -> 'Eror' 25 times, 'error_count' -> "
			       "'eror_count' 25 times (25 files in all)"));
	pr_report_release(&r);
	pr_version_free(v);
}

/* A whole-word rename names no words: they would only repeat it. */
static void test_check_whole_word(void **state)
{
	struct pr_mass_edit_opts o;
	struct pr_report r = PR_REPORT_INIT;
	struct pr_version *v = same_hunk(25, "@@ -1,2 +1,2 @@\n"
					     "-\ta = foo(1);\n"
					     "-\tb = foo(foo(2));\n"
					     "+\ta = bar(1);\n"
					     "+\tb = bar(bar(2));\n");

	pr_mass_edit_defaults(&o);
	assert_int_equal(pr_mass_edit_check(&r, "me", &o, v), 0);
	assert_non_null(strstr(r.items[0].message,
			       "'foo' -> 'bar' on 50 of 50 changed lines, 25 "
			       "files (25 files in all)"));
	pr_report_release(&r);
	pr_version_free(v);
}

static void test_check_whitespace(void **state)
{
	struct pr_mass_edit_opts o;
	struct pr_report r = PR_REPORT_INIT;
	char *d = rename_diff(25, 4, true);
	struct pr_version *v = version_of("a@example.org", d);

	pr_mass_edit_defaults(&o);
	o.severity = PR_VERDICT_WARN;
	assert_int_equal(pr_mass_edit_check(&r, "me", &o, v), 0);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_WARN);
	assert_string_equal(r.items[0].rule, "whitespace");
	assert_non_null(strstr(r.items[0].message,
			       "whitespace-only changes on 100 of 100"));
	pr_report_release(&r);
	pr_version_free(v);
	free(d);
}

static void test_check_small_passes(void **state)
{
	struct pr_mass_edit_opts o;
	struct pr_report r = PR_REPORT_INIT;
	/* The same rename in 3 files is below min-files: normal work. */
	char *d = rename_diff(3, 20, false);
	struct pr_version *v = version_of("a@example.org", d);

	pr_mass_edit_defaults(&o);
	assert_int_equal(pr_mass_edit_check(&r, "me", &o, v), 0);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_PASS);
	pr_report_release(&r);
	pr_version_free(v);
	free(d);
}

static void test_size_figures_diffstat(void **state)
{
	struct pr_size_figures f;
	struct pr_report r = PR_REPORT_INIT;
	struct pr_size_limit_ctx ctx;
	char *d = rename_diff(2, 3, false);
	struct pr_version *v = version_of("a@example.org", d);

	/* The diff shows 2 files; the whole diffstat says more: the larger. */
	v->patches[0]->diffstat = pr_strdup(
		" f0.c | 6 +++---\n 3000 files changed, 9000 insertions(+), "
		"8000 deletions(-)\n");
	pr_size_figures_count(&f, v);
	assert_int_equal(f.files, 3000);
	assert_int_equal(f.diff_files, 2);
	/* the diffstat's per-file line names the largest file change */
	assert_int_equal(f.largest_lines, 6);
	assert_string_equal(f.largest_file, "f0.c");
	assert_int_equal(f.largest_patch, 0);
	assert_int_equal(f.added, 9000);
	assert_int_equal(f.removed, 8000);
	pr_size_limit_defaults(&ctx);
	assert_int_equal(pr_size_limit_check(&r, "size", &ctx, v), 0);
	assert_int_equal(pr_report_verdict(&r), PR_VERDICT_FAIL);
	assert_string_equal(r.items[0].rule, "files");
	assert_string_equal(
		r.items[0].message,
		"3,000 files changed, over the fail limit of 1,000; "
		"split the series into smaller ones, or send a "
		"pull request instead");
	assert_string_equal(r.items[1].rule, "lines");
	assert_int_equal(r.items[1].verdict, PR_VERDICT_WARN);
	pr_report_release(&r);
	pr_version_free(v);
	free(d);
}

static void test_count_format(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	pr_buf_add_count(&b, 0);
	pr_buf_addch(&b, ' ');
	pr_buf_add_count(&b, 999);
	pr_buf_addch(&b, ' ');
	pr_buf_add_count(&b, 46294);
	pr_buf_addch(&b, ' ');
	pr_buf_add_count(&b, 1430124);
	assert_string_equal(b.ptr, "0 999 46,294 1,430,124");
	pr_buf_release(&b);
}

static void test_plugin_runs(void **state)
{
	struct pr_mass_edit_ctx mctx = { 0 };
	struct pr_size_limit_ctx sctx = { 0 };
	struct pr_instance inst = { 0 };
	struct pr_report r = PR_REPORT_INIT;
	char *d = rename_diff(25, 4, false);
	struct pr_version *v = version_of("a@example.org", d);
	char *allow[] = { (char *)"a@example.org" };

	inst.name = "me";
	inst.ctx = &mctx;
	mctx.severity = (char *)"warn";
	assert_int_equal(pr_plugin_mass_edit.run(&inst, NULL, v, &r), 0);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_WARN);
	pr_report_release(&r);
	mctx.allow_submitters.items = allow;
	mctx.allow_submitters.nr = 1;
	assert_int_equal(pr_plugin_mass_edit.run(&inst, NULL, v, &r), 0);
	assert_string_equal(r.items[0].rule, "allowed");
	pr_report_release(&r);

	inst.name = "size";
	inst.ctx = &sctx;
	sctx.max_files = 10;
	assert_non_null(pr_plugin_size_limit.run);
	assert_int_equal(pr_plugin_size_limit.run(&inst, NULL, v, &r), 0);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_FAIL);
	assert_string_equal(r.items[0].step, "size");
	assert_non_null(strstr(r.items[0].message, "25 files changed"));
	pr_report_release(&r);
	pr_version_free(v);
	free(d);
}

/*
 * A tiny MAINTAINERS: A by directory, B by glob less an X:, C by N:, and
 * THE REST, which is never counted.
 */
static const char tiny_maintainers[] =
	"A SECTION\nM:\tA <a@example.org>\nF:\ta/\n\n"
	"B SECTION\nM:\tB <b@example.org>\nF:\tb/*.c\nX:\tb/skip.c\n\n"
	"C SECTION\nM:\tC <c@example.org>\nN:\tcfile\n\n"
	"THE REST\nM:\tR <r@example.org>\nF:\t*\nF:\t*/\n";

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Files a/one.c, b/skip.c, b/two.c, d/cfile.h, e/x: sections A, B, C. */
static const char sections_diff[] =
	"diff --git a/b/two.c b/b/two.c\n@@ -1 +1 @@\n-x\n+y\n"
	"diff --git a/a/one.c b/a/one.c\n@@ -1 +1 @@\n-x\n+y\n"
	"diff --git a/b/skip.c b/b/skip.c\n@@ -1 +1 @@\n-x\n+y\n"
	"diff --git a/e/x b/e/x\n@@ -1 +1 @@\n-x\n+y\n";

static void test_sections(void **state)
{
	char dir[] = "/tmp/pr-me-XXXXXX", file[64];
	struct pr_maint *m = NULL;
	struct pr_mass_edit_opts o;
	struct pr_report r = PR_REPORT_INIT;
	struct pr_version *v = version_of("a@example.org", sections_diff);

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/MAINTAINERS", dir);
	write_text(file, tiny_maintainers);
	assert_int_equal(pr_maint_load(&m, file, dir), 0);
	/* d/cfile.h only in the diffstat; shortened and renamed paths not */
	v->patches[0]->diffstat =
		pr_strdup(" d/cfile.h        | 2 +-\n .../deep/cfile.c | 2 +-\n"
			  " {f => g}/cfile.c | 0\n 2 files changed\n");
	pr_mass_edit_defaults(&o);
	assert_int_equal(o.max_sections, 100); /* bench/mass-sections */
	o.maint = m;
	o.max_sections = 2;
	assert_int_equal(pr_mass_edit_check(&r, "me", &o, v), 0);
	assert_int_equal(r.nr, 1);
	assert_string_equal(r.items[0].rule, "sections");
	assert_int_equal(r.items[0].verdict, PR_VERDICT_FAIL);
	assert_string_equal(r.items[0].message,
			    "the series touches files of 3 MAINTAINERS "
			    "sections (over max-sections = 2): A SECTION, "
			    "B SECTION, C SECTION; no one maintainer can take "
			    "it: split it per subsystem");
	pr_report_release(&r);

	/* at the limit it passes */
	o.max_sections = 3;
	assert_int_equal(pr_mass_edit_check(&r, "me", &o, v), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_PASS);
	pr_report_release(&r);

	/* allowed by policy */
	{
		const char *const allow[] = { "a@example.org", NULL };

		o.max_sections = 1;
		o.allow_submitters = allow;
		assert_int_equal(pr_mass_edit_check(&r, "me", &o, v), 0);
		assert_int_equal(r.items[0].verdict, PR_VERDICT_PASS);
		assert_string_equal(r.items[0].rule, "allowed");
		pr_report_release(&r);
	}
	pr_version_free(v);
	pr_maint_free(m);
	unlink(file);
	rmdir(dir);
}

/* The plugin loads the MAINTAINERS of its own `maintainers` option. */
static void test_plugin_sections(void **state)
{
	char dir[] = "/tmp/pr-me-XXXXXX", file[64];
	struct pr_mass_edit_ctx mctx = { 0 };
	struct pr_instance inst = { 0 };
	struct pr_report r = PR_REPORT_INIT;
	struct pr_version *v = version_of("a@example.org", sections_diff);

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/MAINTAINERS", dir);
	write_text(file, tiny_maintainers);
	inst.name = "me";
	inst.ctx = &mctx;
	mctx.max_sections = 1;
	mctx.maintainers = file;
	assert_int_equal(pr_plugin_mass_edit.open(&inst), 0);
	assert_non_null(inst.state);
	assert_int_equal(pr_plugin_mass_edit.run(&inst, NULL, v, &r), 0);
	assert_string_equal(r.items[0].rule, "sections");
	assert_non_null(strstr(r.items[0].message,
			       "files of 2 MAINTAINERS sections (over "
			       "max-sections = 1): A SECTION, B SECTION;"));
	pr_report_release(&r);
	/* max-sections = 0 turns it off */
	mctx.max_sections = 0;
	assert_int_equal(pr_plugin_mass_edit.run(&inst, NULL, v, &r), 0);
	assert_int_equal(r.items[0].verdict, PR_VERDICT_PASS);
	pr_report_release(&r);
	pr_plugin_mass_edit.close(&inst);
	assert_null(inst.state);
	/* a missing file is an error naming the step */
	unlink(file);
	mctx.max_sections = 5;
	assert_true(pr_plugin_mass_edit.open(&inst) < 0);
	assert_non_null(strstr(pr_error_message(), "check 'me'"));
	pr_plugin_mass_edit.close(&inst);
	pr_version_free(v);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_substitution_single),
		cmocka_unit_test(test_substitution_many),
		cmocka_unit_test(test_substitution_none),
		cmocka_unit_test(test_check_rename_fails),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_plugin_sections),
		cmocka_unit_test(test_check_typo_words),
		cmocka_unit_test(test_check_whole_word),
		cmocka_unit_test(test_check_whitespace),
		cmocka_unit_test(test_check_small_passes),
		cmocka_unit_test(test_size_figures_diffstat),
		cmocka_unit_test(test_count_format),
		cmocka_unit_test(test_plugin_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
