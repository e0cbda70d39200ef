#include "base/pr.h"
#include "checks.h"
#include "exec_proc.h"

/*
 * exec: runs an external command (an argv, never a shell) once per patch or
 * once for the series, with the patch or series as an mbox on standard
 * input.  Standard output and error are captured together up to a cap; the
 * rest is counted and dropped.  A command still running at its timeout is
 * killed with its whole process group (exec_proc.c runs it).
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

static enum pr_verdict verdict_of(const struct pr_exec_opts *o,
				  const struct pr_proc_result *res)
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
	struct pr_buf env_subject = PR_BUF_INIT;
	char env_index[48], env_total[48];
	const char *env[] = { env_index, env_total, NULL, NULL };
	struct pr_proc_result res;
	struct pr_proc p;
	const char *subject = NULL;
	size_t i;
	int err;

	for (i = 0; i < v->nr; i++)
		if (patch < 0 || (size_t)patch == i) {
			add_mail(&in, v->patches[i], i, v->nr);
			subject = v->patches[i]->subject;
		}
	snprintf(env_index, sizeof(env_index), "PR_PATCH_INDEX=%zu",
		 patch < 0 ? 0 : (size_t)patch + 1);
	snprintf(env_total, sizeof(env_total), "PR_PATCH_TOTAL=%zu", v->nr);
	pr_buf_addf(&env_subject, "PR_SUBJECT=%s", subject ? subject : "");
	env[2] = env_subject.ptr;
	pr_proc_init(&p);
	p.argv = o->argv;
	p.cwd = o->cwd;
	p.env = env;
	p.input = &in;
	p.timeout_ms = o->timeout_ms;
	p.output_cap = o->output_cap;
	err = pr_proc_run(&res, &out, &p);
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
	pr_buf_release(&env_subject);
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
