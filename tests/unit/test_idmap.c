#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

#include "base/strlist.h"
#include "engine/bridge.h"
#include "engine/delivery.h"
#include "engine/graph.h"
#include "engine/idmap.h"
#include "engine/store.h"
#include "model/model.h"

struct fixture {
	char dir[64];
	char path[128];
	struct pr_store *st;
};

static int setup(void **state)
{
	struct fixture *f = pr_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pr-idmap-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/state.db", f->dir);
	if (pr_store_open(&f->st, f->path))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pr_store_free(f->st);
	unlink(f->path);
	/* WAL leaves its files beside the database until the last close */
	rmdir(f->dir);
	free(f);
	return 0;
}

static void test_candidates(void **state)
{
	struct pr_strlist l = { 0 };

	PR_UNUSED(state);
	assert_int_equal(pr_idmap_candidates(&l, " <a.b@example.org> "), 0);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.items[0], "<a.b@example.org>");
	assert_string_equal(l.items[1], "a.b@example.org");
	pr_strlist_release(&l);
	assert_int_equal(
		pr_idmap_candidates(&l, "https://lore.kernel.org/r/x%40y.z/"),
		0);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.items[1], "x@y.z");
	pr_strlist_release(&l);
	/* GitLab's reference; a URL with no Message-ID stays one */
	assert_int_equal(pr_idmap_candidates(&l, "grp/proj!12"), 0);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.items[1], "grp/proj#12");
	pr_strlist_release(&l);
	assert_int_equal(
		pr_idmap_candidates(&l, "https://github.com/o/r/pull/7"), 0);
	assert_int_equal(l.nr, 1);
	pr_strlist_release(&l);
	assert_int_equal(pr_idmap_candidates(&l, "   "), 0);
	assert_int_equal(l.nr, 0);
}

/* Patchwork URLs by number: one value for the API and the web pages. */
static void test_patchwork_url(void **state)
{
	static const struct {
		const char *url, *want;
	} t[] = {
		{ "https://pw.example/api/1.2/patches/12/",
		  "https://pw.example/api/patches/12/" },
		{ "https://pw.example/api/patches/12",
		  "https://pw.example/api/patches/12/" },
		{ "https://pw.example/pw/api/covers/3/comments/",
		  "https://pw.example/pw/api/covers/3/" },
		{ "http://127.0.0.1:8080/api/1.3/series/9/?x=1",
		  "http://127.0.0.1:8080/api/series/9/" },
		{ "https://pw.example/project/netdev/list/?series=77",
		  "https://pw.example/api/series/77/" },
		{ "https://pw.example/project/netdev/list/?state=*&series=77",
		  "https://pw.example/api/series/77/" },
		{ "https://pw.example/project/netdev/patch/12/",
		  "https://pw.example/api/patches/12/" },
		{ "https://pw.example/patch/12/",
		  "https://pw.example/api/patches/12/" },
		{ "https://pw.example/x/series/5/mbox/",
		  "https://pw.example/x/api/series/5/" },
		{ "https://pw.example/project/netdev/patch/a@b/", NULL },
		{ "https://pw.example/api/patches/", NULL },
		{ "https://pw.example/api/patches/1x/", NULL },
		{ "https://github.com/o/r/pull/7", NULL },
		{ "https://pw.example/project/netdev/list/?series=", NULL },
		{ "pw.example/patch/12/", NULL },
	};
	struct pr_buf b = PR_BUF_INIT;
	struct pr_strlist l = { 0 };
	size_t i;

	PR_UNUSED(state);
	for (i = 0; i < PR_ARRAY_SIZE(t); i++) {
		int err =
			pr_idmap_patchwork_url(&b, t[i].url, strlen(t[i].url));

		if (t[i].want) {
			assert_int_equal(err, 0);
			assert_string_equal(b.ptr, t[i].want);
		} else {
			assert_int_equal(err, PR_ENOENT);
			assert_int_equal(b.len, 0);
		}
		pr_buf_reset(&b);
	}
	pr_buf_release(&b);
	/* lookup's candidates hold it */
	assert_int_equal(
		pr_idmap_candidates(&l, "https://pw.example/patch/12/ "), 0);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.items[1], "https://pw.example/api/patches/12/");
	pr_strlist_release(&l);
}

/* A version of two patches (patch-ids p1, p2) and a cover, mailed. */
static struct pr_version *mailed(int number, const char *p2)
{
	struct pr_version *v = pr_version_new(number);
	struct pr_patch *a = pr_patch_new(), *b = pr_patch_new();
	char mid[64];

	v->cover = pr_calloc(1, sizeof(*v->cover));
	v->cover->subject = pr_strdup("two things");
	snprintf(mid, sizeof(mid), "cover.%d@x", number);
	v->cover->message_id = pr_strdup(mid);
	a->subject = pr_strdup("a: one");
	a->subject_raw = pr_strdup("[PATCH 1/2] a: one");
	snprintf(mid, sizeof(mid), "a.%d@x", number);
	a->message_id = pr_strdup(mid);
	a->in_reply_to = pr_strdup(v->cover->message_id);
	a->references = pr_calloc(1, sizeof(*a->references));
	a->references[0] = pr_strdup(v->cover->message_id);
	a->nr_references = a->alloc_references = 1;
	a->prefix.version = number;
	memcpy(a->patch_id, "1111111111111111111111111111111111111111", 41);
	b->subject = pr_strdup("b: two");
	snprintf(mid, sizeof(mid), "b.%d@x", number);
	b->message_id = pr_strdup(mid);
	b->prefix.version = number;
	memcpy(b->patch_id, p2, 41);
	/* b carries one trailer already */
	pr_trailer_list_add(&b->trailers, "Acked-by", "C <c@x>");
	pr_version_add_patch(v, a);
	pr_version_add_patch(v, b);
	return v;
}

/* Record version v of series "list"/"k" (patch-ids and mails). */
static int64_t record(struct pr_store *st, struct pr_version *v)
{
	struct pr_store_version sv;
	const char *ids[2];
	char fp[41];

	ids[0] = v->patches[0]->patch_id;
	ids[1] = v->patches[1]->patch_id;
	assert_int_equal(pr_store_fingerprint(fp, v), 0);
	assert_int_equal(pr_store_record_version(&sv, st, "list", "k", fp, NULL,
						 2, 0),
			 0);
	assert_int_equal(sv.number, v->number);
	assert_int_equal(pr_store_version_patches_set(st, sv.series_id,
						      v->number, ids, 2),
			 0);
	assert_int_equal(pr_bridge_record_version(st, sv.series_id, v), 0);
	return sv.series_id;
}

static void test_mails(void **state)
{
	static const char sent[] = "From: R <r@x>\n"
				   "Subject: [PATCH v1 2/2] b: two\n"
				   "Message-ID: <sent@x>\n"
				   "In-Reply-To: <c@x>\n"
				   "References: <c@x>\n\nbody\n";
	struct fixture *f = *state;
	struct pr_version *v =
		mailed(1, "2222222222222222222222222222222222222222");
	struct pr_idmap_mail m;
	int64_t id = record(f->st, v), *ids = NULL;
	size_t nr = 0;
	int version;

	assert_int_equal(pr_idmap_find(&ids, &nr, f->st, "a.1@x"), 0);
	assert_int_equal(nr, 1);
	assert_true(ids[0] == id);
	free(ids);
	/* a series' key names it too; unknown ids name nothing */
	assert_int_equal(pr_idmap_find(&ids, &nr, f->st, "k"), 0);
	assert_int_equal(nr, 1);
	free(ids);
	assert_int_equal(pr_idmap_find(&ids, &nr, f->st, "nope"), 0);
	assert_int_equal(nr, 0);
	/* Message-IDs seen are not ids patchrelay gave */
	assert_int_equal(pr_idmap_find_written(&ids, &nr, f->st, "a.1@x"), 0);
	assert_int_equal(nr, 0);

	assert_int_equal(pr_idmap_mail_find(&m, f->st, "a.1@x"), 0);
	assert_int_equal(m.idx, 1);
	assert_int_equal(m.version, 1);
	assert_string_equal(m.subject, "[PATCH 1/2] a: one");
	assert_string_equal(m.refs, "cover.1@x");
	pr_idmap_mail_release(&m);
	assert_int_equal(pr_idmap_mail_get(&m, f->st, id, 1, 0), 0);
	assert_string_equal(m.message_id, "cover.1@x");
	assert_string_equal(m.subject, "[PATCH 0/2] two things");
	pr_idmap_mail_release(&m);
	assert_int_equal(pr_idmap_mail_get(&m, f->st, id, 1, 2), 0);
	assert_string_equal(m.subject, "b: two");
	assert_string_equal(m.refs, "");
	pr_idmap_mail_release(&m);
	assert_int_equal(pr_idmap_mail_get(&m, f->st, id, 2, 0), PR_ENOENT);
	assert_int_equal(pr_idmap_mail_version(&version, f->st, id), 0);
	assert_int_equal(version, 1);
	assert_int_equal(pr_idmap_mail_version(&version, f->st, 999),
			 PR_ENOENT);
	/* a mail sent: its row from its headers, [PATCH 2/2] is idx 2 */
	assert_int_equal(
		pr_bridge_record_sent(f->st, id, 1, sent, strlen(sent)), 0);
	assert_int_equal(pr_idmap_mail_find(&m, f->st, "sent@x"), 0);
	assert_int_equal(m.idx, 2);
	assert_string_equal(m.refs, "c@x");
	pr_idmap_mail_release(&m);
	pr_version_free(v);
}

static void test_relays(void **state)
{
	struct fixture *f = *state;
	struct pr_store_version sv;
	struct pr_series *pr = pr_series_new("gh", "o/r#7");

	assert_int_equal(pr_store_record_version(&sv, f->st, "list", "s", "fp",
						 NULL, 1, 0),
			 0);
	assert_int_equal(pr_idmap_relayed(f->st, "m@x", "gh"), 0);
	assert_int_equal(pr_idmap_is_ours(f->st, "github-comment:5"), 0);
	assert_int_equal(pr_idmap_relay_add(f->st, "m@x", "gh", sv.series_id,
					    "github-comment:5"),
			 0);
	/* once: a second add changes nothing */
	assert_int_equal(pr_idmap_relay_add(f->st, "m@x", "gh", sv.series_id,
					    "github-comment:6"),
			 0);
	assert_int_equal(pr_idmap_relayed(f->st, "m@x", "gh"), 1);
	assert_int_equal(pr_idmap_relayed(f->st, "m@x", "gl"), 0);
	assert_int_equal(pr_idmap_is_ours(f->st, "github-comment:5"), 1);
	assert_int_equal(pr_idmap_is_ours(f->st, "github-comment:6"), 0);
	/* the PR a sink opened for series s is patchrelay's own */
	assert_int_equal(pr_bridge_is_own(f->st, pr), 0);
	assert_int_equal(pr_store_identity_add(f->st, sv.series_id, "github",
					       "o/r#7"),
			 0);
	assert_int_equal(pr_bridge_is_own(f->st, pr), 1);
	pr_series_free(pr);
	/* but not for s itself */
	pr = pr_series_new("list", "s");
	assert_int_equal(
		pr_store_identity_add(f->st, sv.series_id, "branch", "s"), 0);
	assert_int_equal(pr_bridge_is_own(f->st, pr), 0);
	pr_series_free(pr);
}

/* Per-version lists of per-patch ids (the gerrit sink's Change-Ids). */
static void test_listed(void **state)
{
	struct fixture *f = *state;
	struct pr_store_version sv;
	int v = -1, idx = -1;

	assert_int_equal(pr_store_record_version(&sv, f->st, "list", "s", "f1",
						 NULL, 2, 0),
			 0);
	assert_int_equal(pr_store_identity_add(f->st, sv.series_id,
					       "gerrit-ids:gr:v1", "Ia Ib"),
			 0);
	assert_int_equal(pr_store_identity_add(f->st, sv.series_id,
					       "gerrit-ids:gr:v2", "Ia Ic Ib"),
			 0);
	assert_int_equal(
		pr_store_identity_add(f->st, sv.series_id, "branch", "Ib"), 0);
	/* the newest version that lists it, and its place there */
	assert_int_equal(pr_idmap_listed(&v, &idx, f->st, sv.series_id, "Ib"),
			 0);
	assert_int_equal(v, 2);
	assert_int_equal(idx, 3);
	assert_int_equal(pr_idmap_listed(&v, &idx, f->st, sv.series_id, "Ia"),
			 0);
	assert_int_equal(v, 2);
	assert_int_equal(idx, 1);
	/* a part of an id, two ids, another series: none */
	assert_int_equal(pr_idmap_listed(&v, &idx, f->st, sv.series_id, "I"),
			 PR_ENOENT);
	assert_int_equal(pr_idmap_listed(&v, &idx, f->st, sv.series_id,
					 "Ia Ic"),
			 PR_ENOENT);
	assert_int_equal(pr_idmap_listed(&v, &idx, f->st, sv.series_id + 1,
					 "Ia"),
			 PR_ENOENT);
	assert_int_equal(v, 0);
}

static void test_trailers(void **state)
{
	struct fixture *f = *state;
	struct pr_version *v1 =
		mailed(1, "2222222222222222222222222222222222222222");
	struct pr_version *v2 =
		mailed(2, "3333333333333333333333333333333333333333");
	struct pr_idmap_trailer t[] = {
		{ 1, 0, "1111111111111111111111111111111111111111",
		  "Reviewed-by", "R <r@x>" },
		{ 1, -1, NULL, "Acked-by", "A <a@x>" },
		{ 1, 1, "2222222222222222222222222222222222222222", "Tested-by",
		  "T <t@x>" },
		/* the second patch carries it: not added again */
		{ 1, -1, NULL, "Acked-by", "C <c@x>" },
	};
	char **out = NULL;
	int64_t id;
	size_t i;

	id = record(f->st, v1);
	assert_true(record(f->st, v2) == id);
	for (i = 0; i < PR_ARRAY_SIZE(t); i++)
		assert_int_equal(pr_idmap_trailer_add(f->st, id, &t[i], "m@x"),
				 0);
	/* the same comment read again adds nothing */
	assert_int_equal(pr_idmap_trailer_add(f->st, id, &t[0], "m@x"), 0);
	assert_int_equal(pr_bridge_trailers(&out, f->st, id, v1), 0);
	assert_string_equal(out[0], "Reviewed-by: R <r@x>\n"
				    "Acked-by: A <a@x>\n"
				    "Acked-by: C <c@x>\n");
	assert_string_equal(out[1], "Tested-by: T <t@x>\n"
				    "Acked-by: A <a@x>\n");
	pr_bridge_trailers_free(out, 2);
	/* v2: the unchanged patch keeps its own; the cover's stay in v1 */
	memset(v2->patches[0]->patch_id, 0, 41);
	assert_int_equal(pr_bridge_trailers(&out, f->st, id, v2), 0);
	assert_string_equal(out[0], "Reviewed-by: R <r@x>\n");
	assert_null(out[1]);
	pr_bridge_trailers_free(out, 2);
	pr_version_free(v1);
	pr_version_free(v2);
}

/* A sink that takes series states: what it was told, in its state. */
static int told(struct pr_instance *inst, const struct pr_relay *r,
		const char *state, const char *why)
{
	return pr_buf_addf(inst->state, "%s %s %s (%s);", inst->name,
			   r->series->origin_key, state, why);
}

static const struct pr_connector_type closing = {
	.abi = PR_ABI_VERSION,
	.name = "closing",
	.caps = PR_CAP_SINK,
	.series_state = told,
};

static void test_states(void **state)
{
	struct fixture *f = *state;
	struct pr_buf log = PR_BUF_INIT;
	struct pr_graph_node nodes[2];
	struct pr_graph_route route;
	struct pr_graph g;
	struct pr_bridge b = { &g, &route, f->st, false };
	struct pr_store_version sv;
	int64_t d;

	memset(nodes, 0, sizeof(nodes));
	memset(&route, 0, sizeof(route));
	memset(&g, 0, sizeof(g));
	nodes[0].inst.name = "gh";
	nodes[1].inst.name = "gl";
	nodes[0].inst.kind = nodes[1].inst.kind = "sink";
	nodes[0].inst.state = nodes[1].inst.state = &log;
	nodes[0].connector = nodes[1].connector = &closing;
	g.nodes = nodes;
	g.nr_nodes = 2;
	route.name = "r";
	pr_strlist_add(&route.to, "gh");
	pr_strlist_add(&route.to, "gl");
	assert_int_equal(pr_store_record_version(&sv, f->st, "list", "k", "fp",
						 NULL, 1, 0),
			 0);
	/* only the sink that took a version of the series is told */
	assert_int_equal(
		pr_store_delivery_open(&d, f->st, sv.series_id, 1, "gh", 1), 0);
	assert_int_equal(pr_bridge_state(&b, "list", "k", "superseded", "v2"),
			 0);
	assert_int_equal(pr_bridge_state(&b, "list", "k", "abandoned", "why"),
			 0);
	assert_int_equal(pr_bridge_state(&b, "list", "k", "merged", "in x"), 0);
	/* a state no sink is told of, a series nobody knows */
	assert_int_equal(pr_bridge_state(&b, "list", "k", "new", "-"), 0);
	assert_int_equal(pr_bridge_state(&b, "list", "zz", "merged", "-"), 0);
	b.dry_run = true;
	assert_int_equal(pr_bridge_state(&b, "list", "k", "merged", "dry"), 0);
	/* a series first seen at v3 (no v1, v2 stored), sent at v3 */
	b.dry_run = false;
	assert_int_equal(pr_store_record_version(&sv, f->st, "list", "k3",
						 "fp3", NULL, 1, 3),
			 0);
	assert_int_equal(sv.number, 3);
	assert_int_equal(
		pr_store_delivery_open(&d, f->st, sv.series_id, 3, "gl", 1), 0);
	assert_int_equal(pr_bridge_state(&b, "list", "k3", "merged", "in y"),
			 0);
	assert_string_equal(log.ptr, "gh k superseded (v2);"
				     "gh k withdrawn (why);"
				     "gh k landed (in x);"
				     "gl k3 landed (in y);");
	pr_strlist_release(&route.to);
	pr_buf_release(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_candidates),
		cmocka_unit_test(test_patchwork_url),
		cmocka_unit_test_setup_teardown(test_mails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trailers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_states, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
