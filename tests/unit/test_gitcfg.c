#include "base/pr.h"
#include "git/gitcfg.h"

#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

/*
 * The expected answers are git 2.39's: `GIT_CONFIG_PARAMETERS=... git
 * config --list --show-scope` lists the same command-scope entries, or
 * refuses the same inputs.
 */

/* the entries of text as "key=value" (or "key" with no value), '|' after each */
static int parse(char *out, size_t size, const char *text)
{
	struct pr_gitcfg cfg = PR_GITCFG_INIT;
	struct pr_buf b = PR_BUF_INIT;
	size_t i;
	int err;

	err = pr_gitcfg_parse_parameters(&cfg, text);
	for (i = 0; i < cfg.nr; i++) {
		pr_buf_adds(&b, cfg.items[i].key);
		if (cfg.items[i].value)
			pr_buf_addf(&b, "=%s", cfg.items[i].value);
		pr_buf_addch(&b, '|');
	}
	snprintf(out, size, "%s", b.ptr);
	pr_buf_release(&b);
	pr_gitcfg_release(&cfg);
	return err;
}

static void test_parameters(void **state)
{
	static const struct {
		const char *in, *want;
	} ok[] = {
		{ "", "" },
		{ "'core.abbrev=9'", "core.abbrev=9|" },
		{ "'core.abbrev'='9'", "core.abbrev=9|" },
		{ "'core.abbrev'='9' ", "core.abbrev=9|" },
		{ "'core.abbrev'=", "core.abbrev|" },
		{ "'core.abbrev'", "core.abbrev|" },
		{ "'core.abbrev='", "core.abbrev=|" },
		{ "'Core.Abbrev=9' 'core.abbrev'='10'",
		  "core.abbrev=9|core.abbrev=10|" },
		{ "'  core.abbrev =8'", "core.abbrev=8|" },
		{ "'x.Sub.Y'='1'", "x.Sub.y=1|" },
		{ "'x..y=1'", "x..y=1|" },
		{ "'x.y'='a'\\!'b'", "x.y=a!b|" },
		{ "'x.y'='it'\\''s'", "x.y=it's|" },
		{ "'a.b=c=d'\t'e.f'='g h'", "a.b=c=d|e.f=g h|" },
	};
	static const char *const bad[] = {
		" ",
		" 'core.abbrev'='9'",
		"core.abbrev=9",
		"'core.abbrev'9",
		"'core.abbrev'='9'x",
		"'core.abbrev",
		"'core.abbrev'='9",
		"'a'\\''b.c=1'",
		"'x.1y=1'",
		"'.x=1'",
		"'x.=1'",
		"'nodot=1'",
		"'=1'",
		"'x.y'=z",
		"'x.y'\\",
	};
	char got[256];
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(ok); i++) {
		if (parse(got, sizeof(got), ok[i].in))
			fail_msg("'%s': %s", ok[i].in, pr_error_message());
		if (strcmp(got, ok[i].want))
			fail_msg("'%s': got '%s', want '%s'", ok[i].in, got,
				 ok[i].want);
	}
	for (i = 0; i < PR_ARRAY_SIZE(bad); i++) {
		if (!parse(got, sizeof(got), bad[i]))
			fail_msg("'%s' accepted as '%s'", bad[i], got);
		/* a failed parse adds nothing */
		assert_string_equal(got, "");
	}
}

/* a failed parse leaves what was there */
static void test_failure_keeps_entries(void **state)
{
	struct pr_gitcfg cfg = PR_GITCFG_INIT;
	const char *v;

	assert_int_equal(pr_gitcfg_add(&cfg, "Core.Abbrev", "9"), 0);
	assert_int_not_equal(
		pr_gitcfg_parse_parameters(&cfg, "'core.abbrev=10' oops"), 0);
	assert_int_equal(cfg.nr, 1);
	assert_true(pr_gitcfg_get(&cfg, "core.abbrev", &v));
	assert_string_equal(v, "9");
	pr_gitcfg_release(&cfg);
}

static void test_env(void **state)
{
	struct pr_gitcfg cfg = PR_GITCFG_INIT;
	const char *v;

	setenv("GIT_CONFIG_COUNT", "2", 1);
	setenv("GIT_CONFIG_KEY_0", "A.B", 1);
	setenv("GIT_CONFIG_VALUE_0", "1", 1);
	setenv("GIT_CONFIG_KEY_1", "c.D.e", 1);
	setenv("GIT_CONFIG_VALUE_1", "", 1);
	setenv("GIT_CONFIG_PARAMETERS", "'a.b'='2'", 1);
	assert_int_equal(pr_gitcfg_read_env(&cfg), 0);
	assert_int_equal(cfg.nr, 3);
	/* the parameters come after the pairs: the last one wins */
	assert_true(pr_gitcfg_get(&cfg, "a.b", &v));
	assert_string_equal(v, "2");
	assert_true(pr_gitcfg_get(&cfg, "c.D.e", &v));
	assert_string_equal(v, "");
	assert_false(pr_gitcfg_get(&cfg, "c.d.e", &v));
	pr_gitcfg_release(&cfg);

	/* git's refusals: a bad count, a missing key or value */
	setenv("GIT_CONFIG_COUNT", "2x", 1);
	assert_int_not_equal(pr_gitcfg_read_env(&cfg), 0);
	setenv("GIT_CONFIG_COUNT", "-1", 1);
	assert_int_not_equal(pr_gitcfg_read_env(&cfg), 0);
	setenv("GIT_CONFIG_COUNT", "3", 1);
	assert_int_not_equal(pr_gitcfg_read_env(&cfg), 0);
	assert_non_null(strstr(pr_error_message(), "GIT_CONFIG_KEY_2"));
	unsetenv("GIT_CONFIG_VALUE_1");
	setenv("GIT_CONFIG_COUNT", "2", 1);
	assert_int_not_equal(pr_gitcfg_read_env(&cfg), 0);
	assert_non_null(strstr(pr_error_message(), "GIT_CONFIG_VALUE_1"));
	assert_int_equal(cfg.nr, 0);
	/* strtoul's leading space and sign are git's too; "" is none */
	setenv("GIT_CONFIG_COUNT", " +1", 1);
	unsetenv("GIT_CONFIG_PARAMETERS");
	assert_int_equal(pr_gitcfg_read_env(&cfg), 0);
	assert_int_equal(cfg.nr, 1);
	pr_gitcfg_release(&cfg);
	setenv("GIT_CONFIG_COUNT", "", 1);
	assert_int_equal(pr_gitcfg_read_env(&cfg), 0);
	assert_int_equal(cfg.nr, 0);
	unsetenv("GIT_CONFIG_COUNT");
	pr_gitcfg_release(&cfg);
}

static void test_bool(void **state)
{
	assert_int_equal(pr_gitcfg_bool(NULL), 1);
	assert_int_equal(pr_gitcfg_bool("TRUE"), 1);
	assert_int_equal(pr_gitcfg_bool("on"), 1);
	assert_int_equal(pr_gitcfg_bool("-3"), 1);
	assert_int_equal(pr_gitcfg_bool(""), 0);
	assert_int_equal(pr_gitcfg_bool("Off"), 0);
	assert_int_equal(pr_gitcfg_bool("0"), 0);
	assert_int_equal(pr_gitcfg_bool("maybe"), -1);
	assert_int_equal(pr_gitcfg_bool("1x"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parameters),
		cmocka_unit_test(test_failure_keeps_entries),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_bool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
