#include "base/pr.h"

#include <setjmp.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "maintainers_file.h"

/*
 * The parsed MAINTAINERS and .mailmap (plugins/maintainers_file.c): the
 * tables routing reads, checked on the fixture of test_maintainers.c and
 * on small files written here.
 */

#define DIR PR_TEST_DATA "/maintainers"

/* The index of the entry of type `type` and value `value`; fails if none. */
static size_t find_tv(const struct pr_maint *m, char type, const char *value)
{
	size_t i;

	for (i = 0; i < m->ntv; i++)
		if (m->tv[i].type == type &&
		    !strcmp(pr_maint_tv_value(m, i), value))
			return i;
	fail_msg("no %c: '%s'", type ? type : '-', value);
	return 0;
}

static unsigned dir_of(const struct tv *t)
{
	return (t->flags >> TV_DIR_SHIFT) & 3;
}

static struct pr_maint *load_fixture(void)
{
	struct pr_maint *m = NULL;

	assert_int_equal(
		pr_maint_load(&m, DIR "/tree/MAINTAINERS", DIR "/tree"), 0);
	return m;
}

/* Each line becomes one entry: typed, or a section header and the like. */
static void test_entries(void **state)
{
	struct pr_maint *m = load_fixture();
	size_t foo, i, typed = 0;

	(void)state;
	assert_int_equal(pr_maint_nsections(m), 4);
	/* "\tM: ..." in the preamble is no entry: the type must start it */
	assert_int_equal(m->tv[find_tv(m, 0,
				       "\tM: *Mail* patches to the "
				       "people below")]
				 .type,
			 0);
	foo = find_tv(m, 0, "FOO DRIVER");
	/* each typed entry knows its section's header */
	for (i = foo + 1; i < m->ntv && m->tv[i].type; i++, typed++)
		assert_int_equal(m->tv[i].start, foo);
	assert_int_equal(typed, 6);
	assert_string_equal(pr_maint_tv_value(m, find_tv(m, 'M',
							 "Alice Example "
							 "<alice@example."
							 "org>")),
			    "Alice Example <alice@example.org>");
	/* blank lines are not kept */
	for (i = 0; i < m->ntv; i++)
		assert_true(pr_maint_tv_value(m, i)[0] != '\0');
	pr_maint_free(m);
}

/* F:/X: values: the literal prefix, slashes and directory answer. */
static void test_file_entries(void **state)
{
	struct pr_maint *m = load_fixture();
	const struct tv *t;
	size_t i;

	(void)state;
	i = find_tv(m, 'F', "drivers/foo");
	t = &m->tv[i];
	assert_true(t->flags & TV_LITERAL);
	assert_false(t->flags & TV_SLASH_END);
	assert_int_equal(t->prefix_len, 11);
	assert_int_equal(t->nslash, 1);
	/* unchanged by the conversion: stat()ed on first use */
	assert_int_equal(dir_of(t), DIR_UNKNOWN);
	assert_int_equal(m->rt[i].dir, 0);
	assert_true(pr_maint_tv_isdir(m, i));
	assert_int_equal(m->rt[i].dir, 1 + DIR_YES);
	/* matched as "drivers/foo/": one slash more */
	assert_int_equal(pr_maint_tv_nslash(m, i), 2);

	/* '.' becomes "\." (still literal), and the value names no dir */
	i = find_tv(m, 'X', "drivers/foo/skip.c");
	t = &m->tv[i];
	assert_true(t->flags & TV_LITERAL);
	assert_int_equal(t->prefix_len, 18);
	assert_int_equal(dir_of(t), DIR_NO);
	assert_false(pr_maint_tv_isdir(m, i));

	/* '*' ends the literal prefix */
	t = &m->tv[find_tv(m, 'F', "drivers/foo/core*.c")];
	assert_false(t->flags & TV_LITERAL);
	assert_int_equal(t->prefix_len, 16);
	assert_int_equal(t->nslash, 2);

	i = find_tv(m, 'F', "*/");
	t = &m->tv[i];
	assert_true(t->flags & TV_SLASH_END);
	assert_int_equal(t->prefix_len, 0);
	assert_true(pr_maint_tv_isdir(m, i));
	pr_maint_free(m);
}

/* F:/X: entries indexed by their prefix's first component; N:, K: lists. */
static void test_index(void **state)
{
	struct pr_maint *m = load_fixture();
	const struct fx_bucket *b;

	(void)state;
	assert_int_equal(m->nfx, 1);
	b = pr_maint_fx_find(m, "drivers/x", 7);
	assert_ptr_equal(b, &m->fx[0]);
	assert_null(pr_maint_fx_find(m, "driver", 6));
	assert_null(pr_maint_fx_find(m, "lib", 3));
	/* in MAINTAINERS order */
	assert_int_equal(b->nr, 3);
	assert_int_equal(m->fx_tvi[b->first], find_tv(m, 'F', "drivers/foo"));
	assert_int_equal(m->fx_tvi[b->first + 1],
			 find_tv(m, 'X', "drivers/foo/skip.c"));
	assert_int_equal(m->fx_tvi[b->first + 2],
			 find_tv(m, 'F', "drivers/foo/core*.c"));
	/* no '/' in the literal prefix: tried on every file */
	assert_int_equal(m->nfx_any, 2);
	assert_int_equal(m->fx_any[0], find_tv(m, 'F', "*"));
	assert_int_equal(m->fx_any[1], find_tv(m, 'F', "*/"));
	assert_int_equal(m->nn, 1);
	assert_int_equal(m->nk[0], find_tv(m, 'N', "foo_"));
	assert_int_equal(m->nkw, 1);
	assert_int_equal(m->kw[0], find_tv(m, 'K', "\\bfrobnicate\\b"));
	pr_maint_free(m);
}

static bool matches(pcre2_code *re, const char *s, pcre2_match_data *md)
{
	return pr_maint_rx_match(re, s, strlen(s), md);
}

/* Patterns as get_maintainer.pl converts them, compiled on first use. */
static void test_patterns(void **state)
{
	struct pr_maint *m = load_fixture();
	pcre2_match_data *md = pcre2_match_data_create(OVEC, NULL);
	size_t t;
	pcre2_code *re;

	(void)state;
	t = find_tv(m, 'F', "drivers/foo/core*.c");
	assert_null(m->rt[t].re);
	re = pr_maint_tv_re(m, t, false);
	assert_non_null(re);
	assert_ptr_equal(pr_maint_tv_re(m, t, false), re);
	assert_true(matches(re, "drivers/foo/core_main.c", md));
	assert_false(matches(re, "drivers/foo/core_mainxc", md));
	assert_false(matches(re, "x/drivers/foo/core.c", md));

	/* a directory gets its '/' */
	re = pr_maint_tv_re(m, find_tv(m, 'F', "drivers/foo"), false);
	assert_true(matches(re, "drivers/foo/a.c", md));
	assert_false(matches(re, "drivers/foobar.c", md));

	re = pr_maint_tv_re(m, find_tv(m, 'N', "foo_"), false);
	assert_true(matches(re, "lib/foo_x.c", md));

	/* K: on a patch's lines: only an added or removed line counts */
	t = find_tv(m, 'K', "\\bfrobnicate\\b");
	re = pr_maint_tv_re(m, t, true);
	assert_true(matches(re, "+\tfrobnicate();", md));
	assert_false(matches(re, " \tfrobnicate();", md));
	assert_false(matches(re, "+\tfrobnicated();", md));
	assert_true(matches(pr_maint_tv_re(m, t, false), " frobnicate", md));
	pcre2_match_data_free(md);
	pr_maint_free(m);
}

/* parse_email and format_email as get_maintainer.pl quotes names. */
static void test_email(void **state)
{
	struct pr_maint *m = load_fixture();
	pcre2_match_data *md = pcre2_match_data_create(OVEC, NULL);
	char *name, *addr, *line;

	(void)state;
	pr_maint_parse_email(m, md, "Carol, Core <carol@example.org>", &name,
			     &addr);
	assert_string_equal(name, "\"Carol, Core\"");
	assert_string_equal(addr, "carol@example.org");
	free(name);
	free(addr);
	pr_maint_parse_email(m, md, "  <x@example.org> trailing", &name, &addr);
	assert_string_equal(name, "");
	assert_string_equal(addr, "x@example.org");
	free(name);
	free(addr);
	line = pr_maint_format_email(m, md, "Carol, Core",
				     " carol@example.org ");
	assert_string_equal(line, "\"Carol, Core\" <carol@example.org>");
	free(line);
	line = pr_maint_format_email(m, md, "", "x@example.org");
	assert_string_equal(line, "x@example.org");
	free(line);
	pcre2_match_data_free(md);
	pr_maint_free(m);
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void mapped(const struct pr_maint *m, pcre2_match_data *md,
		   const char *in, const char *want)
{
	char *got = pr_maint_mailmap_email(m, md, in);

	assert_string_equal(got, want);
	free(got);
}

/*
 * The four .mailmap forms, comments, and of two lines for one address
 * the later; a pattern that does not compile never matches.
 */
static void test_mailmap(void **state)
{
	char dir[] = "/tmp/pr-maint-file-XXXXXX", file[64], mailmap[64];
	struct pr_maint *m = NULL;
	pcre2_match_data *md = pcre2_match_data_create(OVEC, NULL);
	size_t t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/MAINTAINERS", dir);
	snprintf(mailmap, sizeof(mailmap), "%s/.mailmap", dir);
	write_file(file, "BROKEN\nM:\tSome One <some@example.org>\n"
			 "N:\t(\nF:\tlib/\n");
	write_file(mailmap,
		   "# the forms\n"
		   "One Name <one@example.org>\n"
		   "<two.new@example.org> <two@example.org>\n"
		   "Three Proper <three.new@example.org> <three@example.org>\n"
		   "Four Proper <four.new@example.org> Four Old "
		   "<four@example.org>\n"
		   "\n"
		   "Late Name <one@example.org>   # the later line wins\n");
	assert_int_equal(pr_maint_load(&m, file, dir), 0);
	assert_int_equal(pr_maint_nsections(m), 1);
	mapped(m, md, "Someone <one@example.org>",
	       "Late Name <one@example.org>");
	mapped(m, md, "X <two@example.org>", "X <two.new@example.org>");
	mapped(m, md, "Y <three@example.org>",
	       "Three Proper <three.new@example.org>");
	mapped(m, md, "Four Old <four@example.org>",
	       "Four Proper <four.new@example.org>");
	/* the fourth form maps a name and address together */
	mapped(m, md, "Other Four <four@example.org>",
	       "Other Four <four@example.org>");
	mapped(m, md, "Nobody <nobody@example.org>",
	       "Nobody <nobody@example.org>");

	t = find_tv(m, 'N', "(");
	assert_null(pr_maint_tv_re(m, t, false));
	/* remembered as failed, not compiled again */
	assert_non_null(m->rt[t].re);
	assert_null(pr_maint_tv_re(m, t, false));
	/* written with its '/': a directory without a stat() */
	assert_int_equal(dir_of(&m->tv[find_tv(m, 'F', "lib/")]), DIR_YES);
	pr_maint_free(m);
	pcre2_match_data_free(md);
	unlink(mailmap);
	unlink(file);
	rmdir(dir);
}

static void test_missing_file(void **state)
{
	struct pr_maint *m = NULL;

	(void)state;
	assert_int_equal(pr_maint_load(&m, DIR "/nonexistent", DIR), PR_ENOENT);
	assert_null(m);
	assert_non_null(strstr(pr_error_message(), "nonexistent"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_file_entries),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_email),
		cmocka_unit_test(test_mailmap),
		cmocka_unit_test(test_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
