#include "base/pr.h"
#include "base/json.h"
#include "mail/mailjson.h"
#include "mail/mail.h"

/*
 * key = p[0..len) as a JSON string: itself when it is UTF-8 without a NUL
 * (returns true), else read as latin-1 with each NUL shown as U+FFFD (many
 * JSON readers refuse "\u0000").
 */
static bool readable(struct pr_jsonw *w, const char *key, const char *p,
		     size_t len)
{
	struct pr_buf u = PR_BUF_INIT;
	const char *nul = NULL;
	size_t i;

	if (pr_jsonw_str_utf8(w, key, p, len))
		return true;
	for (i = 0; i < len; i = nul ? (size_t)(nul - p) + 1 : len) {
		nul = memchr(p + i, 0, len - i);
		pr_mail_add_utf8_or_latin1(&u, p + i,
					   (nul ? (size_t)(nul - p) : len) - i);
		if (nul)
			pr_buf_adds(&u, "\xef\xbf\xbd");
	}
	pr_jsonw_str(w, key, u.ptr, u.len);
	pr_buf_release(&u);
	return false;
}

static void base64(struct pr_jsonw *w, const char *key, const char *p,
		   size_t len)
{
	struct pr_buf b = PR_BUF_INIT;

	pr_mail_b64_encode(&b, p, len);
	pr_jsonw_str(w, key, b.ptr, b.len);
	pr_buf_release(&b);
}

/* key_base64 in a buffer of its own */
static const char *b64_key(struct pr_buf *k, const char *key)
{
	pr_buf_reset(k);
	pr_buf_addf(k, "%s_base64", key);
	return k->ptr;
}

void pr_mailjson_field(struct pr_jsonw *w, const char *key, const char *p,
		       size_t len, const char *exact, size_t exact_len)
{
	struct pr_buf k = PR_BUF_INIT;
	bool same = readable(w, key, p, len);

	if (exact)
		base64(w, b64_key(&k, key), exact, exact_len);
	else if (!same)
		base64(w, b64_key(&k, key), p, len);
	pr_buf_release(&k);
}

void pr_mailjson_field_str(struct pr_jsonw *w, const char *key, const char *s)
{
	if (s)
		pr_mailjson_field(w, key, s, strlen(s), NULL, 0);
	else
		pr_jsonw_null(w, key);
}

void pr_mailjson_field_list(struct pr_jsonw *w, const char *key, char *const *v,
			    size_t n)
{
	struct pr_buf k = PR_BUF_INIT;
	bool any = false;
	size_t i;

	pr_jsonw_open(w, key, '[');
	for (i = 0; i < n; i++) {
		if (!v[i])
			pr_jsonw_null(w, NULL);
		else if (!readable(w, NULL, v[i], strlen(v[i])))
			any = true;
	}
	pr_jsonw_close(w, ']');
	if (!any)
		return;
	/* null where the entry is UTF-8 */
	pr_jsonw_open(w, b64_key(&k, key), '[');
	for (i = 0; i < n; i++) {
		size_t len = v[i] ? strlen(v[i]) : 0;

		if (v[i] &&
		    (memchr(v[i], 0, len) || !pr_mail_is_utf8(v[i], len)))
			base64(w, NULL, v[i], len);
		else
			pr_jsonw_null(w, NULL);
	}
	pr_jsonw_close(w, ']');
	pr_buf_release(&k);
}

/* A model string with git mailinfo's bytes beside it (NULL: the same). */
static void with_bytes(struct pr_jsonw *w, const char *key, const char *s,
		       const char *bytes)
{
	pr_mailjson_field(w, key, s, strlen(s), bytes,
			  bytes ? strlen(bytes) : 0);
}

void pr_mailjson_write(struct pr_jsonw *w, const char *key,
		       const struct pr_mailinfo *mi)
{
	size_t i;

	pr_jsonw_open(w, key, '{');
	pr_mailjson_field_str(w, "message_id", mi->message_id);
	pr_mailjson_field_str(w, "in_reply_to", mi->in_reply_to);
	pr_mailjson_field_list(w, "references", mi->references,
			       mi->nr_references);
	pr_jsonw_open(w, "from", '{');
	with_bytes(w, "name", mi->name, mi->bytes.name);
	with_bytes(w, "email", mi->email, mi->bytes.email);
	pr_jsonw_close(w, '}');
	with_bytes(w, "date", mi->date, mi->bytes.date);
	with_bytes(w, "subject", mi->subject, mi->bytes.subject);
	with_bytes(w, "subject_raw", mi->subject_raw, mi->bytes.subject_raw);
	pr_jsonw_open(w, "prefix", '{');
	pr_mailjson_field_str(w, "list", mi->prefix.list);
	pr_jsonw_bool(w, "rfc", mi->prefix.rfc);
	pr_jsonw_int(w, "version", mi->prefix.version);
	pr_jsonw_int(w, "index", mi->prefix.index);
	pr_jsonw_int(w, "total", mi->prefix.total);
	pr_jsonw_close(w, '}');
	pr_jsonw_strs(w, "kind", pr_mail_kind_name(mi->kind));
	pr_mailjson_field(w, "body", mi->msg.ptr, mi->msg.len,
			  mi->bytes.has_msg ? mi->bytes.msg.ptr : NULL,
			  mi->bytes.msg.len);
	pr_mailjson_field(w, "diff", mi->patch.ptr, mi->patch.len, NULL, 0);
	pr_jsonw_open(w, "trailers", '[');
	for (i = 0; i < mi->trailers.nr; i++) {
		pr_jsonw_open(w, NULL, '{');
		pr_mailjson_field_str(w, "key", mi->trailers.items[i].key);
		pr_mailjson_field_str(w, "value", mi->trailers.items[i].value);
		pr_jsonw_close(w, '}');
	}
	pr_jsonw_close(w, ']');
	if (mi->pull_url) {
		pr_jsonw_open(w, "pull", '{');
		pr_mailjson_field_str(w, "url", mi->pull_url);
		pr_mailjson_field_str(w, "ref", mi->pull_ref);
		pr_jsonw_close(w, '}');
	} else {
		pr_jsonw_null(w, "pull");
	}
	pr_jsonw_close(w, '}');
}

json_t *pr_mailjson_message(const struct pr_mailinfo *mi)
{
	struct pr_buf out = PR_BUF_INIT;
	struct pr_jsonw w;
	json_t *m;

	pr_jsonw_init(&w, &out);
	pr_mailjson_write(&w, NULL, mi);
	m = json_loadb(out.ptr, out.len, 0, NULL);
	pr_buf_release(&out);
	return m;
}
