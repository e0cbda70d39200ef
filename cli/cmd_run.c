#include "pr.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "cfg.h"
#include "commands.h"
#include "engine.h"
#include "graph.h"
#include "store.h"

#define DEFAULT_STATE "patchrelay-demo/state.db"
#define DEFAULT_INTERVAL 30
#define MAX_BACKOFF 16

/*
 * The one mutable global: a signal handler can only talk to the loop
 * through a sig_atomic_t.  0: run, else the last signal seen.
 */
static volatile sig_atomic_t run_signal;

static void on_signal(int sig)
{
	run_signal = sig;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: patchrelay run -c FILE [--once] "
		"[--interval SECONDS] [--dry-run [--dry-run-dir DIR]]\n");
}

static int load(struct pr_graph **out, const char *file)
{
	struct pr_strlist problems = { 0 };
	size_t i;
	int err;

	err = pr_graph_load(out, file, pr_builtin_registry(), &problems);
	if (err == 0 && (err = pr_engine_open(*out)) < 0) {
		/* an open() failure is a config error naming the instance */
		pr_graph_free(*out);
		*out = NULL;
		pr_cli_error(NULL);
	} else if (err < 0) {
		for (i = 0; i < problems.nr; i++)
			fprintf(stderr, "patchrelay: error: %s\n",
				problems.items[i]);
		pr_cli_error(NULL);
	}
	pr_strlist_release(&problems);
	return err;
}

/*
 * patchrelay run -c FILE [--once] [--interval SECONDS] [--dry-run
 * [--dry-run-dir DIR]]: poll every route's source, deliver to its sinks,
 * record it all in the state store; loop until SIGTERM or SIGINT (the pass
 * in flight is finished), reloading the config on SIGHUP when the new one
 * validates.  --dry-run writes the mails to stdout (or DIR) instead of the
 * sinks and moves no cursor; it implies --once, since a loop would only
 * print the same mails again.
 */
int cmd_run(int argc, char **argv)
{
	struct pr_engine_pass_stats stats;
	struct pr_engine_opts opts = { false, STDOUT_FILENO, NULL };
	struct pr_graph *g = NULL;
	struct pr_store *st = NULL;
	struct sigaction sa;
	const char *file = NULL;
	long interval = DEFAULT_INTERVAL, backoff = 1;
	bool once = false;
	int i, ret = PR_EXIT_OK;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--once")) {
			once = true;
		} else if (!strcmp(argv[i], "--dry-run")) {
			opts.dry_run = true;
		} else if (!strcmp(argv[i], "--dry-run-dir") && i + 1 < argc) {
			opts.dry_run_dir = argv[++i];
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			file = argv[++i];
		} else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
			char *end;

			errno = 0;
			interval = strtol(argv[++i], &end, 10);
			/* "10x" or "99999999999999999999" is not an interval */
			if (interval < 1 || *end || errno) {
				usage();
				return PR_EXIT_USAGE;
			}
		} else {
			usage();
			return PR_EXIT_USAGE;
		}
	}
	if (!file || (opts.dry_run_dir && !opts.dry_run)) {
		usage();
		return PR_EXIT_USAGE;
	}
	if (opts.dry_run)
		once = true;
	if (load(&g, file) < 0)
		return PR_EXIT_USAGE;
	if (pr_store_open(&st, g->state ? g->state : DEFAULT_STATE) < 0) {
		pr_cli_error(NULL);
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	for (;;) {
		long slept;
		int err = pr_engine_pass(&stats, g, st, &opts);

		pr_log_info("run",
			    "pass: %zu version(s) seen, %zu new, %zu mail(s) "
			    "sent, %zu pending, %zu refused, %zu failing "
			    "source(s)",
			    stats.events, stats.new_versions, stats.sent,
			    stats.pending, stats.refused, stats.failed_sources);
		if (once) {
			if (err < 0 || stats.pending)
				ret = PR_EXIT_RUNTIME;
			break;
		}
		/* back off while something fails, up to 16 intervals */
		if (err < 0 || stats.pending)
			backoff = backoff < MAX_BACKOFF ? backoff * 2 : backoff;
		else
			backoff = 1;
		for (slept = 0; slept < interval * backoff; slept++) {
			if (run_signal == SIGHUP) {
				struct pr_graph *ng = NULL;

				run_signal = 0;
				if (load(&ng, file) == 0) {
					pr_engine_close(g);
					pr_graph_free(g);
					g = ng;
					pr_log_info("run", "reloaded '%s'",
						    file);
				} else {
					pr_log_warn("run",
						    "'%s' does not validate: "
						    "kept the running config",
						    file);
				}
			}
			if (run_signal)
				break;
			sleep(1);
		}
		if (run_signal == SIGTERM || run_signal == SIGINT)
			break;
	}
done:
	pr_store_free(st);
	pr_engine_close(g);
	pr_graph_free(g);
	return ret;
}
