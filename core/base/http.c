#include "base/pr.h"

#include <ctype.h>
#include <curl/curl.h>
#include <fcntl.h>

#include "base/http.h"
#include "base/trace.h"

/*
 * One easy handle per request.  A client with a share (pr_http_share_new)
 * leaves its connection in the share's cache for the next request; libcurl
 * checks a cached connection before it reuses it and, when the server
 * closed it (or closes it as the request goes out, before any answer),
 * sends the request again once on a new connection.
 */

struct recv_ctx {
	struct pr_http_response *resp;
	int err; /* the first body error (the cap) */
};

/*
 * A kept connection outlives the request: it must not leak into the
 * commands a check runs (exec, kernel-ci), which would hold it open.
 */
static int on_socket(void *payload, curl_socket_t fd, curlsocktype purpose)
{
	PR_UNUSED(payload);
	PR_UNUSED(purpose);
	fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
	return CURL_SOCKOPT_OK;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *payload)
{
	struct recv_ctx *r = payload;
	size_t n = size * nmemb;

	if (r->err)
		return 0;
	r->err = pr_buf_add(&r->resp->body, data, n);
	return r->err ? 0 : n;
}

/* A header value without surrounding whitespace, malloc'ed. */
static char *header_value(const char *p, size_t n)
{
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	return pr_strndup(p, n);
}

static int64_t header_int(const char *v)
{
	char *end;
	long long x;

	if (!*v)
		return -1;
	x = strtoll(v, &end, 10);
	return *end || x < 0 ? -1 : (int64_t)x;
}

static void set_str(char **slot, const char *p, size_t n)
{
	free(*slot);
	*slot = header_value(p, n);
}

static void set_int(int64_t *slot, const char *p, size_t n)
{
	char *v = header_value(p, n);

	*slot = header_int(v);
	free(v);
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *payload)
{
	struct recv_ctx *r = payload;
	struct pr_http_response *resp = r->resp;
	size_t n = size * nmemb, klen;
	const char *colon = memchr(data, ':', n), *v;

	/* a new status line (after a 100 or a redirect) starts over */
	if (n >= 5 && !memcmp(data, "HTTP/", 5)) {
		pr_http_response_release(resp);
		pr_buf_init(&resp->body, resp->body.cap);
		resp->ratelimit_remaining = -1;
		resp->ratelimit_reset = -1;
		resp->retry_after = -1;
		return n;
	}
	if (!colon)
		return n;
	klen = (size_t)(colon - data);
	v = colon + 1;
#define IS(name) (klen == sizeof(name) - 1 && !strncasecmp(data, name, klen))
	if (IS("etag"))
		set_str(&resp->etag, v, n - klen - 1);
	else if (IS("link"))
		set_str(&resp->link, v, n - klen - 1);
	else if (IS("x-next-page"))
		set_str(&resp->next_page, v, n - klen - 1);
	else if (IS("x-total"))
		set_str(&resp->total, v, n - klen - 1);
	else if (IS("x-ratelimit-remaining") || IS("ratelimit-remaining"))
		set_int(&resp->ratelimit_remaining, v, n - klen - 1);
	else if (IS("x-ratelimit-reset") || IS("ratelimit-reset"))
		set_int(&resp->ratelimit_reset, v, n - klen - 1);
	else if (IS("retry-after"))
		set_int(&resp->retry_after, v, n - klen - 1);
#undef IS
	return n;
}

void pr_http_response_release(struct pr_http_response *resp)
{
	pr_buf_release(&resp->body);
	free(resp->etag);
	free(resp->link);
	free(resp->next_page);
	free(resp->total);
	resp->etag = resp->link = resp->next_page = resp->total = NULL;
	resp->status = 0;
}

int pr_http_request(struct pr_http_response *resp,
		    const struct pr_http_client *c, const char *method,
		    const char *url, const char *json_body, const char *etag)
{
	struct recv_ctx r = { resp, 0 };
	struct pr_trace trace;
	struct curl_slist *hdrs = NULL;
	struct pr_buf line = PR_BUF_INIT;
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *h = NULL;
	CURLcode rc;
	size_t i;
	int err = 0;

	memset(resp, 0, sizeof(*resp));
	pr_buf_init(&resp->body,
		    c->max_body ? c->max_body : PR_LIMIT_HTTP_BYTES);
	resp->ratelimit_remaining = -1;
	resp->ratelimit_reset = -1;
	resp->retry_after = -1;
	h = curl_easy_init();
	if (!h) {
		err = pr_error(PR_EINTERNAL, "%s '%s': cannot start libcurl",
			       method, url);
		goto done;
	}
	if (c->token && c->auth_header) {
		if ((err = pr_buf_addf(&line, c->auth_header, c->token)))
			goto done;
		hdrs = curl_slist_append(hdrs, line.ptr);
		/* the token leaves no copy behind in our heap */
		memset(line.ptr, 0, line.len);
		pr_buf_reset(&line);
	}
	if (etag && *etag) {
		if ((err = pr_buf_addf(&line, "If-None-Match: %s", etag)))
			goto done;
		hdrs = curl_slist_append(hdrs, line.ptr);
		pr_buf_reset(&line);
	}
	if (json_body)
		hdrs = curl_slist_append(hdrs,
					 "Content-Type: application/json");
	/* no "Expect: 100-continue" round trip */
	hdrs = curl_slist_append(hdrs, "Expect:");
	for (i = 0; c->headers && c->headers[i]; i++)
		hdrs = curl_slist_append(hdrs, c->headers[i]);

	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (c->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	curl_easy_setopt(h, CURLOPT_USERAGENT,
			 c->user_agent ? c->user_agent : "patchrelay");
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
			 (long)(c->timeout_ms > 0 ? c->timeout_ms : 60000));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
	if (c->share)
		curl_easy_setopt(h, CURLOPT_SHARE, (CURLSH *)c->share);
	curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, on_socket);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	if (json_body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, json_body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE,
				 (long)strlen(json_body));
	} else if (!strcmp(method, "GET")) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	}
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &r);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &r);
	pr_trace_init(&trace, "http", c->log_prefix);
	pr_trace_attach(h, &trace);

	rc = curl_easy_perform(h);
	if (r.err) {
		err = pr_error_wrap(r.err, "%s '%s': response body", method,
				    url);
		goto done;
	}
	if (rc != CURLE_OK) {
		const char *detail = *errbuf ? errbuf : curl_easy_strerror(rc);

		if (pr_http_tls_failure(rc)) {
			pr_http_tls_reason(&line, rc, detail, c->ca_file);
			detail = line.ptr;
		}
		err = pr_error(rc == CURLE_OPERATION_TIMEDOUT ? PR_ETIMEOUT
							      : PR_ENET,
			       "%s '%s' failed: %s", method, url, detail);
		goto done;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
	pr_log_debug(c->log_prefix ? c->log_prefix : "http", "%s %s: %ld",
		     method, url, resp->status);
done:
	curl_slist_free_all(hdrs);
	if (h)
		curl_easy_cleanup(h);
	pr_buf_release(&line);
	return err;
}

void *pr_http_share_new(void)
{
	CURLSH *sh = curl_share_init();

	if (sh && (curl_share_setopt(sh, CURLSHOPT_SHARE,
				     CURL_LOCK_DATA_CONNECT) != CURLSHE_OK ||
		   curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) !=
			   CURLSHE_OK)) {
		curl_share_cleanup(sh);
		sh = NULL;
	}
	return sh;
}

void pr_http_share_free(void *share)
{
	if (share)
		curl_share_cleanup((CURLSH *)share);
}

bool pr_http_tls_failure(int rc)
{
	return rc == CURLE_SSL_CONNECT_ERROR ||
	       rc == CURLE_PEER_FAILED_VERIFICATION ||
	       rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_SSL_CERTPROBLEM;
}

int pr_http_tls_reason(struct pr_buf *out, int rc, const char *detail,
		       const char *ca_file)
{
	switch (rc) {
	case CURLE_PEER_FAILED_VERIFICATION:
		if (ca_file)
			return pr_buf_addf(out,
					   "the server's certificate is not "
					   "trusted (%s): no CA of ca-file "
					   "'%s' signed it, or it does not "
					   "name the host",
					   detail, ca_file);
		return pr_buf_addf(out,
				   "the server's certificate is not trusted "
				   "(%s): none of the system's CAs signed it; "
				   "set ca-file to the CA that did",
				   detail);
	case CURLE_SSL_CACERT_BADFILE:
		if (ca_file)
			return pr_buf_addf(out,
					   "ca-file '%s' holds no usable CA "
					   "certificate (%s)",
					   ca_file, detail);
		return pr_buf_addf(out,
				   "the system's CA certificates cannot be "
				   "read (%s)",
				   detail);
	case CURLE_SSL_CONNECT_ERROR:
		return pr_buf_addf(out, "the TLS handshake failed (%s)",
				   detail);
	default:
		return pr_buf_addf(out, "TLS failed (%s)", detail);
	}
}

bool pr_http_rate_limited(int64_t *until, const struct pr_http_response *resp,
			  int64_t now)
{
	long s = resp->status;

	if (s != 403 && s != 429 && s != 503)
		return false;
	if (resp->retry_after >= 0) {
		*until = now + resp->retry_after;
		return true;
	}
	if (s != 503 && resp->ratelimit_remaining == 0 &&
	    resp->ratelimit_reset > 0) {
		*until = resp->ratelimit_reset > now ? resp->ratelimit_reset
						     : now + 1;
		return true;
	}
	if (s == 429) {
		*until = now + 60;
		return true;
	}
	return false;
}

/* Whether the rel value v[0..n) (space-separated types) holds rel. */
static bool rel_has(const char *v, size_t n, const char *rel)
{
	size_t len = strlen(rel);

	while (n) {
		size_t t = 0;

		while (n && *v == ' ') {
			v++;
			n--;
		}
		while (t < n && v[t] != ' ')
			t++;
		if (t && t == len && !strncasecmp(v, rel, len))
			return true;
		v += t;
		n -= t;
	}
	return false;
}

int pr_http_link_rel(struct pr_buf *out, const char *link, const char *rel)
{
	const char *p = link;

	/* link: <URL>; rel="next", <URL>; rel="last" (RFC 8288) */
	while (p && *p) {
		const char *lt = strchr(p, '<'), *gt, *end, *q;

		if (!lt || !(gt = strchr(lt, '>')))
			return 0;
		end = strchr(gt, ',');
		if (!end)
			end = gt + strlen(gt);
		/* the parameters: ; name=value or ; name="value" */
		for (q = gt + 1; q < end;) {
			const char *name, *v;
			size_t nlen, vlen;

			while (q < end &&
			       (*q == ';' || *q == ' ' || *q == '\t'))
				q++;
			name = q;
			while (q < end && *q != '=' && *q != ';')
				q++;
			nlen = (size_t)(q - name);
			while (nlen && (name[nlen - 1] == ' '))
				nlen--;
			if (q >= end || *q != '=')
				continue;
			q++;
			while (q < end && *q == ' ')
				q++;
			if (q < end && *q == '"') {
				v = ++q;
				while (q < end && *q != '"')
					q++;
				vlen = (size_t)(q - v);
				if (q < end)
					q++;
			} else {
				v = q;
				while (q < end && *q != ';')
					q++;
				vlen = (size_t)(q - v);
				while (vlen && v[vlen - 1] == ' ')
					vlen--;
			}
			if (nlen == 3 && !strncasecmp(name, "rel", 3) &&
			    rel_has(v, vlen, rel)) {
				int err = pr_buf_add(out, lt + 1,
						     (size_t)(gt - lt - 1));

				return err ? err : 1;
			}
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

int pr_http_escape(struct pr_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int err = 0;

	for (; *p && !err; p++) {
		if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' ||
		    *p == '~')
			err = pr_buf_addch(out, *p);
		else
			err = pr_buf_addf(out, "%%%02X", *p);
	}
	return err;
}
