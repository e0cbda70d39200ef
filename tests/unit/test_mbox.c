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

/* Every message in a digest: its place, its bytes, and the NUL after them. */
static int digest(const char *data, size_t len, const struct pr_mbox_where *w,
		  void *payload)
{
	struct pr_buf *d = payload;

	assert_int_equal(data[len], '\0');
	pr_buf_addf(d, "[%zu %zu %zu]", w->number, w->line, len);
	pr_buf_add(d, data, len);
	return 0;
}

/*
 * A file of many reads' worth (messages and lines across the reads, CRs,
 * escaped "From " lines, a line longer than a read) gives the messages the
 * same bytes split in memory gives.
 */
static void test_file_in_chunks(void **state)
{
	char path[] = "/tmp/pr-mbox-XXXXXX";
	struct pr_buf in = PR_BUF_INIT, a = PR_BUF_INIT, b = PR_BUF_INIT;
	struct pr_mbox_opts o = { false };
	unsigned int seed = 1;
	int fd, i, k, rd;

	pr_buf_adds(&in, "\n \n");
	for (i = 0; i < 3000; i++) {
		pr_buf_adds(&in, "From x Mon Sep 17 00:00:00 2001\n");
		pr_buf_addf(&in, "Subject: %d\n\n", i);
		seed = seed * 1103515245 + 12345;
		for (k = 0; k < (int)(seed >> 16) % 40; k++)
			pr_buf_adds(&in,
				    k % 7 ? "a body line\n" : ">From x\r\n");
		if (i == 1000)
			for (k = 0; k <= 300000; k++)
				pr_buf_addch(&in, k < 300000 ? 'x' : '\n');
	}
	pr_buf_adds(&in, "no newline at the end");
	assert_true(in.len > 1024 * 1024);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(pr_write_all(fd, in.ptr, in.len), 0);
	close(fd);
	for (rd = 0; rd < 2; rd++) {
		o.mboxrd = rd;
		pr_buf_reset(&a);
		pr_buf_reset(&b);
		assert_int_equal(pr_mbox_read_path(path, &o, digest, &a), 0);
		assert_int_equal(
			pr_mbox_split(in.ptr, in.len, path, &o, digest, &b), 0);
		assert_true(strstr(a.ptr, "[3000 ") != NULL);
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.ptr, b.ptr, a.len);
	}
	unlink(path);
	pr_buf_release(&in);
	pr_buf_release(&a);
	pr_buf_release(&b);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mboxo_crlf),
		cmocka_unit_test(test_mboxrd),
		cmocka_unit_test(test_single_and_stop),
		cmocka_unit_test(test_from_line),
		cmocka_unit_test(test_maildir),
		cmocka_unit_test(test_file_in_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
