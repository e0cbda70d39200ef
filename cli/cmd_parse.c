#include "base/pr.h"
#include "base/json.h"
#include "mail/am.h"
#include "mail/assemble.h"
#include "commands.h"
#include "mail/mail.h"
#include "mail/mailinfo.h"
#include "mail/mailjson.h"
#include "mail/mbox.h"

/* patchrelay parse [--json] [--mboxrd] FILE... */

/* JSON text held before it is written out */
#define FLUSH_BYTES (64 * PR_KIB)

struct parse_ctx {
	bool json;
	size_t good, bad;
	/* --json: the text not written yet; each message goes out as read */
	struct pr_buf out;
	struct pr_jsonw w;
	/*
	 * The mails of the "series" list, slimmed to what the assembly
	 * reads: the first PR_LIMIT_SERIES_PATCHES * 4 mails read as
	 * patches, of which the patches and cover letters are kept.
	 */
	struct pr_patch **mails;
	size_t nr, alloc, read_as_patch;
	/* one for every message: its buffers are kept from one to the next */
	struct pr_mailinfo mi;
};

static void flush(struct parse_ctx *ctx, size_t above)
{
	if (ctx->out.len <= above)
		return;
	fwrite(ctx->out.ptr, 1, ctx->out.len, stdout);
	pr_buf_reset(&ctx->out);
}

/* Keep a summary of the mail for the series, as pr_am_series_mails would. */
static void keep_for_series(struct parse_ctx *ctx, const struct pr_mailinfo *mi)
{
	struct pr_patch *p = NULL, *kept;

	if (ctx->read_as_patch >= PR_LIMIT_SERIES_PATCHES * 4 ||
	    pr_am_patch_from_mailinfo(&p, mi)) {
		pr_error_clear();
		return;
	}
	ctx->read_as_patch++;
	if (!pr_am_series_mails(&kept, &p, 1)) {
		pr_patch_free(p);
		return;
	}
	pr_assemble_slim(p);
	PR_ALLOC_GROW(ctx->mails, ctx->nr + 1, ctx->alloc);
	ctx->mails[ctx->nr++] = p;
}

static int one_message(const char *data, size_t len,
		       const struct pr_mbox_where *w, void *payload)
{
	struct parse_ctx *ctx = payload;
	struct pr_mailinfo *mi = &ctx->mi;
	int err;

	pr_mailinfo_reset(mi);
	err = pr_mailinfo_parse(mi, data, len);
	if (err) {
		fprintf(stderr,
			"patchrelay: warning: '%s' message %zu line %zu: %s\n",
			w->path, w->number, w->line, pr_error_message());
		ctx->bad++;
		goto done;
	}
	ctx->good++;
	if (ctx->json) {
		/* the document starts with the first message */
		if (!ctx->w.depth) {
			pr_jsonw_open(&ctx->w, NULL, '{');
			pr_jsonw_open(&ctx->w, "messages", '[');
		}
		pr_mailjson_write(&ctx->w, NULL, mi);
		flush(ctx, FLUSH_BYTES);
		keep_for_series(ctx, mi);
	} else {
		printf("%s\t%s <%s>\t%s\n", pr_mail_kind_name(mi->kind),
		       mi->name, mi->email, mi->subject);
	}
done:
	return 0;
}

/* The "series" list: mails grouped as core/mail/assemble.h says. */
static int series_json(struct pr_jsonw *w, struct pr_patch *const *mails,
		       size_t nr)
{
	struct pr_assembly a = { 0 };
	char **ids = NULL;
	size_t i, j, k;
	int err;

	err = pr_assemble_mails(&a, mails, nr);
	pr_jsonw_open(w, "series", '[');
	for (i = 0; !err && i < a.nr; i++) {
		const struct pr_asm_series *s = &a.series[i];

		for (j = 0; j < s->nr; j++) {
			const struct pr_asm_version *v = &s->versions[j];

			pr_jsonw_open(w, NULL, '{');
			pr_mailjson_field_str(w, "key", s->key);
			pr_jsonw_int(w, "version", v->number);
			pr_jsonw_int(w, "total", v->total);
			pr_jsonw_bool(w, "complete", v->complete);
			pr_jsonw_bool(w, "partial_reroll", v->partial_reroll);
			pr_jsonw_bool(w, "superseded", v->superseded);
			pr_mailjson_field_str(w, "cover",
					      v->cover ? v->cover->message_id
						       : NULL);
			ids = pr_reallocarray(ids, v->nr ? v->nr : 1,
					      sizeof(*ids));
			for (k = 0; k < v->nr; k++)
				ids[k] = v->patches[k]->message_id;
			pr_mailjson_field_list(w, "patches", ids, v->nr);
			pr_mailjson_field_str(w, "supersedes", v->supersedes);
			pr_jsonw_close(w, '}');
		}
	}
	pr_jsonw_close(w, ']');
	pr_assemble_release(&a);
	free(ids);
	return err;
}

int cmd_parse(int argc, char **argv)
{
	struct parse_ctx ctx;
	struct pr_mbox_opts opts = { false };
	int i, files = 0, ret = PR_EXIT_OK;

	memset(&ctx, 0, sizeof(ctx));
	pr_mailinfo_init(&ctx.mi);
	pr_buf_init(&ctx.out, 0);
	pr_jsonw_init(&ctx.w, &ctx.out);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			ctx.json = true;
		} else if (!strcmp(argv[i], "--mboxrd")) {
			opts.mboxrd = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr,
				"usage: patchrelay parse [--json] [--mboxrd] FILE...\n");
			ret = PR_EXIT_USAGE;
			goto done;
		}
	}
	for (i = 1; i < argc; i++) {
		size_t before;
		int err;

		if (argv[i][0] == '-' && argv[i][1])
			continue;
		files++;
		before = ctx.good;
		ctx.bad = 0;
		err = pr_mbox_read_path(argv[i], &opts, one_message, &ctx);
		if (err) {
			pr_cli_error(argv[i]);
			ret = PR_EXIT_USAGE;
			goto done;
		}
		if (ctx.good == before) {
			fprintf(stderr,
				"patchrelay: error: '%s': no message could be parsed\n",
				argv[i]);
			ret = PR_EXIT_USAGE;
			goto done;
		}
	}
	if (!files) {
		fprintf(stderr,
			"usage: patchrelay parse [--json] [--mboxrd] FILE...\n");
		ret = PR_EXIT_USAGE;
		goto done;
	}
	if (ctx.json) {
		pr_jsonw_close(&ctx.w, ']');
		if (series_json(&ctx.w, ctx.mails, ctx.nr)) {
			pr_cli_error("parse");
			ret = PR_EXIT_RUNTIME;
			goto done;
		}
		pr_jsonw_close(&ctx.w, '}');
		pr_buf_addch(&ctx.out, '\n');
	}
done:
	/* on an error the document is cut short: no closing brackets */
	flush(&ctx, 0);
	for (i = 0; i < (int)ctx.nr; i++)
		pr_patch_free(ctx.mails[i]);
	free(ctx.mails);
	pr_mailinfo_release(&ctx.mi);
	pr_buf_release(&ctx.out);
	return ret;
}
