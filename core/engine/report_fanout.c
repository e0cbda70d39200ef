#include "base/pr.h"

#include "base/sha1.h"
#include "engine/bridge.h"
#include "engine/delivery.h"
#include "engine/engine.h"
#include "engine/graph.h"
#include "engine/idmap.h"
#include "engine/notes.h"
#include "engine/report_fanout.h"
#include "engine/store.h"
#include "mail/outgoing.h"
#include "model/model.h"
#include "model/report.h"
#include "model/report_render.h"

/* What a commit status takes (GitHub's cap on a description). */
#define DESCRIPTION_MAX 140

static const char *verdict_word(enum pr_verdict v)
{
	return v == PR_VERDICT_FAIL   ? "fail"
	       : v == PR_VERDICT_WARN ? "warn"
				      : "pass";
}

/*
 * One line: the first finding of the worst verdict ("size: 12 files
 * over 10", the first line of its output after it), and how many more
 * there are; "passed" when none says more.
 */
static int describe(struct pr_buf *out, const struct pr_report *r,
		    enum pr_verdict v)
{
	const struct pr_report_entry *first = NULL;
	size_t i, more = 0;
	int err;

	for (i = 0; v > PR_VERDICT_PASS && i < r->nr; i++) {
		if (r->items[i].verdict != v)
			continue;
		if (first)
			more++;
		else
			first = &r->items[i];
	}
	if (!first)
		return pr_buf_adds(out, "passed");
	err = pr_buf_addf(out, "%s: %.*s", first->step,
			  (int)strcspn(first->message ? first->message : "",
				       "\n"),
			  first->message ? first->message : "");
	/* a tool's output: its first line says the most */
	if (!err && first->detail && *first->detail)
		err = pr_buf_addf(out, ": %.*s",
				  (int)strcspn(first->detail, "\n"),
				  first->detail);
	if (!err && more)
		err = pr_buf_addf(out, " (and %zu more)", more);
	pr_buf_cap_utf8(out, DESCRIPTION_MAX);
	return err;
}

/* The node a report-to name means: a source that shows reports, else the sink. */
static const struct pr_graph_node *node_of(const struct pr_graph *g,
					   const char *name)
{
	const struct pr_graph_node *n = pr_graph_node(g, "source", name);

	if (n && n->connector && n->connector->report)
		return n;
	return pr_graph_node(g, "sink", name);
}

/* The note's scope and key of (node, series, version, context). */
static int note_names(struct pr_buf *scope, struct pr_buf *key,
		      const struct pr_report_fanout *f, const char *node,
		      const char *context)
{
	int err;

	if (!(err = pr_buf_addf(scope, "report:%s", node)))
		err = pr_buf_addf(key, "%lld/v%d/%s", (long long)f->series_id,
				  f->version, context);
	return err;
}

/* ---- a mail sink: a reply to the cover letter ---- */

struct reply_ctx {
	const struct pr_report_fanout *f;
	const struct pr_graph_node *n;
	const struct pr_report_post *p;
	unsigned count; /* this post's number, for its delivery key */
};

/* The reply's body: what the context says, then the report. */
static int reply_body(struct pr_buf *out, const struct pr_report_post *p)
{
	static const char *const words[] = { "PASS", "PASS", "WARN", "FAIL" };
	int err;

	err = pr_buf_addf(out, "%s: %s\n\n%s\n\n", p->context,
			  words[p->verdict & 3], p->description);
	if (!err && p->report->nr)
		err = pr_report_render(out, p->report, PR_RENDER_MAIL);
	pr_buf_rtrim(out);
	return err ? err : pr_buf_adds(out, "\n\n-- \npatchrelay\n");
}

/*
 * The mail a reply answers: the version's cover letter, else its first
 * patch (PR_ENOENT without a message when neither is known).
 */
static int answered(struct pr_idmap_mail *m, const struct pr_report_fanout *f)
{
	int err = pr_idmap_mail_get(m, f->st, f->series_id, f->version, 0);

	if (err == PR_ENOENT)
		err = pr_idmap_mail_get(m, f->st, f->series_id, f->version, 1);
	return err;
}

static int list_reply(const struct reply_ctx *c)
{
	const struct pr_report_fanout *f = c->f;
	const char *from_opt = pr_graph_node_string(c->n, "from");
	struct pr_idmap_mail m = { 0 };
	struct pr_buf fp = PR_BUF_INIT, sink_key = PR_BUF_INIT;
	struct pr_buf mid = PR_BUF_INIT, body = PR_BUF_INIT;
	struct pr_strlist to = { 0 }, cc = { 0 };
	struct pr_outgoing_rcpt rc = { { 0 }, { 0 } };
	struct pr_ident from = { NULL, NULL };
	struct pr_engine_version v;
	struct pr_engine_stats stats;
	struct pr_sha1 h;
	char hex[PR_SHA1_HEXSZ + 1];
	int err;

	/* a sink that names no sender (a maildir) writes no reply */
	if (!from_opt)
		return 0;
	err = answered(&m, f);
	if (err == PR_ENOENT) {
		err = 0;
		goto done;
	}
	pr_sha1_init(&h);
	pr_sha1_update(&h, c->p->context, strlen(c->p->context) + 1);
	pr_sha1_final_hex(hex, &h);
	if (err ||
	    (err = pr_store_version_fingerprint(&fp, f->st, f->series_id,
						f->version)) ||
	    (err = pr_buf_addf(&sink_key, "%s+report-%.12s-%u", c->n->inst.name,
			       hex, c->count)))
		goto done;
	v.origin = f->series->origin_connector;
	v.key = f->series->origin_key;
	v.series_id = f->series_id;
	v.number = f->version;
	v.fingerprint = fp.ptr;
	if ((err = pr_outgoing_parse_address(&from, from_opt)) ||
	    (err = pr_outgoing_recipients(
		     &rc, f->series, pr_graph_node_list(&to, c->n, "to"),
		     pr_graph_node_list(&cc, c->n, "cc"), false)) ||
	    (err = reply_body(&body, c->p)) ||
	    (err = pr_bridge_send_reply(&stats, f->st, &v, sink_key.ptr, c->n,
					&from, &rc, &m, body.ptr, &mid)))
		goto done;
	if (stats.pending)
		err = pr_error(PR_EAGAIN, "reply <%s> not sent yet", mid.ptr);
	if (!err)
		err = 1;
done:
	pr_idmap_mail_release(&m);
	pr_ident_release(&from);
	pr_outgoing_rcpt_release(&rc);
	pr_strlist_release(&to);
	pr_strlist_release(&cc);
	pr_buf_release(&fp);
	pr_buf_release(&sink_key);
	pr_buf_release(&mid);
	pr_buf_release(&body);
	return err;
}

/* ---- the fan-out ---- */

/*
 * Post p at node `name` unless its note has p's verdict already.  0 done
 * (or nothing to do), 1 failed (logged), negative: the store failed.
 */
static int post_at(const struct pr_report_fanout *f, const char *name,
		   const struct pr_report_post *p)
{
	const struct pr_graph_node *n = node_of(f->g, name);
	struct pr_buf scope = PR_BUF_INIT, key = PR_BUF_INIT;
	struct pr_buf last = PR_BUF_INIT, val = PR_BUF_INIT;
	const char *word = verdict_word((enum pr_verdict)p->verdict);
	struct reply_ctx rc = { f, n, p, 1 };
	int err;

	if (!n || !n->connector)
		return 0;
	if ((err = note_names(&scope, &key, f, name, p->context)))
		goto done;
	err = pr_notes_get(&last, f->st, scope.ptr, key.ptr);
	if (err == PR_ENOENT) {
		pr_error_clear();
		err = 0;
	} else if (err) {
		goto done;
	}
	if (last.len) {
		size_t w = strcspn(last.ptr, " ");

		if (w == strlen(word) && !strncmp(last.ptr, word, w))
			goto done;
		rc.count = (unsigned)strtoul(last.ptr + w, NULL, 10) + 1;
	}
	/* what the store holds is durable before anything goes out */
	if ((err = pr_store_sync(f->st)))
		goto done;
	if (n->connector->report)
		err = n->connector->report((struct pr_instance *)&n->inst, p);
	else
		err = list_reply(&rc);
	if (err < 0) {
		pr_log_warn(n->inst.prefix, "report on '%s' v%d not shown: %s",
			    f->series->origin_key, f->version,
			    pr_error_message());
		pr_error_clear();
		err = 1;
	} else if (err == 0) {
		pr_log_debug(n->inst.prefix,
			     "'%s' v%d is not here: no report shown",
			     f->series->origin_key, f->version);
	} else if (!(err = pr_buf_addf(&val, "%s %u", word, rc.count)) &&
		   !(err = pr_notes_set(f->st, scope.ptr, key.ptr, val.ptr))) {
		pr_log_info(n->inst.prefix, "report '%s' on '%s' v%d: %s",
			    p->context, f->series->origin_key, f->version,
			    word);
	}
done:
	pr_buf_release(&scope);
	pr_buf_release(&key);
	pr_buf_release(&last);
	pr_buf_release(&val);
	return err;
}

int pr_report_fanout(const struct pr_report_fanout *f,
		     const struct pr_report *report)
{
	const struct pr_graph_route *r = f->route;
	struct pr_buf context = PR_BUF_INIT, desc = PR_BUF_INIT;
	struct pr_buf text = PR_BUF_INIT;
	struct pr_report_post p = { 0 };
	enum pr_verdict v = pr_report_verdict(report);
	size_t i;
	int err, failed = 0;

	if (!r->report_to.nr)
		return 0;
	if (v == PR_VERDICT_SKIP)
		v = PR_VERDICT_PASS;
	if ((err = r->report_context
			   ? pr_buf_adds(&context, r->report_context)
			   : pr_buf_addf(&context, "patchrelay/%s", r->name)) ||
	    (err = describe(&desc, report, v)) ||
	    (err = pr_report_render(&text, report, PR_RENDER_TEXT)))
		goto done;
	p.series = f->series;
	p.store = f->st;
	p.series_id = f->series_id;
	p.version = f->version;
	p.report = report;
	p.verdict = (int)v;
	p.context = context.ptr;
	p.description = desc.ptr;
	p.text = text.ptr;
	for (i = 0; i < r->report_to.nr; i++) {
		err = post_at(f, r->report_to.items[i], &p);
		if (err < 0)
			goto done;
		failed += err;
	}
	err = failed ? 1 : 0;
done:
	pr_buf_release(&context);
	pr_buf_release(&desc);
	pr_buf_release(&text);
	return err;
}
