#include "base/pr.h"
#include "engine/cfg.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

static void test_bool(void **state)
{
	bool b = false;

	assert_int_equal(pr_cfg_parse_bool(&b, "YES"), 0);
	assert_true(b);
	assert_int_equal(pr_cfg_parse_bool(&b, "off"), 0);
	assert_false(b);
	assert_int_equal(pr_cfg_parse_bool(&b, "1"), 0);
	assert_true(b);
	assert_int_equal(pr_cfg_parse_bool(&b, "maybe"), PR_EINVAL);
	assert_string_equal(pr_error_message(), "bad boolean 'maybe'");
	assert_true(b);
}

static void test_int(void **state)
{
	int64_t v = 7;

	assert_int_equal(pr_cfg_parse_int(&v, "-42"), 0);
	assert_int_equal(v, -42);
	assert_int_equal(pr_cfg_parse_int(&v, "12x"), PR_EINVAL);
	assert_int_equal(pr_cfg_parse_int(&v, ""), PR_EINVAL);
	assert_int_equal(pr_cfg_parse_int(&v, " 1"), PR_EINVAL);
	assert_int_equal(pr_cfg_parse_int(&v, "99999999999999999999"),
			 PR_EINVAL);
	assert_int_equal(v, -42);
}

static void test_size(void **state)
{
	uint64_t v = 0;

	assert_int_equal(pr_cfg_parse_size(&v, "2M"), 0);
	assert_int_equal(v, 2 * 1024 * 1024);
	assert_int_equal(pr_cfg_parse_size(&v, "512k"), 0);
	assert_int_equal(v, 512 * 1024);
	assert_int_equal(pr_cfg_parse_size(&v, "3g"), 0);
	assert_int_equal(v, 3ULL << 30);
	assert_int_equal(pr_cfg_parse_size(&v, "100"), 0);
	assert_int_equal(v, 100);
	assert_int_equal(pr_cfg_parse_size(&v, "2Q"), PR_EINVAL);
	assert_string_equal(pr_error_message(), "bad size '2Q'");
	assert_int_equal(pr_cfg_parse_size(&v, "-1"), PR_EINVAL);
	assert_int_equal(pr_cfg_parse_size(&v, "2MB"), PR_EINVAL);
	assert_int_equal(pr_cfg_parse_size(&v, "9999999999999G"), PR_EINVAL);
	assert_int_equal(v, 100);
}

static void test_duration(void **state)
{
	int64_t v = 0;

	assert_int_equal(pr_cfg_parse_duration(&v, "30s"), 0);
	assert_int_equal(v, 30000);
	assert_int_equal(pr_cfg_parse_duration(&v, "5m"), 0);
	assert_int_equal(v, 300000);
	assert_int_equal(pr_cfg_parse_duration(&v, "250ms"), 0);
	assert_int_equal(v, 250);
	assert_int_equal(pr_cfg_parse_duration(&v, "2h"), 0);
	assert_int_equal(v, 7200000);
	assert_int_equal(pr_cfg_parse_duration(&v, "10"), 0);
	assert_int_equal(v, 10000);
	assert_int_equal(pr_cfg_parse_duration(&v, "5x"), PR_EINVAL);
	assert_string_equal(pr_error_message(), "bad duration '5x'");
	assert_int_equal(pr_cfg_parse_duration(&v, "-5s"), PR_EINVAL);
	assert_int_equal(pr_cfg_parse_duration(&v, "s"), PR_EINVAL);
	assert_int_equal(v, 10000);
}

static void test_secret(void **state)
{
	char dir[] = "/tmp/pr-cfg-XXXXXX";
	struct pr_buf path = PR_BUF_INIT;
	char *s = NULL;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	pr_buf_addf(&path, "file:%s/token", dir);
	f = fopen(path.ptr + 5, "w");
	assert_non_null(f);
	fputs("s3cret\n", f);
	fclose(f);
	assert_int_equal(pr_cfg_read_secret(&s, path.ptr), 0);
	assert_string_equal(s, "s3cret");
	free(s);
	s = NULL;

	setenv("PR_TEST_SECRET", "from-env", 1);
	assert_int_equal(pr_cfg_read_secret(&s, "env:PR_TEST_SECRET"), 0);
	assert_string_equal(s, "from-env");
	free(s);
	s = NULL;

	unsetenv("PR_TEST_MISSING");
	assert_int_equal(pr_cfg_read_secret(&s, "env:PR_TEST_MISSING"),
			 PR_ENOENT);
	assert_int_equal(pr_cfg_read_secret(&s, "hunter2"), PR_EINVAL);
	/* the raw value may be the secret itself: never in a message */
	assert_null(strstr(pr_error_message(), "hunter2"));
	unlink(path.ptr + 5);
	assert_true(pr_cfg_read_secret(&s, path.ptr) < 0);
	assert_non_null(strstr(pr_error_message(), "token"));
	assert_null(s);
	rmdir(dir);
	pr_buf_release(&path);
}

struct demo_ctx {
	char *name;
	char *token;
	char *mode;
	bool on;
	int64_t n;
	uint64_t sz;
	int64_t ms;
	struct pr_strlist list;
};

static const char *const modes[] = { "a", "b", NULL };

static const struct pr_option demo_opts[] = {
	{ "name", PR_OPT_STRING, NULL, "", offsetof(struct demo_ctx, name),
	  false, NULL },
	{ "token", PR_OPT_SECRET, NULL, "", offsetof(struct demo_ctx, token),
	  false, NULL },
	{ "mode", PR_OPT_ENUM, "a", "", offsetof(struct demo_ctx, mode), false,
	  modes },
	{ "on", PR_OPT_BOOL, NULL, "", offsetof(struct demo_ctx, on), false,
	  NULL },
	{ "n", PR_OPT_INT, NULL, "", offsetof(struct demo_ctx, n), false,
	  NULL },
	{ "sz", PR_OPT_SIZE, NULL, "", offsetof(struct demo_ctx, sz), false,
	  NULL },
	{ "ms", PR_OPT_DURATION, NULL, "", offsetof(struct demo_ctx, ms), false,
	  NULL },
	{ "list", PR_OPT_LIST, NULL, "", offsetof(struct demo_ctx, list), false,
	  NULL },
	PR_OPTIONS_END,
};

static void fmt(struct pr_buf *b, const struct demo_ctx *c, const char *key)
{
	pr_buf_reset(b);
	assert_int_equal(
		pr_cfg_format_option(b, c, pr_cfg_find_option(demo_opts, key)),
		0);
}

/* "HOST:PORT" as written, or the error; "" for a refusal */
static void listen_is(const char *text, const char *want)
{
	struct sockaddr_storage a;
	socklen_t len = 0;
	char host[64] = "";
	char got[96];
	int port = 0;

	if (pr_cfg_parse_listen(&a, &len, text) < 0) {
		assert_string_equal("", want);
		assert_non_null(strstr(pr_error_message(), text));
		return;
	}
	if (a.ss_family == AF_INET) {
		const struct sockaddr_in *v4 = (const struct sockaddr_in *)&a;

		assert_int_equal(len, sizeof(*v4));
		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
		port = ntohs(v4->sin_port);
		snprintf(got, sizeof(got), "%s:%d", host, port);
	} else {
		const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&a;

		assert_int_equal(a.ss_family, AF_INET6);
		assert_int_equal(len, sizeof(*v6));
		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
		port = ntohs(v6->sin6_port);
		snprintf(got, sizeof(got), "[%s]:%d", host, port);
	}
	assert_string_equal(got, want);
}

static void test_listen(void **state)
{
	listen_is("127.0.0.1:8025", "127.0.0.1:8025");
	/* a bare port is loopback, never every interface */
	listen_is("8025", "127.0.0.1:8025");
	listen_is("localhost:0", "127.0.0.1:0");
	listen_is("[::1]:65535", "[::1]:65535");
	listen_is("0.0.0.0:80", "0.0.0.0:80");
	listen_is("[::]:80", "[::]:80");
	listen_is("", "");
	listen_is(":80", "");
	listen_is("127.0.0.1:", "");
	listen_is("127.0.0.1:65536", "");
	listen_is("127.0.0.1:-1", "");
	listen_is("127.0.0.1:+80", "");
	listen_is("127.0.0.1:80x", "");
	listen_is("::1:80", "");
	listen_is("[127.0.0.1]:80", "");
	listen_is("[localhost]:80", "");
	listen_is("example.org:80", "");
	listen_is("256.0.0.1:80", "");
	listen_is("[::1]", "");
	listen_is("*:80", "");
}

static void test_set_and_format(void **state)
{
	struct demo_ctx c = { 0 };
	struct pr_buf b = PR_BUF_INIT;
	const struct pr_option *o;

	setenv("PR_TEST_SECRET", "topsecret", 1);
	assert_null(pr_cfg_find_option(demo_opts, "nope"));
	o = pr_cfg_find_option(demo_opts, "name");
	assert_int_equal(pr_cfg_set_option(&c, o, "one"), 0);
	assert_int_equal(pr_cfg_set_option(&c, o, "two"), 0);
	assert_string_equal(c.name, "two");
	o = pr_cfg_find_option(demo_opts, "token");
	assert_int_equal(pr_cfg_set_option(&c, o, "env:PR_TEST_SECRET"), 0);
	assert_string_equal(c.token, "topsecret");
	fmt(&b, &c, "token");
	assert_string_equal(b.ptr, "<redacted>");
	o = pr_cfg_find_option(demo_opts, "mode");
	assert_int_equal(pr_cfg_set_option(&c, o, "c"), PR_EINVAL);
	assert_string_equal(pr_error_message(), "bad value 'c'");
	assert_int_equal(pr_cfg_set_option(&c, o, "b"), 0);
	assert_int_equal(pr_cfg_set_option(&c,
					   pr_cfg_find_option(demo_opts, "on"),
					   "true"),
			 0);
	assert_int_equal(pr_cfg_set_option(
				 &c, pr_cfg_find_option(demo_opts, "sz"), "1k"),
			 0);
	assert_int_equal(pr_cfg_set_option(
				 &c, pr_cfg_find_option(demo_opts, "ms"), "2s"),
			 0);
	o = pr_cfg_find_option(demo_opts, "list");
	assert_false(pr_cfg_option_is_set(&c, o));
	assert_int_equal(pr_cfg_set_option(&c, o, "x"), 0);
	assert_int_equal(pr_cfg_set_option(&c, o, "y"), 0);
	assert_true(pr_cfg_option_is_set(&c, o));
	assert_int_equal(c.list.nr, 2);
	fmt(&b, &c, "list");
	assert_string_equal(b.ptr, "x, y");
	fmt(&b, &c, "on");
	assert_string_equal(b.ptr, "true");
	fmt(&b, &c, "sz");
	assert_string_equal(b.ptr, "1024");
	fmt(&b, &c, "ms");
	assert_string_equal(b.ptr, "2000ms");
	fmt(&b, &c, "mode");
	assert_string_equal(b.ptr, "b");
	assert_string_equal(pr_cfg_type_name(PR_OPT_DURATION), "duration");
	pr_cfg_options_release(&c, demo_opts);
	assert_null(c.name);
	assert_null(c.token);
	assert_int_equal(c.list.nr, 0);
	pr_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_secret),
		cmocka_unit_test(test_listen),
		cmocka_unit_test(test_set_and_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
