#include "base/pr.h"

#include <errno.h>

#include "mail/am.h"
#include "mail/assemble.h"
#include "commands.h"
#include "mail/mailinfo.h"
#include "mail/mbox.h"

/*
 * patchrelay am [--mboxrd] [--trust ADDR]... [-o FILE] FILE...
 *
 * Reads every mail of every FILE (mbox, single mail or maildir, as
 * `parse` does), assembles the series and writes the newest complete
 * version of each, with the trailers its replies gave, as one mbox for
 * `git am`.
 */

#define AM_USAGE \
	"usage: patchrelay am [--mboxrd] [--trust ADDR]... [-o FILE] FILE...\n"

struct am_ctx {
	struct pr_patch **mails;
	size_t nr, alloc;
	size_t good, bad;
};

static int one_message(const char *data, size_t len,
		       const struct pr_mbox_where *w, void *payload)
{
	struct am_ctx *ctx = payload;
	struct pr_mailinfo mi;
	struct pr_patch *p = NULL;
	int err;

	pr_mailinfo_init(&mi);
	err = pr_mailinfo_parse(&mi, data, len);
	if (!err)
		err = pr_am_patch_from_mailinfo(&p, &mi);
	if (err) {
		fprintf(stderr,
			"patchrelay: warning: '%s' message %zu line %zu: %s\n",
			w->path, w->number, w->line, pr_error_message());
		ctx->bad++;
		goto done;
	}
	if (ctx->nr >= PR_LIMIT_SERIES_PATCHES * 4) {
		err = pr_error(PR_ETOOBIG, "'%s': more than %zu mails", w->path,
			       (size_t)PR_LIMIT_SERIES_PATCHES * 4);
		pr_patch_free(p);
		goto done;
	}
	ctx->good++;
	PR_ALLOC_GROW(ctx->mails, ctx->nr + 1, ctx->alloc);
	ctx->mails[ctx->nr++] = p;
done:
	pr_mailinfo_release(&mi);
	return err;
}

static int write_out(const char *path, const struct pr_buf *b)
{
	FILE *f = stdout;
	int ret = PR_EXIT_OK;

	if (path && !(f = fopen(path, "w"))) {
		fprintf(stderr, "patchrelay: error: cannot open '%s': %s\n",
			path, strerror(errno));
		return PR_EXIT_RUNTIME;
	}
	if (fwrite(b->ptr, 1, b->len, f) != b->len || fflush(f)) {
		fprintf(stderr, "patchrelay: error: cannot write '%s'\n",
			path ? path : "stdout");
		ret = PR_EXIT_RUNTIME;
	}
	if (path && fclose(f) && ret == PR_EXIT_OK) {
		fprintf(stderr, "patchrelay: error: cannot write '%s'\n", path);
		ret = PR_EXIT_RUNTIME;
	}
	return ret;
}

int cmd_am(int argc, char **argv)
{
	struct am_ctx ctx = { 0 };
	struct pr_mbox_opts mopts = { false };
	struct pr_am_opts opts = { NULL, 0 };
	struct pr_assembly a = { 0 };
	struct pr_trailer_list *extra = NULL;
	struct pr_patch **patches = NULL;
	struct pr_buf out = PR_BUF_INIT;
	const char **trust = NULL, *outpath = NULL;
	size_t nr_trust = 0, nr_extra = 0, nr_patches = 0, written = 0, s, i;
	int n, files = 0, ret = PR_EXIT_OK;

	trust = pr_calloc((size_t)argc, sizeof(*trust));
	for (n = 1; n < argc; n++) {
		if (!strcmp(argv[n], "--mboxrd")) {
			mopts.mboxrd = true;
		} else if (!strcmp(argv[n], "--trust") && n + 1 < argc) {
			trust[nr_trust++] = argv[++n];
		} else if (!strcmp(argv[n], "-o") && n + 1 < argc) {
			outpath = argv[++n];
		} else if (argv[n][0] == '-' && argv[n][1]) {
			fprintf(stderr, AM_USAGE);
			ret = PR_EXIT_USAGE;
			goto done;
		}
	}
	opts.trusted = trust;
	opts.nr_trusted = nr_trust;
	for (n = 1; n < argc; n++) {
		size_t before = ctx.good;

		if (!strcmp(argv[n], "--trust") || !strcmp(argv[n], "-o")) {
			n++;
			continue;
		}
		if (argv[n][0] == '-' && argv[n][1])
			continue;
		files++;
		ctx.bad = 0;
		if (pr_mbox_read_path(argv[n], &mopts, one_message, &ctx)) {
			pr_cli_error(argv[n]);
			ret = PR_EXIT_USAGE;
			goto done;
		}
		if (ctx.good == before && ctx.bad) {
			fprintf(stderr,
				"patchrelay: error: '%s': no message could be parsed\n",
				argv[n]);
			ret = PR_EXIT_USAGE;
			goto done;
		}
	}
	if (!files) {
		fprintf(stderr, AM_USAGE);
		ret = PR_EXIT_USAGE;
		goto done;
	}
	/* only patches and cover letters make series; replies give trailers */
	patches = pr_calloc(ctx.nr ? ctx.nr : 1, sizeof(*patches));
	nr_patches = pr_am_series_mails(patches, ctx.mails, ctx.nr);
	if (pr_assemble_mails(&a, patches, nr_patches)) {
		pr_cli_error("am");
		ret = PR_EXIT_RUNTIME;
		goto done;
	}
	for (s = 0; s < a.nr; s++) {
		const struct pr_asm_version *v =
			pr_assemble_latest_complete(&a.series[s]);
		const struct pr_asm_version *last =
			&a.series[s].versions[a.series[s].nr - 1];

		if (!v) {
			fprintf(stderr,
				"patchrelay: warning: series '%s' v%d: no complete version, skipped\n",
				last->nr ? last->patches[0]->subject : "?",
				last->number);
			continue;
		}
		nr_extra = v->nr;
		extra = pr_calloc(v->nr ? v->nr : 1, sizeof(*extra));
		if (pr_am_collect(extra, v, ctx.mails, ctx.nr, &opts)) {
			pr_cli_error("am");
			ret = PR_EXIT_RUNTIME;
			goto done;
		}
		/* extras past the total ("3/2") are not part of the series */
		for (i = 0; i < v->nr && i < (size_t)v->total; i++) {
			if (pr_am_write_patch(&out, v->patches[i], (int)i + 1,
					      v->total, &extra[i])) {
				pr_cli_error("am");
				ret = PR_EXIT_RUNTIME;
				goto done;
			}
			written++;
		}
		for (i = 0; i < nr_extra; i++)
			pr_trailer_list_release(&extra[i]);
		free(extra);
		extra = NULL;
		nr_extra = 0;
	}
	if (!written) {
		fprintf(stderr,
			"patchrelay: error: no complete series in the input\n");
		ret = PR_EXIT_VERDICT;
		goto done;
	}
	ret = write_out(outpath, &out);
done:
	for (i = 0; extra && i < nr_extra; i++)
		pr_trailer_list_release(&extra[i]);
	free(extra);
	pr_assemble_release(&a);
	free(patches);
	for (i = 0; i < ctx.nr; i++)
		pr_patch_free(ctx.mails[i]);
	free(ctx.mails);
	free(trust);
	pr_buf_release(&out);
	return ret;
}
