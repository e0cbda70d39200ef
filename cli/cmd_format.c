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

static int write_file(const char *path, const struct pr_buf *b);

/*
 * Resolve --base and the cover letter's stat range: base must be the parent
 * of the first patch (prerequisite-patch-id is not written yet).
 */
static int series_bounds(char base[41], char parent[41],
			 const struct format_args *fa,
			 const struct pr_version *v)
{
	struct pr_buf rev = PR_BUF_INIT;
	int err = 0;

	base[0] = parent[0] = '\0';
	if (!v->nr)
		return pr_error(PR_EINVAL, "revision range '%s': no commits",
				fa->range);
	pr_buf_addf(&rev, "%s^", v->patches[0]->commit_id);
	/* a series starting at a root commit has no parent: no stat */
	if (pr_gitrepo_resolve(parent, ".", rev.ptr)) {
		parent[0] = '\0';
		pr_error_clear();
	}
	if (fa->base) {
		err = pr_gitrepo_resolve(base, ".", fa->base);
		if (!err && strcmp(base, parent))
			err = pr_error(PR_EUNSUPPORTED,
				       "base '%s': not the parent of the first "
				       "patch (prerequisite-patch-id is not "
				       "supported yet)",
				       fa->base);
	}
	pr_buf_release(&rev);
	return err;
}

static int emit(const struct format_args *fa, struct pr_buf *path,
		const struct pr_buf *mail, int nr, const char *subject)
{
	int err;

	if (fa->to_stdout) {
		fwrite(mail->ptr, 1, mail->len, stdout);
		return 0;
	}
	pr_buf_reset(path);
	if (fa->outdir) {
		pr_buf_adds(path, fa->outdir);
		if (path->len && path->ptr[path->len - 1] != '/')
			pr_buf_addch(path, '/');
	}
	err = pr_format_filename(path, fa->reroll, nr, subject);
	if (!err)
		err = write_file(path->ptr, mail);
	if (!err)
		printf("%s\n", path->ptr);
	return err;
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
	char base[41], parent[41];
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
	if (series_bounds(base, parent, &fa, v)) {
		pr_cli_error("format");
		goto done;
	}
	if (fa.cover) {
		struct pr_ident me = { 0 };
		struct pr_buf stat = PR_BUF_INIT;
		int64_t t = 0;
		int tz = 0, err;

		err = pr_gitrepo_committer(&me, &t, &tz, ".");
		if (!err && parent[0])
			err = pr_gitrepo_stat(&stat, ".", parent,
					      v->patches[v->nr - 1]->commit_id);
		opts.base = base[0] ? base : NULL;
		if (!err)
			err = pr_format_cover(&mail, v, &opts, &me, t, tz,
					      parent[0] ? stat.ptr : NULL);
		if (!err)
			err = emit(&fa, &path, &mail, 0, NULL);
		pr_ident_release(&me);
		pr_buf_release(&stat);
		if (err) {
			pr_cli_error("format");
			goto done;
		}
	}
	for (i = 0; i < v->nr; i++) {
		opts.nr = (int)i + 1;
		/* without a cover letter the first patch carries the base */
		opts.base = !fa.cover && !i && base[0] ? base : NULL;
		pr_buf_reset(&mail);
		/* git's log separator between commits of one --stdout walk */
		if (fa.to_stdout && i)
			pr_buf_addch(&mail, '\n');
		if (pr_format_patch(&mail, v->patches[i], &opts) ||
		    emit(&fa, &path, &mail, opts.nr,
			 v->patches[i]->subject_raw ? v->patches[i]->subject_raw
						    : v->patches[i]->subject)) {
			pr_cli_error("format");
			goto done;
		}
	}
	ret = PR_EXIT_OK;
done:
	pr_buf_release(&prefix);
	pr_buf_release(&mail);
	pr_buf_release(&path);
	pr_version_free(v);
	return ret;
}
