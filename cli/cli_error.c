#include "base/pr.h"
#include "commands.h"

/*
 * Shared by the full binary (main.c) and the front (front.c), which both
 * run commands.
 */
void pr_cli_error(const char *what)
{
	const char *msg = pr_error_message();

	if (what && *what)
		fprintf(stderr, "patchrelay: error: %s%s%s\n", what,
			*msg ? ": " : "", msg);
	else
		fprintf(stderr, "patchrelay: error: %s\n",
			*msg ? msg : "unknown error");
}
