#include "base/pr.h"
#include "git/similarity.h"

#include <setjmp.h>
#include <cmocka.h>

/*
 * pr_sim_score() against the "similarity index" git 2.39 prints for the
 * pairs of tests/data/similarity/ (make.py regenerates them with git), and
 * the pairing rules on small queues.
 */

static void read_data(struct pr_buf *b, const char *name, const char *ext)
{
	struct pr_buf path = PR_BUF_INIT;

	pr_buf_addf(&path, "%s/similarity/%s.%s", PR_TEST_DATA, name, ext);
	assert_int_equal(pr_buf_read_file(b, path.ptr), 0);
	pr_buf_release(&path);
}

static void test_git_scores(void **state)
{
	struct pr_buf list = PR_BUF_INIT, a = PR_BUF_INIT, b = PR_BUF_INIT;
	char *line, *save = NULL;
	int n = 0;

	read_data(&list, "expected", "txt");
	for (line = strtok_r(list.ptr, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		int want, got;

		assert_int_equal(sscanf(line, "%63s %d", name, &want), 2);
		pr_buf_reset(&a);
		pr_buf_reset(&b);
		read_data(&a, name, "a");
		read_data(&b, name, "b");
		/* -M1%: git shows no rename (0 here) below 1% */
		got = pr_sim_score(a.ptr, a.len, b.ptr, b.len, 600);
		if (got < 600)
			got = 0;
		if (pr_sim_percent(got) != want)
			fail_msg("%s: git %d%%, here %d%% (score %d)", name,
				 want, pr_sim_percent(got), got);
		n++;
	}
	assert_true(n >= 20);
	pr_buf_release(&list);
	pr_buf_release(&a);
	pr_buf_release(&b);
	(void)state;
}

static void test_score_rules(void **state)
{
	/* a last line without '\n' under 64 bytes does not count */
	assert_int_equal(pr_sim_score("ab\ncd", 5, "ab\nxy", 5, 0),
			 (int)(3 * 60000.0 / 5));
	/* sizes too far apart for the minimum: not measured */
	assert_int_equal(pr_sim_score("a\n", 2, "a\nb\nc\nd\n", 8, 30000), 0);
	assert_int_equal(pr_sim_score("a\n", 2, "a\nb\nc\nd\n", 8, 6000),
			 15000);
	/* identical text scores 100% */
	assert_int_equal(pr_sim_score("x\ny\n", 4, "x\ny\n", 4, 30000),
			 PR_SIM_MAX_SCORE);
	assert_int_equal(pr_sim_percent(35999), 59);
	assert_int_equal(pr_sim_percent(36000), 60);
	(void)state;
}

static void test_parse_score(void **state)
{
	static const struct {
		const char *in;
		int score;
		size_t used;
	} t[] = {
		{ "", 0, 0 },	       { "50", 30000, 2 },
		{ "5", 30000, 1 },     { "30%", 18000, 3 },
		{ "30", 18000, 2 },    { ".5", 30000, 2 },
		{ "30.5%", 18300, 5 }, { "100%", 60000, 4 },
		{ "2", 12000, 1 },     { "123456789", 7407, 9 },
		{ "1/2", 6000, 1 },    { "200%", 60000, 4 },
	};
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(t); i++) {
		const char *p = t[i].in;

		assert_int_equal(pr_sim_parse_score(&p), t[i].score);
		assert_int_equal((size_t)(p - t[i].in), t[i].used);
	}
	(void)state;
}

/* ---- the pairing on small queues, blobs held in memory ---- */

struct blobs {
	const char *text[8];
};

static int mem_size(size_t *size, const struct pr_sim_file *f, void *payload)
{
	const struct blobs *b = payload;

	*size = strlen(b->text[f->id[0]]);
	return 0;
}

static int mem_read(const char **data, size_t *size, void **handle,
		    const struct pr_sim_file *f, void *payload)
{
	const struct blobs *b = payload;

	*data = b->text[f->id[0]];
	*size = strlen(*data);
	*handle = NULL;
	return 0;
}

static void mem_release(void *handle, void *payload)
{
	(void)handle;
	(void)payload;
}

/* blob n's id: its first byte n, so distinct texts get distinct ids */
static const unsigned char *id(int n)
{
	static unsigned char ids[8][20];

	ids[n][0] = (unsigned char)n;
	return ids[n];
}

static void add(struct pr_sim_queue *q, const char *path, int old, int new)
{
	pr_sim_queue_add(q, path, old < 0 ? 0 : 0100644, id(old < 0 ? 0 : old),
			 new < 0 ? 0 : 0100644, id(new < 0 ? 0 : new));
}

static void run(struct pr_sim_queue *q, struct blobs *b, int detect,
		int break_opt, char *out, size_t cap)
{
	struct pr_sim_opts o = PR_SIM_OPTS_INIT;
	struct pr_sim_reader r = { mem_size, mem_read, mem_release, b };
	struct pr_buf s = PR_BUF_INIT;
	size_t i;

	o.detect = (enum pr_sim_detect)detect;
	o.break_opt = break_opt;
	assert_int_equal(pr_sim_run(q, &o, &r), 0);
	for (i = 0; i < q->nr; i++)
		pr_buf_addf(&s, "%s%c %s %s %d", i ? ", " : "",
			    q->pairs[i].status, q->pairs[i].one->path,
			    q->pairs[i].two->path,
			    pr_sim_percent(q->pairs[i].score));
	assert_true(s.len < cap);
	memcpy(out, s.ptr, s.len + 1);
	pr_buf_release(&s);
	pr_sim_queue_release(q);
}

static void test_pairing(void **state)
{
	struct blobs b = { {
		"",
		"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n",
		"one\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n",
		"unrelated\n",
		"one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\nEIGHT\n",
		"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n",
	} };
	struct pr_sim_queue q = PR_SIM_QUEUE_INIT;
	char out[512];

	/* exact: of two identical sources the one with the same name */
	add(&q, "a/x.c", 1, -1);
	add(&q, "b/y.c", 1, -1);
	add(&q, "c/y.c", -1, 1);
	run(&q, &b, PR_SIM_RENAMES, -1, out, sizeof(out));
	assert_string_equal(out, "D a/x.c a/x.c 0, R b/y.c c/y.c 100");

	/* the results below are what git 2.39 prints for the same trees */
	/* inexact: the best source wins, the other stays deleted */
	add(&q, "new", -1, 2);
	add(&q, "old1", 1, -1);
	add(&q, "old2", 4, -1);
	run(&q, &b, PR_SIM_RENAMES, -1, out, sizeof(out));
	assert_string_equal(out, "R old1 new 85, D old2 old2 0");

	/* -C: a modified file is a copy source, and stays */
	add(&q, "copy", -1, 2);
	add(&q, "src", 1, 4);
	run(&q, &b, PR_SIM_COPIES, -1, out, sizeof(out));
	assert_string_equal(out, "C src copy 85, M src src 0");
	add(&q, "copy", -1, 2);
	add(&q, "src", 1, 4);
	run(&q, &b, PR_SIM_RENAMES, -1, out, sizeof(out));
	assert_string_equal(out, "A copy copy 0, M src src 0");

	/* a deleted source taken twice: copies first, its rename last */
	add(&q, "d1", -1, 1);
	add(&q, "d2", -1, 1);
	add(&q, "gone", 1, -1);
	run(&q, &b, PR_SIM_COPIES, -1, out, sizeof(out));
	assert_string_equal(out, "C gone d1 100, R gone d2 100");

	/* unique file names on both sides pair first under -M, at 75% */
	add(&q, "p/name", 1, -1);
	add(&q, "q/name", -1, 2);
	add(&q, "z", -1, 5);
	run(&q, &b, PR_SIM_RENAMES, -1, out, sizeof(out));
	assert_string_equal(out, "R p/name q/name 85, A z z 0");
	/* not under -C: the better match takes the rename */
	add(&q, "p/name", 1, -1);
	add(&q, "q/name", -1, 2);
	add(&q, "z", -1, 5);
	run(&q, &b, PR_SIM_COPIES, -1, out, sizeof(out));
	assert_string_equal(out, "C p/name q/name 85, R p/name z 88");
	/* under 75% the name does not help */
	add(&q, "p/name", 1, -1);
	add(&q, "q/name", -1, 4);
	add(&q, "z", -1, 2);
	run(&q, &b, PR_SIM_RENAMES, -1, out, sizeof(out));
	assert_string_equal(out, "A q/name q/name 0, R p/name z 85");
	(void)state;
}

static void test_break(void **state)
{
	static char big_a[2048], big_b[2048];
	struct blobs b = { { "", big_a, big_b } };
	struct pr_sim_queue q = PR_SIM_QUEUE_INIT;
	char out[512];
	size_t i;

	for (i = 0; i + 1 < sizeof(big_a); i++) {
		big_a[i] = i % 16 == 15 ? '\n' : (char)('a' + i % 7);
		big_b[i] = i % 16 == 15 ? '\n' : (char)('A' + i % 5);
	}
	/* rewritten completely: merged back with a dissimilarity */
	add(&q, "f", 1, 2);
	run(&q, &b, PR_SIM_RENAMES, 0, out, sizeof(out));
	assert_string_equal(out, "M f f 100");
	/* and its old content found again elsewhere: a copy */
	add(&q, "f", 1, 2);
	add(&q, "g", -1, 1);
	run(&q, &b, PR_SIM_RENAMES, 0, out, sizeof(out));
	assert_string_equal(out, "M f f 100, C f g 100");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git_scores),
		cmocka_unit_test(test_score_rules),
		cmocka_unit_test(test_parse_score),
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_break),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
