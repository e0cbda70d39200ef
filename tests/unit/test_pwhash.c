#include "base/pr.h"
#include "git/pwhash.h"

#include <setjmp.h>
#include <cmocka.h>

/*
 * Known values from tests/data/pwhash/expected (gen.py: git diff and git
 * format-patch output of commits covering renames, binary files, /dev/null,
 * hunks without counts; Patchwork's algorithm restated in
 * tests/emulators/pwhash.py).
 */

#define DATA PR_TEST_DATA "/pwhash/"

static void read_data(struct pr_buf *out, const char *name, const char *ext)
{
	struct pr_buf path = PR_BUF_INIT;

	assert_int_equal(pr_buf_addf(&path, DATA "%s%s", name, ext), 0);
	assert_int_equal(pr_buf_read_file(out, path.ptr), 0);
	pr_buf_release(&path);
}

/* The body of a mail: what follows the first blank line. */
static const char *body_of(const struct pr_buf *mail, size_t *len)
{
	const char *b = strstr(mail->ptr, "\n\n");

	assert_non_null(b);
	b += 2;
	*len = mail->len - (size_t)(b - mail->ptr);
	return b;
}

/* The diff of a format-patch mail: from "diff --git" to the signature. */
static int commit_diff(struct pr_buf *out, const struct pr_buf *mail)
{
	const char *d = strstr(mail->ptr, "\ndiff --git ");
	const char *sig = d ? strstr(d, "\n-- \n") : NULL;

	if (!sig)
		return PR_ENOENT;
	return pr_buf_add(out, d + 1, (size_t)(sig - d));
}

static void test_known_values(void **state)
{
	struct pr_buf exp = PR_BUF_INIT;
	char *line, *save = NULL;
	size_t rows = 0;

	PR_UNUSED(state);
	read_data(&exp, "expected", "");
	for (line = strtok_r(exp.ptr, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct pr_buf diff = PR_BUF_INIT, mail = PR_BUF_INIT,
			      tail = PR_BUF_INIT;
		char name[64], word[68], dh[41], mh[41], got[41];
		const char *body;
		size_t blen;
		int hunks;

		assert_int_equal(sscanf(line, "%63s %40s %40s", name, dh, mh),
				 3);
		read_data(&diff, name, ".diff");
		hunks = pr_pwhash_diff(got, diff.ptr, diff.len);
		assert_true(hunks >= 0);
		if (strcmp(got, dh))
			fail_msg("%s: diff hash %s, expected %s", name, got,
				 dh);
		/* no hunk: the hash says nothing, whatever the text */
		snprintf(word, sizeof(word), " %s ", name);
		if ((hunks == 0) != !!strstr(" rename-pure mode binary-last "
					     "edge-empty edge-names ",
					     word))
			fail_msg("%s: %d hunks", name, hunks);
		assert_int_equal(pr_pwhash_is_empty(got),
				 !strcmp(dh, PR_PWHASH_EMPTY));
		rows++;
		if (!strcmp(mh, "-")) {
			pr_buf_release(&diff);
			continue;
		}
		/* Patchwork's own hash of the mail */
		read_data(&mail, name, ".mail");
		body = body_of(&mail, &blen);
		hunks = pr_pwhash_mail(got, body, blen);
		assert_true(hunks >= 0);
		if (strcmp(got, mh))
			fail_msg("%s: mail hash %s, expected %s", name, got,
				 mh);
		/*
		 * and what a landed commit is looked up by: its diff as
		 * format-patch writes it (--binary, what pr_gitrepo_load
		 * gives) with the signature line after it
		 */
		assert_int_equal(commit_diff(&tail, &mail), 0);
		assert_true(pr_pwhash_diff(got, tail.ptr, tail.len) >= 0);
		assert_string_equal(got, dh);
		assert_int_equal(pr_buf_adds(&tail, "-- \n2.39.5\n"), 0);
		assert_true(pr_pwhash_mail(got, tail.ptr, tail.len) >= 0);
		if (strcmp(got, mh))
			fail_msg("%s: commit's mail hash %s, expected %s", name,
				 got, mh);
		/* the plain diff hash differs only for a binary last file */
		assert_int_equal(!strcmp(dh, mh),
				 !!strcmp(name, "binary-last"));
		pr_buf_release(&diff);
		pr_buf_release(&mail);
		pr_buf_release(&tail);
	}
	assert_int_equal(rows, 18);
	pr_buf_release(&exp);
}

static void test_extract(void **state)
{
	static const char text[] =
		"Subject line\n\n--- not a diff\nbody\n---\n a | 1 +\n\n"
		"diff --git a/a b/a\nindex 1..2 100644\n--- a/a\n+++ b/a\n"
		"@@ -1 +1,2 @@\n-x\n+y\n+z\n-- \n2.39.5\n";
	struct pr_buf out = PR_BUF_INIT;
	char hex[41];

	PR_UNUSED(state);
	assert_int_equal(pr_pwhash_extract(&out, text, strlen(text)), 0);
	assert_string_equal(out.ptr, "diff --git a/a b/a\nindex 1..2 100644\n"
				     "--- a/a\n+++ b/a\n@@ -1 +1,2 @@\n-x\n"
				     "+y\n+z\n");
	pr_buf_release(&out);
	/* no diff at all */
	assert_int_equal(pr_pwhash_mail(hex, "hello\n", 6), PR_ENOENT);
	assert_int_equal(pr_pwhash_extract(&out, "", 0), 0);
	assert_int_equal(out.len, 0);
	/* the empty diff's hash */
	assert_int_equal(pr_pwhash_diff(hex, "", 0), 0);
	assert_string_equal(hex, PR_PWHASH_EMPTY);
	assert_true(pr_pwhash_is_empty(hex));
	assert_false(pr_pwhash_is_empty(NULL));
	pr_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_extract),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
