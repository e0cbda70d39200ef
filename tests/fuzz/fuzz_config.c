/*
 * The config loader on arbitrary files: pr_graph_load must return a valid
 * graph or PR_ECONFIG with at least one problem, never crash or leak; the
 * value parsers on the raw input as a string; and the input's lines as the
 * settings of a step (`check --step`), which give a node or problems.
 */
#include "base/pr.h"
#include "engine/cfg.h"
#include "engine/graph.h"
#include "connectors.h"
#include "plugins.h"

#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct pr_connector_type *const connectors[] = {
	&pr_connector_git,
	&pr_connector_maildir,
	&pr_connector_mbox,
	NULL,
};
static const struct pr_plugin_type *const plugins[] = {
	&pr_plugin_size_limit,
	NULL,
};
static const struct pr_registry reg = { connectors, 3, plugins, 1 };

static void values(const uint8_t *data, size_t size)
{
	char *s = pr_memdup(data, size);
	int64_t i;
	uint64_t u;
	bool b;

	pr_cfg_parse_bool(&b, s);
	pr_cfg_parse_int(&i, s);
	pr_cfg_parse_size(&u, s);
	pr_cfg_parse_duration(&i, s);
	free(s);
}

static void step(const uint8_t *data, size_t size)
{
	struct pr_strlist settings = { 0 }, problems = { 0 };
	struct pr_graph_node *n = NULL;
	char *s = pr_memdup(data, size), *line, *rest = s;
	int err;

	while ((line = strsep(&rest, "\n")))
		pr_strlist_add(&settings, line);
	err = pr_graph_step_new(&n, &reg, "fuzz", "size-limit", &settings,
				&problems);
	if ((err == 0) != (n && !problems.nr))
		abort();
	pr_graph_step_free(n);
	pr_strlist_release(&settings);
	pr_strlist_release(&problems);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_strlist problems = { 0 };
	struct pr_graph *g = NULL;
	char path[] = "/tmp/pr-fuzz-config-XXXXXX";
	int fd, err;

	values(data, size);
	step(data, size);
	/* includes and secret files would read the fuzzing machine's files */
	if (memmem(data, size, "nclude", 6) || memmem(data, size, "file:", 5))
		return 0;
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	err = pr_graph_load(&g, path, &reg, &problems);
	if (err == 0 && (!g || problems.nr))
		abort();
	if (err < 0 && (g || !problems.nr))
		abort();
	if (g) {
		struct pr_buf b = PR_BUF_INIT;

		pr_graph_print(&b, g, false);
		pr_graph_print(&b, g, true);
		pr_buf_release(&b);
	}
	pr_graph_free(g);
	pr_strlist_release(&problems);
	unlink(path);
	return 0;
}
