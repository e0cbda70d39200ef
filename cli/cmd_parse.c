#include "base/pr.h"
#include "mail/am.h"
#include "mail/assemble.h"
#include "commands.h"
#include "mail/mail.h"
#include "mail/mailinfo.h"
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

static json_t *str(const char *s)
{
	json_t *j = json_string(s ? s : "");

	/* the parser guarantees UTF-8; a NUL inside cuts the string */
	return j ? j : json_string("");
}

/*
 * The patch keeps mailinfo's bytes, which need not be UTF-8 (a latin-1
 * mail's diff); JSON needs UTF-8, so such a patch is printed read as latin-1.
 */
static json_t *strn(const struct pr_buf *b)
{
	struct pr_buf u = PR_BUF_INIT;
	json_t *j;

	if (pr_mail_is_utf8(b->ptr, b->len))
		return json_stringn(b->ptr, b->len);
	pr_mail_add_utf8_or_latin1(&u, b->ptr, b->len);
	j = json_stringn(u.ptr, u.len);
	pr_buf_release(&u);
	return j ? j : json_string("");
}

static json_t *message_json(const struct pr_mailinfo *mi)
{
	json_t *m = json_object(), *refs = json_array(), *from = json_object(),
	       *prefix = json_object(), *trailers = json_array();
	size_t i;

	json_object_set_new(m, "message_id", str(mi->message_id));
	json_object_set_new(m, "in_reply_to", str(mi->in_reply_to));
	for (i = 0; i < mi->nr_references; i++)
		json_array_append_new(refs, str(mi->references[i]));
	json_object_set_new(m, "references", refs);
	json_object_set_new(from, "name", str(mi->name));
	json_object_set_new(from, "email", str(mi->email));
	json_object_set_new(m, "from", from);
	json_object_set_new(m, "date", str(mi->date));
	json_object_set_new(m, "subject", str(mi->subject));
	json_object_set_new(m, "subject_raw", str(mi->subject_raw));
	json_object_set_new(prefix, "list",
			    mi->prefix.list ? str(mi->prefix.list)
					    : json_null());
	json_object_set_new(prefix, "rfc", json_boolean(mi->prefix.rfc));
	json_object_set_new(prefix, "version",
			    json_integer(mi->prefix.version));
	json_object_set_new(prefix, "index", json_integer(mi->prefix.index));
	json_object_set_new(prefix, "total", json_integer(mi->prefix.total));
	json_object_set_new(m, "prefix", prefix);
	json_object_set_new(m, "kind", str(pr_mail_kind_name(mi->kind)));
	json_object_set_new(m, "body", strn(&mi->msg));
	json_object_set_new(m, "diff", strn(&mi->patch));
	for (i = 0; i < mi->trailers.nr; i++) {
		json_t *t = json_object();

		json_object_set_new(t, "key", str(mi->trailers.items[i].key));
		json_object_set_new(t, "value",
				    str(mi->trailers.items[i].value));
		json_array_append_new(trailers, t);
	}
	json_object_set_new(m, "trailers", trailers);
	if (mi->pull_url) {
		json_t *p = json_object();

		json_object_set_new(p, "url", str(mi->pull_url));
		json_object_set_new(p, "ref",
				    mi->pull_ref ? str(mi->pull_ref)
						 : json_null());
		json_object_set_new(m, "pull", p);
	} else {
		json_object_set_new(m, "pull", json_null());
	}
	return m;
}

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

		json_array_append_new(ctx->messages, message_json(&mi));
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

static json_t *id_or_null(const char *id)
{
	return id ? str(id) : json_null();
}

/* The "series" list: mails grouped as core/mail/assemble.h says. */
static int series_json(json_t **out, struct pr_patch *const *mails, size_t nr)
{
	struct pr_patch **pat = pr_calloc(nr ? nr : 1, sizeof(*pat));
	struct pr_assembly a = { 0 };
	json_t *list = json_array();
	size_t n, i, j, k;
	int err;

	n = pr_am_series_mails(pat, mails, nr);
	err = pr_assemble_mails(&a, pat, n);
	for (i = 0; !err && i < a.nr; i++) {
		const struct pr_asm_series *s = &a.series[i];

		for (j = 0; j < s->nr; j++) {
			const struct pr_asm_version *v = &s->versions[j];
			json_t *o = json_object(), *ids = json_array();

			json_object_set_new(o, "key", id_or_null(s->key));
			json_object_set_new(o, "version",
					    json_integer(v->number));
			json_object_set_new(o, "total", json_integer(v->total));
			json_object_set_new(o, "complete",
					    json_boolean(v->complete));
			json_object_set_new(o, "partial_reroll",
					    json_boolean(v->partial_reroll));
			json_object_set_new(o, "superseded",
					    json_boolean(v->superseded));
			json_object_set_new(
				o, "cover",
				id_or_null(v->cover ? v->cover->message_id
						    : NULL));
			for (k = 0; k < v->nr; k++)
				json_array_append_new(
					ids,
					id_or_null(v->patches[k]->message_id));
			json_object_set_new(o, "patches", ids);
			json_object_set_new(o, "supersedes",
					    id_or_null(v->supersedes));
			json_array_append_new(list, o);
		}
	}
	pr_assemble_release(&a);
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
