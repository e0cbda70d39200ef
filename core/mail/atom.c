#include "base/pr.h"

#include "mail/atom.h"
#include "mail/mail.h"

/*
 * A scanner, not an XML parser: it walks the tags in order, keeps a depth
 * inside the current <entry> and captures the text of the entry's direct
 * children it wants.  Enough for the feeds public-inbox and lore write
 * (us-ascii, numeric entities, no DTD) and for anything a fuzzer throws at
 * it without reading past the input.
 */

enum field {
	F_NONE = 0,
	F_ID,
	F_UPDATED,
	F_TITLE
};

struct scan {
	const char *p, *end, *start;
	const char *name;
	struct pr_atom_feed *feed;
	struct pr_atom_entry cur;
	bool in_entry;
	int depth; /* open elements inside the entry */
	enum field field; /* the direct child whose text is captured */
	struct pr_buf text;
};

static int bad(const struct scan *s, const char *what)
{
	return pr_error(PR_EPARSE, "atom '%s' offset %zu: %s", s->name,
			(size_t)(s->p - s->start), what);
}

static const char *find(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; (size_t)(end - p) >= n; p++)
		if (!memcmp(p, needle, n))
			return p;
	return NULL;
}

/* Append code point c as UTF-8. */
static int add_utf8(struct pr_buf *b, unsigned long c)
{
	char u[4];
	size_t n;

	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	return pr_buf_add(b, u, n);
}

/* Append text [p, end) with its entities decoded. */
static int add_text(struct scan *s, struct pr_buf *b, const char *p,
		    const char *end)
{
	static const struct {
		const char *name;
		char c;
	} named[] = { { "lt", '<' },
		      { "gt", '>' },
		      { "amp", '&' },
		      { "quot", '"' },
		      { "apos", '\'' } };
	int err = 0;

	while (!err && p < end) {
		const char *semi;
		size_t i, n;

		if (*p != '&') {
			err = pr_buf_addch(b, *p++);
			continue;
		}
		semi = memchr(p, ';', (size_t)(end - p));
		if (!semi || semi - p > 12) {
			s->p = p;
			return bad(s, "an '&' that starts no entity");
		}
		n = (size_t)(semi - p - 1);
		if (n > 1 && p[1] == '#') {
			unsigned long c = 0;
			bool hex = p[2] == 'x' || p[2] == 'X';
			const char *q = p + (hex ? 3 : 2);

			if (q == semi)
				goto unknown;
			for (; q < semi; q++) {
				int d;

				if (*q >= '0' && *q <= '9')
					d = *q - '0';
				else if (hex && *q >= 'a' && *q <= 'f')
					d = *q - 'a' + 10;
				else if (hex && *q >= 'A' && *q <= 'F')
					d = *q - 'A' + 10;
				else
					goto unknown;
				c = c * (hex ? 16 : 10) + (unsigned long)d;
				if (c > 0x10ffff)
					goto unknown;
			}
			if (c == 0 || (c >= 0xd800 && c <= 0xdfff))
				goto unknown;
			err = add_utf8(b, c);
			p = semi + 1;
			continue;
		}
		for (i = 0; i < PR_ARRAY_SIZE(named); i++)
			if (strlen(named[i].name) == n &&
			    !memcmp(p + 1, named[i].name, n))
				break;
		if (i == PR_ARRAY_SIZE(named))
			goto unknown;
		err = pr_buf_addch(b, named[i].c);
		p = semi + 1;
	}
	return err;
unknown:
	s->p = p;
	return bad(s, "an unknown entity");
}

static bool name_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == ':' || c == '-' || c == '_' ||
	       c == '.';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

struct tag {
	const char *name;
	size_t len;
	bool closing, empty;
	const char *attrs, *attrs_end; /* between the name and '>' */
};

/* Read the tag at s->p ('<'), leaving s->p after its '>'. */
static int read_tag(struct scan *s, struct tag *t)
{
	const char *p = s->p + 1, *q;
	char quote = 0;

	memset(t, 0, sizeof(*t));
	if (p < s->end && *p == '/') {
		t->closing = true;
		p++;
	}
	t->name = p;
	while (p < s->end && name_byte(*p))
		p++;
	t->len = (size_t)(p - t->name);
	if (!t->len)
		return bad(s, "a '<' that starts no tag");
	t->attrs = p;
	/* '>' inside a quoted attribute value does not end the tag */
	for (q = p; q < s->end; q++) {
		if (quote) {
			if (*q == quote)
				quote = 0;
		} else if (*q == '"' || *q == '\'') {
			quote = *q;
		} else if (*q == '>') {
			break;
		}
	}
	if (q == s->end)
		return bad(s, "a tag that does not end");
	t->attrs_end = q;
	if (q > t->attrs && q[-1] == '/') {
		t->empty = true;
		t->attrs_end--;
	}
	s->p = q + 1;
	return 0;
}

static bool tag_is(const struct tag *t, const char *name)
{
	return strlen(name) == t->len && !memcmp(t->name, name, t->len);
}

/*
 * The decoded value of attribute `name` in out: 1 when present, 0 when
 * not, or an error.
 */
static int attr(struct scan *s, const struct tag *t, const char *name,
		struct pr_buf *out)
{
	const char *p = t->attrs, *end = t->attrs_end;
	size_t n = strlen(name);

	while (p < end) {
		const char *k, *v;
		size_t klen;
		char quote;

		while (p < end && is_space(*p))
			p++;
		k = p;
		while (p < end && name_byte(*p))
			p++;
		klen = (size_t)(p - k);
		while (p < end && is_space(*p))
			p++;
		if (!klen || p >= end || *p != '=')
			return 0; /* not well-formed: no attributes */
		p++;
		while (p < end && is_space(*p))
			p++;
		if (p >= end || (*p != '"' && *p != '\''))
			return 0;
		quote = *p++;
		v = p;
		while (p < end && *p != quote)
			p++;
		if (p >= end)
			return 0;
		if (klen == n && !memcmp(k, name, n)) {
			int err = add_text(s, out, v, p);

			return err ? err : 1;
		}
		p++;
	}
	return 0;
}

static char **field_slot(struct pr_atom_entry *e, enum field f)
{
	switch (f) {
	case F_ID:
		return &e->id;
	case F_UPDATED:
		return &e->updated;
	case F_TITLE:
		return &e->title;
	default:
		return NULL;
	}
}

static void entry_release(struct pr_atom_entry *e)
{
	free(e->id);
	free(e->link);
	free(e->updated);
	free(e->title);
	memset(e, 0, sizeof(*e));
}

static int start_tag(struct scan *s, const struct tag *t)
{
	struct pr_buf v = PR_BUF_INIT;
	int err = 0;

	if (tag_is(t, "entry")) {
		if (s->in_entry)
			return bad(s, "an <entry> inside an <entry>");
		if (s->feed->nr >= PR_LIMIT_ATOM_ENTRIES)
			return pr_error(PR_ETOOBIG,
					"atom '%s': more than %d entries",
					s->name, PR_LIMIT_ATOM_ENTRIES);
		memset(&s->cur, 0, sizeof(s->cur));
		s->cur.time = -1;
		s->in_entry = !t->empty;
		s->depth = 0;
		if (t->empty) {
			PR_ALLOC_GROW(s->feed->v, s->feed->nr + 1,
				      s->feed->alloc);
			s->feed->v[s->feed->nr++] = s->cur;
		}
		return 0;
	}
	if (!s->in_entry)
		return 0;
	if (s->depth == 0 && (tag_is(t, "content") || tag_is(t, "summary"))) {
		const char *close;

		if (t->empty)
			return 0;
		/* skipped whole: the text inside is escaped, so the first
		 * matching end tag is the end */
		close = find(s->p, s->end,
			     tag_is(t, "content") ? "</content" : "</summary");
		if (!close)
			return bad(s, "a <content> that does not end");
		s->p = close;
		return 0;
	}
	if (s->depth == 0 && tag_is(t, "link") && !s->cur.link) {
		pr_buf_init(&v, PR_LIMIT_HEADER_BYTES);
		err = attr(s, t, "rel", &v);
		if (err < 0)
			goto done;
		if (err == 0 || !strcmp(v.ptr, "alternate")) {
			pr_buf_reset(&v);
			err = attr(s, t, "href", &v);
			if (err == 1)
				s->cur.link = pr_buf_detach(&v, NULL);
		}
		if (err > 0)
			err = 0;
	}
	if (s->depth == 0 && !t->empty) {
		s->field = tag_is(t, "id")	  ? F_ID
			   : tag_is(t, "updated") ? F_UPDATED
			   : tag_is(t, "title")	  ? F_TITLE
						  : F_NONE;
		if (s->field && *field_slot(&s->cur, s->field))
			s->field = F_NONE; /* the first one counts */
		pr_buf_release(&s->text);
		pr_buf_init(&s->text, PR_LIMIT_HEADER_BYTES);
	}
	if (!t->empty)
		s->depth++;
done:
	pr_buf_release(&v);
	return err;
}

static int end_tag(struct scan *s, const struct tag *t)
{
	if (!s->in_entry)
		return 0;
	if (tag_is(t, "entry")) {
		if (s->field)
			return bad(s, "an </entry> inside a field");
		if (s->cur.updated &&
		    pr_atom_parse_time(&s->cur.time, s->cur.updated) < 0) {
			pr_error_clear();
			s->cur.time = -1;
		}
		PR_ALLOC_GROW(s->feed->v, s->feed->nr + 1, s->feed->alloc);
		s->feed->v[s->feed->nr++] = s->cur;
		memset(&s->cur, 0, sizeof(s->cur));
		s->in_entry = false;
		return 0;
	}
	if (s->depth > 0)
		s->depth--;
	if (s->depth == 0 && s->field) {
		*field_slot(&s->cur, s->field) = pr_buf_detach(&s->text, NULL);
		s->field = F_NONE;
	}
	return 0;
}

int pr_atom_parse(struct pr_atom_feed *out, const char *data, size_t len,
		  const char *name)
{
	struct scan s;
	int err = 0;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	s.p = s.start = data;
	s.end = data + len;
	s.name = name;
	s.feed = out;
	s.cur.time = -1;
	pr_buf_init(&s.text, PR_LIMIT_HEADER_BYTES);
	while (!err && s.p < s.end) {
		const char *lt = memchr(s.p, '<', (size_t)(s.end - s.p)), *e;
		struct tag t;

		if (s.field)
			err = add_text(&s, &s.text, s.p, lt ? lt : s.end);
		if (err || !lt)
			break;
		s.p = lt;
		if ((size_t)(s.end - lt) >= 4 && !memcmp(lt, "<!--", 4)) {
			e = find(lt + 4, s.end, "-->");
			if (!e) {
				err = bad(&s, "a comment that does not end");
				break;
			}
			s.p = e + 3;
			continue;
		}
		if ((size_t)(s.end - lt) >= 9 && !memcmp(lt, "<![CDATA[", 9)) {
			e = find(lt + 9, s.end, "]]>");
			if (!e) {
				err = bad(&s, "a CDATA section that does "
					      "not end");
				break;
			}
			if (s.field)
				err = pr_buf_add(&s.text, lt + 9,
						 (size_t)(e - lt - 9));
			s.p = e + 3;
			continue;
		}
		if ((size_t)(s.end - lt) >= 2 &&
		    (lt[1] == '?' || lt[1] == '!')) {
			e = find(lt + 2, s.end, lt[1] == '?' ? "?>" : ">");
			if (!e) {
				err = bad(&s,
					  "a declaration that does not end");
				break;
			}
			s.p = e + (lt[1] == '?' ? 2 : 1);
			continue;
		}
		if ((err = read_tag(&s, &t)))
			break;
		if (t.closing)
			err = end_tag(&s, &t);
		else
			err = start_tag(&s, &t);
	}
	if (!err && s.in_entry)
		err = bad(&s, "an <entry> that does not end");
	entry_release(&s.cur);
	pr_buf_release(&s.text);
	if (err)
		pr_atom_feed_release(out);
	return err;
}

void pr_atom_feed_release(struct pr_atom_feed *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		entry_release(&f->v[i]);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* n digits at *p as a number, advancing p; -1 when they are not digits. */
static int digits(const char **p, int n)
{
	int v = 0;

	for (; n > 0; n--, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (**p - '0');
	}
	return v;
}

int pr_atom_parse_time(int64_t *out, const char *s)
{
	const char *p = s ? s : "";
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;

	while (is_space(*p))
		p++;
	if ((y = digits(&p, 4)) < 0 || *p++ != '-' ||
	    (mo = digits(&p, 2)) < 1 || mo > 12 || *p++ != '-' ||
	    (d = digits(&p, 2)) < 1 || d > 31 || (*p != 'T' && *p != 't'))
		goto bad;
	p++;
	if ((h = digits(&p, 2)) < 0 || h > 23 || *p++ != ':' ||
	    (mi = digits(&p, 2)) < 0 || mi > 59 || *p++ != ':' ||
	    (sec = digits(&p, 2)) < 0 || sec > 60)
		goto bad;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			goto bad;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		if ((oh = digits(&p, 2)) < 0 || oh > 23 || *p++ != ':' ||
		    (om = digits(&p, 2)) < 0 || om > 59)
			goto bad;
	} else {
		goto bad;
	}
	while (is_space(*p))
		p++;
	if (*p)
		goto bad;
	*out = pr_mail_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 +
	       sec - sign * (oh * 3600 + om * 60);
	return 0;
bad:
	return pr_error(PR_EPARSE, "date '%.100s': not an RFC 3339 date",
			s ? s : "");
}
