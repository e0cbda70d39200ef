#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/http.h"

/*
 * core/base/http.c: the Link parser and the escaper as plain units; requests
 * against tests/data/http/server.py (a stdlib server started per test
 * run) for headers, ETag/304, rate-limit headers and the body cap.
 */

static void test_link_rel(void **state)
{
	struct pr_buf b = PR_BUF_INIT;
	const char *gh = "<https://api.github.com/repos/o/r/pulls?page=2>; "
			 "rel=\"next\", "
			 "<https://api.github.com/repos/o/r/pulls?page=5>; "
			 "rel=\"last\"";

	assert_int_equal(pr_http_link_rel(&b, gh, "next"), 1);
	assert_string_equal(b.ptr,
			    "https://api.github.com/repos/o/r/pulls?page=2");
	pr_buf_reset(&b);
	assert_int_equal(pr_http_link_rel(&b, gh, "last"), 1);
	assert_string_equal(b.ptr,
			    "https://api.github.com/repos/o/r/pulls?page=5");
	pr_buf_reset(&b);
	assert_int_equal(pr_http_link_rel(&b, gh, "prev"), 0);
	assert_int_equal(b.len, 0);
	/* "nextish" is not "next"; the rel after it is */
	assert_int_equal(pr_http_link_rel(&b,
					  "<http://a/1>; rel=\"nextish\", "
					  "<http://a/2>; rel=\"next\"",
					  "next"),
			 1);
	assert_string_equal(b.ptr, "http://a/2");
	pr_buf_reset(&b);
	/* several relations in one value, unquoted rel, other params */
	assert_int_equal(pr_http_link_rel(&b,
					  "<http://a/3>; type=\"x\"; "
					  "rel=\"prev next\"",
					  "next"),
			 1);
	assert_string_equal(b.ptr, "http://a/3");
	pr_buf_reset(&b);
	/* a parameter named like rel is not rel */
	assert_int_equal(
		pr_http_link_rel(&b, "<http://a/7>; xrel=\"next\"", "next"), 0);
	assert_int_equal(pr_http_link_rel(&b, "<http://a/4>; rel=next", "next"),
			 1);
	assert_string_equal(b.ptr, "http://a/4");
	pr_buf_reset(&b);
	/* a comma inside the URL does not split the entry */
	assert_int_equal(pr_http_link_rel(&b,
					  "<http://a/x?q=1,2>; rel=\"next\"",
					  "next"),
			 1);
	assert_string_equal(b.ptr, "http://a/x?q=1,2");
	pr_buf_reset(&b);
	/* broken values find nothing */
	assert_int_equal(pr_http_link_rel(&b, "", "next"), 0);
	assert_int_equal(pr_http_link_rel(&b, NULL, "next"), 0);
	assert_int_equal(
		pr_http_link_rel(&b, "<http://a/5; rel=\"next\"", "next"), 0);
	assert_int_equal(
		pr_http_link_rel(&b, "http://a/6; rel=\"next\"", "next"), 0);
	assert_int_equal(b.len, 0);
	pr_buf_release(&b);
}

static void test_escape(void **state)
{
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(pr_http_escape(&b, "grp/sub proj~a-b_c.d"), 0);
	assert_string_equal(b.ptr, "grp%2Fsub%20proj~a-b_c.d");
	pr_buf_reset(&b);
	assert_int_equal(pr_http_escape(&b, "\xc3\xa9&=?#"), 0);
	assert_string_equal(b.ptr, "%C3%A9%26%3D%3F%23");
	pr_buf_release(&b);
}

struct server {
	pid_t pid;
	char base[64];
	char dir[64];
};

static int server_up(void **state)
{
	struct server *s = pr_calloc(1, sizeof(*s));
	struct pr_buf port = PR_BUF_INIT, file = PR_BUF_INIT;
	int i;

	snprintf(s->dir, sizeof(s->dir), "/tmp/pr-http-XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	assert_int_equal(pr_buf_addf(&file, "%s/port", s->dir), 0);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (!s->pid) {
		execl("/usr/bin/python3", "python3",
		      PR_TEST_DATA "/http/server.py", file.ptr, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {
		pr_buf_reset(&port);
		if (pr_buf_read_file(&port, file.ptr) == 0 && port.len)
			break;
		usleep(50000);
	}
	pr_error_clear();
	assert_true(port.len > 0);
	snprintf(s->base, sizeof(s->base), "http://127.0.0.1:%s", port.ptr);
	pr_buf_release(&port);
	pr_buf_release(&file);
	*state = s;
	return 0;
}

static int server_down(void **state)
{
	struct server *s = *state;
	struct pr_buf f = PR_BUF_INIT;

	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
	pr_buf_addf(&f, "%s/port", s->dir);
	unlink(f.ptr);
	rmdir(s->dir);
	pr_buf_release(&f);
	free(s);
	return 0;
}

static int get(struct pr_http_response *r, const struct server *s,
	       const struct pr_http_client *c, const char *method,
	       const char *path, const char *body, const char *etag)
{
	struct pr_buf url = PR_BUF_INIT;
	int err;

	pr_buf_addf(&url, "%s%s", s->base, path);
	err = pr_http_request(r, c, method, url.ptr, body, etag);
	pr_buf_release(&url);
	return err;
}

static void test_headers_and_body(void **state)
{
	const struct server *s = *state;
	static const char *const extra[] = { "Accept: application/x-test",
					     NULL };
	struct pr_http_client c = { "patchrelay-test/1",
				    NULL,
				    "Authorization: Bearer %s",
				    "s3cret",
				    extra,
				    5000,
				    0,
				    NULL };
	struct pr_http_response r = { 0 };
	json_t *j, *h;

	assert_int_equal(get(&r, s, &c, "POST", "/echo", "{\"a\":1}", NULL), 0);
	assert_int_equal(r.status, 200);
	j = json_loads(r.body.ptr, 0, NULL);
	assert_non_null(j);
	h = json_object_get(j, "headers");
	assert_string_equal(json_string_value(json_object_get(j, "method")),
			    "POST");
	assert_string_equal(json_string_value(json_object_get(j, "body")),
			    "{\"a\":1}");
	assert_string_equal(
		json_string_value(json_object_get(h, "authorization")),
		"Bearer s3cret");
	assert_string_equal(json_string_value(json_object_get(h, "user-agent")),
			    "patchrelay-test/1");
	assert_string_equal(json_string_value(json_object_get(h, "accept")),
			    "application/x-test");
	assert_string_equal(
		json_string_value(json_object_get(h, "content-type")),
		"application/json");
	assert_null(json_object_get(h, "if-none-match"));
	json_decref(j);
	pr_http_response_release(&r);

	/* no token: no auth header; GET without a body */
	c.token = NULL;
	assert_int_equal(get(&r, s, &c, "GET", "/echo", NULL, NULL), 0);
	j = json_loads(r.body.ptr, 0, NULL);
	h = json_object_get(j, "headers");
	assert_null(json_object_get(h, "authorization"));
	assert_string_equal(json_string_value(json_object_get(j, "method")),
			    "GET");
	json_decref(j);
	pr_http_response_release(&r);

	/* PATCH with a body keeps its method */
	assert_int_equal(get(&r, s, &c, "PATCH", "/echo", "{}", NULL), 0);
	j = json_loads(r.body.ptr, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "method")),
			    "PATCH");
	json_decref(j);
	pr_http_response_release(&r);
}

static void test_etag_304(void **state)
{
	const struct server *s = *state;
	struct pr_http_client c = { 0 };
	struct pr_http_response r = { 0 };

	assert_int_equal(get(&r, s, &c, "GET", "/etag", NULL, NULL), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.etag, "\"abc\"");
	assert_string_equal(r.body.ptr, "[]");
	pr_http_response_release(&r);
	assert_int_equal(get(&r, s, &c, "GET", "/etag", NULL, "\"abc\""), 0);
	assert_int_equal(r.status, 304);
	assert_int_equal(r.body.len, 0);
	pr_http_response_release(&r);
	assert_int_equal(get(&r, s, &c, "GET", "/etag", NULL, "\"old\""), 0);
	assert_int_equal(r.status, 200);
	pr_http_response_release(&r);
}

/* With a share, the next request goes over the same connection. */
static void test_share_keeps_connection(void **state)
{
	const struct server *s = *state;
	struct pr_http_client c = { 0 };
	struct pr_http_response r = { 0 };
	struct pr_buf first = PR_BUF_INIT;

	c.share = pr_http_share_new();
	assert_non_null(c.share);
	assert_int_equal(get(&r, s, &c, "GET", "/conn", NULL, NULL), 0);
	assert_int_equal(r.status, 200);
	pr_buf_addbuf(&first, &r.body);
	pr_http_response_release(&r);
	assert_int_equal(get(&r, s, &c, "GET", "/conn", NULL, NULL), 0);
	assert_string_equal(r.body.ptr, first.ptr);
	pr_http_response_release(&r);
	pr_http_share_free(c.share);
	/* without one, each request has a connection of its own */
	c.share = NULL;
	assert_int_equal(get(&r, s, &c, "GET", "/conn", NULL, NULL), 0);
	assert_string_not_equal(r.body.ptr, first.ptr);
	pr_http_response_release(&r);
	pr_buf_release(&first);
}

/* The port a request on c came from (the body of /conn, /close...). */
static void port_of(struct pr_buf *out, const struct server *s,
		    const struct pr_http_client *c, const char *path)
{
	struct pr_http_response r = { 0 };

	assert_int_equal(get(&r, s, c, "GET", path, NULL, NULL), 0);
	assert_int_equal(r.status, 200);
	pr_buf_reset(out);
	pr_buf_addbuf(out, &r.body);
	pr_http_response_release(&r);
}

/*
 * A kept connection the server closed, after an answer or as the next
 * request came, is replaced without an error; the sockets are
 * close-on-exec.
 */
static void test_share_reopens(void **state)
{
	const struct server *s = *state;
	struct pr_http_client c = { 0 };
	struct pr_buf a = PR_BUF_INIT, b = PR_BUF_INIT;
	struct pr_http_response r = { 0 };
	struct stat st;
	json_t *j;
	int fd, sockets = 0;

	c.share = pr_http_share_new();
	port_of(&a, s, &c, "/close");
	port_of(&b, s, &c, "/conn");
	assert_string_not_equal(a.ptr, b.ptr);
	port_of(&a, s, &c, "/dropnext");
	assert_string_equal(a.ptr, b.ptr);
	port_of(&b, s, &c, "/conn");
	assert_string_not_equal(a.ptr, b.ptr);
	/* a write goes again whole, with its body */
	port_of(&a, s, &c, "/dropnext");
	assert_int_equal(get(&r, s, &c, "PATCH", "/echo", "{\"b\":2}", NULL),
			 0);
	assert_int_equal(r.status, 200);
	j = json_loads(r.body.ptr, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "method")),
			    "PATCH");
	assert_string_equal(json_string_value(json_object_get(j, "body")),
			    "{\"b\":2}");
	json_decref(j);
	pr_http_response_release(&r);
	/* the kept connection is open here */
	for (fd = 3; fd < 1024; fd++) {
		if (fstat(fd, &st) || !S_ISSOCK(st.st_mode))
			continue;
		sockets++;
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	}
	assert_true(sockets > 0);
	pr_http_share_free(c.share);
	pr_buf_release(&a);
	pr_buf_release(&b);
}

static void test_status_and_limits(void **state)
{
	const struct server *s = *state;
	struct pr_http_client c = { 0 };
	struct pr_http_response r = { 0 };

	/* any HTTP answer is 0 with the status; the caller decides */
	assert_int_equal(get(&r, s, &c, "GET", "/nothing", NULL, NULL), 0);
	assert_int_equal(r.status, 404);
	assert_int_equal(r.ratelimit_remaining, -1);
	assert_int_equal(r.retry_after, -1);
	pr_http_response_release(&r);
	assert_int_equal(get(&r, s, &c, "GET", "/limited", NULL, NULL), 0);
	assert_int_equal(r.status, 403);
	assert_int_equal(r.ratelimit_remaining, 0);
	assert_int_equal(r.ratelimit_reset, 2000000000);
	pr_http_response_release(&r);
	assert_int_equal(get(&r, s, &c, "GET", "/retry", NULL, NULL), 0);
	assert_int_equal(r.status, 429);
	assert_int_equal(r.retry_after, 7);
	pr_http_response_release(&r);
	assert_int_equal(get(&r, s, &c, "GET", "/pages", NULL, NULL), 0);
	assert_string_equal(r.next_page, "2");
	assert_string_equal(r.total, "9");
	assert_non_null(strstr(r.link, "rel=\"next\""));
	pr_http_response_release(&r);
}

/* When to ask again: Retry-After, a used-up limit's reset, a 429's minute */
static void test_rate_limited(void **state)
{
	struct pr_http_response r = { 0 };
	int64_t until = 0;

	PR_UNUSED(state);
	r.ratelimit_remaining = r.ratelimit_reset = r.retry_after = -1;
	r.status = 500;
	assert_false(pr_http_rate_limited(&until, &r, 1000));
	r.status = 503;
	assert_false(pr_http_rate_limited(&until, &r, 1000));
	r.retry_after = 7;
	assert_true(pr_http_rate_limited(&until, &r, 1000));
	assert_int_equal(until, 1007);
	r.status = 403;
	r.retry_after = -1;
	assert_false(pr_http_rate_limited(&until, &r, 1000));
	r.ratelimit_remaining = 0;
	r.ratelimit_reset = 1500;
	assert_true(pr_http_rate_limited(&until, &r, 1000));
	assert_int_equal(until, 1500);
	r.ratelimit_reset = 900; /* a reset already past: at once */
	assert_true(pr_http_rate_limited(&until, &r, 1000));
	assert_int_equal(until, 1001);
	r.status = 429;
	r.ratelimit_remaining = r.ratelimit_reset = -1;
	assert_true(pr_http_rate_limited(&until, &r, 1000));
	assert_int_equal(until, 1060);
}

static void test_body_cap(void **state)
{
	const struct server *s = *state;
	struct pr_http_client c = { 0 };
	struct pr_http_response r = { 0 };

	c.max_body = 1000;
	assert_int_equal(get(&r, s, &c, "GET", "/big", NULL, NULL), PR_ETOOBIG);
	assert_non_null(strstr(pr_error_message(), "/big"));
	pr_http_response_release(&r);
	c.max_body = 0;
	assert_int_equal(get(&r, s, &c, "GET", "/big", NULL, NULL), 0);
	assert_int_equal(r.body.len, 100000);
	pr_http_response_release(&r);
}

static void test_transport_failure(void **state)
{
	struct pr_http_client c = { 0 };
	struct pr_http_response r = { 0 };

	c.timeout_ms = 2000;
	/* port 9 (discard) on loopback: nobody listens */
	assert_int_equal(pr_http_request(&r, &c, "GET", "http://127.0.0.1:9/x",
					 NULL, NULL),
			 PR_ENET);
	assert_non_null(strstr(pr_error_message(), "http://127.0.0.1:9/x"));
	pr_http_response_release(&r);
	/* a scheme other than http(s) is refused */
	assert_true(pr_http_request(&r, &c, "GET", "file:///etc/passwd", NULL,
				    NULL) < 0);
	pr_http_response_release(&r);
}

int main(void)
{
	const struct CMUnitTest units[] = {
		cmocka_unit_test(test_link_rel),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_rate_limited),
		cmocka_unit_test(test_transport_failure),
	};
	const struct CMUnitTest net[] = {
		cmocka_unit_test(test_headers_and_body),
		cmocka_unit_test(test_share_keeps_connection),
		cmocka_unit_test(test_share_reopens),
		cmocka_unit_test(test_etag_304),
		cmocka_unit_test(test_status_and_limits),
		cmocka_unit_test(test_body_cap),
	};
	int fails = cmocka_run_group_tests(units, NULL, NULL);

	return fails + cmocka_run_group_tests(net, server_up, server_down);
}
