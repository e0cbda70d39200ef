#include "base/pr.h"
#include "model/report_render.h"

#include <jansson.h>

int pr_render_format_parse(enum pr_render_format *out, const char *name)
{
	static const char *const names[] = { "text", "json", "markdown",
					     "mail" };
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum pr_render_format)i;
			return 0;
		}
	return pr_error(PR_EINVAL,
			"report format '%s': not one of text, "
			"json, markdown, mail",
			name);
}

int pr_render_cut(struct pr_buf *out, const char *text, size_t head,
		  size_t tail)
{
	size_t lines = 0, i;
	const char *p, *tail_start;
	int err = 0;

	for (p = text; *p; p++)
		if (*p == '\n' || !p[1])
			lines++;
	if (lines <= head + tail)
		return pr_buf_adds(out, text);
	p = text;
	for (i = 0; i < head; i++)
		p = strchr(p, '\n') + 1;
	err = pr_buf_add(out, text, (size_t)(p - text));
	if (!err)
		err = pr_buf_addf(out, "[... %zu lines left out ...]\n",
				  lines - head - tail);
	/* Skip to the start of the last `tail` lines. */
	tail_start = p;
	for (i = 0; i < lines - head - tail; i++)
		tail_start = strchr(tail_start, '\n') + 1;
	if (!err)
		err = pr_buf_adds(out, tail_start);
	return err;
}

static int add_detail(struct pr_buf *out, const char *detail,
		      const char *indent)
{
	struct pr_buf cut = PR_BUF_INIT;
	const char *p;
	int err;

	err = pr_render_cut(&cut, detail, PR_RENDER_DETAIL_LINES / 2,
			    PR_RENDER_DETAIL_LINES / 2);
	for (p = cut.ptr; !err && *p;) {
		size_t n = strcspn(p, "\n");

		err = pr_buf_addf(out, "%s%.*s\n", indent, (int)n, p);
		p += n;
		if (*p)
			p++;
	}
	pr_buf_release(&cut);
	return err;
}

static int render_json(struct pr_buf *out, const struct pr_report *r)
{
	json_t *root = json_object(), *items = json_array();
	char *text = NULL;
	size_t i;
	int err = 0;

	json_object_set_new(root, "verdict",
			    json_string(pr_verdict_name(pr_report_verdict(r))));
	for (i = 0; i < r->nr; i++) {
		const struct pr_report_entry *e = &r->items[i];
		json_t *o = json_object();

		json_object_set_new(o, "step", json_string(e->step));
		json_object_set_new(o, "rule", json_string(e->rule));
		json_object_set_new(o, "verdict",
				    json_string(pr_verdict_name(e->verdict)));
		json_object_set_new(o, "patch", json_integer(e->patch));
		json_object_set_new(o, "message", json_string(e->message));
		if (e->detail)
			json_object_set_new(o, "detail",
					    json_string(e->detail));
		json_array_append_new(items, o);
	}
	json_object_set_new(root, "entries", items);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!text) {
		err = pr_error(PR_EINTERNAL, "report: json rendering failed");
		goto done;
	}
	err = pr_buf_adds(out, text);
	if (!err)
		err = pr_buf_addch(out, '\n');
done:
	free(text);
	json_decref(root);
	return err;
}

static void add_where(struct pr_buf *out, const struct pr_report_entry *e)
{
	if (e->patch >= 0)
		pr_buf_addf(out, " patch %d", e->patch + 1);
}

int pr_report_render(struct pr_buf *out, const struct pr_report *r,
		     enum pr_render_format fmt)
{
	size_t i;
	int err = 0;

	if (fmt == PR_RENDER_JSON)
		return render_json(out, r);
	if (fmt == PR_RENDER_MARKDOWN)
		err = pr_buf_addf(out, "### patchrelay check: %s\n\n",
				  pr_verdict_name(pr_report_verdict(r)));
	for (i = 0; !err && i < r->nr; i++) {
		const struct pr_report_entry *e = &r->items[i];
		const char *rule = e->rule && *e->rule ? e->rule : NULL;

		switch (fmt) {
		case PR_RENDER_MARKDOWN:
			err = pr_buf_addf(out, "- **%s** `%s%s%s`",
					  pr_verdict_name(e->verdict), e->step,
					  rule ? "/" : "", rule ? rule : "");
			add_where(out, e);
			pr_buf_addf(out, ": %s\n", e->message);
			if (e->detail) {
				pr_buf_adds(out, "\n  ```\n");
				add_detail(out, e->detail, "  ");
				pr_buf_adds(out, "  ```\n");
			}
			break;
		default:
			/* Text and mail: one line per entry, detail indented. */
			err = pr_buf_addf(out, "%-4s %s%s%s",
					  pr_verdict_name(e->verdict), e->step,
					  rule ? "/" : "", rule ? rule : "");
			add_where(out, e);
			pr_buf_addf(out, ": %s\n", e->message);
			if (e->detail)
				add_detail(out, e->detail, "    ");
			break;
		}
	}
	if (!err && fmt != PR_RENDER_MARKDOWN)
		err = pr_buf_addf(out, "%s: %s\n",
				  fmt == PR_RENDER_MAIL ? "Verdict" : "verdict",
				  pr_verdict_name(pr_report_verdict(r)));
	return err;
}
