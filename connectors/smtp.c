#include "base/pr.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <time.h>

#include "connectors.h"
#include "engine/delivery.h"
#include "mailtls.h"
#include "mail/outgoing.h"
#include "base/trace.h"

/*
 * The smtp sink: sends each mail, as the core rendered it, through libcurl
 * to one SMTP server.
 *
 * - Envelope: MAIL FROM is the `from` option; RCPT TO is every address of
 *   the mail's To: and Cc: headers, deduplicated without regard to case,
 *   at most `max-recipients` of them.
 * - The header section is checked before anything is sent: a CR, a byte
 *   outside printable ASCII, a line over 998 bytes or a line that is
 *   neither "Name: value" nor a continuation refuses the message
 *   (PR_DELIVER_REJECTED), so that no value holding CR or LF can pass as
 *   an extra header or break the SMTP framing.
 * - Each call sends one message and says what became of it; the engine
 *   records it, so a series that fails part-way resumes at the first
 *   unsent message.  A 4xx answer or a lost connection asks for a retry,
 *   a 5xx answer rejects the message, a TLS or certificate failure is an
 *   error (a retry cannot help until the configuration changes).  Each
 *   failure names the server's url and says, when the whole message had
 *   gone out before the connection was lost, that the server may have it
 *   (the retry sends it again, with the same Message-ID).
 * - One connection carries the messages of the instance: the libcurl
 *   handle is kept in inst->state from one call to the next, so that
 *   deliver() returns as soon as the server said 250 for its message
 *   (the QUIT of a connection waits for the next call or close()), and
 *   the time in which a crash loses the record of a message the server
 *   took is the engine's one store write.  It is closed after a failure,
 *   and before a rate-limit wait over SMTP_KEEP_MS.
 * - The password never reaches a log line: it is only handed to libcurl,
 *   whose trace goes to on_trace (which reads the server's first EHLO
 *   answer for STARTTLS and keeps nothing), and a URL with user
 *   information is refused so that no secret can sit in the (logged) URL.
 * - starttls = optional against a server that offers no STARTTLS logs a
 *   warning, once per instance: the mail (and the password) go in plain
 *   text.
 * - `rate` messages per minute: deliver() sleeps until 60000/rate ms have
 *   passed since the previous message of this instance.  The time of that
 *   message lives in inst->state, allocated on first use and freed by
 *   close().
 */

#define SMTP_LINE_MAX 998
#define SMTP_RETRY_MS 30000
#define SMTP_KEEP_MS 10000 /* longest rate-limit wait on an open connection */

struct smtp_state {
	CURL *h; /* the open connection's handle, NULL: none */
	bool sent_before;
	struct timespec last;
	bool warned_plain; /* the warning for a server without STARTTLS */
};

/* What the trace saw of the server's first EHLO answer. */
struct ehlo {
	bool done; /* its last line came */
	bool starttls; /* it offered STARTTLS */
	struct pr_trace trace; /* PATCHRELAY_TRACE=smtp */
};

/*
 * libcurl's trace: only the server's first EHLO answer is looked at and
 * nothing of it is kept; it is written only redacted, when
 * PATCHRELAY_TRACE names smtp (core/base/trace.h).
 */
static int on_trace(CURL *h, curl_infotype type, char *data, size_t size,
		    void *payload)
{
	struct ehlo *e = payload;

	PR_UNUSED(h);
	pr_trace_curl(&e->trace, type, data, size);
	if (type != CURLINFO_HEADER_IN || e->done || size < 4 ||
	    memcmp(data, "250", 3))
		return 0;
	if (size >= 12 && !strncasecmp(data + 4, "STARTTLS", 8))
		e->starttls = true;
	if (data[3] == ' ')
		e->done = true;
	return 0;
}

/* 0 when `s` is an acceptable bare address for MAIL FROM / RCPT TO. */
static int check_address(const char *what, const char *s)
{
	const char *at = strchr(s, '@');
	const char *p;

	for (p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 127 ||
		    *p == '<' || *p == '>' || *p == ',' || *p == '"')
			return pr_error(PR_EINVAL,
					"%s '%.*s': not a bare address", what,
					(int)(p - s), s);
	if (!at || at == s || !at[1])
		return pr_error(PR_EINVAL, "%s '%s': not a bare address", what,
				s);
	return 0;
}

/* Each value of the to or cc option is an address (at open, not send). */
static int check_list(const char *key, const struct pr_strlist *l)
{
	struct pr_ident id = { NULL, NULL };
	size_t i;
	int err = 0;

	for (i = 0; i < l->nr && !err; i++) {
		err = pr_outgoing_parse_address(&id, l->items[i]);
		if (err)
			err = pr_error_wrap(err, "option '%s'", key);
		pr_ident_release(&id);
	}
	return err;
}

static int check_options(const struct pr_instance *inst)
{
	const struct pr_smtp_ctx *ctx = inst->ctx;
	struct pr_ident from = { NULL, NULL };
	const char *host;
	int err = 0;

	if (!ctx->url || (strncmp(ctx->url, "smtp://", 7) &&
			  strncmp(ctx->url, "smtps://", 8))) {
		err = pr_error(PR_ECONFIG,
			       "option 'url': must start with smtp:// or "
			       "smtps://");
		goto done;
	}
	host = strstr(ctx->url, "://") + 3;
	if (strcspn(host, "@") < strcspn(host, "/")) {
		/* do not echo the URL: the user information may be a secret */
		err = pr_error(PR_ECONFIG,
			       "option 'url': user information is not allowed "
			       "(use 'user' and 'password')");
		goto done;
	}
	if (!ctx->from) {
		err = pr_error(PR_ECONFIG, "option 'from': missing");
		goto done;
	}
	if ((err = pr_outgoing_parse_address(&from, ctx->from)) ||
	    (err = check_address("option 'from'", from.email))) {
		err = pr_error_wrap(err, "option 'from'");
		goto done;
	}
	if ((err = check_list("to", &ctx->to)) ||
	    (err = check_list("cc", &ctx->cc)))
		goto done;
	if (ctx->rate < 0 || ctx->max_recipients < 1) {
		err = pr_error(PR_ECONFIG, "option '%s': must be %s",
			       ctx->rate < 0 ? "rate" : "max-recipients",
			       ctx->rate < 0 ? "0 or more" : "1 or more");
		goto done;
	}
done:
	if (err)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	pr_ident_release(&from);
	return err;
}

static int smtp_open(struct pr_instance *inst)
{
	return check_options(inst);
}

/* Close the instance's connection, if one is open (QUIT). */
static void hang_up(struct smtp_state *st)
{
	if (st && st->h) {
		curl_easy_cleanup(st->h);
		st->h = NULL;
	}
}

static void smtp_close(struct pr_instance *inst)
{
	hang_up(inst->state);
	free(inst->state);
	inst->state = NULL;
}

/* The end of the header section: the blank line, or the end of the mail. */
static size_t header_end(const char *mail, size_t len)
{
	size_t i;

	if (len && mail[0] == '\n')
		return 0;
	for (i = 0; i + 1 < len; i++)
		if (mail[i] == '\n' && mail[i + 1] == '\n')
			return i + 1;
	return len;
}

/* Put the reason in *why; 1 (refused), or an error from the buffer. */
static int refuse(struct pr_buf *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int refuse(struct pr_buf *why, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = pr_buf_vaddf(why, fmt, ap);
	va_end(ap);
	return err ? err : 1;
}

/* 0 when every header line is well-formed; else 1 and a reason in *why. */
static int check_headers(struct pr_buf *why, const char *mail, size_t hlen)
{
	size_t pos = 0, lineno = 0;

	while (pos < hlen) {
		const char *line = mail + pos;
		const char *nl = memchr(line, '\n', hlen - pos);
		size_t n = nl ? (size_t)(nl - line) : hlen - pos;
		size_t i;

		lineno++;
		if (n > SMTP_LINE_MAX)
			return refuse(why, "header line %zu: over %d bytes",
				      lineno, SMTP_LINE_MAX);
		for (i = 0; i < n; i++) {
			unsigned char c = (unsigned char)line[i];

			if (c == '\r')
				return refuse(why,
					      "header line %zu: holds a "
					      "CR",
					      lineno);
			if ((c < ' ' && c != '\t') || c >= 127)
				return refuse(why,
					      "header line %zu: byte "
					      "0x%02x is not printable "
					      "ASCII",
					      lineno, c);
		}
		if (n && (line[0] == ' ' || line[0] == '\t')) {
			if (lineno == 1)
				return refuse(why, "header line 1: "
						   "continuation without a "
						   "header");
		} else {
			for (i = 0; i < n && line[i] != ':'; i++)
				if (line[i] == ' ' || line[i] == '\t')
					break;
			if (i == 0 || i == n || line[i] != ':')
				return refuse(why,
					      "header line %zu: not "
					      "'Name: value'",
					      lineno);
		}
		pos += n + 1;
	}
	return 0;
}

static bool has_recipient(const struct curl_slist *l, const char *addr)
{
	for (; l; l = l->next)
		if (!strcasecmp(l->data, addr))
			return true;
	return false;
}

/* Add one address (bytes [s, e)) of an address list, if new. */
static int add_recipient(struct curl_slist **list, size_t *nr, size_t max,
			 const char *s, const char *e)
{
	const char *lt = memchr(s, '<', (size_t)(e - s));
	struct curl_slist *n;
	char *addr = NULL;
	int err = 0;

	if (lt) {
		const char *gt = memchr(lt, '>', (size_t)(e - lt));

		if (!gt)
			return pr_error(PR_EPARSE, "address '%.*s': no '>'",
					(int)(e - s), s);
		s = lt + 1;
		e = gt;
	}
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (s == e)
		return 0;
	addr = pr_strndup(s, (size_t)(e - s));
	if ((err = check_address("recipient", addr)))
		goto done;
	if (has_recipient(*list, addr))
		goto done;
	if (*nr >= max) {
		err = pr_error(PR_ETOOBIG, "recipients: more than %zu", max);
		goto done;
	}
	n = curl_slist_append(*list, addr);
	if (!n) {
		err = pr_error(PR_EINTERNAL, "recipients: out of memory");
		goto done;
	}
	*list = n;
	(*nr)++;
done:
	free(addr);
	return err;
}

/*
 * Split an unfolded address list on commas outside quotes, comments and
 * angle brackets; a group ("name: a, b;") gives its members.
 */
static int add_recipients(struct curl_slist **list, size_t *nr, size_t max,
			  const char *v, size_t len)
{
	const char *s = v, *e = v + len, *p;
	bool quoted = false, angle = false;
	int depth = 0, err;

	for (p = v; p <= e; p++) {
		char c = p < e ? *p : ',';

		if (quoted) {
			if (c == '\\' && p + 1 < e)
				p++;
			else if (c == '"')
				quoted = false;
			continue;
		}
		if (c == '"' && !depth)
			quoted = true;
		else if (c == '(')
			depth++;
		else if (c == ')' && depth)
			depth--;
		else if (depth)
			continue;
		else if (c == '<')
			angle = true;
		else if (c == '>')
			angle = false;
		else if (c == ':' && !angle)
			s = p + 1; /* a group's display name */
		else if ((c == ',' || c == ';') && !angle) {
			if ((err = add_recipient(list, nr, max, s, p)))
				return err;
			s = p + 1;
		}
	}
	return 0;
}

/* The unfolded value of every To: and Cc: header, as envelope recipients. */
static int collect_recipients(struct curl_slist **list, size_t max,
			      const char *mail, size_t hlen)
{
	struct pr_buf v = PR_BUF_INIT;
	size_t pos = 0, nr = 0;
	int err = 0;

	while (pos < hlen) {
		const char *line = mail + pos;
		const char *nl = memchr(line, '\n', hlen - pos);
		size_t n = nl ? (size_t)(nl - line) : hlen - pos;
		size_t skip = 0;

		if (n >= 3 && !strncasecmp(line, "To:", 3))
			skip = 3;
		else if (n >= 3 && !strncasecmp(line, "Cc:", 3))
			skip = 3;
		pos += n + 1;
		if (!skip)
			continue;
		pr_buf_reset(&v);
		if ((err = pr_buf_add(&v, line + skip, n - skip)))
			goto done;
		/* continuation lines: unfold by dropping the LF */
		while (pos < hlen && (mail[pos] == ' ' || mail[pos] == '\t')) {
			line = mail + pos;
			nl = memchr(line, '\n', hlen - pos);
			n = nl ? (size_t)(nl - line) : hlen - pos;
			if ((err = pr_buf_add(&v, line, n)))
				goto done;
			pos += n + 1;
		}
		if ((err = add_recipients(list, &nr, max, v.ptr, v.len)))
			goto done;
	}
	if (!nr)
		err = pr_error(PR_EINVAL, "no To: or Cc: recipient");
done:
	pr_buf_release(&v);
	return err;
}

/* The Message-ID header's value for log lines, or "(no Message-ID)". */
static void message_id(struct pr_buf *out, const char *mail, size_t hlen)
{
	size_t pos = 0;

	while (pos < hlen) {
		const char *line = mail + pos;
		const char *nl = memchr(line, '\n', hlen - pos);
		size_t n = nl ? (size_t)(nl - line) : hlen - pos;

		if (n > 11 && !strncasecmp(line, "Message-ID:", 11)) {
			line += 11;
			n -= 11;
			while (n && *line == ' ') {
				line++;
				n--;
			}
			pr_buf_add(out, line, n);
			return;
		}
		pos += n + 1;
	}
	pr_buf_adds(out, "(no Message-ID)");
}

/* The mail with CRLF line ends (a CRLF already there is kept as is). */
static int to_crlf(struct pr_buf *out, const char *mail, size_t len)
{
	size_t i;
	int err;

	if ((err = pr_buf_grow(out, len + len / 16 + 2)))
		return err;
	for (i = 0; i < len; i++) {
		if (mail[i] == '\n' && (i == 0 || mail[i - 1] != '\r'))
			if ((err = pr_buf_addch(out, '\r')))
				return err;
		if ((err = pr_buf_addch(out, mail[i])))
			return err;
	}
	if (len && mail[len - 1] != '\n')
		return pr_buf_adds(out, "\r\n");
	return 0;
}

struct reader {
	const char *data;
	size_t len, pos;
};

static size_t read_cb(char *dst, size_t size, size_t nmemb, void *payload)
{
	struct reader *r = payload;
	size_t n = size * nmemb;

	if (n > r->len - r->pos)
		n = r->len - r->pos;
	memcpy(dst, r->data + r->pos, n);
	r->pos += n;
	return n;
}

static int64_t ms_between(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(b->tv_sec - a->tv_sec) * 1000 +
	       (b->tv_nsec - a->tv_nsec) / 1000000;
}

/* Sleep until the rate limit lets the next message go. */
static int rate_wait(struct pr_instance *inst)
{
	const struct pr_smtp_ctx *ctx = inst->ctx;
	struct smtp_state *st = inst->state;
	struct timespec now;
	int64_t wait;

	if (!st)
		inst->state = st = pr_calloc(1, sizeof(*st));
	if (!ctx->rate || !st->sent_before)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	wait = 60000 / ctx->rate - ms_between(&st->last, &now);
	if (wait > 0) {
		struct timespec ts = { (time_t)(wait / 1000),
				       (long)(wait % 1000) * 1000000 };

		pr_log_debug(inst->prefix, "rate limit: waiting %lld ms",
			     (long long)wait);
		/* a server may drop a connection idle for long */
		if (wait > SMTP_KEEP_MS)
			hang_up(st);
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	return 0;
}

static void rate_note(struct pr_instance *inst)
{
	struct smtp_state *st = inst->state;

	st->sent_before = true;
	clock_gettime(CLOCK_MONOTONIC, &st->last);
}

/*
 * What failure rc means, in words, or NULL (libcurl's words and the code
 * of the server's last answer say it).
 */
static const char *failure_words(CURLcode rc, long code)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
		return "cannot resolve the host";
	case CURLE_COULDNT_CONNECT:
		return "cannot connect";
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
		return "the connection ended before the server's answer";
	case CURLE_SEND_ERROR:
		return "the connection ended while sending";
	case CURLE_WEIRD_SERVER_REPLY:
		/* libcurl's word for a refusal it did not expect, too */
		return code >= 400 ? NULL : "the server's answer is not SMTP";
	default:
		return NULL;
	}
}

/* Whether the server may have taken a message that failed with rc. */
static bool maybe_taken(CURLcode rc, const struct reader *r)
{
	/* all of it went to libcurl, and no answer came back */
	return r->pos == r->len &&
	       (rc == CURLE_GOT_NOTHING || rc == CURLE_RECV_ERROR ||
		rc == CURLE_OPERATION_TIMEDOUT);
}

/* Send one message; fills in *out, or returns an error. */
static int send_one(struct pr_instance *inst, const struct pr_delivery *d,
		    struct curl_slist *rcpt, const struct pr_buf *data,
		    const char *mid, struct pr_deliver_result *out)
{
	const struct pr_smtp_ctx *ctx = inst->ctx;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct pr_buf from = PR_BUF_INIT, why = PR_BUF_INIT;
	struct pr_ident sender = { NULL, NULL };
	struct reader r = { data->ptr, data->len, 0 };
	struct smtp_state *st = inst->state;
	struct ehlo ehlo = { false, false, { NULL, NULL, false, false } };
	long use_ssl = pr_mailtls_use_ssl(ctx->url, ctx->starttls);
	const char *words;
	long code = 0;
	CURLcode rc;
	CURL *c;
	int err = 0;

	pr_trace_init(&ehlo.trace, "smtp", inst->prefix);
	/* the open connection, if any, is reused (its options start over) */
	if (st->h)
		curl_easy_reset(st->h);
	else
		st->h = curl_easy_init();
	c = st->h;
	if (!c) {
		err = pr_error(PR_EINTERNAL, "cannot start libcurl");
		goto done;
	}
	if ((err = pr_outgoing_parse_address(&sender, ctx->from)) ||
	    (err = pr_buf_addf(&from, "<%s>", sender.email)))
		goto done;
	curl_easy_setopt(c, CURLOPT_URL, ctx->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_USE_SSL, use_ssl);
	/* the trace goes to on_trace only, never to stderr */
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, on_trace);
	curl_easy_setopt(c, CURLOPT_DEBUGDATA, &ehlo);
	curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
	if (ctx->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, ctx->ca_file);
	if (ctx->password) {
		curl_easy_setopt(c, CURLOPT_USERNAME,
				 ctx->user ? ctx->user : sender.email);
		curl_easy_setopt(c, CURLOPT_PASSWORD, ctx->password);
	}
	if (ctx->timeout > 0) {
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)ctx->timeout);
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
				 (long)ctx->timeout);
	}
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, from.ptr);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &r);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)data->len);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	/* starttls = optional, and the server offered none */
	if (use_ssl == CURLUSESSL_TRY && ehlo.done && !ehlo.starttls && st &&
	    !st->warned_plain) {
		pr_log_warn(inst->prefix,
			    "smtp '%s': the server does not offer STARTTLS: "
			    "sending without TLS%s (starttls = optional)",
			    ctx->url,
			    ctx->password ? ", the password in plain text"
					  : "");
		st->warned_plain = true;
	}
	if (rc == CURLE_OK) {
		out->status = PR_DELIVER_OK;
		pr_log_info(inst->prefix, "sent message %zu/%zu %s",
			    d->index + 1, d->nr, mid);
		goto done;
	}
	pr_buf_addf(&why, "message %zu/%zu %s: smtp '%s': ", d->index + 1,
		    d->nr, mid, ctx->url);
	if (pr_mailtls_failure(rc)) {
		pr_mailtls_add_reason(
			&why, rc, errbuf[0] ? errbuf : curl_easy_strerror(rc),
			ctx->ca_file);
		err = pr_error(PR_ENET, "%s", why.ptr);
		goto done;
	}
	words = failure_words(rc, code);
	if (rc == CURLE_OPERATION_TIMEDOUT)
		pr_buf_addf(&why, "timed out after %lld ms: ",
			    (long long)ctx->timeout);
	else if (words)
		pr_buf_addf(&why, "%s: ", words);
	pr_buf_adds(&why, errbuf[0] ? errbuf : curl_easy_strerror(rc));
	if (code)
		pr_buf_addf(&why, " (server answered %ld)", code);
	if (maybe_taken(rc, &r))
		pr_buf_adds(&why, "; the whole message had gone out, so the "
				  "server may have taken it: a retry sends it "
				  "again, with the same Message-ID");
	if ((code >= 500 && code <= 599) || rc == CURLE_LOGIN_DENIED) {
		out->status = PR_DELIVER_REJECTED;
		pr_log_error(inst->prefix, "rejected %s", why.ptr);
	} else {
		out->status = PR_DELIVER_RETRY;
		out->retry_after_ms = SMTP_RETRY_MS;
		pr_log_warn(inst->prefix, "will retry %s", why.ptr);
	}
	out->reason = pr_buf_detach(&why, NULL);
done:
	/* a connection that failed is not used again */
	if (err || out->status != PR_DELIVER_OK)
		hang_up(st);
	pr_buf_release(&from);
	pr_buf_release(&why);
	pr_ident_release(&sender);
	return err;
}

static int smtp_deliver(struct pr_instance *inst, const struct pr_delivery *d,
			struct pr_deliver_result *out)
{
	const struct pr_smtp_ctx *ctx = inst->ctx;
	struct pr_buf why = PR_BUF_INIT, data = PR_BUF_INIT, mid = PR_BUF_INIT;
	struct curl_slist *rcpt = NULL;
	size_t hlen;
	int err;

	out->status = PR_DELIVER_RETRY;
	out->retry_after_ms = 0;
	if ((err = check_options(inst)))
		goto done;
	if (d->len > PR_LIMIT_MAIL_BYTES) {
		err = pr_error(PR_ETOOBIG, "message %zu: over %zu bytes",
			       d->index + 1, (size_t)PR_LIMIT_MAIL_BYTES);
		goto done;
	}
	hlen = header_end(d->mail, d->len);
	err = check_headers(&why, d->mail, hlen);
	if (err < 0)
		goto done;
	if (err == 0)
		err = collect_recipients(&rcpt, (size_t)ctx->max_recipients,
					 d->mail, hlen);
	if (err) {
		/* a malformed mail stays malformed: no retry can help */
		if (err < 0)
			pr_buf_adds(&why, pr_error_message());
		out->status = PR_DELIVER_REJECTED;
		out->reason = NULL;
		pr_buf_reset(&mid);
		pr_buf_addf(&mid, "message %zu/%zu refused: %s", d->index + 1,
			    d->nr, why.ptr);
		pr_log_error(inst->prefix, "%s", mid.ptr);
		out->reason = pr_buf_detach(&mid, NULL);
		err = 0;
		goto done;
	}
	message_id(&mid, d->mail, hlen);
	if ((err = to_crlf(&data, d->mail, d->len)) || (err = rate_wait(inst)))
		goto done;
	err = send_one(inst, d, rcpt, &data, mid.ptr, out);
	rate_note(inst);
done:
	if (err)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	curl_slist_free_all(rcpt);
	pr_buf_release(&why);
	pr_buf_release(&data);
	pr_buf_release(&mid);
	return err;
}

static const struct pr_option smtp_options[] = {
	{ "url", PR_OPT_STRING, NULL,
	  "the server: smtp://HOST[:PORT] or smtps://HOST[:PORT]",
	  offsetof(struct pr_smtp_ctx, url), true, NULL },
	{ "from", PR_OPT_STRING, NULL,
	  "the sender: \"addr\" or \"Name <addr>\" (From:; MAIL FROM is addr)",
	  offsetof(struct pr_smtp_ctx, from), true, NULL },
	{ "starttls", PR_OPT_ENUM, "required",
	  "STARTTLS on smtp://: required, optional or never",
	  offsetof(struct pr_smtp_ctx, starttls), false,
	  pr_mailtls_starttls_choices },
	{ "user", PR_OPT_STRING, NULL,
	  "the AUTH user name (default: the from address)",
	  offsetof(struct pr_smtp_ctx, user), false, NULL },
	{ "password", PR_OPT_SECRET, NULL,
	  "the AUTH password; AUTH is used only when it is set",
	  offsetof(struct pr_smtp_ctx, password), false, NULL },
	{ "ca-file", PR_OPT_PATH, NULL,
	  "CA certificates to verify the server with (default: the system's)",
	  offsetof(struct pr_smtp_ctx, ca_file), false, NULL },
	{ "rate", PR_OPT_INT, "0",
	  "at most this many messages per minute (0: no limit)",
	  offsetof(struct pr_smtp_ctx, rate), false, NULL },
	{ "max-recipients", PR_OPT_INT, "100",
	  "refuse a message with more envelope recipients than this",
	  offsetof(struct pr_smtp_ctx, max_recipients), false, NULL },
	{ "timeout", PR_OPT_DURATION, "60s",
	  "give up on a connection or message after this long",
	  offsetof(struct pr_smtp_ctx, timeout), false, NULL },
	{ "to", PR_OPT_LIST, NULL,
	  "a recipient every mail goes to (To:), repeatable",
	  offsetof(struct pr_smtp_ctx, to), false, NULL },
	{ "cc", PR_OPT_LIST, NULL,
	  "a recipient every mail is copied to (Cc:), repeatable",
	  offsetof(struct pr_smtp_ctx, cc), false, NULL },
	{ "archive-url", PR_OPT_STRING, NULL,
	  "the list archive's link to a message, %m the Message-ID "
	  "(https://lore.kernel.org/r/%m)",
	  offsetof(struct pr_smtp_ctx, archive_url), false, NULL },
	PR_OPTIONS_END,
};

const struct pr_connector_type pr_connector_smtp = {
	.abi = PR_ABI_VERSION,
	.name = "smtp",
	.summary = "an SMTP sink (libcurl; STARTTLS, smtps, AUTH)",
	.caps = PR_CAP_SINK,
	.options = smtp_options,
	.ctx_size = sizeof(struct pr_smtp_ctx),
	.open = smtp_open,
	.deliver = smtp_deliver,
	.close = smtp_close,
};
