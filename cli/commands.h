#ifndef PR_CLI_COMMANDS_H
#define PR_CLI_COMMANDS_H

#include "engine/registry.h"

/*
 * Every command is `int cmd_NAME(int argc, char **argv)`, argv[0] being the
 * command's name.  It returns the process exit status of DESIGN.md section 6:
 * 0 ok, 1 a verdict failed, 2 usage or config error, 3 runtime failure.
 * Commands are the only code that prints to stdout and exits.
 */

enum {
	PR_EXIT_OK = 0,
	PR_EXIT_VERDICT = 1,
	PR_EXIT_USAGE = 2,
	PR_EXIT_RUNTIME = 3,
	/* the front only (cli/front.c): run the command in patchrelay-full */
	PR_EXIT_FULL = -1,
};

int cmd_am(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_format(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_lookup(int argc, char **argv);
int cmd_parse(int argc, char **argv);
int cmd_poll(int argc, char **argv);
int cmd_range_diff(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);

/* The state file when the config has no core.state. */
#define PR_CLI_DEFAULT_STATE "patchrelay-demo/state.db"

/* The built-in connector and plugin types (cli/registry.c). */
const struct pr_registry *pr_builtin_registry(void);

/*
 * Open the state store of -c FILE (its core.state) or --state PATH (else
 * PR_CLI_DEFAULT_STATE), never creating one: PR_EXIT_OK with *st open, or
 * the exit status with the problem printed.
 */
struct pr_store;
int pr_cli_open_store(struct pr_store **st, const char *file,
		      const char *state);

/*
 * Print top (NULL: it could not be built) as indented JSON on stdout:
 * PR_EXIT_OK, or PR_EXIT_RUNTIME with the problem on stderr.
 */
typedef struct json_t json_t;
int pr_cli_print_json(const json_t *top);

/* Print "patchrelay: error: <msg>" for the last recorded error. */
void pr_cli_error(const char *what);

#endif
