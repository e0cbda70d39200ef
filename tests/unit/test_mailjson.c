#include "base/pr.h"
#include "mail/mail.h"
#include "mail/mailinfo.h"
#include "mail/mailjson.h"

#include <setjmp.h>
#include <cmocka.h>

/*
 * Every field's bytes rebuilt from the printed JSON (KEY_base64 when it is
 * there, else KEY as UTF-8) must equal the model's: git mailinfo's bytes
 * (pr_mailinfo.bytes) where they differ from the UTF-8 form.
 */

static json_t *round_trip(const struct pr_mailinfo *mi)
{
	json_t *m = pr_mailjson_message(mi), *back;
	char *s = json_dumps(m, JSON_INDENT(2));
	json_error_t e;

	assert_non_null(s);
	back = json_loads(s, 0, &e);
	assert_non_null(back);
	free(s);
	json_decref(m);
	return back;
}

static void rebuild(struct pr_buf *out, json_t *obj, const char *key)
{
	struct pr_buf k = PR_BUF_INIT;
	json_t *b64, *text = json_object_get(obj, key);

	pr_buf_addf(&k, "%s_base64", key);
	b64 = json_object_get(obj, k.ptr);
	pr_buf_reset(out);
	assert_true(json_is_string(text));
	if (b64) {
		assert_true(json_is_string(b64));
		assert_int_equal(pr_mail_b64_decode(out, json_string_value(b64),
						    json_string_length(b64)),
				 0);
	} else {
		pr_buf_add(out, json_string_value(text),
			   json_string_length(text));
	}
	pr_buf_release(&k);
}

static void check(json_t *obj, const char *key, const char *want, size_t len)
{
	struct pr_buf got = PR_BUF_INIT;

	rebuild(&got, obj, key);
	if (got.len != len || memcmp(got.ptr, want, len))
		fail_msg("%s: got '%s', want '%s'", key, got.ptr, want);
	pr_buf_release(&got);
}

static void check_str(json_t *obj, const char *key, const char *model,
		      const char *bytes)
{
	const char *want = bytes ? bytes : model;

	check(obj, key, want, strlen(want));
}

/* Each field of mi rebuilt from its JSON; returns the number of _base64. */
static int check_all(const struct pr_mailinfo *mi)
{
	json_t *m = round_trip(mi), *from = json_object_get(m, "from");
	json_t *refs = json_object_get(m, "references"),
	       *refs64 = json_object_get(m, "references_base64");
	const char *key;
	json_t *v;
	int n = 0;
	size_t i;

	check_str(m, "message_id", mi->message_id, NULL);
	check_str(m, "in_reply_to", mi->in_reply_to, NULL);
	check_str(from, "name", mi->name, mi->bytes.name);
	check_str(from, "email", mi->email, mi->bytes.email);
	check_str(m, "date", mi->date, mi->bytes.date);
	check_str(m, "subject", mi->subject, mi->bytes.subject);
	check_str(m, "subject_raw", mi->subject_raw, mi->bytes.subject_raw);
	if (mi->bytes.has_msg)
		check(m, "body", mi->bytes.msg.ptr, mi->bytes.msg.len);
	else
		check(m, "body", mi->msg.ptr, mi->msg.len);
	check(m, "diff", mi->patch.ptr, mi->patch.len);
	assert_int_equal(json_array_size(refs), mi->nr_references);
	for (i = 0; i < mi->nr_references; i++) {
		json_t *e = refs64 ? json_array_get(refs64, i) : NULL;
		struct pr_buf got = PR_BUF_INIT;

		if (e && !json_is_null(e))
			pr_mail_b64_decode(&got, json_string_value(e),
					   json_string_length(e));
		else
			pr_buf_adds(&got,
				    json_string_value(json_array_get(refs, i)));
		assert_string_equal(got.ptr, mi->references[i]);
		pr_buf_release(&got);
	}
	json_object_foreach(m, key, v) n += strstr(key, "_base64") != NULL;
	json_object_foreach(from, key, v) n += strstr(key, "_base64") != NULL;
	json_decref(m);
	return n;
}

static int parse_check(struct pr_mailinfo *mi, const char *mail, size_t len)
{
	pr_mailinfo_init(mi);
	assert_int_equal(pr_mailinfo_parse(mi, mail, len), 0);
	return check_all(mi);
}

static void test_latin1_patch(void **state)
{
	static const char mail[] = "From: Ren\xe9 Latin <rene@example.com>\n"
				   "Subject: [PATCH] caf\xe9: fix the \xe9\n"
				   "Date: Wed, 3 Jan 2024 00:00:00 +0000\n"
				   "Message-ID: <a\xff@x>\n"
				   "References: <ok@x> <b\xfe@x>\n"
				   "Content-Type: text/plain\n"
				   "Content-Transfer-Encoding: 8bit\n"
				   "\n"
				   "Body with caf\xe9.\n"
				   "\n"
				   "Signed-off-by: Ren\xe9 <rene@example.com>\n"
				   "---\n"
				   "diff --git a/a.txt b/a.txt\n"
				   "--- a/a.txt\n"
				   "+++ b/a.txt\n"
				   "@@ -1 +1 @@\n"
				   "-caf\xe9\n"
				   "+th\xe9\n";
	struct pr_mailinfo mi;

	/* name, subject, subject_raw, body, diff, message_id, references */
	assert_int_equal(parse_check(&mi, mail, sizeof(mail) - 1), 7);
	assert_string_equal(mi.name, "Ren\xc3\xa9 Latin");
	assert_string_equal(mi.bytes.name, "Ren\xe9 Latin");
	assert_string_equal(mi.bytes.subject, "caf\xe9: fix the \xe9");
	assert_true(mi.bytes.has_msg);
	assert_non_null(memmem(mi.patch.ptr, mi.patch.len, "+th\xe9\n", 5));
	pr_mailinfo_release(&mi);
	(void)state;
}

static void test_binary_content(void **state)
{
	struct pr_buf mail = PR_BUF_INIT, body = PR_BUF_INIT;
	static const char patch[] = "msg\n---\ndiff --git a/b.bin b/b.bin\n"
				    "--- a/b.bin\n+++ b/b.bin\n@@ -1 +1 @@\n"
				    "-\x01\x02\n+\x00\xff\x80\x00\n";
	struct pr_mailinfo mi;

	pr_mail_b64_encode(&body, patch, sizeof(patch) - 1);
	pr_buf_addf(&mail,
		    "From: A <a@x>\nSubject: [PATCH] bin\n"
		    "Content-Type: text/plain; charset=utf-8\n"
		    "Content-Transfer-Encoding: base64\n\n%s\n",
		    body.ptr);
	assert_int_equal(parse_check(&mi, mail.ptr, mail.len), 1);
	assert_int_equal(mi.patch.len, sizeof(patch) - 1 - 4);
	pr_mailinfo_release(&mi);
	pr_buf_release(&mail);
	pr_buf_release(&body);
	(void)state;
}

static void test_mixed_words(void **state)
{
	/* an encoded word is converted; the raw bytes beside it are not */
	static const char mail[] =
		"From: =?utf-8?q?J=C3=B6rg?= M\xfcller <j@x>\n"
		"Subject: =?iso-8859-1?q?caf=E9?= na\xefve\n"
		"Content-Type: text/plain; charset=utf-8\n\n"
		"not UTF-8: \xff\n";
	struct pr_mailinfo mi;

	assert_int_equal(parse_check(&mi, mail, sizeof(mail) - 1), 4);
	assert_string_equal(mi.subject, "caf\xc3\xa9 na\xc3\xafve");
	assert_string_equal(mi.bytes.subject, "caf\xc3\xa9 na\xefve");
	assert_string_equal(mi.bytes.name, "J\xc3\xb6rg M\xfcller");
	pr_mailinfo_release(&mi);
	(void)state;
}

static void test_utf8_has_no_base64(void **state)
{
	static const char mail[] =
		"From: =?utf-8?q?J=C3=B6rg?= <j@x>\n"
		"Subject: [PATCH] \xe2\x98\x83 snow\n"
		"Message-ID: <s@x>\n"
		"Content-Type: text/plain; charset=iso-8859-1\n"
		"Content-Transfer-Encoding: 8bit\n\n"
		"caf\xe9\n---\ndiff --git a/a b/a\n";
	struct pr_mailinfo mi;

	/* iconv makes the body UTF-8, as git mailinfo does */
	assert_int_equal(parse_check(&mi, mail, sizeof(mail) - 1), 0);
	assert_false(mi.bytes.has_msg);
	assert_null(mi.bytes.name);
	pr_mailinfo_release(&mi);
	(void)state;
}

static void test_b64_encode(void **state)
{
	struct pr_buf b = PR_BUF_INIT, d = PR_BUF_INIT;
	static const char *const want[] = {
		"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"
	};
	size_t i;

	for (i = 0; i < PR_ARRAY_SIZE(want); i++) {
		pr_buf_reset(&b);
		pr_buf_reset(&d);
		pr_mail_b64_encode(&b, "foobar", i);
		assert_string_equal(b.ptr, want[i]);
		pr_mail_b64_decode(&d, b.ptr, b.len);
		assert_int_equal(d.len, i);
	}
	pr_buf_release(&b);
	pr_buf_release(&d);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latin1_patch),
		cmocka_unit_test(test_binary_content),
		cmocka_unit_test(test_mixed_words),
		cmocka_unit_test(test_utf8_has_no_base64),
		cmocka_unit_test(test_b64_encode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
