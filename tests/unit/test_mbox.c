#include "base/pr.h"
#include <sys/stat.h>
#include <unistd.h>
#include "mail/mbox.h"

#include <setjmp.h>
#include <cmocka.h>

struct seen {
	char *msgs[8];
	size_t lines[8];
	size_t nr;
};

static int collect(const char *data, size_t len, const struct pr_mbox_where *w,
		   void *payload)
{
	struct seen *s = payload;

	if (s->nr >= 8)
		return -100;
	assert_true(w->number >= 1);
	s->lines[s->nr] = w->line;
	s->msgs[s->nr++] = pr_memdup(data, len);
	return 0;
}

static void release(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->msgs[i]);
	s->nr = 0;
}

static void test_mboxo_crlf(void **state)
{
	static const char m[] = "From a Mon Sep 17 00:00:00 2001\r\n"
				"Subject: one\r\n\r\n>From x\r\n"
				"From not a separator\n"
				"From b Mon Sep 17 00:00:00 2001\n"
				"Subject: two\n\nbody";
	struct seen s = { { 0 } };

	assert_int_equal(
		pr_mbox_split(m, strlen(m), "t.mbox", NULL, collect, &s), 0);
	assert_int_equal(s.nr, 2);
	assert_string_equal(s.msgs[0], "From a Mon Sep 17 00:00:00 2001\n"
				       "Subject: one\n\n>From x\n"
				       "From not a separator\n");
	assert_string_equal(s.msgs[1], "From b Mon Sep 17 00:00:00 2001\n"
				       "Subject: two\n\nbody");
	assert_int_equal(s.lines[0], 1);
	assert_int_equal(s.lines[1], 6);
	release(&s);
}

static void test_mboxrd(void **state)
{
	static const char m[] = "From a Mon Sep 17 00:00:00 2001\n"
				"Subject: one\n\n>From x\n>>From y\n>Fromage\n";
	struct pr_mbox_opts o = { true };
	struct seen s = { { 0 } };

	assert_int_equal(pr_mbox_split(m, strlen(m), "t", &o, collect, &s), 0);
	assert_int_equal(s.nr, 1);
	assert_string_equal(s.msgs[0], "From a Mon Sep 17 00:00:00 2001\n"
				       "Subject: one\n\nFrom x\n>From y\n"
				       ">Fromage\n");
	release(&s);
}

static void test_single_and_stop(void **state)
{
	static const char m[] =
		"Subject: x\n\nFrom a Mon Sep 17 00:00:00 2001\n";
	struct seen s = { { 0 } };

	assert_int_equal(pr_mbox_split(m, strlen(m), "t", NULL, collect, &s),
			 0);
	assert_int_equal(s.nr, 1);
	assert_string_equal(s.msgs[0], m);
	release(&s);
	s.nr = 8;
	assert_int_equal(pr_mbox_split(m, strlen(m), "t", NULL, collect, &s),
			 -100);
	s.nr = 0;
}

static void test_from_line(void **state)
{
	assert_true(
		pr_mbox_is_from_line("From x Mon Sep 17 00:00:00 2001\n", 32));
	assert_true(
		pr_mbox_is_from_line("From a@b Thu Jan  4 12:34:56 2024", 33));
	assert_false(pr_mbox_is_from_line("From me to you, with love\n", 26));
	assert_false(pr_mbox_is_from_line("From x Mon Sep 17 00:00:00 0", 28));
}

static void test_maildir(void **state)
{
	char dir[] = "/tmp/pr-maildir-XXXXXX";
	struct pr_buf p = PR_BUF_INIT;
	struct seen s = { { 0 } };
	FILE *f;

	assert_non_null(mkdtemp(dir));
	pr_buf_addf(&p, "%s/cur", dir);
	assert_int_equal(mkdir(p.ptr, 0700), 0);
	pr_buf_reset(&p);
	pr_buf_addf(&p, "%s/new", dir);
	assert_int_equal(mkdir(p.ptr, 0700), 0);
	pr_buf_reset(&p);
	pr_buf_addf(&p, "%s/new/2", dir);
	f = fopen(p.ptr, "w");
	fputs("Subject: b\n\nB\n", f);
	fclose(f);
	pr_buf_reset(&p);
	pr_buf_addf(&p, "%s/cur/1", dir);
	f = fopen(p.ptr, "w");
	fputs("Subject: a\n\nA\n", f);
	fclose(f);
	assert_int_equal(pr_mbox_read_path(dir, NULL, collect, &s), 0);
	assert_int_equal(s.nr, 2);
	assert_string_equal(s.msgs[0], "Subject: a\n\nA\n");
	assert_string_equal(s.msgs[1], "Subject: b\n\nB\n");
	release(&s);
	unlink(p.ptr);
	pr_buf_reset(&p);
	pr_buf_addf(&p, "%s/new/2", dir);
	unlink(p.ptr);
	pr_buf_reset(&p);
	pr_buf_addf(&p, "%s/new", dir);
	rmdir(p.ptr);
	pr_buf_reset(&p);
	pr_buf_addf(&p, "%s/cur", dir);
	rmdir(p.ptr);
	rmdir(dir);
	assert_int_equal(pr_mbox_read_path(dir, NULL, collect, &s), PR_ENOENT);
	pr_buf_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mboxo_crlf),
		cmocka_unit_test(test_mboxrd),
		cmocka_unit_test(test_single_and_stop),
		cmocka_unit_test(test_from_line),
		cmocka_unit_test(test_maildir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
