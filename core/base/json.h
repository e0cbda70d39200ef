#ifndef PR_JSON_H
#define PR_JSON_H

#include <stdbool.h>
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

/*
 * An indented JSON text written as it goes, so a long list need not be
 * held: the bytes are those jansson's json_dumps(JSON_INDENT(2)) writes
 * for the same document with its keys in the order written (an empty
 * object or array as {} or [], ": " after a key, items on lines of their
 * own).  Strings must be valid UTF-8 without a NUL (the caller checks);
 * they are escaped as jansson escapes them: '"' and '\\', \b \f \n \r \t,
 * other bytes below 0x20 as \u00XX, the rest as it is.  out has no cap.
 * key is the member's name inside an object, NULL inside an array.  At
 * most PR_JSONW_DEPTH - 1 levels deep.
 */
#define PR_JSONW_DEPTH 16

struct pr_jsonw {
	struct pr_buf *out;
	int depth;
	bool more[PR_JSONW_DEPTH]; /* an item is written at this depth */
};

void pr_jsonw_init(struct pr_jsonw *w, struct pr_buf *out);
/* Open an object ('{') or an array ('['); pr_jsonw_close closes it. */
void pr_jsonw_open(struct pr_jsonw *w, const char *key, char c);
void pr_jsonw_close(struct pr_jsonw *w, char c);
void pr_jsonw_str(struct pr_jsonw *w, const char *key, const char *s,
		  size_t len);
/*
 * s[0..len) as pr_jsonw_str writes it when it is valid UTF-8 without a
 * NUL (true); else nothing is written and false is returned.
 */
bool pr_jsonw_str_utf8(struct pr_jsonw *w, const char *key, const char *s,
		       size_t len);
/* A C string; NULL writes null. */
void pr_jsonw_strs(struct pr_jsonw *w, const char *key, const char *s);
void pr_jsonw_int(struct pr_jsonw *w, const char *key, long long v);
void pr_jsonw_bool(struct pr_jsonw *w, const char *key, bool v);
void pr_jsonw_null(struct pr_jsonw *w, const char *key);

#endif
