#include "base/pr.h"
#include "exec_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * One command run for a check (exec_proc.h): fork, exec, feed the input,
 * read the output until it closes or the deadline passes, then wait.
 */

void pr_proc_init(struct pr_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->timeout_ms = 60000;
	p->output_cap = PR_LIMIT_EXEC_OUTPUT;
	p->log_fd = -1;
}

int64_t pr_proc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void child(const struct pr_proc *p, int in, int out)
{
	const char *const *e;

	setpgid(0, 0);
	dup2(in, 0);
	dup2(out, 1);
	dup2(out, 2);
	if (p->cwd && chdir(p->cwd))
		_exit(126);
	for (e = p->env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
		char name[256];

		if (n >= sizeof(name))
			continue;
		memcpy(name, *e, n);
		name[n] = '\0';
		if (eq)
			setenv(name, eq + 1, 1);
		else
			unsetenv(name);
	}
	execvp(p->argv[0], (char *const *)p->argv);
	_exit(127);
}

/* A chunk of output: into *output and the log, each up to its cap. */
static void take(struct pr_proc_result *res, struct pr_buf *output,
		 const struct pr_proc *p, const char *chunk, size_t n)
{
	size_t room = output && p->output_cap > output->len
			      ? p->output_cap - output->len
			      : 0;
	size_t keep = n < room ? n : room;

	if (keep)
		pr_buf_add(output, chunk, keep);
	res->dropped += (uint64_t)(n - keep);
	if (p->log_fd >= 0) {
		uint64_t lroom = !p->log_cap ? n
				 : p->log_cap > res->bytes
					 ? p->log_cap - res->bytes
					 : 0;
		size_t lkeep = n < lroom ? n : (size_t)lroom;

		if (lkeep && pr_write_all(p->log_fd, chunk, lkeep))
			lkeep = 0; /* a full disk loses the log, not the run */
		res->log_dropped += (uint64_t)(n - lkeep);
	}
	res->bytes += (uint64_t)n;
}

static void kill_group(struct pr_proc_result *res, pid_t pid)
{
	res->timed_out = true;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

static size_t count_lines(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += s[i] == '\n';
	return c;
}

int pr_proc_run(struct pr_proc_result *res, struct pr_buf *output,
		const struct pr_proc *p)
{
	int inp[2] = { -1, -1 }, outp[2] = { -1, -1 }, err = 0, wst = 0;
	int64_t start = pr_proc_now_ms(), deadline = start + p->timeout_ms;
	int64_t next_progress = start + p->progress_ms;
	struct pr_proc_progress prog = { 0, 0, 0 };
	size_t written = 0, in_len = p->input ? p->input->len : 0;
	sigset_t pipe_set, old_set;
	pid_t pid;
	char chunk[65536];

	memset(res, 0, sizeof(*res));
	if (!p->argv || !p->argv[0])
		return pr_error(PR_EINVAL, "no command to run");
	if (pipe2(inp, O_CLOEXEC) || pipe2(outp, O_CLOEXEC)) {
		err = pr_error(PR_EIO, "command '%s': pipe: %s", p->argv[0],
			       strerror(errno));
		goto done;
	}
	/* A command that does not read its input must not kill us. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old_set);
	pid = fork();
	if (pid < 0) {
		err = pr_error(PR_EIO, "command '%s': fork: %s", p->argv[0],
			       strerror(errno));
		goto restore;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old_set, NULL);
		child(p, inp[0], outp[1]);
	}
	close(inp[0]);
	close(outp[1]);
	inp[0] = outp[1] = -1;
	fcntl(inp[1], F_SETFL, O_NONBLOCK);
	if (!in_len) {
		close(inp[1]);
		inp[1] = -1;
	}
	for (;;) {
		struct pollfd fds[2];
		int64_t now = pr_proc_now_ms(), wait = deadline - now;
		int nfds = 0;
		ssize_t n;

		if (wait <= 0) {
			kill_group(res, pid);
			break;
		}
		if (p->progress && p->progress_ms > 0) {
			if (now >= next_progress) {
				prog.elapsed_ms = now - start;
				p->progress(&prog, p->payload);
				next_progress = now + p->progress_ms;
			}
			if (next_progress - now < wait)
				wait = next_progress - now;
		}
		fds[nfds].fd = outp[0];
		fds[nfds++].events = POLLIN;
		if (inp[1] >= 0) {
			fds[nfds].fd = inp[1];
			fds[nfds++].events = POLLOUT;
		}
		if (poll(fds, (nfds_t)nfds, (int)wait) < 0 && errno != EINTR)
			break;
		if (nfds > 1 && fds[1].revents) {
			n = write(inp[1], p->input->ptr + written,
				  in_len - written);
			if (n > 0)
				written += (size_t)n;
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				written = in_len; /* EPIPE: stop */
			if (written == in_len) {
				close(inp[1]);
				inp[1] = -1;
			}
		}
		if (fds[0].revents) {
			n = read(outp[0], chunk, sizeof(chunk));
			if (n == 0 ||
			    (n < 0 && errno != EINTR && errno != EAGAIN))
				break;
			if (n > 0) {
				take(res, output, p, chunk, (size_t)n);
				prog.bytes = res->bytes;
				prog.lines += count_lines(chunk, (size_t)n);
			}
		}
	}
	/* Output closed: the command may still run; wait up to the deadline. */
	while (!res->timed_out && waitpid(pid, &wst, WNOHANG) == 0) {
		struct timespec ms10 = { 0, 10000000 };

		if (pr_proc_now_ms() >= deadline) {
			kill_group(res, pid);
			break;
		}
		nanosleep(&ms10, NULL);
	}
	if (res->timed_out)
		waitpid(pid, &wst, 0);
	if (WIFEXITED(wst))
		res->status = WEXITSTATUS(wst);
	else if (WIFSIGNALED(wst))
		res->status = -WTERMSIG(wst);
	res->elapsed_ms = pr_proc_now_ms() - start;
restore : {
	/* Drop a SIGPIPE raised while it was blocked. */
	struct timespec zero = { 0, 0 };

	while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
		;
}
	sigprocmask(SIG_SETMASK, &old_set, NULL);
done:
	if (inp[0] >= 0)
		close(inp[0]);
	if (inp[1] >= 0)
		close(inp[1]);
	if (outp[0] >= 0)
		close(outp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	return err;
}
