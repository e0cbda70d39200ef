#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "exec_proc.h"

/* The log file: what the command printed, up to log_cap. */
static void test_log_and_caps(void **state)
{
	const char *const argv[] = { "sh", "-c",
				     "printf 'one\\ntwo\\nthree\\n'; exit 4",
				     NULL };
	char path[] = "/tmp/test_exec_proc.XXXXXX";
	struct pr_buf out = PR_BUF_INIT, log = PR_BUF_INIT;
	struct pr_proc_result res;
	struct pr_proc p;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	pr_proc_init(&p);
	p.argv = argv;
	p.output_cap = 4;
	p.log_fd = fd;
	p.log_cap = 8;
	assert_int_equal(pr_proc_run(&res, &out, &p), 0);
	assert_int_equal(res.status, 4);
	assert_false(res.timed_out);
	assert_int_equal(res.bytes, 14);
	assert_int_equal(res.dropped, 10);
	assert_int_equal(res.log_dropped, 6);
	assert_string_equal(out.ptr, "one\n");
	assert_int_equal(pr_buf_read_file(&log, path), 0);
	assert_string_equal(log.ptr, "one\ntwo\n");
	close(fd);
	unlink(path);
	pr_buf_release(&out);
	pr_buf_release(&log);
}

/* env strings are added, cwd is where it runs, input is its stdin. */
static void test_env_cwd_input(void **state)
{
	const char *const argv[] = {
		"sh", "-c", "echo \"$PR_X\" \"$(pwd)\" \"${HOME-unset}\"; cat",
		NULL
	};
	const char *const env[] = { "PR_X=a b=c", "HOME", NULL };
	struct pr_buf out = PR_BUF_INIT, in = PR_BUF_INIT;
	struct pr_proc_result res;
	struct pr_proc p;

	pr_buf_adds(&in, "from stdin\n");
	pr_proc_init(&p);
	p.argv = argv;
	p.env = env;
	p.cwd = "/";
	p.input = &in;
	assert_int_equal(pr_proc_run(&res, &out, &p), 0);
	assert_int_equal(res.status, 0);
	assert_string_equal(out.ptr, "a b=c / unset\nfrom stdin\n");
	assert_null(getenv("PR_X"));
	pr_buf_release(&out);
	pr_buf_release(&in);
}

struct ticks {
	int calls;
	uint64_t last_lines;
};

static void on_progress(const struct pr_proc_progress *pg, void *payload)
{
	struct ticks *t = payload;

	t->calls++;
	t->last_lines = pg->lines;
	assert_true(pg->elapsed_ms >= 0);
}

/* A command still running is reported every progress_ms. */
static void test_progress(void **state)
{
	const char *const argv[] = { "sh", "-c", "echo a; echo b; sleep 1",
				     NULL };
	struct pr_proc_result res;
	struct ticks t = { 0, 0 };
	struct pr_proc p;

	pr_proc_init(&p);
	p.argv = argv;
	p.output_cap = 0;
	p.progress_ms = 200;
	p.progress = on_progress;
	p.payload = &t;
	assert_int_equal(pr_proc_run(&res, NULL, &p), 0);
	assert_int_equal(res.status, 0);
	assert_true(t.calls >= 2);
	assert_int_equal(t.last_lines, 2);
	assert_true(res.elapsed_ms >= 1000);
}

/* A pid that no longer runs: no /proc entry, or a zombie. */
static bool gone(long pid)
{
	struct pr_buf stat = PR_BUF_INIT, path = PR_BUF_INIT;
	const char *paren;
	bool dead = false;
	int i;

	pr_buf_addf(&path, "/proc/%ld/stat", pid);
	for (i = 0; i < 100 && !dead; i++) {
		pr_buf_reset(&stat);
		if (pr_buf_read_file(&stat, path.ptr) < 0)
			dead = true;
		else if ((paren = strrchr(stat.ptr, ')')) && paren[1] &&
			 paren[2] == 'Z')
			dead = true;
		else
			usleep(20000);
	}
	pr_buf_release(&stat);
	pr_buf_release(&path);
	return dead;
}

/* At the timeout the whole group goes, a background child included. */
static void test_timeout_kills_group(void **state)
{
	const char *const argv[] = { "sh", "-c", "sleep 30 & echo $!; wait",
				     NULL };
	struct pr_buf out = PR_BUF_INIT;
	struct pr_proc_result res;
	struct pr_proc p;
	long child;

	pr_proc_init(&p);
	p.argv = argv;
	p.timeout_ms = 300;
	assert_int_equal(pr_proc_run(&res, &out, &p), 0);
	assert_true(res.timed_out);
	assert_int_equal(res.status, -SIGKILL);
	assert_true(res.elapsed_ms < 5000);
	child = strtol(out.ptr, NULL, 10);
	assert_true(child > 0);
	assert_true(gone(child));
	pr_buf_release(&out);
}

static void test_not_found(void **state)
{
	const char *const argv[] = { "/nonexistent/command", NULL };
	struct pr_proc_result res;
	struct pr_proc p;

	pr_proc_init(&p);
	p.argv = argv;
	assert_int_equal(pr_proc_run(&res, NULL, &p), 0);
	assert_int_equal(res.status, 127);
	p.argv = NULL;
	assert_int_equal(pr_proc_run(&res, NULL, &p), PR_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_and_caps),
		cmocka_unit_test(test_env_cwd_input),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_not_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
