#include "base/pr.h"

#include <time.h>

#include "base/sha1.h"
#include "engine/bridge.h"
#include "engine/delivery.h"
#include "engine/engine.h"
#include "engine/graph.h"
#include "engine/idmap.h"
#include "engine/registry.h"
#include "engine/store.h"
#include "mail/am.h"
#include "mail/mailinfo.h"
#include "mail/outgoing.h"
#include "mail/quote.h"
#include "model/subject.h"
#include "model/trailer.h"

/*
 * The bridge (bridge.h): replies and states crossing between the two
 * sides of a series, over the identity map (idmap.h).
 */

/* Lines of a patch quoted before the line a comment is on. */
#define QUOTE_CONTEXT 3

/* ---- recording ---- */

/* refs[0..nr) and irt (when not among them), space-separated. */
static int add_refs(struct pr_buf *out, char *const *refs, size_t nr,
		    const char *irt)
{
	bool seen = false;
	size_t i;
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		if (!refs[i] || !*refs[i])
			continue;
		seen = seen || (irt && !strcmp(refs[i], irt));
		err = pr_buf_addf(out, "%s%s", out->len ? " " : "", refs[i]);
	}
	if (!err && irt && *irt && !seen)
		err = pr_buf_addf(out, "%s%s", out->len ? " " : "", irt);
	return err;
}

/* A mail seen: an id of the series, and what a reply to it needs. */
static int record_mail(struct pr_store *st, int64_t series_id, int version,
		       int idx, const char *mid, const char *subject,
		       char *const *refs, size_t nr, const char *irt)
{
	struct pr_buf r = PR_BUF_INIT;
	int err;

	err = pr_store_identity_add(st, series_id, "message-id", mid);
	/* a mail two series claim stays the first one's */
	if (err == PR_EEXIST) {
		pr_log_debug("bridge", "%s", pr_error_message());
		pr_error_clear();
		err = 0;
	}
	if (!err && !(err = add_refs(&r, refs, nr, irt)))
		err = pr_idmap_mail_add(st, mid, series_id, version, idx,
					subject, r.ptr);
	pr_buf_release(&r);
	return err;
}

/* The cover letter's Subject as format-patch wrote it. */
static int cover_subject(struct pr_buf *out, const struct pr_version *v)
{
	const struct pr_subject_prefix *p = v->nr ? &v->patches[0]->prefix
						  : NULL;
	int err;

	err = pr_buf_addf(out, "[%sPATCH", p && p->rfc ? "RFC " : "");
	if (!err && p && p->list)
		err = pr_buf_addf(out, " %s", p->list);
	if (!err && v->number > 1)
		err = pr_buf_addf(out, " v%d", v->number);
	if (!err)
		err = pr_buf_addf(out, " 0/%zu] %s", v->nr,
				  v->cover->subject ? v->cover->subject : "");
	return err;
}

int pr_bridge_record_version(struct pr_store *st, int64_t series_id,
			     const struct pr_version *v)
{
	struct pr_buf subject = PR_BUF_INIT;
	size_t i;
	int err = 0;

	if (v->cover && v->cover->message_id && *v->cover->message_id &&
	    !(err = cover_subject(&subject, v)))
		err = record_mail(st, series_id, v->number, 0,
				  v->cover->message_id, subject.ptr, NULL, 0,
				  NULL);
	for (i = 0; i < v->nr && !err; i++) {
		const struct pr_patch *p = v->patches[i];

		if (p->message_id && *p->message_id)
			err = record_mail(st, series_id, v->number, (int)i + 1,
					  p->message_id,
					  p->subject_raw ? p->subject_raw
							 : p->subject,
					  p->references, p->nr_references,
					  p->in_reply_to);
	}
	pr_buf_release(&subject);
	return err;
}

int pr_bridge_record_sent(struct pr_store *st, int64_t series_id, int number,
			  const char *mail, size_t len)
{
	struct pr_mailinfo mi;
	struct pr_buf refs = PR_BUF_INIT;
	int err;

	pr_mailinfo_init(&mi);
	if ((err = pr_mailinfo_parse(&mi, mail, len)) || !*mi.message_id ||
	    (err = add_refs(&refs, mi.references, mi.nr_references,
			    mi.in_reply_to)))
		goto done;
	/* [PATCH 0/3] is the cover, [PATCH] the one patch */
	err = pr_idmap_mail_add(st, mi.message_id, series_id, number,
				mi.prefix.total ? mi.prefix.index : 1,
				mi.subject_raw, refs.ptr);
done:
	pr_mailinfo_release(&mi);
	pr_buf_release(&refs);
	return err;
}

/*
 * Whether `value` is an id patchrelay gave a series other than (origin,
 * key): its pull request, its branch, a mail it sent of it.
 */
static int names_other(struct pr_store *st, const char *value,
		       const char *origin, const char *key)
{
	struct pr_buf o = PR_BUF_INIT, k = PR_BUF_INIT;
	int64_t *ids = NULL;
	size_t nr = 0, i;
	int err, found = 0;

	if (!value || !*value)
		return 0;
	err = pr_idmap_find_written(&ids, &nr, st, value);
	for (i = 0; i < nr && !err && !found; i++) {
		pr_buf_reset(&o);
		pr_buf_reset(&k);
		if (!(err = pr_idmap_series(&o, &k, st, ids[i])))
			found = strcmp(o.ptr, origin) || strcmp(k.ptr, key);
	}
	free(ids);
	pr_buf_release(&o);
	pr_buf_release(&k);
	return err ? err : found;
}

int pr_bridge_is_own(struct pr_store *st, const struct pr_series *s)
{
	const struct pr_version *v = pr_series_latest(s);
	const char *first = !v ? NULL
			    : v->cover && v->cover->message_id
				    ? v->cover->message_id
			    : v->nr ? v->patches[0]->message_id
				    : NULL;
	int r;

	if ((r = names_other(st, s->origin_key, s->origin_connector,
			     s->origin_key)))
		return r;
	if ((r = names_other(st, s->url, s->origin_connector, s->origin_key)))
		return r;
	return names_other(st, first, s->origin_connector, s->origin_key);
}

/* ---- comments ---- */

/* The first series value names, in *id; 0 when none. */
static int first_of(int64_t *id, struct pr_store *st, const char *value)
{
	int64_t *ids = NULL;
	size_t nr = 0;
	int err;

	if (*id || !value || !*value)
		return 0;
	if (!(err = pr_idmap_find(&ids, &nr, st, value)) && nr)
		*id = ids[0];
	free(ids);
	return err;
}

/*
 * The stored series a comment is about: its own (source, key), else the
 * series its key, its URL or the mail it answers names; 0 when none.
 */
static int resolve(int64_t *id, struct pr_store *st, const struct pr_event *ev)
{
	const struct pr_series *s = ev->series;
	const struct pr_version *v = pr_series_latest(s);
	size_t i;
	int err;

	*id = 0;
	err = pr_store_series_find(id, st, s->origin_connector, s->origin_key);
	if (err != PR_ENOENT)
		return err;
	*id = 0;
	if ((err = first_of(id, st, s->origin_key)) ||
	    (err = first_of(id, st, s->url)))
		return err;
	if (v && v->cover && (err = first_of(id, st, v->cover->message_id)))
		return err;
	for (i = 0; v && i < v->nr && !err; i++)
		err = first_of(id, st, v->patches[i]->message_id);
	return err;
}

/* Where a comment lands: a version's mail, and the lines it quotes. */
struct target {
	int version;
	int idx; /* 0: the cover letter, else the patch's number */
	struct pr_idmap_mail mail;
	struct pr_buf quote;
	struct pr_version *v; /* that version as stored; NULL: not kept */
};

static void target_release(struct target *t)
{
	pr_idmap_mail_release(&t->mail);
	pr_buf_release(&t->quote);
	pr_version_free(t->v);
}

/* The Message-ID of the mail a mail comment answers (mailsrc's stubs). */
static const char *answered_id(const struct pr_event *ev)
{
	const struct pr_version *v = pr_series_latest(ev->series);

	if (!v)
		return NULL;
	if (v->cover && v->cover->message_id)
		return v->cover->message_id;
	return v->nr ? v->patches[0]->message_id : NULL;
}

/* Version t->version as the store kept it, in t->v (none: NULL, 0). */
static int load_version(struct target *t, struct pr_store *st,
			int64_t series_id)
{
	int err = pr_engine_stored_version(&t->v, st, series_id, t->version);

	if (err == PR_ENOENT) {
		pr_error_clear();
		err = 0;
	}
	return err;
}

/*
 * A comment on a commit (a Gerrit review names the patch set it is on):
 * the newest stored version holding that commit, and its patch.  0 with
 * t->v NULL when none does.
 */
static int find_commit(struct target *t, struct pr_store *st, int64_t series_id,
		       const char *sha)
{
	int n = pr_store_version_latest(st, series_id), err = 0;
	size_t i;

	for (; n >= 1 && !t->v && !err; n--) {
		t->version = n;
		if ((err = load_version(t, st, series_id)) || !t->v)
			continue;
		for (i = 0; i < t->v->nr; i++)
			if (!strcmp(t->v->patches[i]->commit_id, sha))
				break;
		if (i < t->v->nr) {
			t->idx = (int)i + 1;
			return 0;
		}
		pr_version_free(t->v);
		t->v = NULL;
	}
	return n < 0 ? n : err;
}

/* A line comment's patch in t->v: its index, the lines quoted. */
static int find_line(struct target *t, const struct pr_comment_ref *ref)
{
	size_t i;
	int err = 0;

	for (i = 0; t->v && !err && i < t->v->nr; i++) {
		const char *diff = t->v->patches[i]->diff;

		if (!pr_quote_touches(diff, ref->path))
			continue;
		t->idx = (int)i + 1;
		pr_buf_reset(&t->quote);
		err = pr_quote_diff_line(&t->quote, diff, ref->path, ref->line,
					 QUOTE_CONTEXT);
		if (err == PR_ENOENT) {
			/* the file but not the line: the last patch wins */
			err = 0;
			continue;
		}
		break;
	}
	return err;
}

/*
 * A comment on a commit no stored version holds (a sink made it: the
 * gerrit sink's commits of a list series): the patch whose id at that
 * sink (the stub's Change-Id trailer) a per-version list of the identity
 * map holds (pr_idmap_listed).  0 with t->v NULL when none does.
 */
static int find_listed(struct target *t, struct pr_store *st, int64_t series_id,
		       const struct pr_patch *stub)
{
	size_t i;
	int err;

	for (i = 0; i < stub->trailers.nr; i++) {
		if (strcasecmp(stub->trailers.items[i].key, "Change-Id"))
			continue;
		err = pr_idmap_listed(&t->version, &t->idx, st, series_id,
				      stub->trailers.items[i].value);
		if (err == PR_ENOENT)
			continue;
		if (err || (err = load_version(t, st, series_id)))
			return err;
		if (t->v && (size_t)t->idx <= t->v->nr)
			return 0;
		pr_version_free(t->v);
		t->v = NULL;
	}
	return 0;
}

/* The lines a comment on t's patch quotes (none: the line is not in it). */
static int quote_line(struct target *t, const struct pr_comment_ref *ref)
{
	int err;

	if (t->idx < 1 || (size_t)t->idx > t->v->nr)
		return 0;
	err = pr_quote_diff_line(&t->quote, t->v->patches[t->idx - 1]->diff,
				 ref->path, ref->line, QUOTE_CONTEXT);
	return err == PR_ENOENT ? 0 : err;
}

/*
 * The mail of the series a comment is about: the one a mail comment
 * answers; for a comment on a commit, that commit's patch; for another
 * comment from a forge, in the newest version mailed, the patch its line
 * is in, else the cover letter, else the first patch.  PR_ENOENT (no
 * message) when the series has no such mail.
 */
static int find_target(struct target *t, struct pr_store *st, int64_t series_id,
		       const struct pr_event *ev)
{
	const struct pr_version *stub = pr_series_latest(ev->series);
	const char *mid = !ev->mirror ? answered_id(ev) : NULL;
	int err;

	if (mid && pr_idmap_mail_find(&t->mail, st, mid) == 0) {
		t->version = t->mail.version;
		t->idx = t->mail.idx;
		return 0;
	}
	if (ev->mirror && stub && stub->nr && stub->patches[0]->commit_id[0]) {
		if ((err = find_commit(t, st, series_id,
				       stub->patches[0]->commit_id)) ||
		    (!t->v &&
		     (err = find_listed(t, st, series_id, stub->patches[0]))))
			return err;
		if (!t->v)
			return PR_ENOENT;
		if (ev->ref.path && ev->ref.line > 0 &&
		    (err = quote_line(t, &ev->ref)))
			return err;
	} else {
		if ((err = pr_idmap_mail_version(&t->version, st, series_id)) ||
		    (err = load_version(t, st, series_id)))
			return err;
		if (ev->ref.path && ev->ref.line > 0 &&
		    (err = find_line(t, &ev->ref)))
			return err;
	}
	if (!t->quote.len && ev->ref.quote &&
	    (err = pr_quote_text(&t->quote, ev->ref.quote)))
		return err;
	err = pr_idmap_mail_get(&t->mail, st, series_id, t->version, t->idx);
	if (err == PR_ENOENT && t->idx == 0) {
		t->idx = 1;
		err = pr_idmap_mail_get(&t->mail, st, series_id, t->version, 1);
	}
	return err;
}

/* The trailers a comment gives, kept for the next versions. */
static int keep_trailers(struct pr_store *st, int64_t series_id,
			 const struct target *t, const struct pr_event *ev)
{
	struct pr_idmap_trailer tr = { t->version, t->idx - 1, NULL, NULL,
				       NULL };
	char pid[41] = "";
	size_t i;
	int err = 0;

	if (t->idx > 0 && (err = pr_idmap_patch_id(pid, st, series_id,
						   t->version, t->idx - 1)))
		return err;
	tr.patch_id = pid;
	for (i = 0; i < ev->trailers.nr && !err; i++) {
		tr.key = ev->trailers.items[i].key;
		tr.value = ev->trailers.items[i].value;
		err = pr_idmap_trailer_add(st, series_id, &tr, ev->id);
	}
	return err;
}

/* A stored series as a pr_series (source, key) for a sink. */
static int stored_series(struct pr_series **out, struct pr_store *st,
			 int64_t series_id)
{
	struct pr_buf o = PR_BUF_INIT, k = PR_BUF_INIT;
	int err;

	*out = NULL;
	if (!(err = pr_idmap_series(&o, &k, st, series_id)))
		*out = pr_series_new(o.ptr, k.ptr);
	pr_buf_release(&o);
	pr_buf_release(&k);
	return err;
}

/* A list reply to a sink on a forge: one comment there. */
static int to_forge(const struct pr_bridge *b, const struct pr_graph_node *n,
		    int64_t series_id, const struct target *t,
		    const struct pr_event *ev)
{
	struct pr_series *s = NULL;
	struct pr_relay r = { 0 };
	char *posted = NULL;
	int err;

	if ((err = pr_idmap_relayed(b->st, ev->id, n->inst.name)))
		return err < 0 ? err : 0;
	if ((err = stored_series(&s, b->st, series_id)))
		return err;
	r.item = ev->id;
	r.series = s;
	r.store = b->st;
	r.series_id = series_id;
	r.comment = ev;
	r.answered = t->mail.subject;
	r.version = t->version;
	r.idx = t->idx;
	/* what the store holds is durable before anything goes out */
	if (!(err = pr_store_sync(b->st)))
		err = n->connector->relay_comment(
			(struct pr_instance *)&n->inst, &r, &posted);
	if (!err) {
		pr_log_info(n->inst.prefix, "relayed %s on '%s' as %s", ev->id,
			    s->origin_key, posted ? posted : "-");
		err = pr_idmap_relay_add(b->st, ev->id, n->inst.name, series_id,
					 posted);
	}
	free(posted);
	pr_series_free(s);
	return err;
}

/*
 * A comment the forge refused for good (its pull request gone, a body it
 * will not take) is dropped with a warning: read again it would stop its
 * list source's every poll.  A rate limit, the network, the token or the
 * store is tried again (the source's cursor stays).
 */
static int forge_or_drop(int err, const struct pr_graph_node *n,
			 const struct pr_event *ev)
{
	if (err >= 0 || err == PR_EAGAIN || err == PR_ENET ||
	    err == PR_ETIMEOUT || err == PR_EAUTH || err == PR_ESTATE)
		return err;
	pr_log_warn(n->inst.prefix, "comment %s not relayed: %s", ev->id,
		    pr_error_message());
	pr_error_clear();
	return 0;
}

/* The reply's text: who wrote where, the lines quoted, the comment. */
static int reply_body(struct pr_buf *out, const char *forge,
		      const struct target *t, const struct pr_event *ev)
{
	const char *name = ev->author.name && *ev->author.name ? ev->author.name
							       : NULL;
	const char *email =
		ev->author.email && *ev->author.email ? ev->author.email : NULL;
	int err;

	if (name && email)
		err = pr_buf_addf(out, "%s <%s>", name, email);
	else
		err = pr_buf_adds(out, name ? name : email ? email : "someone");
	if (!err)
		err = pr_buf_addf(out, " wrote on %s", forge);
	if (!err && ev->ref.path && ev->ref.line > 0)
		err = pr_buf_addf(out, ", on %s line %lld", ev->ref.path,
				  (long long)ev->ref.line);
	if (!err)
		err = pr_buf_addf(out, ":\n%s%s\n",
				  ev->ref.url ? ev->ref.url : "",
				  ev->ref.url ? "\n" : "");
	if (!err && t->quote.len)
		err = pr_buf_addf(out, "%s\n", t->quote.ptr);
	if (!err)
		err = pr_buf_adds(out, ev->body ? ev->body : "");
	pr_buf_rtrim(out);
	return err ? err : pr_buf_addch(out, '\n');
}

/*
 * The reply's recipients: those the version had (the route's routing
 * steps, the maintainers plugin, run again on it; checks are not), then
 * the sink's own to and cc.
 */
static int reply_rcpt(struct pr_outgoing_rcpt *out, const struct pr_bridge *b,
		      const struct pr_graph_node *n, const struct target *t)
{
	struct pr_series *s = pr_series_new("", "");
	struct pr_report report = PR_REPORT_INIT;
	struct pr_strlist to = { 0 }, cc = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; t->v && i < b->route->steps.nr && !err; i++) {
		const struct pr_graph_node *st =
			pr_graph_node(b->g, "check", b->route->steps.items[i]);

		if (st && st->plugin && st->plugin->kind == PR_PLUGIN_ROUTE &&
		    st->plugin->run)
			err = st->plugin->run((struct pr_instance *)&st->inst,
					      s, t->v, &report);
	}
	if (!err)
		err = pr_outgoing_recipients(out, s,
					     pr_graph_node_list(&to, n, "to"),
					     pr_graph_node_list(&cc, n, "cc"),
					     false);
	pr_strlist_release(&to);
	pr_strlist_release(&cc);
	pr_report_release(&report);
	pr_series_free(s);
	return err;
}

/* The version a reply is filed under, as a delivery knows versions. */
static int reply_version(struct pr_engine_version *v, struct pr_buf *origin,
			 struct pr_buf *key, struct pr_buf *fp,
			 struct pr_store *st, int64_t series_id, int number)
{
	int err;

	if ((err = pr_idmap_series(origin, key, st, series_id)) ||
	    (err = pr_store_version_fingerprint(fp, st, series_id, number)))
		return err;
	v->origin = origin->ptr;
	v->key = key->ptr;
	v->series_id = series_id;
	v->number = number;
	v->fingerprint = fp->ptr;
	return 0;
}

/*
 * The sink's From with the comment's author: "NAME <relay>"; PR_ENOENT
 * (no message) when the sink has no `from`.
 */
static int reply_from(struct pr_ident *out, const struct pr_graph_node *n,
		      const struct pr_event *ev)
{
	const char *from = pr_graph_node_string(n, "from");
	const char *who = ev->author.name && *ev->author.name
				  ? ev->author.name
				  : ev->author.email;
	struct pr_ident sink = { NULL, NULL };
	int err;

	/* a sink that names no sender (a maildir) writes no reply */
	if (!from)
		return PR_ENOENT;
	if (!(err = pr_outgoing_parse_address(&sink, from)))
		pr_ident_set(out, who && *who ? who : sink.name, sink.email);
	pr_ident_release(&sink);
	return err;
}

int pr_bridge_send_reply(struct pr_engine_stats *stats, struct pr_store *st,
			 const struct pr_engine_version *v,
			 const char *sink_key, const struct pr_graph_node *n,
			 const struct pr_ident *from,
			 const struct pr_outgoing_rcpt *rcpt,
			 const struct pr_idmap_mail *to, const char *body,
			 struct pr_buf *mid)
{
	struct pr_buf dkey = PR_BUF_INIT, mail = PR_BUF_INIT;
	struct pr_outgoing_reply r = { 0 };
	const char *text;
	size_t len;
	int64_t when;
	int err;

	if ((err = pr_engine_delivery_key(&dkey, v, sink_key)) ||
	    (err = pr_store_delivery_base_time(&when, st, v->series_id,
					       v->number, sink_key,
					       (int64_t)time(NULL))) ||
	    (err = pr_outgoing_message_id(mid, dkey.ptr, 0,
					  pr_outgoing_domain(from, NULL))))
		goto done;
	r.from = from;
	r.rcpt = rcpt;
	r.subject = to->subject;
	r.in_reply_to = to->message_id;
	r.refs = to->refs;
	r.message_id = mid->ptr;
	r.time = when;
	r.body = body;
	if ((err = pr_outgoing_reply(&mail, &r)))
		goto done;
	text = mail.ptr;
	len = mail.len;
	err = pr_engine_deliver_as(stats, st, v, sink_key,
				   (struct pr_instance *)&n->inst, n->connector,
				   &text, &len, 1);
done:
	pr_buf_release(&dkey);
	pr_buf_release(&mail);
	return err;
}

/*
 * A forge comment to a mail sink: one reply under t's mail, delivered as
 * the sink delivers (its own key, so it goes once).  1 when the sink
 * asked to retry.
 */
static int to_list(const struct pr_bridge *b, const struct pr_graph_node *n,
		   int64_t series_id, const struct target *t,
		   const struct pr_event *ev, const char *forge)
{
	struct pr_buf origin = PR_BUF_INIT, key = PR_BUF_INIT;
	struct pr_buf fp = PR_BUF_INIT, sink_key = PR_BUF_INIT;
	struct pr_buf mid = PR_BUF_INIT, body = PR_BUF_INIT;
	struct pr_outgoing_rcpt rc = { { 0 }, { 0 } };
	struct pr_engine_version v;
	struct pr_engine_stats stats;
	struct pr_ident from = { NULL, NULL };
	struct pr_sha1 h;
	char hex[PR_SHA1_HEXSZ + 1];
	int err;

	pr_sha1_init(&h);
	pr_sha1_update(&h, ev->id, strlen(ev->id));
	pr_sha1_final_hex(hex, &h);
	if ((err = pr_buf_addf(&sink_key, "%s+reply-%.12s", n->inst.name,
			       hex)) ||
	    (err = reply_version(&v, &origin, &key, &fp, b->st, series_id,
				 t->version)) ||
	    (err = reply_from(&from, n, ev)) ||
	    (err = reply_rcpt(&rc, b, n, t)) ||
	    (err = reply_body(&body, forge, t, ev)) ||
	    (err = pr_bridge_send_reply(&stats, b->st, &v, sink_key.ptr, n,
					&from, &rc, &t->mail, body.ptr, &mid)))
		goto done;
	if (stats.sent) {
		pr_log_info(n->inst.prefix, "relayed %s as <%s>", ev->id,
			    mid.ptr);
		err = pr_idmap_relay_add(b->st, ev->id, n->inst.name, series_id,
					 mid.ptr);
	}
	if (!err && stats.pending && stats.status == PR_DELIVER_RETRY)
		err = 1;
done:
	if (err == PR_ENOENT) {
		pr_log_debug(n->inst.prefix, "no 'from': %s not relayed",
			     ev->id);
		err = 0;
	}
	pr_ident_release(&from);
	pr_outgoing_rcpt_release(&rc);
	pr_buf_release(&origin);
	pr_buf_release(&key);
	pr_buf_release(&fp);
	pr_buf_release(&sink_key);
	pr_buf_release(&mid);
	pr_buf_release(&body);
	return err;
}

int pr_bridge_comment(const struct pr_bridge *b, const struct pr_event *ev)
{
	const struct pr_graph_node *src =
		pr_graph_node(b->g, "source", b->route->from);
	const char *forge = src && src->type ? src->type : "the forge";
	struct target t;
	int64_t series_id = 0;
	size_t i;
	int err, retry = 0;

	memset(&t, 0, sizeof(t));
	if (!ev->id || !ev->series)
		return 0;
	if ((err = pr_idmap_is_ours(b->st, ev->id)) ||
	    (err = resolve(&series_id, b->st, ev)))
		goto done;
	if (!series_id) {
		pr_log_debug(b->route->name, "comment %s: no series known",
			     ev->id);
		goto done;
	}
	err = find_target(&t, b->st, series_id, ev);
	if (err == PR_ENOENT) {
		pr_log_debug(b->route->name, "comment %s: no mail to answer",
			     ev->id);
		err = 0;
		goto done;
	}
	if (err)
		goto done;
	if (b->dry_run) {
		pr_log_info(b->route->name, "dry run: comment %s not relayed",
			    ev->id);
		goto done;
	}
	if ((err = keep_trailers(b->st, series_id, &t, ev)))
		goto done;
	for (i = 0; i < b->route->to.nr && !err; i++) {
		const struct pr_graph_node *n =
			pr_graph_node(b->g, "sink", b->route->to.items[i]);
		const struct pr_connector_type *ct = n ? n->connector : NULL;

		if (!ct)
			continue;
		/* a mail crosses to a forge, a forge's comment to a list */
		if (!ev->mirror && ct->relay_comment)
			err = forge_or_drop(to_forge(b, n, series_id, &t, ev),
					    n, ev);
		else if (ev->mirror && ct->deliver && !ct->deliver_version)
			err = to_list(b, n, series_id, &t, ev, forge);
		if (err > 0) {
			retry = 1;
			err = 0;
		}
	}
done:
	target_release(&t);
	/* patchrelay's own comment (1 from is_ours) needs nothing */
	if (err > 0 && !retry)
		err = 0;
	return err < 0 ? err : retry;
}

/* ---- states ---- */

/* The word a sink is told for a source's state; NULL: none to tell. */
static const char *state_word(const char *state)
{
	static const char *const landed[] = { "landed", "merged", "accepted" };
	static const char *const gone[] = { "withdrawn", "abandoned", "closed",
					    "rejected" };
	size_t i;

	if (!strcmp(state, "superseded"))
		return "superseded";
	for (i = 0; i < PR_ARRAY_SIZE(landed); i++)
		if (!strcmp(state, landed[i]))
			return "landed";
	for (i = 0; i < PR_ARRAY_SIZE(gone); i++)
		if (!strcmp(state, gone[i]))
			return "withdrawn";
	return NULL;
}

/* Whether a version of the series was delivered to sink. */
static int delivered(struct pr_store *st, int64_t series_id, const char *sink)
{
	int n = pr_store_version_latest(st, series_id);
	int64_t id;
	int err;

	for (; n > 0; n--) {
		err = pr_store_delivery_find(&id, st, series_id, n, sink);
		if (err != PR_ENOENT)
			return err ? err : 1;
	}
	return n < 0 ? n : 0;
}

int pr_bridge_state(const struct pr_bridge *b, const char *origin,
		    const char *key, const char *state, const char *why)
{
	const char *word = state ? state_word(state) : NULL;
	struct pr_series *s = NULL;
	struct pr_relay r = { 0 };
	int64_t series_id = 0;
	size_t i;
	int err;

	if (!word)
		return 0;
	err = pr_store_series_find(&series_id, b->st, origin, key);
	if (err == PR_ENOENT) {
		series_id = 0;
		err = first_of(&series_id, b->st, key);
	}
	if (err || !series_id || (err = stored_series(&s, b->st, series_id)))
		goto done;
	r.series = s;
	r.store = b->st;
	r.series_id = series_id;
	for (i = 0; i < b->route->to.nr && !err; i++) {
		const struct pr_graph_node *n =
			pr_graph_node(b->g, "sink", b->route->to.items[i]);

		if (!n || !n->connector || !n->connector->series_state)
			continue;
		if ((err = delivered(b->st, series_id, n->inst.name)) <= 0)
			continue;
		if (b->dry_run) {
			pr_log_info(b->route->name, "dry run: '%s' %s not told",
				    key, word);
			err = 0;
			continue;
		}
		if (!(err = pr_store_sync(b->st)))
			err = n->connector->series_state(
				(struct pr_instance *)&n->inst, &r, word, why);
	}
done:
	pr_series_free(s);
	return err < 0 ? err : 0;
}

/* ---- trailers for the next version ---- */

struct givens {
	struct pr_am_given *v;
	size_t nr, alloc;
};

static int add_given(const struct pr_idmap_trailer *t, void *payload)
{
	struct givens *g = payload;
	struct pr_am_given *x;

	PR_ALLOC_GROW(g->v, g->nr + 1, g->alloc);
	x = &g->v[g->nr++];
	x->key = pr_strdup(t->key);
	x->value = pr_strdup(t->value);
	x->version = t->version;
	x->idx = t->idx;
	x->patch_id = t->patch_id ? pr_strdup(t->patch_id) : NULL;
	return 0;
}

void pr_bridge_trailers_free(char **t, size_t nr)
{
	size_t i;

	for (i = 0; t && i < nr; i++)
		free(t[i]);
	free(t);
}

int pr_bridge_trailers(char ***out, struct pr_store *st, int64_t series_id,
		       const struct pr_version *v)
{
	struct givens g = { NULL, 0, 0 };
	struct pr_trailer_list *lists = pr_calloc(v->nr + 1, sizeof(*lists));
	struct pr_patch *copies = pr_calloc(v->nr + 1, sizeof(*copies));
	struct pr_version shown = *v;
	size_t i, j;
	int err;

	*out = pr_calloc(v->nr + 1, sizeof(**out));
	shown.patches = pr_calloc(v->nr + 1, sizeof(*shown.patches));
	if ((err = pr_idmap_trailers(st, series_id, add_given, &g)))
		goto done;
	/* shallow copies with the patch-ids the store kept */
	for (i = 0; i < v->nr && !err; i++) {
		copies[i] = *v->patches[i];
		if (!copies[i].patch_id[0])
			err = pr_idmap_patch_id(copies[i].patch_id, st,
						series_id, v->number, (int)i);
		shown.patches[i] = &copies[i];
	}
	if (err || (err = pr_am_apply(lists, &shown, g.v, g.nr)))
		goto done;
	for (i = 0; i < v->nr && !err; i++) {
		struct pr_buf lines = PR_BUF_INIT;

		for (j = 0; j < lists[i].nr && !err; j++)
			err = pr_buf_addf(&lines, "%s: %s\n",
					  lists[i].items[j].key,
					  lists[i].items[j].value);
		(*out)[i] = lines.len ? pr_buf_detach(&lines, NULL) : NULL;
		pr_buf_release(&lines);
	}
done:
	for (i = 0; i < g.nr; i++) {
		free((char *)g.v[i].key);
		free((char *)g.v[i].value);
		free((char *)g.v[i].patch_id);
	}
	free(g.v);
	for (i = 0; i < v->nr; i++)
		pr_trailer_list_release(&lists[i]);
	free(lists);
	free(copies);
	free(shown.patches);
	if (err) {
		pr_bridge_trailers_free(*out, v->nr);
		*out = NULL;
	}
	return err;
}

void pr_bridge_trailed_free(struct pr_bridge_trailed *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; t->bodies && i < t->v.nr; i++)
		free(t->bodies[i]);
	free(t->bodies);
	free(t->copies);
	free(t->v.patches);
	free(t);
}

int pr_bridge_trailed(struct pr_bridge_trailed **out, struct pr_store *st,
		      int64_t series_id, const struct pr_version *v)
{
	struct pr_bridge_trailed *t = NULL;
	char **lines = NULL;
	size_t i, added = 0;
	int err;

	*out = NULL;
	if ((err = pr_bridge_trailers(&lines, st, series_id, v)))
		return err;
	t = pr_calloc(1, sizeof(*t));
	t->v = *v;
	t->v.patches = pr_calloc(v->nr + 1, sizeof(*t->v.patches));
	t->v.alloc = v->nr + 1;
	t->copies = pr_calloc(v->nr + 1, sizeof(*t->copies));
	t->bodies = pr_calloc(v->nr + 1, sizeof(*t->bodies));
	for (i = 0; i < v->nr && !err; i++) {
		struct pr_buf body = PR_BUF_INIT;

		t->copies[i] = *v->patches[i];
		t->v.patches[i] = &t->copies[i];
		if (!lines[i])
			continue;
		if (!(err = pr_buf_adds(&body, v->patches[i]->body
						       ? v->patches[i]->body
						       : "")) &&
		    !(err = pr_trailers_append(&body, 0, lines[i]))) {
			t->bodies[i] = pr_buf_detach(&body, NULL);
			t->copies[i].body = t->bodies[i];
			added++;
		}
		pr_buf_release(&body);
	}
	pr_bridge_trailers_free(lines, v->nr);
	if (err || !added)
		pr_bridge_trailed_free(t);
	else
		*out = t;
	return err;
}
