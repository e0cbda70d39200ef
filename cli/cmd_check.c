#include "base/pr.h"
#include "commands.h"
#include "model/model.h"
#include "model/report_render.h"
#include "model/trailer.h"
#include "git/gitrepo.h"
#include "mail/am.h"
#include "mail/mail.h"
#include "mail/mailinfo.h"
#include "mail/mbox.h"
#include "engine/graph.h"

#include <ctype.h>

/*
 * patchrelay check [-c FILE [--route NAME]] [--step TYPE[:key=value,...]]...
 *                  [--format F] (FILE... | -C REPO REVRANGE)
 *
 * The FILEs together are one version.  A mail file (git format-patch
 * output, or an mbox of several) is split by pr_mbox_split into its
 * messages, each read by pr_mailinfo_parse into a patch as a mail source
 * reads it (pr_am_patch_from_mailinfo, pr_am_bare_diff); a cover letter
 * among them is left out, as it carries no patch.  A file that is not a
 * mail (a "commit ..." file like the seeds, `git show` output) has no mail
 * headers that mailinfo could take, so read_text_patch splits it, with the
 * same header, subject, trailer and diff readers.  With -C the version is
 * the commits of REVRANGE (pr_gitrepo_load).
 *
 * With -c the steps are the check instances of a route, each with its
 * configured options; each --step adds an instance made as a [check]
 * section of its type (pr_graph_step_new), so any option of the type's
 * table works, with the config's types, defaults and errors.  This file
 * knows no plugin type.
 */

#define CHECK_MAX_STEPS 32

/* "Name <email>", or a bare name or address, as mailinfo splits it. */
static void set_ident(struct pr_ident *id, const char *v)
{
	struct pr_buf name = PR_BUF_INIT, email = PR_BUF_INIT;

	pr_mailinfo_split_from(&name, &email, v);
	/* mailinfo keeps no bare name ("Author: Marc Schuler"); we do */
	if (!name.len && !email.len)
		pr_buf_adds(&name, v);
	pr_ident_set(id, name.ptr, email.ptr);
	pr_buf_release(&name);
	pr_buf_release(&email);
}

static bool looks_like_mail(const char *raw)
{
	return !strncmp(raw, "From ", 5) || !strncasecmp(raw, "From:", 5) ||
	       !strncasecmp(raw, "Subject:", 8) ||
	       !strncasecmp(raw, "Date:", 5) ||
	       !strncasecmp(raw, "Message-ID:", 11);
}

/*
 * The "base-commit: <40 hex>" line git format-patch --base writes after a
 * patch's diff (which pr_am_bare_diff cuts off) as the version's base, for
 * steps that apply it (kernel-ci); the first one found wins.
 */
static void take_base(struct pr_version *v, const char *text)
{
	const char *q = text;

	while (!v->base_commit[0] && q && (q = strstr(q, "base-commit: "))) {
		q += 13;
		if (strspn(q, "0123456789abcdef") == 40 &&
		    (q - 13 == text || q[-14] == '\n')) {
			memcpy(v->base_commit, q, 40);
			v->base_commit[40] = '\0';
		}
	}
}

/* One message of a mail file into a new patch of v; a cover is skipped. */
static int read_mail(const char *data, size_t len,
		     const struct pr_mbox_where *where, void *payload)
{
	struct pr_version *v = payload;
	struct pr_patch *p = NULL;
	struct pr_mailinfo mi;
	int err;

	pr_mailinfo_init(&mi);
	err = pr_mailinfo_parse(&mi, data, len);
	if (!err && mi.kind == PR_MAIL_COVER && !mi.patch.len)
		goto done;
	if (!err)
		err = pr_am_patch_from_mailinfo(&p, &mi);
	if (err) {
		err = pr_error_wrap(err, "patch '%s' message %zu (line %zu)",
				    where->path, where->number, where->line);
		goto done;
	}
	take_base(v, p->diff);
	pr_am_bare_diff(p);
	pr_version_add_patch(v, p);
done:
	pr_mailinfo_release(&mi);
	return err;
}

/* A "---" line, or the first line of the diff: the message ends there. */
static bool ends_message(const char *l, size_t n)
{
	while (n && isspace((unsigned char)l[n - 1]))
		n--;
	return (n == 3 && !strncmp(l, "---", 3)) ||
	       (n >= 11 && !strncmp(l, "diff --git ", 11));
}

/*
 * A patch file that is not a mail (`git show` output, a "commit ..." file
 * like the seeds): headers after a first "commit ..." line, up to a blank
 * line (From: or Author:, Subject:, Date:); the message, its first line the
 * subject when no header gave one; then, from a "---" line or the first
 * "diff --git", the diffstat and diff as a mailed patch has them.
 */
static int read_text_patch(struct pr_version *ver, const char *path,
			   const char *raw, size_t len)
{
	struct pr_mail_headers h = PR_MAIL_HEADERS_INIT;
	struct pr_buf subject = PR_BUF_INIT, body = PR_BUF_INIT;
	struct pr_patch *p = NULL;
	const char *l, *v, *rest = NULL;
	size_t pos = 0, off, n;
	bool have_subject;
	int err;

	if (!strncmp(raw, "commit ", 7))
		pr_mail_next_line(raw, len, &pos);
	if ((err = pr_mail_headers_parse(&h, raw + pos, len - pos, &off)))
		goto done;
	pos += off;
	v = pr_mail_headers_get(&h, "Subject");
	have_subject = v != NULL;
	if (have_subject) {
		pr_buf_adds(&subject, v);
		pr_mailinfo_clean_subject(&subject);
	}
	for (l = raw + pos; (n = pr_mail_next_line(raw, len, &pos));
	     l = raw + pos) {
		size_t t = n;

		if (ends_message(l, n)) {
			rest = l;
			break;
		}
		while (t && isspace((unsigned char)l[t - 1]))
			t--;
		if (!have_subject && t) {
			while (isspace((unsigned char)*l))
				l++, t--;
			pr_buf_add(&subject, l, t);
			have_subject = true;
		} else if (have_subject && (body.len || t)) {
			pr_buf_add(&body, l, t);
			pr_buf_addch(&body, '\n');
		}
	}
	if (!have_subject && !h.nr) {
		err = pr_error(PR_EPARSE, "patch '%s': no headers or message",
			       path);
		goto done;
	}
	pr_buf_rtrim(&body);
	if (body.len)
		pr_buf_addch(&body, '\n');
	p = pr_patch_new();
	v = pr_mail_headers_get(&h, "From");
	if (!v)
		v = pr_mail_headers_get(&h, "Author");
	set_ident(&p->author, v ? v : "");
	v = pr_mail_headers_get(&h, "Date");
	p->date = v ? pr_strdup(v) : NULL;
	p->subject = pr_strdup(subject.ptr);
	p->body = pr_strdup(body.ptr);
	err = pr_trailers_parse(&p->trailers, body.ptr, body.len);
	if (err)
		goto done;
	if (rest) {
		p->diff = pr_strndup(rest, (size_t)(raw + len - rest));
		take_base(ver, p->diff);
		pr_am_bare_diff(p);
	}
	pr_version_add_patch(ver, p);
	p = NULL;
done:
	pr_patch_free(p);
	pr_mail_headers_release(&h);
	pr_buf_release(&subject);
	pr_buf_release(&body);
	return err;
}

/* Add the patch or patches of the file at path to ver. */
static int read_patch(struct pr_version *ver, const char *path)
{
	struct pr_buf raw = PR_BUF_INIT;
	size_t before = ver->nr;
	int err;

	pr_buf_init(&raw, PR_LIMIT_MAIL_BYTES);
	err = pr_buf_read_file(&raw, path);
	if (!err && !looks_like_mail(raw.ptr))
		err = read_text_patch(ver, path, raw.ptr, raw.len);
	else if (!err)
		err = pr_mbox_split(raw.ptr, raw.len, path, NULL, read_mail,
				    ver);
	if (!err && ver->nr == before)
		err = pr_error(PR_EPARSE, "patch '%s': no patch in it", path);
	pr_buf_release(&raw);
	return err;
}

/*
 * "TYPE[:key=value,...]" as a check instance, made as a config file's
 * [check] section of that type is (pr_graph_step_new); its problems are
 * printed as the loader's are, naming the argument.
 */
static int new_step(struct pr_graph_node **out, const char *spec)
{
	struct pr_strlist settings = { 0 }, problems = { 0 };
	struct pr_buf origin = PR_BUF_INIT;
	const char *colon = strchr(spec, ':'), *kv, *end;
	char *type = colon ? pr_strndup(spec, (size_t)(colon - spec))
			   : pr_strdup(spec);
	size_t i;
	int err;

	for (kv = colon ? colon + 1 : NULL; kv && *kv;
	     kv = *end ? end + 1 : end) {
		end = kv + strcspn(kv, ",");
		if (end > kv) {
			char *one = pr_strndup(kv, (size_t)(end - kv));

			pr_strlist_add(&settings, one);
			free(one);
		}
	}
	pr_buf_addf(&origin, "--step '%s'", spec);
	err = pr_graph_step_new(out, pr_builtin_registry(), origin.ptr, type,
				&settings, &problems);
	for (i = 0; i < problems.nr; i++)
		fprintf(stderr, "patchrelay: %s\n", problems.items[i]);
	free(type);
	pr_buf_release(&origin);
	pr_strlist_release(&settings);
	pr_strlist_release(&problems);
	return err;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: patchrelay check [-c FILE [--route NAME]] "
		"[--step TYPE[:key=value,...]]...\n"
		"                        [--format text|json|markdown|mail] "
		"(FILE... | -C REPO REVRANGE)\n");
}

/*
 * The route of g named `name`, or its only route when name is NULL; else
 * an error that lists the routes there are.
 */
static int find_route(const struct pr_graph_route **out,
		      const struct pr_graph *g, const char *name)
{
	struct pr_buf names = PR_BUF_INIT;
	size_t i;
	int err;

	*out = NULL;
	for (i = 0; i < g->nr_routes; i++) {
		if (name && !strcmp(g->routes[i].name, name)) {
			*out = &g->routes[i];
			err = 0;
			goto done;
		}
		pr_buf_addf(&names, "%s%s", i ? ", " : "", g->routes[i].name);
	}
	if (!name && g->nr_routes == 1) {
		*out = &g->routes[0];
		err = 0;
	} else if (!g->nr_routes) {
		err = pr_error(PR_ECONFIG, "config '%s': no route", g->file);
	} else if (!name) {
		err = pr_error(PR_EINVAL,
			       "config '%s': several routes (%s); choose one "
			       "with --route",
			       g->file, names.ptr);
	} else {
		err = pr_error(PR_EINVAL,
			       "config '%s': no route '%s' (there are: %s)",
			       g->file, name, names.ptr);
	}
done:
	pr_buf_release(&names);
	return err;
}

static int load_graph(struct pr_graph **g, const char *file)
{
	struct pr_strlist problems = { 0 };
	size_t i;
	int err;

	err = pr_graph_load(g, file, pr_builtin_registry(), &problems);
	if (err < 0) {
		for (i = 0; i < problems.nr; i++)
			fprintf(stderr, "patchrelay: %s\n", problems.items[i]);
		if (!problems.nr)
			pr_cli_error("check");
	}
	pr_strlist_release(&problems);
	return err;
}

/*
 * Whether the route takes v (pr_graph_route_sections); when it does not,
 * `why` says so for the user.  Returns 1, 0 or a negative PR_E* code.
 */
static int route_takes(struct pr_buf *why, const struct pr_graph *g,
		       const struct pr_graph_route *route,
		       const struct pr_version *v)
{
	struct pr_strlist touched = { 0 };
	const char *excluded;
	size_t i;
	int ret;

	ret = pr_graph_route_sections(g, route, v, &touched, &excluded);
	if (ret)
		goto done;
	pr_buf_addf(why, "route %s does not take this series: it touches ",
		    route->name);
	for (i = 0; i < touched.nr; i++)
		pr_buf_addf(why, "%s%s", i ? ", " : "", touched.items[i]);
	if (!touched.nr)
		pr_buf_adds(why, "no section");
	if (excluded)
		pr_buf_addf(why, " (%s is in exclude-subsystem)", excluded);
	else
		pr_buf_adds(why, " (none is in include-subsystem)");
done:
	pr_strlist_release(&touched);
	return ret;
}

static int step_exit(int err)
{
	pr_cli_error("check");
	/* A bad option value is the user's input, not a crash. */
	return err == PR_EINVAL || err == PR_ECONFIG ? PR_EXIT_USAGE
						     : PR_EXIT_RUNTIME;
}

/* The steps in order: the route's (instances of g), then those of --step. */
struct check_steps {
	struct pr_graph_node **all;
	size_t nr, opened;
};

/*
 * Gather the steps and open each, as the engine opens a graph before a
 * pass: a step's plugin refuses bad options here, before anything runs.
 */
static int steps_open(struct check_steps *s, const struct pr_graph *g,
		      const struct pr_graph_route *route,
		      struct pr_graph_node *const *own, size_t nr_own)
{
	size_t i;
	int err = 0;

	s->all = pr_calloc((route ? route->steps.nr : 0) + nr_own + 1,
			   sizeof(*s->all));
	for (i = 0; route && i < route->steps.nr; i++)
		s->all[s->nr++] = (struct pr_graph_node *)pr_graph_node(
			g, "check", route->steps.items[i]);
	for (i = 0; i < nr_own; i++)
		s->all[s->nr++] = own[i];
	for (i = 0; i < s->nr; i++)
		if (!s->all[i] || !s->all[i]->plugin || !s->all[i]->plugin->run)
			return pr_error(PR_ECONFIG, "step '%s' cannot run",
					s->all[i] ? s->all[i]->inst.name
						  : route->steps.items[i]);
	for (; s->opened < s->nr && !err; s->opened++) {
		struct pr_graph_node *n = s->all[s->opened];

		if (n->plugin->open && (err = n->plugin->open(&n->inst)))
			err = pr_error_wrap(err, "%s", n->inst.file);
	}
	return err;
}

/* Close what steps_open opened, the one whose open() failed too. */
static void steps_close(struct check_steps *s)
{
	size_t i;

	for (i = 0; i < s->opened; i++)
		if (s->all[i]->plugin->close)
			s->all[i]->plugin->close(&s->all[i]->inst);
	free(s->all);
}

int cmd_check(int argc, char **argv)
{
	struct pr_graph_node *steps[CHECK_MAX_STEPS];
	struct check_steps run = { 0 };
	size_t nr_steps = 0, i;
	enum pr_render_format fmt = PR_RENDER_TEXT;
	struct pr_report report = PR_REPORT_INIT;
	struct pr_version *v = NULL;
	struct pr_series *series = NULL;
	struct pr_graph *g = NULL;
	struct pr_buf why = PR_BUF_INIT;
	const struct pr_graph_route *route = NULL;
	const char *repo = NULL, *config = NULL, *route_name = NULL;
	struct pr_buf out = PR_BUF_INIT;
	int ret = PR_EXIT_USAGE, a, err;

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		const char *arg = argv[a];

		if (!strcmp(arg, "--")) {
			a++;
			break;
		}
		/* "-3" is a REVRANGE (the last 3 commits), not an option. */
		if (isdigit((unsigned char)arg[1]))
			break;
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage(stdout);
			ret = PR_EXIT_OK;
			goto done;
		}
		if ((!strcmp(arg, "--step") || !strcmp(arg, "--format") ||
		     !strcmp(arg, "-C") || !strcmp(arg, "-c") ||
		     !strcmp(arg, "--route")) &&
		    a + 1 >= argc) {
			fprintf(stderr, "patchrelay: '%s' needs a value\n",
				arg);
			goto usage;
		}
		if (!strcmp(arg, "--step")) {
			if (nr_steps == CHECK_MAX_STEPS) {
				fprintf(stderr, "patchrelay: too many steps\n");
				goto usage;
			}
			if (new_step(&steps[nr_steps], argv[++a]))
				goto done;
			nr_steps++;
		} else if (!strcmp(arg, "--format")) {
			if (pr_render_format_parse(&fmt, argv[++a])) {
				pr_cli_error("check");
				goto done;
			}
		} else if (!strcmp(arg, "-C")) {
			repo = argv[++a];
		} else if (!strcmp(arg, "-c")) {
			config = argv[++a];
		} else if (!strcmp(arg, "--route")) {
			route_name = argv[++a];
		} else {
			fprintf(stderr, "patchrelay: unknown option '%s'\n",
				arg);
			goto usage;
		}
	}
	if (a >= argc) {
		fprintf(stderr, "patchrelay: check needs %s\n",
			repo ? "a REVRANGE" : "a FILE");
		goto usage;
	}
	if (repo && a + 1 != argc) {
		fprintf(stderr, "patchrelay: check -C takes one REVRANGE\n");
		goto usage;
	}
	if (route_name && !config) {
		fprintf(stderr, "patchrelay: --route needs -c FILE\n");
		goto usage;
	}
	if (config) {
		if (load_graph(&g, config) < 0)
			goto done;
		if (find_route(&route, g, route_name)) {
			pr_cli_error("check");
			goto done;
		}
	}
	/* Neither a route nor a step: the two that need no configuration. */
	if (!nr_steps && !route) {
		if (new_step(&steps[nr_steps++], "size-limit") ||
		    new_step(&steps[nr_steps++], "mass-edit"))
			goto done;
	}
	if (repo) {
		if (pr_gitrepo_load(&v, repo, argv[a])) {
			pr_cli_error("check");
			goto done;
		}
	} else {
		v = pr_version_new(1);
		for (; a < argc; a++)
			if (read_patch(v, argv[a])) {
				pr_cli_error("check");
				goto done;
			}
	}
	if ((err = steps_open(&run, g, route, steps, nr_steps))) {
		ret = step_exit(err);
		goto done;
	}
	if (route && (err = route_takes(&why, g, route, v)) <= 0) {
		if (err < 0) {
			ret = step_exit(err);
		} else {
			printf("%s\n", why.ptr);
			ret = PR_EXIT_OK;
		}
		goto done;
	}
	/* route plugins add recipients to a series: hold them here */
	series = pr_series_new("check", "check");
	for (i = 0; i < run.nr; i++) {
		err = run.all[i]->plugin->run(&run.all[i]->inst, series, v,
					      &report);
		if (err) {
			ret = step_exit(err);
			goto done;
		}
	}
	if (pr_report_render(&out, &report, fmt)) {
		pr_cli_error("check");
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	fwrite(out.ptr, 1, out.len, stdout);
	ret = pr_report_verdict(&report) == PR_VERDICT_FAIL ? PR_EXIT_VERDICT
							    : PR_EXIT_OK;
	goto done;
usage:
	usage(stderr);
	ret = PR_EXIT_USAGE;
done:
	pr_buf_release(&out);
	pr_buf_release(&why);
	pr_report_release(&report);
	pr_version_free(v);
	pr_series_free(series);
	steps_close(&run);
	for (i = 0; i < nr_steps; i++)
		pr_graph_step_free(steps[i]);
	pr_graph_free(g);
	return ret;
}
