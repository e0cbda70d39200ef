#include "base/pr.h"

#include <time.h>
#include <zlib.h>

#include "mail/atom.h"
#include "engine/cfg.h"
#include "connectors.h"
#include "base/http.h"
#include "base/strset.h"
#include "mail/mailinfo.h"
#include "mailsrc.h"
#include "mail/mbox.h"
#include "pi_feed.h"

/*
 * The public-inbox source: reads a public-inbox archive (lore) over HTTP
 * and hands the messages to connectors/mailsrc.c as the maildir source
 * does.
 *
 * - A poll reads <inbox>/new.atom, then new.atom?t=<oldest second seen>,
 *   back until the cursor's `low` is reached or max-pages pages were read
 *   (connectors/pi_feed.h).  Then, for each entry at or after `low`, oldest
 *   first, whose message is not yet in the part being read, it fetches the
 *   whole thread as <inbox>/<msgid>/t.mbox.gz (the msgid escaped as
 *   public-inbox's mid_escape does), gunzipped and split as mboxrd.  Every
 *   message of the thread goes into the part, the older ones too: mailsrc
 *   emits only what is above the cursor's `high`, and the old ones give the
 *   grouping the cover letter and v1 the new mails answer.
 * - The entries are read in parts (pr_mailsrc_parts): when a part is full
 *   at an entry, the messages after that entry are dropped (the thread is
 *   fetched again with the entry that reaches them) and the part is
 *   emitted, so a catch-up holds one part and the list of its entries.
 * - A message's position is "<time as 20 digits>.<Message-ID>", the time
 *   the archive received it (pr_pi_mail_time: its first Received: date,
 *   else its Date), which is what an Atom entry's <updated> says and what
 *   the pages are sorted by; the cursor is mailsrc's (epoch "").  So a
 *   mail whose Date is behind (delayed) or ahead (a sender's clock) of
 *   its arrival is neither taken as seen nor hides the mail after it.
 * - Any failure (the feed or a thread answering other than 200, a truncated
 *   gzip, a transport error) is logged with its URL and fails the poll
 *   before anything more is emitted: the cursor stays where the last part
 *   left it and the next poll fetches the same threads from there, so
 *   nothing is lost or emitted twice.
 */

struct pi_src {
	const struct pr_instance *inst;
	const struct pr_public_inbox_ctx *ctx;
	struct pr_http_client http;
	struct pr_buf base; /* the inbox url, ending in '/' */
};

/* Append s escaped as public-inbox's mid_escape (PublicInbox::MID). */
static int mid_escape(struct pr_buf *out, const char *s)
{
	static const char safe[] = "-._~!$&'()*+,;=:@";
	const unsigned char *p = (const unsigned char *)s;
	int err = 0;

	for (; !err && *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(safe, *p))
			err = pr_buf_addch(out, *p);
		else
			err = pr_buf_addf(out, "%%%02X", *p);
	}
	return err;
}

static int position(struct pr_buf *out, int64_t time, const char *mid)
{
	return pr_buf_addf(out, "%020lld.%s", (long long)time, mid);
}

/*
 * GET url into resp; anything but 200 is an error, logged with the url.
 * A server that asks to wait (429 or 503 with Retry-After, a used-up rate
 * limit) gets "rate limited until T", so that the daemon does not ask
 * again before T.
 */
static int get(struct pi_src *s, struct pr_http_response *resp, const char *url)
{
	int64_t until;
	int err = pr_http_request(resp, &s->http, "GET", url, NULL, NULL);

	if (err) {
		pr_log_warn(s->inst->prefix, "GET %s failed: %s", url,
			    pr_error_message());
		return err;
	}
	if (resp->status != 200) {
		pr_log_warn(s->inst->prefix, "GET %s answered HTTP %ld", url,
			    resp->status);
		if (pr_http_rate_limited(&until, resp, (int64_t)time(NULL)))
			return pr_error(PR_EAGAIN,
					"public-inbox '%s': HTTP %ld: rate "
					"limited until %lld",
					url, resp->status, (long long)until);
		return pr_error(resp->status == 404 ? PR_ENOENT : PR_ENET,
				"public-inbox '%s': HTTP %ld", url,
				resp->status);
	}
	return 0;
}

/* Gunzip in into out (capped); a stream that does not end is an error. */
static int gunzip(struct pr_buf *out, const struct pr_buf *in, const char *url)
{
	z_stream z;
	char chunk[16384];
	int zr = Z_OK, err = 0;

	memset(&z, 0, sizeof(z));
	/* 16 + MAX_WBITS: a gzip header and trailer, not a zlib one */
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return pr_error(PR_EINTERNAL, "zlib: cannot start inflate");
	z.next_in = (Bytef *)in->ptr;
	z.avail_in = (uInt)in->len;
	while (zr != Z_STREAM_END) {
		z.next_out = (Bytef *)chunk;
		z.avail_out = sizeof(chunk);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END) {
			/* Z_BUF_ERROR with no input left: it stopped short */
			err = pr_error(PR_EPARSE,
				       "public-inbox '%s': %s gzip (%s)", url,
				       zr == Z_BUF_ERROR ? "truncated" : "bad",
				       z.msg ? z.msg : "no message");
			goto done;
		}
		if ((err = pr_buf_add(out, chunk, sizeof(chunk) - z.avail_out)))
			goto done;
		if (zr == Z_OK && !z.avail_in && z.avail_out) {
			err = pr_error(PR_EPARSE,
				       "public-inbox '%s': truncated gzip",
				       url);
			goto done;
		}
	}
done:
	inflateEnd(&z);
	return err;
}

/*
 * The part being read, and the Message-IDs in it: a set, so that a
 * catch-up of n messages makes n lookups of O(1) (a scan of the batch made
 * it quadratic).  By the id, not the position: an entry's time is when
 * the archive received the mail, which need not be the mail's Date.
 */
struct pi_batch {
	struct pr_mailsrc_parts parts;
	struct pr_strset mids;
};

/* The Message-ID in a position "<time as 20 digits>.<Message-ID>". */
static const char *pos_mid(const char *pos)
{
	return strlen(pos) > 21 ? pos + 21 : "";
}

/* The set again, of the messages the part kept. */
static void remember(struct pi_batch *batch)
{
	size_t i;

	pr_strset_release(&batch->mids);
	for (i = 0; i < batch->parts.b.nr; i++)
		pr_strset_add(&batch->mids, pos_mid(batch->parts.b.v[i].pos));
}

struct thread_ctx {
	struct pi_batch *batch;
	const char *url;
	const char *prefix;
};

/* mbox_split's callback: one message of a thread, at its position. */
static int add_message(const char *data, size_t len,
		       const struct pr_mbox_where *w, void *payload)
{
	struct thread_ctx *t = payload;
	struct pr_mailinfo mi;
	struct pr_buf pos = PR_BUF_INIT;
	int64_t time = 0;
	int err;

	pr_mailinfo_init(&mi);
	err = pr_mailinfo_parse(&mi, data, len);
	if (err == PR_EPARSE || err == PR_ETOOBIG || err == PR_EINVAL) {
		/* mailsrc would skip it too; say where it was */
		pr_log_warn(t->prefix, "message %zu of '%s' skipped: %s",
			    w->number, t->url, pr_error_message());
		err = 0;
		goto done;
	}
	if (err)
		goto done;
	if (!mi.message_id || !mi.message_id[0]) {
		pr_log_warn(t->prefix,
			    "message %zu of '%s' skipped: no Message-ID",
			    w->number, t->url);
		goto done;
	}
	/* where the feed sorts it, so that its entry and it agree */
	if (pr_pi_mail_time(&time, data, len) < 0)
		time = 0;
	if ((err = position(&pos, time, mi.message_id)))
		goto done;
	/* a thread fetched for two entries, or two threads sharing mails */
	if (pr_strset_add(&t->batch->mids, mi.message_id))
		pr_mailsrc_parts_add(&t->batch->parts, pos.ptr, data, len, 0);
done:
	pr_mailinfo_release(&mi);
	pr_buf_release(&pos);
	return err;
}

static int fetch_thread(struct pi_src *s, struct pi_batch *batch,
			const char *mid)
{
	struct pr_http_response resp;
	struct pr_buf url = PR_BUF_INIT, mbox;
	struct pr_mbox_opts mo = { true };
	struct thread_ctx t;
	int err;

	memset(&resp, 0, sizeof(resp));
	pr_buf_init(&mbox, PR_LIMIT_HTTP_BYTES);
	if ((err = pr_buf_addbuf(&url, &s->base)) ||
	    (err = mid_escape(&url, mid)) ||
	    (err = pr_buf_adds(&url, "/t.mbox.gz")) ||
	    (err = get(s, &resp, url.ptr)))
		goto done;
	if ((err = gunzip(&mbox, &resp.body, url.ptr))) {
		pr_log_warn(s->inst->prefix, "%s", pr_error_message());
		goto done;
	}
	t.batch = batch;
	t.url = url.ptr;
	t.prefix = s->inst->prefix;
	err = pr_mbox_split(mbox.ptr, mbox.len, url.ptr, &mo, add_message, &t);
done:
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	pr_buf_release(&mbox);
	return err;
}

static int setup(struct pi_src *s)
{
	const char *url = s->ctx->url;
	int err;

	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return pr_error(PR_ECONFIG,
				"url '%s': not an http:// or https:// url",
				url);
	if (strpbrk(url, "?#"))
		return pr_error(PR_ECONFIG,
				"url '%s': an inbox url has no query", url);
	if ((err = pr_buf_adds(&s->base, url)))
		return err;
	if (s->base.ptr[s->base.len - 1] != '/' &&
	    (err = pr_buf_addch(&s->base, '/')))
		return err;
	s->http.ca_file = s->ctx->ca_file;
	s->http.timeout_ms = s->ctx->timeout;
	s->http.log_prefix = s->inst->prefix;
	return 0;
}

static int pi_open(struct pr_instance *inst)
{
	struct pi_src s;
	int err;

	memset(&s, 0, sizeof(s));
	s.inst = inst;
	s.ctx = inst->ctx;
	pr_buf_init(&s.base, 0);
	err = setup(&s);
	if (!err && s.ctx->timeout < 0)
		err = pr_error(PR_ECONFIG, "timeout: must be 0 or more");
	if (!err && s.ctx->max_pages < 0)
		err = pr_error(PR_ECONFIG, "max-pages: must be 0 or more");
	pr_buf_release(&s.base);
	if (err)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	return err;
}

/*
 * Walk the feed back from its newest page until the cursor's low is
 * reached, collecting the positions of the wanted entries into want.  A
 * first poll (no cursor) reads at most max-pages pages (0: no limit), so
 * that it does not walk an archive's whole history.  A poll with a cursor
 * walks until it reaches it however many pages that takes: stopping short
 * would either skip the unread pages (the cursor moves over them) or
 * leave the source stuck after an outage.
 */
static int walk(struct pi_src *s, struct pr_strlist *want,
		const struct pr_mailsrc_cursor *prev)
{
	struct pr_pi_walk w;
	struct pr_pi_page pg;
	struct pr_http_response resp;
	struct pr_buf url = PR_BUF_INIT;
	const char *prefix = s->inst->prefix;
	char t[sizeof(pg.next_t)] = "";
	int64_t pages = 0;
	size_t i;
	int err = 0;

	memset(&w, 0, sizeof(w));
	memset(&pg, 0, sizeof(pg));
	memset(&resp, 0, sizeof(resp));
	w.low = prev->low;
	w.high = prev->high;
	w.prefix = prefix;
	for (;;) {
		pr_buf_reset(&url);
		if ((err = pr_buf_addbuf(&url, &s->base)) ||
		    (err = pr_buf_adds(&url, "new.atom")) ||
		    (t[0] && (err = pr_buf_addf(&url, "?t=%s", t))) ||
		    (err = get(s, &resp, url.ptr)) ||
		    (err = pr_pi_page_read(&pg, resp.body.ptr, resp.body.len,
					   url.ptr, &w)))
			goto done;
		pages++;
		for (i = 0; i < pg.nr; i++)
			pr_strlist_add(want, pg.v[i].pos);
		if (pg.stuck)
			pr_log_warn(prefix,
				    "feed '%s': more than a page of messages "
				    "arrived in the second %s; older ones are "
				    "on no page",
				    url.ptr, pg.next_t);
		if (!pg.more)
			break;
		if (!prev->low && s->ctx->max_pages &&
		    pages >= s->ctx->max_pages) {
			pr_log_info(prefix,
				    "first poll: read %lld pages (max-pages), "
				    "older mail left",
				    (long long)pages);
			break;
		}
		if (!w.first_entries)
			w.first_entries = pg.entries;
		memcpy(t, pg.next_t, sizeof(t));
		w.t = t;
		pr_pi_page_release(&pg);
		pr_http_response_release(&resp);
		memset(&resp, 0, sizeof(resp));
	}
done:
	pr_pi_page_release(&pg);
	pr_http_response_release(&resp);
	pr_buf_release(&url);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The thread of each wanted entry, oldest first, whose message is not yet
 * in the part: each thread once a part, however many of its messages the
 * pages listed.  A part ends at an entry once it is full.
 */
static int fetch_threads(struct pi_src *s, struct pi_batch *batch,
			 struct pr_strlist *want,
			 const struct pr_mailsrc_opts *o, pr_event_fn emit,
			 void *payload)
{
	size_t i, k, fetched = 0;
	int err = 0;

	if (want->nr)
		qsort(want->items, want->nr, sizeof(*want->items), cmp_str);
	for (i = 0, k = 0; i < want->nr; i++) {
		const char *mid = pos_mid(want->items[i]);
		bool last = i + 1 == want->nr;

		if (!pr_strset_has(&batch->mids, mid)) {
			if ((err = fetch_thread(s, batch, mid)))
				return err;
			fetched++;
		}
		if (!last && !pr_mailsrc_parts_full(&batch->parts))
			continue;
		pr_log_debug(s->inst->prefix,
			     "entries %zu to %zu of %zu: fetched %zu threads, "
			     "%zu messages",
			     k + 1, i + 1, want->nr, fetched,
			     batch->parts.b.nr);
		if (!last)
			pr_mailsrc_parts_cut(&batch->parts, want->items[i]);
		if ((err = pr_mailsrc_parts_emit(&batch->parts, last, o, emit,
						 payload)))
			return err;
		remember(batch);
		k = i + 1;
		fetched = 0;
	}
	/* nothing wanted: a poll that emits nothing */
	return 0;
}

static int pi_poll(struct pr_instance *inst, const char *cursor,
		   pr_event_fn emit, void *payload)
{
	const struct pr_public_inbox_ctx *ctx = inst->ctx;
	struct pr_mailsrc_cursor prev;
	struct pi_batch batch;
	struct pr_mailsrc_opts o;
	struct pr_strlist want;
	struct pi_src s;
	struct pr_buf archive = PR_BUF_INIT;
	int err = 0;

	memset(&prev, 0, sizeof(prev));
	memset(&batch, 0, sizeof(batch));
	memset(&want, 0, sizeof(want));
	memset(&s, 0, sizeof(s));
	s.inst = inst;
	s.ctx = ctx;
	pr_buf_init(&s.base, 0);
	if (cursor && (err = pr_mailsrc_cursor_parse(&prev, cursor)))
		goto done;
	/* one connection for the pages and the threads */
	s.http.share = pr_http_share_new();
	if ((err = setup(&s)) || (err = walk(&s, &want, &prev)) ||
	    (err = pr_mailsrc_parts_init(&batch.parts, cursor ? &prev : NULL)))
		goto done;
	pr_mailsrc_opts_init(&o, inst, ctx->wait, &ctx->trusted,
			     (int64_t)time(NULL));
	/* the inbox's link to a message: <inbox>/<Message-ID>/ */
	if ((err = pr_buf_addf(&archive, "%s%%m/", s.base.ptr)))
		goto done;
	o.archive = archive.ptr;
	err = fetch_threads(&s, &batch, &want, &o, emit, payload);
done:
	if (err < 0)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	pr_http_share_free(s.http.share);
	pr_buf_release(&s.base);
	pr_buf_release(&archive);
	pr_mailsrc_cursor_release(&prev);
	pr_mailsrc_parts_release(&batch.parts);
	pr_strset_release(&batch.mids);
	pr_strlist_release(&want);
	return err;
}

static const struct pr_option pi_options[] = {
	{ "url", PR_OPT_STRING, NULL,
	  "the inbox's address, e.g. https://lore.kernel.org/netdev/",
	  offsetof(struct pr_public_inbox_ctx, url), true, NULL },
	{ "ca-file", PR_OPT_PATH, NULL,
	  "CA certificates to verify the server with (default: the system's)",
	  offsetof(struct pr_public_inbox_ctx, ca_file), false, NULL },
	{ "timeout", PR_OPT_DURATION, "60s",
	  "how long one HTTP request may take",
	  offsetof(struct pr_public_inbox_ctx, timeout), false, NULL },
	{ "max-pages", PR_OPT_INT, "10",
	  "how many pages of the feed a first poll reads back (0: no limit)",
	  offsetof(struct pr_public_inbox_ctx, max_pages), false, NULL },
	PR_MAILSRC_OPTIONS(struct pr_public_inbox_ctx),
	PR_OPTIONS_END,
};

const struct pr_connector_type pr_connector_public_inbox = {
	.abi = PR_ABI_VERSION,
	.name = "public-inbox",
	.summary = "a public-inbox archive (lore) read over HTTP, as a source",
	.caps = PR_CAP_SOURCE,
	.options = pi_options,
	.ctx_size = sizeof(struct pr_public_inbox_ctx),
	.open = pi_open,
	.poll = pi_poll,
};
