#include "base/pr.h"

#include <errno.h>
#include <time.h>

#include "mail/assemble.h"
#include "mail/mbox.h"
#include "mailsrc.h"
#include "model/model.h"
#include "engine/idmap.h"
#include "engine/store.h"
#include "patchwork.h"

/*
 * The patchwork source: the series Patchwork completed, from its events.
 *
 * Each poll reads /api/events/?category=series-completed of the project
 * from the cursor's `since` (oldest first, every page), skips the events
 * the cursor has seen (same date, id in `seen`), and for each new one
 * fetches the series, its cover letter's mbox and its patches', whose
 * mails go through the stream assembler as a poll of a list does
 * (pr_mailsrc_emit_seen: the same grouping, versions, keys and
 * superseding).  A later version is fetched without the versions before
 * it, so rekey() gives it an earlier version's key (see there): a new
 * version Patchwork shows is the next version of the same series, with
 * the key an mbox of the list gives it.  Each version event carries the
 * cursor as it stands after it.
 *
 * The first poll without a cursor reads from `since` when it is set;
 * otherwise it only takes where the project's events stand (one request,
 * a cursor-only event): what Patchwork completed before is not news.
 */

void pr_pw_cursor_release(struct pr_pw_cursor *c)
{
	free(c->since);
	free(c->seen);
	memset(c, 0, sizeof(*c));
}

static void cursor_see(struct pr_pw_cursor *c, const char *date, int64_t id)
{
	if (!c->since || strcmp(c->since, date)) {
		free(c->since);
		c->since = pr_strdup(date);
		c->nr_seen = 0;
	}
	PR_ALLOC_GROW(c->seen, c->nr_seen + 1, c->alloc_seen);
	c->seen[c->nr_seen++] = id;
}

static bool cursor_seen(const struct pr_pw_cursor *c, const char *date,
			int64_t id)
{
	size_t i;

	if (!c->since || strcmp(c->since, date))
		return false;
	for (i = 0; i < c->nr_seen; i++)
		if (c->seen[i] == id)
			return true;
	return false;
}

int pr_pw_cursor_parse(struct pr_pw_cursor *out, const char *text)
{
	const char *p = text;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!text || !*text)
		return 0;
	if (strncmp(p, "pw1 since=", 10))
		goto bad;
	p += 10;
	n = strcspn(p, " ");
	if (!n || n > 64 || strspn(p, "0123456789-:.T+Z") < n)
		goto bad;
	out->since = pr_strndup(p, n);
	p += n;
	if (strncmp(p, " seen=", 6))
		goto bad;
	p += 6;
	while (*p) {
		char *end;
		long long id;

		errno = 0;
		id = strtoll(p, &end, 10);
		if (errno || end == p || id <= 0 || (*end && *end != ','))
			goto bad;
		PR_ALLOC_GROW(out->seen, out->nr_seen + 1, out->alloc_seen);
		out->seen[out->nr_seen++] = (int64_t)id;
		p = *end ? end + 1 : end;
		if (out->nr_seen > 100000)
			goto bad;
	}
	return 0;
bad:
	pr_pw_cursor_release(out);
	return pr_error(PR_EPARSE,
			"patchwork cursor '%.100s': not \"pw1 "
			"since=DATE seen=ID,...\"",
			text);
}

int pr_pw_cursor_format(struct pr_buf *out, const struct pr_pw_cursor *c)
{
	size_t i;
	int err;

	if ((err = pr_buf_addf(out, "pw1 since=%s seen=",
			       c->since ? c->since : "1970-01-01T00:00:00")))
		return err;
	for (i = 0; i < c->nr_seen && !err; i++)
		err = pr_buf_addf(out, "%s%lld", i ? "," : "",
				  (long long)c->seen[i]);
	return err;
}

/* ---- one series ---- */

/* A series' mails on their way through the assembler (connectors/mailsrc.h). */
struct pw_emit {
	struct pr_pw *pw;
	const struct pr_pw_series *s;
	const struct pr_pw_cursor *cur;
	pr_event_fn emit;
	void *payload;
	struct pr_mailsrc_batch batch;
	struct pr_strlist keys; /* the keys rekey() gave, owned */
	size_t nr_emitted;
};

static int one_mail(const char *data, size_t len,
		    const struct pr_mbox_where *where, void *payload)
{
	struct pw_emit *pe = payload;
	char pos[24];

	PR_UNUSED(where);
	/* positions keep the order read: the cover letter first */
	snprintf(pos, sizeof(pos), "%020zu", pe->batch.nr);
	pr_mailsrc_batch_add(&pe->batch, pos, data, len, 0);
	return 0;
}

/* GET an mbox URL and add its mails to the batch. */
static int fetch_mbox(struct pw_emit *pe, const char *url)
{
	struct pr_http_response resp;
	int err;

	memset(&resp, 0, sizeof(resp));
	if (!(err = pr_pw_request(pe->pw, &resp, "GET", url, NULL)))
		err = pr_mbox_split(resp.body.ptr, resp.body.len, url, NULL,
				    one_mail, pe);
	pr_http_response_release(&resp);
	return err;
}

/* The note `prefix` + a (+ "\x1f" + b) into val; false when there is none. */
static bool noted(struct pr_pw *pw, struct pr_buf *val, const char *prefix,
		  const char *a, const char *b)
{
	struct pr_buf name = PR_BUF_INIT;
	bool found;

	pr_buf_reset(val);
	found = !pr_buf_addf(&name, b ? "%s%s\x1f%s" : "%s%s", prefix, a,
			     b ? b : "") &&
		!pr_pw_note_get(pw, val, name.ptr) && val->len;
	pr_buf_release(&name);
	return found;
}

static int note(struct pr_pw *pw, const char *prefix, const char *a,
		const char *b, const char *key)
{
	struct pr_buf name = PR_BUF_INIT;
	int err;

	if (!(err = pr_buf_addf(&name, b ? "%s%s\x1f%s" : "%s%s", prefix, a,
				b ? b : "")))
		err = pr_pw_note_set(pw, name.ptr, key);
	pr_buf_release(&name);
	return err;
}

/*
 * The key of a series the assembler made of one Patchwork series.  Its
 * mails alone give the key any mail source gives (b4's change-id, else the
 * root of its thread); a later version fetched alone gets the key of the
 * version before it when its thread root or the previous version its mails
 * name ("v1: URL", "Supersedes:") is a mail of a version fetched before
 * (noted "id:MSGID"), or, for v2 and later, when a version by the same
 * submitter with the same Patchwork name was (noted "src:EMAIL\x1fNAME"):
 * what the assembler's identity rules find when it reads both at once.
 */
static int rekey(const char **key, const struct pr_asm_series *as,
		 void *payload)
{
	struct pw_emit *pe = payload;
	const char *email = pe->s->submitter_email ? pe->s->submitter_email
						   : "";
	const char *name = pe->s->name ? pe->s->name : "";
	const struct pr_asm_version *v = as->nr ? &as->versions[0] : NULL;
	struct pr_buf val = PR_BUF_INIT;
	size_t i, j;
	int err;

	if (!v)
		return 0;
	if (!v->change_id &&
	    (noted(pe->pw, &val, "id:", *key, NULL) ||
	     (v->prev_id && noted(pe->pw, &val, "id:", v->prev_id, NULL)) ||
	     (v->number > 1 && noted(pe->pw, &val, "src:", email, name)))) {
		pr_strlist_add(&pe->keys, val.ptr);
		*key = pe->keys.items[pe->keys.nr - 1];
	}
	err = note(pe->pw, "src:", email, name, *key);
	for (i = 0; i < as->nr && !err; i++) {
		v = &as->versions[i];
		if (v->cover && v->cover->message_id)
			err = note(pe->pw, "id:", v->cover->message_id, NULL,
				   *key);
		for (j = 0; j < v->nr && !err; j++)
			if (v->patches[j]->message_id)
				err = note(pe->pw,
					   "id:", v->patches[j]->message_id,
					   NULL, *key);
	}
	pr_buf_release(&val);
	return err;
}

/* The cursor after this series' event: where the poll stands. */
static int series_cursor(struct pr_buf *out, const char *low, void *payload)
{
	const struct pw_emit *pe = payload;

	PR_UNUSED(low);
	return pr_pw_cursor_format(out, pe->cur);
}

/*
 * The Patchwork ids of a series the engine stored (not one it dropped):
 * the series, its cover letter and patches, in the identity map.
 */
static int remember_series(struct pw_emit *pe, const struct pr_series *s)
{
	struct pr_pw *pw = pe->pw;
	int64_t sid = 0;
	size_t i;
	int err;

	if (!pw->inst->store)
		return 0;
	err = pr_store_series_find(&sid, pw->inst->store, s->origin_connector,
				   s->origin_key);
	if (err == PR_ENOENT)
		return 0;
	if (!err)
		err = pr_pw_remember(pw, sid, "series", pe->s->id,
				     pe->s->web_url);
	if (!err)
		err = pr_pw_remember(pw, sid, "covers", pe->s->cover_id,
				     pe->s->cover_web_url);
	for (i = 0; i < pe->s->patches.nr && !err; i++)
		err = pr_pw_remember(pw, sid, "patches",
				     pe->s->patches.items[i].id,
				     pe->s->patches.items[i].web_url);
	return err;
}

/* Each version the assembler emits, with Patchwork's link to the series. */
static int series_event(const struct pr_event *ev, void *payload)
{
	struct pw_emit *pe = payload;
	int err;

	if (ev->series && !ev->series->url && pe->s->web_url)
		ev->series->url = pr_strdup(pe->s->web_url);
	if (ev->series && ev->series->nr)
		pr_log_info(pe->pw->inst->prefix,
			    "series %lld '%s' v%d: %zu patch(es)",
			    (long long)pe->s->id,
			    pe->s->name ? pe->s->name : "",
			    pr_series_latest(ev->series)->number,
			    pr_series_latest(ev->series)->nr);
	pe->nr_emitted++;
	if ((err = pe->emit(ev, pe->payload)) || !ev->series)
		return err;
	return remember_series(pe, ev->series);
}

/*
 * Series `sid`: its detail, its cover letter's mbox and its patches',
 * whose mails go through the assembler as a poll of a list does; its
 * events carry cur.
 */
static int emit_series(struct pr_pw *pw, const struct pr_pw_cursor *cur,
		       int64_t sid, pr_event_fn emit, void *payload)
{
	struct pr_http_response resp;
	struct pr_pw_series s;
	struct pw_emit pe;
	struct pr_mailsrc_opts o;
	struct pr_buf url = PR_BUF_INIT;
	int err;

	memset(&resp, 0, sizeof(resp));
	memset(&s, 0, sizeof(s));
	memset(&pe, 0, sizeof(pe));
	memset(&o, 0, sizeof(o));
	pe.pw = pw;
	pe.s = &s;
	pe.cur = cur;
	pe.emit = emit;
	pe.payload = payload;
	if ((err = pr_buf_addf(&url, "series/%lld/", (long long)sid)) ||
	    (err = pr_pw_request(pw, &resp, "GET", url.ptr, NULL)) ||
	    (err = pr_pw_series_parse(&s, resp.body.ptr, resp.body.len)) ||
	    (s.cover_mbox && (err = fetch_mbox(&pe, s.cover_mbox))) ||
	    (err = fetch_mbox(&pe, s.mbox)))
		goto done;
	/* Patchwork completed it: nothing waits, nothing was seen */
	o.origin = pw->inst->name;
	o.prefix = pw->inst->prefix;
	o.now = (int64_t)time(NULL);
	o.cursor = series_cursor;
	o.cursor_payload = &pe;
	o.rekey = rekey;
	o.rekey_payload = &pe;
	if ((err = pr_mailsrc_emit_seen(&pe.batch, &o, series_event, &pe)))
		goto done;
	if (!pe.nr_emitted)
		err = pr_error(PR_EPARSE,
			       "patchwork '%s': series %lld: its "
			       "mbox holds no patch",
			       pw->inst->name, (long long)sid);
done:
	pr_strlist_release(&pe.keys);
	pr_mailsrc_batch_release(&pe.batch);
	pr_pw_series_release(&s);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

/* ---- the poll ---- */

static int events_page(const char *body, size_t len, void *payload)
{
	return pr_pw_events_parse(payload, body, len);
}

/* The events of the project since `since` (NULL: the newest one only). */
static int list_events(struct pr_pw *pw, struct pr_pw_event_list *out,
		       const char *since, const char *category)
{
	struct pr_buf url = PR_BUF_INIT;
	struct pr_http_response resp;
	int err;

	memset(&resp, 0, sizeof(resp));
	if ((err = pr_buf_addf(&url,
			       "events/?category=%s&project=", category)) ||
	    (err = pr_http_escape(&url, pw->o->project)))
		goto done;
	if (!since) {
		if ((err = pr_buf_adds(&url, "&per_page=1")) ||
		    (err = pr_pw_request(pw, &resp, "GET", url.ptr, NULL)))
			goto done;
		err = pr_pw_events_parse(out, resp.body.ptr, resp.body.len);
		goto done;
	}
	if ((err = pr_buf_adds(&url, "&order=date&per_page=250&since=")) ||
	    (err = pr_http_escape(&url, since)))
		goto done;
	err = pr_pw_get_pages(pw, url.ptr, events_page, out);
done:
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

static int cmp_event(const void *a, const void *b)
{
	const struct pr_pw_event *x = a, *y = b;
	int c = strcmp(x->date, y->date);

	if (c)
		return c;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int emit_cursor(const struct pr_pw_cursor *cur, pr_event_fn emit,
		       void *payload)
{
	struct pr_event ev;
	struct pr_buf text = PR_BUF_INIT;
	int err;

	memset(&ev, 0, sizeof(ev));
	if ((err = pr_pw_cursor_format(&text, cur)))
		return err;
	ev.kind = PR_EVENT_STATE;
	ev.cursor = pr_buf_detach(&text, NULL);
	err = emit(&ev, payload);
	pr_event_release(&ev);
	return err;
}

/*
 * What a patch's new state says of the series this source emitted it in
 * (noted "id:MSGID"): "superseded" (on-superseded), "accepted" (on-landed,
 * or accepted), "rejected"; NULL: nothing.
 */
static const char *state_of(const struct pr_pw *pw, const char *state)
{
	if (!state)
		return NULL;
	if (!strcmp(state, pw->o->on_superseded) ||
	    !strcmp(state, "superseded"))
		return "superseded";
	if (!strcmp(state, pw->o->on_landed) || !strcmp(state, "accepted"))
		return "accepted";
	return !strcmp(state, "rejected") ? "rejected" : NULL;
}

/*
 * A patch's state changed: when it is a patch of the newest version of a
 * series this source emitted, that series' state, once per series and
 * state (noted "state:KEY").  A patch of an older version set superseded
 * is the series moving on (its newer version is the same series), not
 * the series ending; a cursor-only event then.
 */
static int emit_state(struct pr_pw *pw, const struct pr_pw_cursor *cur,
		      const struct pr_pw_event *e, pr_event_fn emit,
		      void *payload)
{
	const char *word = state_of(pw, e->state);
	struct pr_buf key = PR_BUF_INIT, was = PR_BUF_INIT, name = PR_BUF_INIT;
	struct pr_buf text = PR_BUF_INIT;
	struct pr_idmap_mail m = { 0 };
	struct pr_event ev = { 0 };
	int err = 0, latest;

	if (!word || !e->patch_msgid || !pw->inst->store ||
	    !noted(pw, &key, "id:", e->patch_msgid, NULL))
		goto cursor;
	/* the version it is of, as the engine stored it */
	err = pr_idmap_mail_find(&m, pw->inst->store, e->patch_msgid);
	if (err == PR_ENOENT) {
		err = 0;
		goto cursor;
	}
	if (err)
		goto done;
	latest = pr_store_version_latest(pw->inst->store, m.series_id);
	if (latest < 0) {
		err = latest;
		goto done;
	}
	if (m.version < latest ||
	    (err = pr_buf_addf(&name, "state:%s", key.ptr)))
		goto cursor;
	err = pr_pw_note_get(pw, &was, name.ptr);
	if (err && err != PR_ENOENT)
		goto done;
	if (!err && !strcmp(was.ptr, word))
		goto cursor;
	if ((err = pr_pw_cursor_format(&text, cur)))
		goto done;
	ev.kind = PR_EVENT_STATE;
	ev.series = pr_series_new(pw->inst->name, key.ptr);
	ev.state = pr_strdup(word);
	ev.cursor = pr_buf_detach(&text, NULL);
	if ((err = pr_buf_addf(&text, "patch %lld set %s in Patchwork",
			       (long long)e->patch_id, e->state)))
		goto done;
	ev.body = pr_buf_detach(&text, NULL);
	pr_log_info(pw->inst->prefix, "'%s' v%d: %s", key.ptr, m.version,
		    ev.body);
	/* told once: noted after the engine handled it */
	if (!(err = emit(&ev, payload)))
		err = pr_pw_note_set(pw, name.ptr, word);
	goto done;
cursor:
	if (!err)
		err = emit_cursor(cur, emit, payload);
done:
	pr_event_release(&ev);
	pr_idmap_mail_release(&m);
	pr_buf_release(&key);
	pr_buf_release(&was);
	pr_buf_release(&name);
	pr_buf_release(&text);
	return err;
}

int pr_pw_poll(struct pr_instance *inst, const char *cursor, pr_event_fn emit,
	       void *payload)
{
	struct pr_pw *pw = inst->state;
	struct pr_pw_cursor cur;
	struct pr_pw_event_list evs = { 0 };
	size_t i;
	int err;

	if ((err = pr_pw_cursor_parse(&cur, cursor)))
		return err;
	if (!cur.since && pw->o->since) {
		cur.since = pr_strdup(pw->o->since);
	} else if (!cur.since) {
		/* the first look: only where the events stand */
		if ((err = list_events(pw, &evs, NULL, "series-completed")))
			goto done;
		if (evs.nr)
			cursor_see(&cur, evs.items[0].date, evs.items[0].id);
		else
			cur.since = pr_strdup("1970-01-01T00:00:00");
		err = emit_cursor(&cur, emit, payload);
		goto done;
	}
	if ((err = list_events(pw, &evs, cur.since, "series-completed")) ||
	    (err = list_events(pw, &evs, cur.since, "patch-state-changed")))
		goto done;
	if (evs.nr)
		qsort(evs.items, evs.nr, sizeof(*evs.items), cmp_event);
	for (i = 0; i < evs.nr && !err; i++) {
		const struct pr_pw_event *e = &evs.items[i];
		bool state = !strcmp(e->category, "patch-state-changed");

		if ((!state && (strcmp(e->category, "series-completed") ||
				!e->series_id)) ||
		    cursor_seen(&cur, e->date, e->id) ||
		    strcmp(e->date, cur.since) < 0)
			continue;
		cursor_see(&cur, e->date, e->id);
		if (state) {
			err = emit_state(pw, &cur, e, emit, payload);
			continue;
		}
		err = emit_series(pw, &cur, e->series_id, emit, payload);
		if (err == PR_ENOENT) {
			/* deleted since: nothing to read, the cursor moves */
			pr_log_warn(inst->prefix, "series %lld: %s",
				    (long long)e->series_id,
				    pr_error_message());
			err = emit_cursor(&cur, emit, payload);
		}
	}
done:
	pr_pw_event_list_release(&evs);
	pr_pw_cursor_release(&cur);
	if (err < 0)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	return err;
}
