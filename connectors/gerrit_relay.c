#include "base/pr.h"

#include <jansson.h>

#include "base/sha1.h"
#include "engine/delivery.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "gerrit.h"

/*
 * The gerrit sink's part of the reply relay (gerrit.h, engine/bridge.h).
 *
 * Which change: the Change-Id this sink pushed the answered patch with
 * (the identity map's "gerrit-ids:SINK:vN" of that version, else of the
 * newest version it pushed), on the patch set of the answered version's
 * commit ("gerrit-commits:SINK:vN"), else the current one; for a series that
 * came from Gerrit, the change whose patch set is the answered patch's
 * commit, on that patch set.  A reply to the cover letter goes to the
 * first patch's change (once: the trailers it gives are kept for every
 * patch by the engine all the same).
 *
 * Each relayed reply is posted with a tag of its own,
 * "patchrelay:relay:HASH" (HASH: the reply's id hashed), which makes it
 * findable: a retry after a crash between the post and the store finds it
 * posted instead of posting it twice, and the posted message's id (which
 * the review answer does not give) is read back by it.  That id is what
 * the engine keeps, so the gerrit source drops the message by the store,
 * whoever posted it.
 */

/* What a review message takes of a mail (Gerrit's default cap is 100k). */
#define RELAY_TEXT_MAX 60000

/* The change a reply goes to: a query that finds it, and the revision. */
struct where {
	struct pr_buf query; /* "change:I... project:P branch:B" */
	char rev[41]; /* a sha, or "current" */
};

static void where_release(struct where *w)
{
	pr_buf_release(&w->query);
}

/* The Change-Id at 1-based place idx of the space-separated list. */
static int nth_id(struct pr_buf *out, const char *list, int idx)
{
	int i = 1;

	while (*list) {
		size_t k = strcspn(list, " ");

		if (i++ == idx)
			return pr_buf_add(out, list, k);
		list += k + strspn(list + k, " ");
	}
	return PR_ENOENT;
}

/*
 * What this sink recorded for patch idx of version n: its Change-Id (kind
 * pr_gerrit_ids_kind) or its commit (pr_gerrit_commits_kind); PR_ENOENT
 * when none.
 */
static int pushed_id(struct pr_buf *out, const struct pr_instance *inst,
		     const struct pr_relay *r, int n, int idx,
		     int (*kind_of)(struct pr_buf *, const char *, int))
{
	struct pr_buf kind = PR_BUF_INIT, list = PR_BUF_INIT;
	int err;

	if (!(err = kind_of(&kind, inst->name, n)) &&
	    !(err = pr_store_identity_get(&list, r->store, r->series_id,
					  kind.ptr)))
		err = nth_id(out, list.ptr, idx);
	pr_buf_release(&kind);
	pr_buf_release(&list);
	return err;
}

/* The commit of patch idx of the stored version n ("" when none). */
static int stored_commit(char out[41], const struct pr_relay *r, int n, int idx)
{
	struct pr_version *v = NULL;
	int err = pr_engine_stored_version(&v, r->store, r->series_id, n);

	out[0] = '\0';
	if (err == PR_ENOENT) {
		pr_error_clear();
		return 0;
	}
	if (!err && idx >= 1 && (size_t)idx <= v->nr &&
	    strlen(v->patches[idx - 1]->commit_id) == 40)
		memcpy(out, v->patches[idx - 1]->commit_id, 41);
	pr_version_free(v);
	return err;
}

/* Where the reply r goes (w->query empty: nowhere this sink knows). */
static int find_where(struct where *w, const struct pr_instance *inst,
		      const struct pr_relay *r)
{
	const struct pr_gerrit_ctx *o = inst->ctx;
	struct pr_buf id = PR_BUF_INIT;
	int idx = r->idx > 0 ? r->idx : 1, n, err = 0;
	char sha[41];

	memcpy(w->rev, "current", 8);
	if (!r->store || r->version < 1)
		return 0;
	/* a version this sink pushed: the one answered, on its patch set */
	err = pushed_id(&id, inst, r, r->version, idx, pr_gerrit_ids_kind);
	if (!err) {
		struct pr_buf commit = PR_BUF_INIT;
		int e = pushed_id(&commit, inst, r, r->version, idx,
				  pr_gerrit_commits_kind);

		if (!e && commit.len == 40)
			memcpy(w->rev, commit.ptr, 41);
		pr_buf_release(&commit);
		if (e == PR_ENOENT) /* pushed before commits were kept */
			pr_error_clear();
		else if (e)
			err = e;
	}
	/* else the newest version pushed, on the current patch set */
	for (n = pr_store_version_latest(r->store, r->series_id);
	     err == PR_ENOENT && n >= 1; n--) {
		pr_buf_reset(&id);
		err = n == r->version ? PR_ENOENT
				      : pushed_id(&id, inst, r, n, idx,
						  pr_gerrit_ids_kind);
	}
	if (!err) {
		err = pr_buf_addf(&w->query, "change:%s project:%s branch:%s",
				  id.ptr, o->project.items[0],
				  o->branch.items[0]);
		goto done;
	}
	if (err != PR_ENOENT)
		goto done;
	/* a series from Gerrit: the patch set that is the answered commit */
	if (!(err = stored_commit(sha, r, r->version, idx)) && sha[0]) {
		memcpy(w->rev, sha, 41);
		err = pr_buf_addf(&w->query, "commit:%s project:%s", sha,
				  o->project.items[0]);
	}
done:
	pr_buf_release(&id);
	return err == PR_ENOENT ? 0 : err;
}

/* The change the query finds, with its messages; PR_ENOENT when none. */
static int find_change(struct pr_gerrit_change_list *out, struct pr_gerrit *g,
		       const char *query)
{
	struct pr_http_response resp = { 0 };
	struct pr_buf path = PR_BUF_INIT;
	int err;

	if ((err = pr_buf_adds(&path, "/changes/?q=")) ||
	    (err = pr_http_escape(&path, query)) ||
	    (err = pr_buf_adds(&path, "&o=MESSAGES&o=CURRENT_REVISION&n=2")) ||
	    (err = pr_gerrit_rest(g, &resp, "GET", path.ptr, NULL)) ||
	    (err = pr_gerrit_parse_changes(out, resp.body.ptr, resp.body.len)))
		goto done;
	if (out->nr != 1)
		err = out->nr ? pr_error(PR_EINVAL,
					 "gerrit '%s': '%s' finds %zu changes",
					 g->inst->name, query, out->nr)
			      : PR_ENOENT;
done:
	pr_http_response_release(&resp);
	pr_buf_release(&path);
	return err;
}

/* The id of c's message with tag, NULL when none. */
static const char *tagged(const struct pr_gerrit_change *c, const char *tag)
{
	size_t i;

	for (i = 0; i < c->nr_msgs; i++)
		if (c->msgs[i].tag && !strcmp(c->msgs[i].tag, tag))
			return c->msgs[i].id;
	return NULL;
}

/* The review message a list reply becomes (plain text). */
static int relay_text(struct pr_buf *out, const struct pr_relay *r)
{
	const struct pr_event *ev = r->comment;
	const char *name = ev->author.name && *ev->author.name ? ev->author.name
							       : NULL;
	const char *body = ev->body ? ev->body : "";
	size_t i, n = pr_utf8_fit(body, strlen(body), RELAY_TEXT_MAX);
	int err;

	if (name && ev->author.email)
		err = pr_buf_addf(out, "%s <%s>", name, ev->author.email);
	else
		err = pr_buf_adds(out, name		  ? name
				       : ev->author.email ? ev->author.email
							  : "someone");
	if (!err)
		err = pr_buf_adds(out, " replied on the list");
	if (!err && r->answered)
		err = pr_buf_addf(out, " to \"%s\"", r->answered);
	if (!err)
		err = pr_buf_adds(out, ":\n");
	if (!err && ev->ref.url)
		err = pr_buf_addf(out, "%s\n", ev->ref.url);
	if (!err)
		err = pr_buf_addf(out, "\n%.*s", (int)n, body);
	if (!err && n < strlen(body))
		err = pr_buf_adds(out, "\n[... cut: see the archive]");
	pr_buf_rtrim(out);
	if (!err && ev->trailers.nr)
		err = pr_buf_adds(out, "\n\nTrailers given:");
	for (i = 0; !err && i < ev->trailers.nr; i++)
		err = pr_buf_addf(out, "\n  %s: %s", ev->trailers.items[i].key,
				  ev->trailers.items[i].value);
	return err ? err : pr_buf_addch(out, '\n');
}

/* POST the review message on change c, revision rev, with tag. */
static int post(struct pr_gerrit *g, const struct pr_gerrit_change *c,
		const char *rev, const char *message, const char *tag)
{
	return pr_gerrit_post_review(g, c->project, c->number, rev,
				     json_pack("{s:s, s:s}", "message", message,
					       "tag", tag));
}

int pr_gerrit_relay_comment(struct pr_instance *inst, const struct pr_relay *r,
			    char **posted)
{
	struct pr_gerrit *g = inst->state;
	struct pr_gerrit_change_list l = { 0 };
	struct pr_buf text = PR_BUF_INIT, tag = PR_BUF_INIT;
	struct where w = { PR_BUF_INIT, "" };
	const char *id;
	struct pr_sha1 h;
	char hex[PR_SHA1_HEXSZ + 1];
	int err;

	*posted = NULL;
	if (!r->comment || !r->item || strcmp(inst->kind, "sink"))
		return 0;
	if ((err = find_where(&w, inst, r)) || !w.query.len)
		goto done;
	pr_sha1_init(&h);
	pr_sha1_update(&h, r->item, strlen(r->item));
	pr_sha1_final_hex(hex, &h);
	if ((err = pr_buf_addf(&tag, "patchrelay:relay:%.16s", hex)) ||
	    (err = find_change(&l, g, w.query.ptr)))
		goto done;
	/* posted before, and the store did not hear of it: the same one */
	if (!(id = tagged(&l.items[0], tag.ptr))) {
		if ((err = relay_text(&text, r)) ||
		    (err = post(g, &l.items[0], w.rev, text.ptr, tag.ptr)))
			goto done;
		pr_gerrit_change_list_release(&l);
		if ((err = find_change(&l, g, w.query.ptr)))
			goto done;
		id = tagged(&l.items[0], tag.ptr);
	}
	if (id)
		*posted = pr_strdup(id);
	else
		pr_log_warn(inst->prefix,
			    "change %lld shows no message tagged %s: its "
			    "source will know it only by its author",
			    (long long)l.items[0].number, tag.ptr);
	pr_log_debug(inst->prefix, "%s on change %lld", r->item,
		     (long long)l.items[0].number);
done:
	/* the change is gone (deleted, not visible): nothing to post on */
	if (err == PR_ENOENT) {
		pr_error_clear();
		err = 0;
	}
	if (err < 0)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	where_release(&w);
	pr_gerrit_change_list_release(&l);
	pr_buf_release(&text);
	pr_buf_release(&tag);
	return err;
}

/* ---- states ---- */

/* Abandon the change of Change-Id id with a message, when it is open. */
static int abandon(struct pr_gerrit *g, const char *id, const char *message)
{
	const struct pr_gerrit_ctx *o = g->o;
	struct pr_gerrit_change_list l = { 0 };
	struct pr_http_response resp = { 0 };
	struct pr_buf q = PR_BUF_INIT, path = PR_BUF_INIT;
	json_t *body = json_pack("{s:s}", "message", message);
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	int err;

	if (!text) {
		err = pr_error(PR_EINVAL, "abandon of %s: not UTF-8", id);
		goto done;
	}
	if ((err = pr_buf_addf(&q, "change:%s project:%s branch:%s", id,
			       o->project.items[0], o->branch.items[0])) ||
	    (err = find_change(&l, g, q.ptr)))
		goto done;
	if (!l.items[0].status || strcmp(l.items[0].status, "NEW"))
		goto done;
	if ((err = pr_buf_adds(&path, "/changes/")) ||
	    (err = pr_http_escape(&path, l.items[0].project)) ||
	    (err = pr_buf_addf(&path, "~%lld/abandon",
			       (long long)l.items[0].number)) ||
	    (err = pr_gerrit_rest(g, &resp, "POST", path.ptr, text)))
		goto done;
	pr_log_info(g->inst->prefix, "abandoned change %lld",
		    (long long)l.items[0].number);
done:
	if (err == PR_ENOENT) {
		pr_error_clear();
		err = 0;
	}
	free(text);
	json_decref(body);
	pr_gerrit_change_list_release(&l);
	pr_http_response_release(&resp);
	pr_buf_release(&q);
	pr_buf_release(&path);
	return err;
}

/*
 * A series this sink pushed landed or was withdrawn at its origin: the
 * changes of the newest version pushed are abandoned, saying why (a
 * series that landed elsewhere will not be submitted here).  A
 * superseded series needs nothing: its next version is pushed as new
 * patch sets of the same changes.
 */
int pr_gerrit_series_state(struct pr_instance *inst, const struct pr_relay *r,
			   const char *state, const char *why)
{
	struct pr_gerrit *g = inst->state;
	struct pr_buf list = PR_BUF_INIT, kind = PR_BUF_INIT;
	struct pr_buf msg = PR_BUF_INIT, id = PR_BUF_INIT;
	int n, i, err = PR_ENOENT;

	if (strcmp(inst->kind, "sink") || !r->store ||
	    !strcmp(state, "superseded"))
		return 0;
	for (n = pr_store_version_latest(r->store, r->series_id);
	     err == PR_ENOENT && n >= 1; n--) {
		pr_buf_reset(&kind);
		if (!(err = pr_gerrit_ids_kind(&kind, inst->name, n)))
			err = pr_store_identity_get(&list, r->store,
						    r->series_id, kind.ptr);
	}
	if (err ||
	    (err = pr_buf_addf(&msg,
			       "This series was %s%s%s; patchrelay "
			       "abandons its changes.",
			       state, why && *why ? ": " : "", why ? why : "")))
		goto done;
	for (i = 1; !err; i++) {
		pr_buf_reset(&id);
		if ((err = nth_id(&id, list.ptr, i)))
			break;
		err = abandon(g, id.ptr, msg.ptr);
	}
done:
	if (err == PR_ENOENT)
		err = 0;
	if (err < 0)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	pr_buf_release(&list);
	pr_buf_release(&kind);
	pr_buf_release(&msg);
	pr_buf_release(&id);
	return err;
}
