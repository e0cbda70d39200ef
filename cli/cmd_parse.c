#include "base/pr.h"
#include "mail/am.h"
#include "mail/assemble.h"
#include "commands.h"
#include "mail/mail.h"
#include "mail/mailinfo.h"
#include "mail/mailjson.h"
#include "mail/mbox.h"

#include <jansson.h>

/* patchrelay parse [--json] [--mboxrd] FILE... */

struct parse_ctx {
	json_t *messages;
	bool json;
	size_t good, bad;
	/* every mail as a patch, for the "series" list */
	struct pr_patch **mails;
	size_t nr, alloc;
};

static int one_message(const char *data, size_t len,
		       const struct pr_mbox_where *w, void *payload)
{
	struct parse_ctx *ctx = payload;
	struct pr_mailinfo mi;
	int err;

	pr_mailinfo_init(&mi);
	err = pr_mailinfo_parse(&mi, data, len);
	if (err) {
		fprintf(stderr,
			"patchrelay: warning: '%s' message %zu line %zu: %s\n",
			w->path, w->number, w->line, pr_error_message());
		ctx->bad++;
		goto done;
	}
	ctx->good++;
	if (ctx->json) {
		struct pr_patch *p = NULL;

		json_array_append_new(ctx->messages, pr_mailjson_message(&mi));
		if (ctx->nr < PR_LIMIT_SERIES_PATCHES * 4 &&
		    !pr_am_patch_from_mailinfo(&p, &mi)) {
			PR_ALLOC_GROW(ctx->mails, ctx->nr + 1, ctx->alloc);
			ctx->mails[ctx->nr++] = p;
		}
		pr_error_clear();
	} else {
		printf("%s\t%s <%s>\t%s\n", pr_mail_kind_name(mi.kind), mi.name,
		       mi.email, mi.subject);
	}
done:
	pr_mailinfo_release(&mi);
	return 0;
}

/* The "series" list: mails grouped as core/mail/assemble.h says. */
static int series_json(json_t **out, struct pr_patch *const *mails, size_t nr)
{
	struct pr_patch **pat = pr_calloc(nr ? nr : 1, sizeof(*pat));
	struct pr_assembly a = { 0 };
	json_t *list = json_array();
	char **ids = NULL;
	size_t n, i, j, k;
	int err;

	n = pr_am_series_mails(pat, mails, nr);
	err = pr_assemble_mails(&a, pat, n);
	for (i = 0; !err && i < a.nr; i++) {
		const struct pr_asm_series *s = &a.series[i];

		for (j = 0; j < s->nr; j++) {
			const struct pr_asm_version *v = &s->versions[j];
			json_t *o = json_object();

			pr_mailjson_set_str(o, "key", s->key);
			json_object_set_new(o, "version",
					    json_integer(v->number));
			json_object_set_new(o, "total", json_integer(v->total));
			json_object_set_new(o, "complete",
					    json_boolean(v->complete));
			json_object_set_new(o, "partial_reroll",
					    json_boolean(v->partial_reroll));
			json_object_set_new(o, "superseded",
					    json_boolean(v->superseded));
			pr_mailjson_set_str(o, "cover",
					    v->cover ? v->cover->message_id
						     : NULL);
			ids = pr_reallocarray(ids, v->nr ? v->nr : 1,
					      sizeof(*ids));
			for (k = 0; k < v->nr; k++)
				ids[k] = v->patches[k]->message_id;
			pr_mailjson_set_list(o, "patches", ids, v->nr);
			pr_mailjson_set_str(o, "supersedes", v->supersedes);
			json_array_append_new(list, o);
		}
	}
	pr_assemble_release(&a);
	free(ids);
	free(pat);
	if (err)
		json_decref(list);
	else
		*out = list;
	return err;
}

int cmd_parse(int argc, char **argv)
{
	struct parse_ctx ctx = { NULL, false, 0, 0, NULL, 0, 0 };
	struct pr_mbox_opts opts = { false };
	int i, files = 0, ret = PR_EXIT_OK;

	ctx.messages = json_array();
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
		json_t *root = json_object(), *series = NULL;
		char *s;

		if (series_json(&series, ctx.mails, ctx.nr)) {
			pr_cli_error("parse");
			json_decref(root);
			ret = PR_EXIT_RUNTIME;
			goto done;
		}
		json_object_set(root, "messages", ctx.messages);
		json_object_set_new(root, "series", series);
		s = json_dumps(root, JSON_INDENT(2));
		if (s)
			printf("%s\n", s);
		free(s);
		json_decref(root);
	}
done:
	for (i = 0; i < (int)ctx.nr; i++)
		pr_patch_free(ctx.mails[i]);
	free(ctx.mails);
	json_decref(ctx.messages);
	return ret;
}
