#include "base/pr.h"

#include <time.h>

#include "base/json.h"
#include "base/strlist.h"
#include "engine/store.h"
#include "engine/store_view.h"
#include "mail/outgoing.h"
#include "model/model.h"
#include "model/report.h"
#include "page.h"

struct page_msg {
	int index, status, attempts;
	const char *message_id, *last_error;
};

struct page_rcpt {
	int role;
	const char *name, *email, *reason;
};

struct page_delivery {
	struct pr_store_delivery_view v;
	struct page_rcpt *rcpt;
	size_t nr_rcpt, alloc_rcpt;
	struct page_msg *msgs;
	size_t nr_msgs, alloc_msgs;
};

struct page_entry {
	const char *step, *rule, *message, *detail;
	int verdict, patch;
};

struct page_version {
	struct pr_store_version_view v;
	struct page_entry *entries;
	size_t nr_entries, alloc_entries;
};

struct page_series {
	struct pr_store_series_view v;
	const char *state;
	struct page_delivery *deliveries; /* newest version first */
	size_t nr_deliveries, alloc_deliveries;
	struct page_version *versions; /* newest first; the list: latest */
	size_t nr_versions, alloc_versions;
	struct pr_strlist identities; /* kind, value, kind, value... */
};

struct pr_page {
	bool detail; /* one series with all of it */
	struct page_series *series;
	size_t nr, alloc;
	/* every string the page holds, owned here */
	struct pr_strlist pool;
	struct pr_store *st; /* while loading */
};

static const char *keep(struct pr_page *p, const char *s)
{
	if (!s)
		return NULL;
	pr_strlist_add(&p->pool, s);
	return p->pool.items[p->pool.nr - 1];
}

static int load_series(const struct pr_store_series_view *v, void *payload)
{
	struct pr_page *p = payload;
	struct page_series *s;

	PR_ALLOC_GROW(p->series, p->nr + 1, p->alloc);
	s = &p->series[p->nr++];
	memset(s, 0, sizeof(*s));
	s->v = *v;
	s->v.origin = keep(p, v->origin);
	s->v.key = keep(p, v->key);
	s->v.url = keep(p, v->url);
	s->v.submitter = keep(p, v->submitter);
	s->v.title = keep(p, v->title);
	s->v.landed_branch = keep(p, v->landed_branch);
	s->v.landed_commit = keep(p, v->landed_commit);
	return 0;
}

struct load_ctx {
	struct pr_page *p;
	struct page_series *s;
	struct page_delivery *d;
	struct page_version *ver;
};

static int load_rcpt(const struct pr_store_recipient_view *r, void *payload)
{
	struct load_ctx *c = payload;
	struct page_delivery *d = c->d;

	PR_ALLOC_GROW(d->rcpt, d->nr_rcpt + 1, d->alloc_rcpt);
	d->rcpt[d->nr_rcpt++] = (struct page_rcpt){ r->role,
						    keep(c->p, r->name),
						    keep(c->p, r->email),
						    keep(c->p, r->reason) };
	return 0;
}

static int load_msg(const struct pr_store_message_view *m, void *payload)
{
	struct load_ctx *c = payload;
	struct page_delivery *d = c->d;

	PR_ALLOC_GROW(d->msgs, d->nr_msgs + 1, d->alloc_msgs);
	d->msgs[d->nr_msgs++] = (struct page_msg){ m->index, m->status,
						   m->attempts,
						   keep(c->p, m->message_id),
						   keep(c->p, m->last_error) };
	return 0;
}

static int load_delivery(const struct pr_store_delivery_view *v, void *payload)
{
	struct load_ctx *c = payload;
	struct page_series *s = c->s;

	/* the list shows the latest version's deliveries only */
	if (!c->p->detail && v->version != s->v.latest)
		return 0;
	PR_ALLOC_GROW(s->deliveries, s->nr_deliveries + 1, s->alloc_deliveries);
	c->d = &s->deliveries[s->nr_deliveries++];
	memset(c->d, 0, sizeof(*c->d));
	c->d->v = *v;
	c->d->v.sink = keep(c->p, v->sink);
	c->d->v.last_error = keep(c->p, v->last_error);
	return 0;
}

static int load_entry(const struct pr_report_entry *e, void *payload)
{
	struct load_ctx *c = payload;
	struct page_version *v = c->ver;

	PR_ALLOC_GROW(v->entries, v->nr_entries + 1, v->alloc_entries);
	v->entries[v->nr_entries++] = (struct page_entry){
		keep(c->p, e->step),	keep(c->p, e->rule),
		keep(c->p, e->message), keep(c->p, e->detail),
		(int)e->verdict,	e->patch,
	};
	return 0;
}

static int load_version(const struct pr_store_version_view *v, void *payload)
{
	struct load_ctx *c = payload;
	struct page_series *s = c->s;
	struct page_version *pv;

	PR_ALLOC_GROW(s->versions, s->nr_versions + 1, s->alloc_versions);
	pv = &s->versions[s->nr_versions++];
	memset(pv, 0, sizeof(*pv));
	pv->v = *v;
	pv->v.title = keep(c->p, v->title);
	pv->v.landed_branch = keep(c->p, v->landed_branch);
	pv->v.landed_commit = keep(c->p, v->landed_commit);
	return 0;
}

static int load_identity(const char *kind, const char *value, void *payload)
{
	struct page_series *s = payload;

	pr_strlist_add(&s->identities, kind);
	pr_strlist_add(&s->identities, value);
	return 0;
}

static const char *state_of(const struct page_series *s)
{
	const struct pr_store_series_view *v = &s->v;

	if (v->landed_commit)
		return "landed";
	if (v->verdict == PR_VERDICT_FAIL && !v->deliveries)
		return "refused";
	if (v->rejected)
		return "rejected";
	if (v->messages && v->sent < v->messages)
		return "pending";
	if (v->messages)
		return "sent";
	return "seen";
}

/* Everything one series shows, after its row is loaded. */
static int load_more(struct pr_page *p, struct page_series *s)
{
	struct load_ctx c = { p, s, NULL, NULL };
	size_t i;
	int err;

	s->state = state_of(s);
	if (p->detail)
		err = pr_store_foreach_version(p->st, s->v.id, load_version,
					       &c);
	else
		err = load_version(
			&(struct pr_store_version_view){
				s->v.latest, s->v.title, 0, s->v.created,
				s->v.verdict, s->v.landed_branch,
				s->v.landed_commit },
			&c);
	for (i = 0; !err && i < s->nr_versions; i++) {
		c.ver = &s->versions[i];
		err = pr_store_foreach_entry(p->st, s->v.id, c.ver->v.number,
					     load_entry, &c);
	}
	if (!err)
		err = pr_store_foreach_delivery(p->st, s->v.id, load_delivery,
						&c);
	for (i = 0; !err && i < s->nr_deliveries; i++) {
		c.d = &s->deliveries[i];
		err = pr_store_foreach_recipient(p->st, c.d->v.id, load_rcpt,
						 &c);
		if (!err && p->detail)
			err = pr_store_foreach_message(p->st, c.d->v.id,
						       load_msg, &c);
	}
	if (!err && p->detail)
		err = pr_store_foreach_identity(p->st, s->v.id, load_identity,
						s);
	return err;
}

int pr_page_load(struct pr_page **out, struct pr_store *st, int64_t only,
		 int limit)
{
	struct pr_page *p = pr_calloc(1, sizeof(*p));
	size_t i;
	int err;

	p->detail = only != 0;
	p->st = st;
	err = pr_store_foreach_series(st, only, limit, load_series, p);
	for (i = 0; !err && i < p->nr; i++)
		err = load_more(p, &p->series[i]);
	p->st = NULL;
	if (err) {
		pr_page_free(p);
		p = NULL;
	}
	*out = p;
	return err;
}

void pr_page_free(struct pr_page *p)
{
	size_t i, j;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++) {
		struct page_series *s = &p->series[i];

		for (j = 0; j < s->nr_deliveries; j++) {
			free(s->deliveries[j].rcpt);
			free(s->deliveries[j].msgs);
		}
		for (j = 0; j < s->nr_versions; j++)
			free(s->versions[j].entries);
		free(s->deliveries);
		free(s->versions);
		pr_strlist_release(&s->identities);
	}
	free(p->series);
	pr_strlist_release(&p->pool);
	free(p);
}

size_t pr_page_count(const struct pr_page *p)
{
	return p->nr;
}

/* ---- HTML ---------------------------------------------------------- */

static void esc(struct pr_buf *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			pr_buf_adds(o, "&amp;");
			break;
		case '<':
			pr_buf_adds(o, "&lt;");
			break;
		case '>':
			pr_buf_adds(o, "&gt;");
			break;
		case '"':
			pr_buf_adds(o, "&quot;");
			break;
		case '\'':
			pr_buf_adds(o, "&#39;");
			break;
		default:
			pr_buf_addch(o, *s);
		}
	}
}

static bool web_url(const char *url)
{
	return url && (!strncasecmp(url, "https://", 8) ||
		       !strncasecmp(url, "http://", 7));
}

/* <a href=url>text</a> for an http(s) URL, else the text alone. */
static void link(struct pr_buf *o, const char *url, const char *text)
{
	if (web_url(url)) {
		pr_buf_adds(o, "<a href=\"");
		esc(o, url);
		pr_buf_adds(o, "\" rel=\"noreferrer\">");
		esc(o, text);
		pr_buf_adds(o, "</a>");
	} else {
		esc(o, text);
	}
}

static void when(struct pr_buf *o, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char s[32];

	if (t <= 0 || !gmtime_r(&tt, &tm)) {
		pr_buf_adds(o, "-");
		return;
	}
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M UTC", &tm);
	pr_buf_adds(o, s);
}

static const char *verdict_word(int v)
{
	return v < 0 ? "none" : pr_verdict_name((enum pr_verdict)v);
}

static const char *status_word(int status)
{
	return status == PR_STORE_SENT	     ? "sent"
	       : status == PR_STORE_REJECTED ? "rejected"
					     : "pending";
}

static void rcpt_html(struct pr_buf *o, const struct page_rcpt *r)
{
	pr_buf_addf(o, "<li class=\"rcpt\"><span class=\"role\">%s:</span> ",
		    r->role == PR_RCPT_CC ? "Cc" : "To");
	if (r->name && *r->name) {
		esc(o, r->name);
		pr_buf_adds(o, " &lt;");
		esc(o, r->email);
		pr_buf_adds(o, "&gt;");
	} else {
		esc(o, r->email);
	}
	if (r->reason && *r->reason) {
		pr_buf_adds(o, " <span class=\"why\">(");
		esc(o, r->reason);
		pr_buf_adds(o, ")</span>");
	}
	pr_buf_adds(o, "</li>");
}

/* The recipients of the deliveries shown, each address once. */
static void recipients_html(struct pr_buf *o, const struct page_series *s)
{
	struct pr_strlist seen = { 0 };
	size_t i, j, k;

	pr_buf_adds(o, "<ul class=\"recipients\">");
	for (i = 0; i < s->nr_deliveries; i++) {
		const struct page_delivery *d = &s->deliveries[i];

		if (d->v.version != s->v.latest)
			continue;
		for (j = 0; j < d->nr_rcpt; j++) {
			for (k = 0; k < seen.nr; k++)
				if (!strcasecmp(seen.items[k],
						d->rcpt[j].email))
					break;
			if (k < seen.nr)
				continue;
			pr_strlist_add(&seen, d->rcpt[j].email);
			rcpt_html(o, &d->rcpt[j]);
		}
	}
	pr_buf_adds(o, "</ul>");
	pr_strlist_release(&seen);
}

static void delivery_line(struct pr_buf *o, const struct page_delivery *d)
{
	pr_buf_adds(o, "<span class=\"sink\">");
	esc(o, d->v.sink);
	pr_buf_addf(o, "</span> v%d: %d/%d sent", d->v.version, d->v.sent,
		    d->v.nr_messages);
	if (d->v.rejected)
		pr_buf_addf(o, ", %d rejected", d->v.rejected);
	if (d->v.attempts > d->v.sent + d->v.rejected)
		pr_buf_addf(o, ", %d attempts", d->v.attempts);
	if (d->v.last_error) {
		pr_buf_adds(o, " <span class=\"error\">(");
		esc(o, d->v.last_error);
		pr_buf_adds(o, ")</span>");
	}
}

static void entry_html(struct pr_buf *o, const struct page_entry *e,
		       bool details)
{
	pr_buf_addf(o,
		    "<li class=\"entry %s\"><span class=\"verdict\">%s</span> ",
		    verdict_word(e->verdict), verdict_word(e->verdict));
	esc(o, e->step);
	if (e->rule && *e->rule) {
		pr_buf_addch(o, '/');
		esc(o, e->rule);
	}
	if (e->patch >= 0)
		pr_buf_addf(o, " (patch %d)", e->patch + 1);
	pr_buf_adds(o, ": ");
	esc(o, e->message);
	if (details && e->detail && *e->detail) {
		pr_buf_adds(o, "<details><summary>details</summary><pre>");
		esc(o, e->detail);
		pr_buf_adds(o, "</pre></details>");
	}
	pr_buf_adds(o, "</li>");
}

/* A version's report: its verdict and findings (the list: no details). */
static void report_html(struct pr_buf *o, const struct page_version *v,
			bool details)
{
	size_t i;

	pr_buf_addf(o, "<span class=\"verdict %s\">%s</span>",
		    verdict_word(v->v.verdict), verdict_word(v->v.verdict));
	pr_buf_adds(o, "<ul class=\"entries\">");
	for (i = 0; i < v->nr_entries; i++)
		entry_html(o, &v->entries[i], details);
	pr_buf_adds(o, "</ul>");
}

static const char css[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222}"
	"table{border-collapse:collapse;width:100%}"
	"th,td{border-bottom:1px solid #ccc;padding:.3em;text-align:left;"
	"vertical-align:top}"
	"ul{margin:0;padding-left:1em}"
	".state,.verdict{font-weight:bold}"
	".fail,.rejected,.refused{color:#a00}.warn,.pending{color:#a60}"
	".pass,.sent,.landed{color:#070}"
	".why,.error{color:#666}"
	"pre{white-space:pre-wrap}";

static void page_head(struct pr_buf *o, const char *title)
{
	pr_buf_adds(o, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
		       "<meta charset=\"utf-8\">"
		       "<meta name=\"viewport\" content=\"width=device-width\">"
		       "<title>");
	esc(o, title);
	pr_buf_addf(o,
		    "</title><style>%s</style></head>\n<body><header>"
		    "<nav><a href=\"/\">patchrelay</a> &middot; "
		    "<a href=\"/api/series\">JSON</a> &middot; "
		    "<a href=\"/metrics\">metrics</a></nav></header>\n<main>",
		    css);
}

static void origin_html(struct pr_buf *o, const struct page_series *s)
{
	esc(o, s->v.origin);
	pr_buf_adds(o, ": ");
	link(o, s->v.url, s->v.key);
}

static const char *title_of(const struct page_series *s)
{
	return s->v.title && *s->v.title ? s->v.title : s->v.key;
}

static void list_html(struct pr_buf *o, const struct pr_page *p)
{
	size_t i, j;

	page_head(o, "patchrelay: series in flight");
	pr_buf_addf(o,
		    "<h1>Series in flight</h1><p>%zu series, the most "
		    "recently updated first.</p>\n",
		    p->nr);
	if (!p->nr) {
		pr_buf_adds(o, "<p>No series yet.</p>");
		goto end;
	}
	pr_buf_adds(o, "<table class=\"series\"><thead><tr><th>Series</th>"
		       "<th>Origin</th><th>Version</th><th>State</th>"
		       "<th>Recipients</th><th>Deliveries</th>"
		       "<th>Last report</th></tr></thead><tbody>\n");
	for (i = 0; i < p->nr; i++) {
		const struct page_series *s = &p->series[i];

		pr_buf_addf(o,
			    "<tr class=\"series\" id=\"series-%lld\">"
			    "<td class=\"title\"><a href=\"/series/%lld\">",
			    (long long)s->v.id, (long long)s->v.id);
		esc(o, title_of(s));
		pr_buf_adds(o, "</a></td><td class=\"origin\">");
		origin_html(o, s);
		pr_buf_addf(o,
			    "</td><td class=\"version\">v%d</td>"
			    "<td class=\"state %s\">%s</td>"
			    "<td class=\"recipients\">",
			    s->v.latest, s->state, s->state);
		recipients_html(o, s);
		pr_buf_adds(o, "</td><td class=\"deliveries\"><ul>");
		for (j = 0; j < s->nr_deliveries; j++) {
			pr_buf_adds(o, "<li class=\"delivery\">");
			delivery_line(o, &s->deliveries[j]);
			pr_buf_adds(o, "</li>");
		}
		pr_buf_adds(o, "</ul></td><td class=\"report\">");
		if (s->nr_versions)
			report_html(o, &s->versions[0], false);
		pr_buf_adds(o, "</td></tr>\n");
	}
	pr_buf_adds(o, "</tbody></table>");
end:
	pr_buf_adds(o, "</main></body></html>\n");
}

static void messages_html(struct pr_buf *o, const struct page_delivery *d,
			  const char *archive)
{
	size_t i;

	pr_buf_adds(o, "<ol class=\"messages\">");
	for (i = 0; i < d->nr_msgs; i++) {
		const struct page_msg *m = &d->msgs[i];

		pr_buf_addf(o, "<li class=\"message %s\">%s",
			    status_word(m->status), status_word(m->status));
		if (m->message_id) {
			struct pr_buf url = PR_BUF_INIT;

			pr_buf_adds(o, " <span class=\"message-id\">&lt;");
			if (archive)
				pr_outgoing_archive_link(&url, archive,
							 m->message_id);
			link(o, url.ptr, m->message_id);
			pr_buf_adds(o, "&gt;</span>");
			pr_buf_release(&url);
		}
		if (m->attempts > 1 || (m->attempts && m->status != 1))
			pr_buf_addf(o, ", %d attempts", m->attempts);
		if (m->last_error) {
			pr_buf_adds(o, " <span class=\"error\">(");
			esc(o, m->last_error);
			pr_buf_adds(o, ")</span>");
		}
		pr_buf_adds(o, "</li>");
	}
	pr_buf_adds(o, "</ol>");
}

static void series_html(struct pr_buf *o, const struct page_series *s,
			pr_page_archive_fn archive, void *payload)
{
	size_t i, j;

	page_head(o, title_of(s));
	pr_buf_adds(o, "<h1 class=\"title\">");
	esc(o, title_of(s));
	pr_buf_addf(o,
		    "</h1>\n<table class=\"summary\"><tr><th>State</th>"
		    "<td class=\"state %s\">%s</td></tr>"
		    "<tr><th>Version</th><td class=\"version\">v%d</td></tr>"
		    "<tr><th>Origin</th><td class=\"origin\">",
		    s->state, s->state, s->v.latest);
	origin_html(o, s);
	pr_buf_adds(o,
		    "</td></tr><tr><th>Submitter</th><td class=\"submitter\">");
	esc(o, s->v.submitter ? s->v.submitter : "-");
	pr_buf_adds(o, "</td></tr><tr><th>First seen</th><td>");
	when(o, s->v.created);
	pr_buf_adds(o, "</td></tr><tr><th>Updated</th><td>");
	when(o, s->v.updated);
	pr_buf_adds(o, "</td></tr><tr><th>Recipients</th>"
		       "<td class=\"recipients\">");
	recipients_html(o, s);
	pr_buf_adds(o, "</td></tr></table>\n<h2>Identities</h2>"
		       "<ul class=\"identities\"><li class=\"identity\">");
	esc(o, s->v.origin);
	pr_buf_adds(o, ": ");
	esc(o, s->v.key);
	pr_buf_adds(o, "</li>");
	if (web_url(s->v.url)) {
		pr_buf_adds(o, "<li class=\"identity\">link: ");
		link(o, s->v.url, s->v.url);
		pr_buf_adds(o, "</li>");
	}
	for (i = 0; i + 1 < s->identities.nr; i += 2) {
		pr_buf_adds(o, "<li class=\"identity\">");
		esc(o, s->identities.items[i]);
		pr_buf_adds(o, ": ");
		esc(o, s->identities.items[i + 1]);
		pr_buf_adds(o, "</li>");
	}
	for (i = 0; i < s->nr_deliveries; i++) {
		const struct page_delivery *d = &s->deliveries[i];
		const char *tmpl = archive ? archive(d->v.sink, payload) : NULL;

		for (j = 0; j < d->nr_msgs; j++) {
			struct pr_buf url = PR_BUF_INIT;

			if (!d->msgs[j].message_id)
				continue;
			if (tmpl)
				pr_outgoing_archive_link(&url, tmpl,
							 d->msgs[j].message_id);
			pr_buf_addf(o,
				    "<li class=\"identity\">Message-ID (v%d, ",
				    d->v.version);
			esc(o, d->v.sink);
			pr_buf_adds(o, "): &lt;");
			link(o, url.ptr, d->msgs[j].message_id);
			pr_buf_adds(o, "&gt;</li>");
			pr_buf_release(&url);
		}
	}
	pr_buf_adds(o, "</ul>\n<h2>Versions</h2>");
	for (i = 0; i < s->nr_versions; i++) {
		const struct page_version *v = &s->versions[i];

		pr_buf_addf(o,
			    "<section class=\"version\" id=\"v%d\"><h3>v%d: ",
			    v->v.number, v->v.number);
		esc(o, v->v.title ? v->v.title : "-");
		pr_buf_addf(o, "</h3><p>%d patch%s, seen ", v->v.nr_patches,
			    v->v.nr_patches == 1 ? "" : "es");
		when(o, v->v.created);
		if (v->v.landed_commit) {
			pr_buf_adds(o, "; landed on ");
			esc(o, v->v.landed_branch);
			pr_buf_adds(o, " as ");
			esc(o, v->v.landed_commit);
		}
		pr_buf_adds(o, "</p><div class=\"report\">Report: ");
		report_html(o, v, true);
		pr_buf_adds(o, "</div><ul class=\"deliveries\">");
		for (j = 0; j < s->nr_deliveries; j++) {
			const struct page_delivery *d = &s->deliveries[j];

			if (d->v.version != v->v.number)
				continue;
			pr_buf_adds(o, "<li class=\"delivery\">");
			delivery_line(o, d);
			messages_html(o, d,
				      archive ? archive(d->v.sink, payload)
					      : NULL);
			pr_buf_adds(o, "</li>");
		}
		pr_buf_adds(o, "</ul></section>\n");
	}
	pr_buf_adds(o, "</main></body></html>\n");
}

int pr_page_html(struct pr_buf *out, const struct pr_page *p,
		 pr_page_archive_fn archive, void *payload)
{
	if (p->detail && p->nr)
		series_html(out, &p->series[0], archive, payload);
	else
		list_html(out, p);
	return 0;
}

/* ---- JSON ---------------------------------------------------------- */

static void jkey(struct pr_buf *o, const char *key, const char *value)
{
	pr_buf_addf(o, "\"%s\":", key);
	pr_json_quotes(o, value);
}

static void rcpt_json(struct pr_buf *o, const struct page_rcpt *r)
{
	pr_buf_addf(o, "{\"role\":\"%s\",",
		    r->role == PR_RCPT_CC ? "cc" : "to");
	jkey(o, "name", r->name);
	pr_buf_addch(o, ',');
	jkey(o, "email", r->email);
	pr_buf_addch(o, ',');
	jkey(o, "reason", r->reason);
	pr_buf_addch(o, '}');
}

static void delivery_json(struct pr_buf *o, const struct page_delivery *d,
			  const char *archive, bool detail)
{
	size_t i;

	pr_buf_addch(o, '{');
	jkey(o, "sink", d->v.sink);
	pr_buf_addf(o,
		    ",\"version\":%d,\"messages\":%d,\"sent\":%d,"
		    "\"rejected\":%d,\"attempts\":%d,",
		    d->v.version, d->v.nr_messages, d->v.sent, d->v.rejected,
		    d->v.attempts);
	jkey(o, "last_error", d->v.last_error);
	pr_buf_adds(o, ",\"recipients\":[");
	for (i = 0; i < d->nr_rcpt; i++) {
		if (i)
			pr_buf_addch(o, ',');
		rcpt_json(o, &d->rcpt[i]);
	}
	pr_buf_addch(o, ']');
	if (detail) {
		pr_buf_adds(o, ",\"mails\":[");
		for (i = 0; i < d->nr_msgs; i++) {
			const struct page_msg *m = &d->msgs[i];
			struct pr_buf url = PR_BUF_INIT;

			if (archive && m->message_id)
				pr_outgoing_archive_link(&url, archive,
							 m->message_id);
			pr_buf_addf(o,
				    "%s{\"index\":%d,\"status\":\"%s\","
				    "\"attempts\":%d,",
				    i ? "," : "", m->index,
				    status_word(m->status), m->attempts);
			jkey(o, "message_id", m->message_id);
			pr_buf_addch(o, ',');
			jkey(o, "archive", url.len ? url.ptr : NULL);
			pr_buf_addch(o, ',');
			jkey(o, "last_error", m->last_error);
			pr_buf_addch(o, '}');
			pr_buf_release(&url);
		}
		pr_buf_addch(o, ']');
	}
	pr_buf_addch(o, '}');
}

static void report_json(struct pr_buf *o, const struct page_version *v)
{
	size_t i;

	pr_buf_addf(o, "{\"verdict\":\"%s\",\"entries\":[",
		    verdict_word(v->v.verdict));
	for (i = 0; i < v->nr_entries; i++) {
		const struct page_entry *e = &v->entries[i];

		pr_buf_addf(o, "%s{", i ? "," : "");
		jkey(o, "step", e->step);
		pr_buf_addch(o, ',');
		jkey(o, "rule", e->rule);
		pr_buf_addf(o, ",\"verdict\":\"%s\",\"patch\":%d,",
			    verdict_word(e->verdict), e->patch);
		jkey(o, "message", e->message);
		pr_buf_addch(o, ',');
		jkey(o, "detail", e->detail);
		pr_buf_addch(o, '}');
	}
	pr_buf_adds(o, "]}");
}

static void series_json(struct pr_buf *o, const struct page_series *s,
			bool detail, pr_page_archive_fn archive, void *payload)
{
	size_t i;

	pr_buf_addf(o, "{\"id\":%lld,", (long long)s->v.id);
	jkey(o, "origin", s->v.origin);
	pr_buf_addch(o, ',');
	jkey(o, "key", s->v.key);
	pr_buf_addch(o, ',');
	jkey(o, "title", s->v.title);
	pr_buf_addch(o, ',');
	jkey(o, "url", web_url(s->v.url) ? s->v.url : NULL);
	pr_buf_addch(o, ',');
	jkey(o, "submitter", s->v.submitter);
	pr_buf_addf(o,
		    ",\"version\":%d,\"state\":\"%s\",\"created\":%lld,"
		    "\"updated\":%lld,",
		    s->v.latest, s->state, (long long)s->v.created,
		    (long long)s->v.updated);
	if (s->v.landed_commit) {
		pr_buf_adds(o, "\"landed\":{");
		jkey(o, "branch", s->v.landed_branch);
		pr_buf_addch(o, ',');
		jkey(o, "commit", s->v.landed_commit);
		pr_buf_adds(o, "},");
	} else {
		pr_buf_adds(o, "\"landed\":null,");
	}
	pr_buf_adds(o, "\"report\":");
	if (s->nr_versions)
		report_json(o, &s->versions[0]);
	else
		pr_buf_adds(o, "null");
	pr_buf_adds(o, ",\"deliveries\":[");
	for (i = 0; i < s->nr_deliveries; i++) {
		const struct page_delivery *d = &s->deliveries[i];

		if (i)
			pr_buf_addch(o, ',');
		delivery_json(o, d,
			      archive ? archive(d->v.sink, payload) : NULL,
			      detail);
	}
	pr_buf_addch(o, ']');
	if (detail) {
		pr_buf_adds(o, ",\"identities\":[");
		for (i = 0; i + 1 < s->identities.nr; i += 2) {
			pr_buf_addf(o, "%s{", i ? "," : "");
			jkey(o, "kind", s->identities.items[i]);
			pr_buf_addch(o, ',');
			jkey(o, "value", s->identities.items[i + 1]);
			pr_buf_addch(o, '}');
		}
		pr_buf_adds(o, "],\"versions\":[");
		for (i = 0; i < s->nr_versions; i++) {
			const struct page_version *v = &s->versions[i];

			pr_buf_addf(o, "%s{\"number\":%d,", i ? "," : "",
				    v->v.number);
			jkey(o, "title", v->v.title);
			pr_buf_addf(o, ",\"patches\":%d,\"created\":%lld,",
				    v->v.nr_patches, (long long)v->v.created);
			jkey(o, "landed_commit", v->v.landed_commit);
			pr_buf_adds(o, ",\"report\":");
			report_json(o, v);
			pr_buf_addch(o, '}');
		}
		pr_buf_addch(o, ']');
	}
	pr_buf_addch(o, '}');
}

int pr_page_json(struct pr_buf *out, const struct pr_page *p,
		 pr_page_archive_fn archive, void *payload)
{
	size_t i;

	if (p->detail && p->nr) {
		series_json(out, &p->series[0], true, archive, payload);
	} else {
		pr_buf_adds(out, "{\"series\":[");
		for (i = 0; i < p->nr; i++) {
			if (i)
				pr_buf_addch(out, ',');
			series_json(out, &p->series[i], false, archive,
				    payload);
		}
		pr_buf_adds(out, "]}");
	}
	return pr_buf_addch(out, '\n');
}
