#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

#include "maintainers.h"

/*
 * The golden files were written by scripts/get_maintainer.pl (6.1)
 * --no-tree --no-git --no-git-fallback, run in tests/data/maintainers/tree.
 */

#define DIR PR_TEST_DATA "/maintainers"

static void check(const struct pr_maint_opts *o, const char *golden)
{
	struct pr_maint *m = NULL;
	struct pr_buf patch = PR_BUF_INIT, want = PR_BUF_INIT,
		      got = PR_BUF_INIT;

	assert_int_equal(
		pr_maint_load(&m, DIR "/tree/MAINTAINERS", DIR "/tree"), 0);
	assert_int_equal(pr_maint_nsections(m), 4);
	assert_int_equal(pr_buf_read_file(&patch, DIR "/p1.patch"), 0);
	assert_int_equal(pr_buf_read_file(&want, golden), 0);
	assert_int_equal(pr_maint_route(&got, m, o, &patch, 1), 0);
	assert_string_equal(got.ptr, want.ptr);
	pr_buf_release(&patch);
	pr_buf_release(&want);
	pr_buf_release(&got);
	pr_maint_free(m);
}

static void test_default(void **state)
{
	struct pr_maint_opts o;

	(void)state;
	pr_maint_opts_init(&o);
	check(&o, DIR "/p1.default.out");
}

static void test_no_rolestats_no_lists(void **state)
{
	struct pr_maint_opts o;

	(void)state;
	pr_maint_opts_init(&o);
	o.rolestats = false;
	o.lists = false;
	check(&o, DIR "/p1.no-rolestats-no-l.out");
}

static void test_subsystem_status_separator(void **state)
{
	struct pr_maint_opts o;

	(void)state;
	pr_maint_opts_init(&o);
	o.subsystem = true;
	o.status = true;
	o.reviewers = false;
	o.separator = ";";
	check(&o, DIR "/p1.subsystem-status.out");
}

/* A stand-in for the tree's git: one commit, abcdef1..., and its asks. */
struct fake_git {
	const char *body;
	int asked;
};

static int fake_commit(struct pr_buf *author, struct pr_buf *body,
		       const char *rev, void *payload)
{
	struct fake_git *g = payload;

	g->asked++;
	if (strncasecmp(rev, "abcdef1", 7))
		return 1;
	pr_buf_adds(author, "Eve Author <eve@home.example.org>");
	pr_buf_adds(body, g->body);
	return 0;
}

static const char fixed_body[] =
	"Why the change was made.\n\n"
	"Signed-off-by: Eve Signer <eve@example.org>\n"
	"Reviewed-by: Carol, Core <carol@example.org>\n"
	"    Acked-by: Dave K <dave@example.org>\n"
	"Signed-off-by: <nobody@example.org>\n"
	"Signed-off-by: Linus Torvalds <torvalds@linux-foundation.org>\n"
	"Tested-by: Not Counted <tested@example.org>\n";

/* p1.patch with Fixes: lines (twice the same one, and an unknown one). */
static void fixes_patch(struct pr_buf *patch)
{
	struct pr_buf p1 = PR_BUF_INIT;
	const char *sep;

	assert_int_equal(pr_buf_read_file(&p1, DIR "/p1.patch"), 0);
	sep = strstr(p1.ptr, "\n---\n");
	assert_non_null(sep);
	pr_buf_add(patch, p1.ptr, (size_t)(sep - p1.ptr) + 1);
	pr_buf_adds(patch, "Fixes: abcdef1234 (\"foo: the change\")\n"
			   "Fixes: 999999999 (\"unknown\")\n"
			   "Fixes: abcdef1234 (\"foo: the change\")\n");
	pr_buf_adds(patch, sep + 1);
	pr_buf_release(&p1);
}

static void route_fixes(struct pr_buf *got, const struct pr_maint_opts *o)
{
	struct pr_maint *m = NULL;
	struct pr_buf patch = PR_BUF_INIT;

	fixes_patch(&patch);
	assert_int_equal(
		pr_maint_load(&m, DIR "/tree/MAINTAINERS", DIR "/tree"), 0);
	assert_int_equal(pr_maint_route(got, m, o, &patch, 1), 0);
	pr_maint_free(m);
	pr_buf_release(&patch);
}

/*
 * Fixes: adds the fixed commit's signers after the other addresses, as
 * get_maintainer.pl's vcs_add_commit_signers: a maintainer who signed gets
 * the role appended, .mailmap and deduplication apply (Dave K is Dave
 * Keys), the chief penguin and other trailers are left out, ties go in
 * string order, each id is looked up once.
 */
static void test_fixes(void **state)
{
	struct fake_git g = { fixed_body, 0 };
	struct pr_maint_opts o;
	struct pr_buf got = PR_BUF_INIT, want = PR_BUF_INIT;

	(void)state;
	setenv("HOME", "/nonexistent", 1);
	pr_maint_opts_init(&o);
	o.commit = fake_commit;
	o.commit_payload = &g;
	route_fixes(&got, &o);
	assert_int_equal(g.asked, 2);
	assert_string_equal(
		got.ptr,
		"\"Carol, Core\" <carol@example.org> (odd fixer:FOO CORE WITH "
		"A VERY LONG SECTION NAME THAT GET...,blamed_fixes:1/1=100%)\n"
		"Alice Example <ALICE@example.org> (odd fixer:FOO CORE WITH A "
		"VERY LONG SECTION NAME THAT GET...)\n"
		"Bob The Reviewer <bob@example.org> (reviewer:FOO DRIVER)\n"
		"Dave Keys <dave@new.example.org> (supporter:KEYWORD SECTION,"
		"blamed_fixes:1/1=100%)\n"
		"Eve Signer <eve@example.org> (blamed_fixes:1/1=100%)\n"
		"nobody@example.org (blamed_fixes:1/1=100%)\n"
		"foo-core@lists.example.org (open list:FOO CORE WITH A VERY "
		"LONG SECTION NAME THAT GET...)\n"
		"foo-devel@lists.example.org (moderated list:FOO DRIVER)\n"
		"linux-kernel@vger.kernel.org (open list)\n");

	/* --no-fixes, or no repository: get_maintainer.pl's plain answer */
	assert_int_equal(pr_buf_read_file(&want, DIR "/p1.default.out"), 0);
	o.fixes = false;
	g.asked = 0;
	pr_buf_reset(&got);
	route_fixes(&got, &o);
	assert_int_equal(g.asked, 0);
	assert_string_equal(got.ptr, want.ptr);
	pr_maint_opts_init(&o);
	pr_buf_reset(&got);
	route_fixes(&got, &o);
	assert_string_equal(got.ptr, want.ptr);
	pr_buf_release(&got);
	pr_buf_release(&want);
}

/*
 * .get_maintainer.ignore (here $HOME's: the tree has none) skips a signer
 * without counting it; a line that is no RFC 822 address is not used.
 */
static void test_fixes_ignore(void **state)
{
	char home[] = "/tmp/pr-maint-home-XXXXXX";
	struct fake_git g = { fixed_body, 0 };
	struct pr_maint_opts o;
	struct pr_buf got = PR_BUF_INIT, path = PR_BUF_INIT;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(home));
	pr_buf_addf(&path, "%s/.get_maintainer.ignore", home);
	f = fopen(path.ptr, "w");
	assert_non_null(f);
	fputs("# who takes no blame\n  Eve Signer <eve@example.org>  \n"
	      "nobody@example.org # a comment keeps the blank before it\n",
	      f);
	fclose(f);
	setenv("HOME", home, 1);
	pr_maint_opts_init(&o);
	o.rolestats = false;
	o.commit = fake_commit;
	o.commit_payload = &g;
	route_fixes(&got, &o);
	assert_null(strstr(got.ptr, "eve@example.org"));
	assert_non_null(strstr(got.ptr, "\nnobody@example.org\n"));
	unlink(path.ptr);
	rmdir(home);
	setenv("HOME", "/nonexistent", 1);
	pr_buf_release(&got);
	pr_buf_release(&path);
}

/* Five signers at most; one who signed twice comes first. */
static void test_fixes_five(void **state)
{
	struct fake_git g = { "s\n\n"
			      "Signed-off-by: A <a@x.org>\n"
			      "Signed-off-by: B <b@x.org>\n"
			      "Signed-off-by: C <c@x.org>\n"
			      "Signed-off-by: D <d@x.org>\n"
			      "Signed-off-by: E <e@x.org>\n"
			      "Signed-off-by: F <f@x.org>\n"
			      "Reviewed-by: F <f@x.org>\n",
			      0 };
	struct pr_maint_opts o;
	struct pr_buf got = PR_BUF_INIT;

	(void)state;
	pr_maint_opts_init(&o);
	o.commit = fake_commit;
	o.commit_payload = &g;
	route_fixes(&got, &o);
	assert_non_null(strstr(got.ptr,
			       "\nF <f@x.org> (blamed_fixes:2/1=100%)\n"
			       "A <a@x.org> (blamed_fixes:1/1=100%)\n"
			       "B <b@x.org> (blamed_fixes:1/1=100%)\n"
			       "C <c@x.org> (blamed_fixes:1/1=100%)\n"
			       "D <d@x.org> (blamed_fixes:1/1=100%)\n"
			       "foo-core"));
	pr_buf_release(&got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_no_rolestats_no_lists),
		cmocka_unit_test(test_subsystem_status_separator),
		cmocka_unit_test(test_fixes),
		cmocka_unit_test(test_fixes_ignore),
		cmocka_unit_test(test_fixes_five),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
