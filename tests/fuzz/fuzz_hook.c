/*
 * A webhook as web/hook.c checks it, and the JSON quoting of base/json.c
 * that the status API writes with.  The first byte picks the forge; the
 * rest is NUL-separated: secret, signature, token, event, delivery id,
 * then the body.  Beyond not crashing: the verdict is one of three, the
 * delivery id is 1..128 printable ASCII bytes, the hint printable ASCII;
 * a GitHub hook signed with the body's real HMAC is never refused.  And
 * any bytes quoted as a JSON string parse back (jansson), to themselves
 * when they were UTF-8 with no NUL.
 */
#include "base/pr.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base/json.h"
#include "hook.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next NUL-terminated field, NULL when empty or missing. */
static const char *field(const char **p, const char *end)
{
	const char *s = *p, *nul;

	if (s >= end)
		return NULL;
	nul = memchr(s, '\0', (size_t)(end - s));
	if (!nul)
		return NULL;
	*p = nul + 1;
	return *s ? s : NULL;
}

static bool printable(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < ' ' || s[i] > '~')
			return false;
	return true;
}

static void check_quote(const char *s, size_t n)
{
	struct pr_buf q = PR_BUF_INIT;
	json_t *v;
	size_t i, k;
	bool utf8 = !memchr(s, '\0', n);

	for (i = 0; i < n && utf8; i += k)
		if (!(k = pr_utf8_seq((const unsigned char *)s + i, n - i)))
			utf8 = false;
	if (pr_json_quote(&q, s, n))
		abort();
	v = json_loadb(q.ptr, q.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	if (!json_is_string(v))
		abort();
	if (utf8 &&
	    (json_string_length(v) != n || memcmp(json_string_value(v), s, n)))
		abort();
	json_decref(v);
	pr_buf_release(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 1,
		   *end = (const char *)data + size;
	struct pr_hook_req r = { PR_HOOK_GITHUB };
	struct pr_buf id = PR_BUF_INIT, hint = PR_BUF_INIT;
	unsigned char mac[32];
	unsigned int n = 0;
	char sig[7 + 64 + 1];
	size_t i;
	int v;

	if (!size)
		return 0;
	r.kind = (enum pr_hook_kind)(data[0] % 3);
	r.secret = field(&p, end);
	r.signature = field(&p, end);
	r.token = field(&p, end);
	r.event = field(&p, end);
	r.delivery = field(&p, end);
	if (!r.secret)
		r.secret = "s";
	if (p > end)
		p = end;
	r.body = p;
	r.body_len = (size_t)(end - p);
	r.body_cut = data[0] & 0x80;
	/* a real signature for a GitHub hook whose byte says so */
	if (r.kind == PR_HOOK_GITHUB && (data[0] & 0x40) &&
	    HMAC(EVP_sha256(), r.secret, (int)strlen(r.secret),
		 (const unsigned char *)r.body, r.body_len, mac, &n)) {
		memcpy(sig, "sha256=", 7);
		for (i = 0; i < 32; i++)
			snprintf(sig + 7 + 2 * i, 3, "%02x", mac[i]);
		r.signature = sig;
	}
	r.mac = pr_hook_mac_new(r.secret);
	pr_hook_mac_update(r.mac, r.body, r.body_len);
	v = pr_hook_check(&id, &hint, &r);
	if (v != PR_HOOK_POLL && v != PR_HOOK_PING && v != PR_HOOK_UNAUTHORIZED)
		abort();
	if (r.signature == sig && v == PR_HOOK_UNAUTHORIZED)
		abort();
	if (v != PR_HOOK_UNAUTHORIZED &&
	    (!id.len || id.len > 128 || !printable(id.ptr, id.len)))
		abort();
	if (!printable(hint.ptr, hint.len))
		abort();
	pr_hook_mac_free(r.mac);
	check_quote(r.body, r.body_len);
	pr_buf_release(&id);
	pr_buf_release(&hint);
	return 0;
}
