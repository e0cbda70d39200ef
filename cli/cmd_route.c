#include "pr.h"
#include "commands.h"

#include "maintainers.h"

/*
 * patchrelay route: the recipients of patches from MAINTAINERS, printed
 * byte for byte as `scripts/get_maintainer.pl --no-git --no-git-fallback`
 * prints them with the same flags.
 */

static int usage(void)
{
	fprintf(stderr,
		"usage: patchrelay route [--kernel-tree DIR | --maintainers FILE]\n"
		"       [--rolestats|--no-rolestats] [--m|--no-m] [--r|--no-r]\n"
		"       [--l|--no-l] [--subsystem] [--status] [--separator S]\n"
		"       [--keywords|--no-keywords] PATCH...\n");
	return PR_EXIT_USAGE;
}

struct flag {
	const char *name;
	size_t off;
	bool value;
};

#define OPT(field) offsetof(struct pr_maint_opts, field)

static const struct flag flags[] = {
	{ "--rolestats", OPT(rolestats), true },
	{ "--no-rolestats", OPT(rolestats), false },
	{ "--m", OPT(maintainers), true },
	{ "--no-m", OPT(maintainers), false },
	{ "--r", OPT(reviewers), true },
	{ "--no-r", OPT(reviewers), false },
	{ "--l", OPT(lists), true },
	{ "--no-l", OPT(lists), false },
	{ "--subsystem", OPT(subsystem), true },
	{ "--no-subsystem", OPT(subsystem), false },
	{ "--status", OPT(status), true },
	{ "--no-status", OPT(status), false },
	{ "--keywords", OPT(keywords), true },
	{ "--no-keywords", OPT(keywords), false },
};

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

int cmd_route(int argc, char **argv)
{
	struct pr_maint_opts o;
	struct pr_maint *m = NULL;
	struct pr_buf out = PR_BUF_INIT, path = PR_BUF_INIT;
	struct pr_buf *patches = NULL;
	const char *tree = NULL, *file = NULL, *v;
	size_t npatches = 0, i;
	int a, ret = PR_EXIT_OK;

	pr_maint_opts_init(&o);
	patches = pr_calloc((size_t)argc, sizeof(*patches));
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a];
		bool known = false;

		for (i = 0; i < PR_ARRAY_SIZE(flags); i++) {
			if (!strcmp(arg, flags[i].name)) {
				*(bool *)((char *)&o + flags[i].off) =
					flags[i].value;
				known = true;
			}
		}
		if (known)
			continue;
		if ((v = opt_value(argc, argv, &a, "--kernel-tree"))) {
			tree = v;
		} else if ((v = opt_value(argc, argv, &a, "--maintainers"))) {
			file = v;
		} else if ((v = opt_value(argc, argv, &a, "--separator"))) {
			o.separator = v;
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			ret = usage();
			goto done;
		} else if (arg[0] == '-' && arg[1]) {
			fprintf(stderr,
				"patchrelay route: unknown option '%s'\n", arg);
			ret = usage();
			goto done;
		} else {
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
	if (!file) {
		pr_buf_addf(&path, "%s/MAINTAINERS", tree ? tree : ".");
		file = path.ptr;
	}
	if (pr_maint_load(&m, file, tree) < 0 ||
	    pr_maint_route(&out, m, &o, patches, npatches) < 0) {
		pr_cli_error("route");
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	fwrite(out.ptr, 1, out.len, stdout);
done:
	for (i = 0; i < npatches; i++)
		pr_buf_release(&patches[i]);
	free(patches);
	pr_buf_release(&out);
	pr_buf_release(&path);
	pr_maint_free(m);
	return ret;
}
