#include "base/pr.h"
#include "commands.h"
#include "git/format.h"
#include "git/gitrepo.h"

#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct format_args {
	const char *dir;
	const char *outdir;
	const char *reroll;
	const char *prefix;
	const char *base;
	const char *signature;
	const char *range;
	const char *from; /* "" for --from alone: the committer */
	const char *in_reply_to;
	bool thread;
	bool cover;
	bool to_stdout;
	bool no_binary;
	struct pr_sim_opts diff; /* -M, -C, -B, --no-renames... */
};

static void format_usage(void)
{
	fprintf(stderr,
		"usage: patchrelay format [-C DIR] [-o OUTDIR] [--cover-letter] "
		"[-v N]\n"
		"                         [--subject-prefix P] [--base REV] "
		"[--signature S]\n"
		"                         [--from[=IDENT]] [--in-reply-to ID] "
		"[--thread[=shallow]]\n"
		"                         [--stdout] [--[no-]binary] "
		"[-M[<n>]] [-C[<n>]] [-B[<n>][/<m>]]\n"
		"                         [--find-copies-harder] "
		"[--no-renames] [-l<n>] REVRANGE\n");
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

/*
 * -C is git's -C DIR when DIR (the next word, or what follows -C) is a
 * folder, else format-patch's -C[<n>] (find copies).
 */
static bool is_dir_option(int argc, char **argv, int i)
{
	const char *a = argv[i], *score = a + 2;
	struct stat st;

	if (strncmp(a, "-C", 2))
		return false;
	if (a[2]) {
		pr_sim_parse_score(&score);
		return *score && !stat(a + 2, &st) && S_ISDIR(st.st_mode);
	}
	return i + 1 < argc && argv[i + 1][0] != '-' &&
	       !stat(argv[i + 1], &st) && S_ISDIR(st.st_mode);
}

static int parse_args(struct format_args *fa, int argc, char **argv)
{
	int i, r;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!is_dir_option(argc, argv, i) &&
		    (r = pr_sim_option(&fa->diff, a)) != 0) {
			if (r < 0)
				return -1;
			continue;
		}
		if (!strcmp(a, "--cover-letter"))
			fa->cover = true;
		else if (!strcmp(a, "--stdout"))
			fa->to_stdout = true;
		else if (!strcmp(a, "--no-binary"))
			fa->no_binary = true;
		else if (!strcmp(a, "--binary"))
			fa->no_binary = false;
		else if (!strcmp(a, "--from"))
			fa->from = "";
		else if (!strncmp(a, "--from=", 7))
			fa->from = a + 7;
		else if (!strcmp(a, "--thread") ||
			 !strcmp(a, "--thread=shallow"))
			fa->thread = true;
		else if (opt_value(argc, argv, &i, "-C", NULL, &fa->dir) ||
			 opt_value(argc, argv, &i, "-o", "--output-directory",
				   &fa->outdir) ||
			 opt_value(argc, argv, &i, "-v", "--reroll-count",
				   &fa->reroll) ||
			 opt_value(argc, argv, &i, NULL, "--subject-prefix",
				   &fa->prefix) ||
			 opt_value(argc, argv, &i, NULL, "--base", &fa->base) ||
			 opt_value(argc, argv, &i, NULL, "--in-reply-to",
				   &fa->in_reply_to) ||
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
 * "Name <email>" of --from into id; git's split_ident_line wants the
 * angle brackets; like git, only the blanks before '<' go.
 */
static int parse_ident(struct pr_ident *id, const char *s)
{
	const char *lt = strchr(s, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	struct pr_buf name = PR_BUF_INIT, mail = PR_BUF_INIT;
	size_t n;

	if (!lt || !gt)
		return pr_error(PR_EINVAL, "--from '%s': no <email>", s);
	n = (size_t)(lt - s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	pr_buf_add(&name, s, n);
	pr_buf_add(&mail, lt + 1, (size_t)(gt - lt - 1));
	pr_ident_set(id, name.ptr, mail.ptr);
	pr_buf_release(&name);
	pr_buf_release(&mail);
	return 0;
}

/* git's clean_message_id: surrounding blanks and <> go */
static void clean_message_id(struct pr_buf *out, const char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == '<')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '>'))
		n--;
	pr_buf_add(out, s, n);
}

/*
 * Resolve --base into its block (base-commit and a prerequisite-patch-id per
 * commit between the base and the first patch, oldest first, as git does)
 * and find the parent of the first patch, where the cover letter's stat
 * starts ("" for a root commit: git prints no stat then).
 */
static int series_bounds(struct pr_buf *info, char parent[41],
			 const struct format_args *fa,
			 const struct pr_version *v, bool *nostat_out)
{
	bool nostat = false;
	struct pr_version *pre = NULL;
	struct pr_buf rev = PR_BUF_INIT;
	char base[41], id[41];
	size_t i;
	int err = 0;

	parent[0] = '\0';
	if (!v->nr)
		return pr_error(PR_EINVAL, "revision range '%s': no commits",
				fa->range);
	pr_buf_addf(&rev, "%s^", v->patches[0]->commit_id);
	if (pr_gitrepo_resolve(parent, ".", rev.ptr)) {
		parent[0] = '\0';
		pr_error_clear();
	}
	if (fa->cover && !fa->base) {
		/* git's stat starts at the series' one boundary commit */
		err = pr_gitrepo_boundary(parent, ".", v);
		if (err < 0)
			goto done;
		nostat = !err;
		err = 0;
	}
	if (!fa->base)
		goto done;
	err = pr_gitrepo_resolve(base, ".", fa->base);
	if (err)
		goto done;
	err = parent[0] ? pr_gitrepo_descends(".", parent, base) : 0;
	if (err <= 0) {
		if (!err)
			err = pr_error(PR_EINVAL,
				       "base '%s': not an ancestor of the "
				       "revision list",
				       fa->base);
		goto done;
	}
	err = pr_buf_addf(info, "base-commit: %s\n", base);
	if (err || !strcmp(base, parent))
		goto done;
	pr_buf_reset(&rev);
	pr_buf_addf(&rev, "%s..%s", base, parent);
	err = pr_gitrepo_load(&pre, ".", rev.ptr);
	for (i = 0; !err && i < pre->nr; i++) {
		err = pr_gitrepo_patch_id(id, ".", pre->patches[i]->commit_id);
		if (!err)
			err = pr_buf_addf(info, "prerequisite-patch-id: %s\n",
					  id);
	}
done:
	*nostat_out = nostat;
	pr_version_free(pre);
	pr_buf_release(&rev);
	return err < 0 ? err : 0;
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
	const struct pr_sim_opts diff_init = PR_SIM_OPTS_INIT;
	struct pr_format_opts opts = { 0 };
	struct pr_version *v = NULL;
	struct pr_buf prefix = PR_BUF_INIT, mail = PR_BUF_INIT,
		      path = PR_BUF_INIT;
	struct pr_buf base_info = PR_BUF_INIT, irt = PR_BUF_INIT,
		      msgid = PR_BUF_INIT, root = PR_BUF_INIT;
	struct pr_ident committer = { 0 }, sender = { 0 };
	int64_t epoch = (int64_t)time(NULL), ctime = 0;
	int ctz = 0;
	char parent[41];
	bool empty, shown = false, nostat = false;
	int ret = PR_EXIT_RUNTIME;
	size_t i;

	fa.diff = diff_init;
	if (parse_args(&fa, argc, argv)) {
		if (*pr_error_message())
			pr_cli_error("format");
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
	if (pr_gitrepo_load_flags(&v, ".", fa.range,
				  (fa.no_binary ? PR_GITREPO_NO_BINARY : 0) |
					  (fa.cover ? PR_GITREPO_COVER_STAT
						    : 0),
				  &fa.diff)) {
		pr_cli_error("format");
		goto done;
	}
	pr_buf_adds(&prefix, fa.prefix ? fa.prefix : "PATCH");
	if (fa.reroll)
		pr_buf_addf(&prefix, "%sv%s", prefix.len ? " " : "", fa.reroll);
	if (fa.cover && fa.thread && fa.in_reply_to) {
		fprintf(stderr, "patchrelay: error: --thread with "
				"--cover-letter and --in-reply-to is not "
				"supported\n");
		ret = PR_EXIT_USAGE;
		goto done;
	}
	if (((fa.from || fa.thread) &&
	     pr_gitrepo_committer(&committer, &ctime, &ctz, ".")) ||
	    (fa.from && *fa.from && parse_ident(&sender, fa.from))) {
		pr_cli_error("format");
		goto done;
	}
	if (fa.from)
		opts.sender = *fa.from ? &sender : &committer;
	if (fa.in_reply_to) {
		clean_message_id(&irt, fa.in_reply_to);
		opts.in_reply_to = irt.ptr;
	}
	opts.subject_prefix = prefix.ptr;
	opts.signature = fa.signature;
	opts.total = v->nr > 1 || fa.cover ? (int)v->nr : 0;
	if (fa.outdir && !fa.to_stdout && mkdir(fa.outdir, 0777) &&
	    errno != EEXIST) {
		fprintf(stderr, "patchrelay: error: cannot create '%s': %s\n",
			fa.outdir, strerror(errno));
		goto done;
	}
	if (series_bounds(&base_info, parent, &fa, v, &nostat)) {
		pr_cli_error("format");
		goto done;
	}
	if (fa.cover) {
		struct pr_ident me = { 0 };
		struct pr_buf stat = PR_BUF_INIT;
		int64_t t = 0;
		int tz = 0, err;

		err = pr_gitrepo_committer(&me, &t, &tz, ".");
		if (nostat)
			parent[0] = '\0';
		if (!err && parent[0])
			err = pr_gitrepo_stat_opts(
				&stat, ".", parent,
				v->patches[v->nr - 1]->commit_id, &fa.diff);
		opts.base_info = base_info.len ? base_info.ptr : NULL;
		if (fa.thread) {
			pr_format_patch_message_id(&root, "cover", epoch,
						   committer.email);
			opts.message_id = root.ptr;
		}
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
		const char *subj;
		char *first;

		opts.nr = (int)i + 1;
		/* without a cover letter the first patch carries the base */
		opts.base_info =
			!fa.cover && !i && base_info.len ? base_info.ptr : NULL;
		pr_buf_reset(&mail);
		/*
		 * shallow threading: every mail after the first replies to
		 * the first (the cover letter) or to --in-reply-to
		 */
		if (fa.thread) {
			if (root.len && !fa.in_reply_to)
				opts.in_reply_to = root.ptr;
			pr_buf_reset(&msgid);
			pr_format_patch_message_id(&msgid,
						   v->patches[i]->commit_id,
						   epoch, committer.email);
			opts.message_id = msgid.ptr;
			if (!root.len)
				pr_buf_adds(&root, msgid.ptr);
		}
		empty = !v->patches[i]->diff || !*v->patches[i]->diff;
		/* git's log separator between commits of one --stdout walk */
		if (fa.to_stdout && shown && !empty)
			pr_buf_addch(&mail, '\n');
		/* git shows nothing for a commit without changes: empty file */
		subj = v->patches[i]->subject_raw ? v->patches[i]->subject_raw
						  : v->patches[i]->subject;
		/* git names the file after the message's first line (%f) */
		first = pr_strndup(subj, strcspn(subj, "\n"));
		if ((!empty && pr_format_patch(&mail, v->patches[i], &opts)) ||
		    emit(&fa, &path, &mail, opts.nr, first)) {
			free(first);
			pr_cli_error("format");
			goto done;
		}
		free(first);
		shown = shown || !empty;
	}
	ret = PR_EXIT_OK;
done:
	pr_buf_release(&base_info);
	pr_buf_release(&irt);
	pr_buf_release(&msgid);
	pr_buf_release(&root);
	pr_ident_release(&committer);
	pr_ident_release(&sender);
	pr_buf_release(&prefix);
	pr_buf_release(&mail);
	pr_buf_release(&path);
	pr_version_free(v);
	return ret;
}
