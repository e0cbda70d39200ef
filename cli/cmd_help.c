#include "base/pr.h"
#include "commands.h"
#include "engine/cfg.h"

static void print_options(const struct pr_option *opt)
{
	size_t i;

	printf("options:\n");
	printf("   %-16s %-9s %-9s %s\n", "KEY", "TYPE", "DEFAULT", "HELP");
	printf("   %-16s %-9s %-9s %s\n", "type", "string", "-",
	       "the type of the instance (required)");
	for (; opt && opt->key; opt++) {
		printf("   %-16s %-9s %-9s %s%s", opt->key,
		       pr_cfg_type_name(opt->type), opt->def ? opt->def : "-",
		       opt->help ? opt->help : "",
		       opt->required ? " (required)" : "");
		if (opt->choices) {
			printf(" [");
			for (i = 0; opt->choices[i]; i++)
				printf("%s%s", i ? ", " : "", opt->choices[i]);
			printf("]");
		}
		printf("\n");
	}
}

static const char *caps_text(unsigned caps)
{
	switch (caps & (PR_CAP_SOURCE | PR_CAP_SINK)) {
	case PR_CAP_SOURCE | PR_CAP_SINK:
		return "source, sink";
	case PR_CAP_SOURCE:
		return "source";
	case PR_CAP_SINK:
		return "sink";
	}
	return "none";
}

static void list_types(const struct pr_registry *reg)
{
	size_t i;

	printf("connectors:\n");
	for (i = 0; i < reg->nr_connectors; i++)
		printf("   %-14s %s (%s)\n", reg->connectors[i]->name,
		       reg->connectors[i]->summary,
		       caps_text(reg->connectors[i]->caps));
	printf("plugins:\n");
	for (i = 0; i < reg->nr_plugins; i++)
		printf("   %-14s %s\n", reg->plugins[i]->name,
		       reg->plugins[i]->summary);
	printf("\nSee 'patchrelay help connector TYPE' or "
	       "'patchrelay help plugin TYPE'.\n");
}

/*
 * patchrelay help [connector TYPE | plugin TYPE]: the registered types, or
 * one type's option table.
 */
int cmd_help(int argc, char **argv)
{
	const struct pr_registry *reg = pr_builtin_registry();
	const struct pr_connector_type *ct;
	const struct pr_plugin_type *pt;

	if (argc == 1) {
		list_types(reg);
		return PR_EXIT_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "connector")) {
		ct = pr_registry_connector(reg, argv[2]);
		if (!ct)
			goto unknown;
		printf("connector %s: %s\ncan be: %s%s\n", ct->name,
		       ct->summary, caps_text(ct->caps),
		       ct->caps & PR_CAP_FEEDBACK ? ", feedback" : "");
		print_options(ct->options);
		return PR_EXIT_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "plugin")) {
		pt = pr_registry_plugin(reg, argv[2]);
		if (!pt)
			goto unknown;
		printf("plugin %s: %s\n", pt->name, pt->summary);
		print_options(pt->options);
		return PR_EXIT_OK;
	}
	fprintf(stderr,
		"usage: patchrelay help [connector TYPE | plugin TYPE]\n");
	return PR_EXIT_USAGE;
unknown:
	fprintf(stderr, "patchrelay: error: unknown %s type '%s'\n", argv[1],
		argv[2]);
	return PR_EXIT_USAGE;
}
