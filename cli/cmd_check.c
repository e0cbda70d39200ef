#include "base/pr.h"
#include "commands.h"
#include "checks.h"
#include "model/model.h"
#include "model/report_render.h"
#include "mail/mailinfo.h"
#include "mail/mbox.h"
#include "git/gitrepo.h"
#include "engine/graph.h"
#include "engine/cfg.h"
#include "model/trailer.h"
#include "maintainers.h"

#include <ctype.h>

/*
 * patchrelay check [-c FILE [--route NAME]] [--step TYPE[:key=value,...]]...
 *                  [--format F] (FILE... | -C REPO REVRANGE)
 *
 * The FILEs together are one version.  A mail file (git format-patch
 * output, or an mbox of several) is split by pr_mbox_read_path into its
 * messages, each read by pr_mailinfo_parse; a cover letter among them is
 * left out, as it carries no patch.  A file that is not a mail (a
 * "commit ..." file like the seeds, `git show` output) has no mail headers
 * that mailinfo could take, so the small reader below splits it into
 * headers, message, diffstat and diff.  With -C the version is the commits
 * of REVRANGE (pr_gitrepo_load).  With -c the steps are the check
 * instances of a route, each with its configured options; --step adds more.
 */

#define CHECK_MAX_STEPS 32

struct check_step {
	const char *type;
	struct pr_size_limit_ctx size;
	struct pr_mass_edit_opts mass;
	struct pr_msg_lint_opts lint;
	struct pr_exec_opts exec;
	char *argv[32]; /* exec's cmd= split at spaces (no shell) */
	const char *allow[16];
	size_t nr_allow;
	const char *kernel_tree, *maintainers; /* mass-edit's max-sections */
};

static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return pr_strndup(s, n);
}

/* "Name <email>" or a bare name or address. */
static void set_ident(struct pr_ident *id, const char *v)
{
	const char *lt = strchr(v, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	char *name, *email;

	if (lt && gt) {
		name = trimmed(v, (size_t)(lt - v));
		email = pr_strndup(lt + 1, (size_t)(gt - lt - 1));
	} else if (strchr(v, '@')) {
		name = pr_strdup("");
		email = trimmed(v, strlen(v));
	} else {
		name = trimmed(v, strlen(v));
		email = pr_strdup("");
	}
	pr_ident_set(id, name, email);
	free(name);
	free(email);
}

/* Drop "[PATCH ...]" prefixes as git mailinfo does. */
static const char *strip_prefix(const char *s)
{
	while (*s == ' ')
		s++;
	while (*s == '[') {
		const char *e = strchr(s, ']');

		if (!e)
			break;
		s = e + 1;
		while (*s == ' ')
			s++;
	}
	return s;
}

static bool is_trailer_line(const char *l, size_t n, size_t *colon)
{
	size_t i;

	for (i = 0; i < n && (isalnum((unsigned char)l[i]) || l[i] == '-'); i++)
		;
	if (!i || i + 1 >= n || l[i] != ':' || l[i + 1] != ' ')
		return false;
	*colon = i;
	return true;
}

/* Trailers: the last paragraph of the body, when all its lines are Key: v. */
static void read_trailers(struct pr_patch *p)
{
	const char *body = p->body, *para = body, *l;
	size_t len = strlen(body);

	while (len && isspace((unsigned char)body[len - 1]))
		len--;
	for (l = body; l < body + len;) {
		const char *e = memchr(l, '\n', (size_t)(body + len - l));

		if (!e)
			break;
		if (e + 1 < body + len && e[1] == '\n')
			para = e + 2;
		l = e + 1;
	}
	for (l = para; l < body + len;) {
		size_t n = strcspn(l, "\n"), c;

		if (l + n > body + len)
			n = (size_t)(body + len - l);
		if (!is_trailer_line(l, n, &c))
			goto not_trailers;
		l += n + 1;
	}
	for (l = para; l < body + len;) {
		size_t n = strcspn(l, "\n"), c;
		char *k, *v;

		if (l + n > body + len)
			n = (size_t)(body + len - l);
		is_trailer_line(l, n, &c);
		k = pr_strndup(l, c);
		v = trimmed(l + c + 1, n - c - 1);
		pr_trailer_list_add(&p->trailers, k, v);
		free(k);
		free(v);
		l += n + 1;
	}
	return;
not_trailers:
	pr_trailer_list_release(&p->trailers);
}

/* Patch text after "---": the diffstat, then the diff from "diff --git". */
static void set_diff(struct pr_patch *p, const char *text)
{
	const char *diff = strstr(text, "\ndiff --git "), *sig;

	if (!strncmp(text, "diff --git ", 11))
		diff = text;
	else if (diff)
		diff++;
	if (!diff) {
		p->diffstat = pr_strdup(text);
		return;
	}
	p->diffstat = pr_strndup(text, (size_t)(diff - text));
	/* The mail signature "-- " (format-patch's version line) ends it. */
	sig = strstr(diff, "\n-- \n");
	p->diff = sig ? pr_strndup(diff, (size_t)(sig - diff + 1))
		      : pr_strdup(diff);
}

static bool looks_like_mail(const char *raw)
{
	return !strncmp(raw, "From ", 5) || !strncasecmp(raw, "From:", 5) ||
	       !strncasecmp(raw, "Subject:", 8) ||
	       !strncasecmp(raw, "Date:", 5) ||
	       !strncasecmp(raw, "Message-ID:", 11);
}

/* One message of a mail file into a new patch of v; a cover is skipped. */
static int read_mail(const char *data, size_t len,
		     const struct pr_mbox_where *where, void *payload)
{
	struct pr_version *v = payload;
	struct pr_patch *p = NULL;
	struct pr_mailinfo mi;
	size_t i;
	int err;

	pr_mailinfo_init(&mi);
	err = pr_mailinfo_parse(&mi, data, len);
	if (err) {
		err = pr_error_wrap(err, "patch '%s' message %zu (line %zu)",
				    where->path, where->number, where->line);
		goto done;
	}
	if (mi.kind == PR_MAIL_COVER && !mi.patch.len)
		goto done;
	p = pr_patch_new();
	pr_ident_set(&p->author, mi.name, mi.email);
	p->date = pr_strdup(mi.date);
	p->subject = pr_strdup(mi.subject);
	p->body = pr_strdup(mi.msg.ptr);
	for (i = 0; i < mi.trailers.nr; i++)
		pr_trailer_list_add(&p->trailers, mi.trailers.items[i].key,
				    mi.trailers.items[i].value);
	set_diff(p, mi.patch.ptr);
	pr_version_add_patch(v, p);
done:
	pr_mailinfo_release(&mi);
	return err;
}

/* Add the patch or patches of the file at path to v. */
static int read_patch(struct pr_version *ver, const char *path)
{
	struct pr_buf raw = PR_BUF_INIT, body = PR_BUF_INIT, hdr = PR_BUF_INIT;
	struct pr_patch *p = pr_patch_new();
	const char *l, *diff, *stat = NULL;
	bool in_headers = true;
	int err;

	pr_buf_init(&raw, PR_LIMIT_MAIL_BYTES);
	err = pr_buf_read_file(&raw, path);
	if (err)
		goto done;
	if (looks_like_mail(raw.ptr)) {
		size_t before = ver->nr;

		err = pr_mbox_split(raw.ptr, raw.len, path, NULL, read_mail,
				    ver);
		if (!err && ver->nr == before)
			err = pr_error(PR_EPARSE, "patch '%s': no patch in it",
				       path);
		goto done;
	}
	diff = strstr(raw.ptr, "\ndiff --git ");
	if (!strncmp(raw.ptr, "diff --git ", 11))
		diff = raw.ptr;
	else if (diff)
		diff++;
	for (l = raw.ptr; *l && l != diff;) {
		size_t n = strcspn(l, "\n");
		const char *next = l[n] ? l + n + 1 : l + n;

		if (in_headers && n == 0) {
			in_headers = false;
		} else if (in_headers) {
			const char *colon;
			char *v;

			if (!strncmp(l, "From ", 5) && l == raw.ptr) {
				l = next;
				continue;
			}
			/* Unfold: continuation lines start with a blank. */
			pr_buf_reset(&hdr);
			pr_buf_add(&hdr, l, n);
			while (*next == ' ' || *next == '\t') {
				size_t cn = strcspn(next, "\n");

				pr_buf_add(&hdr, next, cn);
				next = next[cn] ? next + cn + 1 : next + cn;
			}
			l = hdr.ptr;
			n = hdr.len;
			colon = memchr(l, ':', n);
			colon = colon ? colon + 1 : l + n;
			v = trimmed(colon, (size_t)(l + n - colon));
			if (!strncasecmp(l, "From:", 5) ||
			    !strncasecmp(l, "Author:", 7))
				set_ident(&p->author, v);
			else if (!strncasecmp(l, "Subject:", 8))
				p->subject = pr_strdup(strip_prefix(v));
			else if (!strncasecmp(l, "Date:", 5))
				p->date = pr_strdup(v);
			free(v);
		} else if (n == 3 && !strncmp(l, "---", 3)) {
			stat = next;
			break;
		} else if (!p->subject && n) {
			p->subject = trimmed(l, n);
		} else if (p->subject && (body.len || n)) {
			pr_buf_add(&body, l, n);
			pr_buf_addch(&body, '\n');
		}
		l = next;
	}
	if (in_headers && !p->subject) {
		err = pr_error(PR_EPARSE, "patch '%s': no headers or message",
			       path);
		goto done;
	}
	if (!p->subject)
		p->subject = pr_strdup("");
	if (!p->author.email)
		pr_ident_set(&p->author, "", "");
	pr_buf_rtrim(&body);
	if (body.len)
		pr_buf_addch(&body, '\n');
	p->body = pr_strdup(body.ptr);
	read_trailers(p);
	if (stat)
		p->diffstat = diff && diff > stat
				      ? pr_strndup(stat, (size_t)(diff - stat))
				      : pr_strdup(stat);
	if (diff) {
		/* The mail signature "-- " ends the diff. */
		const char *sig = strstr(diff, "\n-- \n");

		p->diff = sig ? pr_strndup(diff, (size_t)(sig - diff + 1))
			      : pr_strdup(diff);
	}
	pr_version_add_patch(ver, p);
	p = NULL;
done:
	pr_patch_free(p);
	pr_buf_release(&raw);
	pr_buf_release(&body);
	pr_buf_release(&hdr);
	return err;
}

static int parse_u64(uint64_t *out, const char *key, const char *v)
{
	char *end;
	unsigned long long n;

	if (!isdigit((unsigned char)*v))
		return pr_error(PR_EINVAL, "option '%s': '%s' is not a number",
				key, v);
	n = strtoull(v, &end, 10);
	if (*end == 'k' || *end == 'K')
		n *= 1024, end++;
	else if (*end == 'M')
		n *= 1024 * 1024, end++;
	if (*end)
		return pr_error(PR_EINVAL, "option '%s': '%s' is not a number",
				key, v);
	*out = n;
	return 0;
}

static int set_option(struct check_step *s, const char *key, const char *v)
{
	static const struct {
		const char *key;
		size_t off;
	} sizes[] = {
		{ "max-files", offsetof(struct pr_size_limit_ctx, max_files) },
		{ "max-lines", offsetof(struct pr_size_limit_ctx, max_lines) },
		{ "max-patches",
		  offsetof(struct pr_size_limit_ctx, max_patches) },
		{ "warn-files",
		  offsetof(struct pr_size_limit_ctx, warn_files) },
		{ "warn-lines",
		  offsetof(struct pr_size_limit_ctx, warn_lines) },
		{ "warn-patches",
		  offsetof(struct pr_size_limit_ctx, warn_patches) },
		{ "max-file-lines",
		  offsetof(struct pr_size_limit_ctx, max_file_lines) },
		{ "warn-file-lines",
		  offsetof(struct pr_size_limit_ctx, warn_file_lines) },
	};
	uint64_t n;
	size_t i;
	int err;

	if (!strcmp(s->type, "exec")) {
		if (!strcmp(key, "cmd")) {
			/* Words at spaces, in place; never through a shell. */
			char *w = (char *)v;
			size_t nr = 0;

			while (*w) {
				while (*w == ' ')
					*w++ = '\0';
				if (!*w)
					break;
				if (nr + 1 >= PR_ARRAY_SIZE(s->argv))
					return pr_error(PR_ETOOBIG,
							"option 'cmd': too "
							"many words");
				s->argv[nr++] = w;
				while (*w && *w != ' ')
					w++;
			}
			s->argv[nr] = NULL;
			s->exec.argv = (const char *const *)s->argv;
			return nr ? 0
				  : pr_error(PR_EINVAL, "option 'cmd': empty");
		}
		if (!strcmp(key, "timeout")) {
			size_t len = strlen(v);
			bool secs = len && v[len - 1] == 's';
			char num[32];

			if (len >= sizeof(num))
				return pr_error(PR_EINVAL,
						"option 'timeout': '%s' is too "
						"long",
						v);
			memcpy(num, v, len + 1);
			if (secs)
				num[len - 1] = '\0';
			err = parse_u64(&n, key, num);
			if (!err)
				s->exec.timeout_ms =
					(int64_t)(secs ? n * 1000 : n);
			return err;
		}
		if (!strcmp(key, "output-cap")) {
			err = parse_u64(&n, key, v);
			if (!err)
				s->exec.output_cap = (size_t)n;
			return err;
		}
		if (!strcmp(key, "per-patch")) {
			s->exec.per_patch = !strcmp(v, "yes") ||
					    !strcmp(v, "1");
			return 0;
		}
		if (!strcmp(key, "cwd")) {
			s->exec.cwd = v;
			return 0;
		}
		if (!strcmp(key, "warn-status")) {
			err = parse_u64(&n, key, v);
			if (!err &&
			    (n > 255 ||
			     s->exec.nr_warn_status ==
				     PR_ARRAY_SIZE(s->exec.warn_status)))
				err = pr_error(PR_EINVAL,
					       "option 'warn-status': '%s' "
					       "is over 255 or one too many",
					       v);
			if (!err)
				s->exec.warn_status[s->exec.nr_warn_status++] =
					(int)n;
			return err;
		}
	}
	if (!strcmp(s->type, "msg-lint")) {
		if (!strcmp(key, "subject-max") || !strcmp(key, "body-max")) {
			err = parse_u64(&n, key, v);
			if (!err && n > 10000)
				err = pr_error(PR_EINVAL,
					       "option '%s': '%s' is too large",
					       key, v);
			if (!err && key[0] == 's')
				s->lint.subject_max = (unsigned)n;
			else if (!err)
				s->lint.body_max = (unsigned)n;
			return err;
		}
		if (!strcmp(key, "repo")) {
			s->lint.repo = v;
			return 0;
		}
		return pr_msg_lint_set(&s->lint, key, v);
	}
	if (!strcmp(s->type, "size-limit")) {
		for (i = 0; i < PR_ARRAY_SIZE(sizes); i++)
			if (!strcmp(key, sizes[i].key)) {
				err = parse_u64(&n, key, v);
				if (!err)
					*(int64_t *)((char *)&s->size +
						     sizes[i].off) = (int64_t)n;
				return err;
			}
		if (!strcmp(key, "max-bytes"))
			return parse_u64(&s->size.max_bytes, key, v);
		if (!strcmp(key, "warn-bytes"))
			return parse_u64(&s->size.warn_bytes, key, v);
	} else {
		if (!strcmp(key, "min-lines"))
			return parse_u64(&s->mass.min_lines, key, v);
		if (!strcmp(key, "min-files"))
			return parse_u64(&s->mass.min_files, key, v);
		if (!strcmp(key, "min-share")) {
			err = parse_u64(&n, key, v);
			if (!err && n > 100)
				err = pr_error(PR_EINVAL,
					       "option 'min-share': "
					       "'%s' is over 100",
					       v);
			s->mass.min_share = (double)n / 100.0;
			return err;
		}
		if (!strcmp(key, "severity")) {
			if (!strcmp(v, "warn"))
				s->mass.severity = PR_VERDICT_WARN;
			else if (!strcmp(v, "fail"))
				s->mass.severity = PR_VERDICT_FAIL;
			else
				return pr_error(PR_EINVAL,
						"option 'severity': '%s' is "
						"not warn or fail",
						v);
			return 0;
		}
		if (!strcmp(key, "max-sections"))
			return parse_u64(&s->mass.max_sections, key, v);
		if (!strcmp(key, "kernel-tree")) {
			s->kernel_tree = v;
			return 0;
		}
		if (!strcmp(key, "maintainers")) {
			s->maintainers = v;
			return 0;
		}
		if (!strcmp(key, "allow-submitters")) {
			if (s->nr_allow + 1 >= PR_ARRAY_SIZE(s->allow))
				return pr_error(PR_ETOOBIG,
						"option "
						"'allow-submitters': "
						"too many");
			s->allow[s->nr_allow++] = v;
			s->mass.allow_submitters = s->allow;
			return 0;
		}
	}
	return pr_error(PR_EINVAL, "step '%s': unknown option '%s'", s->type,
			key);
}

/* "TYPE[:key=value,...]"; the string is modified in place. */
static int parse_step(struct check_step *s, char *spec)
{
	char *opts = strchr(spec, ':'), *kv;
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (opts)
		*opts++ = '\0';
	s->type = spec;
	if (!strcmp(spec, "size-limit"))
		pr_size_limit_defaults(&s->size);
	else if (!strcmp(spec, "mass-edit"))
		pr_mass_edit_defaults(&s->mass);
	else if (!strcmp(spec, "msg-lint"))
		pr_msg_lint_defaults(&s->lint);
	else if (!strcmp(spec, "exec"))
		pr_exec_defaults(&s->exec);
	else
		return pr_error(PR_EINVAL,
				"step '%s': not one of size-limit, mass-edit, "
				"msg-lint, exec",
				spec);
	for (kv = opts; !err && kv && *kv;) {
		char *comma = strchr(kv, ','), *eq;

		if (comma)
			*comma = '\0';
		eq = strchr(kv, '=');
		if (!eq)
			return pr_error(PR_EINVAL,
					"step '%s': option '%s' has no value",
					spec, kv);
		*eq = '\0';
		err = set_option(s, kv, eq + 1);
		kv = comma ? comma + 1 : NULL;
	}
	if (!err && !strcmp(spec, "exec") && !s->exec.argv)
		err = pr_error(PR_EINVAL, "step 'exec': no cmd= option");
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

/* mass-edit, with the MAINTAINERS of kernel-tree= or maintainers= */
static int run_mass_edit(struct pr_report *report, struct check_step *s,
			 struct pr_version *v)
{
	struct pr_maint_cache *cache = NULL;
	int err = 0;

	if (s->kernel_tree || s->maintainers) {
		if ((err = pr_maint_cache_new(&cache, s->kernel_tree,
					      s->maintainers)) ||
		    (err = pr_maint_cache_get(&s->mass.maint, cache,
					      s->type))) {
			err = pr_error_wrap(err, "step '%s'", s->type);
			goto done;
		}
	}
	err = pr_mass_edit_check(report, s->type, &s->mass, v);
done:
	s->mass.maint = NULL;
	pr_maint_cache_free(cache);
	return err;
}

static int run_step(struct pr_report *report, struct check_step *s,
		    struct pr_version *v)
{
	if (!strcmp(s->type, "size-limit"))
		return pr_size_limit_check(report, s->type, &s->size, v);
	if (!strcmp(s->type, "exec"))
		return pr_exec_check(report, s->type, &s->exec, v);
	if (!strcmp(s->type, "msg-lint"))
		return pr_msg_lint_check(report, s->type, &s->lint, v);
	return run_mass_edit(report, s, v);
}

/*
 * A route's include-subsystem / exclude-subsystem, as the engine applies
 * them: the first step with sections() names what v touches.  Sets *takes;
 * when the route does not take v, `why` says so for the user.
 */
static int route_takes(bool *takes, struct pr_buf *why,
		       const struct pr_graph *g,
		       const struct pr_graph_route *route,
		       const struct pr_version *v)
{
	const struct pr_graph_node *n = NULL;
	struct pr_strlist touched = { 0 };
	const char *excluded = NULL;
	bool in = !route->include_subsystem.nr;
	size_t i, j;
	int err = 0;

	*takes = true;
	if (!route->include_subsystem.nr && !route->exclude_subsystem.nr)
		return 0;
	for (i = 0; i < route->steps.nr && !n; i++) {
		n = pr_graph_node(g, "check", route->steps.items[i]);
		if (n && (!n->plugin || !n->plugin->sections))
			n = NULL;
	}
	if (!n)
		return pr_error(PR_ECONFIG,
				"route '%s': include-subsystem and "
				"exclude-subsystem need a step of type "
				"maintainers",
				route->name);
	err = n->plugin->sections((struct pr_instance *)&n->inst, v, &touched);
	if (err)
		goto done;
	for (i = 0; i < touched.nr; i++) {
		for (j = 0; j < route->exclude_subsystem.nr; j++)
			if (!excluded &&
			    !strcasecmp(touched.items[i],
					route->exclude_subsystem.items[j]))
				excluded = touched.items[i];
		for (j = 0; j < route->include_subsystem.nr; j++)
			if (!strcasecmp(touched.items[i],
					route->include_subsystem.items[j]))
				in = true;
	}
	if (in && !excluded)
		goto done;
	*takes = false;
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
	return err;
}

static void close_steps(const struct pr_graph *g,
			const struct pr_graph_route *route)
{
	size_t i;

	for (i = 0; route && i < route->steps.nr; i++) {
		const struct pr_graph_node *n =
			pr_graph_node(g, "check", route->steps.items[i]);

		if (n && n->plugin && n->plugin->close)
			n->plugin->close((struct pr_instance *)&n->inst);
	}
}

static int step_exit(int err)
{
	pr_cli_error("check");
	/* A bad option value is the user's input, not a crash. */
	return err == PR_EINVAL || err == PR_ECONFIG ? PR_EXIT_USAGE
						     : PR_EXIT_RUNTIME;
}

int cmd_check(int argc, char **argv)
{
	struct check_step steps[CHECK_MAX_STEPS];
	size_t nr_steps = 0, i;
	enum pr_render_format fmt = PR_RENDER_TEXT;
	struct pr_report report = PR_REPORT_INIT;
	struct pr_version *v = NULL;
	struct pr_series *series = NULL;
	struct pr_graph *g = NULL;
	struct pr_buf why = PR_BUF_INIT;
	bool takes = true;
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
			if (parse_step(&steps[nr_steps], argv[++a])) {
				pr_cli_error("check");
				goto done;
			}
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
	if (!nr_steps && !route) {
		char *both[] = { "size-limit", "mass-edit" };

		for (i = 0; i < PR_ARRAY_SIZE(both); i++)
			parse_step(&steps[nr_steps++], both[i]);
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
	if (route) {
		if ((err = route_takes(&takes, &why, g, route, v))) {
			ret = step_exit(err);
			goto done;
		}
		if (!takes) {
			printf("%s\n", why.ptr);
			ret = PR_EXIT_OK;
			goto done;
		}
		/* route plugins add recipients to a series: hold them here */
		series = pr_series_new("check", "check");
	}
	/* The route's steps first, in its order, then those of --step. */
	for (i = 0; route && i < route->steps.nr; i++) {
		const struct pr_graph_node *n =
			pr_graph_node(g, "check", route->steps.items[i]);

		if (!n || !n->plugin || !n->plugin->run) {
			pr_error(PR_ECONFIG, "route '%s': step '%s' cannot run",
				 route->name, route->steps.items[i]);
			ret = step_exit(PR_ECONFIG);
			goto done;
		}
		/* The node's instance is the graph's: run reads it only. */
		err = n->plugin->run((struct pr_instance *)&n->inst, series, v,
				     &report);
		if (err) {
			ret = step_exit(err);
			goto done;
		}
	}
	for (i = 0; i < nr_steps; i++) {
		err = run_step(&report, &steps[i], v);
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
	close_steps(g, route);
	pr_graph_free(g);
	return ret;
}
