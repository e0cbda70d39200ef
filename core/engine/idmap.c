#include "base/pr.h"

#include <time.h>

#include "base/strlist.h"
#include "engine/idmap.h"
#include "engine/sql.h"
#include "engine/store.h"
#include "mail/assemble.h"

/*
 * The identity map's queries (idmap.h) on the tables of schema 6 and on
 * the identities and deliveries of the store.
 */

static void add_once(struct pr_strlist *out, const char *s, size_t n)
{
	struct pr_buf b = PR_BUF_INIT;
	size_t i;

	/* a %00 in a link must not make a shorter (or an empty) id */
	if (!n || memchr(s, '\0', n) || pr_buf_add(&b, s, n))
		goto done;
	for (i = 0; i < out->nr; i++)
		if (!strcmp(out->items[i], b.ptr))
			goto done;
	pr_strlist_add(out, b.ptr);
done:
	pr_buf_release(&b);
}

/* The digits of a Patchwork id at s (n bytes), ended by '/' or the end. */
static size_t pw_number(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && k < 18 && s[k] >= '0' && s[k] <= '9')
		k++;
	return k && (k == n || s[k] == '/') ? k : 0;
}

/* "KIND/N" at s (n bytes) for the kinds kinds[] names, as out. */
static int pw_object(struct pr_buf *out, const char *root, size_t rlen,
		     const char *s, size_t n, const char *const *kinds,
		     const char *const *api)
{
	size_t i, k, d;

	for (i = 0; kinds[i]; i++) {
		k = strlen(kinds[i]);
		if (n <= k + 1 || memcmp(s, kinds[i], k) || s[k] != '/')
			continue;
		if (!(d = pw_number(s + k + 1, n - k - 1)))
			return PR_ENOENT;
		return pr_buf_addf(out, "%.*s/api/%s/%.*s/", (int)rlen, root,
				   api[i], (int)d, s + k + 1);
	}
	return PR_ENOENT;
}

/* pr_idmap_patchwork_url() of a NUL-terminated url. */
static int pw_url(struct pr_buf *out, const char *url)
{
	static const char *const api[] = { "patches", "covers", "series",
					   NULL };
	static const char *const web[] = { "patch", "cover", "series", NULL };
	const char *host = strstr(url, "://"), *path, *end, *at, *q;
	size_t plen, d;

	if (!host)
		return PR_ENOENT;
	host += 3;
	path = strchr(host, '/');
	if (!path || path == host)
		return PR_ENOENT;
	end = path + strcspn(path, "?#");
	plen = (size_t)(end - path);
	/* ROOT/api/[VERSION/]KIND/N/ */
	if ((at = memmem(path, plen, "/api/", 5))) {
		const char *s = at + 5;

		d = strspn(s, "0123456789.");
		if (d && s + d < end && s[d] == '/')
			s += d + 1;
		return pw_object(out, url, (size_t)(at - url), s,
				 (size_t)(end - s), api, api);
	}
	/* ROOT/project/P/list/?series=N, ROOT/project/P/KIND/N/ */
	if ((at = memmem(path, plen, "/project/", 9))) {
		const char *s = memchr(at + 9, '/', (size_t)(end - at - 9));

		if (!s)
			return PR_ENOENT;
		s++;
		if ((size_t)(end - s) >= 5 && !memcmp(s, "list/", 5) &&
		    (q = strstr(end, "series=")) &&
		    (q[-1] == '?' || q[-1] == '&') &&
		    (d = strspn(q + 7, "0123456789")) && d <= 18)
			return pr_buf_addf(out, "%.*s/api/series/%.*s/",
					   (int)(at - url), url, (int)d, q + 7);
		return pw_object(out, url, (size_t)(at - url), s,
				 (size_t)(end - s), web, api);
	}
	/* ROOT/KIND/N/ (the web pages before 2.2, a series' mbox) */
	for (at = path; at && at < end;
	     at = memchr(at + 1, '/', (size_t)(end - at - 1))) {
		if (!pw_object(out, url, (size_t)(at - url), at + 1,
			       (size_t)(end - at - 1), web, api))
			return 0;
		pr_buf_reset(out);
	}
	return PR_ENOENT;
}

int pr_idmap_patchwork_url(struct pr_buf *out, const char *url, size_t len)
{
	struct pr_buf u = PR_BUF_INIT, v = PR_BUF_INIT;
	int err;

	if (memchr(url, '\0', len) || (err = pr_buf_add(&u, url, len)))
		return PR_ENOENT;
	if (!(err = pw_url(&v, u.ptr)))
		err = pr_buf_add(out, v.ptr, v.len);
	pr_buf_release(&u);
	pr_buf_release(&v);
	return err;
}

int pr_idmap_candidates(struct pr_strlist *out, const char *id)
{
	struct pr_buf mid = PR_BUF_INIT;
	const char *s = id + strspn(id, " \t\r\n"), *bang;
	size_t n = strlen(s);
	int err = 0;

	while (n && strchr(" \t\r\n", s[n - 1]))
		n--;
	add_once(out, s, n);
	if (n > 2 && s[0] == '<' && s[n - 1] == '>')
		add_once(out, s + 1, n - 2);
	if (memmem(s, n, "://", 3)) {
		if (pr_idmap_patchwork_url(&mid, s, n) == 0)
			add_once(out, mid.ptr, mid.len);
		pr_buf_reset(&mid);
		err = pr_assemble_link_msgid(&mid, s, n);
		/* a Message-ID has its '@': github.com/o/r/pull names none */
		if (!err && memchr(mid.ptr, '@', mid.len))
			add_once(out, mid.ptr, mid.len);
		else if (err == PR_ENOENT)
			err = 0;
	} else if ((bang = memchr(s, '!', n)) && bang > s) {
		pr_buf_reset(&mid);
		if (!(err = pr_buf_add(&mid, s, n))) {
			mid.ptr[bang - s] = '#';
			add_once(out, mid.ptr, mid.len);
		}
	}
	pr_buf_release(&mid);
	return err;
}

/* The series ids a query of one value gives, ascending. */
static int find_ids(int64_t **out, size_t *nr, struct pr_store *st,
		    const char *sql, const char *value)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	size_t alloc = 0;
	int err;

	*out = NULL;
	*nr = 0;
	err = pr_sql_prepare(&q, pr_store_sql(st), "find an id", sql, "s",
			     value);
	while (!err && (err = pr_sql_next(&q)) == 1) {
		PR_ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = pr_sql_int64(&q, 0);
		err = 0;
	}
	pr_sql_finish(&q);
	if (err < 0) {
		free(*out);
		*out = NULL;
		*nr = 0;
		return err;
	}
	return 0;
}

int pr_idmap_find(int64_t **out, size_t *nr, struct pr_store *st,
		  const char *value)
{
	return find_ids(out, nr, st,
			"SELECT series_id FROM identities WHERE value = ?1"
			" UNION SELECT id FROM series WHERE key = ?1"
			" UNION SELECT series_id FROM mails"
			"  WHERE message_id = ?1"
			" UNION SELECT d.series_id FROM delivery_messages m"
			"  JOIN deliveries d ON d.id = m.delivery_id"
			"  WHERE m.message_id = ?1"
			" ORDER BY 1",
			value);
}

int pr_idmap_find_written(int64_t **out, size_t *nr, struct pr_store *st,
			  const char *value)
{
	return find_ids(out, nr, st,
			"SELECT series_id FROM identities"
			"  WHERE value = ?1 AND kind != 'message-id'"
			" UNION SELECT d.series_id FROM delivery_messages m"
			"  JOIN deliveries d ON d.id = m.delivery_id"
			"  WHERE m.message_id = ?1"
			" ORDER BY 1",
			value);
}

int pr_idmap_series(struct pr_buf *origin, struct pr_buf *key,
		    struct pr_store *st, int64_t series_id)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_row(&q, pr_store_sql(st), "read series",
			 "SELECT origin, key FROM series WHERE id = ?", "I",
			 series_id);
	if (!err && !(err = pr_sql_add(origin, &q, 0)))
		err = pr_sql_add(key, &q, 1);
	pr_sql_finish(&q);
	return err;
}

/* The 1-based place of id in the space-separated list, 0: none. */
static int place_in(const char *list, const char *id)
{
	size_t n = strlen(id);
	int i = 1;

	while (*list) {
		size_t k = strcspn(list, " ");

		if (k == n && !memcmp(list, id, n))
			return i;
		list += k + strspn(list + k, " ");
		i++;
	}
	return 0;
}

int pr_idmap_listed(int *version, int *idx, struct pr_store *st,
		    int64_t series_id, const char *id)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err, best = 0;

	*version = *idx = 0;
	if (!id || !*id || strchr(id, ' '))
		return PR_ENOENT;
	err = pr_sql_prepare(&q, pr_store_sql(st), "find a listed id",
			     "SELECT kind, value FROM identities"
			     " WHERE series_id = ? AND kind LIKE '%:v%'"
			     " AND instr(' ' || value || ' ', ' ' || ? || ' ')",
			     "Is", series_id, id);
	while (!err && (err = pr_sql_next(&q)) == 1) {
		const char *kind = pr_sql_text(&q, 0), *v = strrchr(kind, ':');
		long n = v && v[1] == 'v' ? strtol(v + 2, NULL, 10) : 0;
		int at = place_in(pr_sql_text(&q, 1), id);

		err = 0;
		if (n > best && n < 1000000 && at) {
			best = (int)n;
			*version = best;
			*idx = at;
		}
	}
	pr_sql_finish(&q);
	if (err < 0)
		return err;
	return best ? 0 : PR_ENOENT;
}

/* Run q and hand each row's (kind, value, note) columns to fn. */
static int each_row(struct pr_sql_stmt *q, pr_idmap_fn fn, void *payload)
{
	int err;

	while ((err = pr_sql_next(q)) == 1) {
		err = fn(pr_sql_text(q, 0), pr_sql_text(q, 1),
			 pr_sql_text(q, 2), payload);
		if (err)
			return err;
	}
	return err;
}

int pr_idmap_foreach(struct pr_store *st, int64_t series_id, pr_idmap_fn fn,
		     void *payload)
{
	static const struct {
		const char *what, *sql;
	} parts[] = {
		{ "read identities", "SELECT kind, value, NULL FROM identities"
				     " WHERE series_id = ? ORDER BY rowid" },
		{ "read sent messages",
		  "SELECT 'sent', m.message_id, 'v' || d.version || ' '"
		  "  || (m.idx + 1) || '/' || d.nr_messages || ' to '"
		  "  || d.sink FROM delivery_messages m"
		  " JOIN deliveries d ON d.id = m.delivery_id"
		  " WHERE d.series_id = ? AND m.message_id IS NOT NULL"
		  " ORDER BY d.version, d.sink, m.idx" },
		{ "read relays",
		  "SELECT 'relayed', posted, item || ' to ' || sink"
		  " FROM relays WHERE series_id = ? AND posted IS NOT NULL"
		  " ORDER BY time, rowid" },
	};
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	size_t i;
	int err = 0;

	for (i = 0; i < PR_ARRAY_SIZE(parts) && !err; i++) {
		err = pr_sql_prepare(&q, pr_store_sql(st), parts[i].what,
				     parts[i].sql, "I", series_id);
		if (!err)
			err = each_row(&q, fn, payload);
	}
	pr_sql_finish(&q);
	return err;
}

/* ---- mails ---- */

void pr_idmap_mail_release(struct pr_idmap_mail *m)
{
	free(m->message_id);
	free(m->subject);
	free(m->refs);
	memset(m, 0, sizeof(*m));
}

int pr_idmap_mail_add(struct pr_store *st, const char *message_id,
		      int64_t series_id, int version, int idx,
		      const char *subject, const char *refs)
{
	return pr_sql_run(pr_store_sql(st), "record mail",
			  "INSERT OR IGNORE INTO mails (message_id, series_id,"
			  " version, idx, subject, refs)"
			  " VALUES (?, ?, ?, ?, ?, ?)",
			  "sIiiss", message_id, series_id, version, idx,
			  subject ? subject : "", refs ? refs : "");
}

/* The columns of a mail row, as MAIL_COLUMNS lists them, into out. */
#define MAIL_COLUMNS "message_id, subject, refs, series_id, version, idx"

static void mail_from_row(struct pr_idmap_mail *out, struct pr_sql_stmt *q)
{
	out->message_id = pr_strdup(pr_sql_text(q, 0));
	out->subject = pr_strdup(pr_sql_text(q, 1));
	out->refs = pr_strdup(pr_sql_text(q, 2));
	out->series_id = pr_sql_int64(q, 3);
	out->version = pr_sql_int(q, 4);
	out->idx = pr_sql_int(q, 5);
}

int pr_idmap_mail_get(struct pr_idmap_mail *out, struct pr_store *st,
		      int64_t series_id, int version, int idx)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	memset(out, 0, sizeof(*out));
	err = pr_sql_row(&q, pr_store_sql(st), "find mail",
			 "SELECT " MAIL_COLUMNS " FROM mails"
			 " WHERE series_id = ? AND version = ? AND idx = ?"
			 " ORDER BY rowid LIMIT 1",
			 "Iii", series_id, version, idx);
	if (!err)
		mail_from_row(out, &q);
	pr_sql_finish(&q);
	return err;
}

int pr_idmap_mail_find(struct pr_idmap_mail *out, struct pr_store *st,
		       const char *message_id)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	memset(out, 0, sizeof(*out));
	err = pr_sql_row(&q, pr_store_sql(st), "find mail",
			 "SELECT " MAIL_COLUMNS " FROM mails"
			 " WHERE message_id = ?",
			 "s", message_id);
	if (!err)
		mail_from_row(out, &q);
	pr_sql_finish(&q);
	return err;
}

int pr_idmap_patch_id(char out[41], struct pr_store *st, int64_t series_id,
		      int version, int idx)
{
	struct pr_buf b = PR_BUF_INIT;
	int err;

	out[0] = '\0';
	err = pr_sql_get_bytes(&b, pr_store_sql(st), "find patch-id",
			       "SELECT patch_id FROM version_patches WHERE"
			       " series_id = ? AND number = ? AND idx = ?",
			       "Iii", series_id, version, idx);
	if (!err && b.len == 40)
		memcpy(out, b.ptr, 41);
	pr_buf_release(&b);
	return err == PR_ENOENT ? 0 : err;
}

int pr_idmap_mail_version(int *out, struct pr_store *st, int64_t series_id)
{
	int64_t v;
	int err;

	err = pr_sql_get_int64(&v, pr_store_sql(st), "find mailed version",
			       "SELECT max(version) FROM mails"
			       " WHERE series_id = ? HAVING count(*) > 0",
			       "I", series_id);
	if (!err)
		*out = (int)v;
	return err;
}

/* ---- relays ---- */

/* 1 when the query finds a row, 0 when not. */
static int exists(struct pr_store *st, const char *what, const char *sql,
		  const char *a, const char *b)
{
	int64_t n;
	int err;

	err = b ? pr_sql_get_int64(&n, pr_store_sql(st), what, sql, "ss", a, b)
		: pr_sql_get_int64(&n, pr_store_sql(st), what, sql, "s", a);
	if (err == PR_ENOENT)
		return 0;
	return err ? err : 1;
}

int pr_idmap_relayed(struct pr_store *st, const char *item, const char *sink)
{
	return exists(st, "find relay",
		      "SELECT 1 FROM relays WHERE item = ? AND sink = ?", item,
		      sink);
}

int pr_idmap_relay_add(struct pr_store *st, const char *item, const char *sink,
		       int64_t series_id, const char *posted)
{
	return pr_sql_run(pr_store_sql(st), "record relay",
			  "INSERT OR IGNORE INTO relays (item, sink, series_id,"
			  " posted, time) VALUES (?, ?, ?, ?, ?)",
			  "ssIsI", item, sink, series_id, posted,
			  (int64_t)time(NULL));
}

int pr_idmap_is_ours(struct pr_store *st, const char *id)
{
	return exists(st, "find what patchrelay wrote",
		      "SELECT 1 FROM relays WHERE posted = ?1"
		      " UNION SELECT 1 FROM delivery_messages"
		      " WHERE message_id = ?1",
		      id, NULL);
}

/* ---- trailers ---- */

int pr_idmap_trailer_add(struct pr_store *st, int64_t series_id,
			 const struct pr_idmap_trailer *t, const char *item)
{
	return pr_sql_run(pr_store_sql(st), "record trailer",
			  "INSERT OR IGNORE INTO trailers (series_id, version,"
			  " idx, patch_id, key, value, item)"
			  " VALUES (?, ?, ?, ?, ?, ?, ?)",
			  "Iiissss", series_id, t->version, t->idx,
			  t->patch_id && *t->patch_id ? t->patch_id : NULL,
			  t->key, t->value, item);
}

int pr_idmap_trailers(struct pr_store *st, int64_t series_id,
		      pr_idmap_trailer_fn fn, void *payload)
{
	struct pr_sql_stmt q = PR_SQL_STMT_INIT;
	int err;

	err = pr_sql_prepare(&q, pr_store_sql(st), "read trailers",
			     "SELECT version, idx, patch_id, key, value"
			     " FROM trailers WHERE series_id = ? ORDER BY seq",
			     "I", series_id);
	while (!err && (err = pr_sql_next(&q)) == 1) {
		struct pr_idmap_trailer t = {
			pr_sql_int(&q, 0),  pr_sql_int(&q, 1),
			pr_sql_text(&q, 2), pr_sql_text(&q, 3),
			pr_sql_text(&q, 4),
		};

		err = fn(&t, payload);
	}
	pr_sql_finish(&q);
	return err;
}
