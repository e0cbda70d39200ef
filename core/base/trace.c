#include "base/pr.h"

#include <ctype.h>
#include <stdio.h>
#include <strings.h>

#include "base/trace.h"

#define TRACE_LINE_MAX 1000

static const char redacted[] = "<redacted>";

void pr_trace_init(struct pr_trace *t, const char *topic, const char *prefix)
{
	t->topic = topic;
	t->prefix = prefix;
	t->on = pr_trace_enabled(topic);
	t->in_auth = false;
}

/* Does s[0..len) contain any of the words, ignoring case? */
static bool has_any(const char *s, size_t len, const char *const *words)
{
	size_t i, n;

	for (; *words; words++) {
		n = strlen(*words);
		for (i = 0; i + n <= len; i++)
			if (!strncasecmp(s + i, *words, n))
				return true;
	}
	return false;
}

static const char *const secret_names[] = { "auth", "token",   "secret",
					    "pass", "cookie",  "key",
					    "sig",  "session", NULL };

/*
 * Append s[0..len) with the value of each query parameter whose name
 * looks secret as <redacted>: a parameter is name=value after '?' or '&',
 * up to the next '&', '#' or white space.
 */
static int add_query_redacted(struct pr_buf *out, const char *s, size_t len)
{
	size_t i = 0;
	bool in_query = false;
	int err = 0;

	while (i < len && !err) {
		size_t name, eq, end;

		if (s[i] == ' ' || s[i] == '\t' || s[i] == '#') {
			in_query = false;
			err = pr_buf_addch(out, s[i++]);
			continue;
		}
		if (s[i] != '?' && !(in_query && s[i] == '&')) {
			err = pr_buf_addch(out, s[i++]);
			continue;
		}
		in_query = true;
		if ((err = pr_buf_addch(out, s[i++])))
			break;
		name = i;
		end = i;
		while (end < len && !strchr("&# \t", s[end]))
			end++;
		for (eq = name; eq < end && s[eq] != '='; eq++)
			;
		if (eq < end && has_any(s + name, eq - name, secret_names)) {
			err = pr_buf_add(out, s + name, eq + 1 - name);
			if (!err)
				err = pr_buf_adds(out, redacted);
		} else {
			err = pr_buf_add(out, s + name, end - name);
		}
		i = end;
	}
	return err;
}

static int http_line(struct pr_buf *out, const char *s, size_t len)
{
	size_t colon = 0;

	while (colon < len && s[colon] != ':' && s[colon] != ' ')
		colon++;
	/* "Name: value", not a request or status line */
	if (colon < len && colon > 0 && s[colon] == ':' &&
	    has_any(s, colon, secret_names)) {
		int err = pr_buf_add(out, s, colon + 1);

		return err ? err : pr_buf_addf(out, " %s", redacted);
	}
	return add_query_redacted(out, s, len);
}

/* The length of the word at s (up to a space). */
static size_t word(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] != ' ')
		n++;
	return n;
}

static bool is_one_of(const char *w, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && !strncasecmp(w, *list, n))
			return true;
	return false;
}

/* "CMD MECH", then " <redacted>" if anything followed */
static int add_auth(struct pr_buf *out, const char *s, size_t len,
		    size_t cmd_end)
{
	size_t mech = cmd_end < len ? cmd_end + 1 : len;
	size_t end = mech + word(s + mech, len - mech);
	int err = pr_buf_add(out, s, end);

	if (!err && end < len)
		err = pr_buf_addf(out, " %s", redacted);
	return err;
}

static int smtp_line(struct pr_buf *out, struct pr_trace *t, bool sent,
		     const char *s, size_t len)
{
	static const char *const plain[] = { "EHLO",	 "HELO", "MAIL", "RCPT",
					     "DATA",	 "QUIT", "RSET", "NOOP",
					     "STARTTLS", "VRFY", "HELP", "EXPN",
					     NULL };
	size_t n = word(s, len);

	if (!sent) {
		if (t->in_auth && (len < 3 || strncmp(s, "334", 3)))
			t->in_auth = false;
		return pr_buf_add(out, s, len);
	}
	if (t->in_auth)
		return pr_buf_adds(out, redacted);
	if (n == 4 && !strncasecmp(s, "AUTH", 4)) {
		t->in_auth = true;
		return add_auth(out, s, len, n);
	}
	if (is_one_of(s, n, plain))
		return pr_buf_add(out, s, len);
	return pr_buf_adds(out, redacted);
}

static int imap_line(struct pr_buf *out, struct pr_trace *t, bool sent,
		     const char *s, size_t len)
{
	static const char *const plain[] = {
		"CAPABILITY", "STARTTLS",  "SELECT", "EXAMINE", "STATUS",
		"SEARCH",     "UID",	   "FETCH",  "LOGOUT",	"NOOP",
		"LIST",	      "LSUB",	   "CLOSE",  "EXPUNGE", "ID",
		"ENABLE",     "NAMESPACE", "CHECK",  NULL
	};
	size_t tag = word(s, len), cmd, n;

	if (!sent) {
		if (t->in_auth && (!len || s[0] != '+'))
			t->in_auth = false;
		return pr_buf_add(out, s, len);
	}
	if (t->in_auth || tag >= len)
		return pr_buf_adds(out, redacted);
	cmd = tag + 1;
	n = word(s + cmd, len - cmd);
	if (n == 5 && !strncasecmp(s + cmd, "LOGIN", 5)) {
		int err = pr_buf_add(out, s, cmd + n);

		return err ? err : pr_buf_addf(out, " %s", redacted);
	}
	if (n == 12 && !strncasecmp(s + cmd, "AUTHENTICATE", 12)) {
		t->in_auth = true;
		return add_auth(out, s, len, cmd + n);
	}
	if (is_one_of(s + cmd, n, plain))
		return pr_buf_add(out, s, len);
	return pr_buf_adds(out, redacted);
}

int pr_trace_line(struct pr_buf *out, struct pr_trace *t, bool sent,
		  const char *line, size_t len)
{
	struct pr_buf raw = PR_BUF_INIT;
	size_t i, start = out->len;
	int err;

	if (!strcmp(t->topic, "smtp"))
		err = smtp_line(&raw, t, sent, line, len);
	else if (!strcmp(t->topic, "imap"))
		err = imap_line(&raw, t, sent, line, len);
	else
		err = http_line(&raw, line, len);
	for (i = 0; !err && i < raw.len; i++) {
		unsigned char c = (unsigned char)raw.ptr[i];

		if (out->len - start >= TRACE_LINE_MAX) {
			err = pr_buf_addf(out, "... (%zu bytes)", raw.len);
			break;
		}
		err = c >= 0x20 && c < 0x7f ? pr_buf_addch(out, (char)c)
					    : pr_buf_addf(out, "\\x%02x", c);
	}
	pr_buf_release(&raw);
	return err;
}

static void emit(const struct pr_trace *t, char mark, const char *text)
{
	struct pr_buf line = PR_BUF_INIT;

	if (!pr_buf_addf(&line, "patchrelay: trace [%s] %c %s\n",
			 t->prefix ? t->prefix : t->topic, mark, text))
		fwrite(line.ptr, 1, line.len, stderr);
	pr_buf_release(&line);
}

/*
 * Each line of a block without its CR LF, redacted: protocol lines by t's
 * rules, libcurl's own notes (no secret, no state) by the HTTP ones.  The
 * empty line ending HTTP's header block is not written.
 */
static void emit_lines(struct pr_trace *t, char mark, bool proto, bool sent,
		       const char *data, size_t size)
{
	struct pr_trace notes = { "http", NULL, true, false };
	struct pr_buf text = PR_BUF_INIT;
	size_t i = 0;

	while (i < size) {
		size_t n = 0, l;

		while (i + n < size && data[i + n] != '\n')
			n++;
		l = n && data[i + n - 1] == '\r' ? n - 1 : n;
		pr_buf_reset(&text);
		if (l && !pr_trace_line(&text, proto ? t : &notes, sent,
					data + i, l))
			emit(t, mark, text.ptr);
		i += n + 1;
	}
	pr_buf_release(&text);
}

void pr_trace_curl(struct pr_trace *t, curl_infotype type, const char *data,
		   size_t size)
{
	char note[64];

	if (!t->on)
		return;
	switch (type) {
	case CURLINFO_TEXT:
		emit_lines(t, '*', false, false, data, size);
		break;
	case CURLINFO_HEADER_OUT:
		emit_lines(t, '>', true, true, data, size);
		break;
	case CURLINFO_HEADER_IN:
		emit_lines(t, '<', true, false, data, size);
		break;
	case CURLINFO_DATA_OUT:
	case CURLINFO_DATA_IN:
		snprintf(note, sizeof(note), "%zu bytes of body %s", size,
			 type == CURLINFO_DATA_OUT ? "sent" : "received");
		emit(t, '=', note);
		break;
	default:
		break; /* TLS records */
	}
}

int pr_trace_curl_cb(CURL *h, curl_infotype type, char *data, size_t size,
		     void *payload)
{
	PR_UNUSED(h);
	pr_trace_curl(payload, type, data, size);
	return 0;
}

void pr_trace_attach(CURL *h, struct pr_trace *t)
{
	if (!t->on)
		return;
	curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, pr_trace_curl_cb);
	curl_easy_setopt(h, CURLOPT_DEBUGDATA, t);
	curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
}
