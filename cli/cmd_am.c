#include "pr.h"
#include "commands.h"

/* Placeholder until its issue lands: says so and fails. */
int cmd_am(int argc, char **argv)
{
	PR_UNUSED(argc);
	fprintf(stderr, "patchrelay: '%s' is not implemented yet\n", argv[0]);
	return PR_EXIT_RUNTIME;
}
