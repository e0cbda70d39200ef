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
