#include "base/pr.h"
#include "git/format.h"

#include <ctype.h>
#include <time.h>

/* Columns on the line `out` ends with (git's last_line_length). */
static int last_line_length(const struct pr_buf *out)
{
	size_t i = out->len;

	while (i > 0 && out->ptr[i - 1] != '\n')
		i--;
	return (int)(out->len - i);
}

static bool non_ascii(int ch)
{
	/* git also treats ESC as needing encoding */
	return (ch & 0x80) || ch == '\033';
}

bool pr_format_needs_rfc2047(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (non_ascii((unsigned char)s[i]) || s[i] == '\n')
			return true;
		if (i + 1 < len && s[i] == '=' && s[i + 1] == '?')
			return true;
	}
	return false;
}

/* Length of the UTF-8 character at s, 1 for an invalid byte. */
static size_t utf8_chrlen(const unsigned char *s, size_t len)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4;
	else
		return 1;
	if (n > len)
		return 1;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 1;
	return n;
}

static bool is_rfc2047_special(unsigned char ch, enum pr_format_rfc2047 type)
{
	if (non_ascii(ch))
		return true;
	if (ch <= ' ' || ch == '=' || ch == '?' || ch == '_')
		return true;
	if (type != PR_RFC2047_ADDRESS)
		return false;
	/* RFC 2047 5(3): the few characters allowed in a phrase word */
	return !(isalnum(ch) || ch == '!' || ch == '*' || ch == '+' ||
		 ch == '-' || ch == '/');
}

int pr_format_add_rfc2047(struct pr_buf *out, const char *s, size_t len,
			  enum pr_format_rfc2047 type)
{
	static const int max_encoded_length = 76;
	const unsigned char *p = (const unsigned char *)s;
	int line_len = last_line_length(out);
	int err;
	size_t i;

	err = pr_buf_adds(out, "=?UTF-8?q?");
	if (err)
		return err;
	line_len += 10;
	while (len) {
		size_t chrlen = utf8_chrlen(p, len);
		bool special = chrlen > 1 || is_rfc2047_special(*p, type);
		int enc_len = special ? 3 * (int)chrlen : 1;

		/* a multi-byte character is never split across words */
		if (line_len + enc_len + 2 > max_encoded_length) {
			err = pr_buf_adds(out, "?=\n =?UTF-8?q?");
			if (err)
				return err;
			line_len = 11;
		}
		for (i = 0; i < chrlen; i++) {
			if (special)
				err = pr_buf_addf(out, "=%02X", p[i]);
			else
				err = pr_buf_addch(out, p[i]);
			if (err)
				return err;
		}
		line_len += enc_len;
		p += chrlen;
		len -= chrlen;
	}
	return pr_buf_adds(out, "?=");
}

static int add_spaces(struct pr_buf *out, int n)
{
	int err = 0;

	while (n-- > 0 && !err)
		err = pr_buf_addch(out, ' ');
	return err;
}

/*
 * A transcription of the algorithm of git's strbuf_add_wrapped_text for
 * ASCII text: words go on the line while it stays within width, a word
 * longer than the width stays whole on its own line.
 */
int pr_format_add_wrapped(struct pr_buf *out, const char *text, size_t len,
			  int indent1, int indent2, int width)
{
	const char *end = text + len;
	const char *bol = text, *space = NULL;
	int indent = indent1, w = indent1;
	int err = 0;

	if (indent < 0) {
		w = -indent;
		space = text;
	}
	for (;;) {
		char c = text < end ? *text : '\0';

		if (!c || isspace((unsigned char)c)) {
			if (w <= width || !space) {
				const char *start = bol;

				if (!c && text == start)
					return 0;
				if (space)
					start = space;
				else if ((err = add_spaces(out, indent)))
					return err;
				err = pr_buf_add(out, start, text - start);
				if (err || !c)
					return err;
				space = text;
				if (c == '\t') {
					w |= 0x07;
				} else if (c == '\n') {
					space++;
					if (space < end && *space == '\n') {
						err = pr_buf_addch(out, '\n');
						if (err)
							return err;
						goto new_line;
					} else if (space >= end ||
						   !isalnum((
							   unsigned char)*space)) {
						goto new_line;
					} else if ((err = pr_buf_addch(out,
								       ' '))) {
						return err;
					}
				}
				w++;
				text++;
			} else {
			new_line:
				err = pr_buf_addch(out, '\n');
				if (err)
					return err;
				text = bol = space +
					     (space < end &&
					      isspace((unsigned char)*space));
				space = NULL;
				w = indent = indent2;
			}
			continue;
		}
		/* display width: UTF-8 continuation bytes take no column */
		if (((unsigned char)*text & 0xc0) != 0x80)
			w++;
		text++;
	}
}

static bool is_rfc822_special(char ch)
{
	return strchr("()<>[]:;@,.\"\\", ch) != NULL;
}

int pr_format_from_header(struct pr_buf *out, const char *name,
			  const char *email)
{
	size_t nlen = strlen(name), i;
	int max_length = 78;
	bool quote = false;
	struct pr_buf q = PR_BUF_INIT;
	int err;

	err = pr_buf_adds(out, "From: ");
	if (err)
		goto done;
	for (i = 0; i < nlen; i++)
		if (is_rfc822_special(name[i]))
			quote = true;
	if (pr_format_needs_rfc2047(name, nlen)) {
		err = pr_format_add_rfc2047(out, name, nlen,
					    PR_RFC2047_ADDRESS);
		max_length = 76;
	} else if (quote) {
		err = pr_buf_addch(&q, '"');
		for (i = 0; !err && i < nlen; i++) {
			if (name[i] == '"' || name[i] == '\\')
				err = pr_buf_addch(&q, '\\');
			if (!err)
				err = pr_buf_addch(&q, name[i]);
		}
		if (!err)
			err = pr_buf_addch(&q, '"');
		if (!err)
			err = pr_format_add_wrapped(out, q.ptr, q.len, -6, 1,
						    max_length);
	} else {
		err = pr_format_add_wrapped(out, name, nlen, -6, 1, max_length);
	}
	if (err)
		goto done;
	if (max_length < last_line_length(out) + 2 + (int)strlen(email) + 1) {
		err = pr_buf_addch(out, '\n');
		if (err)
			goto done;
	}
	err = pr_buf_addf(out, " <%s>\n", email);
done:
	pr_buf_release(&q);
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

int pr_format_subject_header(struct pr_buf *out, const char *prefix, int nr,
			     int total, const char *subject)
{
	size_t len = strlen(subject);
	int err;

	if (total > 0)
		err = pr_buf_addf(out, "Subject: [%s%s%0*d/%d] ", prefix,
				  *prefix ? " " : "", digits(total), nr, total);
	else if (*prefix)
		err = pr_buf_addf(out, "Subject: [%s] ", prefix);
	else
		err = pr_buf_adds(out, "Subject: ");
	if (err)
		return err;
	if (pr_format_needs_rfc2047(subject, len))
		err = pr_format_add_rfc2047(out, subject, len,
					    PR_RFC2047_SUBJECT);
	else
		err = pr_format_add_wrapped(out, subject, len,
					    -last_line_length(out), 1, 78);
	if (err)
		return err;
	return pr_buf_addch(out, '\n');
}

static bool istitlechar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_';
}

int pr_format_slug(struct pr_buf *out, const char *subject, size_t len)
{
	size_t start = out->len, i;
	int space = 2;
	int err = 0;

	for (i = 0; i < len && !err; i++) {
		if (!istitlechar(subject[i])) {
			space |= 1;
			continue;
		}
		if (space == 1)
			err = pr_buf_addch(out, '-');
		space = 0;
		if (!err)
			err = pr_buf_addch(out, subject[i]);
		/* runs of dots collapse to one */
		if (subject[i] == '.')
			while (i + 1 < len && subject[i + 1] == '.')
				i++;
	}
	if (err)
		return err;
	while (out->len > start &&
	       (out->ptr[out->len - 1] == '.' || out->ptr[out->len - 1] == '-'))
		pr_buf_setlen(out, out->len - 1);
	return 0;
}

int pr_format_filename(struct pr_buf *out, const char *reroll, int nr,
		       const char *subject)
{
	static const char suffix[] = ".patch";
	/* git's format.filenameMaxLength default, suffix included */
	size_t max_len = out->len + 64 - (sizeof(suffix) - 1 + 1);
	int err = 0;

	if (reroll) {
		struct pr_buf v = PR_BUF_INIT;

		err = pr_buf_addf(&v, "v%s", reroll);
		if (!err)
			err = pr_format_slug(out, v.ptr, v.len);
		pr_buf_release(&v);
		if (!err)
			err = pr_buf_addch(out, '-');
	}
	if (!err)
		err = pr_buf_addf(out, "%04d-", nr);
	if (!err)
		err = subject ? pr_format_slug(out, subject, strlen(subject))
			      : pr_buf_adds(out, "cover-letter");
	if (err)
		return err;
	if (out->len > max_len)
		pr_buf_setlen(out, max_len);
	return pr_buf_adds(out, suffix);
}

int pr_format_date(struct pr_buf *out, int64_t t, int tz_minutes)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed",
					    "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr",
					      "May", "Jun", "Jul", "Aug",
					      "Sep", "Oct", "Nov", "Dec" };
	time_t local = (time_t)(t + (int64_t)tz_minutes * 60);
	int tz = tz_minutes < 0 ? -tz_minutes : tz_minutes;
	struct tm tm;

	if (!gmtime_r(&local, &tm))
		return pr_error(PR_EINVAL, "date '%lld': out of range",
				(long long)t);
	return pr_buf_addf(out, "%s, %d %s %d %02d:%02d:%02d %c%02d%02d",
			   days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
			   tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
			   tz_minutes < 0 ? '-' : '+', tz / 60, tz % 60);
}

static bool has_non_ascii(const char *s)
{
	for (; s && *s; s++)
		if (non_ascii((unsigned char)*s))
			return true;
	return false;
}

/*
 * The message body as git's pp_remainder writes it: every line loses its
 * trailing whitespace, leading blank lines go, and so do trailing ones.
 */
int pr_format_add_body(struct pr_buf *out, const char *body)
{
	size_t start = out->len, content = out->len;
	int err = 0;

	while (body && *body && !err) {
		const char *line = body;
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		body = line + len + (nl ? 1 : 0);
		while (len && isspace((unsigned char)line[len - 1]))
			len--;
		if (!len && out->len == start)
			continue;
		err = pr_buf_add(out, line, len);
		if (!err)
			err = pr_buf_addch(out, '\n');
		if (len)
			content = out->len;
	}
	/* trailing blank lines go */
	if (!err)
		pr_buf_setlen(out, content);
	return err;
}

static int add_signature(struct pr_buf *out, const char *sig)
{
	size_t len = strlen(sig);

	if (!len)
		return 0;
	return pr_buf_addf(out, "-- \n%s%s\n", sig,
			   sig[len - 1] == '\n' ? "" : "\n");
}

/* The headers git's log_write_email_headers puts before From: */
static int add_thread_headers(struct pr_buf *out,
			      const struct pr_format_opts *opts)
{
	int err = 0;

	if (opts->message_id)
		err = pr_buf_addf(out, "Message-Id: <%s>\n", opts->message_id);
	if (!err && opts->in_reply_to)
		err = pr_buf_addf(out, "In-Reply-To: <%s>\nReferences: <%s>\n",
				  opts->in_reply_to, opts->in_reply_to);
	return err;
}

int pr_format_patch(struct pr_buf *out, const struct pr_patch *p,
		    const struct pr_format_opts *opts)
{
	const char *sig = opts->signature ? opts->signature : "2.39.5";
	const char *body = p->body ? p->body : "";
	const struct pr_ident *from = &p->author;
	bool in_body_from = false;
	int err;

	/* git's ident_cmp: name and email both must match */
	if (opts->sender) {
		in_body_from = strcmp(opts->sender->name, p->author.name) ||
			       strcmp(opts->sender->email, p->author.email);
		from = opts->sender;
	}
	err = pr_buf_addf(out, "From %s Mon Sep 17 00:00:00 2001\n",
			  p->commit_id[0]
				  ? p->commit_id
				  : "0000000000000000000000000000000000000000");
	if (!err)
		err = add_thread_headers(out, opts);
	if (!err)
		err = pr_format_from_header(out, from->name, from->email);
	if (!err)
		err = pr_buf_adds(out, "Date: ");
	if (!err)
		err = pr_format_date(out, p->time, p->tz_minutes);
	if (!err)
		err = pr_buf_addch(out, '\n');
	if (!err)
		err = pr_format_subject_header(out, opts->subject_prefix,
					       opts->nr, opts->total,
					       p->subject);
	if (err)
		return err;
	/*
	 * git adds MIME headers when the message is 8-bit; the author counts
	 * only when it goes raw into the in-body From line
	 */
	if (has_non_ascii(p->subject) || has_non_ascii(body) ||
	    (in_body_from && has_non_ascii(p->author.name))) {
		err = pr_buf_adds(out,
				  "MIME-Version: 1.0\n"
				  "Content-Type: text/plain; charset=UTF-8\n"
				  "Content-Transfer-Encoding: 8bit\n");
		if (err)
			return err;
	}
	err = pr_buf_addch(out, '\n');
	/* git's in-body header: not RFC 2047 encoded, whatever the name */
	if (!err && in_body_from)
		err = pr_buf_addf(out, "From: %s <%s>\n\n", p->author.name,
				  p->author.email);
	if (!err)
		err = pr_format_add_body(out, body);
	if (!err)
		err = pr_buf_adds(out, "---\n");
	if (!err && p->diffstat)
		err = pr_buf_adds(out, p->diffstat);
	if (!err)
		err = pr_buf_addch(out, '\n');
	if (!err && p->diff)
		err = pr_buf_adds(out, p->diff);
	if (!err && opts->base_info)
		err = pr_buf_addf(out, "\n%s", opts->base_info);
	if (!err)
		err = add_signature(out, sig);
	return err;
}

static int cmp_patch_author(const void *a, const void *b)
{
	const struct pr_patch *pa = *(const struct pr_patch *const *)a;
	const struct pr_patch *pb = *(const struct pr_patch *const *)b;

	return strcmp(pa->author.name, pb->author.name);
}

/* git shortlog as format-patch --cover-letter prints it */
static int add_shortlog(struct pr_buf *out, const struct pr_version *v)
{
	struct pr_patch **sorted = NULL;
	size_t i, j, n;
	int err = 0;

	if (!v->nr)
		return 0;
	sorted = pr_reallocarray(NULL, v->nr, sizeof(*sorted));
	memcpy(sorted, v->patches, v->nr * sizeof(*sorted));
	qsort(sorted, v->nr, sizeof(*sorted), cmp_patch_author);
	for (i = 0; i < v->nr && !err; i++) {
		const char *name = sorted[i]->author.name;

		/* one block per name: only its first entry in sorted order */
		if (i && !strcmp(sorted[i - 1]->author.name, name))
			continue;
		for (n = 0, j = 0; j < v->nr; j++)
			if (!strcmp(v->patches[j]->author.name, name))
				n++;
		err = pr_buf_addf(out, "%s (%zu):\n", name, n);
		/* the author's subjects in series order */
		for (j = 0; j < v->nr && !err; j++) {
			const char *s = v->patches[j]->subject;

			if (strcmp(v->patches[j]->author.name, name))
				continue;
			err = pr_format_add_wrapped(out, s, strlen(s), 2, 4,
						    72);
			if (!err)
				err = pr_buf_addch(out, '\n');
		}
		if (!err)
			err = pr_buf_addch(out, '\n');
	}
	free(sorted);
	return err;
}

int pr_format_cover(struct pr_buf *out, const struct pr_version *v,
		    const struct pr_format_opts *opts,
		    const struct pr_ident *committer, int64_t time,
		    int tz_minutes, const char *stat)
{
	const char *sig = opts->signature ? opts->signature : "2.39.5";
	const struct pr_patch *tip = v->nr ? v->patches[v->nr - 1] : NULL;
	bool eight_bit = false;
	size_t i;
	int err;

	/* git looks at the whole commits, author names included */
	for (i = 0; i < v->nr; i++)
		if (has_non_ascii(v->patches[i]->author.name) ||
		    has_non_ascii(v->patches[i]->subject) ||
		    has_non_ascii(v->patches[i]->body))
			eight_bit = true;
	err = pr_buf_addf(out, "From %s Mon Sep 17 00:00:00 2001\n",
			  tip && tip->commit_id[0]
				  ? tip->commit_id
				  : "0000000000000000000000000000000000000000");
	if (!err)
		err = add_thread_headers(out, opts);
	if (!err)
		err = pr_format_from_header(out, committer->name,
					    committer->email);
	if (!err)
		err = pr_buf_adds(out, "Date: ");
	if (!err)
		err = pr_format_date(out, time, tz_minutes);
	if (!err)
		err = pr_buf_addch(out, '\n');
	if (!err)
		err = pr_format_subject_header(out, opts->subject_prefix, 0,
					       opts->total,
					       "*** SUBJECT HERE ***");
	if (!err && eight_bit)
		err = pr_buf_adds(out,
				  "MIME-Version: 1.0\n"
				  "Content-Type: text/plain; charset=UTF-8\n"
				  "Content-Transfer-Encoding: 8bit\n");
	if (!err)
		err = pr_buf_adds(out, "\n*** BLURB HERE ***\n\n");
	if (!err)
		err = add_shortlog(out, v);
	if (!err && stat)
		err = pr_buf_addf(out, "%s\n", stat);
	if (!err && opts->base_info)
		err = pr_buf_addf(out, "\n%s", opts->base_info);
	if (!err)
		err = add_signature(out, sig);
	return err;
}

int pr_format_patch_message_id(struct pr_buf *out, const char *base,
			       int64_t epoch, const char *committer_email)
{
	return pr_buf_addf(out, "%s.%lld.git.%s", base, (long long)epoch,
			   committer_email);
}

int pr_format_message_id(struct pr_buf *out, int64_t t, long pid, int serial,
			 const char *sender_email)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm))
		return pr_error(PR_EINVAL, "date '%lld': out of range",
				(long long)t);
	return pr_buf_addf(out, "%04d%02d%02d%02d%02d%02d.%ld-%d-%s",
			   tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			   tm.tm_hour, tm.tm_min, tm.tm_sec, pid, serial,
			   sender_email);
}

int pr_format_thread_headers(struct pr_buf *out, const char *message_id,
			     const char *root)
{
	int err = pr_buf_addf(out, "Message-ID: <%s>\n", message_id);

	if (!err && root)
		err = pr_buf_addf(out, "In-Reply-To: <%s>\nReferences: <%s>\n",
				  root, root);
	return err;
}
