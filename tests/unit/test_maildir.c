#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connectors.h"
#include "engine/delivery.h"

struct fixture {
	char dir[64];
	char path[128];
	struct pr_maildir_ctx ctx;
	struct pr_instance inst;
};

static int setup(void **state)
{
	struct fixture *f = pr_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pr-maildir-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	/* a maildir whose parent does not exist yet */
	snprintf(f->path, sizeof(f->path), "%s/a/box", f->dir);
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

static size_t count_files(const char *path, const char *sub)
{
	char dir[256];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", path, sub);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void read_back(struct pr_buf *out, const char *path, const char *sub,
		      const char *name)
{
	char file[512];

	snprintf(file, sizeof(file), "%s/%s/%s", path, sub, name);
	pr_buf_reset(out);
	assert_int_equal(pr_buf_read_file(out, file), 0);
}

static const char *const mails[] = {
	"From: a@example.org\nSubject: [PATCH 0/2] x\n\ncover\n",
	"From: a@example.org\nSubject: [PATCH 1/2] y\n\nFrom the start\n",
	"From: a@example.org\nSubject: [PATCH 2/2] z\n\n\n",
};

static int deliver(struct fixture *f, const char *key, size_t i)
{
	const char *mail = mails[i % PR_ARRAY_SIZE(mails)];
	struct pr_delivery d = { key, i, PR_ARRAY_SIZE(mails), mail,
				 strlen(mail) };
	struct pr_deliver_result r = { PR_DELIVER_REJECTED, 0, NULL };
	int err;

	err = pr_connector_maildir.deliver(&f->inst, &d, &r);
	if (!err)
		assert_int_equal(r.status, PR_DELIVER_OK);
	return err;
}

static void test_writes_exactly_once(void **state)
{
	struct fixture *f = *state;
	struct pr_buf b = PR_BUF_INIT;
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(mails); i++)
		assert_int_equal(deliver(f, "s1-v1-box", i), 0);
	assert_int_equal(count_files(f->path, "new"), 3);
	assert_int_equal(count_files(f->path, "tmp"), 0);
	assert_int_equal(count_files(f->path, "cur"), 0);
	for (i = 0; i < PR_ARRAY_SIZE(mails); i++) {
		char name[64];

		snprintf(name, sizeof(name), "patchrelay.s1-v1-box.%zu", i);
		read_back(&b, f->path, "new", name);
		assert_int_equal(b.len, strlen(mails[i]));
		assert_memory_equal(b.ptr, mails[i], b.len);
	}
	/* retries write nothing more */
	for (i = 0; i < PR_ARRAY_SIZE(mails); i++)
		assert_int_equal(deliver(f, "s1-v1-box", i), 0);
	assert_int_equal(count_files(f->path, "new"), 3);
	/* another delivery key is another set of files */
	assert_int_equal(deliver(f, "s1-v2-box", 0), 0);
	assert_int_equal(count_files(f->path, "new"), 4);
	pr_buf_release(&b);
}

static void test_read_mail_not_rewritten(void **state)
{
	struct fixture *f = *state;
	char from[256], to[256];

	assert_int_equal(deliver(f, "k", 1), 0);
	/* a mail reader moves it to cur/ and adds flags */
	snprintf(from, sizeof(from), "%s/new/patchrelay.k.1", f->path);
	snprintf(to, sizeof(to), "%s/cur/patchrelay.k.1:2,S", f->path);
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(deliver(f, "k", 1), 0);
	assert_int_equal(count_files(f->path, "new"), 0);
	assert_int_equal(count_files(f->path, "cur"), 1);
	/* a name that only starts like it is another message */
	assert_int_equal(deliver(f, "k", 10), 0);
	assert_int_equal(count_files(f->path, "new"), 1);
}

static void test_stale_tmp_overwritten(void **state)
{
	struct fixture *f = *state;
	struct pr_buf b = PR_BUF_INIT;
	char tmp[256];
	FILE *fp;

	assert_int_equal(deliver(f, "k", 0), 0);
	/* a crash in the middle of writing message 2 left half of it */
	snprintf(tmp, sizeof(tmp), "%s/tmp/patchrelay.k.2", f->path);
	fp = fopen(tmp, "w");
	assert_non_null(fp);
	fputs("From: half", fp);
	fclose(fp);
	assert_int_equal(deliver(f, "k", 2), 0);
	assert_int_equal(count_files(f->path, "tmp"), 0);
	read_back(&b, f->path, "new", "patchrelay.k.2");
	assert_string_equal(b.ptr, mails[2]);
	pr_buf_release(&b);
}

static void test_key_escaped(void **state)
{
	struct fixture *f = *state;
	struct pr_buf b = PR_BUF_INIT;

	assert_int_equal(deliver(f, "gh:pr/1.x", 0), 0);
	read_back(&b, f->path, "new", "patchrelay.gh%3Apr%2F1%2Ex.0");
	assert_string_equal(b.ptr, mails[0]);
	pr_buf_release(&b);
}

static void test_unwritable(void **state)
{
	struct fixture *f = *state;
	char file[256];
	FILE *fp;

	/* the maildir path is a regular file */
	snprintf(file, sizeof(file), "%s/a", f->dir);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(deliver(f, "k", 0), PR_EIO);
	assert_non_null(strstr(pr_error_message(), "sink 'box': maildir"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_writes_exactly_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_mail_not_rewritten,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_tmp_overwritten,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_escaped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unwritable, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
