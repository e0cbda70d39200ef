#include "base/pr.h"
#include "mail/mailinfo.h"
#include "mail/mail.h"
#include "mail/pull.h"
#include "model/subject.h"
#include "model/trailer.h"

#include <ctype.h>

/* The headers mailinfo reports, in its order. */
enum {
	H_FROM,
	H_SUBJECT,
	H_DATE,
	H_NR
};
static const char *const hdr_names[H_NR] = { "From", "Subject", "Date" };
static const size_t hdr_lens[H_NR] = { 4, 7, 4 };

enum te {
	TE_NONE,
	TE_QP,
	TE_BASE64
};

/*
 * A header's value: decoded to UTF-8, and as git mailinfo decodes it;
 * same when the two are equal (most mails), so that the clean-ups are
 * done on text alone.
 */
struct hval {
	struct pr_buf text, bytes;
	bool same;
};

/*
 * The buffers of a parse.  pr_mailinfo_reset keeps them (emptied) for the
 * next mail, so that a mailbox is read without a malloc per line or field.
 */
struct pr_mailinfo_scratch {
	struct hval hdr[H_NR]; /* from the mail's headers */
	struct hval inbody[H_NR]; /* from in-body header lines */
	struct pr_buf charset;
	struct pr_buf value; /* a Content-Type value, as a C string */
	struct pr_buf accum; /* an in-body header line */
	/* work buffers of the functions below */
	struct pr_buf line, prev, one, conv, decoded, param;
	struct pr_buf name, email, nameb, emailb;
};

struct state {
	const char *data;
	size_t len, pos;
	struct pr_mailinfo_scratch *w;
	bool has_hdr[H_NR];
	bool has_inbody[H_NR];
	char *bound[PR_LIMIT_MIME_DEPTH];
	int nbound;
	enum te te;
	bool flowed, delsp;
	bool header_stage;
	int filter_stage;
	size_t patch_lines;
	struct pr_mailinfo *out;
	int err;
};

static bool skip_header(const char *line, size_t len, const char *name,
			const char **val)
{
	size_t n = strlen(name);
	const char *v;

	if (len <= n || line[n] != ':' || strncasecmp(line, name, n))
		return false;
	v = line + n + 1;
	while (v < line + len && isspace((unsigned char)*v))
		v++;
	*val = v;
	return true;
}

static bool buf_eq(const struct pr_buf *a, const struct pr_buf *b)
{
	return a->len == b->len && !memcmp(a->ptr, b->ptr, a->len);
}

static int set_decoded(struct hval *dst, const char *v, size_t n)
{
	int err;

	pr_buf_reset(&dst->text);
	pr_buf_reset(&dst->bytes);
	err = pr_mail_decode_words_both(&dst->text, &dst->bytes, v, n);
	dst->same = buf_eq(&dst->text, &dst->bytes);
	return err;
}

/* The value as git mailinfo has it */
static struct pr_buf *hval_exact(struct hval *v)
{
	return v->same ? &v->text : &v->bytes;
}

static void content_type(struct state *st, const char *v)
{
	struct pr_buf *a = &st->w->param;

	st->flowed = pr_mail_param(a, v, "format=") &&
		     !strcasecmp(a->ptr, "flowed");
	st->delsp = pr_mail_param(a, v, "delsp=") && !strcasecmp(a->ptr, "yes");
	if (pr_mail_param(a, v, "boundary=")) {
		if (st->nbound >= PR_LIMIT_MIME_DEPTH) {
			st->err = pr_error(PR_ETOOBIG,
					   "mail nests more than %d multiparts",
					   PR_LIMIT_MIME_DEPTH);
		} else {
			struct pr_buf b = PR_BUF_INIT;

			pr_buf_addf(&b, "--%s", a->ptr);
			st->bound[st->nbound++] = pr_buf_detach(&b, NULL);
		}
	}
	if (pr_mail_param(a, v, "charset=")) {
		pr_buf_reset(&st->w->charset);
		pr_buf_addbuf(&st->w->charset, a);
	}
}

/* The first <...> of a header value, or the trimmed value. */
static char *msgid(const char *v, size_t n)
{
	const char *b, *k, *end = v + n;

	b = memchr(v, '<', n);
	k = b ? memchr(b, '>', (size_t)(end - b)) : NULL;
	if (k)
		return pr_memdup(b + 1, (size_t)(k - b - 1));
	while (v < end && isspace((unsigned char)*v))
		v++;
	for (n = 0; v + n < end && v[n] != ' ' && v[n] != '\t'; n++)
		;
	return pr_memdup(v, n);
}

static void references(struct pr_mailinfo *out, const char *v, size_t n)
{
	const char *b, *k, *end = v + n;

	while ((b = memchr(v, '<', (size_t)(end - v))) &&
	       (k = memchr(b, '>', (size_t)(end - b)))) {
		out->references = pr_reallocarray(out->references,
						  out->nr_references + 1,
						  sizeof(char *));
		out->references[out->nr_references++] =
			pr_memdup(b + 1, (size_t)(k - b - 1));
		v = k + 1;
	}
}

/*
 * Is name[0..n) the header name want, in any case?  ASCII only, as header
 * names are; a loop here, as strncasecmp's call cost more than the compare
 * for the few headers of a mail.
 */
static bool name_eq(const char *name, size_t n, const char *want, size_t wn)
{
	size_t i;

	if (wn != n)
		return false;
	for (i = 0; i < n; i++) {
		if (pr_mail_ascii_lower((unsigned char)name[i]) !=
		    pr_mail_ascii_lower((unsigned char)want[i]))
			return false;
	}
	return true;
}

/* Which of hdr_names name[0..n) is (in any case); -1 for none. */
static int hdr_index(const char *name, size_t n)
{
	int i;

	for (i = 0; i < H_NR; i++)
		if (name_eq(name, n, hdr_names[i], hdr_lens[i]))
			return i;
	return -1;
}

/* name: a literal, its strlen() is known when this is compiled */
static inline bool is_name(const struct pr_mail_field *f, const char *name)
{
	return name_eq(f->name, f->name_len, name, strlen(name));
}

/* A header of the mail or of a part; overwrite for the mail's own. */
static void check_header(struct state *st, const struct pr_mail_field *f,
			 bool overwrite)
{
	int i = hdr_index(f->name, f->name_len);
	const char *v;

	if (i >= 0) {
		if (!st->has_hdr[i] || overwrite) {
			if (!st->err)
				st->err = set_decoded(&st->w->hdr[i], f->value,
						      f->value_len);
			st->has_hdr[i] = true;
		}
		return;
	}
	if (!is_name(f, "Content-Type") &&
	    !is_name(f, "Content-Transfer-Encoding"))
		return;
	/* the two are read as C strings */
	pr_buf_reset(&st->w->value);
	if (!st->err)
		st->err = pr_buf_add(&st->w->value, f->value, f->value_len);
	v = st->w->value.ptr;
	if (f->name_len == strlen("Content-Type")) {
		content_type(st, v);
	} else if (pr_mail_strcasestr(v, "base64")) {
		st->te = TE_BASE64;
	} else if (pr_mail_strcasestr(v, "quoted-printable")) {
		st->te = TE_QP;
	} else {
		st->te = TE_NONE;
	}
}

/*
 * The header block at st->pos (the mail's, or a part's), read in place;
 * st->pos moves past it.  Returns the count of headers with a name, or an
 * error.  The first Message-ID, In-Reply-To and References are read for
 * the mail's own block only (overwrite).
 */
static int check_headers(struct state *st, bool overwrite, size_t *nr)
{
	struct pr_mail_header_reader r;
	struct pr_mail_field f;
	bool id = false, irt = false, refs = false;
	int n, named = 0;

	pr_mail_header_reader_init(&r, st->data + st->pos, st->len - st->pos);
	while ((n = pr_mail_header_next(&r, &f)) > 0) {
		if (!f.name_len)
			continue;
		named++;
		check_header(st, &f, overwrite);
		if (!overwrite)
			continue;
		if (!id && is_name(&f, "Message-ID")) {
			st->out->message_id = msgid(f.value, f.value_len);
			id = true;
		} else if (!irt && is_name(&f, "In-Reply-To")) {
			st->out->in_reply_to = msgid(f.value, f.value_len);
			irt = true;
		} else if (!refs && is_name(&f, "References")) {
			references(st->out, f.value, f.value_len);
			refs = true;
		}
	}
	st->pos += r.pos;
	if (nr)
		*nr = r.nr;
	pr_mail_header_reader_release(&r);
	return n < 0 ? n : named;
}

static bool patchbreak(const char *l, size_t n)
{
	size_t i;

	if ((n >= 6 && !memcmp(l, "diff -", 6)) ||
	    (n >= 7 && !memcmp(l, "Index: ", 7)))
		return true;
	if (n < 4 || memcmp(l, "---", 3))
		return false;
	if (l[3] == ' ' && !isspace((unsigned char)l[4]))
		return true;
	for (i = 3; i < n; i++) {
		if (l[i] == '\n')
			return true;
		if (!isspace((unsigned char)l[i]))
			break;
	}
	return false;
}

/*
 * The in-body header line held in accum.  It starts with the name of one
 * of hdr_names not seen in the body yet (is_inbody_header), which it sets.
 */
static void flush_accum(struct state *st)
{
	const char *l = st->w->accum.ptr, *v;
	size_t n = st->w->accum.len;
	int i;

	if (!n)
		return;
	for (i = 0; i < H_NR; i++) {
		if (!st->has_inbody[i] && skip_header(l, n, hdr_names[i], &v)) {
			if (!st->err)
				st->err = set_decoded(&st->w->inbody[i], v,
						      n - (size_t)(v - l));
			st->has_inbody[i] = true;
			break;
		}
	}
	pr_buf_reset(&st->w->accum);
}

static bool is_inbody_header(struct state *st, const char *l, size_t n)
{
	const char *v;
	int i;

	for (i = 0; i < H_NR; i++)
		if (!st->has_inbody[i] && skip_header(l, n, hdr_names[i], &v))
			return true;
	return false;
}

/* "From <40 hex> Mon Sep 17 00:00:00 2001" as format-patch writes it */
static bool is_format_patch_separator(const char *l, size_t n)
{
	static const char tail[] = " Mon Sep 17 00:00:00 2001\n";
	size_t i;

	if (n != 5 + 40 + strlen(tail) || memcmp(l, "From ", 5))
		return false;
	for (i = 5; i < 45; i++)
		if (!isxdigit((unsigned char)l[i]))
			return false;
	return !memcmp(l + 45, tail, strlen(tail));
}

/* Returns true while the line is part of the in-body header block. */
static bool check_inbody(struct state *st, const char *l, size_t n)
{
	if (st->w->accum.len && (l[0] == ' ' || l[0] == '\t')) {
		if (st->w->accum.ptr[st->w->accum.len - 1] == '\n')
			pr_buf_setlen(&st->w->accum, st->w->accum.len - 1);
		pr_buf_add(&st->w->accum, l, n);
		return true;
	}
	flush_accum(st);
	if (n > 5 && !memcmp(l, ">From", 5) && isspace((unsigned char)l[5]))
		return is_format_patch_separator(l + 1, n - 1);
	if (n > 7 && !memcmp(l, "[PATCH]", 7) && isspace((unsigned char)l[7])) {
		struct hval *subj = &st->w->inbody[H_SUBJECT];
		size_t e = n;

		while (e && (l[e - 1] == '\n' || l[e - 1] == '\r'))
			e--;
		pr_buf_reset(&subj->text);
		pr_buf_reset(&subj->bytes);
		pr_mail_add_utf8_or_latin1(&subj->text, l, e);
		pr_buf_add(&subj->bytes, l, e);
		subj->same = buf_eq(&subj->text, &subj->bytes);
		st->has_inbody[H_SUBJECT] = true;
		return true;
	}
	if (is_inbody_header(st, l, n)) {
		/* kept with its newline, which becomes a space, as in git */
		pr_buf_add(&st->w->accum, l, n);
		return true;
	}
	return false;
}

/*
 * Append a message line: text, its UTF-8 form, to msg, and exact, the
 * bytes git mailinfo writes for it, to bytes.msg, which is started (with
 * msg so far) only at the first line where the two differ.
 */
static int msg_line(struct pr_mailinfo *mi, const char *text, size_t tlen,
		    const char *exact, size_t elen)
{
	struct pr_buf *m = &mi->msg;
	size_t before = m->len;
	int err = pr_mail_add_utf8_or_latin1(m, text, tlen);

	if (err)
		return err;
	if (!mi->bytes.has_msg &&
	    (m->len - before != elen || memcmp(m->ptr + before, exact, elen))) {
		mi->bytes.has_msg = true;
		err = pr_buf_add(&mi->bytes.msg, m->ptr, before);
	}
	if (!err && mi->bytes.has_msg)
		err = pr_buf_add(&mi->bytes.msg, exact, elen);
	return err;
}

static bool charset_is_utf8(const char *cs)
{
	return !*cs || !strcasecmp(cs, "utf-8") || !strcasecmp(cs, "utf8");
}

/* Returns true when this line starts the patch. */
static bool commit_msg(struct state *st, const char *l, size_t n)
{
	struct pr_buf *conv = &st->w->conv;
	/* git converts no text in no charset or UTF-8: its bytes stay */
	bool raw = charset_is_utf8(st->w->charset.ptr);

	if (st->header_stage) {
		if (!n || (n == 1 && l[0] == '\n')) {
			if (st->w->accum.len) {
				flush_accum(st);
				st->header_stage = false;
			}
			return false;
		}
		st->header_stage = check_inbody(st, l, n);
		if (st->header_stage)
			return false;
	}
	if (patchbreak(l, n))
		return true;
	if (st->err)
		return false;
	/* its own UTF-8 form: msg_line reads it as latin-1 where it is not */
	if (raw) {
		st->err = msg_line(st->out, l, n, l, n);
		return false;
	}
	pr_buf_reset(conv);
	if (pr_mail_to_utf8(conv, l, n, st->w->charset.ptr)) {
		pr_error_clear();
		pr_buf_reset(conv);
		pr_buf_add(conv, l, n); /* unknown charset: keep the bytes */
		raw = true;
	}
	st->err = msg_line(st->out, conv->ptr, conv->len, raw ? l : conv->ptr,
			   raw ? n : conv->len);
	return false;
}

static void filter(struct state *st, const char *l, size_t n)
{
	if (st->filter_stage == 0) {
		if (!commit_msg(st, l, n))
			return;
		st->filter_stage = 1;
	}
	st->patch_lines++;
	if (!st->err)
		st->err = pr_buf_add(&st->out->patch, l, n);
}

static void filter_flowed(struct state *st, struct pr_buf *line,
			  struct pr_buf *prev)
{
	size_t n = line->len;

	if (!st->flowed) {
		filter(st, line->ptr, line->len);
		return;
	}
	if (n && line->ptr[n - 1] == '\n') {
		n--;
		if (n && line->ptr[n - 1] == '\r')
			n--;
	}
	if (n == 3 && !memcmp(line->ptr, "-- ", 3)) {
		/* the signature separator stays as it is */
		if (prev->len) {
			filter(st, prev->ptr, prev->len);
			pr_buf_reset(prev);
		}
		filter(st, line->ptr, line->len);
		return;
	}
	if (n && line->ptr[0] == ' ') {
		memmove(line->ptr, line->ptr + 1, line->len);
		line->len--;
		n--;
	}
	if (n && line->ptr[n - 1] == ' ') {
		/* a soft break: keep the text and wait for the rest */
		pr_buf_add(prev, line->ptr, n - (st->delsp ? 1 : 0));
		return;
	}
	if (prev->len) {
		pr_buf_addbuf(prev, line);
		filter(st, prev->ptr, prev->len);
		pr_buf_reset(prev);
		return;
	}
	filter(st, line->ptr, line->len);
}

static bool next_line(struct state *st, struct pr_buf *line)
{
	size_t start = st->pos;
	size_t n = pr_mail_next_line(st->data, st->len, &st->pos);

	pr_buf_reset(line);
	if (!n)
		return false;
	pr_buf_add(line, st->data + start, n);
	return true;
}

static bool is_boundary(struct state *st, const struct pr_buf *line)
{
	const char *b;
	size_t n;

	if (!st->nbound)
		return false;
	b = st->bound[st->nbound - 1];
	n = strlen(b);
	return line->len >= n && !memcmp(line->ptr, b, n);
}

static bool find_boundary(struct state *st, struct pr_buf *line)
{
	while (next_line(st, line))
		if (is_boundary(st, line))
			return true;
	return false;
}

/* At a boundary line: false when the mail ends. */
static bool handle_boundary(struct state *st, struct pr_buf *line)
{
	size_t n;
	int err;

	for (;;) {
		n = strlen(st->bound[st->nbound - 1]);
		if (!(line->len >= n + 2 && !memcmp(line->ptr + n, "--", 2)))
			break;
		/* the end of this multipart: pop it */
		free(st->bound[--st->nbound]);
		filter(st, "\n", 1);
		if (!find_boundary(st, line))
			return false;
	}
	st->te = TE_NONE;
	pr_buf_reset(&st->w->charset);
	if (st->err)
		return false;
	err = check_headers(st, false, NULL);
	if (err < 0)
		st->err = err;
	if (st->err)
		return false;
	/* git drops the line that ended the part's headers */
	pr_mail_next_line(st->data, st->len, &st->pos);
	return next_line(st, line);
}

static void decode_te(struct state *st, struct pr_buf *line)
{
	struct pr_buf *d = &st->w->decoded;

	if (st->te == TE_NONE)
		return;
	pr_buf_reset(d);
	if (st->te == TE_QP)
		pr_mail_qp_decode(d, line->ptr, line->len, false);
	else
		pr_mail_b64_decode(d, line->ptr, line->len);
	pr_buf_reset(line);
	pr_buf_addbuf(line, d);
}

static void handle_body(struct state *st, struct pr_buf *line)
{
	struct pr_buf *prev = &st->w->prev, *one = &st->w->one;

	if (st->nbound && !is_boundary(st, line) && !find_boundary(st, line))
		return;
	do {
		if (is_boundary(st, line)) {
			if (prev->len) {
				filter(st, prev->ptr, prev->len);
				pr_buf_reset(prev);
			}
			if (!handle_boundary(st, line))
				return;
		}
		decode_te(st, line);
		if (st->te != TE_NONE) {
			size_t p = 0, s, n;

			/* decoded text may hold several lines, or part of one */
			pr_buf_reset(one);
			pr_buf_addbuf(one, prev);
			pr_buf_addbuf(one, line);
			pr_buf_reset(prev);
			for (;;) {
				s = p;
				n = pr_mail_next_line(one->ptr, one->len, &p);
				if (!n)
					break;
				pr_buf_reset(line);
				pr_buf_add(line, one->ptr + s, n);
				if (one->ptr[s + n - 1] != '\n') {
					pr_buf_addbuf(prev, line);
					break;
				}
				filter_flowed(st, line, prev);
			}
		} else {
			filter_flowed(st, line, prev);
		}
		if (st->err)
			break;
	} while (next_line(st, line));
	if (prev->len)
		filter(st, prev->ptr, prev->len);
	flush_accum(st);
}

static void cleanup_space(struct pr_buf *b)
{
	size_t i, o = 0;

	for (i = 0; i < b->len; i++) {
		if (isspace((unsigned char)b->ptr[i])) {
			b->ptr[o++] = ' ';
			while (i + 1 < b->len &&
			       isspace((unsigned char)b->ptr[i + 1]))
				i++;
		} else {
			b->ptr[o++] = b->ptr[i];
		}
	}
	pr_buf_setlen(b, o);
}

static void trim(struct pr_buf *b)
{
	size_t s = 0;

	pr_buf_rtrim(b);
	while (s < b->len && isspace((unsigned char)b->ptr[s]))
		s++;
	memmove(b->ptr, b->ptr + s, b->len - s);
	pr_buf_setlen(b, b->len - s);
}

static void remove_at(struct pr_buf *b, size_t at, size_t n)
{
	memmove(b->ptr + at, b->ptr + at + n, b->len - at - n);
	pr_buf_setlen(b, b->len - n);
}

void pr_mailinfo_clean_subject(struct pr_buf *s)
{
	size_t at = 0;

	/* find where the subject starts, then move it once (no quadratic) */
	while (at < s->len) {
		char c = s->ptr[at];
		char *ket;

		if ((c == 'r' || c == 'R') && s->len - at > 3 &&
		    (s->ptr[at + 1] == 'e' || s->ptr[at + 1] == 'E') &&
		    s->ptr[at + 2] == ':')
			at += 3;
		else if (c == ' ' || c == '\t' || c == ':')
			at++;
		else if (c == '[' &&
			 (ket = memchr(s->ptr + at, ']', s->len - at)))
			at = ket - s->ptr + 1;
		else
			break;
	}
	remove_at(s, 0, at);
	trim(s);
}

/* Remove "..." quoting and backslash escapes, keeping (comments). */
static void unquote(struct pr_buf *out, const char *in)
{
	int depth = 0;
	bool quoted = false;

	/* most addresses have nothing to unquote */
	if (!strpbrk(in, "\\\"()")) {
		pr_buf_adds(out, in);
		return;
	}
	for (; *in; in++) {
		if (*in == '\\' && (quoted || depth) && in[1]) {
			pr_buf_addch(out, *++in);
		} else if (!depth && *in == '"') {
			quoted = !quoted;
		} else if (!quoted && *in == '(') {
			depth++;
			pr_buf_addch(out, '(');
		} else if (!quoted && depth && *in == ')') {
			depth--;
			pr_buf_addch(out, ')');
		} else {
			pr_buf_addch(out, *in);
		}
	}
}

static void sane_name(struct pr_buf *name, const struct pr_buf *email)
{
	if (!name->len || name->len > 60 || strpbrk(name->ptr, "@<>")) {
		pr_buf_reset(name);
		pr_buf_addbuf(name, email);
	}
}

int pr_mailinfo_split_from(struct pr_buf *name, struct pr_buf *email,
			   const char *from)
{
	struct pr_buf f = PR_BUF_INIT;
	char *at, *bra, *ket;
	size_t el;

	pr_buf_reset(name);
	pr_buf_reset(email);
	unquote(&f, from);
	at = strchr(f.ptr, '@');
	if (!at) {
		/* "John Doe <johndoe>" */
		bra = strchr(from, '<');
		ket = bra ? strchr(bra, '>') : NULL;
		if (ket) {
			pr_buf_add(email, bra + 1, ket - bra - 1);
			pr_buf_add(name, from, bra - from);
			trim(name);
			sane_name(name, email);
		}
		goto done;
	}
	while (at > f.ptr) {
		char c = at[-1];

		if (isspace((unsigned char)c))
			break;
		if (c == '<') {
			at[-1] = ' ';
			break;
		}
		at--;
	}
	el = strcspn(at, " \n\t\r\v\f>");
	pr_buf_add(email, at, el);
	remove_at(&f, at - f.ptr, el + (at[el] ? 1 : 0));
	cleanup_space(&f);
	trim(&f);
	if (f.len && f.ptr[0] == '(' && f.ptr[f.len - 1] == ')') {
		remove_at(&f, 0, 1);
		pr_buf_setlen(&f, f.len - 1);
	}
	pr_buf_addbuf(name, &f);
	sane_name(name, email);
done:
	pr_buf_release(&f);
	return 0;
}

/* The UTF-8 form of text; exact goes to *bytes when it differs. */
static char *utf8_dup(const struct pr_buf *text, const struct pr_buf *exact,
		      char **bytes)
{
	struct pr_buf o = PR_BUF_INIT;

	/* the texts are UTF-8 already: taken as they are */
	if (pr_mail_is_utf8(text->ptr, text->len)) {
		if (!buf_eq(text, exact))
			*bytes = pr_memdup(exact->ptr, exact->len);
		return pr_memdup(text->ptr, text->len);
	}
	pr_mail_add_utf8_or_latin1(&o, text->ptr, text->len);
	if (o.len != exact->len || memcmp(o.ptr, exact->ptr, exact->len))
		*bytes = pr_memdup(exact->ptr, exact->len);
	return pr_buf_detach(&o, NULL);
}

static void hval_init(struct hval *v)
{
	pr_buf_init(&v->text, PR_LIMIT_HEADER_BYTES);
	pr_buf_init(&v->bytes, PR_LIMIT_HEADER_BYTES);
	v->same = true;
}

static void hval_release(struct hval *v)
{
	pr_buf_release(&v->text);
	pr_buf_release(&v->bytes);
}

static void hval_reset(struct hval *v)
{
	pr_buf_reset(&v->text);
	pr_buf_reset(&v->bytes);
	v->same = true;
}

/* fn on each header value of w */
static void each_hval(struct pr_mailinfo_scratch *w, void (*fn)(struct hval *))
{
	int i;

	for (i = 0; i < H_NR; i++) {
		fn(&w->hdr[i]);
		fn(&w->inbody[i]);
	}
}

static struct pr_mailinfo_scratch *scratch_new(void)
{
	struct pr_mailinfo_scratch *w = pr_calloc(1, sizeof(*w));

	each_hval(w, hval_init);
	pr_buf_init(&w->charset, PR_LIMIT_HEADER_BYTES);
	pr_buf_init(&w->value, PR_LIMIT_HEADER_BYTES);
	pr_buf_init(&w->accum, PR_LIMIT_HEADER_BYTES);
	pr_buf_init(&w->line, PR_LIMIT_MAIL_BYTES);
	pr_buf_init(&w->prev, 0);
	pr_buf_init(&w->one, 0);
	pr_buf_init(&w->conv, 0);
	pr_buf_init(&w->decoded, 0);
	pr_buf_init(&w->param, 0);
	pr_buf_init(&w->name, 0);
	pr_buf_init(&w->email, 0);
	pr_buf_init(&w->nameb, 0);
	pr_buf_init(&w->emailb, 0);
	return w;
}

/* Empty the buffers the parse reads before it writes them. */
static void scratch_reset(struct pr_mailinfo_scratch *w)
{
	each_hval(w, hval_reset);
	pr_buf_reset(&w->charset);
	pr_buf_reset(&w->accum);
	pr_buf_reset(&w->prev);
}

static void scratch_free(struct pr_mailinfo_scratch *w)
{
	if (!w)
		return;
	each_hval(w, hval_release);
	pr_buf_release(&w->charset);
	pr_buf_release(&w->value);
	pr_buf_release(&w->accum);
	pr_buf_release(&w->line);
	pr_buf_release(&w->prev);
	pr_buf_release(&w->one);
	pr_buf_release(&w->conv);
	pr_buf_release(&w->decoded);
	pr_buf_release(&w->param);
	pr_buf_release(&w->name);
	pr_buf_release(&w->email);
	pr_buf_release(&w->nameb);
	pr_buf_release(&w->emailb);
	free(w);
}

/* Whitespace runs to one space, in text and (when apart) in bytes. */
static void hval_cleanup_space(struct hval *v)
{
	cleanup_space(&v->text);
	if (!v->same)
		cleanup_space(&v->bytes);
}

/*
 * Subject, author and date from the header values git would take; the
 * sender from the mail's own From: (hdr_from), whoever the author is.
 * Where a value's text and bytes are the same, only the text is worked.
 */
static void set_info(struct state *st, struct hval *const *use,
		     struct hval *hdr_from)
{
	struct pr_mailinfo *out = st->out;
	struct pr_buf *name = &st->w->name, *email = &st->w->email,
		      *nameb = &st->w->nameb, *emailb = &st->w->emailb;
	struct hval *subj = use[H_SUBJECT], *from = use[H_FROM],
		    *date = use[H_DATE];

	out->subject_raw = utf8_dup(&subj->text, hval_exact(subj),
				    &out->bytes.subject_raw);
	pr_mailinfo_clean_subject(&subj->text);
	if (!subj->same)
		pr_mailinfo_clean_subject(&subj->bytes);
	hval_cleanup_space(subj);
	out->subject =
		utf8_dup(&subj->text, hval_exact(subj), &out->bytes.subject);
	hval_cleanup_space(from);
	pr_mailinfo_split_from(name, email, from->text.ptr);
	if (from->same) {
		out->name = utf8_dup(name, name, &out->bytes.name);
		out->email = utf8_dup(email, email, &out->bytes.email);
	} else {
		pr_mailinfo_split_from(nameb, emailb, from->bytes.ptr);
		out->name = utf8_dup(name, nameb, &out->bytes.name);
		out->email = utf8_dup(email, emailb, &out->bytes.email);
	}
	/* the submitter, whoever the in-body From: names as the author */
	if (hdr_from != from) {
		cleanup_space(&hdr_from->text);
		pr_mailinfo_split_from(name, email, hdr_from->text.ptr);
	}
	out->sender = pr_memdup(email->ptr, email->len);
	hval_cleanup_space(date);
	out->date = utf8_dup(&date->text, hval_exact(date), &out->bytes.date);
}

void pr_mailinfo_init(struct pr_mailinfo *mi)
{
	memset(mi, 0, sizeof(*mi));
	pr_buf_init(&mi->msg, PR_LIMIT_MAIL_BYTES);
	pr_buf_init(&mi->patch, PR_LIMIT_MAIL_BYTES);
	pr_buf_init(&mi->bytes.msg, PR_LIMIT_MAIL_BYTES);
	mi->prefix.version = 1;
}

void pr_mailinfo_reset(struct pr_mailinfo *mi)
{
	struct pr_mailinfo_scratch *w = mi->scratch;
	struct pr_buf msg = mi->msg, patch = mi->patch, bmsg = mi->bytes.msg;
	size_t i;

	free(mi->name);
	free(mi->email);
	free(mi->sender);
	free(mi->date);
	free(mi->subject);
	free(mi->subject_raw);
	free(mi->message_id);
	free(mi->in_reply_to);
	for (i = 0; i < mi->nr_references; i++)
		free(mi->references[i]);
	free(mi->references);
	pr_subject_prefix_release(&mi->prefix);
	pr_trailer_list_release(&mi->trailers);
	free(mi->pull_url);
	free(mi->pull_ref);
	free(mi->bytes.name);
	free(mi->bytes.email);
	free(mi->bytes.date);
	free(mi->bytes.subject);
	free(mi->bytes.subject_raw);
	pr_mailinfo_init(mi);
	/* the three buffers and the scratch stay, emptied */
	mi->msg = msg;
	mi->patch = patch;
	mi->bytes.msg = bmsg;
	pr_buf_reset(&mi->msg);
	pr_buf_reset(&mi->patch);
	pr_buf_reset(&mi->bytes.msg);
	mi->scratch = w;
}

void pr_mailinfo_release(struct pr_mailinfo *mi)
{
	pr_mailinfo_reset(mi);
	pr_buf_release(&mi->msg);
	pr_buf_release(&mi->patch);
	pr_buf_release(&mi->bytes.msg);
	scratch_free(mi->scratch);
	mi->scratch = NULL;
}

const char *pr_mail_kind_name(enum pr_mail_kind kind)
{
	switch (kind) {
	case PR_MAIL_PATCH:
		return "patch";
	case PR_MAIL_COVER:
		return "cover";
	case PR_MAIL_REPLY:
		return "reply";
	case PR_MAIL_PULL:
		return "pull";
	default:
		return "other";
	}
}

int pr_mailinfo_parse(struct pr_mailinfo *out, const char *data, size_t len)
{
	struct state st;
	struct hval *use[H_NR];
	size_t nr;
	int i, err;

	if (!out->scratch)
		out->scratch = scratch_new();
	scratch_reset(out->scratch);
	memset(&st, 0, sizeof(st));
	st.data = data;
	st.len = len;
	st.out = out;
	st.w = out->scratch;
	st.header_stage = true;

	err = check_headers(&st, true, &nr);
	if (err < 0)
		goto done;
	if (!err) {
		/* an mbox "From " line alone does not make a mail */
		err = pr_error(PR_EPARSE, "no mail headers at line %zu",
			       nr + 1);
		goto done;
	}
	if (!out->message_id)
		out->message_id = pr_strdup("");
	if (!out->in_reply_to)
		out->in_reply_to = pr_strdup("");
	if (next_line(&st, &st.w->line))
		handle_body(&st, &st.w->line);
	err = st.err;
	if (err)
		goto done;

	/* in-body headers count only when there is a patch (as in git) */
	for (i = 0; i < H_NR; i++)
		use[i] = st.patch_lines && st.has_inbody[i] ? &st.w->inbody[i]
							    : &st.w->hdr[i];
	set_info(&st, use, &st.w->hdr[H_FROM]);

	err = pr_subject_parse_prefix(&out->prefix, out->subject_raw);
	if (err)
		goto done;
	if (pr_subject_is_reply(out->subject_raw))
		out->kind = PR_MAIL_REPLY;
	else if (out->patch.len)
		out->kind = PR_MAIL_PATCH;
	else if (pr_pull_detect(&out->pull_url, &out->pull_ref, out->msg.ptr,
				out->msg.len) == 1)
		out->kind = PR_MAIL_PULL;
	else if (out->prefix.total > 0 && out->prefix.index == 0)
		out->kind = PR_MAIL_COVER;
	else if (*out->in_reply_to)
		out->kind = PR_MAIL_REPLY;
	else
		out->kind = PR_MAIL_OTHER;
	if (out->kind == PR_MAIL_REPLY)
		err = pr_trailers_from_reply(&out->trailers, out->msg.ptr,
					     out->msg.len);
	else
		err = pr_trailers_parse(&out->trailers, out->msg.ptr,
					out->msg.len);
done:
	for (i = 0; i < st.nbound; i++)
		free(st.bound[i]);
	return err;
}
