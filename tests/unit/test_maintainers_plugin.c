#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "engine/cfg.h"
#include "maintainers.h"
#include "plugins.h"

/*
 * The maintainers plugin through its type definition, as the engine calls
 * it: options set by the config loader's setter, run() on versions, the
 * recipients and report it leaves, reloading when MAINTAINERS changes, and
 * pr_maint_resolve (the data behind it) against pr_maint_route's text.
 */

#define TREE PR_TEST_DATA "/route/tree"

static const struct pr_plugin_type *type = &pr_plugin_maintainers;

struct fixture {
	struct pr_instance inst;
	struct pr_series *s;
	struct pr_report report;
	char dir[64];
};

static void set(struct fixture *f, const char *key, const char *value)
{
	const struct pr_option *o = pr_cfg_find_option(type->options, key);

	assert_non_null(o);
	assert_int_equal(pr_cfg_set_option(f->inst.ctx, o, value), 0);
}

static void setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->inst.name = "maint";
	f->inst.kind = "check";
	f->inst.ctx = pr_calloc(1, type->ctx_size);
	f->s = pr_series_new("test", "test#1");
}

static void teardown(struct fixture *f)
{
	type->close(&f->inst);
	pr_cfg_options_release(f->inst.ctx, type->options);
	free(f->inst.ctx);
	pr_series_free(f->s);
	pr_report_release(&f->report);
}

/* A one-patch version changing `file`, with `added` as its new line. */
static struct pr_version *version(const char *file, const char *added)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_patch *p = pr_patch_new();
	struct pr_buf d = PR_BUF_INIT;

	pr_ident_set(&p->author, "Sub Mitter", "sub@example.org");
	p->subject = pr_strdup("a change");
	p->body = pr_strdup("Signed-off-by: Sub Mitter <sub@example.org>\n");
	pr_buf_addf(&d,
		    "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n"
		    "@@ -1 +1,2 @@\n int x;\n+%s\n",
		    file, file, file, file, added);
	p->diff = pr_buf_detach(&d, NULL);
	pr_version_add_patch(v, p);
	return v;
}

static const struct pr_recipient *rcpt(const struct fixture *f,
				       const char *email)
{
	return pr_recipient_list_find(&f->s->recipients, email);
}

static const struct pr_report_entry *entry(const struct fixture *f,
					   const char *rule)
{
	size_t i;

	for (i = 0; i < f->report.nr; i++)
		if (!strcmp(f->report.items[i].rule, rule))
			return &f->report.items[i];
	return NULL;
}

static void test_recipients_and_reasons(void **state)
{
	struct fixture f;
	struct pr_version *v = version("drivers/net/foo/foo.c", "int y;");
	const struct pr_recipient *r;

	(void)state;
	setup(&f);
	set(&f, "kernel-tree", TREE);
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_int_equal(pr_report_verdict(&f.report), PR_VERDICT_PASS);
	assert_int_equal(f.s->recipients.nr, 7);
	r = rcpt(&f, "foo@example.org");
	assert_non_null(r);
	assert_int_equal(r->role, PR_RCPT_TO);
	assert_string_equal(r->name, "Foo Person");
	assert_string_equal(r->reason, "maintainer:FOO NETWORK DRIVER");
	/* .mailmap maps old@ to real@, as get_maintainer.pl does */
	assert_null(rcpt(&f, "old@example.org"));
	assert_string_equal(rcpt(&f, "real@example.org")->name, "Real Name");
	r = rcpt(&f, "rev@example.org");
	assert_int_equal(r->role, PR_RCPT_CC);
	assert_string_equal(r->reason, "reviewer:NETWORKING DRIVERS");
	r = rcpt(&f, "netdev@example.org");
	assert_int_equal(r->role, PR_RCPT_CC);
	assert_string_equal(r->reason, "list:NETWORKING DRIVERS");
	assert_string_equal(rcpt(&f, "linux-kernel@example.org")->reason,
			    "list:THE REST");
	/* the chief penguin is dropped, as get_maintainer.pl drops him */
	assert_null(rcpt(&f, "torvalds@linux-foundation.org"));
	assert_string_equal(entry(&f, "recipients")->message,
			    "3 in To:, 4 in Cc: from MAINTAINERS");
	pr_version_free(v);
	teardown(&f);
}

static void test_to_none_and_cc_roles(void **state)
{
	struct fixture f;
	struct pr_version *v = version("drivers/net/foo/foo.c", "int y;");

	(void)state;
	setup(&f);
	set(&f, "maintainers", TREE "/MAINTAINERS");
	set(&f, "to", "none");
	set(&f, "cc", "maintainers");
	set(&f, "cc", "lists");
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_int_equal(rcpt(&f, "net@example.org")->role, PR_RCPT_CC);
	assert_null(rcpt(&f, "rev@example.org"));
	assert_non_null(rcpt(&f, "foo-list@example.org"));
	assert_int_equal(f.s->recipients.nr, 6);
	pr_version_free(v);
	teardown(&f);

	setup(&f);
	set(&f, "kernel-tree", TREE);
	set(&f, "cc", "everyone");
	assert_int_equal(type->open(&f.inst), PR_ECONFIG);
	assert_non_null(strstr(pr_error_message(), "cc 'everyone'"));
	teardown(&f);

	setup(&f);
	assert_int_equal(type->open(&f.inst), PR_ECONFIG);
	assert_non_null(
		strstr(pr_error_message(), "set kernel-tree or maintainers"));
	teardown(&f);
}

/* Addresses a submitter put in the PR body: no cap, no opt-out. */
static void test_pr_body_cc_exempt(void **state)
{
	struct fixture f;
	struct pr_version *v = version("fs/ext4/inode.c", "int y;");

	(void)state;
	setup(&f);
	set(&f, "kernel-tree", TREE);
	set(&f, "max-recipients", "2");
	set(&f, "cap-action", "fail");
	set(&f, "opt-out", "Fs Maint");
	set(&f, "opt-out-action", "drop");
	pr_recipient_list_add(&f.s->recipients, "", "x@example.org", PR_RCPT_CC,
			      "cc: in PR body");
	pr_recipient_list_add(&f.s->recipients, "", "fs@example.org",
			      PR_RCPT_CC, "cc: in PR body");
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	/* fs@ stays (the submitter asked), now in To: as its maintainer */
	assert_int_equal(rcpt(&f, "fs@example.org")->role, PR_RCPT_TO);
	assert_null(entry(&f, "opt-out"));
	/* counted: linux-ext4@ and linux-kernel@ only, so at the cap */
	assert_null(entry(&f, "max-recipients"));
	assert_int_equal(pr_report_verdict(&f.report), PR_VERDICT_PASS);
	pr_version_free(v);
	teardown(&f);
}

static void test_opt_out_file(void **state)
{
	struct fixture f;
	struct pr_version *v = version("drivers/net/bar.c", "int y;");
	char path[] = "/tmp/pr-optout-XXXXXX";
	const char text[] = "# opted out\n"
			    "  netdev@EXAMPLE.org  # by address, any case\n"
			    "\n"
			    "Rev Iewer\n";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pr_write_all(fd, text, sizeof(text) - 1), 0);
	close(fd);
	setup(&f);
	set(&f, "kernel-tree", TREE);
	set(&f, "opt-out-file", path);
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_int_equal(pr_report_verdict(&f.report), PR_VERDICT_FAIL);
	assert_non_null(strstr(f.report.items[1].message,
			       "netdev@example.org (list of NETWORKING "
			       "DRIVERS) takes no bridged submissions"));
	assert_non_null(strstr(f.report.items[0].message,
			       "Rev Iewer <rev@example.org> (reviewer of "
			       "NETWORKING DRIVERS)"));
	pr_version_free(v);
	teardown(&f);
	unlink(path);
}

static void test_sections_and_filter(void **state)
{
	struct fixture f;
	struct pr_version *v = version("fs/ext4/inode.c", "int foo_magic;");
	struct pr_strlist l = { 0 };

	(void)state;
	setup(&f);
	set(&f, "kernel-tree", TREE);
	assert_int_equal(type->sections(&f.inst, v, &l), 0);
	/* file sections by depth, then K: sections, then THE REST's order */
	assert_int_equal(l.nr, 3);
	assert_string_equal(l.items[0], "EXT4 FILE SYSTEM");
	assert_string_equal(l.items[1], "THE REST");
	assert_string_equal(l.items[2], "FOO NETWORK DRIVER");
	pr_strlist_release(&l);
	set(&f, "exclude-subsystem", "foo network driver");
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_int_equal(pr_report_verdict(&f.report), PR_VERDICT_FAIL);
	assert_string_equal(f.report.items[0].rule, "exclude-subsystem");
	assert_int_equal(f.s->recipients.nr, 0);
	pr_version_free(v);
	teardown(&f);
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A changed MAINTAINERS is parsed again on the next run. */
static void test_reload(void **state)
{
	struct fixture f;
	struct pr_version *v = version("lib/a.c", "int y;");
	char dir[] = "/tmp/pr-maint-XXXXXX", file[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/MAINTAINERS", dir);
	write_file(file, "LIB\nM:\tA One <a@example.org>\nS:\tMaintained\n"
			 "F:\tlib/\n");
	setup(&f);
	set(&f, "maintainers", file);
	assert_int_equal(type->open(&f.inst), 0);
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_non_null(rcpt(&f, "a@example.org"));
	write_file(file, "LIB\nM:\tB Two Three <b@example.org>\n"
			 "S:\tMaintained\nF:\tlib/\n");
	pr_series_free(f.s);
	f.s = pr_series_new("test", "test#2");
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_null(rcpt(&f, "a@example.org"));
	assert_string_equal(rcpt(&f, "b@example.org")->reason,
			    "maintainer:LIB");
	/* a file that went away is an error, not yesterday's answer */
	unlink(file);
	assert_true(type->run(&f.inst, f.s, v, &f.report) < 0);
	pr_version_free(v);
	teardown(&f);
	rmdir(dir);
}

/*
 * A changed .mailmap is read again on the next run, though MAINTAINERS
 * did not change; one that appears or goes counts as a change too.
 */
static void test_reload_mailmap(void **state)
{
	struct fixture f;
	struct pr_version *v = version("lib/a.c", "int y;");
	char dir[] = "/tmp/pr-maint-XXXXXX", file[64], mailmap[64];
	const struct pr_recipient *r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/MAINTAINERS", dir);
	snprintf(mailmap, sizeof(mailmap), "%s/.mailmap", dir);
	write_file(file, "LIB\nM:\tA One <a@example.org>\nS:\tMaintained\n"
			 "F:\tlib/\n");
	setup(&f);
	set(&f, "kernel-tree", dir);
	assert_int_equal(type->open(&f.inst), 0);
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_non_null(rcpt(&f, "a@example.org"));

	write_file(mailmap, "A New <new@example.org> <a@example.org>\n");
	pr_series_free(f.s);
	f.s = pr_series_new("test", "test#2");
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_null(rcpt(&f, "a@example.org"));
	r = rcpt(&f, "new@example.org");
	assert_non_null(r);
	assert_string_equal(r->name, "A New");

	write_file(mailmap,
		   "A Newer One <newer@example.org> <a@example.org>\n");
	pr_series_free(f.s);
	f.s = pr_series_new("test", "test#3");
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_null(rcpt(&f, "new@example.org"));
	assert_string_equal(rcpt(&f, "newer@example.org")->name, "A Newer One");

	unlink(mailmap);
	pr_series_free(f.s);
	f.s = pr_series_new("test", "test#4");
	assert_int_equal(type->run(&f.inst, f.s, v, &f.report), 0);
	assert_null(rcpt(&f, "newer@example.org"));
	assert_string_equal(rcpt(&f, "a@example.org")->name, "A One");
	pr_version_free(v);
	teardown(&f);
	unlink(file);
	rmdir(dir);
}

/* pr_maint_resolve gives the lines pr_maint_route prints, as data. */
static void test_resolve_matches_route(void **state)
{
	struct pr_maint *m = NULL;
	struct pr_maint_opts o;
	struct pr_maint_result res = { 0 };
	struct pr_buf patch = PR_BUF_INIT, text = PR_BUF_INIT,
		      lines = PR_BUF_INIT;
	size_t i;

	(void)state;
	pr_maint_opts_init(&o);
	o.rolestats = false;
	assert_int_equal(pr_maint_load(&m, TREE "/MAINTAINERS", TREE), 0);
	pr_buf_adds(&patch, "--- a/drivers/net/foo/foo.c\n"
			    "+++ b/drivers/net/foo/foo.c\n"
			    "@@ -1 +1,2 @@\n int foo;\n+int foo_magic;\n");
	assert_int_equal(pr_maint_route(&text, m, &o, &patch, 1), 0);
	assert_int_equal(pr_maint_resolve(&res, m, &o, &patch, 1), 0);
	for (i = 0; i < res.nr; i++)
		pr_buf_addf(&lines, "%s\n", res.items[i].line);
	assert_string_equal(lines.ptr, text.ptr);
	assert_int_equal(res.items[0].kind, PR_MAINT_MAINTAINER);
	assert_string_equal(res.items[0].role, "supporter:FOO NETWORK DRIVER");
	assert_string_equal(res.items[0].section, "FOO NETWORK DRIVER");
	assert_int_equal(res.items[res.nr - 1].kind, PR_MAINT_LIST);
	pr_maint_result_release(&res);
	pr_buf_release(&patch);
	pr_buf_release(&text);
	pr_buf_release(&lines);
	pr_maint_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recipients_and_reasons),
		cmocka_unit_test(test_to_none_and_cc_roles),
		cmocka_unit_test(test_pr_body_cc_exempt),
		cmocka_unit_test(test_opt_out_file),
		cmocka_unit_test(test_sections_and_filter),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_reload_mailmap),
		cmocka_unit_test(test_resolve_matches_route),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
