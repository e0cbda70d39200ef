#include "base/pr.h"

#include <jansson.h>
#include <sys/stat.h>

#include "commands.h"
#include "engine/graph.h"
#include "engine/store.h"

int pr_cli_open_store(struct pr_store **st, const char *file, const char *state)
{
	struct pr_strlist problems = { 0 };
	struct pr_graph *g = NULL;
	struct stat sb;
	size_t i;
	int ret = PR_EXIT_OK;

	*st = NULL;
	if (file) {
		if (pr_graph_load(&g, file, pr_builtin_registry(), &problems) <
		    0) {
			for (i = 0; i < problems.nr; i++)
				fprintf(stderr, "patchrelay: error: %s\n",
					problems.items[i]);
			pr_cli_error(NULL);
			ret = PR_EXIT_USAGE;
			goto done;
		}
		state = g->state;
	}
	if (!state)
		state = PR_CLI_DEFAULT_STATE;
	/* looking must not create a state file where there was none */
	if (stat(state, &sb) < 0) {
		fprintf(stderr, "patchrelay: error: no state file '%s'\n",
			state);
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	if (pr_store_open(st, state) < 0) {
		pr_cli_error(NULL);
		ret = PR_EXIT_RUNTIME;
	}
done:
	pr_graph_free(g);
	pr_strlist_release(&problems);
	return ret;
}

int pr_cli_print_json(const json_t *top)
{
	char *text = top ? json_dumps(top, JSON_INDENT(2)) : NULL;

	if (!text) {
		fprintf(stderr, "patchrelay: error: cannot print json\n");
		return PR_EXIT_RUNTIME;
	}
	printf("%s\n", text);
	free(text);
	return PR_EXIT_OK;
}
