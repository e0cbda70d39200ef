#include "base/pr.h"
#include "commands.h"
#include "engine/cfg.h"
#include "engine/engine.h"
#include "engine/graph.h"

static void usage(void)
{
	fprintf(stderr, "usage: patchrelay graph -c FILE [--dot]\n");
}

/*
 * patchrelay graph -c FILE [--dot]: load and validate the config, and
 * open and close each instance as `run` opens them (no side effects),
 * print every problem (exit 2) or the graph as text or Graphviz DOT.
 */
int cmd_graph(int argc, char **argv)
{
	struct pr_strlist problems = { 0 };
	struct pr_buf out = PR_BUF_INIT;
	struct pr_graph *g = NULL;
	const char *file = NULL;
	bool dot = false;
	int i, ret = PR_EXIT_OK;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dot")) {
			dot = true;
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			file = argv[++i];
		} else if (!strncmp(argv[i], "--config=", 9)) {
			file = argv[i] + 9;
		} else {
			usage();
			return PR_EXIT_USAGE;
		}
	}
	if (!file) {
		usage();
		return PR_EXIT_USAGE;
	}
	/* then what `run` would refuse when it opens the instances */
	if (pr_graph_load(&g, file, pr_builtin_registry(), &problems) < 0 ||
	    pr_engine_check(g, &problems) < 0) {
		for (i = 0; (size_t)i < problems.nr; i++)
			fprintf(stderr, "patchrelay: error: %s\n",
				problems.items[i]);
		pr_cli_error(NULL);
		ret = PR_EXIT_USAGE;
		goto done;
	}
	pr_graph_print(&out, g, dot);
	fwrite(out.ptr, 1, out.len, stdout);
done:
	pr_buf_release(&out);
	pr_strlist_release(&problems);
	pr_graph_free(g);
	return ret;
}
