#include "base/pr.h"
#include "mail/mailjson.h"
#include "mail/mail.h"

/*
 * p as a JSON string: itself when it is UTF-8 without a NUL (*exact set),
 * else read as latin-1 with each NUL shown as U+FFFD (many JSON readers
 * refuse "\u0000").
 */
static json_t *readable(const char *p, size_t len, bool *exact)
{
	struct pr_buf u = PR_BUF_INIT;
	const char *nul = memchr(p, 0, len);
	json_t *j = NULL;
	size_t i;

	*exact = !nul && pr_mail_is_utf8(p, len);
	if (*exact)
		j = json_stringn(p, len);
	if (j)
		return j;
	*exact = false;
	for (i = 0; i < len; i = nul ? (size_t)(nul - p) + 1 : len) {
		nul = memchr(p + i, 0, len - i);
		pr_mail_add_utf8_or_latin1(&u, p + i,
					   (nul ? (size_t)(nul - p) : len) - i);
		if (nul)
			pr_buf_adds(&u, "\xef\xbf\xbd");
	}
	j = json_stringn(u.ptr, u.len);
	pr_buf_release(&u);
	return j ? j : json_string("");
}

static json_t *base64(const char *p, size_t len)
{
	struct pr_buf b = PR_BUF_INIT;
	json_t *j;

	pr_mail_b64_encode(&b, p, len);
	j = json_stringn(b.ptr, b.len);
	pr_buf_release(&b);
	return j;
}

static void set_base64(json_t *obj, const char *key, json_t *value)
{
	struct pr_buf k = PR_BUF_INIT;

	pr_buf_addf(&k, "%s_base64", key);
	json_object_set_new(obj, k.ptr, value);
	pr_buf_release(&k);
}

void pr_mailjson_set(json_t *obj, const char *key, const char *p, size_t len,
		     const char *exact, size_t exact_len)
{
	bool same;

	json_object_set_new(obj, key, readable(p, len, &same));
	if (exact)
		set_base64(obj, key, base64(exact, exact_len));
	else if (!same)
		set_base64(obj, key, base64(p, len));
}

void pr_mailjson_set_str(json_t *obj, const char *key, const char *s)
{
	if (s)
		pr_mailjson_set(obj, key, s, strlen(s), NULL, 0);
	else
		json_object_set_new(obj, key, json_null());
}

void pr_mailjson_set_list(json_t *obj, const char *key, char *const *v,
			  size_t n)
{
	json_t *list = json_array(), *raw = json_array();
	bool any = false, same;
	size_t i;

	for (i = 0; i < n; i++) {
		size_t len = v[i] ? strlen(v[i]) : 0;

		if (!v[i]) {
			json_array_append_new(list, json_null());
			json_array_append_new(raw, json_null());
			continue;
		}
		json_array_append_new(list, readable(v[i], len, &same));
		json_array_append_new(raw,
				      same ? json_null() : base64(v[i], len));
		any = any || !same;
	}
	json_object_set_new(obj, key, list);
	if (any)
		set_base64(obj, key, raw);
	else
		json_decref(raw);
}

/* A model string with git mailinfo's bytes beside it (NULL: the same). */
static void set_with_bytes(json_t *obj, const char *key, const char *s,
			   const char *bytes)
{
	pr_mailjson_set(obj, key, s, strlen(s), bytes,
			bytes ? strlen(bytes) : 0);
}

json_t *pr_mailjson_message(const struct pr_mailinfo *mi)
{
	json_t *m = json_object(), *from = json_object(),
	       *prefix = json_object(), *trailers = json_array();
	size_t i;

	pr_mailjson_set_str(m, "message_id", mi->message_id);
	pr_mailjson_set_str(m, "in_reply_to", mi->in_reply_to);
	pr_mailjson_set_list(m, "references", mi->references,
			     mi->nr_references);
	set_with_bytes(from, "name", mi->name, mi->bytes.name);
	set_with_bytes(from, "email", mi->email, mi->bytes.email);
	json_object_set_new(m, "from", from);
	set_with_bytes(m, "date", mi->date, mi->bytes.date);
	set_with_bytes(m, "subject", mi->subject, mi->bytes.subject);
	set_with_bytes(m, "subject_raw", mi->subject_raw,
		       mi->bytes.subject_raw);
	pr_mailjson_set_str(prefix, "list", mi->prefix.list);
	json_object_set_new(prefix, "rfc", json_boolean(mi->prefix.rfc));
	json_object_set_new(prefix, "version",
			    json_integer(mi->prefix.version));
	json_object_set_new(prefix, "index", json_integer(mi->prefix.index));
	json_object_set_new(prefix, "total", json_integer(mi->prefix.total));
	json_object_set_new(m, "prefix", prefix);
	json_object_set_new(m, "kind",
			    json_string(pr_mail_kind_name(mi->kind)));
	pr_mailjson_set(m, "body", mi->msg.ptr, mi->msg.len,
			mi->bytes.has_msg ? mi->bytes.msg.ptr : NULL,
			mi->bytes.msg.len);
	pr_mailjson_set(m, "diff", mi->patch.ptr, mi->patch.len, NULL, 0);
	for (i = 0; i < mi->trailers.nr; i++) {
		json_t *t = json_object();

		pr_mailjson_set_str(t, "key", mi->trailers.items[i].key);
		pr_mailjson_set_str(t, "value", mi->trailers.items[i].value);
		json_array_append_new(trailers, t);
	}
	json_object_set_new(m, "trailers", trailers);
	if (mi->pull_url) {
		json_t *p = json_object();

		pr_mailjson_set_str(p, "url", mi->pull_url);
		pr_mailjson_set_str(p, "ref", mi->pull_ref);
		json_object_set_new(m, "pull", p);
	} else {
		json_object_set_new(m, "pull", json_null());
	}
	return m;
}
