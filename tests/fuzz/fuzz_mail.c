#include "base/pr.h"
#include "base/json.h"
#include "mail/mail.h"
#include "mail/mailinfo.h"
#include "mail/mailjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes of obj.key rebuilt from the JSON must be want[0..len). */
static void same_bytes(json_t *obj, const char *key, const char *want,
		       size_t len)
{
	struct pr_buf k = PR_BUF_INIT, got = PR_BUF_INIT;
	json_t *b64;

	pr_buf_addf(&k, "%s_base64", key);
	b64 = json_object_get(obj, k.ptr);
	if (b64)
		pr_mail_b64_decode(&got, json_string_value(b64),
				   json_string_length(b64));
	else
		pr_buf_adds(&got, json_string_value(json_object_get(obj, key)));
	if (got.len != len || memcmp(got.ptr, want, len))
		abort();
	pr_buf_release(&k);
	pr_buf_release(&got);
}

/*
 * The streamed JSON is jansson's own text of the same document: read back
 * and printed again by jansson, the bytes are the same.
 */
static void same_as_jansson(const struct pr_mailinfo *mi)
{
	struct pr_buf out = PR_BUF_INIT;
	struct pr_jsonw w;
	json_t *back;
	char *again;

	pr_jsonw_init(&w, &out);
	pr_jsonw_open(&w, NULL, '[');
	pr_mailjson_write(&w, NULL, mi);
	pr_jsonw_close(&w, ']');
	back = json_loadb(out.ptr, out.len, 0, NULL);
	again = back ? json_dumps(back, JSON_INDENT(2)) : NULL;
	if (!again || strlen(again) != out.len ||
	    memcmp(again, out.ptr, out.len))
		abort();
	free(again);
	json_decref(back);
	pr_buf_release(&out);
}

/* parse --json: printed and read back, the fields keep their bytes */
static void json_round_trip(const struct pr_mailinfo *mi)
{
	json_t *m = pr_mailjson_message(mi), *back;
	char *s = json_dumps(m, 0);

	same_as_jansson(mi);

	back = s ? json_loads(s, 0, NULL) : NULL;
	if (!back)
		abort();
	same_bytes(back, "diff", mi->patch.ptr, mi->patch.len);
	if (mi->bytes.has_msg)
		same_bytes(back, "body", mi->bytes.msg.ptr, mi->bytes.msg.len);
	else
		same_bytes(back, "body", mi->msg.ptr, mi->msg.len);
	same_bytes(back, "message_id", mi->message_id, strlen(mi->message_id));
	if (mi->bytes.subject)
		same_bytes(back, "subject", mi->bytes.subject,
			   strlen(mi->bytes.subject));
	json_decref(back);
	json_decref(m);
	free(s);
}

/* The whole mail path: headers, encoded words, MIME and mailinfo's split. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_mailinfo mi;
	struct pr_buf b = PR_BUF_INIT;

	pr_mailinfo_init(&mi);
	if (!pr_mailinfo_parse(&mi, (const char *)data, size)) {
		/* the invariant the JSON output relies on */
		if (!pr_mail_is_utf8(mi.msg.ptr, mi.msg.len) ||
		    !pr_mail_is_utf8(mi.subject, strlen(mi.subject)) ||
		    !pr_mail_is_utf8(mi.name, strlen(mi.name)))
			abort();
		json_round_trip(&mi);
	}
	pr_mailinfo_release(&mi);
	pr_mail_decode_words(&b, (const char *)data, size);
	if (!pr_mail_is_utf8(b.ptr, b.len))
		abort();
	pr_buf_release(&b);
	return 0;
}
