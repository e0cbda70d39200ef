#include "pr.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <unistd.h>

#include "delivery.h"
#include "engine.h"
#include "format.h"
#include "cfg.h"
#include "graph.h"

int pr_engine_delivery_key(struct pr_buf *out,
			   const struct pr_engine_version *v, const char *sink)
{
	struct pr_buf text = PR_BUF_INIT;
	char hex[41];
	git_oid oid;
	int err;

	/* NUL-separated so that no two inputs run together */
	if ((err = pr_buf_addf(&text, "%s%c%s%c%d%c%s%c%s", v->origin, 0,
			       v->key, 0, v->number, 0, v->fingerprint, 0,
			       sink)))
		goto done;
	git_libgit2_init();
	if (git_odb_hash(&oid, text.ptr, text.len, GIT_OBJECT_BLOB) < 0) {
		err = pr_error(PR_EINTERNAL, "delivery key of '%s': %s", v->key,
			       git_error_last()->message);
	} else {
		git_oid_tostr(hex, sizeof(hex), &oid);
		err = pr_buf_addf(out, "%.20s-v%d", hex, v->number);
	}
	git_libgit2_shutdown();
done:
	pr_buf_release(&text);
	return err;
}

int pr_engine_deliver(struct pr_engine_stats *stats, struct pr_store *st,
		      const struct pr_engine_version *v,
		      struct pr_instance *inst,
		      const struct pr_connector_type *type,
		      const char *const *mails, const size_t *lens, size_t nr)
{
	struct pr_buf key = PR_BUF_INIT;
	struct pr_deliver_result res = { PR_DELIVER_OK, 0, NULL };
	int64_t id = 0;
	size_t i;
	int err, pending;

	memset(stats, 0, sizeof(*stats));
	stats->status = PR_DELIVER_OK;
	if (!type->deliver) {
		err = pr_error(PR_EUNSUPPORTED,
			       "sink '%s': type '%s' cannot deliver",
			       inst->name, type->name);
		goto done;
	}
	if ((err = pr_engine_delivery_key(&key, v, inst->name)) ||
	    (err = pr_store_delivery_open(&id, st, v->series_id, v->number,
					  inst->name, nr)))
		goto done;
	for (i = 0; i < nr; i++) {
		struct pr_delivery d = { key.ptr, i, nr, mails[i], lens[i] };

		err = pr_store_delivery_status(st, id, i);
		if (err < 0)
			goto done;
		if (err == PR_STORE_SENT) {
			err = 0;
			stats->skipped++;
			continue;
		}
		if ((err = pr_store_delivery_attempt(st, id, i, NULL)))
			goto done;
		free(res.reason);
		res.reason = NULL;
		res.status = PR_DELIVER_RETRY;
		err = type->deliver(inst, &d, &res);
		stats->status = res.status;
		if (err) {
			struct pr_buf msg = PR_BUF_INIT;

			/* keep the sink's message across the store call */
			pr_buf_adds(&msg, pr_error_message());
			pr_store_delivery_note(st, id, i, msg.ptr);
			pr_error(err, "%s", msg.ptr);
			pr_buf_release(&msg);
			stats->status = PR_DELIVER_RETRY;
			goto done;
		}
		if (res.status != PR_DELIVER_OK) {
			/* the attempt was counted above; note why */
			err = pr_store_delivery_note(
				st, id, i, res.reason ? res.reason : "retry");
			goto done;
		}
		if ((err = pr_store_delivery_mark_sent(st, id, i)))
			goto done;
		stats->sent++;
	}
done:
	if (err >= 0 && id) {
		pending = pr_store_delivery_pending(st, id);
		if (pending < 0)
			err = pending;
		else
			stats->pending = (size_t)pending;
	}
	free(res.reason);
	pr_buf_release(&key);
	return err;
}

struct pass_ctx {
	const struct pr_graph *g;
	const struct pr_graph_route *route;
	struct pr_store *st;
	struct pr_engine_pass_stats *stats;
	const char *cursor_key;
	const struct pr_engine_opts *opts; /* never NULL */
	size_t *dry_run_written; /* mails written to opts->dry_run_fd */
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
		err = n->plugin->run((struct pr_instance *)&n->inst, s, v,
				     report);
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
 * Whether the route takes v by its include-subsystem / exclude-subsystem:
 * the first step whose plugin has sections() names the MAINTAINERS
 * sections v touches.  1: take it; 0: skip it silently (a route choosing
 * its series is not a refusal); negative: no step can tell.
 */
static int route_takes_version(const struct pass_ctx *c,
			       const struct pr_series *s,
			       const struct pr_version *v)
{
	const struct pr_graph_route *r = c->route;
	const struct pr_graph_node *n = NULL;
	struct pr_strlist touched = { 0 };
	size_t i, j;
	bool in = !r->include_subsystem.nr;
	int ret;

	if (!r->include_subsystem.nr && !r->exclude_subsystem.nr)
		return 1;
	for (i = 0; i < r->steps.nr && !n; i++) {
		n = pr_graph_node(c->g, "check", r->steps.items[i]);
		if (n && (!n->plugin || !n->plugin->sections))
			n = NULL;
	}
	if (!n)
		return pr_error(PR_ECONFIG,
				"route '%s': include-subsystem and "
				"exclude-subsystem need a step of type "
				"maintainers",
				r->name);
	ret = n->plugin->sections((struct pr_instance *)&n->inst, v, &touched);
	if (ret < 0)
		goto done;
	ret = 1;
	for (i = 0; i < touched.nr && ret; i++) {
		for (j = 0; j < r->exclude_subsystem.nr; j++)
			if (!strcasecmp(touched.items[i],
					r->exclude_subsystem.items[j]))
				ret = 0;
		for (j = 0; j < r->include_subsystem.nr; j++)
			if (!strcasecmp(touched.items[i],
					r->include_subsystem.items[j]))
				in = true;
	}
	if (!in)
		ret = 0;
	if (!ret)
		pr_log_debug(r->name, "series '%s' v%d: not for this route",
			     s->origin_key, v->number);
done:
	pr_strlist_release(&touched);
	return ret;
}

static int deliver_version(const struct pass_ctx *c, const struct pr_event *ev,
			   struct pr_version *v)
{
	struct pr_store_version sv;
	struct pr_engine_version ev2;
	struct pr_engine_stats ds;
	struct pr_report report = PR_REPORT_INIT;
	char **mails = NULL, fp[41];
	size_t *lens = NULL, i;
	int err;

	if ((err = route_takes_version(c, ev->series, v)) <= 0)
		goto done;
	if ((err = pr_store_fingerprint(fp, v)) ||
	    (err = pr_store_record_version(&sv, c->st,
					   ev->series->origin_connector,
					   ev->series->origin_key, fp, v->nr)))
		goto done;
	c->stats->events++;
	if (sv.is_new)
		c->stats->new_versions++;
	if ((err = run_steps(c, ev->series, v, &report)))
		goto done;
	if (pr_report_verdict(&report) == PR_VERDICT_FAIL) {
		/* Junk never reaches a sink: nothing is delivered. */
		log_refusal(c, ev->series, &report);
		c->stats->refused++;
		goto done;
	}
	if ((err = pr_engine_render(&mails, &lens, v)))
		goto done;
	ev2.origin = ev->series->origin_connector;
	ev2.key = ev->series->origin_key;
	ev2.series_id = sv.series_id;
	ev2.number = sv.number;
	ev2.fingerprint = fp;
	for (i = 0; i < c->route->to.nr; i++) {
		const struct pr_graph_node *n =
			pr_graph_node(c->g, "sink", c->route->to.items[i]);

		if (!n) {
			err = pr_error(PR_EINTERNAL, "route '%s': no sink '%s'",
				       c->route->name, c->route->to.items[i]);
			goto done;
		}
		if (c->opts->dry_run) {
			if ((err = dry_run_write(c, &ev2, n->inst.name,
						 (const char *const *)mails,
						 lens, v->nr)))
				goto done;
			continue;
		}
		if ((err = pr_engine_deliver(
			     &ds, c->st, &ev2, (struct pr_instance *)&n->inst,
			     n->connector, (const char *const *)mails, lens,
			     v->nr)))
			goto done;
		c->stats->sent += ds.sent;
		c->stats->pending += ds.pending;
	}
done:
	pr_engine_render_free(mails, lens, v->nr);
	pr_report_release(&report);
	return err;
}

static int on_event(const struct pr_event *ev, void *payload)
{
	const struct pass_ctx *c = payload;
	struct pr_version *v = ev->series ? pr_series_latest(ev->series) : NULL;
	int err = 0;

	if ((ev->kind == PR_EVENT_SERIES || ev->kind == PR_EVENT_VERSION) && v)
		err = deliver_version(c, ev, v);
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

int pr_engine_open(struct pr_graph *g)
{
	size_t i;
	int err = 0;

	for (i = 0; i < g->nr_nodes; i++) {
		struct pr_graph_node *n = &g->nodes[i];

		if (n->connector && n->connector->open)
			err = n->connector->open(&n->inst);
		else if (n->plugin && n->plugin->open)
			err = n->plugin->open(&n->inst);
		if (err < 0)
			break;
	}
	if (err < 0) {
		const struct pr_instance *in = &g->nodes[i].inst;
		struct pr_buf who = PR_BUF_INIT;

		/* name the instance once: smtp's open() already does */
		if (pr_buf_addf(&who, "%s '%s'", in->kind, in->name) == 0 &&
		    !strncmp(pr_error_message(), who.ptr, who.len))
			err = pr_error_wrap(PR_ECONFIG, "%s", g->file);
		else
			err = pr_error_wrap(PR_ECONFIG, "%s: %s", g->file,
					    who.ptr);
		pr_buf_release(&who);
		while (i--)
			node_close(&g->nodes[i]);
	}
	return err;
}

void pr_engine_close(struct pr_graph *g)
{
	size_t i;

	if (!g)
		return;
	for (i = g->nr_nodes; i--;)
		node_close(&g->nodes[i]);
}

int pr_engine_pass(struct pr_engine_pass_stats *out, const struct pr_graph *g,
		   struct pr_store *st, const struct pr_engine_opts *opts)
{
	static const struct pr_engine_opts defaults = { false, -1, NULL };
	size_t written = 0;
	struct pass_ctx c = { g,       NULL, st,
			      out,     NULL, opts ? opts : &defaults,
			      &written };
	size_t i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
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
		err = pr_store_cursor_get(st, key.ptr, &cursor, NULL);
		if (err == 0 || err == PR_ENOENT)
			err = src->connector->poll(
				(struct pr_instance *)&src->inst,
				err == 0 ? cursor.ptr : NULL, on_event, &c);
		pr_buf_release(&cursor);
		pr_buf_release(&key);
		if (err < 0) {
			/* one broken source never stops the others */
			pr_log_error(src->inst.prefix, "%s",
				     pr_error_message());
			out->failed_sources++;
			ret = err;
		}
	}
	return ret;
}
