#include "base/pr.h"

#include <time.h>

#include "mail/atom.h"
#include "mail/mail.h"
#include "mailsrc.h"
#include "pi_feed.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int pr_pi_link_mid(struct pr_buf *out, const char *link)
{
	size_t n = strlen(link), start;

	while (n && link[n - 1] == '/')
		n--;
	start = n;
	while (start && link[start - 1] != '/')
		start--;
	if (start == n)
		goto bad;
	for (; start < n; start++) {
		int hi, lo, err;

		if (link[start] != '%') {
			err = pr_buf_addch(out, link[start]);
		} else {
			hi = start + 2 < n ? hexval(link[start + 1]) : -1;
			lo = hi < 0 ? -1 : hexval(link[start + 2]);
			if (lo < 0 || (hi == 0 && lo == 0))
				goto bad;
			err = pr_buf_addch(out, hi * 16 + lo);
			start += 2;
		}
		if (err)
			return err;
	}
	return 0;
bad:
	return pr_error(PR_EPARSE, "link '%.200s': names no message", link);
}

/* The second a position starts with; -1 when it starts with no digits. */
static int64_t pos_time(const char *pos)
{
	int64_t t = 0;
	int n = 0;

	for (; *pos >= '0' && *pos <= '9' && n < 20; pos++, n++) {
		if (t > (INT64_MAX - 9) / 10)
			return -1;
		t = t * 10 + (*pos - '0');
	}
	return n ? t : -1;
}

static int add_want(struct pr_pi_page *p, const char *mid, const char *pos)
{
	PR_ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr].mid = pr_strdup(mid);
	p->v[p->nr].pos = pr_strdup(pos);
	p->nr++;
	return 0;
}

/* Is the entry at pos one a poll from the cursor must see? */
static bool wanted(const struct pr_pi_walk *w, const char *pos)
{
	if (!w->low)
		return true;
	if (strcmp(pos, w->low) < 0)
		return false;
	/* nothing waits: the newest message seen needs no new fetch */
	return !(w->high && !strcmp(w->low, w->high) && !strcmp(pos, w->high));
}

int pr_pi_page_read(struct pr_pi_page *out, const char *data, size_t len,
		    const char *url, const struct pr_pi_walk *w)
{
	struct pr_atom_feed feed = { NULL, 0, 0 };
	struct pr_buf mid = PR_BUF_INIT, pos = PR_BUF_INIT;
	int64_t oldest = -1, low_time;
	struct tm tm;
	time_t tt;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = pr_atom_parse(&feed, data, len, url)))
		goto done;
	/* a page cut between two entries would parse, and look like the
	 * oldest page: public-inbox and lore end every one with </feed> */
	while (len && strchr(" \t\r\n", data[len - 1]))
		len--;
	if (len < 7 || memcmp(data + len - 7, "</feed>", 7)) {
		err = pr_error(PR_EPARSE,
			       "atom '%s' offset %zu: a page that does not end "
			       "with </feed>",
			       url, len);
		goto done;
	}
	out->entries = feed.nr;
	/* newest first in the feed: walk it backwards, oldest first */
	for (i = feed.nr; i-- > 0;) {
		const struct pr_atom_entry *e = &feed.v[i];

		pr_buf_reset(&mid);
		pr_buf_reset(&pos);
		if (!e->link || pr_pi_link_mid(&mid, e->link) < 0) {
			pr_log_warn(w->prefix,
				    "feed '%s': entry '%s' skipped: no link "
				    "to a message",
				    url, e->id ? e->id : "");
			pr_error_clear();
			continue;
		}
		if (e->time >= 0 && (oldest < 0 || e->time < oldest))
			oldest = e->time;
		if ((err = pr_buf_addf(&pos, "%020lld.%s",
				       (long long)(e->time < 0 ? 0 : e->time),
				       mid.ptr)))
			goto done;
		if (wanted(w, pos.ptr) &&
		    (err = add_want(out, mid.ptr, pos.ptr)))
			goto done;
	}
	if (oldest < 0)
		goto done; /* no dated entry: nothing to page back from */
	tt = (time_t)oldest;
	if (!gmtime_r(&tt, &tm) || tm.tm_year + 1900 > 9999)
		goto done;
	snprintf(out->next_t, sizeof(out->next_t), "%04d%02d%02d%02d%02d%02d",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec);
	low_time = w->low ? pos_time(w->low) : -1;
	if (low_time >= 0 && oldest < low_time)
		goto done; /* the cursor is reached */
	if (w->t && !strcmp(w->t, out->next_t)) {
		/* no older second on the page: the oldest page, or a full one
		 * that one second fills */
		out->stuck = feed.nr >= w->first_entries;
		goto done;
	}
	/* a page shorter than the first need not be the oldest: the
	 * archive leaves out a message whose blob it cannot read */
	out->more = true;
done:
	pr_atom_feed_release(&feed);
	pr_buf_release(&mid);
	pr_buf_release(&pos);
	if (err)
		pr_pi_page_release(out);
	return err;
}

void pr_pi_page_release(struct pr_pi_page *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		free(p->v[i].mid);
		free(p->v[i].pos);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int pr_pi_mail_time(int64_t *out, const char *data, size_t len)
{
	struct pr_mail_headers h = PR_MAIL_HEADERS_INIT;
	size_t body, i;
	int err = PR_ENOENT;

	if (pr_mail_headers_parse(&h, data, len, &body) < 0) {
		pr_error_clear();
		goto done;
	}
	for (i = 0; err && i < h.nr; i++) {
		const char *semi;

		if (strcasecmp(h.v[i].name, "received"))
			continue;
		semi = strrchr(h.v[i].value, ';');
		if (semi && !pr_mail_parse_date(out, semi + 1))
			err = 0;
		pr_error_clear();
	}
	if (err) {
		const char *date = pr_mail_headers_get(&h, "date");

		if (date && !pr_mail_parse_date(out, date))
			err = 0;
		pr_error_clear();
	}
done:
	pr_mail_headers_release(&h);
	return err;
}
