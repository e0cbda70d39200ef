#include "base/pr.h"

#include <errno.h>

#include "mail/am.h"
#include "mail/mbox.h"
#include "model/model.h"
#include "patchwork.h"

/*
 * The patchwork source: the series Patchwork completed, from its events.
 *
 * Each poll reads /api/events/?category=series-completed of the project
 * from the cursor's `since` (oldest first, every page), skips the events
 * the cursor has seen (same date, id in `seen`), and for each new one
 * fetches the series, its patches' mbox and its cover letter's, which the
 * core parses as any mail (git mailinfo).  The version's number is the
 * series' version; its series key is its b4 change-id when it has one,
 * else the key an earlier version by the same submitter with the same
 * name got (noted "src:EMAIL\x1fNAME"), else its cover letter's
 * Message-ID (or its first patch's), so a new version Patchwork shows is
 * the next version of the same series.  Each version event carries the
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

struct mbox_patches {
	struct pr_version *v;
	struct pr_patch *first; /* cover mbox: its one mail */
	bool cover;
};

static int one_mail(const char *data, size_t len,
		    const struct pr_mbox_where *where, void *payload)
{
	struct mbox_patches *mp = payload;
	struct pr_patch *p = NULL;
	int err;

	PR_UNUSED(where);
	if ((err = pr_am_patch_parse(&p, data, len)))
		return err;
	if (!mp->cover)
		pr_version_add_patch(mp->v, p);
	else if (!mp->first)
		mp->first = p;
	else
		pr_patch_free(p);
	return 0;
}

/* GET an mbox URL and parse its mails into mp. */
static int fetch_mbox(struct pr_pw *pw, struct mbox_patches *mp,
		      const char *url)
{
	struct pr_http_response resp;
	int err;

	memset(&resp, 0, sizeof(resp));
	if (!(err = pr_pw_request(pw, &resp, "GET", url, NULL)))
		err = pr_mbox_split(resp.body.ptr, resp.body.len, url, NULL,
				    one_mail, mp);
	pr_http_response_release(&resp);
	return err;
}

/* b4's change-id of the version: a "change-id: X" line of its mails. */
static char *change_id(const struct pr_version *v)
{
	size_t i;
	const char *texts[2];

	for (i = 0; i <= v->nr; i++) {
		const char *p;
		size_t k;

		texts[0] = i == v->nr ? (v->cover ? v->cover->body : NULL)
				      : v->patches[i]->body;
		for (p = texts[0]; p && *p; p += strcspn(p, "\n"), p += !!*p) {
			if (strncmp(p, "change-id:", 10))
				continue;
			p += 10 + strspn(p + 10, " \t");
			k = strcspn(p, " \t\r\n");
			if (k)
				return pr_strndup(p, k);
		}
	}
	return NULL;
}

/* The series key (see above), malloc'ed in *out. */
static int series_key(struct pr_pw *pw, char **out,
		      const struct pr_pw_series *s, const struct pr_version *v)
{
	struct pr_buf note = PR_BUF_INIT, val = PR_BUF_INIT;
	const char *root = v->cover && v->cover->message_id
				   ? v->cover->message_id
			   : v->nr ? v->patches[0]->message_id
				   : NULL;
	char *cid = change_id(v);
	int err;

	*out = NULL;
	if ((err = pr_buf_addf(&note, "src:%s\x1f%s",
			       s->submitter_email ? s->submitter_email : "",
			       s->name ? s->name : "")))
		goto done;
	if (cid) {
		*out = cid;
		cid = NULL;
	} else if (s->version > 1 && pr_pw_note_get(pw, &val, note.ptr) == 0 &&
		   val.len) {
		*out = pr_strdup(val.ptr);
	} else if (root) {
		*out = pr_strdup(root);
	} else {
		err = pr_buf_addf(&val, "patchwork-series-%lld",
				  (long long)s->id);
		*out = pr_buf_detach(&val, NULL);
	}
	if (!err)
		err = pr_pw_note_set(pw, note.ptr, *out);
done:
	free(cid);
	pr_buf_release(&note);
	pr_buf_release(&val);
	return err;
}

/* The version of series `sid`: its detail, its mbox and its cover's. */
static int load_series(struct pr_pw *pw, struct pr_series **out, int64_t sid)
{
	struct pr_http_response resp;
	struct pr_pw_series s;
	struct mbox_patches mp = { NULL, NULL, false };
	struct pr_buf url = PR_BUF_INIT;
	char *key = NULL;
	int err;

	*out = NULL;
	memset(&resp, 0, sizeof(resp));
	memset(&s, 0, sizeof(s));
	if ((err = pr_buf_addf(&url, "series/%lld/", (long long)sid)) ||
	    (err = pr_pw_request(pw, &resp, "GET", url.ptr, NULL)) ||
	    (err = pr_pw_series_parse(&s, resp.body.ptr, resp.body.len)))
		goto done;
	mp.v = pr_version_new(s.version);
	if ((err = fetch_mbox(pw, &mp, s.mbox)))
		goto done;
	if (s.cover_mbox) {
		mp.cover = true;
		if ((err = fetch_mbox(pw, &mp, s.cover_mbox)))
			goto done;
		if (mp.first) {
			mp.v->cover = pr_calloc(1, sizeof(*mp.v->cover));
			mp.v->cover->subject = pr_strdup(
				mp.first->subject ? mp.first->subject : "");
			mp.v->cover->body =
				pr_strdup(mp.first->body ? mp.first->body : "");
			mp.v->cover->message_id =
				mp.first->message_id
					? pr_strdup(mp.first->message_id)
					: NULL;
		}
	}
	if (!mp.v->nr) {
		err = pr_error(PR_EPARSE,
			       "patchwork '%s': series %lld: its "
			       "mbox holds no patch",
			       pw->inst->name, (long long)sid);
		goto done;
	}
	if ((err = series_key(pw, &key, &s, mp.v)))
		goto done;
	*out = pr_series_new(pw->inst->name, key);
	pr_ident_set(&(*out)->submitter,
		     s.submitter_name ? s.submitter_name : "",
		     s.submitter_email ? s.submitter_email : "");
	if (s.web_url)
		(*out)->url = pr_strdup(s.web_url);
	pr_series_add_version(*out, mp.v);
	mp.v = NULL;
	pr_log_info(pw->inst->prefix, "series %lld '%s' v%d: %zu patch(es)",
		    (long long)sid, s.name ? s.name : "", s.version,
		    pr_series_latest(*out)->nr);
done:
	free(key);
	pr_patch_free(mp.first);
	pr_version_free(mp.v);
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
		       const char *since)
{
	struct pr_buf url = PR_BUF_INIT;
	struct pr_http_response resp;
	int err;

	memset(&resp, 0, sizeof(resp));
	if ((err = pr_buf_adds(&url, "events/?category=series-completed&"
				     "project=")) ||
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
		if ((err = list_events(pw, &evs, NULL)))
			goto done;
		if (evs.nr)
			cursor_see(&cur, evs.items[0].date, evs.items[0].id);
		else
			cur.since = pr_strdup("1970-01-01T00:00:00");
		err = emit_cursor(&cur, emit, payload);
		goto done;
	}
	if ((err = list_events(pw, &evs, cur.since)))
		goto done;
	if (evs.nr)
		qsort(evs.items, evs.nr, sizeof(*evs.items), cmp_event);
	for (i = 0; i < evs.nr && !err; i++) {
		const struct pr_pw_event *e = &evs.items[i];
		struct pr_event ev;
		struct pr_buf text = PR_BUF_INIT;

		if (strcmp(e->category, "series-completed") || !e->series_id ||
		    cursor_seen(&cur, e->date, e->id) ||
		    strcmp(e->date, cur.since) < 0)
			continue;
		memset(&ev, 0, sizeof(ev));
		err = load_series(pw, &ev.series, e->series_id);
		if (err == PR_ENOENT) {
			/* deleted since: nothing to read */
			pr_log_warn(inst->prefix, "series %lld: %s",
				    (long long)e->series_id,
				    pr_error_message());
			err = 0;
		}
		if (err)
			break;
		cursor_see(&cur, e->date, e->id);
		if (!(err = pr_pw_cursor_format(&text, &cur))) {
			ev.cursor = pr_buf_detach(&text, NULL);
			if (ev.series)
				ev.kind = pr_series_latest(ev.series)->number >
							  1
						  ? PR_EVENT_VERSION
						  : PR_EVENT_SERIES;
			else
				ev.kind = PR_EVENT_STATE;
			err = emit(&ev, payload);
		}
		pr_event_release(&ev);
	}
done:
	pr_pw_event_list_release(&evs);
	pr_pw_cursor_release(&cur);
	if (err < 0)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	return err;
}
