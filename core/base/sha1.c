/*
 * SHA-1 as FIPS 180-4 describes it: 64-byte blocks, 80 rounds, big-endian
 * words and a big-endian bit count in the padding.
 */
#include <string.h>

#include "base/pr.h"
#include "base/sha1.h"

static uint32_t rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void block(struct pr_sha1 *s, const unsigned char *p)
{
	uint32_t w[80], a, b, c, d, e;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	a = s->h[0];
	b = s->h[1];
	c = s->h[2];
	d = s->h[3];
	e = s->h[4];
	/*
	 * One loop per 20 rounds, five rounds a turn: each round names the
	 * five words in their new roles (the textbook's "e = d, d = c, ..."
	 * moves no value), and the turn ends with them as they started.
	 */
#define F1(b, c, d) ((d) ^ ((b) & ((c) ^ (d)))) /* (b & c) | (~b & d) */
#define F2(b, c, d) ((b) ^ (c) ^ (d))
#define F3(b, c, d) (((b) & (c)) | ((d) & ((b) | (c)))) /* majority */
#define ROUND(f, k, a, b, c, d, e, i)                               \
	do {                                                        \
		e += rol(a, 5) + f(b, c, d) + (uint32_t)(k) + w[i]; \
		b = rol(b, 30);                                     \
	} while (0)
#define FIVE(f, k)                                 \
	do {                                       \
		ROUND(f, k, a, b, c, d, e, i);     \
		ROUND(f, k, e, a, b, c, d, i + 1); \
		ROUND(f, k, d, e, a, b, c, i + 2); \
		ROUND(f, k, c, d, e, a, b, i + 3); \
		ROUND(f, k, b, c, d, e, a, i + 4); \
	} while (0)
	for (i = 0; i < 20; i += 5)
		FIVE(F1, 0x5a827999);
	for (; i < 40; i += 5)
		FIVE(F2, 0x6ed9eba1);
	for (; i < 60; i += 5)
		FIVE(F3, 0x8f1bbcdc);
	for (; i < 80; i += 5)
		FIVE(F2, 0xca62c1d6);
#undef FIVE
#undef ROUND
#undef F3
#undef F2
#undef F1
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
}

void pr_sha1_init(struct pr_sha1 *s)
{
	static const uint32_t iv[5] = { 0x67452301, 0xefcdab89, 0x98badcfe,
					0x10325476, 0xc3d2e1f0 };

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->n = 0;
}

void pr_sha1_update(struct pr_sha1 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->len += len;
	while (len) {
		size_t take = 64 - s->n;

		if (take > len)
			take = len;
		memcpy(s->buf + s->n, p, take);
		s->n += take;
		p += take;
		len -= take;
		if (s->n == 64) {
			block(s, s->buf);
			s->n = 0;
		}
	}
}

void pr_sha1_final(unsigned char out[PR_SHA1_RAWSZ], struct pr_sha1 *s)
{
	/* the length is of the message, taken before the padding adds to it */
	uint64_t bits = s->len * 8;
	unsigned char pad[64] = { 0x80 }, lenbuf[8];
	size_t padlen = s->n < 56 ? 56 - s->n : 120 - s->n;
	int i;

	pr_sha1_update(s, pad, padlen);
	for (i = 0; i < 8; i++)
		lenbuf[i] = (unsigned char)(bits >> (56 - 8 * i));
	pr_sha1_update(s, lenbuf, 8);
	for (i = 0; i < PR_SHA1_RAWSZ; i++)
		out[i] = (unsigned char)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

void pr_sha1_hex(char out[PR_SHA1_HEXSZ + 1],
		 const unsigned char raw[PR_SHA1_RAWSZ])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < PR_SHA1_RAWSZ; i++) {
		out[2 * i] = digits[raw[i] >> 4];
		out[2 * i + 1] = digits[raw[i] & 0xf];
	}
	out[PR_SHA1_HEXSZ] = '\0';
}

void pr_sha1_final_hex(char out[PR_SHA1_HEXSZ + 1], struct pr_sha1 *s)
{
	unsigned char raw[PR_SHA1_RAWSZ];

	pr_sha1_final(raw, s);
	pr_sha1_hex(out, raw);
}

void pr_sha1_git_blob_hex(char out[PR_SHA1_HEXSZ + 1], const void *data,
			  size_t len)
{
	struct pr_sha1 s;
	char head[32];
	int n = snprintf(head, sizeof(head), "blob %zu", len);

	pr_sha1_init(&s);
	pr_sha1_update(&s, head, (size_t)n + 1); /* with its NUL */
	pr_sha1_update(&s, data, len);
	pr_sha1_final_hex(out, &s);
}
