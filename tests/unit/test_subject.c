#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include "model/subject.h"

struct subject_case {
	const char *subject;
	const char *list; /* NULL when none */
	bool rfc;
	int version, index, total;
};

static const struct subject_case cases[] = {
	{ "[PATCH net-next v3 2/7] net: fix", "net-next", false, 3, 2, 7 },
	{ "[RFC PATCH v2 0/4] cover", NULL, true, 2, 0, 4 },
	{ "[PATCH 1 of 2] hg style", NULL, false, 1, 1, 2 },
	{ "[net,v2,1/2] commas", "net", false, 2, 1, 2 },
	{ "Re: [PATCH] reply", NULL, false, 1, 0, 0 },
	{ "[PATCH v2 RESEND 3/5] resend", NULL, false, 2, 3, 5 },
	{ "[PATCHv2 1/3] glued", NULL, false, 2, 1, 3 },
	{ "[PATCH RFC net-next] rfc late", "net-next", true, 1, 0, 0 },
	{ "[PATCH] [net] two groups", "net", false, 1, 0, 0 },
	{ "[PATCH bpf-next 05/12] zero padded", "bpf-next", false, 1, 5, 12 },
	{ "[RFCv3 PATCH 2/2] rfc glued", NULL, true, 3, 2, 2 },
	{ "RE: Fwd: [PATCH V4 1/1] upper V", NULL, false, 4, 1, 1 },
	{ "Aw: [PATCH net] german reply", "net", false, 1, 0, 0 },
	{ "plain subject", NULL, false, 1, 0, 0 },
	{ "", NULL, false, 1, 0, 0 },
	{ "[PATCH v2", NULL, false, 1, 0, 0 },
	{ "[]", NULL, false, 1, 0, 0 },
	{ "[PATCH 1/x] bad fraction", "1/x", false, 1, 0, 0 },
	{ "[PATCH v0 1/2] v0 is v1", NULL, false, 1, 1, 2 },
	{ "[PATCH 3/2] extra", NULL, false, 1, 3, 2 },
	{ "[PATCH v99999999 1/2] huge", "v99999999", false, 1, 1, 2 },
	{ "x [PATCH 1/2] not at start", NULL, false, 1, 0, 0 },
	{ "[PATCH 1 of] dangling of", NULL, false, 1, 0, 0 },
	{ "  [PATCH\tnet-next\tv2]  tabs", "net-next", false, 2, 0, 0 },
	{ "[GIT PULL net] pull", "net", false, 1, 0, 0 },
	{ "[GIT PULL] pull", NULL, false, 1, 0, 0 },
};

static void test_prefix_cases(void **state)
{
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(cases); i++) {
		const struct subject_case *c = &cases[i];
		struct pr_subject_prefix p;

		print_message("case %zu: %s\n", i, c->subject);
		assert_int_equal(pr_subject_parse_prefix(&p, c->subject), 0);
		if (c->list)
			assert_string_equal(p.list, c->list);
		else
			assert_null(p.list);
		assert_int_equal(p.rfc, c->rfc);
		assert_int_equal(p.version, c->version);
		assert_int_equal(p.index, c->index);
		assert_int_equal(p.total, c->total);
		pr_subject_prefix_release(&p);
	}
}

static void test_prefix_null(void **state)
{
	struct pr_subject_prefix p;

	assert_int_equal(pr_subject_parse_prefix(&p, NULL), 0);
	assert_null(p.list);
	assert_int_equal(p.version, 1);
	pr_subject_prefix_release(&p);
}

static void test_is_reply(void **state)
{
	assert_true(pr_subject_is_reply("Re: [PATCH] x"));
	assert_true(pr_subject_is_reply("RE: x"));
	assert_true(pr_subject_is_reply("re:x"));
	assert_true(pr_subject_is_reply("  Aw: x"));
	assert_true(pr_subject_is_reply("AW: x"));
	assert_false(pr_subject_is_reply("Fwd: [PATCH] x"));
	assert_false(pr_subject_is_reply("[PATCH] Re: x"));
	assert_false(pr_subject_is_reply("Rework x"));
	assert_false(pr_subject_is_reply(""));
	assert_false(pr_subject_is_reply(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_cases),
		cmocka_unit_test(test_prefix_null),
		cmocka_unit_test(test_is_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
