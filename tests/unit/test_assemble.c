#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include "mail/assemble.h"
#include "model/subject.h"

struct mails {
	struct pr_patch *v[64];
	size_t nr;
};

/* A parsed mail: the summary is the subject after its bracket groups. */
static struct pr_patch *mk(struct mails *m, const char *id, const char *irt,
			   const char *subject, const char *email)
{
	struct pr_patch *p = pr_patch_new();
	const char *s = strrchr(subject, ']');

	p->message_id = id ? pr_strdup(id) : NULL;
	p->in_reply_to = irt ? pr_strdup(irt) : NULL;
	if (irt) {
		p->references = pr_calloc(1, sizeof(*p->references));
		p->references[0] = pr_strdup(irt);
		p->nr_references = p->alloc_references = 1;
	}
	p->subject_raw = pr_strdup(subject);
	s = s ? s + 1 : subject;
	while (*s == ' ')
		s++;
	p->subject = pr_strdup(s);
	pr_ident_set(&p->author, "A", email);
	assert_int_equal(pr_subject_parse_prefix(&p->prefix, subject), 0);
	m->v[m->nr++] = p;
	return p;
}

/* v1 of three patches: cover "c", patches "1", "2", "3". */
static void v1_of_three(struct mails *m)
{
	mk(m, "c", NULL, "[PATCH 0/3] cover", "a@x");
	mk(m, "1", "c", "[PATCH 1/3] a", "a@x");
	mk(m, "2", "c", "[PATCH 2/3] b", "a@x");
	mk(m, "3", "c", "[PATCH 3/3] c", "a@x");
}

static void release(struct mails *m, struct pr_assembly *a)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		pr_patch_free(m->v[i]);
	pr_assemble_release(a);
}

static const char *id_at(const struct pr_asm_version *v, size_t i)
{
	assert_true(i < v->nr);
	return v->patches[i]->message_id;
}

static void test_cover_out_of_order(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_version *v;

	mk(&m, "p3", "c", "[PATCH net-next 3/3] c", "a@x");
	mk(&m, "p1", "c", "[PATCH net-next 1/3] a", "a@x");
	mk(&m, "c", NULL, "[PATCH net-next 0/3] cover", "a@x");
	mk(&m, "r1", "p1", "Re: [PATCH net-next 1/3] a", "b@x");
	mk(&m, "p2", "c", "[PATCH net-next 2/3] b", "a@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	assert_int_equal(a.series[0].nr, 1);
	v = &a.series[0].versions[0];
	assert_int_equal(v->number, 1);
	assert_int_equal(v->total, 3);
	assert_true(v->complete);
	assert_string_equal(v->cover->message_id, "c");
	assert_int_equal(v->nr, 3);
	assert_string_equal(id_at(v, 0), "p1");
	assert_string_equal(id_at(v, 1), "p2");
	assert_string_equal(id_at(v, 2), "p3");
	release(&m, &a);
}

static void test_v2_threaded_into_v1(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;

	mk(&m, "c1", NULL, "[PATCH 0/2] cover", "a@x");
	mk(&m, "a1", "c1", "[PATCH 1/2] a", "a@x");
	mk(&m, "b1", "c1", "[PATCH 2/2] b", "a@x");
	/* v2 answers v1's cover; its patches carry no vN */
	mk(&m, "c2", "c1", "[PATCH v2 0/2] cover", "a@x");
	mk(&m, "a2", "c2", "[PATCH 1/2] a", "a@x");
	mk(&m, "b2", "c2", "[PATCH 2/2] b", "a@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	s = &a.series[0];
	assert_int_equal(s->nr, 2);
	assert_int_equal(s->versions[0].number, 1);
	assert_int_equal(s->versions[1].number, 2);
	assert_string_equal(s->versions[1].cover->message_id, "c2");
	assert_string_equal(id_at(&s->versions[1], 0), "a2");
	assert_string_equal(id_at(&s->versions[1], 1), "b2");
	assert_true(s->versions[0].complete);
	assert_true(s->versions[1].complete);
	assert_ptr_equal(pr_assemble_latest_complete(s), &s->versions[1]);
	release(&m, &a);
}

static void test_missing_cover_and_incomplete(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };

	/* the cover "gone" never arrived: its patches still group */
	mk(&m, "x2", "gone", "[PATCH 2/2] b", "a@x");
	mk(&m, "x1", "gone", "[PATCH 1/2] a", "a@x");
	/* another series with a hole */
	mk(&m, "y1", "yc", "[RFC PATCH 1/3] other", "b@x");
	mk(&m, "y3", "yc", "[RFC PATCH 3/3] other 3", "b@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 2);
	assert_null(a.series[0].versions[0].cover);
	assert_true(a.series[0].versions[0].complete);
	assert_string_equal(id_at(&a.series[0].versions[0], 0), "x1");
	assert_false(a.series[1].versions[0].complete);
	assert_int_equal(a.series[1].versions[0].total, 3);
	assert_int_equal(a.series[1].versions[0].nr, 2);
	assert_null(pr_assemble_latest_complete(&a.series[1]));
	release(&m, &a);
}

static void test_extra_and_resend(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_version *v;

	mk(&m, "c", NULL, "[PATCH 0/2] cover", "a@x");
	mk(&m, "e", "c", "[PATCH 3/2] extra", "a@x");
	mk(&m, "1", "c", "[PATCH 1/2] a", "a@x");
	mk(&m, "2", "c", "[PATCH 2/2] b", "a@x");
	mk(&m, "2r", "c", "[PATCH RESEND 2/2] b", "a@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	v = &a.series[0].versions[0];
	assert_true(v->complete);
	assert_int_equal(v->nr, 3);
	assert_string_equal(id_at(v, 0), "1");
	assert_string_equal(id_at(v, 1), "2");
	assert_string_equal(id_at(v, 2), "e");
	release(&m, &a);
}

static void test_unthreaded_versions(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;

	mk(&m, "v1", NULL, "[PATCH] net: fix it", "a@x");
	mk(&m, "v3", NULL, "[PATCH v3] net: fix it", "A@X");
	mk(&m, "o", NULL, "[PATCH] net: fix it", "other@x");
	mk(&m, "v2", NULL, "[PATCH v2] net: fix it", "a@x");
	mk(&m, "n", NULL, "[PATCH] unrelated", "a@x");
	/* a partial re-roll: only patch 2 of v4 */
	mk(&m, "v4", "v3", "[PATCH v4 2/3] net: fix it", "a@x");
	mk(&m, NULL, NULL, "[PATCH] no ids", "a@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 4);
	s = &a.series[0];
	assert_int_equal(s->nr, 4);
	assert_int_equal(s->versions[0].number, 1);
	assert_int_equal(s->versions[1].number, 2);
	assert_int_equal(s->versions[2].number, 3);
	assert_int_equal(s->versions[3].number, 4);
	assert_true(s->versions[0].complete);
	assert_int_equal(s->versions[0].total, 1);
	assert_false(s->versions[3].complete);
	assert_ptr_equal(pr_assemble_latest_complete(s), &s->versions[2]);
	assert_string_equal(id_at(&a.series[1].versions[0], 0), "o");
	assert_string_equal(id_at(&a.series[2].versions[0], 0), "n");
	assert_null(id_at(&a.series[3].versions[0], 0));
	release(&m, &a);
}

static void test_resend_new_thread(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;

	mk(&m, "c", NULL, "[PATCH v2 0/2] cover", "a@x");
	mk(&m, "1", "c", "[PATCH v2 1/2] a", "a@x");
	/* 2/2 got lost; the whole v2 is resent in a thread of its own */
	mk(&m, "rc", NULL, "[PATCH v2 RESEND 0/2] cover", "a@x");
	mk(&m, "r1", "rc", "[PATCH v2 RESEND 1/2] a", "a@x");
	mk(&m, "r2", "rc", "[PATCH v2 RESEND 2/2] b", "a@x");
	/* same subject, other author: not joined even with overlap */
	mk(&m, "oc", NULL, "[PATCH v2 0/2] cover", "o@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 2);
	/* two postings (two Patchwork series), one series: the resend is
	 * a version of its own, and completes what the first lacked */
	s = &a.series[0];
	assert_int_equal(s->nr, 2);
	assert_int_equal(s->versions[0].number, 2);
	assert_false(s->versions[0].complete);
	assert_true(s->versions[0].superseded);
	assert_string_equal(s->versions[0].cover->message_id, "c");
	assert_int_equal(s->versions[0].nr, 1);
	assert_int_equal(s->versions[1].number, 2);
	assert_true(s->versions[1].complete);
	assert_false(s->versions[1].superseded);
	assert_string_equal(s->versions[1].cover->message_id, "rc");
	assert_string_equal(id_at(&s->versions[1], 0), "r1");
	assert_string_equal(id_at(&s->versions[1], 1), "r2");
	assert_ptr_equal(pr_assemble_latest_complete(s), &s->versions[1]);
	assert_string_equal(a.series[1].versions[0].cover->message_id, "oc");
	release(&m, &a);
}

static void test_empty_and_replies_only(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };

	assert_int_equal(pr_assemble_mails(&a, m.v, 0), 0);
	assert_int_equal(a.nr, 0);
	mk(&m, "r", "x", "Re: [PATCH] a", "a@x");
	mk(&m, "s", "r", "RE: [PATCH] a", "b@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 0);
	release(&m, &a);
}

static void test_change_id_across_threads(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;
	struct pr_patch *p;

	p = mk(&m, "c1", NULL, "[PATCH 0/2] add foo", "a@x");
	p->diff = pr_strdup("---\nbase-commit: 1234\nchange-id: 20261203-foo-"
			    "abc\n\nBest regards,\n");
	mk(&m, "a1", "c1", "[PATCH 1/2] a", "a@x");
	mk(&m, "b1", "c1", "[PATCH 2/2] b", "a@x");
	/* v2 renamed and sent in a thread of its own */
	p = mk(&m, "c2", NULL, "[PATCH v2 0/2] add foo and bar", "a@x");
	p->body = pr_strdup("Changes in v2:\n- renamed\n");
	p->diff = pr_strdup("---\nchange-id: 20261203-foo-abc\n");
	mk(&m, "a2", "c2", "[PATCH v2 1/2] a", "a@x");
	mk(&m, "b2", "c2", "[PATCH v2 2/2] b", "a@x");
	/* same author and subject, another change-id: another series */
	p = mk(&m, "c3", NULL, "[PATCH v2 0/2] add foo and bar", "a@x");
	p->diff = pr_strdup("change-id: 20261203-other-def\n");
	mk(&m, "a3", "c3", "[PATCH v2 1/1] z", "a@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 2);
	s = &a.series[0];
	assert_int_equal(s->nr, 2);
	assert_string_equal(s->key, "20261203-foo-abc");
	assert_null(s->versions[0].supersedes);
	assert_string_equal(s->versions[1].supersedes, "c1");
	assert_string_equal(s->versions[1].cover->message_id, "c2");
	assert_string_equal(a.series[1].key, "20261203-other-def");
	assert_null(a.series[1].versions[0].supersedes);
	release(&m, &a);
}

static void test_change_id_trailer(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	struct pr_patch *p;

	/* a lone patch and its v2: b4 puts the change-id in the trailers */
	p = mk(&m, "p1", NULL, "[PATCH] x: one", "a@x");
	pr_trailer_list_add(&p->trailers, "change-id", "cid-1");
	p = mk(&m, "p2", NULL, "[PATCH v2] x: one, better", "a@x");
	pr_trailer_list_add(&p->trailers, "change-id", "cid-1");
	/* Gerrit's Change-Id is per commit: not a series identity */
	p = mk(&m, "g1", NULL, "[PATCH] y: two", "a@x");
	pr_trailer_list_add(&p->trailers, "Change-Id", "I1234");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 2);
	assert_string_equal(a.series[0].key, "cid-1");
	assert_int_equal(a.series[0].nr, 2);
	assert_string_equal(a.series[0].versions[1].supersedes, "p1");
	assert_string_equal(a.series[1].key, "g1");
	release(&m, &a);
}

static void test_link_to_previous_version(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;
	struct pr_patch *p;

	/* v3 arrives first, naming v2 by a lore link; other subjects */
	p = mk(&m, "c3@x", NULL, "[PATCH v3 0/1] gamma", "a@x");
	p->body =
		pr_strdup("Changes in v3:\n- more\n- Link to v2: "
			  "https://lore.kernel.org/r/c2%40x\n\nChanges in v2:\n"
			  "- Link to v1: https://lore.kernel.org/r/c1@x\n");
	mk(&m, "p3@x", "c3@x", "[PATCH v3 1/1] gamma", "a@x");
	p = mk(&m, "c2@x", NULL, "[PATCH v2 0/1] beta", "a@x");
	p->body = pr_strdup("v1: https://lore.kernel.org/netdev/c1@x/T/#u\n");
	mk(&m, "p2@x", "c2@x", "[PATCH v2 1/1] beta", "a@x");
	/* v1 is not in the input */
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	s = &a.series[0];
	assert_int_equal(s->nr, 2);
	assert_int_equal(s->versions[0].number, 2);
	assert_int_equal(s->versions[1].number, 3);
	/* the key is the first version's cover; v2 names v1 */
	assert_string_equal(s->key, "c2@x");
	assert_string_equal(s->versions[0].supersedes, "c1@x");
	assert_string_equal(s->versions[1].supersedes, "c2@x");
	release(&m, &a);
}

static void test_supersedes_line(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	struct pr_patch *p;

	mk(&m, "old@x", NULL, "[PATCH] first try", "a@x");
	p = mk(&m, "new@x", NULL, "[PATCH v2] second try", "a@x");
	p->diff = pr_strdup("Supersedes: <old@x>\n---\n");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	assert_int_equal(a.series[0].nr, 2);
	assert_string_equal(a.series[0].key, "old@x");
	assert_string_equal(a.series[0].versions[1].supersedes, "old@x");
	release(&m, &a);
}

static void test_link_msgid(void **state)
{
	static const char *const cases[][2] = {
		{ "https://lore.kernel.org/r/20261203-a-v1-0-1@k.org",
		  "20261203-a-v1-0-1@k.org" },
		{ "https://lore.kernel.org/r/abc@x/", "abc@x" },
		{ "https://lore.kernel.org/netdev/abc%40x/T/#u", "abc@x" },
		{ "https://lore.kernel.org/all/<abc@x>/", "abc@x" },
		{ "https://patch.msgid.link/abc@x", "abc@x" },
	};
	struct pr_buf b = PR_BUF_INIT;
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(cases); i++) {
		pr_buf_reset(&b);
		assert_int_equal(pr_assemble_link_msgid(&b, cases[i][0],
							strlen(cases[i][0])),
				 0);
		assert_string_equal(b.ptr, cases[i][1]);
	}
	assert_int_equal(pr_assemble_link_msgid(&b, "abc@x", 5), PR_ENOENT);
	assert_int_equal(pr_assemble_link_msgid(&b, "https://lore/netdev/", 20),
			 PR_ENOENT);
	pr_buf_release(&b);
}

static void test_partial_reroll(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;
	const struct pr_asm_version *v;

	v1_of_three(&m);
	/* only 2/3 re-rolled, as a reply to v1's 2/3 */
	mk(&m, "2v2", "2", "[PATCH v2 2/3] b", "a@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	s = &a.series[0];
	assert_int_equal(s->nr, 2);
	v = &s->versions[1];
	assert_int_equal(v->number, 2);
	assert_true(v->complete);
	assert_true(v->partial_reroll);
	assert_null(v->cover);
	assert_int_equal(v->nr, 3);
	assert_string_equal(id_at(v, 0), "1");
	assert_string_equal(id_at(v, 1), "2v2");
	assert_string_equal(id_at(v, 2), "3");
	assert_string_equal(v->supersedes, "c");
	assert_false(s->versions[0].partial_reroll);
	assert_ptr_equal(pr_assemble_latest_complete(s), v);
	release(&m, &a);
}

static void test_partial_not_reroll(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_version *v;

	v1_of_three(&m);
	/* a v2 patch answering v1's 1/3 as its 2/3: not b4's re-roll */
	mk(&m, "2v2", "1", "[PATCH v2 2/3] b", "a@x");
	/* and a v3 with another total */
	mk(&m, "1v3", "1", "[PATCH v3 1/4] a", "a@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	assert_int_equal(a.series[0].nr, 3);
	v = &a.series[0].versions[1];
	assert_false(v->complete);
	assert_false(v->partial_reroll);
	assert_int_equal(v->nr, 1);
	assert_false(a.series[0].versions[2].complete);
	assert_ptr_equal(pr_assemble_latest_complete(&a.series[0]),
			 &a.series[0].versions[0]);
	release(&m, &a);
}

static void test_resend_same_patch_ids(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	struct pr_patch *p;

	p = mk(&m, "o", NULL, "[PATCH] net: fix", "a@x");
	memcpy(p->patch_id, "1111111111111111111111111111111111111111", 41);
	mk(&m, "u", NULL, "[PATCH] net: fix", "b@x");
	/* a resend under a new subject: the same patch-id */
	p = mk(&m, "r", NULL, "[PATCH RESEND] net: fix the leak", "a@x");
	memcpy(p->patch_id, "1111111111111111111111111111111111111111", 41);
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 2);
	/* the resend is a posting of its own, joined by its patch-ids */
	assert_int_equal(a.series[0].nr, 2);
	assert_int_equal(a.series[0].versions[0].nr, 1);
	assert_string_equal(id_at(&a.series[0].versions[0], 0), "o");
	assert_string_equal(id_at(&a.series[0].versions[1], 0), "r");
	assert_string_equal(a.series[0].key, "o");
	assert_string_equal(a.series[1].key, "u");
	release(&m, &a);
}

static void test_keys(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };

	/* no cover: the key is the first patch's Message-ID */
	mk(&m, "x2", "gone", "[PATCH 2/2] b", "a@x");
	mk(&m, "x1", "gone", "[PATCH 1/2] a", "a@x");
	/* v2 threaded into v1 */
	mk(&m, "c1", NULL, "[PATCH 0/1] cover", "b@x");
	mk(&m, "p1", "c1", "[PATCH 1/1] a", "b@x");
	mk(&m, "c2", "c1", "[PATCH v2 0/1] cover", "b@x");
	mk(&m, "p2", "c2", "[PATCH v2 1/1] a", "b@x");
	mk(&m, NULL, NULL, "[PATCH] no ids", "c@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 3);
	assert_string_equal(a.series[0].key, "x1");
	assert_string_equal(a.series[1].key, "c1");
	assert_null(a.series[1].versions[0].supersedes);
	assert_string_equal(a.series[1].versions[1].supersedes, "c1");
	assert_null(a.series[2].key);
	release(&m, &a);
}

/* A mail dated `min` minutes after a fixed time. */
static struct pr_patch *mkt(struct mails *m, const char *id, const char *irt,
			    const char *subject, const char *email, int min)
{
	struct pr_patch *p = mk(m, id, irt, subject, email);

	p->time = 1473632523 + min * 60;
	return p;
}

static void test_markers(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;

	/* no references at all: one author, version and total, 8 min apart */
	mkt(&m, "a1", NULL, "[net,v2,1/2] a", "a@x", 0);
	mkt(&m, "b1", NULL, "[PATCH 1/2] other author", "b@x", 1);
	mkt(&m, "a2", NULL, "[net,v2,2/2] b", "A@x", 8);
	/* the same again an hour later: a new posting (unlabeled revision) */
	mkt(&m, "a3", NULL, "[net,v2,1/2] a", "a@x", 60);
	mkt(&m, "a4", NULL, "[net,v2,2/2] b", "a@x", 68);
	/* another total, or no date: not the same markers */
	mkt(&m, "a5", NULL, "[net,v2,2/3] c", "a@x", 69);
	mk(&m, "a6", NULL, "[net,v2,1/2] a", "a@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 3);
	s = &a.series[0];
	/* a1+a2 and a3+a4: two postings of v2, one series by subject */
	assert_int_equal(s->nr, 3);
	assert_true(s->versions[0].complete);
	assert_string_equal(id_at(&s->versions[0], 0), "a1");
	assert_string_equal(id_at(&s->versions[0], 1), "a2");
	assert_true(s->versions[1].complete);
	assert_string_equal(id_at(&s->versions[1], 0), "a3");
	assert_string_equal(id_at(&s->versions[1], 1), "a4");
	/* a6 is alone; its subject joins it to the others, and as a
	 * partial resend it borrows 2/2 from the posting before it */
	assert_int_equal(s->versions[2].nr, 2);
	assert_string_equal(id_at(&s->versions[2], 0), "a6");
	assert_string_equal(id_at(&s->versions[2], 1), "a4");
	assert_true(s->versions[2].partial_reroll);
	assert_string_equal(id_at(&a.series[1].versions[0], 0), "b1");
	assert_string_equal(id_at(&a.series[2].versions[0], 0), "a5");
	release(&m, &a);
}

static void test_patch_taken(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;

	/* v1 without a cover; an unlabeled v2 answers it */
	mkt(&m, "a1", NULL, "[PATCH 1/2] a", "a@x", 0);
	mkt(&m, "a2", "a1", "[PATCH 2/2] b", "a@x", 0);
	mkt(&m, "b1", "a1", "[PATCH 1/2] a", "a@x", 9);
	mkt(&m, "b2", "b1", "[PATCH 2/2] b", "a@x", 9);
	/* the same patch three times in quick succession, no references */
	mkt(&m, "s1", NULL, "[PATCH v2 1/4] x", "s@x", 2);
	mkt(&m, "s2", NULL, "[PATCH v2 1/4] x", "s@x", 3);
	mkt(&m, "s3", NULL, "[PATCH v2 1/4] x", "s@x", 0);
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 2);
	s = &a.series[0];
	assert_int_equal(s->nr, 2);
	assert_string_equal(id_at(&s->versions[0], 1), "a2");
	assert_string_equal(id_at(&s->versions[1], 0), "b1");
	assert_string_equal(id_at(&s->versions[1], 1), "b2");
	s = &a.series[1];
	assert_int_equal(s->nr, 3);
	assert_string_equal(id_at(&s->versions[0], 0), "s1");
	assert_string_equal(id_at(&s->versions[1], 0), "s2");
	assert_string_equal(id_at(&s->versions[2], 0), "s3");
	assert_false(s->versions[2].complete);
	assert_false(s->versions[0].superseded);
	release(&m, &a);
}

static void test_orphan_and_cover_comment(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };

	mkt(&m, "c", NULL, "[PATCH 0/2] A sample series", "a@x", 0);
	mkt(&m, "1", "c", "[PATCH 1/2] a", "a@x", 0);
	/* a diff without n/N answering the cover: a series of its own */
	mkt(&m, "o", "c", "This is an orphaned patch!", "a@x", 0);
	/* the cover's subject again, answering: Patchwork's comment */
	mkt(&m, "cc", "c", "[PATCH 0/2] A sample series", "a@x", 1);
	/* the same subject without references: a new cover letter */
	mkt(&m, "c2", NULL, "[PATCH 0/2] A sample series", "a@x", 30);
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 2);
	assert_int_equal(a.series[0].nr, 2);
	assert_string_equal(a.series[0].versions[0].cover->message_id, "c");
	assert_string_equal(a.series[0].versions[1].cover->message_id, "c2");
	assert_int_equal(a.series[0].versions[1].nr, 0);
	assert_int_equal(a.series[1].nr, 1);
	assert_int_equal(a.series[1].versions[0].total, 1);
	assert_string_equal(id_at(&a.series[1].versions[0], 0), "o");
	release(&m, &a);
}

static void test_other_version_reference(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;

	mkt(&m, "c1", NULL, "[PATCH 0/2] s", "a@x", 0);
	mkt(&m, "a1", "c1", "[PATCH 1/2] a", "a@x", 0);
	/* v2 2/2 (no cover) answers v1's cover two days later: v1's
	 * posting lacks patch 2, but a v2 patch is not v1's (Patchwork
	 * would put it there) */
	mkt(&m, "b2", "c1", "[PATCH v2 2/2] b", "a@x", 2 * 24 * 60);
	mkt(&m, "b1", "c1", "[PATCH v2 1/2] a", "a@x", 2 * 24 * 60);
	/* unlabeled patches under a v3 cover take its version */
	mkt(&m, "c3", NULL, "[PATCH net-next v3 0/2] s (v3)", "a@x", 3000);
	mkt(&m, "d1", "c3", "[PATCH 1/2] a", "a@x", 3001);
	mkt(&m, "d2", "c3", "[PATCH 2/2] b", "a@x", 3001);
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	s = &a.series[0];
	assert_int_equal(s->nr, 3);
	assert_false(s->versions[0].complete);
	assert_true(s->versions[0].superseded);
	assert_int_equal(s->versions[1].number, 2);
	assert_true(s->versions[1].complete);
	assert_string_equal(id_at(&s->versions[1], 0), "b1");
	assert_int_equal(s->versions[2].number, 3);
	assert_true(s->versions[2].complete);
	assert_string_equal(s->versions[2].cover->message_id, "c3");
	release(&m, &a);
}

static void test_no_message_ids(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_series *s;

	/* git format-patch --stdout: no ids, each patch its author date */
	mkt(&m, NULL, NULL, "[PATCH 0/2] s", "a@x", 5000);
	mkt(&m, NULL, NULL, "[PATCH 1/2] a", "a@x", 0);
	mkt(&m, NULL, NULL, "[PATCH 2/2] b", "a@x", 900);
	mkt(&m, NULL, NULL, "[PATCH v2 0/2] s", "a@x", 9000);
	mkt(&m, NULL, NULL, "[PATCH v2 1/2] a", "a@x", 0);
	mkt(&m, NULL, NULL, "[PATCH v2 2/2] b", "a@x", 900);
	/* the same mail read twice counts once */
	mkt(&m, "d", NULL, "[PATCH] d", "a@x", 0);
	mkt(&m, "d", NULL, "[PATCH] d", "a@x", 0);
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 2);
	s = &a.series[0];
	assert_int_equal(s->nr, 2);
	assert_true(s->versions[0].complete);
	assert_non_null(s->versions[0].cover);
	assert_int_equal(s->versions[1].number, 2);
	assert_true(s->versions[1].complete);
	assert_int_equal(a.series[1].nr, 1);
	assert_int_equal(a.series[1].versions[0].nr, 1);
	release(&m, &a);
}

static void test_partial_resend(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	const struct pr_asm_version *v;

	v1_of_three(&m);
	/* 2/3 resent in the thread: a posting of its own, filled */
	mk(&m, "2r", "c", "[PATCH RESEND 2/3] b", "a@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	assert_int_equal(a.series[0].nr, 2);
	v = &a.series[0].versions[1];
	assert_true(v->complete);
	assert_true(v->partial_reroll);
	assert_int_equal(v->nr, 3);
	assert_string_equal(id_at(v, 0), "1");
	assert_string_equal(id_at(v, 1), "2r");
	assert_string_equal(id_at(v, 2), "3");
	assert_string_equal(v->supersedes, "c");
	release(&m, &a);
}

static void test_submitter_is_sender(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };
	struct pr_patch *p;

	/* a maintainer sends others' patches, unthreaded: the in-body
	 * From: (the author) differs, the From: header (the submitter)
	 * is the same, as the cover letter's */
	p = mkt(&m, "c", NULL, "[PATCH 0/2] fixes", "m@x", 0);
	p = mkt(&m, "1", NULL, "[PATCH 1/2] a", "one@x", 1);
	p->sender = pr_strdup("M@x");
	p = mkt(&m, "2", NULL, "[PATCH 2/2] b", "two@x", 1);
	p->sender = pr_strdup("m@x");
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	assert_int_equal(a.series[0].nr, 1);
	assert_true(a.series[0].versions[0].complete);
	assert_string_equal(a.series[0].versions[0].cover->message_id, "c");
	release(&m, &a);
}

static void test_cover_version_wins(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };

	/* patches without a version before their "v3" cover letter: the
	 * version is v3 (Patchwork keeps the first mail's, v1) */
	mkt(&m, "1", "c", "[PATCH 1/2] a", "a@x", 0);
	mkt(&m, "2", "c", "[PATCH 2/2] b", "a@x", 0);
	mkt(&m, "c", NULL, "[PATCH v3 0/2] s", "a@x", 0);
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 1);
	assert_int_equal(a.series[0].nr, 1);
	assert_int_equal(a.series[0].versions[0].number, 3);
	assert_string_equal(a.series[0].versions[0].cover->message_id, "c");
	assert_true(a.series[0].versions[0].complete);
	release(&m, &a);
}

static void test_window_of_two_series(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };

	/* a stream that starts at the last mail of series r (its 1/2 read by
	 * an earlier poll), then series h, one submitter, one minute: h's 1/2
	 * does not complete r's lone 2/2 by markers */
	mkt(&m, "r2", "r1", "[PATCH 2/2] refused 2", "a@x", 0);
	mkt(&m, "h1", NULL, "[PATCH 1/2] hang 1", "a@x", 0);
	mkt(&m, "h2", "h1", "[PATCH 2/2] hang 2", "a@x", 0);
	/* a 2/3 and a 3/3 answering two mails outside the stream: apart */
	mkt(&m, "x3", "x1", "[PATCH 3/3] x 3", "a@x", 0);
	mkt(&m, "y2", "y1", "[PATCH 2/3] y 2", "a@x", 0);
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 4);
	assert_int_equal(a.series[0].nr, 1);
	assert_int_equal(a.series[0].versions[0].nr, 1);
	assert_string_equal(id_at(&a.series[0].versions[0], 0), "r2");
	assert_int_equal(a.series[1].nr, 1);
	assert_true(a.series[1].versions[0].complete);
	assert_string_equal(id_at(&a.series[1].versions[0], 0), "h1");
	assert_string_equal(id_at(&a.series[1].versions[0], 1), "h2");
	assert_string_equal(id_at(&a.series[2].versions[0], 0), "x3");
	assert_string_equal(id_at(&a.series[3].versions[0], 0), "y2");
	release(&m, &a);
}

static void test_template_covers(void **state)
{
	struct mails m = { 0 };
	struct pr_assembly a = { 0 };

	/* two series whose cover letters keep format-patch's template
	 * subject are not one series by it: their patches decide */
	mkt(&m, "c", NULL, "[PATCH 0/1] *** SUBJECT HERE ***", "a@x", 0);
	mkt(&m, "1", "c", "[PATCH 1/1] one", "a@x", 0);
	mkt(&m, "d", NULL, "[PATCH 0/1] *** SUBJECT HERE ***", "a@x", 0);
	mkt(&m, "2", "d", "[PATCH 1/1] two", "a@x", 0);
	mkt(&m, "e", NULL, "[PATCH 0/1] *** SUBJECT HERE ***", "a@x", 1);
	mkt(&m, "3", "e", "[PATCH 1/1] one", "a@x", 1);
	assert_int_equal(pr_assemble_mails(&a, m.v, m.nr), 0);
	assert_int_equal(a.nr, 2);
	/* the third, with the first's patch subject, is its second posting */
	assert_int_equal(a.series[0].nr, 2);
	assert_string_equal(a.series[0].versions[1].cover->message_id, "e");
	assert_int_equal(a.series[1].nr, 1);
	assert_string_equal(a.series[1].versions[0].cover->message_id, "d");
	release(&m, &a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cover_out_of_order),
		cmocka_unit_test(test_v2_threaded_into_v1),
		cmocka_unit_test(test_missing_cover_and_incomplete),
		cmocka_unit_test(test_extra_and_resend),
		cmocka_unit_test(test_unthreaded_versions),
		cmocka_unit_test(test_resend_new_thread),
		cmocka_unit_test(test_empty_and_replies_only),
		cmocka_unit_test(test_change_id_across_threads),
		cmocka_unit_test(test_change_id_trailer),
		cmocka_unit_test(test_link_to_previous_version),
		cmocka_unit_test(test_supersedes_line),
		cmocka_unit_test(test_link_msgid),
		cmocka_unit_test(test_partial_reroll),
		cmocka_unit_test(test_partial_not_reroll),
		cmocka_unit_test(test_resend_same_patch_ids),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_patch_taken),
		cmocka_unit_test(test_orphan_and_cover_comment),
		cmocka_unit_test(test_other_version_reference),
		cmocka_unit_test(test_no_message_ids),
		cmocka_unit_test(test_partial_resend),
		cmocka_unit_test(test_submitter_is_sender),
		cmocka_unit_test(test_cover_version_wins),
		cmocka_unit_test(test_window_of_two_series),
		cmocka_unit_test(test_template_covers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
