#include "base/pr.h"
#include "pr_version.h"
#include "commands.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "am", cmd_am, "write the newest version of each series for git am" },
	{ "check", cmd_check, "run a route's checks on mails or commits" },
	{ "demo", cmd_demo, "run the embedded default end to end" },
	{ "format", cmd_format, "write commits as git format-patch does" },
	{ "graph", cmd_graph, "validate a config and print its graph" },
	{ "help", cmd_help, "describe a command, connector or plugin" },
	{ "lookup", cmd_lookup, "every id a series has, from any one of them" },
	{ "parse", cmd_parse, "parse mail files, mboxes or maildirs" },
	{ "poll", cmd_poll, "poll one source once and print what it emits" },
	{ "range-diff", cmd_range_diff, "compare two versions of a series" },
	{ "route", cmd_route, "print recipients as get_maintainer.pl does" },
	{ "run", cmd_run, "run the daemon (or one pass with --once)" },
	{ "status", cmd_status, "show series, versions and deliveries" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: patchrelay <command> [<args>]\n\ncommands:\n");
	for (i = 0; i < PR_ARRAY_SIZE(commands); i++)
		fprintf(out, "   %-8s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "\nSee patchrelay(1), or 'patchrelay help <command>'.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return PR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("patchrelay %s\n", PATCHRELAY_VERSION);
		return PR_EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return PR_EXIT_OK;
	}
	for (i = 0; i < PR_ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "patchrelay: '%s' is not a command\n", argv[1]);
	usage(stderr);
	return PR_EXIT_USAGE;
}
