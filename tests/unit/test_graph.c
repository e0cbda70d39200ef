#include "base/pr.h"
#include "engine/cfg.h"
#include "engine/graph.h"
#include "connectors.h"
#include "plugins.h"

#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

/* A connector that can take feedback, which no local type can yet. */
struct fb_ctx {
	char *token;
};

static const struct pr_option fb_options[] = {
	{ "token", PR_OPT_SECRET, NULL, "", offsetof(struct fb_ctx, token),
	  true, NULL },
	PR_OPTIONS_END,
};

static const struct pr_connector_type fb_type = {
	.abi = PR_ABI_VERSION,
	.name = "forge",
	.summary = "test forge",
	.caps = PR_CAP_SOURCE | PR_CAP_SINK | PR_CAP_FEEDBACK,
	.options = fb_options,
	.ctx_size = sizeof(struct fb_ctx),
};

static const struct pr_connector_type *const connectors[] = {
	&fb_type,	    &pr_connector_git,	&pr_connector_maildir,
	&pr_connector_mbox, &pr_connector_smtp, NULL,
};
static const struct pr_plugin_type *const plugins[] = {
	&pr_plugin_size_limit,
	NULL,
};
static const char *const hook_types[] = { "forge", NULL };
static const struct pr_registry reg = { connectors, 5, plugins, 1, hook_types };

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	memcpy(tmpdir, "/tmp/pr-graph-XXXXXX", sizeof("/tmp/pr-graph-XXXXXX"));
	if (!mkdtemp(tmpdir) || chdir(tmpdir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	unlink("net.conf");
	unlink("inc.conf");
	unlink("token");
	if (chdir("/"))
		return -1;
	rmdir(tmpdir);
	return 0;
}

static const char good_head[] = "[source \"gh\"]\n"
				"\ttype = mbox\n"
				"\tpath = in\n"
				"[check \"sz\"]\n"
				"\ttype = size-limit\n"
				"\tmax-patches = 3\n"
				"[sink \"list\"]\n"
				"\ttype = maildir\n"
				"\tpath = out\n";

/* Load `text` (appended to good_head when `head`): exactly one problem. */
static void expect_one(bool head, const char *text, const char *problem)
{
	struct pr_strlist problems = { 0 };
	struct pr_buf b = PR_BUF_INIT;
	struct pr_graph *g = NULL;

	if (head)
		pr_buf_adds(&b, good_head);
	pr_buf_adds(&b, text);
	write_file("net.conf", b.ptr);
	assert_int_equal(pr_graph_load(&g, "net.conf", &reg, &problems),
			 PR_ECONFIG);
	assert_null(g);
	if (problems.nr != 1)
		for (size_t i = 0; i < problems.nr; i++)
			print_error("problem: %s\n", problems.items[i]);
	assert_int_equal(problems.nr, 1);
	assert_string_equal(problems.items[0], problem);
	pr_strlist_release(&problems);
	pr_buf_release(&b);
}

static void test_good(void **state)
{
	struct pr_strlist problems = { 0 };
	struct pr_graph *g = NULL;
	const struct pr_graph_node *n;
	const struct pr_size_limit_ctx *sl;
	const struct pr_git_ctx *git;
	struct pr_buf b = PR_BUF_INIT;

	write_file("net.conf", "[core]\n\tstate = s.db\n\tlog-level = debug\n"
			       "[defaults]\n\tmax-files = 9\n"
			       "[source \"repo\"]\n\ttype = git\n"
			       "\turl = \"/tmp/a repo\" ; comment\n"
			       "\tbranch = topic\n");
	write_file("inc.conf", "");
	pr_buf_adds(&b, good_head);
	pr_buf_adds(&b, "[route \"r\"]\n\tfrom = gh\n\tstep = sz\n"
			"\tto = list\n\tinclude-path = net/\n"
			"\tinclude-path = drivers/net/\n");
	write_file("inc.conf", b.ptr);
	write_file("net.conf", "[core]\n\tstate = s.db\n\tlog-level = debug\n"
			       "[defaults]\n\tmax-files = 9\n"
			       "[include]\n\tpath = inc.conf\n"
			       "[source \"repo\"]\n\ttype = git\n"
			       "\turl = \"/tmp/a repo\" ; comment\n"
			       "\tbranch = topic\n");
	assert_int_equal(pr_graph_load(&g, "net.conf", &reg, &problems), 0);
	assert_int_equal(problems.nr, 0);
	assert_non_null(g);
	assert_string_equal(g->state, "s.db");
	assert_string_equal(g->log_level, "debug");
	assert_int_equal(g->nr_nodes, 4);
	assert_int_equal(g->nr_routes, 1);

	n = pr_graph_node(g, "check", "sz");
	assert_non_null(n);
	assert_ptr_equal(n->plugin, &pr_plugin_size_limit);
	sl = n->inst.ctx;
	assert_int_equal(sl->max_patches, 3);
	assert_int_equal(sl->max_files, 9); /* from [defaults] */

	n = pr_graph_node(g, "source", "repo");
	assert_non_null(n);
	git = n->inst.ctx;
	assert_string_equal(git->url, "/tmp/a repo"); /* git's quoting */
	assert_string_equal(git->cover_letter, "auto"); /* table default */
	assert_string_equal(n->inst.prefix, "git:repo");
	assert_string_equal(n->inst.file, "net.conf");
	assert_null(pr_graph_node(g, "sink", "repo"));

	assert_string_equal(g->routes[0].from, "gh");
	assert_int_equal(g->routes[0].steps.nr, 1);
	assert_int_equal(g->routes[0].include_path.nr, 2); /* multi-valued */
	assert_string_equal(g->routes[0].include_path.items[1], "drivers/net/");

	pr_buf_reset(&b);
	pr_graph_print(&b, g, false);
	assert_non_null(strstr(b.ptr, "route r: gh -> sz -> list\n"));
	assert_non_null(strstr(b.ptr, "    url = /tmp/a repo\n"));
	pr_buf_reset(&b);
	pr_graph_print(&b, g, true);
	assert_non_null(strstr(b.ptr, "\"check:sz\" -> \"sink:list\""));
	pr_graph_free(g);
	pr_graph_free(NULL);
	pr_buf_release(&b);
}

static void test_secret(void **state)
{
	struct pr_strlist problems = { 0 };
	struct pr_graph *g = NULL;
	struct pr_buf b = PR_BUF_INIT;
	const struct fb_ctx *fb;

	write_file("token", "tok-123\n");
	write_file("net.conf",
		   "[source \"f\"]\n\ttype = forge\n\ttoken = file:token\n");
	assert_int_equal(pr_graph_load(&g, "net.conf", &reg, &problems), 0);
	fb = pr_graph_node(g, "source", "f")->inst.ctx;
	assert_string_equal(fb->token, "tok-123");
	pr_graph_print(&b, g, false);
	assert_non_null(strstr(b.ptr, "token = <redacted>"));
	assert_null(strstr(b.ptr, "tok-123"));
	pr_graph_free(g);
	pr_buf_release(&b);

	/* a webhook secret: read, never printed; only for hook types */
	write_file("net.conf", "[core]\n\thttp = 127.0.0.1:8025\n"
			       "[source \"f\"]\n\ttype = forge\n"
			       "\ttoken = file:token\n"
			       "\twebhook-secret = file:token\n");
	assert_int_equal(pr_graph_load(&g, "net.conf", &reg, &problems), 0);
	assert_string_equal(pr_graph_node(g, "source", "f")->webhook_secret,
			    "tok-123");
	assert_string_equal(g->http, "127.0.0.1:8025");
	pr_buf_reset(&b);
	pr_graph_print(&b, g, false);
	assert_non_null(strstr(b.ptr, "core.http = 127.0.0.1:8025\n"));
	assert_non_null(strstr(b.ptr, "    webhook-secret = <redacted>\n"));
	assert_null(strstr(b.ptr, "tok-123"));
	pr_graph_free(g);
	g = NULL;
	pr_buf_release(&b);
	expect_one(true, "\twebhook-secret = env:PR_NO_SUCH_VAR_X\n",
		   "net.conf: sink.list.webhook-secret: unknown key for type "
		   "'maildir'");
	expect_one(false,
		   "[source \"m\"]\n\ttype = mbox\n\tpath = in\n"
		   "\twebhook-secret = file:token\n",
		   "net.conf: source.m.webhook-secret: type 'mbox' takes no "
		   "webhooks");
	expect_one(false,
		   "[source \"f\"]\n\ttype = forge\n\ttoken = file:token\n"
		   "\twebhook-secret = env:PR_NO_SUCH_VAR_X\n",
		   "net.conf: source.f.webhook-secret: secret environment "
		   "variable 'PR_NO_SUCH_VAR_X' is not set");
	expect_one(false, "[core]\n\thttp = *:80\n",
		   "net.conf: core.http: bad listen address '*:80' "
		   "(HOST:PORT, [IPv6]:PORT or PORT)");

	expect_one(false,
		   "[source \"f\"]\n\ttype = forge\n\ttoken = file:nosuch\n",
		   "net.conf: source.f.token: cannot read secret file "
		   "'nosuch': "
		   "cannot open 'nosuch': No such file or directory");
}

static void test_errors(void **state)
{
	expect_one(
		true, "[sink \"list\"]\n\tcolour = red\n",
		"net.conf: sink.list.colour: unknown key for type 'maildir'");
	expect_one(true, "[sink \"m\"]\n\ttype = maildir\n",
		   "net.conf: sink.m.path: missing required key");
	expect_one(true, "[sink \"m\"]\n\tpath = x\n",
		   "net.conf: sink.m.type: missing required key");
	expect_one(true, "[check \"sz\"]\n\tmax-lines = lots\n",
		   "net.conf: check.sz.max-lines: bad integer 'lots'");
	expect_one(true, "[check \"sz\"]\n\tmax-bytes = 2Q\n",
		   "net.conf: check.sz.max-bytes: bad size '2Q'");
	expect_one(true,
		   "[source \"g\"]\n\ttype = git\n\turl = x\n"
		   "\tcover-letter = sometimes\n",
		   "net.conf: source.g.cover-letter: bad value 'sometimes'");
	expect_one(true,
		   "[route \"r\"]\n\tfrom = gh\n\tto = list\n"
		   "\tbridge = perhaps\n",
		   "net.conf: route.r.bridge: bad boolean 'perhaps'");
	expect_one(true, "[sink \"list\"]\n\tpath\n",
		   "net.conf: sink.list.path: missing value");
	expect_one(true, "[core]\n\tlog-level = loud\n",
		   "net.conf: core.log-level: bad value 'loud'");
	expect_one(true, "[core]\n\tcolour = red\n",
		   "net.conf: core.colour: unknown key");
	expect_one(true, "[defaults]\n\tcolour = red\n",
		   "net.conf: defaults.colour: unknown key");
	expect_one(true, "[widget \"w\"]\n\ta = b\n",
		   "net.conf: widget.w.a: unknown section kind 'widget'");
	expect_one(true, "[source]\n\ttype = mbox\n",
		   "net.conf: source.type: section [source] needs a name");
	expect_one(true, "[source \"x\"]\n\ttype = github\n",
		   "net.conf: source.x.type: unknown connector type 'github'");
	expect_one(true, "[check \"x\"]\n\ttype = mbox\n",
		   "net.conf: check.x.type: unknown plugin type 'mbox'");
	/* maildir is a source too (the sources piece): smtp is not */
	expect_one(true,
		   "[source \"x\"]\n\ttype = smtp\n\turl = smtp://h\n"
		   "\tfrom = a@b\n",
		   "net.conf: source.x.type: connector 'smtp' cannot be a "
		   "source");
	expect_one(true, "[route \"r\"]\n\tfrom = gh\n\tto = netdv\n",
		   "net.conf: route.r.to: unknown sink 'netdv'");
	expect_one(true, "[route \"r\"]\n\tfrom = gh\n\tto = gh\n",
		   "net.conf: route.r.to: source 'gh' used as a sink");
	expect_one(true, "[route \"r\"]\n\tfrom = list\n\tto = list\n",
		   "net.conf: route.r.from: sink 'list' used as a source");
	expect_one(true, "[route \"r\"]\n\tfrom = nope\n\tto = list\n",
		   "net.conf: route.r.from: unknown source 'nope'");
	expect_one(true, "[route \"r\"]\n\tto = list\n",
		   "net.conf: route.r.from: missing required key");
	expect_one(true, "[route \"r\"]\n\tfrom = gh\n",
		   "net.conf: route.r.to: missing required key");
	expect_one(true,
		   "[route \"r\"]\n\tfrom = gh\n\tto = list\n"
		   "\tstep = lint\n",
		   "net.conf: route.r.step: unknown check 'lint'");
	expect_one(true,
		   "[route \"r\"]\n\tfrom = gh\n\tto = list\n"
		   "\tfeedback = list\n",
		   "net.conf: route.r.feedback: connector 'maildir' of 'list' "
		   "cannot take feedback");
	expect_one(true,
		   "[route \"r\"]\n\tfrom = gh\n\tto = list\n"
		   "\twhen = always\n",
		   "net.conf: route.r.when: unknown key");
	expect_one(false, "[source \"x\"\n",
		   "net.conf: failed to parse config file: missing ']' in "
		   "section header (in net.conf:1)");
}

static void test_all_problems(void **state)
{
	struct pr_strlist problems = { 0 };
	struct pr_graph *g = NULL;

	write_file("net.conf", "[sink \"a\"]\n\ttype = maildir\n"
			       "[sink \"b\"]\n\ttype = maildir\n\tx = 1\n"
			       "[route \"r\"]\n\tfrom = s\n\tto = c\n");
	assert_int_equal(pr_graph_load(&g, "net.conf", &reg, &problems),
			 PR_ECONFIG);
	assert_null(g);
	assert_int_equal(problems.nr, 5);
	assert_string_equal(problems.items[0],
			    "net.conf: sink.a.path: missing required key");
	assert_string_equal(
		problems.items[1],
		"net.conf: sink.b.x: unknown key for type 'maildir'");
	assert_string_equal(problems.items[2],
			    "net.conf: sink.b.path: missing required key");
	assert_string_equal(problems.items[3],
			    "net.conf: route.r.from: unknown source 's'");
	assert_string_equal(problems.items[4],
			    "net.conf: route.r.to: unknown sink 'c'");
	assert_non_null(strstr(pr_error_message(), "5 problems"));
	pr_strlist_release(&problems);

	assert_int_equal(pr_graph_load(&g, "missing.conf", &reg, &problems),
			 PR_ECONFIG);
	assert_int_equal(problems.nr, 1);
	assert_string_equal(problems.items[0],
			    "missing.conf: cannot read config file");
	pr_strlist_release(&problems);
}

static const char bridge_conf[] = "[source \"gh\"]\n\ttype = forge\n"
				  "\ttoken = env:PR_TEST_TOKEN\n"
				  "[sink \"gh\"]\n\ttype = forge\n"
				  "\ttoken = env:PR_TEST_TOKEN\n"
				  "[source \"list\"]\n\ttype = mbox\n"
				  "\tpath = in\n"
				  "[sink \"list\"]\n\ttype = mbox\n"
				  "\tpath = out\n"
				  "[route \"gh-to-list\"]\n\tfrom = gh\n"
				  "\tto = list\n\tfeedback = gh\n";

static void test_cycle(void **state)
{
	struct pr_strlist problems = { 0 };
	struct pr_graph *g = NULL;
	struct pr_buf b = PR_BUF_INIT;

	setenv("PR_TEST_TOKEN", "t", 1);
	/* one way only: no cycle */
	write_file("net.conf", bridge_conf);
	assert_int_equal(pr_graph_load(&g, "net.conf", &reg, &problems), 0);
	pr_graph_free(g);

	pr_buf_addf(&b,
		    "%s[route \"list-to-gh\"]\n\tfrom = list\n"
		    "\tto = gh\n\tbridge = true\n",
		    bridge_conf);
	expect_one(false, b.ptr,
		   "net.conf: route.gh-to-list.to: 'list' routes back to "
		   "'gh', a cycle not marked 'bridge = true'");

	pr_buf_reset(&b);
	pr_buf_addf(&b,
		    "%s\tbridge\n[route \"list-to-gh\"]\n"
		    "\tfrom = list\n\tto = gh\n\tbridge = true\n",
		    bridge_conf);
	write_file("net.conf", b.ptr);
	assert_int_equal(pr_graph_load(&g, "net.conf", &reg, &problems), 0);
	assert_true(g->routes[0].bridge);
	assert_string_equal(g->routes[0].feedback, "gh");
	pr_graph_free(g);
	pr_buf_release(&b);
}

static void test_route_takes(void **state)
{
	struct pr_graph_route r = { 0 };
	const char *const net[] = { "Documentation/x.rst", "net/core/dev.c" };
	const char *const other[] = { "network.c", "drivers/gpu/a.c" };
	const char *const dts[] = { "arch/arm/boot/dts/a.dts" };

	assert_true(pr_graph_route_takes(&r, other, 2)); /* no filter */
	pr_strlist_add(&r.include_path, "net/");
	pr_strlist_add(&r.include_path, "arch/*/boot/dts/*.dts");
	assert_true(pr_graph_route_takes(&r, net, 2));
	assert_false(pr_graph_route_takes(&r, other, 2));
	assert_true(pr_graph_route_takes(&r, dts, 1));
	assert_false(pr_graph_route_takes(&r, NULL, 0));
	pr_strlist_release(&r.include_path);
	pr_strlist_add(&r.include_path, "net");
	assert_true(pr_graph_route_takes(&r, net, 2));
	assert_false(pr_graph_route_takes(&r, other, 2));
	pr_strlist_release(&r.include_path);
}

/* One step: `settings` comma-separated; the problems joined by '|'. */
static int step(struct pr_graph_node **n, const char *type,
		const char *settings, struct pr_buf *problems)
{
	struct pr_strlist set = { 0 }, p = { 0 };
	char *copy = pr_strdup(settings), *w, *save = copy;
	size_t i;
	int err;

	while ((w = strsep(&save, ",")))
		if (*w)
			pr_strlist_add(&set, w);
	err = pr_graph_step_new(n, &reg, "--step 'x'", type, &set, &p);
	pr_buf_reset(problems);
	for (i = 0; i < p.nr; i++)
		pr_buf_addf(problems, "%s%s", i ? "|" : "", p.items[i]);
	pr_strlist_release(&set);
	pr_strlist_release(&p);
	free(copy);
	return err;
}

static void test_step(void **state)
{
	struct pr_buf problems = PR_BUF_INIT;
	struct pr_graph_node *n = NULL;
	const struct pr_size_limit_ctx *sl;

	/* the step defaults, then the settings, by the table's parsers */
	assert_int_equal(step(&n, "size-limit", "max-files=7,max-bytes=1k",
			      &problems),
			 0);
	assert_non_null(n);
	assert_string_equal(n->inst.name, "size-limit");
	assert_string_equal(n->inst.file, "--step 'x'");
	assert_ptr_equal(n->plugin, &pr_plugin_size_limit);
	sl = n->inst.ctx;
	assert_int_equal(sl->max_files, 7);
	assert_int_equal(sl->max_bytes, 1024);
	assert_int_equal(sl->warn_files, 100);
	assert_int_equal(sl->max_file_lines, 0);
	pr_graph_step_free(n);
	pr_graph_step_free(NULL);

	/* every problem, in the loader's words, and no node */
	assert_int_equal(step(&n, "size-limit",
			      "max-files=x,nokey=1,max-lines,type=smtp",
			      &problems),
			 PR_ECONFIG);
	assert_null(n);
	assert_string_equal(
		problems.ptr,
		"--step 'x': check.size-limit.type: the type cannot be set "
		"again|--step 'x': check.size-limit.max-files: bad integer "
		"'x'|--step 'x': check.size-limit.nokey: unknown key for type "
		"'size-limit'|--step 'x': check.size-limit.max-lines: missing "
		"value");
	assert_int_equal(step(&n, "smtp", "", &problems), PR_ECONFIG);
	assert_null(n);
	assert_string_equal(problems.ptr, "--step 'x': check.smtp.type: "
					  "unknown plugin type 'smtp'");
	pr_buf_release(&problems);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_secret),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_all_problems),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_route_takes),
		cmocka_unit_test(test_step),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
