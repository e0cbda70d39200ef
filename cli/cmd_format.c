#include "pr.h"
#include "commands.h"
#include "format.h"
#include "gitrepo.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

struct format_args {
	const char *dir;
	const char *outdir;
	const char *reroll;
	const char *prefix;
	const char *base;
	const char *signature;
	const char *range;
	bool cover;
	bool to_stdout;
};

static void format_usage(void)
{
	fprintf(stderr,
		"usage: patchrelay format [-C DIR] [-o OUTDIR] [--cover-letter] "
		"[-v N]\n"
		"                         [--subject-prefix P] [--base REV] "
		"[--signature S]\n"
		"                         [--stdout] REVRANGE\n");
}

/*
 * Match argv[*i] against a short and a long option taking a value, in the
 * forms git accepts: "-v 2", "-v2", "--opt 2", "--opt=2".
 */
static bool opt_value(int argc, char **argv, int *i, const char *shortopt,
		      const char *longopt, const char **val)
{
	const char *a = argv[*i];
	size_t n;

	if (shortopt && !strncmp(a, shortopt, 2)) {
		if (a[2]) {
			*val = a + 2;
			return true;
		}
		if (*i + 1 >= argc)
			return false;
		*val = argv[++*i];
		return true;
	}
	if (!longopt)
		return false;
	n = strlen(longopt);
	if (strncmp(a, longopt, n))
		return false;
	if (a[n] == '=') {
		*val = a + n + 1;
		return true;
	}
	if (a[n] || *i + 1 >= argc)
		return false;
	*val = argv[++*i];
	return true;
}

static int parse_args(struct format_args *fa, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--cover-letter"))
			fa->cover = true;
		else if (!strcmp(a, "--stdout"))
			fa->to_stdout = true;
		else if (opt_value(argc, argv, &i, "-C", NULL, &fa->dir) ||
			 opt_value(argc, argv, &i, "-o", "--output-directory",
				   &fa->outdir) ||
			 opt_value(argc, argv, &i, "-v", "--reroll-count",
				   &fa->reroll) ||
			 opt_value(argc, argv, &i, NULL, "--subject-prefix",
				   &fa->prefix) ||
			 opt_value(argc, argv, &i, NULL, "--base", &fa->base) ||
			 opt_value(argc, argv, &i, NULL, "--signature",
				   &fa->signature))
			continue;
		else if (a[0] == '-' && !(a[1] >= '0' && a[1] <= '9'))
			return -1;
		else if (fa->range)
			return -1;
		else
			fa->range = a;
	}
	return fa->range ? 0 : -1;
}

static int write_file(const char *path, const struct pr_buf *b)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return pr_error(PR_EIO, "cannot create '%s': %s", path,
				strerror(errno));
	if (fwrite(b->ptr, 1, b->len, f) != b->len)
		err = pr_error(PR_EIO, "cannot write '%s'", path);
	if (fclose(f) && !err)
		err = pr_error(PR_EIO, "cannot write '%s'", path);
	return err;
}

int cmd_format(int argc, char **argv)
{
	struct format_args fa = { 0 };
	struct pr_format_opts opts = { 0 };
	struct pr_version *v = NULL;
	struct pr_buf prefix = PR_BUF_INIT, mail = PR_BUF_INIT,
		      path = PR_BUF_INIT;
	int ret = PR_EXIT_RUNTIME;
	size_t i;

	if (parse_args(&fa, argc, argv)) {
		format_usage();
		return PR_EXIT_USAGE;
	}
	/* like git -C: everything after is relative to DIR */
	if (fa.dir && chdir(fa.dir)) {
		fprintf(stderr,
			"patchrelay: error: cannot change to '%s': %s\n",
			fa.dir, strerror(errno));
		return PR_EXIT_USAGE;
	}
	if (fa.base || fa.cover) {
		fprintf(stderr, "patchrelay: error: --base and --cover-letter "
				"are not implemented yet\n");
		return PR_EXIT_USAGE;
	}
	if (pr_gitrepo_load(&v, ".", fa.range)) {
		pr_cli_error("format");
		goto done;
	}
	pr_buf_adds(&prefix, fa.prefix ? fa.prefix : "PATCH");
	if (fa.reroll)
		pr_buf_addf(&prefix, "%sv%s", prefix.len ? " " : "", fa.reroll);
	opts.subject_prefix = prefix.ptr;
	opts.signature = fa.signature;
	opts.total = v->nr > 1 || fa.cover ? (int)v->nr : 0;
	if (fa.outdir && !fa.to_stdout && mkdir(fa.outdir, 0777) &&
	    errno != EEXIST) {
		fprintf(stderr, "patchrelay: error: cannot create '%s': %s\n",
			fa.outdir, strerror(errno));
		goto done;
	}
	for (i = 0; i < v->nr; i++) {
		opts.nr = (int)i + 1;
		pr_buf_reset(&mail);
		if (pr_format_patch(&mail, v->patches[i], &opts)) {
			pr_cli_error("format");
			goto done;
		}
		if (fa.to_stdout) {
			fwrite(mail.ptr, 1, mail.len, stdout);
			continue;
		}
		pr_buf_reset(&path);
		if (fa.outdir) {
			pr_buf_adds(&path, fa.outdir);
			if (path.len && path.ptr[path.len - 1] != '/')
				pr_buf_addch(&path, '/');
		}
		if (pr_format_filename(&path, fa.reroll, opts.nr,
				       v->patches[i]->subject) ||
		    write_file(path.ptr, &mail)) {
			pr_cli_error("format");
			goto done;
		}
		printf("%s\n", path.ptr);
	}
	ret = PR_EXIT_OK;
done:
	pr_buf_release(&prefix);
	pr_buf_release(&mail);
	pr_buf_release(&path);
	pr_version_free(v);
	return ret;
}
