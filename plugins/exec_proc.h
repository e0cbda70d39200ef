#ifndef PR_EXEC_PROC_H
#define PR_EXEC_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * Running one external command for a check (the exec and kernel-ci
 * plugins).  Invariants:
 * - argv[0] is looked up in PATH and run without a shell, in a process
 *   group of its own, in cwd (NULL: ours), with env's "NAME=value" strings
 *   added to our environment (a bare "NAME" removes that variable).
 * - Standard input is fed from `input` (NULL or empty: closed at once);
 *   a command that stops reading does not stop us (SIGPIPE is held).
 * - Standard output and error are read together: the first output_cap
 *   bytes are appended to *output (NULL: none kept), and when log_fd >= 0
 *   the first log_cap bytes (0: no cap) are also written there.  What
 *   passes a cap is counted, never kept.
 * - At timeout_ms the whole group is killed (SIGKILL) and timed_out set;
 *   every progress_ms (0: never) of a command still running, progress()
 *   is told how long it ran and how much it printed.
 * - Returns 0 when the command was started and has ended (whatever its
 *   status), or a negative PR_E* code when it could not be started.
 */

struct pr_proc_progress {
	int64_t elapsed_ms;
	uint64_t bytes, lines; /* output so far */
};

struct pr_proc {
	const char *const *argv; /* NULL-terminated */
	const char *cwd;
	const char *const *env; /* NULL-terminated; NULL: none */
	const struct pr_buf *input;
	int64_t timeout_ms;
	size_t output_cap;
	int log_fd;
	uint64_t log_cap;
	int64_t progress_ms;
	void (*progress)(const struct pr_proc_progress *p, void *payload);
	void *payload;
};

struct pr_proc_result {
	int status; /* exit status, or -signal */
	bool timed_out;
	uint64_t bytes; /* all the output */
	uint64_t dropped; /* not kept in *output */
	uint64_t log_dropped; /* not written to log_fd */
	int64_t elapsed_ms;
};

/* Defaults: no input, 60 s, PR_LIMIT_EXEC_OUTPUT kept, no log. */
void pr_proc_init(struct pr_proc *p);
int pr_proc_run(struct pr_proc_result *res, struct pr_buf *output,
		const struct pr_proc *p);
/* CLOCK_MONOTONIC in milliseconds. */
int64_t pr_proc_now_ms(void);

#endif
