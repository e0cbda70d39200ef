#include "base/pr.h"
#include "mail/outgoing.h"

#include <ctype.h>

#include "git/format.h"
#include "mail/mail.h"

/* RFC 5322 2.1.1: a line is at most 998 bytes without its CRLF. */
#define LINE_MAX_BYTES 998
/* A word longer than this cannot be folded: write it as RFC 2047 words. */
#define WORD_MAX_BYTES 900
/* RFC 5322 2.1.1: lines SHOULD be at most 78 characters; fold to keep it. */
#define FOLD_COLUMNS 78

void pr_outgoing_rcpt_release(struct pr_outgoing_rcpt *r)
{
	pr_recipient_list_release(&r->to);
	pr_recipient_list_release(&r->cc);
}

int pr_outgoing_check_address(const char *what, const char *addr)
{
	const char *at = strchr(addr, '@');
	const char *p;

	for (p = addr; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c <= ' ' || c >= 127 || strchr("<>()[],;:\"\\", c))
			return pr_error(PR_EINVAL,
					"%s '%.60s': not a bare address "
					"(byte 0x%02x at %zu)",
					what, addr, c, (size_t)(p - addr));
	}
	if (!at || at == addr || !at[1] || strchr(at + 1, '@'))
		return pr_error(PR_EINVAL, "%s '%.60s': not a bare address",
				what, addr);
	if (p - addr > 254)
		return pr_error(PR_EINVAL, "%s '%.60s...': over 254 bytes",
				what, addr);
	return 0;
}

/* Append the unquoted run s: its RFC 2047 words decoded, if it has any. */
static int add_phrase_run(struct pr_buf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++)
		if (s[i] == '=' && s[i + 1] == '?')
			return pr_mail_decode_words(out, s, len);
	return pr_buf_add(out, s, len);
}

/*
 * The display name a reader sees in the phrase s (RFC 5322 3.2.5): a
 * quoted string loses its quotes and backslashes, an encoded word outside
 * one is decoded (RFC 2047 5(3)), the rest stays as written, a comment's
 * parentheses included.
 */
static int unquote_phrase(struct pr_buf *out, const char *text, const char *s,
			  size_t len)
{
	size_t i = 0, run = 0;
	int err = 0;

	while (i < len && !err) {
		if (s[i] != '"') {
			i++;
			continue;
		}
		if ((err = add_phrase_run(out, s + run, i - run)))
			break;
		for (i++; i < len && s[i] != '"' && !err; i++) {
			if (s[i] == '\\' && i + 1 < len)
				i++;
			err = pr_buf_addch(out, s[i]);
		}
		if (!err && i >= len)
			err = pr_error(PR_EINVAL,
				       "address '%.60s': a quoted name without "
				       "its closing '\"'",
				       text);
		run = ++i;
	}
	if (!err && run < len)
		err = add_phrase_run(out, s + run, len - run);
	return err;
}

/* The first '<' outside a quoted string, or NULL. */
static const char *angle_of(const char *s)
{
	bool quoted = false;

	for (; *s; s++) {
		if (quoted && *s == '\\' && s[1])
			s++;
		else if (*s == '"')
			quoted = !quoted;
		else if (!quoted && *s == '<')
			return s;
	}
	return NULL;
}

int pr_outgoing_parse_address(struct pr_ident *id, const char *text)
{
	const char *lt = angle_of(text);
	struct pr_buf name = PR_BUF_INIT, email = PR_BUF_INIT;
	const char *c;
	int err = 0;

	for (c = text; *c; c++)
		if ((unsigned char)*c < ' ' || *c == 127)
			return pr_error(PR_EINVAL,
					"address '%.*s': holds a control byte",
					(int)(c - text), text);
	if (lt) {
		const char *gt = strchr(lt, '>');
		const char *e = lt, *s = text + strspn(text, " \t");

		if (!gt || gt[1 + strspn(gt + 1, " \t")]) {
			err = pr_error(PR_EINVAL,
				       "address '%.60s': not 'Name <addr>'",
				       text);
			goto done;
		}
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		err = unquote_phrase(&name, text, s, (size_t)(e - s));
		/* a decoded word may hold anything: CR and LF stay out */
		for (c = name.ptr; !err && c && *c; c++)
			if ((unsigned char)*c < ' ' || *c == 127)
				err = pr_error(
					PR_EINVAL,
					"address '%.60s': the name holds "
					"a control byte",
					text);
		if (!err)
			err = pr_buf_add(&email, lt + 1, (size_t)(gt - lt - 1));
	} else {
		text += strspn(text, " \t");
		err = pr_buf_adds(&email, text);
		pr_buf_rtrim(&email);
	}
	if (err || (err = pr_outgoing_check_address("address", email.ptr)))
		goto done;
	pr_ident_set(id, name.ptr, email.ptr);
done:
	pr_buf_release(&name);
	pr_buf_release(&email);
	return err;
}

static bool in_list(const struct pr_recipient_list *l, const char *email)
{
	return pr_recipient_list_find(l, email) != NULL;
}

/* Add the sink's fixed values of one role. */
static int add_fixed(struct pr_outgoing_rcpt *out, const struct pr_strlist *l,
		     enum pr_recipient_role role, const char *why)
{
	struct pr_ident id = { NULL, NULL };
	size_t i;
	int err = 0;

	for (i = 0; l && i < l->nr && !err; i++) {
		if ((err = pr_outgoing_parse_address(&id, l->items[i]))) {
			err = pr_error_wrap(err, "sink option '%s'", why);
			break;
		}
		if (role == PR_RCPT_TO)
			pr_recipient_list_add(&out->to, id.name, id.email, role,
					      why);
		else if (!in_list(&out->to, id.email))
			pr_recipient_list_add(&out->cc, id.name, id.email, role,
					      why);
		pr_ident_release(&id);
	}
	return err;
}

int pr_outgoing_recipients(struct pr_outgoing_rcpt *out,
			   const struct pr_series *s,
			   const struct pr_strlist *sink_to,
			   const struct pr_strlist *sink_cc, bool preview)
{
	const struct pr_recipient_list *l = &s->recipients;
	size_t i;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (preview) {
		if (!s->submitter.email || !*s->submitter.email) {
			err = pr_error(PR_EINVAL,
				       "preview of '%s': no submitter address",
				       s->origin_key);
			goto done;
		}
		if ((err = pr_outgoing_check_address("submitter",
						     s->submitter.email)))
			goto done;
		pr_recipient_list_add(&out->to, s->submitter.name,
				      s->submitter.email, PR_RCPT_TO,
				      "preview: the submitter");
		goto done;
	}
	/* To first, so that an address given both ways stays in To: only */
	for (i = 0; i < l->nr && !err; i++)
		if (l->items[i].role == PR_RCPT_TO)
			err = pr_outgoing_check_address("recipient",
							l->items[i].email);
	for (i = 0; i < l->nr && !err; i++)
		if (l->items[i].role == PR_RCPT_TO)
			pr_recipient_list_add(&out->to, l->items[i].name,
					      l->items[i].email, PR_RCPT_TO,
					      l->items[i].reason);
	if (err || (err = add_fixed(out, sink_to, PR_RCPT_TO, "to")))
		goto done;
	for (i = 0; i < l->nr && !err; i++) {
		const struct pr_recipient *r = &l->items[i];

		if (r->role != PR_RCPT_CC || in_list(&out->to, r->email))
			continue;
		if (!(err = pr_outgoing_check_address("recipient", r->email)))
			pr_recipient_list_add(&out->cc, r->name, r->email,
					      PR_RCPT_CC, r->reason);
	}
	if (!err)
		err = add_fixed(out, sink_cc, PR_RCPT_CC, "cc");
done:
	if (err)
		pr_outgoing_rcpt_release(out);
	return err;
}

int pr_outgoing_message_id(struct pr_buf *out, const char *key, size_t index,
			   const char *domain)
{
	const char *k;
	int err = 0;

	for (k = key; *k && !err; k++)
		if (isalnum((unsigned char)*k) || *k == '-' || *k == '+')
			err = pr_buf_addch(out, *k);
	if (!err)
		err = pr_buf_addf(out, ".%zu@%s", index, domain);
	return err;
}

int pr_outgoing_archive_link(struct pr_buf *out, const char *tmpl,
			     const char *mid)
{
	const char *p;
	int err = 0;

	for (p = tmpl; *p && !err; p++) {
		if (p[0] == '%' && p[1] == 'm') {
			err = pr_buf_adds(out, mid);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			err = pr_buf_addch(out, '%');
			p++;
		} else {
			err = pr_buf_addch(out, *p);
		}
	}
	return err;
}

void pr_outgoing_release(struct pr_outgoing *o)
{
	size_t i;

	if (o->mails)
		for (i = 0; i < o->nr; i++)
			free(o->mails[i]);
	free(o->mails);
	free(o->lens);
	free(o->root_message_id);
	memset(o, 0, sizeof(*o));
}

/* The MIME headers of a body that is not ASCII, as format-patch writes. */
#define MIME_8BIT                                   \
	"MIME-Version: 1.0\n"                       \
	"Content-Type: text/plain; charset=UTF-8\n" \
	"Content-Transfer-Encoding: 8bit\n"

/* Columns on the line `out` ends with. */
static int last_line_length(const struct pr_buf *out)
{
	size_t i = out->len;

	while (i > 0 && out->ptr[i - 1] != '\n')
		i--;
	return (int)(out->len - i);
}

/*
 * Whether a header text must be RFC 2047 words: what git encodes
 * (non-ASCII, ESC, LF, "=?"), and also any other control byte (CR above
 * all: it could end the header) and a word too long to fold.
 */
static bool must_encode(const char *s)
{
	size_t word = 0;

	if (pr_format_needs_rfc2047(s, strlen(s)))
		return true;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c < ' ' && c != '\t') || c == 127)
			return true;
		word = (c == ' ' || c == '\t') ? 0 : word + 1;
		if (word > WORD_MAX_BYTES)
			return true;
	}
	return false;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 127)
			return true;
	return false;
}

/* Whether a display name needs quotes: it holds an RFC 5322 special. */
static bool needs_quotes(const char *name)
{
	return strpbrk(name, "()<>[]:;@,.\"\\") != NULL;
}

/* name as a quoted string, '"' and '\\' escaped. */
static int add_quoted(struct pr_buf *out, const char *name)
{
	int err = pr_buf_addch(out, '"');

	for (; *name && !err; name++) {
		if (*name == '"' || *name == '\\')
			err = pr_buf_addch(out, '\\');
		if (!err)
			err = pr_buf_addch(out, *name);
	}
	return err ? err : pr_buf_addch(out, '"');
}

/* Whether the line `out` ends with holds more than white space. */
static bool line_has_text(const struct pr_buf *out)
{
	size_t i = out->len;

	while (i > 0 && out->ptr[i - 1] != '\n')
		if (out->ptr[--i] != ' ' && out->ptr[i] != '\t')
			return true;
	return false;
}

/*
 * Append s (no line break in it), folding before a space wherever the
 * text up to the next space would pass FOLD_COLUMNS (RFC 5322 2.2.3: a
 * fold is a line break put before white space; unfolding takes it out, so
 * the value is unchanged, inside a quoted string too).  reserve: the
 * bytes that will follow s on its last line.
 */
static int add_folded(struct pr_buf *out, const char *s, size_t len,
		      int reserve)
{
	int col = last_line_length(out), err = 0;
	size_t i = 0;

	while (i < len && !err) {
		size_t j = i + 1;
		int seg;

		while (j < len && s[j] != ' ')
			j++;
		seg = (int)(j - i) + (j == len ? reserve : 0);
		if (s[i] == ' ' && col + seg > FOLD_COLUMNS &&
		    line_has_text(out)) {
			err = pr_buf_addch(out, '\n');
			col = 0;
		}
		if (!err)
			err = pr_buf_add(out, s + i, j - i);
		col += (int)(j - i);
		i = j;
	}
	return err;
}

/*
 * A display name and address as git send-email's sanitize_address writes
 * them: `Name <a@b>`, `"Name, with specials" <a@b>` (backslash and quote
 * escaped), `=?UTF-8?q?...?= <a@b>` as one encoded word, or `a@b` alone.
 * git never folds; where its form would pass FOLD_COLUMNS (with reserve
 * bytes after it) or make an encoded word over 75 bytes (RFC 2047 2), the
 * name is folded instead: encoded words are split as format-patch splits
 * them, a quoted or plain name is folded between its words.
 */
static int add_address(struct pr_buf *out, const char *name, const char *email,
		       int reserve)
{
	struct pr_buf one = PR_BUF_INIT;
	size_t len = name ? strlen(name) : 0;
	bool encode = len && (must_encode(name) || len > WORD_MAX_BYTES);
	int err = 0;

	if (!len)
		return add_folded(out, email, strlen(email), reserve);
	if (encode) {
		/* git's one word, unless it or its line would be too long */
		int col = last_line_length(out);

		err = pr_format_add_rfc2047(&one, name, len,
					    PR_RFC2047_ADDRESS);
		if (!err && !strchr(one.ptr, '\n') && one.len <= 75 &&
		    col + (int)(one.len + 3 + strlen(email)) + reserve <=
			    FOLD_COLUMNS)
			err = pr_buf_addbuf(out, &one);
		else if (!err)
			err = pr_format_add_rfc2047(out, name, len,
						    PR_RFC2047_ADDRESS);
		pr_buf_reset(&one);
	} else if (needs_quotes(name)) {
		err = add_quoted(&one, name);
	} else {
		err = pr_buf_adds(&one, name);
	}
	if (!err)
		err = pr_buf_addf(&one, " <%s>", email);
	if (!err)
		err = add_folded(out, one.ptr, one.len, reserve);
	pr_buf_release(&one);
	return err;
}

/* "To: a,\n\tb\n" as git send-email joins its lists. */
static int add_rcpt_header(struct pr_buf *out, const char *field,
			   const struct pr_recipient_list *l)
{
	size_t i;
	int err = 0;

	if (!l->nr)
		return 0;
	err = pr_buf_addf(out, "%s: ", field);
	for (i = 0; i < l->nr && !err; i++) {
		if (i)
			err = pr_buf_adds(out, ",\n\t");
		if (!err)
			err = add_address(out, l->items[i].name,
					  l->items[i].email,
					  i + 1 < l->nr ? 1 : 0);
	}
	if (!err)
		err = pr_buf_addch(out, '\n');
	return err;
}

static int digits(int n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* The Subject: header as format-patch writes it, encoding what it must. */
static int add_subject(struct pr_buf *out, const char *prefix, int nr,
		       int total, const char *subject)
{
	size_t len = strlen(subject);
	int err;

	if (total > 0)
		err = pr_buf_addf(out, "Subject: [%s %0*d/%d] ", prefix,
				  digits(total), nr, total);
	else
		err = pr_buf_addf(out, "Subject: [%s] ", prefix);
	if (err)
		return err;
	if (must_encode(subject))
		err = pr_format_add_rfc2047(out, subject, len,
					    PR_RFC2047_SUBJECT);
	else
		err = pr_format_add_wrapped(out, subject, len,
					    -last_line_length(out), 1, 78);
	if (!err)
		err = pr_buf_addch(out, '\n');
	return err;
}

/* Every header line printable ASCII (or tab) and short enough. */
static int check_header_block(const char *mail, size_t hlen, size_t index)
{
	size_t pos = 0, line = 0;

	while (pos < hlen) {
		const char *l = mail + pos;
		const char *nl = memchr(l, '\n', hlen - pos);
		size_t n = nl ? (size_t)(nl - l) : hlen - pos, i;

		line++;
		if (n > LINE_MAX_BYTES)
			return pr_error(PR_EINTERNAL,
					"mail %zu header line %zu: over %d "
					"bytes",
					index, line, LINE_MAX_BYTES);
		for (i = 0; i < n; i++)
			if (((unsigned char)l[i] < ' ' && l[i] != '\t') ||
			    (unsigned char)l[i] >= 127)
				return pr_error(PR_EINTERNAL,
						"mail %zu header line %zu: "
						"byte 0x%02x",
						index, line,
						(unsigned char)l[i]);
		pos += n + 1;
	}
	return 0;
}

/* Where the body of a format-patch mail starts (after the blank line). */
static const char *body_of(const struct pr_buf *mail, bool *mime)
{
	const char *end = strstr(mail->ptr, "\n\n");
	const char *m = strstr(mail->ptr, "\nMIME-Version: 1.0\n");

	if (!end)
		return NULL;
	*mime = m && m < end;
	return end + 2;
}

struct render {
	const struct pr_version *v;
	const struct pr_outgoing_opts *opts;
	const char *domain;
	char prefix[32];
	int total; /* for the [n/N] numbering, 0: none */
	struct pr_buf root; /* Message-ID of mail 0 */
};

/*
 * The headers git send-email writes, in its order, then the MIME headers
 * format-patch put in the file, then the blank line.
 */
static int add_headers(struct pr_buf *out, const struct render *r, size_t index,
		       const struct pr_ident *from, int nr, const char *subject,
		       bool mime)
{
	const struct pr_outgoing_rcpt *rc = r->opts->rcpt;
	struct pr_buf mid = PR_BUF_INIT;
	int err;

	if ((err = pr_buf_adds(out, "From: ")) ||
	    (err = add_address(out, from->name, from->email, 0)) ||
	    (err = pr_buf_addch(out, '\n')))
		goto done;
	if (rc && ((err = add_rcpt_header(out, "To", &rc->to)) ||
		   (err = add_rcpt_header(out, "Cc", &rc->cc))))
		goto done;
	if ((err = add_subject(out, r->prefix, nr, r->total, subject)) ||
	    (err = pr_buf_adds(out, "Date: ")) ||
	    (err = pr_format_date(out, r->opts->base_time + (int64_t)index,
				  0)) ||
	    (err = pr_outgoing_message_id(&mid, r->opts->key, index,
					  r->domain)) ||
	    (err = pr_buf_addf(out,
			       "\nMessage-ID: <%s>\n"
			       "X-Mailer: git-send-email 2.39.5\n",
			       mid.ptr)))
		goto done;
	if (index && (err = pr_buf_addf(out,
					"In-Reply-To: <%s>\n"
					"References: <%s>\n",
					r->root.ptr, r->root.ptr)))
		goto done;
	if (mime && (err = pr_buf_adds(out, MIME_8BIT)))
		goto done;
	err = pr_buf_addch(out, '\n');
done:
	pr_buf_release(&mid);
	return err;
}

static int check_author(const struct pr_patch *p, size_t i)
{
	int err;

	if (!p->author.email || !p->author.name || !p->subject)
		return pr_error(PR_EINVAL, "patch %zu: no author or subject",
				i + 1);
	if ((err = pr_outgoing_check_address("author", p->author.email)))
		return pr_error_wrap(err, "patch %zu", i + 1);
	/* the in-body From line is raw text, as git writes it */
	if (has_control(p->author.name))
		return pr_error(PR_EINVAL,
				"patch %zu: author name holds a control byte",
				i + 1);
	return 0;
}

static bool non_ascii(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s >= 0x80)
			return true;
	return false;
}

static int render_patch(struct pr_buf *out, const struct render *r, size_t i,
			size_t index)
{
	const struct pr_patch *p = r->v->patches[i];
	struct pr_buf fp = PR_BUF_INIT, base = PR_BUF_INIT, raw = PR_BUF_INIT;
	struct pr_format_opts fo = { r->prefix,	 r->opts->signature,
				     (int)i + 1, r->total,
				     NULL,	 r->opts->sender,
				     NULL,	 NULL };
	const char *body;
	bool mime = false;
	int err;

	if ((err = check_author(p, i)))
		goto done;
	/* without a cover letter the first patch carries the base */
	if (!r->v->cover && !i && r->v->base_commit[0]) {
		if ((err = pr_buf_addf(&base, "base-commit: %s\n",
				       r->v->base_commit)))
			goto done;
		fo.base_info = base.ptr;
	}
	if ((err = pr_format_patch(&fp, p, &fo)))
		goto done;
	if (!(body = body_of(&fp, &mime))) {
		err = pr_error(PR_EINTERNAL, "patch %zu: no header end", i + 1);
		goto done;
	}
	if ((err = add_headers(out, r, index,
			       r->opts->sender ? r->opts->sender : &p->author,
			       (int)i + 1, p->subject, mime)))
		goto done;
	/*
	 * The in-body From line: format-patch --from writes the name raw;
	 * git send-email, which adds the line itself, writes the patch's
	 * From: header with its RFC 2047 words decoded, so an ASCII name
	 * with specials keeps the quotes format-patch gave it there.  Unlike
	 * git, a non-ASCII name holding '"' is quoted too: raw, git mailinfo
	 * (git am) would drop its quotes from the author's name.
	 */
	if ((err = pr_buf_addf(&raw, "From: %s <%s>\n\n", p->author.name,
			       p->author.email)))
		goto done;
	if (!strncmp(body, raw.ptr, raw.len) && needs_quotes(p->author.name) &&
	    (strchr(p->author.name, '"') ||
	     !pr_format_needs_rfc2047(p->author.name,
				      strlen(p->author.name)))) {
		if ((err = pr_buf_adds(out, "From: ")) ||
		    (err = add_quoted(out, p->author.name)) ||
		    (err = pr_buf_addf(out, " <%s>\n\n", p->author.email)))
			goto done;
		body += raw.len;
	}
	err = pr_buf_add(out, body, fp.len - (size_t)(body - fp.ptr));
done:
	pr_buf_release(&fp);
	pr_buf_release(&base);
	pr_buf_release(&raw);
	return err;
}

/* The blurb: the cover's body, then the links to what came before. */
static int add_blurb(struct pr_buf *out, const struct render *r)
{
	const struct pr_outgoing_opts *o = r->opts;
	size_t start = out->len;
	int err;

	if ((err = pr_format_add_body(out, r->v->cover->body)))
		return err;
	if ((o->prev_message_id || o->url) && out->len > start &&
	    (err = pr_buf_addch(out, '\n')))
		return err;
	if (o->prev_message_id) {
		err = pr_buf_addf(out, "Link to v%d: ", r->v->number - 1);
		if (!err && o->archive_url)
			err = pr_outgoing_archive_link(out, o->archive_url,
						       o->prev_message_id);
		else if (!err)
			err = pr_buf_addf(out, "<%s>", o->prev_message_id);
		if (!err)
			err = pr_buf_addch(out, '\n');
	}
	if (!err && o->url)
		err = pr_buf_addf(out, "Pull request: %s\n", o->url);
	return err;
}

static int render_cover(struct pr_buf *out, const struct render *r)
{
	static const char blurb[] = "*** BLURB HERE ***\n";
	const struct pr_cover *c = r->v->cover;
	const struct pr_ident *from =
		r->opts->sender ? r->opts->sender : &r->v->patches[0]->author;
	const char *sig = r->opts->signature ? r->opts->signature : "2.39.5";
	struct pr_format_opts fo = { r->prefix, "",   0,    r->total,
				     NULL,	NULL, NULL, NULL };
	struct pr_buf fc = PR_BUF_INIT;
	const char *body;
	bool mime = false;
	int err;

	if (!c->subject || !*c->subject) {
		err = pr_error(PR_EINVAL, "cover letter: no subject");
		goto done;
	}
	/*
	 * format-patch writes its template; the shortlog and stat after the
	 * blurb are kept and the blurb is replaced by the cover's text
	 */
	if ((err = pr_format_cover(&fc, r->v, &fo, from, r->opts->base_time, 0,
				   r->opts->stat)))
		goto done;
	body = body_of(&fc, &mime);
	if (!body || strncmp(body, blurb, sizeof(blurb) - 1)) {
		err = pr_error(PR_EINTERNAL, "cover letter: no blurb");
		goto done;
	}
	mime = mime || non_ascii(c->subject) || non_ascii(c->body);
	if ((err = add_headers(out, r, 0, from, 0, c->subject, mime)) ||
	    (err = add_blurb(out, r)))
		goto done;
	body += sizeof(blurb) - 1;
	if ((err = pr_buf_add(out, body, fc.len - (size_t)(body - fc.ptr))))
		goto done;
	/* RANGE-DIFF: the block format-patch --range-diff puts here */
	if (r->opts->range_diff && *r->opts->range_diff &&
	    (err = pr_buf_addf(out, "Range-diff against v%d:\n%s",
			       r->v->number - 1, r->opts->range_diff)))
		goto done;
	if (r->v->base_commit[0] &&
	    (err = pr_buf_addf(out, "\nbase-commit: %s\n", r->v->base_commit)))
		goto done;
	if (*sig)
		err = pr_buf_addf(out, "-- \n%s%s\n", sig,
				  sig[strlen(sig) - 1] == '\n' ? "" : "\n");
done:
	pr_buf_release(&fc);
	return err;
}

static const char *domain_of(const struct pr_ident *id)
{
	const char *at = id && id->email ? strrchr(id->email, '@') : NULL;

	/* only a plain host name may end up in a Message-ID */
	if (!at || !at[1] ||
	    at[1 + strspn(at + 1, "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789.-")])
		return NULL;
	return at + 1;
}

const char *pr_outgoing_domain(const struct pr_ident *sender,
			       const struct pr_version *v)
{
	const char *d = domain_of(sender);

	if (!d && v && v->nr)
		d = domain_of(&v->patches[0]->author);
	return d ? d : "patchrelay.invalid";
}

int pr_outgoing_render(struct pr_outgoing *out, const struct pr_version *v,
		       const struct pr_outgoing_opts *opts)
{
	struct render r = { v, opts, NULL, "", 0, PR_BUF_INIT };
	struct pr_outgoing o = { NULL, NULL, 0, NULL };
	struct pr_buf mail = PR_BUF_INIT;
	size_t i, n;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!v->nr) {
		err = pr_error(PR_EINVAL, "version %d: no patches", v->number);
		goto done;
	}
	if (opts->sender &&
	    (err = pr_outgoing_check_address("sender", opts->sender->email)))
		goto done;
	r.domain = pr_outgoing_domain(opts->sender, v);
	if (v->number > 1)
		snprintf(r.prefix, sizeof(r.prefix), "PATCH v%d", v->number);
	else
		snprintf(r.prefix, sizeof(r.prefix), "PATCH");
	r.total = v->cover || v->nr > 1 ? (int)v->nr : 0;
	if ((err = pr_outgoing_message_id(&r.root, opts->key, 0, r.domain)))
		goto done;
	n = v->nr + (v->cover ? 1 : 0);
	o.mails = pr_calloc(n, sizeof(*o.mails));
	o.lens = pr_calloc(n, sizeof(*o.lens));
	for (i = 0; i < n; i++) {
		pr_buf_init(&mail, PR_LIMIT_MAIL_BYTES);
		if (v->cover && !i)
			err = render_cover(&mail, &r);
		else
			err = render_patch(&mail, &r, v->cover ? i - 1 : i, i);
		if (!err)
			err = check_header_block(
				mail.ptr,
				(size_t)(strstr(mail.ptr, "\n\n") - mail.ptr),
				i);
		if (err) {
			pr_buf_release(&mail);
			goto done;
		}
		o.mails[i] = pr_buf_detach(&mail, &o.lens[i]);
		o.nr++;
	}
	o.root_message_id = pr_buf_detach(&r.root, NULL);
	*out = o;
	memset(&o, 0, sizeof(o));
done:
	pr_outgoing_release(&o);
	pr_buf_release(&r.root);
	return err;
}

/* A Message-ID fit for a header: printable ASCII, no blank, no <>. */
static bool clean_id(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] >= 127 || s[i] == '<' || s[i] == '>')
			return false;
	return n > 0;
}

/* "References: <a> <b> <c>", folded between the ids as mail clients do. */
static int add_references(struct pr_buf *out, const char *refs,
			  const char *last)
{
	const char *p = refs ? refs : "";
	int err = pr_buf_adds(out, "References:");

	while (!err && *p) {
		size_t n;

		p += strspn(p, " \t<>");
		n = strcspn(p, " \t<>");
		if (!n)
			break;
		/* the answered mail is added last, once; a bad id is left out */
		if (clean_id(p, n) &&
		    (strlen(last) != n || strncmp(p, last, n)))
			err = pr_buf_addf(out, "\n <%.*s>", (int)n, p);
		p += n;
	}
	if (!err)
		err = pr_buf_addf(out, "\n <%s>\n", last);
	return err;
}

int pr_outgoing_reply(struct pr_buf *out, const struct pr_outgoing_reply *r)
{
	const char *subject = r->subject ? r->subject : "";
	size_t start = out->len, hlen;
	int err;

	if (!r->message_id || !r->in_reply_to ||
	    !clean_id(r->message_id, strlen(r->message_id)) ||
	    !clean_id(r->in_reply_to, strlen(r->in_reply_to)))
		return pr_error(PR_EINVAL, "reply to '%.60s': not a Message-ID",
				r->in_reply_to ? r->in_reply_to : "");
	if (!r->from || !r->from->email ||
	    has_control(r->from->name ? r->from->name : ""))
		return pr_error(PR_EINVAL, "reply: no usable From");
	if ((err = pr_outgoing_check_address("from", r->from->email)) ||
	    (err = pr_buf_adds(out, "From: ")) ||
	    (err = add_address(out, r->from->name, r->from->email, 0)) ||
	    (err = pr_buf_addch(out, '\n')))
		goto done;
	if (r->rcpt && ((err = add_rcpt_header(out, "To", &r->rcpt->to)) ||
			(err = add_rcpt_header(out, "Cc", &r->rcpt->cc))))
		goto done;
	/* one "Re: ", written plain before what must be encoded */
	if (!strncasecmp(subject, "re:", 3))
		subject += 3 + strspn(subject + 3, " \t");
	err = pr_buf_adds(out, "Subject: Re: ");
	if (!err && must_encode(subject))
		err = pr_format_add_rfc2047(out, subject, strlen(subject),
					    PR_RFC2047_SUBJECT);
	else if (!err)
		err = add_folded(out, subject, strlen(subject), 0);
	if (err || (err = pr_buf_adds(out, "\nDate: ")) ||
	    (err = pr_format_date(out, r->time, 0)) ||
	    (err = pr_buf_addf(out, "\nMessage-ID: <%s>\nIn-Reply-To: <%s>\n",
			       r->message_id, r->in_reply_to)) ||
	    (err = add_references(out, r->refs, r->in_reply_to)) ||
	    (err = pr_buf_adds(out, "MIME-Version: 1.0\n"
				    "Content-Type: text/plain; charset=UTF-8\n"
				    "Content-Transfer-Encoding: 8bit\n\n")))
		goto done;
	hlen = out->len - start;
	if ((err = check_header_block(out->ptr + start, hlen, 0)) ||
	    (err = pr_buf_adds(out, r->body ? r->body : "")))
		goto done;
	if (out->len && out->ptr[out->len - 1] != '\n')
		err = pr_buf_addch(out, '\n');
done:
	if (err)
		pr_buf_setlen(out, start);
	return err;
}
