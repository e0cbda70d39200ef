#include "base/pr.h"

#include "base/json.h"

size_t pr_utf8_seq(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and what is past Unicode */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

int pr_json_quote(struct pr_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	int err;

	if ((err = pr_buf_addch(out, '"')))
		return err;
	while (i < len && !err) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\') {
			err = pr_buf_addf(out, "\\%c", c);
		} else if (c == '\n') {
			err = pr_buf_adds(out, "\\n");
		} else if (c == '\r') {
			err = pr_buf_adds(out, "\\r");
		} else if (c == '\t') {
			err = pr_buf_adds(out, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			err = pr_buf_addf(out, "\\u%04x", c);
		} else if (c == '/' && i && p[i - 1] == '<') {
			err = pr_buf_adds(out, "\\/");
		} else if (c < 0x80) {
			err = pr_buf_addch(out, c);
		} else if ((n = pr_utf8_seq(p + i, len - i))) {
			err = pr_buf_add(out, p + i, n);
			i += n;
			continue;
		} else {
			err = pr_buf_adds(out, "\\ufffd");
		}
		i++;
	}
	return err ? err : pr_buf_addch(out, '"');
}

int pr_json_quotes(struct pr_buf *out, const char *s)
{
	if (!s)
		return pr_buf_adds(out, "null");
	return pr_json_quote(out, s, strlen(s));
}

void pr_jsonw_init(struct pr_jsonw *w, struct pr_buf *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/*
 * The bytes of x (eight, as read from memory) that need escaping, below
 * 0x20, '"' or '\\', each with its high bit set.  A byte after the first
 * one set may be set wrongly (a borrow); the first one is right.
 */
static inline uint64_t escape_mask(uint64_t x)
{
	uint64_t q = x ^ (ONES * '"'), b = x ^ (ONES * '\\');

	/* (v - ONES * n) & ~v & HIGHS: the bytes of v below n */
	return ((x - ONES * 0x20) & ~x & HIGHS) | ((q - ONES) & ~q & HIGHS) |
	       ((b - ONES) & ~b & HIGHS);
}

/* How many bytes come before the first one set in m (not 0). */
static inline size_t bytes_before(uint64_t m)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (size_t)__builtin_ctzll(m) / 8;
#else
	(void)m;
	return 0; /* the byte at a time path finds it */
#endif
}

/*
 * The string s[0..len), quoted as jansson quotes it.  With utf8_only a
 * string that is not valid UTF-8 or holds a NUL is not written (out stays
 * as it was) and false is returned: the check and the quoting are one
 * pass over the bytes.
 */
static bool jsonw_quote(struct pr_buf *out, const char *s, size_t len,
			bool utf8_only)
{
	static const char hex[] = "0123456789ABCDEF";
	static const char short_esc[32] = {
		['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
		['\r'] = 'r', ['\t'] = 't',
	};
	/* bytes that leave the eight-at-a-time path: all of 0x80 and up */
	const uint64_t high = utf8_only ? HIGHS : 0;
	size_t i = 0, end, n, start = out->len;
	char *o;

	pr_buf_addch(out, '"');
	while (i < len) {
		/*
		 * Room for a block at its worst, six bytes a byte (a UTF-8
		 * sequence begun in the block and ending past it takes no more
		 * than its first byte's six).
		 */
		end = i + (len - i < 4096 ? len - i : 4096);
		pr_buf_grow(out, 6 * (end - i));
		o = out->ptr + out->len;
		while (i < end) {
			unsigned char c;
			uint64_t x, m;
			size_t k;

			/* eight bytes at a time up to one that needs a look */
			if (end - i >= 8) {
				memcpy(&x, s + i, 8);
				m = escape_mask(x) | (x & high);
				k = m ? bytes_before(m) : 8;
				/* all eight: the room is there */
				memcpy(o, s + i, 8);
				o += k;
				i += k;
				if (k == 8)
					continue;
			}
			c = (unsigned char)s[i];
			if (c >= 0x80 && utf8_only) {
				n = pr_utf8_seq((const unsigned char *)s + i,
						len - i);
				if (!n)
					goto refuse;
				memcpy(o, s + i, n);
				o += n;
				i += n;
				continue;
			}
			i++;
			if (c >= 0x20 && c != '"' && c != '\\') {
				*o++ = (char)c;
				continue;
			}
			if (!c && utf8_only)
				goto refuse;
			*o++ = '\\';
			if (c == '"' || c == '\\') {
				*o++ = (char)c;
			} else if (short_esc[c]) {
				*o++ = short_esc[c];
			} else {
				memcpy(o, "u00", 3);
				o[3] = hex[c >> 4];
				o[4] = hex[c & 15];
				o += 5;
			}
		}
		out->len = (size_t)(o - out->ptr);
	}
	pr_buf_addch(out, '"');
	return true;
refuse:
	out->len = (size_t)(o - out->ptr);
	pr_buf_setlen(out, start);
	return false;
}

/* A new line indented for depth (below PR_JSONW_DEPTH). */
static void jsonw_line(struct pr_buf *out, int depth)
{
	static const char line[] = "\n                                ";

	pr_buf_add(out, line, 1 + 2 * (size_t)depth);
}

/* Is nothing in the key to be escaped (as in most keys)? */
static bool key_is_plain(const char *key, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)key[i];

		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/*
 * Before a value: the comma and the new line of an item, then its key and
 * ": ".  Written straight into room made once: these few bytes come
 * before every value, and an add for each cost more than the values.
 */
static void jsonw_item(struct pr_jsonw *w, const char *key)
{
	struct pr_buf *out = w->out;
	size_t klen = key ? strlen(key) : 0, indent = 2 * (size_t)w->depth;
	bool plain = !key || key_is_plain(key, klen);
	char *o;

	if (!w->depth)
		return;
	pr_buf_grow(out, 2 + indent + (plain ? klen + 4 : 0));
	o = out->ptr + out->len;
	if (w->more[w->depth])
		*o++ = ',';
	w->more[w->depth] = true;
	*o++ = '\n';
	memset(o, ' ', indent);
	o += indent;
	if (key && plain) {
		*o++ = '"';
		memcpy(o, key, klen);
		o += klen;
		memcpy(o, "\": ", 3);
		o += 3;
	}
	out->len = (size_t)(o - out->ptr);
	out->ptr[out->len] = '\0';
	if (key && !plain) {
		jsonw_quote(out, key, klen, false);
		pr_buf_add(out, ": ", 2);
	}
}

void pr_jsonw_open(struct pr_jsonw *w, const char *key, char c)
{
	jsonw_item(w, key);
	pr_buf_addch(w->out, c);
	w->depth++;
	w->more[w->depth] = false;
}

void pr_jsonw_close(struct pr_jsonw *w, char c)
{
	bool more = w->more[w->depth];

	w->more[w->depth--] = false;
	/* the closing line is indented as the opening one */
	if (more)
		jsonw_line(w->out, w->depth);
	pr_buf_addch(w->out, c);
}

void pr_jsonw_str(struct pr_jsonw *w, const char *key, const char *s,
		  size_t len)
{
	jsonw_item(w, key);
	jsonw_quote(w->out, s, len, false);
}

bool pr_jsonw_str_utf8(struct pr_jsonw *w, const char *key, const char *s,
		       size_t len)
{
	size_t before = w->out->len;
	bool more = w->more[w->depth];

	jsonw_item(w, key);
	if (jsonw_quote(w->out, s, len, true))
		return true;
	/* not written: the item's comma and key go too */
	pr_buf_setlen(w->out, before);
	w->more[w->depth] = more;
	return false;
}

void pr_jsonw_strs(struct pr_jsonw *w, const char *key, const char *s)
{
	if (s)
		pr_jsonw_str(w, key, s, strlen(s));
	else
		pr_jsonw_null(w, key);
}

void pr_jsonw_int(struct pr_jsonw *w, const char *key, long long v)
{
	/* by hand: printf was a tenth of the JSON time for a few digits */
	char d[24];
	size_t n = 0;
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v
				     : (unsigned long long)v;

	jsonw_item(w, key);
	do {
		d[sizeof(d) - ++n] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		d[sizeof(d) - ++n] = '-';
	pr_buf_add(w->out, d + sizeof(d) - n, n);
}

void pr_jsonw_bool(struct pr_jsonw *w, const char *key, bool v)
{
	jsonw_item(w, key);
	pr_buf_adds(w->out, v ? "true" : "false");
}

void pr_jsonw_null(struct pr_jsonw *w, const char *key)
{
	jsonw_item(w, key);
	pr_buf_adds(w->out, "null");
}
