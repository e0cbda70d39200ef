#include "base/pr.h"

#include <errno.h>
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine/cfg.h"
#include "engine/graph.h"
#include "engine/store.h"
#include "engine/store_view.h"
#include "hook.h"
#include "metrics.h"
#include "page.h"
#include "web.h"

/* The list page shows this many series, the most recently updated. */
#define LIST_LIMIT 200
/* A body sent with a page request is read and dropped up to this. */
#define PAGE_BODY_MAX (64 * PR_KIB)
/* At most one line per this many seconds about refused hooks. */
#define REFUSAL_LOG_SECONDS 10

struct hook_source {
	char *name;
	char *secret;
	enum pr_hook_kind kind;
	bool queued;
};

struct archive {
	char *sink;
	char *tmpl;
};

struct pr_web {
	struct MHD_Daemon *daemon;
	char *listen; /* core.http as started */
	struct pr_store *st; /* the server thread's */
	struct pr_metrics *metrics;
	struct pr_hook_seen *seen; /* the server thread's */
	/* what follows, under lock: the loop and the server share it */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct hook_source *sources;
	size_t nr_sources;
	size_t nr_queued;
	struct archive *archives;
	size_t nr_archives;
	/* the refused-hook log line's rate (server thread) */
	int64_t refusal_logged;
	unsigned refusals_unlogged;
};

/* One request, from its headers to its answer. */
struct request {
	int64_t start;
	bool answered; /* on its headers alone: the rest is dropped */
	bool hook;
	char *source; /* copies, the sources may be swapped meanwhile */
	char *secret;
	enum pr_hook_kind kind;
	struct pr_hook_mac *mac;
	struct pr_buf body; /* the hook's first bytes, capped */
	bool body_cut;
	size_t total;
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void wipe(char *s)
{
	if (s) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

static void sources_free(struct hook_source *s, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(s[i].name);
		wipe(s[i].secret);
	}
	free(s);
}

static void archives_free(struct archive *a, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(a[i].sink);
		free(a[i].tmpl);
	}
	free(a);
}

/* ---- answers ------------------------------------------------------- */

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status,
			      const char *type, struct pr_buf *body,
			      const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len;
	char *data = pr_buf_detach(body, &len);

	r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(data);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	/* the page needs its inline style and nothing else */
	MHD_add_response_header(
		r, "Content-Security-Policy",
		"default-src 'none'; style-src 'unsafe-inline'; "
		"base-uri 'none'; form-action 'none'; "
		"frame-ancestors 'none'");
	if (allow)
		MHD_add_response_header(r, "Allow", allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status,
			    const char *msg, const char *allow)
{
	struct pr_buf b = PR_BUF_INIT;

	pr_buf_addf(&b, "%s\n", msg);
	return answer(c, status, "text/plain; charset=utf-8", &b, allow);
}

/* ---- the poll queue ------------------------------------------------ */

static void queue(struct pr_web *w, const char *source)
{
	size_t i;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->nr_sources; i++) {
		if (strcmp(w->sources[i].name, source))
			continue;
		if (!w->sources[i].queued) {
			w->sources[i].queued = true;
			w->nr_queued++;
		}
		pthread_cond_signal(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
}

bool pr_web_wait(struct pr_web *w, int64_t ms)
{
	struct timespec ts;
	bool ret;

	if (ms < 0)
		ms = 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	if (!w->nr_queued)
		pthread_cond_timedwait(&w->cond, &w->lock, &ts);
	ret = w->nr_queued > 0;
	pthread_mutex_unlock(&w->lock);
	return ret;
}

void pr_web_take(struct pr_web *w, struct pr_strlist *out)
{
	size_t i;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->nr_sources; i++) {
		if (w->sources[i].queued)
			pr_strlist_add(out, w->sources[i].name);
		w->sources[i].queued = false;
	}
	w->nr_queued = 0;
	pthread_mutex_unlock(&w->lock);
}

/* ---- hooks --------------------------------------------------------- */

static const char *header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* The first part of a hook: which source, is it allowed to come in. */
static enum MHD_Result hook_begin(struct pr_web *w, struct MHD_Connection *c,
				  struct request *r, const char *url,
				  const char *method)
{
	const char *name = url + strlen("/hooks/");
	const char *len = header(c, "Content-Length");
	size_t i;

	if (strcmp(method, "POST")) {
		pr_metrics_hook(w->metrics, NULL, "refused");
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "a hook is a POST",
			    "POST");
	}
	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->nr_sources; i++) {
		if (strcmp(w->sources[i].name, name))
			continue;
		r->source = pr_strdup(name);
		r->secret = pr_strdup(w->sources[i].secret);
		r->kind = w->sources[i].kind;
	}
	pthread_mutex_unlock(&w->lock);
	if (!r->source) {
		pr_metrics_hook(w->metrics, NULL, "unknown");
		return text(c, MHD_HTTP_NOT_FOUND, "no source takes hooks here",
			    NULL);
	}
	if (len && strtoull(len, NULL, 10) > PR_LIMIT_HOOK_BYTES) {
		pr_metrics_hook(w->metrics, r->source, "refused");
		return text(c, MHD_HTTP_CONTENT_TOO_LARGE, "hook too large",
			    NULL);
	}
	r->hook = true;
	r->mac = pr_hook_mac_new(r->secret);
	pr_buf_init(&r->body, PR_LIMIT_HOOK_HINT_BYTES);
	return MHD_YES;
}

static void hook_body(struct request *r, const char *data, size_t len)
{
	pr_hook_mac_update(r->mac, data, len);
	if (!r->body_cut && pr_buf_add(&r->body, data, len) < 0) {
		/* the hint is read from a whole body only */
		r->body_cut = true;
		pr_buf_release(&r->body);
	}
}

/* A bad signature: logged, but not one line per request of a flood. */
static void log_refusal(struct pr_web *w, const struct request *r,
			struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	char who[INET6_ADDRSTRLEN] = "?";
	int64_t now = mono_ms();

	if (ci && ci->client_addr) {
		const struct sockaddr *sa = ci->client_addr;

		if (sa->sa_family == AF_INET)
			inet_ntop(AF_INET,
				  &((const struct sockaddr_in *)sa)->sin_addr,
				  who, sizeof(who));
		else if (sa->sa_family == AF_INET6)
			inet_ntop(AF_INET6,
				  &((const struct sockaddr_in6 *)sa)->sin6_addr,
				  who, sizeof(who));
	}
	if (w->refusal_logged &&
	    now - w->refusal_logged < REFUSAL_LOG_SECONDS * 1000) {
		w->refusals_unlogged++;
		return;
	}
	pr_log_warn("web", "hook for '%s' from %s refused: bad or missing %s%s",
		    r->source, who,
		    r->kind == PR_HOOK_GITHUB	? "X-Hub-Signature-256"
		    : r->kind == PR_HOOK_GITLAB ? "X-Gitlab-Token"
						: "token",
		    w->refusals_unlogged ? " (and more refused before)" : "");
	w->refusal_logged = now;
	w->refusals_unlogged = 0;
}

static enum MHD_Result hook_end(struct pr_web *w, struct MHD_Connection *c,
				struct request *r)
{
	struct pr_hook_req req = { r->kind, r->secret };
	struct pr_buf id = PR_BUF_INIT, hint = PR_BUF_INIT, msg = PR_BUF_INIT;
	enum MHD_Result ret;
	int v;

	req.signature = header(c, "X-Hub-Signature-256");
	if (r->kind == PR_HOOK_GITLAB)
		req.token = header(c, "X-Gitlab-Token");
	else if (r->kind == PR_HOOK_GERRIT)
		req.token = MHD_lookup_connection_value(
			c, MHD_GET_ARGUMENT_KIND, "token");
	req.event = header(c, r->kind == PR_HOOK_GITLAB ? "X-Gitlab-Event"
							: "X-GitHub-Event");
	if (r->kind == PR_HOOK_GITHUB)
		req.delivery = header(c, "X-GitHub-Delivery");
	else if (r->kind == PR_HOOK_GITLAB &&
		 !(req.delivery = header(c, "Idempotency-Key")))
		req.delivery = header(c, "X-Gitlab-Event-UUID");
	req.body = r->body.ptr;
	req.body_len = r->body.len;
	req.body_cut = r->body_cut;
	req.mac = r->mac;
	v = pr_hook_check(&id, &hint, &req);
	if (v == PR_HOOK_UNAUTHORIZED) {
		log_refusal(w, r, c);
		pr_metrics_hook(w->metrics, r->source, "unauthorized");
		ret = text(c, MHD_HTTP_UNAUTHORIZED, "bad signature", NULL);
	} else if (v < 0 || pr_hook_seen_add(w->seen, r->source, id.ptr)) {
		/* a redelivery of what was taken: nothing more to do */
		pr_log_info("web", "hook for '%s': delivery '%s' seen before",
			    r->source, id.ptr);
		pr_metrics_hook(w->metrics, r->source, "replayed");
		ret = text(c, MHD_HTTP_OK, "delivery seen before", NULL);
	} else if (v == PR_HOOK_PING) {
		pr_log_info("web", "hook for '%s': ping", r->source);
		pr_metrics_hook(w->metrics, r->source, "ping");
		ret = text(c, MHD_HTTP_OK, "pong", NULL);
	} else {
		pr_log_info("web", "hook for '%s'%s%s: polling it now",
			    r->source, hint.len ? ": " : "", hint.ptr);
		queue(w, r->source);
		pr_metrics_hook(w->metrics, r->source, "accepted");
		pr_buf_addf(&msg, "polling '%s'", r->source);
		ret = text(c, MHD_HTTP_ACCEPTED, msg.ptr, NULL);
	}
	pr_buf_release(&id);
	pr_buf_release(&hint);
	pr_buf_release(&msg);
	return ret;
}

/* ---- pages --------------------------------------------------------- */

/* Called under w->lock: pr_web_update may swap the archives otherwise. */
static const char *archive_of(const char *sink, void *payload)
{
	struct pr_web *w = payload;
	size_t i;

	for (i = 0; i < w->nr_archives; i++)
		if (!strcmp(w->archives[i].sink, sink))
			return w->archives[i].tmpl;
	return NULL;
}

/* "/series/12" and the like: the id, 0 when the rest is not one. */
static int64_t id_in(const char *rest)
{
	char *end;
	long long v;

	if (*rest < '1' || *rest > '9' || strlen(rest) > 18)
		return 0;
	v = strtoll(rest, &end, 10);
	return *end ? 0 : (int64_t)v;
}

static enum MHD_Result series(struct pr_web *w, struct MHD_Connection *c,
			      int64_t id, bool json)
{
	struct pr_page *p = NULL;
	struct pr_buf b = PR_BUF_INIT;
	enum MHD_Result ret;

	if (pr_page_load(&p, w->st, id, id ? 0 : LIST_LIMIT) < 0) {
		pr_log_error("web", "status page: %s", pr_error_message());
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
			    "the state store cannot be read", NULL);
	}
	if (id && !pr_page_count(p)) {
		pr_page_free(p);
		return text(c, MHD_HTTP_NOT_FOUND, "no such series", NULL);
	}
	pthread_mutex_lock(&w->lock);
	if (json)
		pr_page_json(&b, p, archive_of, w);
	else
		pr_page_html(&b, p, archive_of, w);
	pthread_mutex_unlock(&w->lock);
	pr_page_free(p);
	ret = answer(c, MHD_HTTP_OK,
		     json ? "application/json" : "text/html; charset=utf-8", &b,
		     NULL);
	return ret;
}

static enum MHD_Result page(struct pr_web *w, struct MHD_Connection *c,
			    const char *url, const char *method)
{
	struct pr_buf b = PR_BUF_INIT;
	int64_t pending = 0, rejected = 0;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			    "only GET and HEAD here", "GET, HEAD");
	if (!strcmp(url, "/"))
		return series(w, c, 0, false);
	if (!strcmp(url, "/api/series"))
		return series(w, c, 0, true);
	if (!strncmp(url, "/series/", 8) && id_in(url + 8))
		return series(w, c, id_in(url + 8), false);
	if (!strncmp(url, "/api/series/", 12) && id_in(url + 12))
		return series(w, c, id_in(url + 12), true);
	if (!strcmp(url, "/healthz")) {
		if (pr_store_count_messages(w->st, &pending, &rejected) < 0)
			return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				    "the state store cannot be read", NULL);
		return text(c, MHD_HTTP_OK, "ok", NULL);
	}
	if (!strcmp(url, "/metrics")) {
		if (pr_store_count_messages(w->st, &pending, &rejected) < 0)
			pr_log_warn("web", "metrics: %s", pr_error_message());
		pr_metrics_render(&b, w->metrics, pending, rejected);
		return answer(c, MHD_HTTP_OK,
			      "text/plain; version=0.0.4; charset=utf-8", &b,
			      NULL);
	}
	return text(c, MHD_HTTP_NOT_FOUND, "not found", NULL);
}

/* ---- libmicrohttpd's callbacks -------------------------------------- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct pr_web *w = cls;
	struct request *r = *con_cls;
	enum MHD_Result ret;

	PR_UNUSED(version);
	if (!r) {
		r = pr_calloc(1, sizeof(*r));
		r->start = mono_ms();
		r->body = (struct pr_buf)PR_BUF_INIT;
		*con_cls = r;
		if (strncmp(url, "/hooks/", 7))
			return MHD_YES;
		ret = hook_begin(w, c, r, url, method);
		r->answered = !r->hook;
		return ret;
	}
	/* a request that takes too long is cut, not answered */
	if (mono_ms() - r->start > PR_LIMIT_WEB_REQUEST_SECONDS * 1000)
		return MHD_NO;
	if (*upload_size) {
		r->total += *upload_size;
		if (r->hook && r->total <= PR_LIMIT_HOOK_BYTES)
			hook_body(r, upload, *upload_size);
		*upload_size = 0;
		if (r->total >
		    (r->hook ? PR_LIMIT_HOOK_BYTES : PAGE_BODY_MAX)) {
			if (r->hook)
				pr_metrics_hook(w->metrics, r->source,
						"refused");
			return MHD_NO;
		}
		return MHD_YES;
	}
	if (r->answered)
		return MHD_YES;
	if (r->hook)
		return hook_end(w, c, r);
	return page(w, c, url, method);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	struct request *r = *con_cls;

	PR_UNUSED(cls);
	PR_UNUSED(c);
	PR_UNUSED(toe);
	if (!r)
		return;
	free(r->source);
	wipe(r->secret);
	pr_hook_mac_free(r->mac);
	pr_buf_release(&r->body);
	free(r);
	*con_cls = NULL;
}

static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct pr_buf b = PR_BUF_INIT;

	PR_UNUSED(cls);
	pr_buf_vaddf(&b, fmt, ap);
	pr_buf_rtrim(&b);
	pr_log_debug("web", "libmicrohttpd: %s", b.ptr);
	pr_buf_release(&b);
}

/* ---- start, update, stop ------------------------------------------- */

void pr_web_update(struct pr_web *w, const struct pr_graph *g)
{
	struct hook_source *src, *old_src;
	struct archive *arch, *old_arch;
	size_t i, j, nr_src = 0, nr_arch = 0, old_nr_src, old_nr_arch;

	if (!w)
		return;
	if (!g->http || strcmp(g->http, w->listen))
		pr_log_warn("web",
			    "core.http changed: still on '%s' until a restart",
			    w->listen);
	src = pr_calloc(g->nr_nodes + 1, sizeof(*src));
	arch = pr_calloc(g->nr_nodes + 1, sizeof(*arch));
	for (i = 0; i < g->nr_nodes; i++) {
		const struct pr_graph_node *n = &g->nodes[i];
		const char *t;

		if (!strcmp(n->inst.kind, "source") && n->webhook_secret) {
			src[nr_src].name = pr_strdup(n->inst.name);
			src[nr_src].secret = pr_strdup(n->webhook_secret);
			src[nr_src++].kind = pr_hook_kind_of(n->type);
		}
		if (!strcmp(n->inst.kind, "sink") &&
		    (t = pr_graph_node_string(n, "archive-url"))) {
			arch[nr_arch].sink = pr_strdup(n->inst.name);
			arch[nr_arch++].tmpl = pr_strdup(t);
		}
	}
	pthread_mutex_lock(&w->lock);
	w->nr_queued = 0;
	for (i = 0; i < nr_src; i++)
		for (j = 0; j < w->nr_sources; j++)
			if (w->sources[j].queued &&
			    !strcmp(w->sources[j].name, src[i].name)) {
				src[i].queued = true;
				w->nr_queued++;
			}
	old_src = w->sources;
	old_nr_src = w->nr_sources;
	old_arch = w->archives;
	old_nr_arch = w->nr_archives;
	w->sources = src;
	w->nr_sources = nr_src;
	w->archives = arch;
	w->nr_archives = nr_arch;
	pthread_mutex_unlock(&w->lock);
	sources_free(old_src, old_nr_src);
	archives_free(old_arch, old_nr_arch);
}

/* A listening socket on addr, so that the error can say why not. */
static int listen_on(int *fd, const char *addr)
{
	struct sockaddr_storage sa;
	socklen_t len;
	int one = 1;

	if (pr_cfg_parse_listen(&sa, &len, addr) < 0)
		return pr_error_wrap(PR_ECONFIG, "core.http");
	*fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return pr_error(PR_EIO, "cannot listen on '%s': %s", addr,
				strerror(errno));
	setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* "[::]:80" is IPv6 only: 0.0.0.0 is another address to ask for */
	if (sa.ss_family == AF_INET6)
		setsockopt(*fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(*fd, (struct sockaddr *)&sa, len) < 0 ||
	    listen(*fd, PR_LIMIT_WEB_CONNECTIONS) < 0) {
		int e = errno;

		close(*fd);
		*fd = -1;
		return pr_error(PR_EIO, "cannot listen on '%s': %s", addr,
				strerror(e));
	}
	return 0;
}

/* "http://127.0.0.1:8025/" as bound (the port a ":0" got). */
static void say_where(int fd)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	char host[INET6_ADDRSTRLEN] = "?";
	int port = 0;

	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		return;
	if (sa.ss_family == AF_INET) {
		const struct sockaddr_in *v4 = (const struct sockaddr_in *)&sa;

		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
		port = ntohs(v4->sin_port);
		pr_log_info("web", "listening on http://%s:%d/", host, port);
	} else {
		const struct sockaddr_in6 *v6 =
			(const struct sockaddr_in6 *)&sa;

		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
		port = ntohs(v6->sin6_port);
		pr_log_info("web", "listening on http://[%s]:%d/", host, port);
	}
}

int pr_web_start(struct pr_web **out, const struct pr_graph *g,
		 const char *state, struct pr_metrics *metrics)
{
	struct pr_web *w = NULL;
	pthread_condattr_t ca;
	int err, fd = -1;

	*out = NULL;
	if (!g->http)
		return 0;
	w = pr_calloc(1, sizeof(*w));
	w->listen = pr_strdup(g->http);
	w->metrics = metrics;
	w->seen = pr_hook_seen_new();
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	pr_web_update(w, g);
	if ((err = pr_store_open(&w->st, state)) ||
	    (err = listen_on(&fd, g->http)))
		goto done;
	say_where(fd);
	/* one thread of libmicrohttpd's own answers every request */
	w->daemon = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
		on_request, w, MHD_OPTION_EXTERNAL_LOGGER, on_log, w,
		MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)PR_LIMIT_WEB_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)PR_LIMIT_WEB_IDLE_SECONDS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)PR_LIMIT_WEB_HEADER_BYTES, MHD_OPTION_NOTIFY_COMPLETED,
		on_done, w, MHD_OPTION_END);
	if (!w->daemon) {
		close(fd);
		err = pr_error(PR_EIO, "cannot serve on '%s'", g->http);
		goto done;
	}
done:
	if (err) {
		pr_web_stop(w);
		w = NULL;
	}
	*out = w;
	return err;
}

void pr_web_stop(struct pr_web *w)
{
	if (!w)
		return;
	/* closes the listening socket and waits for its thread */
	if (w->daemon)
		MHD_stop_daemon(w->daemon);
	pr_store_free(w->st);
	pr_hook_seen_free(w->seen);
	sources_free(w->sources, w->nr_sources);
	archives_free(w->archives, w->nr_archives);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w->listen);
	free(w);
}
