#include "base/pr.h"
#include "checks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * exec: runs an external command (an argv, never a shell) once per patch or
 * once for the series, with the patch or series as an mbox on standard
 * input.  Standard output and error are captured together up to a cap; the
 * rest is counted and dropped.  A command still running at its timeout is
 * killed with its whole process group.
 */

void pr_exec_defaults(struct pr_exec_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_ms = 60000;
	o->output_cap = PR_LIMIT_EXEC_OUTPUT;
}

/* A patch as git format-patch writes it. */
static void add_mail(struct pr_buf *b, const struct pr_patch *p, size_t idx,
		     size_t total)
{
	pr_buf_addf(b, "From %s Mon Sep 17 00:00:00 2001\n",
		    *p->commit_id ? p->commit_id
				  : "0000000000000000000000000000000000000000");
	pr_buf_addf(b, "From: %s <%s>\n", p->author.name ? p->author.name : "",
		    p->author.email ? p->author.email : "");
	if (p->date)
		pr_buf_addf(b, "Date: %s\n", p->date);
	if (total > 1)
		pr_buf_addf(b, "Subject: [PATCH %zu/%zu] %s\n\n", idx + 1,
			    total, p->subject ? p->subject : "");
	else
		pr_buf_addf(b, "Subject: [PATCH] %s\n\n",
			    p->subject ? p->subject : "");
	pr_buf_adds(b, p->body ? p->body : "");
	pr_buf_adds(b, "---\n");
	if (p->diffstat)
		pr_buf_adds(b, p->diffstat);
	pr_buf_addch(b, '\n');
	if (p->diff)
		pr_buf_adds(b, p->diff);
	pr_buf_adds(b, "-- \npatchrelay\n\n");
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct exec_result {
	int status; /* exit status, or -signal */
	bool timed_out;
	uint64_t dropped; /* output bytes past the cap */
};

static void child(const struct pr_exec_opts *o, int in, int out, size_t idx,
		  size_t total, const char *subject)
{
	char num[32];

	setpgid(0, 0);
	dup2(in, 0);
	dup2(out, 1);
	dup2(out, 2);
	if (o->cwd && chdir(o->cwd))
		_exit(126);
	snprintf(num, sizeof(num), "%zu", idx);
	setenv("PR_PATCH_INDEX", num, 1);
	snprintf(num, sizeof(num), "%zu", total);
	setenv("PR_PATCH_TOTAL", num, 1);
	setenv("PR_SUBJECT", subject ? subject : "", 1);
	execvp(o->argv[0], (char *const *)o->argv);
	_exit(127);
}

static int run_one(struct exec_result *res, struct pr_buf *output,
		   const struct pr_exec_opts *o, const struct pr_buf *input,
		   size_t idx, size_t total, const char *subject)
{
	int inp[2] = { -1, -1 }, outp[2] = { -1, -1 }, err = 0, wst = 0;
	int64_t deadline = now_ms() + o->timeout_ms;
	size_t written = 0;
	sigset_t pipe_set, old_set;
	pid_t pid;
	char chunk[65536];

	memset(res, 0, sizeof(*res));
	if (pipe(inp) || pipe(outp)) {
		err = pr_error(PR_EIO, "exec '%s': pipe: %s", o->argv[0],
			       strerror(errno));
		goto done;
	}
	/* A command that does not read its input must not kill us. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old_set);
	pid = fork();
	if (pid < 0) {
		err = pr_error(PR_EIO, "exec '%s': fork: %s", o->argv[0],
			       strerror(errno));
		goto restore;
	}
	if (pid == 0) {
		close(inp[1]);
		close(outp[0]);
		sigprocmask(SIG_SETMASK, &old_set, NULL);
		child(o, inp[0], outp[1], idx, total, subject);
	}
	close(inp[0]);
	close(outp[1]);
	inp[0] = outp[1] = -1;
	fcntl(inp[1], F_SETFL, O_NONBLOCK);
	if (!input->len) {
		close(inp[1]);
		inp[1] = -1;
	}
	for (;;) {
		struct pollfd fds[2];
		int nfds = 0, left = (int)(deadline - now_ms());
		ssize_t n;

		if (left <= 0) {
			res->timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		fds[nfds].fd = outp[0];
		fds[nfds++].events = POLLIN;
		if (inp[1] >= 0) {
			fds[nfds].fd = inp[1];
			fds[nfds++].events = POLLOUT;
		}
		if (poll(fds, (nfds_t)nfds, left) < 0 && errno != EINTR)
			break;
		if (nfds > 1 && fds[1].revents) {
			n = write(inp[1], input->ptr + written,
				  input->len - written);
			if (n > 0)
				written += (size_t)n;
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				written = input->len; /* EPIPE: stop */
			if (written == input->len) {
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
				size_t room =
					o->output_cap > output->len
						? o->output_cap - output->len
						: 0;
				size_t keep = (size_t)n < room ? (size_t)n
							       : room;

				pr_buf_add(output, chunk, keep);
				res->dropped += (uint64_t)n - keep;
			}
		}
	}
	/* Output closed: the command may still run; wait up to the deadline. */
	while (!res->timed_out && waitpid(pid, &wst, WNOHANG) == 0) {
		struct timespec ms10 = { 0, 10000000 };

		if (now_ms() >= deadline) {
			res->timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
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

static enum pr_verdict verdict_of(const struct pr_exec_opts *o,
				  const struct exec_result *res)
{
	size_t i;

	if (res->timed_out)
		return PR_VERDICT_FAIL;
	if (res->status == 0)
		return PR_VERDICT_PASS;
	for (i = 0; i < o->nr_warn_status; i++)
		if (o->warn_status[i] == res->status)
			return PR_VERDICT_WARN;
	return PR_VERDICT_FAIL;
}

static int run_and_report(struct pr_report *r, const char *step,
			  const struct pr_exec_opts *o,
			  const struct pr_version *v, int patch)
{
	struct pr_buf in = PR_BUF_INIT, out = PR_BUF_INIT;
	struct exec_result res;
	const char *subject = NULL;
	size_t i;
	int err;

	for (i = 0; i < v->nr; i++)
		if (patch < 0 || (size_t)patch == i) {
			add_mail(&in, v->patches[i], i, v->nr);
			subject = v->patches[i]->subject;
		}
	err = run_one(&res, &out, o, &in, patch < 0 ? 0 : (size_t)patch + 1,
		      v->nr, subject);
	if (err)
		goto done;
	if (res.dropped)
		pr_buf_addf(&out,
			    "\n[... %llu more bytes of output left out "
			    "...]\n",
			    (unsigned long long)res.dropped);
	if (res.timed_out)
		pr_report_add(r, step, "timeout", PR_VERDICT_FAIL, patch,
			      out.len ? out.ptr : NULL,
			      "'%s' did not finish within %lld ms and was "
			      "killed",
			      o->argv[0], (long long)o->timeout_ms);
	else if (res.status < 0)
		pr_report_add(r, step, "signal", PR_VERDICT_FAIL, patch,
			      out.len ? out.ptr : NULL,
			      "'%s' was killed by signal %d", o->argv[0],
			      -res.status);
	else if (res.status == 127)
		pr_report_add(r, step, "exec", PR_VERDICT_FAIL, patch,
			      out.len ? out.ptr : NULL,
			      "'%s' could not be run (exit status 127)",
			      o->argv[0]);
	else
		pr_report_add(r, step, "status", verdict_of(o, &res), patch,
			      out.len ? out.ptr : NULL,
			      "'%s' exited with status %d", o->argv[0],
			      res.status);
done:
	pr_buf_release(&in);
	pr_buf_release(&out);
	return err;
}

int pr_exec_check(struct pr_report *r, const char *step,
		  const struct pr_exec_opts *o, const struct pr_version *v)
{
	size_t i;
	int err = 0;

	if (!o->argv || !o->argv[0])
		return pr_error(PR_EINVAL, "exec step '%s': no command", step);
	if (!o->per_patch)
		return run_and_report(r, step, o, v, -1);
	for (i = 0; !err && i < v->nr; i++)
		err = run_and_report(r, step, o, v, (int)i);
	return err;
}

static const struct pr_option exec_options[] = {
	{ "command", PR_OPT_LIST, NULL,
	  "the command, one word per key (no shell): command = perl",
	  offsetof(struct pr_exec_ctx, command), false, NULL },
	{ "cmd", PR_OPT_STRING, NULL,
	  "or the command on one line, split at blanks (no shell, no quoting)",
	  offsetof(struct pr_exec_ctx, cmd), false, NULL },
	{ "cwd", PR_OPT_PATH, NULL, "working directory of the command",
	  offsetof(struct pr_exec_ctx, cwd), false, NULL },
	{ "timeout", PR_OPT_DURATION, "60s", "kill the command after this",
	  offsetof(struct pr_exec_ctx, timeout), false, NULL },
	{ "output-cap", PR_OPT_SIZE, "1M", "most output kept",
	  offsetof(struct pr_exec_ctx, output_cap), false, NULL },
	{ "per-patch", PR_OPT_BOOL, "false",
	  "run once per patch instead of once for the series",
	  offsetof(struct pr_exec_ctx, per_patch), false, NULL },
	{ "warn-status", PR_OPT_LIST, NULL,
	  "an exit status that warns instead of failing (repeatable)",
	  offsetof(struct pr_exec_ctx, warn_status), false, NULL },
	PR_OPTIONS_END,
};

/* The command's words: command's values, or cmd split at blanks. */
static void exec_words(struct pr_strlist *out, const struct pr_exec_ctx *c)
{
	const char *w = c->cmd;
	char *word;
	size_t i, n;

	for (i = 0; i < c->command.nr; i++)
		pr_strlist_add(out, c->command.items[i]);
	while (w && *(w += strspn(w, " \t"))) {
		n = strcspn(w, " \t");
		word = pr_strndup(w, n);
		pr_strlist_add(out, word);
		free(word);
		w += n;
	}
}

/*
 * The instance's options as pr_exec_check takes them, refused when wrong:
 * one of command and cmd, warn-status 0..255.  o->argv, owned by the
 * caller, points into *words.
 */
static int exec_opts(struct pr_exec_opts *o, struct pr_strlist *words,
		     const struct pr_instance *inst)
{
	const struct pr_exec_ctx *c = inst->ctx;
	const char **argv;
	size_t i;

	pr_exec_defaults(o);
	if (c->timeout > 0)
		o->timeout_ms = c->timeout;
	if (c->output_cap > 0)
		o->output_cap = (size_t)c->output_cap;
	o->per_patch = c->per_patch;
	o->cwd = c->cwd;
	for (i = 0; i < c->warn_status.nr; i++) {
		char *end;
		long st = strtol(c->warn_status.items[i], &end, 10);

		if (*end || st < 0 || st > 255 ||
		    o->nr_warn_status == PR_ARRAY_SIZE(o->warn_status))
			return pr_error(PR_ECONFIG,
					"check '%s': warn-status '%s' is not "
					"0..255 or one too many",
					inst->name, c->warn_status.items[i]);
		o->warn_status[o->nr_warn_status++] = (int)st;
	}
	if (c->command.nr && c->cmd)
		return pr_error(PR_ECONFIG,
				"check '%s': command and cmd both set; use one",
				inst->name);
	exec_words(words, c);
	if (!words->nr)
		return pr_error(PR_ECONFIG,
				"check '%s': no command (set command or cmd)",
				inst->name);
	argv = pr_calloc(words->nr + 1, sizeof(*argv));
	for (i = 0; i < words->nr; i++)
		argv[i] = words->items[i];
	o->argv = argv;
	return 0;
}

/* What run() would refuse, refused before anything runs. */
static int exec_open(struct pr_instance *inst)
{
	struct pr_strlist words = { 0 };
	struct pr_exec_opts o;
	int err = exec_opts(&o, &words, inst);

	free((void *)o.argv);
	pr_strlist_release(&words);
	return err;
}

static int exec_run(struct pr_instance *inst, struct pr_series *s,
		    struct pr_version *v, struct pr_report *report)
{
	struct pr_strlist words = { 0 };
	struct pr_exec_opts o;
	int err;

	PR_UNUSED(s);
	err = exec_opts(&o, &words, inst);
	if (!err)
		err = pr_exec_check(report, inst->name, &o, v);
	free((void *)o.argv);
	pr_strlist_release(&words);
	return err;
}

const struct pr_plugin_type pr_plugin_exec = {
	.abi = PR_ABI_VERSION,
	.name = "exec",
	.summary = "run an external check (checkpatch.pl, a build) per patch",
	.kind = PR_PLUGIN_CHECK,
	.options = exec_options,
	.ctx_size = sizeof(struct pr_exec_ctx),
	.open = exec_open,
	.run = exec_run,
};
