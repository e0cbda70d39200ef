#include "base/pr.h"

#include <curl/curl.h>
#include <errno.h>
#include <time.h>

#include "connectors.h"
#include "base/http.h"
#include "mailsrc.h"
#include "mailtls.h"
#include "mail/mbox.h"
#include "base/trace.h"

/*
 * The imap source: reads a mailbox over IMAP (libcurl) and hands the
 * messages to connectors/mailsrc.c, exactly as the maildir source does.
 *
 * - A message's position is its UID as 20 digits; the cursor's epoch is the
 *   mailbox's UIDVALIDITY.  A poll asks STATUS for the UIDVALIDITY, then
 *   UID SEARCH UID low:* plus the configured filter, then fetches each UID
 *   with ;UIDVALIDITY=v;UID=n, so that a mailbox recreated meanwhile gives
 *   no message rather than a wrong one.
 * - A UIDVALIDITY other than the cursor's means the UIDs were renumbered:
 *   the poll reads the mailbox from the beginning and says so in a log
 *   line; what it emits again has the same fingerprints, so the engine
 *   sends nothing twice.
 * - libcurl fetches with BODY[], which sets \Seen; nothing else is changed.
 * - imap:// uses STARTTLS as the starttls option says (connectors/mailtls.h);
 *   a login refused because the server announced LOGINDISABLED (it wants
 *   TLS first) is told apart from a wrong password by reading the server's
 *   CAPABILITY lines in libcurl's trace.
 * - The password never reaches a log line or an error message.
 */

struct imap_src {
	const struct pr_instance *inst;
	const struct pr_imap_ctx *ctx;
	CURL *h;
	char errbuf[CURL_ERROR_SIZE];
	struct pr_buf base; /* scheme://host[:port]/ */
	struct pr_buf mailbox; /* the decoded mailbox name */
	struct pr_buf resp; /* the last answer */
	bool too_big; /* the answer passed resp's cap */
	bool login_disabled; /* the last CAPABILITY held LOGINDISABLED */
	bool cap_seen; /* a CAPABILITY came on this request's connection */
	bool no_starttls; /* and the first one did not offer STARTTLS */
	bool warned; /* the plain text login was logged */
	char refusal[160]; /* the text of this request's tagged NO or BAD */
	struct pr_trace trace; /* PATCHRELAY_TRACE=imap */
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *payload)
{
	struct imap_src *s = payload;
	size_t n = size * nmemb;

	/* a short count makes libcurl stop with CURLE_WRITE_ERROR */
	if (pr_buf_add(&s->resp, data, n)) {
		pr_error_clear();
		s->too_big = true;
		return 0;
	}
	return n;
}

static bool has_token(const char *s, size_t n, const char *tok)
{
	size_t t = strlen(tok), i;

	for (i = 0; i + t <= n; i++)
		if ((!i || s[i - 1] == ' ') && !memcmp(s + i, tok, t) &&
		    (i + t == n || strchr(" ]\r\n", s[i + t])))
			return true;
	return false;
}

/*
 * A tagged answer ("A003 NO [NONEXISTENT] Mailbox doesn't exist: x"): a NO
 * or BAD is kept, printable ASCII only, for the error to quote.
 */
static void keep_refusal(struct imap_src *s, const char *data, size_t size)
{
	const char *sp = memchr(data, ' ', size);
	size_t i, n = 0;

	if (!sp || (size - (size_t)(sp + 1 - data) < 3) ||
	    (strncmp(sp + 1, "NO ", 3) && strncmp(sp + 1, "BAD ", 4)))
		return;
	for (i = (size_t)(sp + 1 - data);
	     i < size && n + 1 < sizeof(s->refusal); i++)
		if (data[i] >= ' ' && data[i] < 127)
			s->refusal[n++] = data[i];
	s->refusal[n] = '\0';
}

/*
 * libcurl's trace: only the server's lines are looked at, and only for
 * the capabilities; nothing of it is kept.  It is written only redacted,
 * when PATCHRELAY_TRACE names imap (core/base/trace.h): the lines going out
 * hold the password.  The CAPABILITY asked again after STARTTLS replaces
 * the one before.
 */
static int on_trace(CURL *h, curl_infotype type, char *data, size_t size,
		    void *payload)
{
	struct imap_src *s = payload;

	PR_UNUSED(h);
	pr_trace_curl(&s->trace, type, data, size);
	if (type == CURLINFO_HEADER_IN && size > 2 && data[0] != '*' &&
	    data[0] != '+')
		keep_refusal(s, data, size);
	if (type != CURLINFO_HEADER_IN || size < 2 || data[0] != '*')
		return 0;
	if (!has_token(data, size, "CAPABILITY") &&
	    !has_token(data, size, "[CAPABILITY"))
		return 0;
	s->login_disabled = has_token(data, size, "LOGINDISABLED");
	if (!s->cap_seen)
		s->no_starttls = !has_token(data, size, "STARTTLS");
	s->cap_seen = true;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Split url into base ("imap://host:port/") and the decoded mailbox (the
 * url's path, else the mailbox option, else INBOX).
 */
static int split_url(struct imap_src *s)
{
	const char *url = s->ctx->url, *host, *slash, *p;
	int err;

	if (strncmp(url, "imap://", 7) && strncmp(url, "imaps://", 8))
		return pr_error(PR_ECONFIG,
				"url '%s': not an imap:// or imaps:// url",
				url);
	host = strstr(url, "://") + 3;
	slash = strchr(host, '/');
	if (slash == host || !*host)
		return pr_error(PR_ECONFIG, "url '%s': no host", url);
	if ((err = pr_buf_add(&s->base, url,
			      slash ? (size_t)(slash - url) : strlen(url))) ||
	    (err = pr_buf_addch(&s->base, '/')))
		return err;
	p = slash ? slash + 1 : "";
	if (strpbrk(p, ";?/"))
		return pr_error(PR_ECONFIG,
				"url '%s': the path must be one mailbox name "
				"(no ';', '?' or '/'; use the mailbox option)",
				url);
	if (*p && s->ctx->mailbox)
		return pr_error(PR_ECONFIG,
				"url '%s': names a mailbox and the mailbox "
				"option too",
				url);
	if (!*p)
		p = s->ctx->mailbox ? s->ctx->mailbox : "INBOX";
	else
		for (; *p; p++) {
			int hi, lo;

			if (*p != '%') {
				if ((err = pr_buf_addch(&s->mailbox, *p)))
					return err;
				continue;
			}
			hi = hexval(p[1]);
			lo = hi < 0 ? -1 : hexval(p[2]);
			if (lo < 0)
				return pr_error(PR_ECONFIG,
						"url '%s': bad %%-escape", url);
			if ((err = pr_buf_addch(&s->mailbox, hi * 16 + lo)))
				return err;
			p += 2;
		}
	if (!s->mailbox.len && (err = pr_buf_adds(&s->mailbox, p)))
		return err;
	if (!s->mailbox.len || strpbrk(s->mailbox.ptr, "\r\n") ||
	    memchr(s->mailbox.ptr, '\0', s->mailbox.len))
		return pr_error(PR_ECONFIG, "mailbox '%s': not a mailbox name",
				s->mailbox.ptr);
	return 0;
}

static int check_options(struct pr_instance *inst)
{
	const struct pr_imap_ctx *ctx = inst->ctx;
	struct imap_src s;
	int err;

	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	pr_buf_init(&s.base, 0);
	pr_buf_init(&s.mailbox, 0);
	err = split_url(&s);
	/* the filter goes into a command line of its own */
	if (!err && ctx->search && strpbrk(ctx->search, "\r\n"))
		err = pr_error(PR_ECONFIG, "search '%s': holds a line break",
			       ctx->search);
	if (!err && ctx->timeout < 0)
		err = pr_error(PR_ECONFIG, "timeout: must be 0 or more");
	if (!err && (!ctx->user || !ctx->password))
		err = pr_error(PR_ECONFIG, "imap needs user and password");
	pr_buf_release(&s.base);
	pr_buf_release(&s.mailbox);
	if (err)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	return err;
}

static int imap_open(struct pr_instance *inst)
{
	return check_options(inst);
}

/* What went wrong with one request, as an error naming the server. */
static int request_error(struct imap_src *s, CURLcode rc, const char *what)
{
	const char *why = s->errbuf[0] ? s->errbuf : curl_easy_strerror(rc);

	if (pr_mailtls_failure(rc)) {
		struct pr_buf msg = PR_BUF_INIT;
		int err;

		pr_mailtls_add_reason(&msg, rc, why, s->ctx->ca_file);
		err = pr_error(PR_ENET, "imap '%s': %s", s->base.ptr, msg.ptr);
		pr_buf_release(&msg);
		return err;
	}
	switch (rc) {
	case CURLE_LOGIN_DENIED:
		if (s->login_disabled)
			return pr_error(PR_EAUTH,
					"imap '%s': the server refuses to log "
					"in without TLS (it announces "
					"LOGINDISABLED) and starttls is '%s'; "
					"set starttls = required or use "
					"imaps://",
					s->base.ptr,
					s->ctx->starttls ? s->ctx->starttls
							 : "required");
		return pr_error(PR_EAUTH,
				"imap '%s': login refused for user '%s' "
				"(wrong user or password?)",
				s->base.ptr, s->ctx->user);
	case CURLE_OPERATION_TIMEDOUT:
		return pr_error(PR_ETIMEOUT, "imap '%s': %s timed out: %s",
				s->base.ptr, what, why);
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
		return pr_error(PR_ENET, "imap '%s': cannot connect: %s",
				s->base.ptr, why);
	default:
		if (s->refusal[0])
			return pr_error(PR_ENET,
					"imap '%s': %s refused: the server "
					"said '%s'",
					s->base.ptr, what, s->refusal);
		return pr_error(PR_ENET, "imap '%s': %s failed: %s",
				s->base.ptr, what, why);
	}
}

/*
 * One request: url, with `command` as the custom request (NULL: fetch what
 * the url names); the answer lands in s->resp.  Returns 0, the CURLcode
 * CURLE_REMOTE_FILE_NOT_FOUND as 1, or an error.
 */
static int request(struct imap_src *s, const char *url, const char *command,
		   const char *what)
{
	CURLcode rc;

	pr_buf_release(&s->resp);
	pr_buf_init(&s->resp, PR_LIMIT_MAIL_BYTES);
	s->errbuf[0] = '\0';
	s->too_big = false;
	s->login_disabled = false;
	s->cap_seen = s->no_starttls = false;
	s->refusal[0] = '\0';
	curl_easy_setopt(s->h, CURLOPT_URL, url);
	curl_easy_setopt(s->h, CURLOPT_CUSTOMREQUEST, command);
	rc = curl_easy_perform(s->h);
	/* starttls = optional, and the server offered none */
	if (s->no_starttls && !s->warned &&
	    pr_mailtls_use_ssl(s->ctx->url, s->ctx->starttls) ==
		    CURLUSESSL_TRY) {
		pr_log_warn(s->inst->prefix,
			    "imap '%s': the server does not offer STARTTLS: "
			    "logging in without TLS, the password in plain "
			    "text (starttls = optional)",
			    s->base.ptr);
		s->warned = true;
	}
	if (rc == CURLE_OK)
		return 0;
	if (rc == CURLE_REMOTE_FILE_NOT_FOUND)
		return 1;
	if (rc == CURLE_WRITE_ERROR && s->too_big)
		return pr_error(PR_ETOOBIG, "imap '%s': %s: over %zu bytes",
				s->base.ptr, what, (size_t)PR_LIMIT_MAIL_BYTES);
	return request_error(s, rc, what);
}

static int setup(struct imap_src *s)
{
	pr_trace_init(&s->trace, "imap", s->inst->prefix);
	s->h = curl_easy_init();
	if (!s->h)
		return pr_error(PR_EINTERNAL, "cannot start libcurl");
	curl_easy_setopt(s->h, CURLOPT_PROTOCOLS_STR, "imap,imaps");
	curl_easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->h, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(s->h, CURLOPT_USE_SSL,
			 pr_mailtls_use_ssl(s->ctx->url, s->ctx->starttls));
	/* the trace goes to on_trace only, never to stderr */
	curl_easy_setopt(s->h, CURLOPT_DEBUGFUNCTION, on_trace);
	curl_easy_setopt(s->h, CURLOPT_DEBUGDATA, s);
	curl_easy_setopt(s->h, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(s->h, CURLOPT_USERNAME, s->ctx->user);
	curl_easy_setopt(s->h, CURLOPT_PASSWORD, s->ctx->password);
	if (s->ctx->ca_file)
		curl_easy_setopt(s->h, CURLOPT_CAINFO, s->ctx->ca_file);
	if (s->ctx->timeout > 0) {
		curl_easy_setopt(s->h, CURLOPT_TIMEOUT_MS,
				 (long)s->ctx->timeout);
		curl_easy_setopt(s->h, CURLOPT_CONNECTTIMEOUT_MS,
				 (long)s->ctx->timeout);
	}
	curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(s->h, CURLOPT_WRITEDATA, s);
	return 0;
}

/* Append the mailbox name as an IMAP quoted string. */
static int add_quoted(struct pr_buf *out, const char *name)
{
	int err = pr_buf_addch(out, '"');

	for (; !err && *name; name++) {
		if (*name == '"' || *name == '\\')
			err = pr_buf_addch(out, '\\');
		if (!err)
			err = pr_buf_addch(out, *name);
	}
	return err ? err : pr_buf_addch(out, '"');
}

/* The number after `key` ("UIDVALIDITY ") in the answer, or 0. */
static uint64_t number_after(const struct pr_buf *b, const char *key)
{
	const char *p = b->ptr ? strstr(b->ptr, key) : NULL;
	uint64_t n = 0;

	if (!p)
		return 0;
	for (p += strlen(key); *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - 9) / 10)
			return 0;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	return n;
}

static int uid_validity(struct imap_src *s, uint64_t *out)
{
	struct pr_buf cmd = PR_BUF_INIT;
	int err;

	if ((err = pr_buf_adds(&cmd, "STATUS ")) ||
	    (err = add_quoted(&cmd, s->mailbox.ptr)) ||
	    (err = pr_buf_adds(&cmd, " (UIDVALIDITY)")))
		goto done;
	err = request(s, s->base.ptr, cmd.ptr, "STATUS");
	if (err == 1)
		err = pr_error(PR_ENOENT, "imap '%s': no mailbox '%s'",
			       s->base.ptr, s->mailbox.ptr);
	if (err)
		goto done;
	*out = number_after(&s->resp, "UIDVALIDITY ");
	if (!*out)
		err = pr_error(PR_ENET,
			       "imap '%s': mailbox '%s': no UIDVALIDITY in "
			       "the STATUS answer",
			       s->base.ptr, s->mailbox.ptr);
done:
	pr_buf_release(&cmd);
	return err;
}

struct uids {
	uint64_t *v;
	size_t nr, alloc;
};

static int cmp_uid(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The UIDs >= from that match the filter, ascending.  "UID n:*" also
 * matches the highest UID when it is below n (RFC 3501), hence the check.
 */
static int search(struct imap_src *s, const char *mbox_url, uint64_t from,
		  struct uids *out)
{
	struct pr_buf cmd = PR_BUF_INIT;
	const char *p, *end;
	int err;

	if ((err = pr_buf_addf(&cmd, "UID SEARCH UID %llu:* %s",
			       (unsigned long long)from,
			       s->ctx->search ? s->ctx->search : "ALL")))
		goto done;
	err = request(s, mbox_url, cmd.ptr, "UID SEARCH");
	if (err == 1)
		err = pr_error(PR_ENOENT, "imap '%s': no mailbox '%s'",
			       s->base.ptr, s->mailbox.ptr);
	if (err)
		goto done;
	p = s->resp.ptr ? strstr(s->resp.ptr, "* SEARCH") : NULL;
	if (!p) {
		err = pr_error(PR_ENET, "imap '%s': no SEARCH answer for '%s'",
			       s->base.ptr, cmd.ptr);
		goto done;
	}
	p += 8;
	end = strchr(p, '\n');
	if (!end)
		end = p + strlen(p);
	while (p < end) {
		uint64_t n = 0;

		while (p < end && (*p == ' ' || *p == '\r'))
			p++;
		if (p == end)
			break;
		if (*p < '0' || *p > '9') {
			err = pr_error(PR_ENET,
				       "imap '%s': bad SEARCH answer '%.80s'",
				       s->base.ptr, p);
			goto done;
		}
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			n = n * 10 + (uint64_t)(*p - '0');
		if (n < from)
			continue;
		PR_ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		out->v[out->nr++] = n;
	}
	if (out->nr)
		qsort(out->v, out->nr, sizeof(*out->v), cmp_uid);
done:
	pr_buf_release(&cmd);
	return err;
}

struct one_msg {
	struct pr_mailsrc_parts *parts;
	const char *pos;
};

static int add_message(const char *data, size_t len,
		       const struct pr_mbox_where *w, void *payload)
{
	struct one_msg *m = payload;

	PR_UNUSED(w);
	pr_mailsrc_parts_add(m->parts, m->pos, data, len, 0);
	return 0;
}

/* The UID in a position ("<UID as 20 digits>"), 1 for NULL or junk. */
static uint64_t uid_of(const char *pos)
{
	uint64_t n = 0;

	if (!pos)
		return 1;
	for (; *pos >= '0' && *pos <= '9'; pos++)
		n = n * 10 + (uint64_t)(*pos - '0');
	return n ? n : 1;
}

static int imap_poll(struct pr_instance *inst, const char *cursor,
		     pr_event_fn emit, void *payload)
{
	const struct pr_imap_ctx *ctx = inst->ctx;
	struct pr_mailsrc_cursor prev;
	struct pr_mailsrc_parts parts;
	struct pr_mailsrc_opts o;
	struct pr_buf mbox_url = PR_BUF_INIT, url = PR_BUF_INIT,
		      pos = PR_BUF_INIT, epoch = PR_BUF_INIT;
	struct pr_mbox_opts mo = { false };
	struct uids uids = { NULL, 0, 0 };
	struct imap_src s;
	bool from_start = !cursor;
	uint64_t validity = 0;
	size_t i;
	int err = 0;

	memset(&prev, 0, sizeof(prev));
	memset(&parts, 0, sizeof(parts));
	memset(&s, 0, sizeof(s));
	s.inst = inst;
	s.ctx = ctx;
	pr_buf_init(&s.base, 0);
	pr_buf_init(&s.mailbox, 0);
	pr_buf_init(&s.resp, 0);
	if (cursor && (err = pr_mailsrc_cursor_parse(&prev, cursor)))
		goto done;
	if ((err = split_url(&s)) || (err = setup(&s)) ||
	    (err = uid_validity(&s, &validity)) ||
	    (err = pr_buf_addf(&epoch, "%llu", (unsigned long long)validity)))
		goto done;
	if (cursor && strcmp(prev.epoch ? prev.epoch : "", epoch.ptr)) {
		pr_log_info(inst->prefix,
			    "mailbox '%s' on %s: UIDVALIDITY is %s, the cursor "
			    "has '%s': the UIDs were renumbered, reading the "
			    "mailbox again from the beginning",
			    s.mailbox.ptr, s.base.ptr, epoch.ptr,
			    prev.epoch ? prev.epoch : "");
		from_start = true;
	}
	if ((err = pr_buf_addbuf(&mbox_url, &s.base)) ||
	    (err = pr_http_escape(&mbox_url, s.mailbox.ptr)) ||
	    (err = search(&s, mbox_url.ptr, from_start ? 1 : uid_of(prev.low),
			  &uids)) ||
	    (err = pr_mailsrc_parts_init(&parts, from_start ? NULL : &prev)))
		goto done;
	pr_mailsrc_opts_init(&o, inst, ctx->wait, &ctx->trusted,
			     (int64_t)time(NULL));
	o.epoch = epoch.ptr;
	/* a long catch-up in parts (connectors/mailsrc.h) */
	for (i = 0; i < uids.nr; i++) {
		struct one_msg m;

		pr_buf_reset(&url);
		pr_buf_reset(&pos);
		if ((err = pr_buf_addf(&url, "%s;UIDVALIDITY=%s;UID=%llu",
				       mbox_url.ptr, epoch.ptr,
				       (unsigned long long)uids.v[i])) ||
		    (err = pr_buf_addf(&pos, "%020llu",
				       (unsigned long long)uids.v[i])))
			goto done;
		err = request(&s, url.ptr, NULL, "UID FETCH");
		if (err == 1) {
			/* expunged meanwhile, or the mailbox was recreated */
			pr_log_warn(inst->prefix,
				    "message UID %llu of '%s' on %s is gone",
				    (unsigned long long)uids.v[i],
				    s.mailbox.ptr, s.base.ptr);
			err = 0;
			continue;
		}
		if (err)
			goto done;
		m.parts = &parts;
		m.pos = pos.ptr;
		/* one message; the split drops the CRs of IMAP's line ends */
		if ((err = pr_mbox_split(s.resp.ptr ? s.resp.ptr : "",
					 s.resp.len, url.ptr, &mo, add_message,
					 &m)))
			goto done;
		if (i + 1 < uids.nr && pr_mailsrc_parts_full(&parts) &&
		    (err = pr_mailsrc_parts_emit(&parts, false, &o, emit,
						 payload)))
			goto done;
	}
	pr_log_debug(inst->prefix, "read %zu messages of '%s' on %s", uids.nr,
		     s.mailbox.ptr, s.base.ptr);
	err = pr_mailsrc_parts_emit(&parts, true, &o, emit, payload);
done:
	if (err < 0)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	if (s.h)
		curl_easy_cleanup(s.h);
	pr_buf_release(&s.base);
	pr_buf_release(&s.mailbox);
	pr_buf_release(&s.resp);
	pr_buf_release(&mbox_url);
	pr_buf_release(&url);
	pr_buf_release(&pos);
	pr_buf_release(&epoch);
	free(uids.v);
	pr_mailsrc_cursor_release(&prev);
	pr_mailsrc_parts_release(&parts);
	return err;
}

static const struct pr_option imap_options[] = {
	{ "url", PR_OPT_STRING, NULL,
	  "imap://host[:port][/MAILBOX] or imaps://...; TLS is verified",
	  offsetof(struct pr_imap_ctx, url), true, NULL },
	{ "user", PR_OPT_STRING, NULL, "the login name",
	  offsetof(struct pr_imap_ctx, user), true, NULL },
	{ "password", PR_OPT_SECRET, NULL,
	  "the login password (file:PATH or env:NAME)",
	  offsetof(struct pr_imap_ctx, password), true, NULL },
	{ "mailbox", PR_OPT_STRING, NULL,
	  "the mailbox to read when the url names none (default INBOX)",
	  offsetof(struct pr_imap_ctx, mailbox), false, NULL },
	{ "search", PR_OPT_STRING, "ALL",
	  "an IMAP SEARCH filter the messages must match",
	  offsetof(struct pr_imap_ctx, search), false, NULL },
	{ "starttls", PR_OPT_ENUM, "required",
	  "STARTTLS on imap://: required, optional or never",
	  offsetof(struct pr_imap_ctx, starttls), false,
	  pr_mailtls_starttls_choices },
	{ "ca-file", PR_OPT_PATH, NULL,
	  "CA certificates to verify the server with (default: the system's)",
	  offsetof(struct pr_imap_ctx, ca_file), false, NULL },
	{ "timeout", PR_OPT_DURATION, "60s",
	  "how long one IMAP request may take",
	  offsetof(struct pr_imap_ctx, timeout), false, NULL },
	PR_MAILSRC_OPTIONS(struct pr_imap_ctx),
	PR_OPTIONS_END,
};

const struct pr_connector_type pr_connector_imap = {
	.abi = PR_ABI_VERSION,
	.name = "imap",
	.summary = "an IMAP mailbox holding a list's traffic, as a source",
	.caps = PR_CAP_SOURCE,
	.options = imap_options,
	.ctx_size = sizeof(struct pr_imap_ctx),
	.open = imap_open,
	.poll = imap_poll,
};
