#include "base/pr.h"

#include <dirent.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include "model/trailer.h"

#define DATA PR_TEST_DATA "/trailers"

/* The list as `git interpret-trailers --parse` prints it. */
static void format_list(struct pr_buf *out, const struct pr_trailer_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		assert_int_equal(pr_buf_addf(out, "%s: %s\n", l->items[i].key,
					     l->items[i].value),
				 0);
}

static void check_parse(const char *msg, size_t len, const char *want,
			const char *name)
{
	struct pr_trailer_list l = { 0 };
	struct pr_buf got = PR_BUF_INIT;

	assert_int_equal(pr_trailers_parse(&l, msg, len), 0);
	format_list(&got, &l);
	if (strcmp(got.ptr, want))
		fail_msg("%s: got\n%s---\nwant\n%s---", name, got.ptr, want);
	pr_buf_release(&got);
	pr_trailer_list_release(&l);
}

/* Every tests/data/trailers/X.msg against X.expected made by git. */
static void test_golden(void **state)
{
	DIR *d = opendir(DATA);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		struct pr_buf path = PR_BUF_INIT, msg = PR_BUF_INIT,
			      want = PR_BUF_INIT;
		size_t l = strlen(e->d_name);

		if (l < 5 || strcmp(e->d_name + l - 4, ".msg"))
			continue;
		assert_int_equal(pr_buf_addf(&path, "%s/%s", DATA, e->d_name),
				 0);
		assert_int_equal(pr_buf_read_file(&msg, path.ptr), 0);
		pr_buf_setlen(&path, path.len - 4);
		assert_int_equal(pr_buf_adds(&path, ".expected"), 0);
		assert_int_equal(pr_buf_read_file(&want, path.ptr), 0);
		check_parse(msg.ptr, msg.len, want.ptr, e->d_name);
		n++;
		pr_buf_release(&path);
		pr_buf_release(&msg);
		pr_buf_release(&want);
	}
	closedir(d);
	assert_true(n >= 30);
}

/* Lines random messages are made of: trailers, text, the odd shapes. */
static const char *const pool[] = {
	"",
	"",
	"",
	"body text",
	"Note: body with a colon",
	"Signed-off-by: A U Thor <a@example.org>",
	"Signed-off-by:B",
	"Acked-by: B <b@example.org>",
	"Reviewed-by : C <c@example.org>",
	"Fixes: 0123456789ab (\"x\")",
	"  continued value",
	"\tcontinued by tab",
	"(cherry picked from commit 0123456789abcdef)",
	"# comment",
	"---",
	"--- a/x",
	"Conflicts:",
	"\tpath.c",
	"Key\twith tab: v",
	"not: a trailer because of spaces here: no",
	"x:",
	":empty key",
	"   ",
	"Link: https://example.org/",
	"-dash-key: v",
	"Cc: list@example.org",
	"more body text",
	"more body text",
	"Signed-off-by: S <s@example.org>",
	"Tested-by: T <t@example.org>",
};

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

/*
 * Many random messages, compared with git itself when git is there: the
 * messages are written to a temp dir and git parses each one.
 */
static void test_random_against_git(void **state)
{
	enum {
		N = 300
	};
	char dir[] = "/tmp/pr-trailer-XXXXXX";
	struct pr_buf msgs[N];
	struct pr_buf cmd = PR_BUF_INIT, path = PR_BUF_INIT;
	uint32_t seed = 12345;
	int i;

	if (system("git --version >/dev/null 2>&1"))
		skip();
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < N; i++) {
		int lines = 1 + rnd(&seed) % 12, j;
		FILE *f;

		pr_buf_init(&msgs[i], 0);
		assert_int_equal(pr_buf_adds(&msgs[i], "subject\n"), 0);
		for (j = 0; j < lines; j++)
			assert_int_equal(
				pr_buf_addf(
					&msgs[i], "%s\n",
					pool[rnd(&seed) % PR_ARRAY_SIZE(pool)]),
				0);
		if (rnd(&seed) % 5 == 0)
			pr_buf_setlen(&msgs[i], msgs[i].len - 1);
		pr_buf_reset(&path);
		assert_int_equal(pr_buf_addf(&path, "%s/%d.msg", dir, i), 0);
		f = fopen(path.ptr, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(msgs[i].ptr, 1, msgs[i].len, f),
				 msgs[i].len);
		fclose(f);
	}
	assert_int_equal(
		pr_buf_addf(&cmd,
			    "cd '%s' && for m in *.msg; do HOME=/nonexistent "
			    "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null "
			    "git interpret-trailers --parse <$m "
			    ">${m%%.msg}.out || exit 1; done",
			    dir),
		0);
	assert_int_equal(system(cmd.ptr), 0);
	for (i = 0; i < N; i++) {
		struct pr_buf want = PR_BUF_INIT;

		pr_buf_reset(&path);
		assert_int_equal(pr_buf_addf(&path, "%s/%d.out", dir, i), 0);
		assert_int_equal(pr_buf_read_file(&want, path.ptr), 0);
		check_parse(msgs[i].ptr, msgs[i].len, want.ptr, path.ptr);
		unlink(path.ptr);
		pr_buf_setlen(&path, path.len - 4);
		assert_int_equal(pr_buf_adds(&path, ".msg"), 0);
		unlink(path.ptr);
		pr_buf_release(&want);
		pr_buf_release(&msgs[i]);
	}
	rmdir(dir);
	pr_buf_release(&cmd);
	pr_buf_release(&path);
}

static void test_not_nul_terminated(void **state)
{
	const char msg[] = "s\n\nSigned-off-by: A <a@x>XXXX";

	check_parse(msg, sizeof(msg) - 5, "Signed-off-by: A <a@x>\n", "cut");
	/* an embedded NUL ends the message, as it does for git */
	check_parse("s\n\nAcked-by: B\n\0Tested-by: C\n", 28, "Acked-by: B\n",
		    "nul");
}

static void check_reply(const char *body, const char *want)
{
	struct pr_trailer_list l = { 0 };
	struct pr_buf got = PR_BUF_INIT;

	assert_int_equal(pr_trailers_from_reply(&l, body, strlen(body)), 0);
	format_list(&got, &l);
	assert_string_equal(got.ptr, want);
	pr_buf_release(&got);
	pr_trailer_list_release(&l);
}

static void test_reply(void **state)
{
	/* a review reply: quoted patch, the tags below it */
	check_reply("On Thu, A wrote:\n"
		    "> Subject: x\n"
		    ">\n"
		    "> Signed-off-by: A <a@example.org>\n"
		    "> ---\n"
		    "> diff --git a/x b/x\n"
		    "> +Reviewed-by: quoted <q@example.org>\n"
		    "\n"
		    "Looks good.\n"
		    "\n"
		    "Reviewed-by: R <r@example.org>\r\n"
		    "Acked-by: K <k@example.org>\n"
		    "Tested-by: T <t@example.org> # on arm64\n"
		    "Nacked-by: N <n@example.org>\n"
		    "Reported-by: syzbot+1234@example.com\n"
		    "Suggested-by: S <s@example.org>\n"
		    "Co-developed-by: C <c@example.org>\n"
		    "Signed-off-by: C <c@example.org>\n"
		    "Cc: stable@vger.kernel.org\n"
		    "Link: https://lore.kernel.org/r/1@x\n"
		    "Fixes: 0123456789ab (\"x: y\")\n"
		    "Heavily-Reviewed-by: H <h@example.org>\n"
		    "Reviewed-by: R <r@example.org>\n"
		    "-- \n"
		    "Acked-by: in signature <s@example.org>\n",
		    "Reviewed-by: R <r@example.org>\n"
		    "Acked-by: K <k@example.org>\n"
		    "Tested-by: T <t@example.org> # on arm64\n"
		    "Nacked-by: N <n@example.org>\n"
		    "Reported-by: syzbot+1234@example.com\n"
		    "Suggested-by: S <s@example.org>\n"
		    "Co-developed-by: C <c@example.org>\n"
		    "Signed-off-by: C <c@example.org>\n"
		    "Cc: stable@vger.kernel.org\n"
		    "Link: https://lore.kernel.org/r/1@x\n"
		    "Fixes: 0123456789ab (\"x: y\")\n"
		    "Heavily-Reviewed-by: H <h@example.org>\n");
}

static void test_reply_rejects(void **state)
{
	check_reply("", "");
	check_reply("Reviewed-by: nobody without an address\n"
		    "Fixes: the bug\n"
		    "Subject: no\n"
		    "Note: no\n"
		    "  Acked-by: indented <i@example.org>\n"
		    "Reviewed by: R <r@example.org>\n"
		    "Acked-by:\n"
		    ">Acked-by: Q <q@example.org>\n"
		    "> > Acked-by: Q <q@example.org>\n",
		    "");
	/* an unquoted patch in the reply: its lines are not trailers */
	check_reply("diff --git a/x b/x\n"
		    "--- a/x\n"
		    "+++ b/x\n"
		    "@@ -1 +1 @@\n"
		    "-Acked-by: old <o@example.org>\n"
		    "+Acked-by: new <n@example.org>\n"
		    "\n"
		    "Acked-by: real <r@example.org>\n",
		    "Acked-by: real <r@example.org>\n");
	/* no final newline, and the length is honoured */
	check_reply("Acked-by: A <a@example.org>",
		    "Acked-by: A <a@example.org>\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_random_against_git),
		cmocka_unit_test(test_not_nul_terminated),
		cmocka_unit_test(test_reply),
		cmocka_unit_test(test_reply_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
