#include "base/pr.h"
#include "mail/mail.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>

size_t pr_mail_next_line(const char *data, size_t len, size_t *pos)
{
	const char *nl;
	size_t start = *pos;

	if (start >= len)
		return 0;
	nl = memchr(data + start, '\n', len - start);
	*pos = nl ? (size_t)(nl - data) + 1 : len;
	return *pos - start;
}

bool pr_mail_is_header_line(const char *line, size_t len)
{
	size_t i;

	if ((len >= 5 && !memcmp(line, "From ", 5)) ||
	    (len >= 6 && !memcmp(line, ">From ", 6)))
		return true;
	for (i = 0; i < len; i++) {
		unsigned char c = line[i];

		if (c == ':')
			return true;
		if (c < 33 || c > 126)
			break;
	}
	return false;
}

static size_t rtrim_len(const char *s, size_t len)
{
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return len;
}

void pr_mail_header_reader_init(struct pr_mail_header_reader *r,
				const char *data, size_t len)
{
	r->data = data;
	r->len = len;
	r->pos = 0;
	r->nr = 0;
	pr_buf_init(&r->cur, PR_LIMIT_HEADER_BYTES);
}

void pr_mail_header_reader_release(struct pr_mail_header_reader *r)
{
	pr_buf_release(&r->cur);
}

/* Split the unfolded line l[0..n) into f's name and value. */
static void split_field(struct pr_mail_field *f, const char *l, size_t n)
{
	const char *colon = memchr(l, ':', n);
	size_t v;

	if (!colon || (n >= 5 && !memcmp(l, "From ", 5)) ||
	    (n >= 6 && !memcmp(l, ">From ", 6))) {
		/* an mbox "From " line: kept under an empty name */
		f->name = "";
		f->name_len = 0;
		f->value = l;
		f->value_len = strnlen(l, n);
		return;
	}
	f->name = l;
	f->name_len = (size_t)(colon - l);
	v = f->name_len + 1;
	while (v < n && isspace((unsigned char)l[v]))
		v++;
	f->value = l + v;
	/* the value ends at a NUL, as the C strings of pr_mail_headers */
	f->value_len = strnlen(l + v, n - v);
}

int pr_mail_header_next(struct pr_mail_header_reader *r,
			struct pr_mail_field *f)
{
	const char *data = r->data;
	size_t len = r->len, pos = r->pos, start, n;
	int err;

	start = pos;
	n = pr_mail_next_line(data, len, &pos);
	if (!n)
		return 0;
	n = rtrim_len(data + start, n);
	/*
	 * A NUL in a value does not end the block (git reads on); the value
	 * ends there as git's output does.  A NUL in the name is not a header
	 * (is_rfc2822_header stops).
	 */
	if (!n || !pr_mail_is_header_line(data + start, n))
		return 0;
	if (r->nr >= PR_LIMIT_HEADER_COUNT)
		return pr_error(PR_ETOOBIG, "mail has more than %d headers",
				PR_LIMIT_HEADER_COUNT);
	r->nr++;
	/* a line that is not folded is read where it is, not copied */
	if (n <= PR_LIMIT_HEADER_BYTES &&
	    !(pos < len && (data[pos] == ' ' || data[pos] == '\t'))) {
		r->pos = pos;
		split_field(f, data + start, n);
		return 1;
	}
	pr_buf_reset(&r->cur);
	err = pr_buf_add(&r->cur, data + start, n);
	/* folding: git turns the first byte of each continuation into a space */
	while (!err && pos < len && (data[pos] == ' ' || data[pos] == '\t')) {
		start = pos;
		n = pr_mail_next_line(data, len, &pos);
		n = rtrim_len(data + start, n);
		err = pr_buf_addch(&r->cur, ' ');
		if (!err && n > 1)
			err = pr_buf_add(&r->cur, data + start + 1, n - 1);
	}
	if (err)
		return err;
	r->pos = pos;
	split_field(f, r->cur.ptr, r->cur.len);
	return 1;
}

int pr_mail_headers_parse(struct pr_mail_headers *out, const char *data,
			  size_t len, size_t *body_off)
{
	struct pr_mail_header_reader r;
	struct pr_mail_field f;
	int n;

	*body_off = 0;
	pr_mail_header_reader_init(&r, data, len);
	while ((n = pr_mail_header_next(&r, &f)) > 0) {
		struct pr_mail_header *hd;

		PR_ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		hd = &out->v[out->nr++];
		hd->name = pr_memdup(f.name, f.name_len);
		hd->value = pr_memdup(f.value, f.value_len);
	}
	if (!n)
		*body_off = r.pos;
	pr_mail_header_reader_release(&r);
	return n;
}

void pr_mail_headers_release(struct pr_mail_headers *h)
{
	size_t i;

	for (i = 0; i < h->nr; i++) {
		free(h->v[i].name);
		free(h->v[i].value);
	}
	free(h->v);
	h->v = NULL;
	h->nr = h->alloc = 0;
}

const char *pr_mail_headers_get(const struct pr_mail_headers *h,
				const char *name)
{
	size_t i;

	for (i = 0; i < h->nr; i++)
		if (!strcasecmp(h->v[i].name, name))
			return h->v[i].value;
	return NULL;
}

bool pr_mail_is_utf8(const char *in, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, n, k;
	uint32_t cp;

	while (i < len) {
		unsigned char c = s[i];
		uint64_t word;

		/* ASCII eight bytes at a time */
		if (len - i >= 8) {
			memcpy(&word, s + i, 8);
			if (!(word & 0x8080808080808080ULL)) {
				i += 8;
				continue;
			}
		}
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i <= n)
			return false;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		/* overlong forms, surrogates and values past U+10FFFF */
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

int pr_mail_add_utf8_or_latin1(struct pr_buf *out, const char *in, size_t len)
{
	size_t i;
	int err;

	if (pr_mail_is_utf8(in, len))
		return pr_buf_add(out, in, len);
	for (i = 0; i < len; i++) {
		unsigned char c = in[i];

		if (c < 0x80) {
			err = pr_buf_addch(out, c);
		} else {
			err = pr_buf_addch(out, 0xc0 | (c >> 6));
			if (!err)
				err = pr_buf_addch(out, 0x80 | (c & 0x3f));
		}
		if (err)
			return err;
	}
	return 0;
}

static bool is_utf8_name(const char *cs)
{
	return !strcasecmp(cs, "utf-8") || !strcasecmp(cs, "utf8");
}

int pr_mail_to_utf8(struct pr_buf *out, const char *in, size_t len,
		    const char *charset)
{
	iconv_t cd = (iconv_t)-1;
	char chunk[4096];
	char *ip = (char *)in;
	size_t il = len, start = out->len;
	int err = 0;

	/* no charset or UTF-8: bytes that are not UTF-8 are read as latin-1 */
	if (!*charset || is_utf8_name(charset))
		return pr_mail_add_utf8_or_latin1(out, in, len);
	cd = iconv_open("UTF-8", charset);
	if (cd == (iconv_t)-1)
		return pr_error(PR_EPARSE, "unknown charset '%s'", charset);
	while (il) {
		char *op = chunk;
		size_t ol = sizeof(chunk);
		size_t r = iconv(cd, &ip, &il, &op, &ol);

		err = pr_buf_add(out, chunk, op - chunk);
		if (err)
			goto done;
		if (r == (size_t)-1 && errno != E2BIG) {
			err = pr_error(PR_EPARSE,
				       "text not valid in charset '%s'",
				       charset);
			goto done;
		}
	}
	{
		char *op = chunk;
		size_t ol = sizeof(chunk);

		iconv(cd, NULL, NULL, &op, &ol);
		err = pr_buf_add(out, chunk, op - chunk);
	}
done:
	if (err)
		pr_buf_setlen(out, start);
	iconv_close(cd);
	return err;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int pr_mail_qp_decode(struct pr_buf *out, const char *in, size_t len,
		      bool rfc2047)
{
	size_t i;
	int err = 0;

	/* git stops at a NUL and at a soft line break "=\n" */
	for (i = 0; i < len && in[i] && !err; i++) {
		int c = (unsigned char)in[i];

		if (c == '=') {
			int hi, lo;

			if (i + 1 >= len || in[i + 1] == '\n' || !in[i + 1])
				break;
			hi = hexval((unsigned char)in[i + 1]);
			lo = i + 2 < len ? hexval((unsigned char)in[i + 2])
					 : -1;
			if (hi >= 0 && lo >= 0) {
				err = pr_buf_addch(out, hi << 4 | lo);
				i += 2;
				continue;
			}
		}
		if (rfc2047 && c == '_')
			c = ' ';
		err = pr_buf_addch(out, c);
	}
	return err;
}

int pr_mail_b64_encode(struct pr_buf *out, const void *in, size_t len)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = in;
	size_t i;
	int err = pr_buf_grow(out, (len + 2) / 3 * 4);

	for (i = 0; i < len && !err; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		char four[4];

		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		four[0] = abc[v >> 18];
		four[1] = abc[(v >> 12) & 63];
		four[2] = i + 1 < len ? abc[(v >> 6) & 63] : '=';
		four[3] = i + 2 < len ? abc[v & 63] : '=';
		err = pr_buf_add(out, four, 4);
	}
	return err;
}

int pr_mail_b64_decode(struct pr_buf *out, const char *in, size_t len)
{
	unsigned acc = 0, pos = 0;
	size_t i;
	int err = 0;

	for (i = 0; i < len && in[i] && !err; i++) {
		int c = (unsigned char)in[i];

		if (c == '+')
			c = 62;
		else if (c == '/')
			c = 63;
		else if (c >= 'A' && c <= 'Z')
			c -= 'A';
		else if (c >= 'a' && c <= 'z')
			c = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			c = c - '0' + 52;
		else
			continue; /* padding and garbage are skipped */
		switch (pos++) {
		case 0:
			acc = c << 2;
			break;
		case 1:
			err = pr_buf_addch(out, (acc | (c >> 4)) & 0xff);
			acc = (c & 15) << 4;
			break;
		case 2:
			err = pr_buf_addch(out, (acc | (c >> 2)) & 0xff);
			acc = (c & 3) << 6;
			break;
		default:
			err = pr_buf_addch(out, (acc | c) & 0xff);
			acc = pos = 0;
			break;
		}
	}
	return err;
}

/*
 * Encoded words being decoded: their text goes to text, read as UTF-8
 * (latin-1 where it is not), and to exact as git mailinfo's decode_header
 * writes it; either may be NULL.  raw holds the bytes not yet checked for
 * UTF-8: text and UTF-8 words since the last word in another charset.
 */
struct words {
	struct pr_buf *text, *exact;
	struct pr_buf raw, dec;
};

/* Append p[0..n) to the outputs, each in its form. */
static int words_add(struct words *w, const char *p, size_t n)
{
	int err = 0;

	if (w->text)
		err = pr_mail_add_utf8_or_latin1(w->text, p, n);
	if (!err && w->exact)
		err = pr_buf_add(w->exact, p, n);
	return err;
}

static bool is_utf8_name_n(const char *cs, size_t n)
{
	return !n || (n == 5 && !strncasecmp(cs, "utf-8", 5)) ||
	       (n == 4 && !strncasecmp(cs, "utf8", 4));
}

/*
 * Decode one encoded word's text: 1, or 0 when it is malformed, or an
 * error.  A word in UTF-8 (or in no charset) is appended to raw as bytes,
 * as git appends it unconverted: a character split over two words
 * (Exchange cuts words at a byte count) is whole again once the words are
 * joined.  A word in any other charset flushes raw to the outputs, then
 * goes to them converted.
 */
static int decode_word(struct words *w, const char *cs, size_t cslen, int enc,
		       const char *text, size_t tlen)
{
	struct pr_buf *conv = w->text ? w->text : w->exact;
	const char *star;
	char *charset;
	size_t start;
	int err;

	cslen = strnlen(cs, cslen); /* as the C string it was */
	star = memchr(cs, '*', cslen); /* RFC 2231 language */
	if (star)
		cslen = (size_t)(star - cs);
	pr_buf_reset(&w->dec);
	if (enc == 'b' || enc == 'B')
		err = pr_mail_b64_decode(&w->dec, text, tlen);
	else if (enc == 'q' || enc == 'Q')
		err = pr_mail_qp_decode(&w->dec, text, tlen, true);
	else
		return 0;
	if (err)
		return 0;
	if (is_utf8_name_n(cs, cslen))
		return !pr_buf_addbuf(&w->raw, &w->dec);
	err = words_add(w, w->raw.ptr, w->raw.len);
	if (err)
		return err;
	pr_buf_reset(&w->raw);
	charset = pr_memdup(cs, cslen);
	start = conv->len;
	if (pr_mail_to_utf8(conv, w->dec.ptr, w->dec.len, charset)) {
		free(charset);
		return 0;
	}
	free(charset);
	/* converted text is the same in both outputs */
	if (w->text && w->exact)
		err = pr_buf_add(w->exact, w->text->ptr + start,
				 w->text->len - start);
	return err ? err : 1;
}

/* The first "=?" of p[0..n), or NULL (memmem's set-up costs more here). */
static const char *word_start(const char *p, size_t n)
{
	const char *end = p + n, *q;

	while ((q = memchr(p, '=', (size_t)(end - p))) && q + 1 < end) {
		if (q[1] == '?')
			return q;
		p = q + 1;
	}
	return NULL;
}

int pr_mail_decode_words_both(struct pr_buf *text, struct pr_buf *exact,
			      const char *in, size_t len)
{
	struct words w = { text, exact, PR_BUF_INIT, PR_BUF_INIT };
	size_t text0 = text ? text->len : 0, exact0 = exact ? exact->len : 0;
	size_t i = 0, lit = 0;
	bool after_word = false;
	int err = 0;

	pr_buf_init(&w.raw, PR_LIMIT_HEADER_BYTES);
	pr_buf_init(&w.dec, PR_LIMIT_HEADER_BYTES);
	while (i < len) {
		const char *q1, *q2, *end, *eq;
		size_t j;
		int ok;

		eq = word_start(in + i, len - i);
		if (!eq)
			break;
		i = (size_t)(eq - in);
		q1 = memchr(in + i + 2, '?', len - i - 2);
		if (!q1 || q1 + 2 >= in + len || q1[2] != '?') {
			i++;
			continue;
		}
		end = NULL;
		for (q2 = q1 + 3; q2 + 1 < in + len; q2++)
			if (q2[0] == '?' && q2[1] == '=') {
				end = q2;
				break;
			}
		/* no "?=" anywhere after: no later word can end either */
		if (!end)
			break;
		/* only whitespace between two encoded words is dropped */
		for (j = lit; j < i; j++)
			if (!isspace((unsigned char)in[j]))
				break;
		if (j < i || !after_word)
			err = pr_buf_add(&w.raw, in + lit, i - lit);
		if (err)
			goto done;
		ok = decode_word(&w, in + i + 2, (size_t)(q1 - (in + i + 2)),
				 q1[1], q1 + 3, (size_t)(end - (q1 + 3)));
		if (ok < 0) {
			err = ok;
			goto done;
		}
		/* keep what we cannot decode, as written */
		if (!ok && (err = pr_buf_add(&w.raw, in + i,
					     (size_t)(end + 2 - (in + i)))))
			goto done;
		i = lit = (size_t)(end + 2 - in);
		after_word = true;
	}
	/* most values have no encoded word: no copy through raw then */
	if (!w.raw.len) {
		err = words_add(&w, in + lit, len - lit);
	} else {
		err = pr_buf_add(&w.raw, in + lit, len - lit);
		if (!err)
			err = words_add(&w, w.raw.ptr, w.raw.len);
	}
done:
	if (err && text)
		pr_buf_setlen(text, text0);
	if (err && exact)
		pr_buf_setlen(exact, exact0);
	pr_buf_release(&w.raw);
	pr_buf_release(&w.dec);
	return err;
}

int pr_mail_decode_words(struct pr_buf *out, const char *in, size_t len)
{
	return pr_mail_decode_words_both(out, NULL, in, len);
}

int pr_mail_decode_words_exact(struct pr_buf *out, const char *in, size_t len)
{
	return pr_mail_decode_words_both(NULL, out, in, len);
}

const char *pr_mail_strcasestr(const char *hay, const char *needle)
{
	size_t i;

	for (; *hay; hay++) {
		for (i = 0; needle[i]; i++)
			if (pr_mail_ascii_lower((unsigned char)hay[i]) !=
			    pr_mail_ascii_lower((unsigned char)needle[i]))
				break;
		if (!needle[i])
			return hay;
	}
	return *needle ? NULL : hay;
}

bool pr_mail_param(struct pr_buf *out, const char *value, const char *name)
{
	const char *p = pr_mail_strcasestr(value, name);
	size_t n;

	pr_buf_reset(out);
	if (!p)
		return false;
	p += strlen(name);
	if (*p == '"') {
		p++;
		n = strcspn(p, "\"");
	} else {
		n = strcspn(p, "; \t");
	}
	return pr_buf_add(out, p, n) == 0;
}

int64_t pr_mail_days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A number of 1..max digits at *s. */
static bool read_num(long *out, const char **s, int max)
{
	const char *p = *s;
	long v = 0;
	int n = 0;

	while (isdigit((unsigned char)*p) && n < max) {
		v = v * 10 + (*p++ - '0');
		n++;
	}
	if (!n || isdigit((unsigned char)*p))
		return false;
	*out = v;
	*s = p;
	return true;
}

int pr_mail_parse_date(int64_t *out, const char *s)
{
	static const char *const months[] = { "jan", "feb", "mar", "apr",
					      "may", "jun", "jul", "aug",
					      "sep", "oct", "nov", "dec" };
	const char *p = skip_ws(s ? s : "");
	long day, year, hh, mm, ss = 0, zone = 0;
	int mon = -1, i, sign = 1;

	/* an optional day name and comma */
	if (isalpha((unsigned char)*p)) {
		while (isalpha((unsigned char)*p))
			p++;
		if (*p == ',')
			p++;
		p = skip_ws(p);
	}
	if (!read_num(&day, &p, 2))
		goto bad;
	p = skip_ws(p);
	for (i = 0; i < 12 && mon < 0; i++)
		if (!strncasecmp(p, months[i], 3))
			mon = i + 1;
	if (mon < 0)
		goto bad;
	while (isalpha((unsigned char)*p))
		p++;
	p = skip_ws(p);
	if (!read_num(&year, &p, 4))
		goto bad;
	if (year < 50)
		year += 2000;
	else if (year < 1000)
		year += 1900;
	p = skip_ws(p);
	if (!read_num(&hh, &p, 2) || *p++ != ':' || !read_num(&mm, &p, 2))
		goto bad;
	if (*p == ':') {
		p++;
		if (!read_num(&ss, &p, 2))
			goto bad;
	}
	p = skip_ws(p);
	if (*p == '+' || *p == '-') {
		long z;

		sign = *p++ == '-' ? -1 : 1;
		if (!read_num(&z, &p, 4))
			goto bad;
		zone = sign * ((z / 100) * 60 + z % 100);
	}
	/* "GMT", "UT" or nothing: UTC; other zone names are read as UTC */
	if (day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60)
		goto bad;
	*out = pr_mail_days_from_civil(year, mon, (int)day) * 86400 +
	       hh * 3600 + mm * 60 + ss - zone * 60;
	return 0;
bad:
	return pr_error(PR_EPARSE, "date '%.100s': not an RFC 2822 date",
			s ? s : "");
}
