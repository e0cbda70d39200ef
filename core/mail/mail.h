#ifndef PR_MAIL_H
#define PR_MAIL_H

#include "base/pr.h"

/*
 * Mail headers and MIME decoding helpers, the way `git mailinfo` reads mail.
 *
 * - Headers are unfolded as git does: each line is right-trimmed, and the
 *   first character of a continuation line becomes one space.  CR before LF
 *   is dropped with the rest of the trailing whitespace.
 * - A header block ends at a blank line or at the first line that is not a
 *   header; *body_off is then the offset of that line, which belongs to the
 *   body (git hands it to the body parser).  A NUL byte in a value ends the
 *   value (names and values are C strings), as it ends git's output.
 * - Decoding never fails on bad input: an encoded word in an unknown charset
 *   or with broken encoding is kept as its raw text, and bytes that are not
 *   valid UTF-8 are read as latin-1, so no text is lost and every output
 *   string is valid UTF-8.
 */

struct pr_mail_header {
	char *name;
	char *value; /* unfolded, leading whitespace skipped, raw bytes */
};

struct pr_mail_headers {
	struct pr_mail_header *v;
	size_t nr;
	size_t alloc;
};

#define PR_MAIL_HEADERS_INIT \
	{                    \
		NULL, 0, 0   \
	}

/* Parse the header block at the start of data (see the invariants above). */
int pr_mail_headers_parse(struct pr_mail_headers *out, const char *data,
			  size_t len, size_t *body_off);
void pr_mail_headers_release(struct pr_mail_headers *h);

/*
 * The same header block read one header at a time without a copy of
 * each: a field's name and value point into data, or into the reader's
 * buffer when the header was folded (until the next call).  The value is
 * what pr_mail_headers holds: cut at a NUL.
 */
struct pr_mail_header_reader {
	const char *data;
	size_t len;
	size_t pos; /* at the end: the offset of the body */
	size_t nr; /* headers read */
	struct pr_buf cur; /* a folded header, unfolded */
};

struct pr_mail_field {
	const char *name; /* "" for an mbox "From " line */
	const char *value;
	size_t name_len, value_len;
};

void pr_mail_header_reader_init(struct pr_mail_header_reader *r,
				const char *data, size_t len);
/* 1 with *f set, 0 at the end of the block, or a negative PR_E* code. */
int pr_mail_header_next(struct pr_mail_header_reader *r,
			struct pr_mail_field *f);
void pr_mail_header_reader_release(struct pr_mail_header_reader *r);
/* The value of the first header called name (any case), or NULL. */
const char *pr_mail_headers_get(const struct pr_mail_headers *h,
				const char *name);

/*
 * Read one line at *pos (up to and including '\n', or to the end), return its
 * length and advance *pos; 0 at the end.
 */
size_t pr_mail_next_line(const char *data, size_t len, size_t *pos);

/*
 * Is line (no NUL inside needed) a header line as git's is_rfc2822_header
 * sees it: a field name of printable characters followed by ':', or an mbox
 * "From " line.
 */
bool pr_mail_is_header_line(const char *line, size_t len);

/* RFC 2047 encoded words to UTF-8, appended to out. */
int pr_mail_decode_words(struct pr_buf *out, const char *in, size_t len);
/*
 * The same as git mailinfo's decode_header: words in other charsets are
 * converted, but text outside them (and UTF-8 words) keeps its bytes.
 */
int pr_mail_decode_words_exact(struct pr_buf *out, const char *in, size_t len);
/* Both at once: text as pr_mail_decode_words, exact as _exact. */
int pr_mail_decode_words_both(struct pr_buf *text, struct pr_buf *exact,
			      const char *in, size_t len);

/*
 * Append in, converted from charset to UTF-8.  Returns PR_EPARSE (nothing
 * appended) when the charset is unknown or the input is not valid in it.
 * With an empty charset or UTF-8 the bytes are copied, read as latin-1 when
 * they are not valid UTF-8, so the output is always valid UTF-8.
 */
int pr_mail_to_utf8(struct pr_buf *out, const char *in, size_t len,
		    const char *charset);

/* Append in, or its latin-1 reading when it is not valid UTF-8. */
int pr_mail_add_utf8_or_latin1(struct pr_buf *out, const char *in, size_t len);
bool pr_mail_is_utf8(const char *in, size_t len);

/* Quoted-printable (rfc2047: '_' is a space) and base64 decoding. */
int pr_mail_qp_decode(struct pr_buf *out, const char *in, size_t len,
		      bool rfc2047);
int pr_mail_b64_decode(struct pr_buf *out, const char *in, size_t len);
/* Append in as base64 (RFC 4648: '+', '/', '=' padding), on one line. */
int pr_mail_b64_encode(struct pr_buf *out, const void *in, size_t len);

/*
 * The value of parameter `name` ("charset=", with its '=') in a header
 * value such as a Content-Type, as git's slurp_attr finds it; returns true
 * when found.
 */
bool pr_mail_param(struct pr_buf *out, const char *value, const char *name);
/* c in lower case, ASCII only: the C locale's tolower() without its call. */
static inline unsigned char pr_mail_ascii_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

/*
 * strcasestr in the C locale (this program's), simply: glibc's sets up a
 * two-way search that costs more than the search on the short header
 * values it is used for.
 */
const char *pr_mail_strcasestr(const char *hay, const char *needle);

/*
 * An RFC 2822 date ("Tue, 10 Nov 2026 10:01:00 +0000"; the day name, the
 * seconds and the zone are optional, a zone name is read as UTC) as seconds
 * since the epoch; PR_EPARSE when it is not one.
 */
int pr_mail_parse_date(int64_t *out, const char *s);
/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), Hinnant's formula. */
int64_t pr_mail_days_from_civil(int64_t y, int m, int d);

#endif
