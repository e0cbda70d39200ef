#include "base/pr.h"

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "hook.h"

const char *const pr_hook_types[] = { "github", "gitlab", "gerrit", NULL };

enum pr_hook_kind pr_hook_kind_of(const char *type)
{
	size_t i;

	for (i = 0; pr_hook_types[i]; i++)
		if (!strcmp(type, pr_hook_types[i]))
			return (enum pr_hook_kind)i;
	return PR_HOOK_NONE;
}

struct pr_hook_mac {
	EVP_MAC_CTX *hmac; /* NULL when OpenSSL refused: no HMAC matches */
	EVP_MD_CTX *sha;
	unsigned char hmac_out[32], sha_out[32];
	bool done;
};

struct pr_hook_mac *pr_hook_mac_new(const char *secret)
{
	struct pr_hook_mac *m = pr_calloc(1, sizeof(*m));
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						 (char *)"SHA256", 0),
		OSSL_PARAM_construct_end(),
	};
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);

	if (mac) {
		m->hmac = EVP_MAC_CTX_new(mac);
		if (m->hmac &&
		    !EVP_MAC_init(m->hmac, (const unsigned char *)secret,
				  strlen(secret), params)) {
			EVP_MAC_CTX_free(m->hmac);
			m->hmac = NULL;
		}
		EVP_MAC_free(mac);
	}
	m->sha = EVP_MD_CTX_new();
	if (m->sha && !EVP_DigestInit_ex(m->sha, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(m->sha);
		m->sha = NULL;
	}
	return m;
}

void pr_hook_mac_update(struct pr_hook_mac *m, const void *data, size_t len)
{
	if (m->hmac)
		EVP_MAC_update(m->hmac, data, len);
	if (m->sha)
		EVP_DigestUpdate(m->sha, data, len);
}

/*
 * Finish the digests; false when one could not be made (OpenSSL out of
 * memory), and then nothing may be trusted.
 */
static bool mac_final(struct pr_hook_mac *m)
{
	size_t n = 0;
	unsigned int u = 0;

	if (!m->done) {
		m->done = true;
		if (!m->hmac ||
		    !EVP_MAC_final(m->hmac, m->hmac_out, &n,
				   sizeof(m->hmac_out)) ||
		    n != 32 || !m->sha ||
		    !EVP_DigestFinal_ex(m->sha, m->sha_out, &u) || u != 32) {
			EVP_MAC_CTX_free(m->hmac);
			m->hmac = NULL;
		}
	}
	return m->hmac != NULL;
}

void pr_hook_mac_free(struct pr_hook_mac *m)
{
	if (!m)
		return;
	EVP_MAC_CTX_free(m->hmac);
	EVP_MD_CTX_free(m->sha);
	OPENSSL_cleanse(m, sizeof(*m));
	free(m);
}

int pr_hook_parse_signature(unsigned char out[32], const char *header)
{
	size_t i;

	if (!header || strncmp(header, "sha256=", 7) ||
	    strlen(header + 7) != 64)
		return PR_EINVAL;
	header += 7;
	for (i = 0; i < 32; i++) {
		int hi = OPENSSL_hexchar2int((unsigned char)header[2 * i]);
		int lo = OPENSSL_hexchar2int((unsigned char)header[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return PR_EINVAL;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* A token equal to the secret, in time that depends on neither. */
static bool token_matches(const char *token, const char *secret)
{
	unsigned char a[32], b[32];
	unsigned int n;
	bool ok;

	if (!token || !secret ||
	    !EVP_Digest(token, strlen(token), a, &n, EVP_sha256(), NULL) ||
	    !EVP_Digest(secret, strlen(secret), b, &n, EVP_sha256(), NULL))
		return false;
	ok = CRYPTO_memcmp(a, b, sizeof(a)) == 0;
	OPENSSL_cleanse(b, sizeof(b));
	return ok;
}

static bool authentic(const struct pr_hook_req *r)
{
	unsigned char want[32];

	switch (r->kind) {
	case PR_HOOK_GITHUB:
		return pr_hook_parse_signature(want, r->signature) == 0 &&
		       CRYPTO_memcmp(want, r->mac->hmac_out, 32) == 0;
	case PR_HOOK_GITLAB:
	case PR_HOOK_GERRIT:
		return token_matches(r->token, r->secret);
	case PR_HOOK_NONE:
		break;
	}
	return false;
}

/* A delivery id worth keeping: printable ASCII, not too long. */
static bool good_id(const char *id)
{
	size_t n = id ? strlen(id) : 0;

	if (!n || n > 128)
		return false;
	for (; *id; id++)
		if (*id <= ' ' || *id > '~')
			return false;
	return true;
}

/* A JSON string or integer member by path "a.b", as text; NULL: none. */
static void add_member(struct pr_buf *out, json_t *root, const char *a,
		       const char *b, const char *prefix)
{
	json_t *v = json_object_get(root, a);

	if (b)
		v = json_object_get(v, b);
	if (json_is_integer(v))
		pr_buf_addf(out, "%s%s%lld", out->len ? " " : "", prefix,
			    (long long)json_integer_value(v));
	else if (json_is_string(v) && json_string_length(v) <= 64)
		pr_buf_addf(out, "%s%s%s", out->len ? " " : "", prefix,
			    json_string_value(v));
}

/* What the event is about, for a log line: never trusted, never data. */
static void read_hint(struct pr_buf *hint, const struct pr_hook_req *r)
{
	json_t *root = NULL;
	struct pr_buf h = PR_BUF_INIT;
	const unsigned char *p;

	if (r->event && strlen(r->event) <= 64)
		pr_buf_adds(&h, r->event);
	if (!r->body_cut && r->body_len)
		root = json_loadb(r->body, r->body_len, JSON_REJECT_DUPLICATES,
				  NULL);
	if (json_is_object(root)) {
		switch (r->kind) {
		case PR_HOOK_GITHUB:
			add_member(&h, root, "action", NULL, "");
			add_member(&h, root, "pull_request", "number", "#");
			add_member(&h, root, "issue", "number", "#");
			break;
		case PR_HOOK_GITLAB:
			if (!h.len)
				add_member(&h, root, "object_kind", NULL, "");
			add_member(&h, root, "object_attributes", "action", "");
			add_member(&h, root, "merge_request", "iid", "!");
			if (json_object_get(root, "merge_request") == NULL)
				add_member(&h, root, "object_attributes", "iid",
					   "!");
			break;
		case PR_HOOK_GERRIT:
			add_member(&h, root, "type", NULL, "");
			add_member(&h, root, "change", "number", "change ");
			break;
		case PR_HOOK_NONE:
			break;
		}
	}
	json_decref(root);
	/* one line of printable text, whatever the sender put there */
	for (p = (const unsigned char *)h.ptr; *p; p++)
		pr_buf_addch(hint, *p < ' ' || *p > '~' ? '?' : *p);
	pr_buf_release(&h);
}

int pr_hook_check(struct pr_buf *id, struct pr_buf *hint,
		  const struct pr_hook_req *req)
{
	const struct pr_hook_mac *m = req->mac;
	size_t i;
	int err;

	if (!mac_final(req->mac) || !authentic(req))
		return PR_HOOK_UNAUTHORIZED;
	if (good_id(req->delivery)) {
		err = pr_buf_adds(id, req->delivery);
	} else {
		err = 0;
		for (i = 0; i < 32 && !err; i++)
			err = pr_buf_addf(id, "%02x", m->sha_out[i]);
	}
	if (err)
		return err;
	read_hint(hint, req);
	if (req->kind == PR_HOOK_GITHUB && req->event &&
	    !strcmp(req->event, "ping"))
		return PR_HOOK_PING;
	return PR_HOOK_POLL;
}

struct pr_hook_seen {
	unsigned char (*ids)[32];
	size_t nr, next;
};

struct pr_hook_seen *pr_hook_seen_new(void)
{
	struct pr_hook_seen *s = pr_calloc(1, sizeof(*s));

	s->ids = pr_calloc(PR_LIMIT_HOOK_SEEN, sizeof(*s->ids));
	return s;
}

void pr_hook_seen_free(struct pr_hook_seen *s)
{
	if (!s)
		return;
	free(s->ids);
	free(s);
}

bool pr_hook_seen_add(struct pr_hook_seen *s, const char *source,
		      const char *id)
{
	unsigned char d[32];
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned int n;
	size_t i;

	/* NUL-separated: ("a", "bc") and ("ab", "c") differ */
	if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(c, source, strlen(source) + 1) ||
	    !EVP_DigestUpdate(c, id, strlen(id)) ||
	    !EVP_DigestFinal_ex(c, d, &n)) {
		/* nothing to compare with: take it, a poll too many is harmless */
		EVP_MD_CTX_free(c);
		return false;
	}
	EVP_MD_CTX_free(c);
	for (i = 0; i < s->nr; i++)
		if (!memcmp(s->ids[i], d, sizeof(d)))
			return true;
	memcpy(s->ids[s->next], d, sizeof(d));
	s->next = (s->next + 1) % PR_LIMIT_HOOK_SEEN;
	if (s->nr < PR_LIMIT_HOOK_SEEN)
		s->nr++;
	return false;
}
