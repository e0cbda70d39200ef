#ifndef PR_JSON_H
#define PR_JSON_H

#include <stddef.h>

struct pr_buf;

/*
 * Writing JSON text by hand, for output that must come out whatever the
 * bytes were (a log line, a page of the status API): jansson refuses a
 * string that is not UTF-8, and a log line cannot be refused.
 *
 * pr_json_quote appends s[0..len) as one JSON string, quotes included:
 * '"' and '\\' escaped, control bytes (below 0x20, and 0x7f) as \u00XX
 * (\n, \r, \t as such), each byte of an invalid UTF-8 sequence (an
 * overlong form, a surrogate, past U+10FFFF, cut short) as \ufffd, and
 * valid UTF-8 as it is.  So the output is always valid JSON and valid
 * UTF-8.  "</" is written "<\/", so the text can sit inside HTML.
 * Returns 0 or PR_ETOOBIG (out's cap).
 */
int pr_json_quote(struct pr_buf *out, const char *s, size_t len);
/* pr_json_quote of a C string; NULL appends null. */
int pr_json_quotes(struct pr_buf *out, const char *s);

/*
 * The length of the valid UTF-8 sequence at s[0..len) (1..4), or 0 when
 * the bytes there do not start one.
 */
size_t pr_utf8_seq(const unsigned char *s, size_t len);

#endif
