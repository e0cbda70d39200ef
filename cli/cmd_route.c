#include "base/pr.h"
#include "commands.h"

#include "engine/cfg.h"
#include "mail/mailinfo.h"
#include "maintainers.h"
#include "plugins.h"

#include <time.h>

/*
 * patchrelay route: the recipients of patches from MAINTAINERS, printed
 * byte for byte as `scripts/get_maintainer.pl --no-git --no-git-fallback`
 * prints them with the same flags.
 *
 * This file is built twice: into patchrelay-full, and with PR_ROUTE_FRONT
 * into the `patchrelay` front (cli/front.c), which links no libgit2.  The
 * front routes by itself unless a Fixes: tag must be looked up in the
 * tree's git repository, or --bench runs the plugin: then it answers
 * PR_EXIT_FULL and the front exec()s patchrelay-full with the same argv.
 */

static int usage(void)
{
	fprintf(stderr,
		"usage: patchrelay route [--kernel-tree DIR | --maintainers FILE]\n"
		"       [--rolestats|--no-rolestats] [--m|--no-m] [--r|--no-r]\n"
		"       [--l|--no-l] [--subsystem] [--status] [--separator S]\n"
		"       [--keywords|--no-keywords] [--fixes|--no-fixes]\n"
		"       [--no-cache] PATCH...\n"
		"       patchrelay route --bench ROUNDS [--kernel-tree DIR | "
		"--maintainers FILE] PATCH...\n");
	return PR_EXIT_USAGE;
}

/*
 * Where the compiled MAINTAINERS index is kept: $XDG_CACHE_HOME/patchrelay,
 * else ~/.cache/patchrelay; NULL (no cache) without either.
 */
static void cache_dir(struct pr_buf *out)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	/* the spec: a relative XDG path is ignored */
	if (xdg && xdg[0] == '/')
		pr_buf_addf(out, "%s/patchrelay", xdg);
	else if (home && home[0] == '/')
		pr_buf_addf(out, "%s/.cache/patchrelay", home);
}

/* "--name VALUE" or "--name=VALUE"; advances *i past what it used. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (strcmp(argv[*i], name))
		return NULL;
	if (*i + 1 >= argc)
		return NULL;
	(*i)++;
	return argv[*i];
}

#ifdef PR_ROUTE_FRONT
/*
 * The front's commit lookup: none, but a Fixes: tag in a git tree means
 * the answer needs libgit2, so the full binary must route.
 */
static int front_commit(struct pr_buf *author, struct pr_buf *body,
			const char *rev, void *payload)
{
	const char **tree = payload;

	if (pr_maint_git_present(tree[0]))
		tree[1] = "yes";
	return 1;
}
#else
static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A patch mail as a one-patch version, as a source would hand it over. */
static struct pr_version *mail_version(const struct pr_buf *raw)
{
	struct pr_version *v = NULL;
	struct pr_mailinfo mi;
	struct pr_patch *p;

	pr_mailinfo_init(&mi);
	if (pr_mailinfo_parse(&mi, raw->ptr, raw->len))
		goto done;
	v = pr_version_new(1);
	p = pr_patch_new();
	pr_ident_set(&p->author, mi.name, mi.email);
	p->subject = pr_strdup(mi.subject);
	p->body = pr_strdup(mi.msg.ptr);
	p->diff = pr_strdup(mi.patch.ptr);
	pr_version_add_patch(v, p);
done:
	pr_mailinfo_release(&mi);
	return v;
}

/*
 * --bench ROUNDS: one instance of the maintainers plugin, loaded once, runs
 * each patch ROUNDS times; prints the load time and, per patch, the median
 * time of one run() in microseconds (bench/route reads these lines).
 */
static int bench(const char *tree, const char *file, long rounds,
		 const struct pr_buf *patches, char **names, size_t n)
{
	const struct pr_plugin_type *type = &pr_plugin_maintainers;
	struct pr_instance inst = { 0 };
	double *t = pr_calloc((size_t)rounds, sizeof(*t)), t0;
	size_t i;
	long k;
	int ret = PR_EXIT_RUNTIME;

	inst.name = "bench";
	inst.kind = "check";
	inst.ctx = pr_calloc(1, type->ctx_size);
	if ((tree &&
	     pr_cfg_set_option(inst.ctx,
			       pr_cfg_find_option(type->options, "kernel-tree"),
			       tree)) ||
	    (file &&
	     pr_cfg_set_option(inst.ctx,
			       pr_cfg_find_option(type->options, "maintainers"),
			       file)))
		goto fail;
	t0 = now_us();
	if (type->open(&inst))
		goto fail;
	printf("load\t%.1f\n", now_us() - t0);
	for (i = 0; i < n; i++) {
		struct pr_version *v = mail_version(&patches[i]);

		if (!v) {
			pr_error(PR_EPARSE, "patch '%s': not a mail", names[i]);
			goto fail;
		}
		for (k = 0; k < rounds; k++) {
			struct pr_series *s = pr_series_new("bench", names[i]);
			struct pr_report report = PR_REPORT_INIT;
			int err;

			t0 = now_us();
			err = type->run(&inst, s, v, &report);
			t[k] = now_us() - t0;
			pr_report_release(&report);
			pr_series_free(s);
			if (err) {
				pr_version_free(v);
				goto fail;
			}
		}
		qsort(t, (size_t)rounds, sizeof(*t), cmp_double);
		printf("%s\t%.1f\n", names[i], t[rounds / 2]);
		pr_version_free(v);
	}
	ret = PR_EXIT_OK;
	goto done;
fail:
	pr_cli_error("route");
done:
	if (type->close)
		type->close(&inst);
	pr_cfg_options_release(inst.ctx, type->options);
	free(inst.ctx);
	free(t);
	return ret;
}
#endif

int cmd_route(int argc, char **argv)
{
	struct pr_maint_opts o;
	struct pr_maint *m = NULL;
	struct pr_buf out = PR_BUF_INIT, path = PR_BUF_INIT;
	struct pr_buf cache = PR_BUF_INIT;
	bool use_cache = true;
	struct pr_buf *patches = NULL;
	const char *tree = NULL, *file = NULL, *v;
	char **names = NULL;
	long rounds = 0;
	size_t npatches = 0, i;
	int a, ret = PR_EXIT_OK;
	/* get_maintainer.pl's switches, each with its --no- form */
	const struct {
		const char *name;
		bool *field;
	} flags[] = {
		{ "rolestats", &o.rolestats }, { "m", &o.maintainers },
		{ "r", &o.reviewers },	       { "l", &o.lists },
		{ "subsystem", &o.subsystem }, { "status", &o.status },
		{ "keywords", &o.keywords },   { "fixes", &o.fixes },
	};
#ifdef PR_ROUTE_FRONT
	/* the tree, and whether a Fixes: tag asked its repository */
	const char *front[2] = { NULL, NULL };
#else
	struct pr_maint_git *git = NULL;
#endif

	pr_maint_opts_init(&o);
	patches = pr_calloc((size_t)argc, sizeof(*patches));
	names = pr_calloc((size_t)argc, sizeof(*names));
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a];
		bool known = false, no = !strncmp(arg, "--no-", 5);

		/* "--NAME" sets a switch, "--no-NAME" clears it */
		for (i = 0; i < PR_ARRAY_SIZE(flags) && !known; i++) {
			known = !strncmp(arg, "--", 2) &&
				!strcmp(arg + (no ? 5 : 2), flags[i].name);
			if (known)
				*flags[i].field = !no;
		}
		if (known)
			continue;
		if ((v = opt_value(argc, argv, &a, "--kernel-tree"))) {
			tree = v;
		} else if ((v = opt_value(argc, argv, &a, "--maintainers"))) {
			file = v;
		} else if ((v = opt_value(argc, argv, &a, "--separator"))) {
			o.separator = v;
		} else if ((v = opt_value(argc, argv, &a, "--bench"))) {
			rounds = strtol(v, NULL, 10);
			if (rounds < 1 || rounds > 100000) {
				fprintf(stderr,
					"patchrelay route: --bench '%s': not "
					"1 to 100000\n",
					v);
				ret = PR_EXIT_USAGE;
				goto done;
			}
		} else if (!strcmp(arg, "--no-cache")) {
			use_cache = false;
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			ret = usage();
			goto done;
		} else if (arg[0] == '-' && arg[1]) {
			fprintf(stderr,
				"patchrelay route: unknown option '%s'\n", arg);
			ret = usage();
			goto done;
		} else {
			names[npatches] = argv[a];
			pr_buf_init(&patches[npatches], PR_LIMIT_DIFF_BYTES);
			if (pr_buf_read_file(&patches[npatches++], arg) < 0) {
				pr_cli_error("route");
				ret = PR_EXIT_RUNTIME;
				goto done;
			}
		}
	}
	if (!npatches || (tree && file)) {
		ret = usage();
		goto done;
	}
	if (!o.maintainers && !o.reviewers && !o.lists) {
		fprintf(stderr,
			"patchrelay route: select at least one of --m --r --l\n");
		ret = PR_EXIT_USAGE;
		goto done;
	}
#ifdef PR_ROUTE_FRONT
	if (rounds) {
		ret = PR_EXIT_FULL;
		goto done;
	}
	front[0] = tree;
	o.commit = front_commit;
	o.commit_payload = front;
#else
	if (rounds) {
		ret = bench(tree   ? tree
			    : file ? NULL
				   : ".",
			    file, rounds, patches, names, npatches);
		goto done;
	}
	/* get_maintainer.pl runs git in its cwd: the tree */
	git = pr_maint_git_new(tree);
	o.commit = pr_maint_git_commit;
	o.commit_payload = git;
#endif
	if (!file) {
		pr_buf_addf(&path, "%s/MAINTAINERS", tree ? tree : ".");
		file = path.ptr;
	}
	if (use_cache)
		cache_dir(&cache);
	if (pr_maint_open(&m, file, tree, cache.len ? cache.ptr : NULL) < 0 ||
	    pr_maint_route(&out, m, &o, patches, npatches) < 0) {
		pr_cli_error("route");
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
#ifdef PR_ROUTE_FRONT
	if (front[1]) {
		ret = PR_EXIT_FULL;
		goto done;
	}
#endif
	fwrite(out.ptr, 1, out.len, stdout);
done:
	for (i = 0; i < npatches; i++)
		pr_buf_release(&patches[i]);
	free(patches);
	free(names);
	pr_buf_release(&out);
	pr_buf_release(&path);
	pr_buf_release(&cache);
	pr_maint_free(m);
#ifndef PR_ROUTE_FRONT
	pr_maint_git_free(git);
#endif
	return ret;
}
