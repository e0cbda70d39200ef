#include "base/pr.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "engine/bridge.h"
#include "engine/cfg.h"
#include "engine/deliver.h"
#include "engine/delivery.h"
#include "engine/engine.h"
#include "engine/graph.h"
#include "engine/notes.h"
#include "engine/report_fanout.h"
#include "engine/store_view.h"
#include "git/diff.h"
#include "git/format.h"
#include "git/rangediff.h"
#include "mail/am.h"
#include "mail/mbox.h"
#include "mail/outgoing.h"

struct pass_ctx {
	const struct pr_graph *g;
	const struct pr_graph_route *route;
	struct pr_store *st;
	struct pr_engine_pass_stats *stats;
	const char *cursor_key;
	const struct pr_engine_opts *opts; /* never NULL */
	size_t *dry_run_written; /* mails written to opts->dry_run_fd */
	const char *state_dir; /* the state file's directory */
};

static bool name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
}

/*
 * Dry run: write what pr_engine_deliver would hand to sink `sink` as files
 * in opts->dry_run_dir or to opts->dry_run_fd; the store is not touched.
 */
static int dry_run_write(const struct pass_ctx *c,
			 const struct pr_engine_version *v, const char *sink,
			 const char *const *mails, const size_t *lens,
			 size_t nr)
{
	const struct pr_engine_opts *o = c->opts;
	struct pr_buf key = PR_BUF_INIT, path = PR_BUF_INIT;
	const char *p;
	size_t i;
	int err, fd = -1;

	if ((err = pr_engine_delivery_key(&key, v, sink)))
		goto done;
	pr_log_info(c->route->name, "dry run: %zu mail(s) of '%s' v%d to '%s'",
		    nr, v->key, v->number, sink);
	for (i = 0; i < nr; i++) {
		if (!o->dry_run_dir) {
			/* git format-patch --stdout puts a blank line between mails */
			if ((*c->dry_run_written)++ &&
			    (err = pr_write_all(o->dry_run_fd, "\n", 1)))
				goto done;
			if ((err = pr_write_all(o->dry_run_fd, mails[i],
						lens[i])))
				goto done;
			continue;
		}
		pr_buf_reset(&path);
		if ((err = pr_buf_addf(&path, "%s/", o->dry_run_dir)))
			goto done;
		/* a sink name is any config subsection: keep it one name */
		for (p = sink; *p && !err; p++)
			err = pr_buf_addch(&path, name_char(*p) ? *p : '_');
		if (err || (err = pr_buf_addf(&path, ".%s.%zu", key.ptr, i)))
			goto done;
		fd = open(path.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			  0644);
		if (fd < 0) {
			err = pr_error(PR_EIO, "dry run file '%s': %s",
				       path.ptr, strerror(errno));
			goto done;
		}
		if ((err = pr_write_all(fd, mails[i], lens[i])))
			goto done;
		if (close(fd) < 0) {
			fd = -1;
			err = pr_error(PR_EIO, "dry run file '%s': %s",
				       path.ptr, strerror(errno));
			goto done;
		}
		fd = -1;
	}
done:
	if (fd >= 0)
		close(fd);
	pr_buf_release(&path);
	pr_buf_release(&key);
	return err;
}

/*
 * Run the route's steps in order into `report`.  A step that could not run
 * is an error; a step that refuses the series is a verdict, which the caller
 * reads from the report.
 */
static int run_steps(const struct pass_ctx *c, struct pr_series *s,
		     struct pr_version *v, struct pr_report *report)
{
	size_t i;
	int err = 0;

	for (i = 0; i < c->route->steps.nr; i++) {
		const struct pr_graph_node *n =
			pr_graph_node(c->g, "check", c->route->steps.items[i]);

		if (!n || !n->plugin || !n->plugin->run)
			return pr_error(PR_EINTERNAL,
					"route '%s': step '%s' cannot run",
					c->route->name,
					c->route->steps.items[i]);
		/* where a step keeps what it caches (kernel-ci's trees) */
		((struct pr_instance *)&n->inst)->state_dir = c->state_dir;
		err = n->plugin->run((struct pr_instance *)&n->inst, s, v,
				     report);
		((struct pr_instance *)&n->inst)->state_dir = NULL;
		if (err)
			return pr_error_wrap(err, "route '%s': step '%s'",
					     c->route->name,
					     c->route->steps.items[i]);
	}
	return 0;
}

/* Log why a route refused a series: one line per failed finding. */
static void log_refusal(const struct pass_ctx *c, const struct pr_series *s,
			const struct pr_report *report)
{
	size_t i;

	for (i = 0; i < report->nr; i++) {
		const struct pr_report_entry *e = &report->items[i];

		if (e->verdict != PR_VERDICT_FAIL)
			continue;
		pr_log_warn(c->route->name, "series '%s' refused: %s/%s: %s",
			    s->origin_key, e->step, e->rule, e->message);
	}
}

int pr_engine_render(char ***mails, size_t **lens, const struct pr_version *v)
{
	size_t i;
	int err;

	*mails = pr_calloc(v->nr, sizeof(**mails));
	*lens = pr_calloc(v->nr, sizeof(**lens));
	for (i = 0; i < v->nr; i++) {
		struct pr_format_opts opts = { "PATCH", NULL, (int)i + 1,
					       v->nr > 1 ? (int)v->nr : 0,
					       NULL };
		struct pr_buf mail = PR_BUF_INIT;

		if ((err = pr_format_patch(&mail, v->patches[i], &opts))) {
			pr_buf_release(&mail);
			pr_engine_render_free(*mails, *lens, v->nr);
			*mails = NULL;
			*lens = NULL;
			return err;
		}
		(*mails)[i] = pr_buf_detach(&mail, &(*lens)[i]);
	}
	return 0;
}

void pr_engine_render_free(char **mails, size_t *lens, size_t nr)
{
	size_t i;

	if (mails)
		for (i = 0; i < nr; i++)
			free(mails[i]);
	free(mails);
	free(lens);
}

/*
 * Whether the route takes v by its include-subsystem / exclude-subsystem
 * (pr_graph_route_sections).  1: take it; 0: skip it silently (a route
 * choosing its series is not a refusal); negative: no step can tell.
 */
static int route_takes_version(const struct pass_ctx *c,
			       const struct pr_series *s,
			       const struct pr_version *v)
{
	struct pr_strlist touched = { 0 };
	const char *excluded;
	int ret;

	ret = pr_graph_route_sections(c->g, c->route, v, &touched, &excluded);
	if (!ret)
		pr_log_debug(c->route->name,
			     "series '%s' v%d: not for this route",
			     s->origin_key, v->number);
	pr_strlist_release(&touched);
	return ret;
}

/*
 * Post the report (and what was sent) back to the route's feedback node;
 * a failure is logged, the delivery stands, and it is returned.
 */
static int tell_node(const struct pass_ctx *c, const char *name,
		     const struct pr_series *s, const struct pr_report *report,
		     const char *summary)
{
	const struct pr_graph_node *n;
	int err;

	n = pr_graph_node(c->g, "source", name);
	if (!n || !n->connector || !n->connector->feedback)
		n = pr_graph_node(c->g, "sink", name);
	if (!n || !n->connector || !(n->connector->caps & PR_CAP_FEEDBACK) ||
	    !n->connector->feedback) {
		pr_log_warn(c->route->name,
			    "feedback '%s': cannot take feedback", name);
		return 0;
	}
	/* what the store holds is durable before anything goes out */
	if ((err = pr_store_sync(c->st)))
		return err;
	err = n->connector->feedback((struct pr_instance *)&n->inst, s, report,
				     summary);
	if (err)
		pr_log_warn(n->inst.prefix, "feedback on '%s': %s",
			    s->origin_key, pr_error_message());
	return err;
}

/*
 * Whether the feedback on version `number` of a series is still owed:
 * a note (scope "feedback:NODE", key "SERIES_ID/vN") says "pending" from
 * the moment the version is first seen until the feedback node took it,
 * and "done" then.  So a feedback that failed, or that a crash cut off
 * after the last mail, is given by a later pass (the event comes again:
 * give_feedback holds the cursor), and a version read again is not told
 * twice.  Versions first seen before this note existed have none.
 */
static int feedback_note(const struct pass_ctx *c, int64_t series_id,
			 int number, const char *set)
{
	struct pr_buf scope = PR_BUF_INIT, key = PR_BUF_INIT, v = PR_BUF_INIT;
	int err;

	if ((err = pr_buf_addf(&scope, "feedback:%s", c->route->feedback)) ||
	    (err = pr_buf_addf(&key, "%lld/v%d", (long long)series_id, number)))
		goto done;
	if (set) {
		err = pr_notes_set(c->st, scope.ptr, key.ptr, set);
		goto done;
	}
	err = pr_notes_get(&v, c->st, scope.ptr, key.ptr);
	if (err == PR_ENOENT) {
		pr_error_clear();
		err = 0;
	} else if (!err) {
		err = !strcmp(v.ptr, "pending");
	}
done:
	pr_buf_release(&scope);
	pr_buf_release(&key);
	pr_buf_release(&v);
	return err;
}

/*
 * Tell the route's feedback node, if it has one, and note it told.  A
 * failure is kept owed and returns 1: the caller holds the source's
 * cursor, so the next pass sees the event again and tries again (a dry
 * run notes nothing).
 */
static int give_feedback(const struct pass_ctx *c, const struct pr_series *s,
			 int64_t series_id, int number,
			 const struct pr_report *report, const char *summary)
{
	bool note = !c->opts->dry_run;
	int err;

	if (!c->route->feedback)
		return 0;
	if (!tell_node(c, c->route->feedback, s, report, summary))
		return note ? feedback_note(c, series_id, number, "done") : 0;
	if (note && (err = feedback_note(c, series_id, number, "pending")))
		return err;
	c->stats->owed++;
	return 1;
}

/*
 * A landed series is told to the source it came from when that source
 * takes feedback (the PR is where its author looks), and to the watching
 * route's feedback node when that is another one.
 */
static void give_landed_feedback(const struct pass_ctx *c,
				 const struct pr_series *s,
				 const struct pr_report *report,
				 const char *summary)
{
	const struct pr_graph_node *o =
		pr_graph_node(c->g, "source", s->origin_connector);
	bool origin = o && o->connector && o->connector->feedback &&
		      (o->connector->caps & PR_CAP_FEEDBACK);

	if (origin)
		tell_node(c, s->origin_connector, s, report, summary);
	if (c->route->feedback &&
	    (!origin || strcmp(c->route->feedback, s->origin_connector)))
		tell_node(c, c->route->feedback, s, report, summary);
}

/*
 * Show the report where the route's report-to says (report_fanout.h):
 * not for a dry run or a preview.  1 when a node failed: hold the cursor.
 */
static int show_report(const struct pass_ctx *c, const struct pr_event *ev,
		       int64_t series_id, int number,
		       const struct pr_report *report)
{
	struct pr_report_fanout f = { .g = c->g,
				      .route = c->route,
				      .st = c->st,
				      .series = ev->series,
				      .series_id = series_id,
				      .version = number };
	int err;

	if (c->opts->dry_run || ev->preview)
		return 0;
	if ((err = pr_report_fanout(&f, report)) > 0)
		c->stats->owed++;
	return err;
}

/* The version's patches as format-patch writes them, one mbox. */
static int version_mbox(struct pr_buf *out, const struct pr_version *v)
{
	char **mails = NULL;
	size_t *lens = NULL, i;
	int err;

	if ((err = pr_engine_render(&mails, &lens, v)))
		return err;
	for (i = 0; i < v->nr && !err; i++)
		err = pr_buf_add(out, mails[i], lens[i]);
	pr_engine_render_free(mails, lens, v->nr);
	return err;
}

struct mbox_version {
	struct pr_version *v;
	int err;
};

/* One mail of a stored version's mbox as a patch of mv->v. */
static int stored_patch(const char *data, size_t len,
			const struct pr_mbox_where *where, void *payload)
{
	struct mbox_version *mv = payload;
	struct pr_patch *p = NULL;
	int err;

	PR_UNUSED(where);
	if ((err = pr_am_patch_parse(&p, data, len)))
		return err;
	/* format-patch's "From <commit> Mon Sep 17 ..." line keeps the id
	 * (all zeros for a patch that never was a commit: none) */
	if (len > 45 && !memcmp(data, "From ", 5) && data[45] == ' ' &&
	    strspn(data + 5, "0123456789abcdef") == 40 &&
	    strspn(data + 5, "0") < 40) {
		memcpy(p->commit_id, data + 5, 40);
		p->commit_id[40] = 0;
		/* with a commit id, range-diff takes subject_raw as git's
		 * first paragraph; a mail's holds "[PATCH n/N]" instead */
		free(p->subject_raw);
		p->subject_raw = NULL;
	}
	pr_version_add_patch(mv->v, p);
	return 0;
}

int pr_engine_stored_version(struct pr_version **out, struct pr_store *st,
			     int64_t series_id, int number)
{
	struct pr_buf mbox = PR_BUF_INIT;
	struct mbox_version mv = { NULL, 0 };
	int err;

	*out = NULL;
	err = pr_store_version_mbox_get(&mbox, st, series_id, number);
	if (!err && !mbox.len)
		err = PR_ENOENT;
	if (err)
		goto done;
	mv.v = pr_version_new(number);
	err = pr_mbox_split(mbox.ptr, mbox.len, "stored version", NULL,
			    stored_patch, &mv);
	if (!err && !mv.v->nr)
		err = PR_ENOENT;
	if (!err) {
		*out = mv.v;
		mv.v = NULL;
	}
done:
	pr_version_free(mv.v);
	pr_buf_release(&mbox);
	return err;
}

/*
 * The range-diff of v against the previous version (the one before it in
 * the store, whose mbox was kept for this), as `git format-patch
 * --range-diff` puts it in the cover letter.  Empty when that mbox is
 * unknown (a version recorded before schema 3) or has no patches; a
 * range-diff that cannot be made (too many patches) is logged and left
 * out, since it is a courtesy to reviewers and never a reason not to send.
 */
static int range_diff(struct pr_buf *out, const struct pass_ctx *c,
		      int64_t series_id, const struct pr_version *v)
{
	struct pr_version *prev = NULL;
	int err;

	err = pr_engine_stored_version(&prev, c->st, series_id,
				       v->number > 1 ? v->number - 1 : 0);
	if (err == PR_ENOENT) {
		pr_error_clear();
		return 0;
	}
	if (!err)
		err = pr_range_diff(out, prev, v);
	if (err) {
		pr_log_warn(c->route->name, "no range-diff against v%d: %s",
			    v->number - 1, pr_error_message());
		pr_buf_reset(out);
		err = 0;
	}
	pr_version_free(prev);
	return err;
}

/* One sink's part of a delivery, rendered before anything is sent. */
struct sink_job {
	const struct pr_graph_node *n;
	struct pr_buf sink_key; /* "<sink>" or "<sink>+preview" */
	struct pr_outgoing_rcpt rcpt;
	struct pr_outgoing mails;
	struct pr_ident sender;
	struct pr_strlist to_tmp, cc_tmp;
};

static void sink_job_release(struct sink_job *j)
{
	pr_buf_release(&j->sink_key);
	pr_outgoing_rcpt_release(&j->rcpt);
	pr_outgoing_release(&j->mails);
	pr_ident_release(&j->sender);
	pr_strlist_release(&j->to_tmp);
	pr_strlist_release(&j->cc_tmp);
}

/*
 * The root Message-ID of the previous version's delivery to the same sink,
 * appended to out; nothing when that version was never delivered there.
 */
static int previous_root(struct pr_buf *out, const struct pass_ctx *c,
			 const struct pr_engine_version *ev,
			 const struct sink_job *j, const struct pr_version *v)
{
	struct pr_engine_version prev = *ev;
	struct pr_buf fp = PR_BUF_INIT, key = PR_BUF_INIT;
	int64_t id;
	int err;

	if (ev->number < 2)
		return 0;
	prev.number = ev->number - 1;
	err = pr_store_delivery_find(&id, c->st, ev->series_id, prev.number,
				     j->sink_key.ptr);
	if (err == PR_ENOENT) {
		err = 0;
		goto done;
	}
	if (err || (err = pr_store_version_fingerprint(
			    &fp, c->st, ev->series_id, prev.number)))
		goto done;
	prev.fingerprint = fp.ptr;
	if ((err = pr_engine_delivery_key(&key, &prev, j->sink_key.ptr)))
		goto done;
	err = pr_outgoing_message_id(
		out, key.ptr, 0,
		pr_outgoing_domain(j->sender.email ? &j->sender : NULL, v));
done:
	pr_buf_release(&fp);
	pr_buf_release(&key);
	return err;
}

/*
 * Gather a sink's recipients and render its mails.  A problem of the
 * series (a bad address, too many recipients) is a FAIL entry in the
 * report and returns 0; only a failure to run is an error.
 */
static int prepare_sink(struct sink_job *j, const struct pass_ctx *c,
			const struct pr_event *ev,
			const struct pr_engine_version *ev2,
			const struct pr_version *v, const char *rdiff,
			struct pr_report *report)
{
	const struct pr_graph_node *n = j->n;
	const char *from = pr_graph_node_string(n, "from");
	struct pr_outgoing_opts o = { 0 };
	struct pr_buf key = PR_BUF_INIT, prev = PR_BUF_INIT;
	int64_t base;
	int err;

	if ((err = pr_buf_addf(&j->sink_key, "%s%s", n->inst.name,
			       ev->preview ? "+preview" : "")))
		goto done;
	if (from && (err = pr_outgoing_parse_address(&j->sender, from))) {
		err = pr_error_wrap(err, "sink '%s': option 'from'",
				    n->inst.name);
		goto done;
	}
	err = pr_outgoing_recipients(&j->rcpt, ev->series,
				     pr_graph_node_list(&j->to_tmp, n, "to"),
				     pr_graph_node_list(&j->cc_tmp, n, "cc"),
				     ev->preview);
	if (err == PR_EINVAL) {
		pr_report_add(report, "deliver", "recipients", PR_VERDICT_FAIL,
			      -1, NULL, "sink '%s': %s", n->inst.name,
			      pr_error_message());
		err = 0;
		goto done;
	}
	if (err)
		goto done;
	if (c->route->max_recipients &&
	    pr_outgoing_rcpt_count(&j->rcpt) >
		    (size_t)c->route->max_recipients) {
		pr_report_add(report, "deliver", "max-recipients",
			      PR_VERDICT_FAIL, -1, NULL,
			      "sink '%s': %zu recipients, over the route's "
			      "max-recipients %lld",
			      n->inst.name, pr_outgoing_rcpt_count(&j->rcpt),
			      (long long)c->route->max_recipients);
		goto done;
	}
	if ((err = pr_engine_delivery_key(&key, ev2, j->sink_key.ptr)) ||
	    (err = pr_store_delivery_base_time(&base, c->st, ev2->series_id,
					       ev2->number, j->sink_key.ptr,
					       (int64_t)time(NULL))) ||
	    (!ev->preview && (err = previous_root(&prev, c, ev2, j, v))))
		goto done;
	o.key = key.ptr;
	o.base_time = base;
	o.sender = j->sender.email ? &j->sender : NULL;
	o.rcpt = &j->rcpt;
	o.stat = v->cover ? v->cover->stat : NULL;
	o.prev_message_id = prev.len ? prev.ptr : NULL;
	o.archive_url = pr_graph_node_string(n, "archive-url");
	o.url = ev->series->url;
	o.range_diff = rdiff && *rdiff ? rdiff : NULL;
	err = pr_outgoing_render(&j->mails, v, &o);
	if (err == PR_EINVAL) {
		pr_report_add(report, "deliver", "headers", PR_VERDICT_FAIL, -1,
			      NULL, "sink '%s': %s", n->inst.name,
			      pr_error_message());
		err = 0;
	}
done:
	pr_buf_release(&key);
	pr_buf_release(&prev);
	return err;
}

/*
 * "sent as v2 to a@b, Cc: c@d, e@f; Message-ID: <id>; archive: <link>"
 * for one sink (no Message-ID for a sink that takes the version whole).
 */
static int add_summary(struct pr_buf *out, const struct sink_job *j, int number)
{
	const char *archive = pr_graph_node_string(j->n, "archive-url");
	size_t i;
	int err;

	if (out->len && (err = pr_buf_addch(out, '\n')))
		return err;
	err = pr_buf_addf(out, "sent as v%d to ", number);
	for (i = 0; !err && i < j->rcpt.to.nr; i++)
		err = pr_buf_addf(out, "%s%s", i ? ", " : "",
				  j->rcpt.to.items[i].email);
	if (!err && !j->rcpt.to.nr)
		err = pr_buf_addf(out, "%s", j->n->inst.name);
	for (i = 0; !err && i < j->rcpt.cc.nr; i++)
		err = pr_buf_addf(out, "%s%s", i ? ", " : ", Cc: ",
				  j->rcpt.cc.items[i].email);
	if (!err && j->mails.root_message_id)
		err = pr_buf_addf(out, "; Message-ID: <%s>",
				  j->mails.root_message_id);
	/* a sink that takes the version whole sent no mail to link */
	if (!err && archive && j->mails.root_message_id) {
		err = pr_buf_adds(out, "; archive: ");
		if (!err)
			err = pr_outgoing_archive_link(
				out, archive, j->mails.root_message_id);
	}
	return err;
}

/*
 * The patch-id (git patch-id --stable) of p: its own when the source
 * computed it, else one made from its diff; "" when it has no diff.
 * Never written into p: the fingerprint reads p->patch_id, and a version
 * must keep the fingerprint it had.
 */
static int patch_id_of(char out[41], const struct pr_patch *p)
{
	int err;

	out[0] = '\0';
	if (p->patch_id[0]) {
		memcpy(out, p->patch_id, 41);
		return 0;
	}
	if (!p->diff || !*p->diff)
		return 0;
	err = pr_patch_id(out, p->diff, strlen(p->diff), true);
	if (err == PR_ENOENT) {
		out[0] = '\0';
		err = 0;
	}
	return err;
}

/* Keep the patch-ids of a new version: landed commits are found by them. */
static int record_patch_ids(struct pr_store *st, int64_t series_id, int number,
			    const struct pr_version *v)
{
	char(*ids)[41] = pr_calloc(v->nr ? v->nr : 1, sizeof(*ids));
	const char **ptrs = pr_calloc(v->nr ? v->nr : 1, sizeof(*ptrs));
	size_t i;
	int err = 0;

	for (i = 0; i < v->nr && !err; i++) {
		err = patch_id_of(ids[i], v->patches[i]);
		ptrs[i] = ids[i];
	}
	if (!err)
		err = pr_store_version_patches_set(st, series_id, number, ptrs,
						   v->nr);
	free(ids);
	free(ptrs);
	return err;
}

/* The bridge's view of the pass: its route, store and mode. */
static struct pr_bridge bridge_of(const struct pass_ctx *c)
{
	struct pr_bridge b = { c->g, c->route, c->st, c->opts->dry_run };

	return b;
}

/*
 * The route's sinks that sync landed commits (a patchwork sink) get them
 * first; one that fails holds the source's cursor (it gets them again).
 */
static int tell_sinks_landed(const struct pass_ctx *c,
			     const struct pr_series *branch)
{
	size_t i;
	int err;

	for (i = 0; i < c->route->to.nr; i++) {
		const struct pr_graph_node *n =
			pr_graph_node(c->g, "sink", c->route->to.items[i]);

		if (!n || !n->connector || !n->connector->landed)
			continue;
		if ((err = pr_store_sync(c->st)))
			return err;
		err = n->connector->landed((struct pr_instance *)&n->inst,
					   branch);
		if (err < 0)
			return pr_error_wrap(err, "sink '%s'", n->inst.name);
	}
	return 0;
}

/*
 * Commits landed on a watched branch (a "landed" event: the series is the
 * branch, its latest version the new commits, each with commit_id and
 * patch_id): the stored versions they complete are recorded as landed,
 * and each is told to the route's feedback node once ("landed in main as
 * <commit>").  A dry run records and tells nothing.
 */
static int on_landed(const struct pass_ctx *c, const struct pr_event *ev)
{
	const struct pr_version *v = pr_series_latest(ev->series);
	const char *branch = ev->series->origin_key;
	struct pr_store_landed *landed = NULL;
	const char **ids = NULL, **commits = NULL;
	char(*made)[41] = NULL;
	size_t i, nr = 0;
	int err = 0;

	if (!v || !v->nr)
		return 0;
	if (c->opts->dry_run) {
		pr_log_info(c->route->name,
			    "dry run: %zu commit(s) on '%s' not matched", v->nr,
			    branch);
		return 0;
	}
	if ((err = tell_sinks_landed(c, ev->series)))
		return err;
	ids = pr_calloc(v->nr, sizeof(*ids));
	commits = pr_calloc(v->nr, sizeof(*commits));
	made = pr_calloc(v->nr, sizeof(*made));
	for (i = 0; i < v->nr; i++) {
		if ((err = patch_id_of(made[i], v->patches[i])))
			goto done;
		ids[i] = made[i];
		commits[i] = v->patches[i]->commit_id;
	}
	if ((err = pr_store_land(&landed, &nr, c->st, branch, ids, commits,
				 v->nr)))
		goto done;
	for (i = 0; i < nr; i++) {
		struct pr_series *s =
			pr_series_new(landed[i].origin, landed[i].key);
		struct pr_report report = PR_REPORT_INIT;
		struct pr_buf summary = PR_BUF_INIT;

		c->stats->landed++;
		pr_log_info(c->route->name, "v%d of '%s' landed in %s as %s",
			    landed[i].number, landed[i].key, branch,
			    landed[i].commit);
		s->state = PR_SERIES_ACCEPTED;
		if (pr_buf_addf(&summary, "landed in %s as %s", branch,
				landed[i].commit) == 0) {
			struct pr_bridge b = bridge_of(c);

			give_landed_feedback(c, s, &report, summary.ptr);
			/* a pull request opened for it is closed */
			if (pr_bridge_state(&b, landed[i].origin, landed[i].key,
					    "landed", summary.ptr))
				pr_log_warn(c->route->name, "%s",
					    pr_error_message());
		}
		pr_buf_release(&summary);
		pr_report_release(&report);
		pr_series_free(s);
	}
done:
	pr_store_landed_free(landed, nr);
	free(ids);
	free(commits);
	free(made);
	return err;
}

/*
 * Hand version v whole to a sink whose type has deliver_version (a git
 * push): a delivery of one message under the sink's key, with the
 * delivery's base time so that a retry makes the same commits.
 */
static int push_version(struct pr_engine_stats *ds, const struct pass_ctx *c,
			const struct pr_engine_version *ev2,
			const struct sink_job *j, const struct pr_series *s,
			const struct pr_version *v, struct pr_report *report)
{
	struct pr_version_delivery vd = { NULL, s, v, 0, c->st, ev2->series_id };
	struct pr_buf key = PR_BUF_INIT;
	int err;

	if ((err = pr_engine_delivery_key(&key, ev2, j->n->inst.name)) ||
	    (err = pr_store_delivery_base_time(&vd.time, c->st, ev2->series_id,
					       ev2->number, j->n->inst.name,
					       (int64_t)time(NULL))))
		goto done;
	vd.key = key.ptr;
	err = pr_engine_deliver_mails(ds, c->st, ev2, j->n->inst.name,
				      (struct pr_instance *)&j->n->inst,
				      j->n->connector, NULL, NULL, 1, report,
				      &vd);
done:
	pr_buf_release(&key);
	return err;
}

/*
 * Record for the status page what the route made of version v (store_view.h):
 * its title, the series' link and submitter, the report, and each mail
 * sink's recipients.  A record that fails is logged: the page is a window,
 * never a reason to hold a delivery.
 */
static void record_status(const struct pass_ctx *c, const struct pr_event *ev,
			  const struct pr_store_version *sv,
			  const struct pr_version *v,
			  const struct pr_report *report,
			  const struct sink_job *jobs, size_t nr_jobs)
{
	const struct pr_ident *who = &ev->series->submitter;
	struct pr_store_status status = { NULL, ev->series->url, NULL, report };
	struct pr_buf submitter = PR_BUF_INIT;
	size_t i;
	int err;

	if (v->cover && v->cover->subject)
		status.title = v->cover->subject;
	else if (v->nr)
		status.title = v->patches[0]->subject;
	if (who->email && *who->email &&
	    pr_buf_addf(&submitter, "%s%s<%s>", who->name ? who->name : "",
			who->name && *who->name ? " " : "", who->email) == 0)
		status.submitter = submitter.ptr;
	err = pr_store_status_set(c->st, sv->series_id, sv->number, &status);
	for (i = 0; !err && jobs && i < nr_jobs; i++) {
		if (!jobs[i].n || !pr_outgoing_rcpt_count(&jobs[i].rcpt))
			continue;
		err = pr_store_recipients_set(c->st, sv->series_id, sv->number,
					      jobs[i].sink_key.ptr,
					      &jobs[i].rcpt.to,
					      &jobs[i].rcpt.cc);
		/* refused before its delivery was opened */
		if (err == PR_ENOENT)
			err = 0;
	}
	if (err)
		pr_log_warn(c->route->name,
			    "status of '%s' v%d not recorded: %s",
			    ev->series->origin_key, sv->number,
			    pr_error_message());
	pr_buf_release(&submitter);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Handle one version on the route: record it, run the steps, render and
 * deliver it to each sink, give feedback.  Returns 0, 1 when mails are
 * left for a retry (the cursor must not move), or a negative PR_E*.
 */
static int deliver_version(const struct pass_ctx *c, const struct pr_event *ev,
			   struct pr_version *v)
{
	struct pr_store_version sv = { 0 };
	struct pr_engine_version ev2;
	struct pr_engine_stats ds;
	struct pr_report report = PR_REPORT_INIT;
	struct pr_buf mbox = PR_BUF_INIT, rdiff = PR_BUF_INIT;
	struct pr_buf summary = PR_BUF_INIT;
	struct sink_job *jobs = NULL;
	struct pr_bridge_trailed *trailed = NULL;
	size_t i, nr_jobs = c->route->to.nr, sent = 0, pending = 0;
	size_t rejected = 0;
	bool retry = false, trailed_done = false;
	int shown = 0;
	int64_t t0;
	char fp[41], text_fp[41];
	int err;

	if ((err = route_takes_version(c, ev->series, v)) <= 0)
		goto done;
	/* a pull request patchrelay opened for another series stays there */
	if ((err = pr_bridge_is_own(c->st, ev->series))) {
		if (err > 0) {
			pr_log_debug(c->route->name,
				     "'%s' is patchrelay's own: not carried",
				     ev->series->origin_key);
			err = 0;
		}
		goto done;
	}
	if ((err = pr_store_fingerprint(fp, v)) ||
	    (err = pr_store_text_fingerprint(text_fp, v)) ||
	    (err = pr_store_record_version(
		     &sv, c->st, ev->series->origin_connector,
		     ev->series->origin_key, fp, text_fp, v->nr, v->number)))
		goto done;
	c->stats->events++;
	/* the store numbers versions; subjects and links follow it */
	v->number = sv.number;
	/* from now until told, the feedback is owed */
	if (sv.is_new && c->route->feedback && !c->opts->dry_run &&
	    (err = feedback_note(c, sv.series_id, sv.number, "pending")))
		goto done;
	if (sv.is_new) {
		c->stats->new_versions++;
		/* kept for the range-diff of the next version */
		if ((err = version_mbox(&mbox, v)) ||
		    (err = pr_store_version_mbox_set(c->st, sv.series_id,
						     sv.number, mbox.ptr,
						     mbox.len)) ||
		    (err = record_patch_ids(c->st, sv.series_id, sv.number,
					    v)) ||
		    (err = pr_bridge_record_version(c->st, sv.series_id, v)))
			goto done;
	}
	if ((err = run_steps(c, ev->series, v, &report)))
		goto done;
	if (pr_report_verdict(&report) == PR_VERDICT_FAIL)
		goto refused;
	ev2.origin = ev->series->origin_connector;
	ev2.key = ev->series->origin_key;
	ev2.series_id = sv.series_id;
	ev2.number = sv.number;
	ev2.fingerprint = fp;
	if (sv.number > 1 && (err = range_diff(&rdiff, c, sv.series_id, v)))
		goto done;
	jobs = pr_calloc(nr_jobs, sizeof(*jobs));
	for (i = 0; i < nr_jobs; i++) {
		jobs[i].n = pr_graph_node(c->g, "sink", c->route->to.items[i]);
		pr_buf_init(&jobs[i].sink_key, 0);
		if (!jobs[i].n) {
			err = pr_error(PR_EINTERNAL, "route '%s': no sink '%s'",
				       c->route->name, c->route->to.items[i]);
			goto done;
		}
		/* a sink that takes the version whole renders no mail */
		if (jobs[i].n->connector &&
		    jobs[i].n->connector->deliver_version)
			continue;
		/* the review trailers gathered so far follow the series */
		if (!trailed_done && !ev->preview &&
		    (err = pr_bridge_trailed(&trailed, c->st, sv.series_id, v)))
			goto done;
		trailed_done = true;
		if ((err = prepare_sink(&jobs[i], c, ev, &ev2,
					trailed ? &trailed->v : v, rdiff.ptr,
					&report)))
			goto done;
	}
	/* nothing goes out unless every sink can take it */
	if (pr_report_verdict(&report) == PR_VERDICT_FAIL)
		goto refused;
	for (i = 0; i < nr_jobs; i++) {
		const struct sink_job *j = &jobs[i];
		bool whole = j->n->connector &&
			     j->n->connector->deliver_version;

		if (whole && (c->opts->dry_run || ev->preview)) {
			/* no mail to show; a preview is for the submitter */
			pr_log_info(c->route->name,
				    "%s: v%d of '%s' not pushed to '%s'",
				    c->opts->dry_run ? "dry run" : "preview",
				    sv.number, ev2.key, j->n->inst.name);
			continue;
		}
		if (c->opts->dry_run) {
			/* rendered exactly as sent; nothing recorded */
			if ((err = dry_run_write(
				     c, &ev2, j->n->inst.name,
				     (const char *const *)j->mails.mails,
				     j->mails.lens, j->mails.nr)))
				goto done;
			continue;
		}
		t0 = c->opts->delivered ? mono_ms() : 0;
		if (whole)
			err = push_version(&ds, c, &ev2, j, ev->series, v,
					   &report);
		else
			err = pr_engine_deliver_mails(
				&ds, c->st, &ev2, j->sink_key.ptr,
				(struct pr_instance *)&j->n->inst,
				j->n->connector,
				(const char *const *)j->mails.mails,
				j->mails.lens, j->mails.nr, &report, NULL);
		if (err)
			goto done;
		if (c->opts->delivered && ds.sent)
			c->opts->delivered(j->n->inst.name, ds.sent,
					   mono_ms() - t0, c->opts->payload);
		c->stats->sent += ds.sent;
		c->stats->rejected += ds.rejected;
		rejected += ds.rejected;
		c->stats->pending += ds.pending;
		sent += ds.sent;
		pending += ds.pending;
		if (ds.pending && ds.status == PR_DELIVER_RETRY)
			retry = true;
		if (!ds.rejected && (err = add_summary(&summary, j, sv.number)))
			goto done;
	}
	/*
	 * Told once: when the pass that sent the last mail (or saw a sink
	 * refuse one: a FAIL entry in the report) ends, or a later one while
	 * it is owed.
	 */
	if (!pending &&
	    (sent || rejected ||
	     (!c->opts->dry_run &&
	      (err = feedback_note(c, sv.series_id, sv.number, NULL)) > 0)))
		err = give_feedback(c, ev->series, sv.series_id, sv.number,
				    &report, summary.len ? summary.ptr : NULL);
	if (err < 0 ||
	    (shown = pending ? 0
			     : show_report(c, ev, sv.series_id, sv.number,
					   &report)) < 0) {
		err = err < 0 ? err : shown;
		goto done;
	}
	/*
	 * A sink that asked to retry, or feedback or a report owed, holds
	 * the source's cursor (1: the caller stores no cursor and stops
	 * this source's poll), so the next pass sees the event again and
	 * resumes at the first unsent mail.
	 */
	if (retry || shown)
		err = 1;
	goto done;
refused:
	/* Junk never reaches a sink: nothing is delivered. */
	log_refusal(c, ev->series, &report);
	c->stats->refused++;
	if (sv.is_new ||
	    (!c->opts->dry_run &&
	     (err = feedback_note(c, sv.series_id, sv.number, NULL)) > 0))
		err = give_feedback(c, ev->series, sv.series_id, sv.number,
				    &report, NULL);
	if (err >= 0 &&
	    (shown = show_report(c, ev, sv.series_id, sv.number, &report)))
		err = shown < 0 ? shown : 1;
done:
	if (err >= 0 && sv.series_id && !c->opts->dry_run)
		record_status(c, ev, &sv, v, &report, jobs, nr_jobs);
	for (i = 0; jobs && i < nr_jobs; i++)
		sink_job_release(&jobs[i]);
	free(jobs);
	pr_bridge_trailed_free(trailed);
	pr_buf_release(&mbox);
	pr_buf_release(&rdiff);
	pr_buf_release(&summary);
	pr_report_release(&report);
	return err;
}

static int on_event(const struct pr_event *ev, void *payload)
{
	const struct pass_ctx *c = payload;
	struct pr_version *v = ev->series ? pr_series_latest(ev->series) : NULL;
	struct pr_bridge b = bridge_of(c);
	int err = 0;

	if ((ev->kind == PR_EVENT_SERIES || ev->kind == PR_EVENT_VERSION) && v)
		err = deliver_version(c, ev, v);
	else if (ev->kind == PR_EVENT_STATE && ev->series && ev->state &&
		 !strcmp(ev->state, "landed"))
		err = on_landed(c, ev);
	else if (ev->kind == PR_EVENT_STATE && ev->series && ev->state)
		err = pr_bridge_state(&b, ev->series->origin_connector,
				      ev->series->origin_key, ev->state,
				      ev->body ? ev->body : ev->state);
	else if (ev->kind == PR_EVENT_COMMENT)
		err = pr_bridge_comment(&b, ev);
	/* the cursor moves only once the event is stored and handled */
	if (!err && ev->cursor && !c->opts->dry_run)
		err = pr_store_cursor_set(c->st, c->cursor_key, ev->cursor,
					  NULL);
	return err;
}

static void node_close(struct pr_graph_node *n)
{
	if (n->connector && n->connector->close)
		n->connector->close(&n->inst);
	else if (n->plugin && n->plugin->close)
		n->plugin->close(&n->inst);
}

static int node_open(struct pr_graph_node *n)
{
	if (n->connector && n->connector->open)
		return n->connector->open(&n->inst);
	if (n->plugin && n->plugin->open)
		return n->plugin->open(&n->inst);
	return 0;
}

/* The failure of n's open() as PR_ECONFIG naming the file and instance. */
static int open_fail(const struct pr_graph *g, const struct pr_graph_node *n)
{
	const struct pr_instance *in = &n->inst;
	struct pr_buf who = PR_BUF_INIT;
	int err;

	/* name the instance once: smtp's open() already does */
	if (pr_buf_addf(&who, "%s '%s'", in->kind, in->name) == 0 &&
	    !strncmp(pr_error_message(), who.ptr, who.len))
		err = pr_error_wrap(PR_ECONFIG, "%s", g->file);
	else
		err = pr_error_wrap(PR_ECONFIG, "%s: %s", g->file, who.ptr);
	pr_buf_release(&who);
	return err;
}

int pr_engine_open(struct pr_graph *g)
{
	size_t i;
	int err = 0;

	for (i = 0; i < g->nr_nodes; i++)
		if ((err = node_open(&g->nodes[i])) < 0)
			break;
	if (err < 0) {
		err = open_fail(g, &g->nodes[i]);
		/* the failed one too: what it allocated before failing */
		node_close(&g->nodes[i]);
		while (i--)
			node_close(&g->nodes[i]);
	}
	return err;
}

int pr_engine_check(struct pr_graph *g, struct pr_strlist *problems)
{
	size_t i, before = problems->nr;

	for (i = 0; i < g->nr_nodes; i++) {
		if (node_open(&g->nodes[i]) < 0) {
			open_fail(g, &g->nodes[i]);
			pr_strlist_add(problems, pr_error_message());
		}
		node_close(&g->nodes[i]);
	}
	if (problems->nr == before)
		return 0;
	/* as pr_graph_load() sums up */
	return pr_error(PR_ECONFIG, "%zu problem%s in config '%s'",
			problems->nr - before,
			problems->nr - before == 1 ? "" : "s", g->file);
}

void pr_engine_close(struct pr_graph *g)
{
	size_t i;

	if (!g)
		return;
	for (i = g->nr_nodes; i--;)
		node_close(&g->nodes[i]);
}

static bool name_in(const char *const *names, size_t nr, const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static bool source_listed(const struct pr_engine_opts *o, const char *name)
{
	return !o->sources || name_in(o->sources, o->nr_sources, name);
}

int64_t pr_engine_retry_at(const char *message)
{
	static const char phrase[] = "rate limited until ";
	const char *p = message ? strstr(message, phrase) : NULL;
	struct tm tm;
	char *end;
	long long t;

	if (!p)
		return 0;
	p += sizeof(phrase) - 1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(p, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (end)
		return (int64_t)timegm(&tm);
	if (*p < '0' || *p > '9')
		return 0;
	errno = 0;
	t = strtoll(p, &end, 10);
	return errno || t <= 0 ? 0 : (int64_t)t;
}

int pr_engine_state_dir(struct pr_buf *out, const char *state)
{
	const char *slash = strrchr(state, '/');

	/* "state.db" is in "."; "/state.db" in "/" */
	if (!slash)
		return pr_buf_adds(out, ".");
	return pr_buf_add(out, state,
			  slash == state ? 1 : (size_t)(slash - state));
}

int pr_engine_pass(struct pr_engine_pass_stats *out, const struct pr_graph *g,
		   struct pr_store *st, const struct pr_engine_opts *opts)
{
	static const struct pr_engine_opts defaults = { false, -1, NULL };
	size_t written = 0;
	struct pass_ctx c = { g,       NULL, st,
			      out,     NULL, opts ? opts : &defaults,
			      &written };
	struct pr_buf state_dir = PR_BUF_INIT;
	size_t i;
	int ret, serr;

	memset(out, 0, sizeof(*out));
	if ((ret = pr_engine_state_dir(&state_dir, pr_store_path(st))))
		return ret;
	c.state_dir = state_dir.ptr;
	for (i = 0; i < g->nr_nodes; i++)
		((struct pr_instance *)&g->nodes[i].inst)->store = st;
	for (i = 0; i < g->nr_routes; i++) {
		const struct pr_graph_route *r = &g->routes[i];
		const struct pr_graph_node *src =
			pr_graph_node(g, "source", r->from);
		struct pr_buf cursor = PR_BUF_INIT, key = PR_BUF_INIT;
		int err;

		c.route = r;
		/*
		 * A cursor per route, not per source: two routes from one
		 * source must each see every event.
		 */
		if ((err = pr_buf_addf(&key, "%s/%s", r->from, r->name))) {
			ret = err;
			break;
		}
		c.cursor_key = key.ptr;
		if (!src || !src->connector || !src->connector->poll) {
			pr_log_warn(src ? src->inst.prefix : r->from,
				    "cannot poll yet: skipped");
			pr_buf_release(&key);
			continue;
		}
		if (!source_listed(c.opts, r->from)) {
			pr_buf_release(&key);
			continue;
		}
		pr_log_debug(src->inst.prefix, "poll for route '%s'", r->name);
		err = pr_store_cursor_get(st, key.ptr, &cursor, NULL);
		if (err == 0 || err == PR_ENOENT) {
			struct pr_instance *inst =
				(struct pr_instance *)&src->inst;

			inst->state_dir = state_dir.ptr;
			inst->hooked = c.opts->hooked &&
				       name_in(c.opts->hooked,
					       c.opts->nr_hooked, r->from);
			err = src->connector->poll(inst,
						   err == 0 ? cursor.ptr : NULL,
						   on_event, &c);
			inst->state_dir = NULL;
			inst->hooked = false;
			/* the records of the poll's last effects durable */
			if (err >= 0 && (serr = pr_store_sync(st)))
				err = serr;
		}
		pr_buf_release(&cursor);
		pr_buf_release(&key);
		if (err < 0) {
			/* one broken source never stops the others */
			if (!c.opts->polled)
				pr_log_error(src->inst.prefix, "%s",
					     pr_error_message());
			out->failed_sources++;
			ret = err;
		}
		if (c.opts->polled)
			c.opts->polled(
				r->from, err,
				err < 0 ? pr_engine_retry_at(pr_error_message())
					: 0,
				c.opts->payload);
	}
	for (i = 0; i < g->nr_nodes; i++)
		((struct pr_instance *)&g->nodes[i].inst)->store = NULL;
	pr_buf_release(&state_dir);
	return ret;
}
