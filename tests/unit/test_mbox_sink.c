#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <unistd.h>

#include "connectors.h"
#include "engine/delivery.h"

struct fixture {
	char dir[64];
	char path[128];
	struct pr_mbox_ctx ctx;
	struct pr_instance inst;
};

static int setup(void **state)
{
	struct fixture *f = pr_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pr-mbox-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/out.mbox", f->dir);
	f->ctx.path = f->path;
	f->inst.name = "box";
	f->inst.kind = "sink";
	f->inst.ctx = &f->ctx;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* As git format-patch writes them, plus lines that need mboxrd quoting. */
static const char *const mails[] = {
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 "
	"2001\nFrom: A <a@example.org>\nSubject: [PATCH 1/2] y\n\n"
	"From the start\n>From quoted\n---\n a | 1 +\n-- \n2.39.5\n\n",
	"From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 "
	"2001\nFrom: A <a@example.org>\nSubject: [PATCH 2/2] z\n\nbody\n"
	"-- \n2.39.5\n\n",
};

static int deliver(struct fixture *f, const char *key, size_t i)
{
	struct pr_delivery d = { key, i, PR_ARRAY_SIZE(mails), mails[i],
				 strlen(mails[i]) };
	struct pr_deliver_result r = { PR_DELIVER_REJECTED, 0, NULL };
	int err;

	err = pr_connector_mbox.deliver(&f->inst, &d, &r);
	if (!err)
		assert_int_equal(r.status, PR_DELIVER_OK);
	return err;
}

/* Split the mbox with git mailsplit --mboxrd and compare with mails[]. */
static void check_with_mailsplit(struct fixture *f, size_t expect)
{
	struct pr_buf b = PR_BUF_INIT;
	char cmd[512], file[256];
	size_t i;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && rm -rf split && mkdir split && git mailsplit "
		 "--mboxrd -osplit out.mbox > count",
		 f->dir);
	assert_int_equal(system(cmd), 0);
	snprintf(file, sizeof(file), "%s/count", f->dir);
	assert_int_equal(pr_buf_read_file(&b, file), 0);
	assert_int_equal(strtol(b.ptr, NULL, 10), (long)expect);
	for (i = 0; i < expect; i++) {
		const char *m = mails[i % PR_ARRAY_SIZE(mails)];

		snprintf(file, sizeof(file), "%s/split/%04zu", f->dir, i + 1);
		pr_buf_reset(&b);
		assert_int_equal(pr_buf_read_file(&b, file), 0);
		assert_string_equal(b.ptr, m);
	}
	pr_buf_release(&b);
}

static void test_append_exactly_once(void **state)
{
	struct fixture *f = *state;
	struct pr_buf b = PR_BUF_INIT, again = PR_BUF_INIT;

	assert_int_equal(deliver(f, "s1-v1-box", 0), 0);
	assert_int_equal(deliver(f, "s1-v1-box", 1), 0);
	check_with_mailsplit(f, 2);
	assert_int_equal(pr_buf_read_file(&b, f->path), 0);
	assert_non_null(strstr(b.ptr, "\n>From the start\n>>From quoted\n"));
	assert_int_equal(deliver(f, "s1-v1-box", 0), 0);
	assert_int_equal(deliver(f, "s1-v1-box", 1), 0);
	assert_int_equal(pr_buf_read_file(&again, f->path), 0);
	assert_string_equal(again.ptr, b.ptr);
	pr_buf_release(&b);
	pr_buf_release(&again);
}

static void test_crash_mid_write(void **state)
{
	struct fixture *f = *state;
	struct pr_buf journal = PR_BUF_INIT;
	char file[256];
	long size;
	FILE *fp;

	assert_int_equal(deliver(f, "k", 0), 0);
	fp = fopen(f->path, "r");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	/* a crash after "begin" and half of message 1 */
	snprintf(file, sizeof(file), "%s.patchrelay", f->path);
	fp = fopen(file, "a");
	assert_non_null(fp);
	fprintf(fp, "begin k.1 %ld\n", size);
	fclose(fp);
	fp = fopen(f->path, "a");
	assert_non_null(fp);
	fputs("From 2222 Mon Sep 17 00:00:00 2001\nFrom: A", fp);
	fclose(fp);
	assert_int_equal(deliver(f, "k", 1), 0);
	check_with_mailsplit(f, 2);
	/* the journal now says done: a further retry writes nothing */
	assert_int_equal(pr_buf_read_file(&journal, file), 0);
	assert_non_null(strstr(journal.ptr, "begin k.1 "));
	assert_non_null(strstr(journal.ptr, "\ndone k.1\n"));
	assert_int_equal(deliver(f, "k", 1), 0);
	check_with_mailsplit(f, 2);
	pr_buf_release(&journal);
}

static void test_crash_before_done(void **state)
{
	struct fixture *f = *state;
	char file[256];
	long size;
	FILE *fp;

	assert_int_equal(deliver(f, "k", 0), 0);
	fp = fopen(f->path, "r");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	/* a crash after the whole of message 1 but before "done" */
	snprintf(file, sizeof(file), "%s.patchrelay", f->path);
	fp = fopen(file, "a");
	assert_non_null(fp);
	fprintf(fp, "begin k.1 %ld\n", size);
	fclose(fp);
	fp = fopen(f->path, "a");
	assert_non_null(fp);
	fputs(mails[1], fp);
	fclose(fp);
	check_with_mailsplit(f, 2);
	assert_int_equal(deliver(f, "k", 1), 0);
	check_with_mailsplit(f, 2);
}

static void test_unwritable(void **state)
{
	struct fixture *f = *state;

	f->ctx.path = f->dir; /* a directory */
	assert_int_equal(deliver(f, "k", 0), PR_EIO);
	assert_non_null(strstr(pr_error_message(), "sink 'box': mbox"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_append_exactly_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_crash_mid_write, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_crash_before_done, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unwritable, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
