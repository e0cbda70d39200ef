#include "base/pr.h"

#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gerrit.h"
#include "gitfetch.h"

/*
 * The ssh side of the gerrit connector (gerrit.h): one libssh2 session
 * with one exec channel running `gerrit stream-events`, read a line at a
 * time without blocking the daemon.
 *
 * Invariants:
 * - The server's host key must be in known-hosts for the host and port
 *   (pr_gitfetch_known_host, the check the git transfers make): an
 *   unknown or changed key ends the connection before anything is sent.
 * - The login is public-key only: ssh-key, else each key the ssh agent
 *   holds.  No password goes over ssh.
 * - Setup (connect, handshake, login, exec) is bounded by the `timeout`
 *   option; reading never blocks longer than the caller's wait.
 * - A keepalive goes out every 15 s of silence, so that a dead peer is
 *   found by a failed write rather than never.
 */

#define KEEPALIVE_S 15

struct pr_gerrit_stream {
	int sock;
	LIBSSH2_SESSION *session;
	LIBSSH2_CHANNEL *channel;
	struct pr_gerrit_ssh_target t;
	struct pr_buf in; /* read, not yet a whole line */
	struct pr_buf err; /* the server's stderr, first 1 KiB */
	bool inited;
};

void pr_gerrit_ssh_target_release(struct pr_gerrit_ssh_target *t)
{
	free(t->user);
	free(t->host);
	memset(t, 0, sizeof(*t));
}

int pr_gerrit_ssh_target_parse(struct pr_gerrit_ssh_target *out,
			       const char *url, const char *user)
{
	const char *p, *end, *at = NULL, *q, *host, *hend, *port = NULL;
	char *stop;
	long n = 22;

	memset(out, 0, sizeof(*out));
	if (strncmp(url, "ssh://", 6))
		return pr_error(PR_ECONFIG, "ssh url '%s': not ssh://", url);
	p = url + 6;
	end = p + strcspn(p, "/?#");
	for (q = p; q < end; q++)
		if (*q == '@')
			at = q;
	host = at ? at + 1 : p;
	if (host < end && *host == '[') {
		hend = memchr(host, ']', (size_t)(end - host));
		if (!hend)
			return pr_error(PR_ECONFIG, "ssh url '%s': bad host",
					url);
		if (hend + 1 < end && hend[1] == ':')
			port = hend + 2;
		host++;
	} else {
		hend = memchr(host, ':', (size_t)(end - host));
		if (hend)
			port = hend + 1;
		else
			hend = end;
	}
	if (hend == host)
		return pr_error(PR_ECONFIG, "ssh url '%s': no host", url);
	if (port) {
		errno = 0;
		n = strtol(port, &stop, 10);
		if (stop != end || errno || n < 1 || n > 65535)
			return pr_error(PR_ECONFIG, "ssh url '%s': bad port",
					url);
	}
	if (!at && (!user || !*user))
		return pr_error(PR_ECONFIG,
				"ssh url '%s': no user (in the URL or the "
				"'user' option)",
				url);
	out->user = at ? pr_strndup(p, (size_t)(at - p)) : pr_strdup(user);
	out->host = pr_strndup(host, (size_t)(hend - host));
	out->port = (int)n;
	return 0;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* libssh2's last error, or `fallback`. */
static const char *ssh_msg(LIBSSH2_SESSION *s, const char *fallback)
{
	char *msg = NULL;

	if (s && libssh2_session_last_error(s, &msg, NULL, 0) && msg && *msg)
		return msg;
	return fallback;
}

/* A TCP connection to host:port within timeout_ms, blocking after. */
static int tcp_connect(int *out, const struct pr_gerrit_ssh_target *t,
		       int64_t timeout_ms)
{
	struct addrinfo hints, *res = NULL, *ai;
	char port[8];
	int rc, fd = -1, soerr = 0, e = 0;
	socklen_t len = sizeof(soerr);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%d", t->port);
	rc = getaddrinfo(t->host, port, &hints, &res);
	if (rc)
		return pr_error(PR_ENET, "ssh '%s' port %d: %s", t->host,
				t->port, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		struct pollfd pfd;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		e = errno;
		if (e == EINPROGRESS) {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			rc = poll(&pfd, 1, (int)timeout_ms);
			soerr = 0;
			if (rc == 1 &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr,
				       &len) == 0 &&
			    !soerr)
				break;
			e = rc == 0 ? ETIMEDOUT : soerr ? soerr : errno;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return pr_error(e == ETIMEDOUT ? PR_ETIMEOUT : PR_ENET,
				"ssh '%s' port %d: %s", t->host, t->port,
				strerror(e));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*out = fd;
	return 0;
}

static int knownhost_type(int hostkey_type)
{
	switch (hostkey_type) {
	case LIBSSH2_HOSTKEY_TYPE_RSA:
		return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
	case LIBSSH2_HOSTKEY_TYPE_DSS:
		return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
	case LIBSSH2_HOSTKEY_TYPE_ED25519:
		return LIBSSH2_KNOWNHOST_KEY_ED25519;
	default:
		return 0;
	}
}

static int check_host_key(struct pr_gerrit_stream *s, const char *known_hosts)
{
	struct pr_buf why = PR_BUF_INIT;
	const char *key;
	size_t len = 0;
	int type = 0, err = 0;

	key = libssh2_session_hostkey(s->session, &len, &type);
	if (!key)
		return pr_error(PR_ENET, "ssh '%s' port %d: no host key",
				s->t.host, s->t.port);
	if (pr_gitfetch_known_host(&why, known_hosts, s->t.host, s->t.port, key,
				   len, knownhost_type(type)))
		err = pr_error(PR_EAUTH, "%s: refused", why.ptr);
	pr_buf_release(&why);
	return err;
}

/* Every key of the ssh agent in turn, until one is taken. */
static int agent_login(struct pr_gerrit_stream *s)
{
	struct libssh2_agent_publickey *id = NULL, *prev = NULL;
	LIBSSH2_AGENT *agent = libssh2_agent_init(s->session);
	int err = PR_EAUTH, rc;

	if (!agent || libssh2_agent_connect(agent) ||
	    libssh2_agent_list_identities(agent)) {
		err = pr_error(PR_EAUTH,
			       "ssh '%s@%s' port %d: no ssh-key and no ssh "
			       "agent to ask (%s)",
			       s->t.user, s->t.host, s->t.port,
			       ssh_msg(s->session, "none"));
		goto done;
	}
	while ((rc = libssh2_agent_get_identity(agent, &id, prev)) == 0) {
		if (!libssh2_agent_userauth(agent, s->t.user, id)) {
			err = 0;
			goto done;
		}
		prev = id;
	}
	err = pr_error(PR_EAUTH,
		       "ssh '%s@%s' port %d: no key of the ssh agent was "
		       "taken",
		       s->t.user, s->t.host, s->t.port);
done:
	if (agent) {
		libssh2_agent_disconnect(agent);
		libssh2_agent_free(agent);
	}
	return err;
}

static int login(struct pr_gerrit_stream *s, const char *key)
{
	if (!key)
		return agent_login(s);
	if (libssh2_userauth_publickey_fromfile_ex(s->session, s->t.user,
						   (unsigned)strlen(s->t.user),
						   NULL, key, NULL))
		return pr_error(PR_EAUTH,
				"ssh '%s@%s' port %d: key '%s' refused: %s",
				s->t.user, s->t.host, s->t.port, key,
				ssh_msg(s->session, "login failed"));
	return 0;
}

int pr_gerrit_stream_open(struct pr_gerrit_stream **out,
			  const struct pr_gerrit_ctx *o, const char *command)
{
	struct pr_gerrit_stream *s = pr_calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	s->sock = -1;
	pr_buf_init(&s->in, PR_LIMIT_GERRIT_EVENT_BYTES + 1);
	pr_buf_init(&s->err, 0);
	if ((err = pr_gerrit_ssh_target_parse(&s->t, o->ssh_url, o->user)))
		goto done;
	if (libssh2_init(0)) {
		err = pr_error(PR_EINTERNAL, "ssh: libssh2 does not start");
		goto done;
	}
	s->inited = true;
	if ((err = tcp_connect(&s->sock, &s->t,
			       o->timeout > 0 ? o->timeout : 60000)))
		goto done;
	s->session = libssh2_session_init();
	if (!s->session) {
		err = pr_error(PR_EINTERNAL, "ssh: no session");
		goto done;
	}
	libssh2_session_set_blocking(s->session, 1);
	libssh2_session_set_timeout(s->session,
				    o->timeout > 0 ? (long)o->timeout : 60000);
	if (libssh2_session_handshake(s->session, s->sock)) {
		err = pr_error(PR_ENET, "ssh '%s' port %d: handshake: %s",
			       s->t.host, s->t.port,
			       ssh_msg(s->session, "failed"));
		goto done;
	}
	if ((err = check_host_key(s, o->known_hosts)) ||
	    (err = login(s, o->ssh_key)))
		goto done;
	s->channel = libssh2_channel_open_session(s->session);
	if (!s->channel || libssh2_channel_exec(s->channel, command)) {
		err = pr_error(PR_ENET, "ssh '%s' port %d: exec '%s': %s",
			       s->t.host, s->t.port, command,
			       ssh_msg(s->session, "refused"));
		goto done;
	}
	libssh2_keepalive_config(s->session, 1, KEEPALIVE_S);
	libssh2_session_set_blocking(s->session, 0);
	*out = s;
	s = NULL;
done:
	pr_gerrit_stream_close(s);
	return err;
}

/* Move one line out of s->in; true when there was one. */
static bool take_line(struct pr_gerrit_stream *s, struct pr_buf *line, int *err)
{
	const char *nl = memchr(s->in.ptr, '\n', s->in.len);
	size_t n, rest;

	if (!nl)
		return false;
	n = (size_t)(nl - s->in.ptr);
	pr_buf_reset(line);
	*err = pr_buf_add(line, s->in.ptr, n && nl[-1] == '\r' ? n - 1 : n);
	rest = s->in.len - n - 1;
	memmove(s->in.ptr, nl + 1, rest);
	pr_buf_setlen(&s->in, rest);
	return true;
}

/* The session ended: PR_ENET with what the server said. */
static int ended(struct pr_gerrit_stream *s, const char *why)
{
	int status = s->channel ? libssh2_channel_get_exit_status(s->channel)
				: 0;

	pr_buf_rtrim(&s->err);
	return pr_error(PR_ENET, "ssh '%s' port %d: stream ended (%s%s%s%s)",
			s->t.host, s->t.port, why, s->err.len ? ": " : "",
			s->err.ptr, status > 0 ? ", exit status non-zero" : "");
}

/* Whatever stderr holds, into s->err (its first 1 KiB). */
static void drain_stderr(struct pr_gerrit_stream *s)
{
	char buf[1024];
	ssize_t n;

	while ((n = libssh2_channel_read_stderr(s->channel, buf, sizeof(buf))) >
	       0) {
		size_t room = s->err.len < 1024 ? 1024 - s->err.len : 0;

		pr_buf_add(&s->err, buf, (size_t)n < room ? (size_t)n : room);
	}
}

int pr_gerrit_stream_line(struct pr_gerrit_stream *s, struct pr_buf *line,
			  int64_t wait_ms)
{
	int64_t until = mono_ms() + (wait_ms > 0 ? wait_ms : 0);
	char buf[16384];
	int next = 0, err = 0;

	for (;;) {
		ssize_t n;

		if (take_line(s, line, &err))
			return err ? err : 1;
		if (s->in.len > PR_LIMIT_GERRIT_EVENT_BYTES)
			return pr_error(PR_ETOOBIG,
					"ssh '%s' port %d: an event line over "
					"%zu bytes",
					s->t.host, s->t.port,
					(size_t)PR_LIMIT_GERRIT_EVENT_BYTES);
		n = libssh2_channel_read(s->channel, buf, sizeof(buf));
		if (n > 0) {
			if ((err = pr_buf_add(&s->in, buf, (size_t)n)))
				return err;
			continue;
		}
		drain_stderr(s);
		if (n == 0 || libssh2_channel_eof(s->channel))
			return ended(s, "closed by the server");
		if (n != LIBSSH2_ERROR_EAGAIN)
			return ended(s, ssh_msg(s->session, "read failed"));
		if (libssh2_keepalive_send(s->session, &next) &&
		    libssh2_session_last_errno(s->session) !=
			    LIBSSH2_ERROR_EAGAIN)
			return ended(s,
				     ssh_msg(s->session, "keepalive failed"));
		{
			int64_t left = until - mono_ms();
			struct pollfd pfd = { s->sock, POLLIN, 0 };

			if (left <= 0)
				return 0;
			if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
				return ended(s, strerror(errno));
		}
	}
}

void pr_gerrit_stream_close(struct pr_gerrit_stream *s)
{
	if (!s)
		return;
	if (s->session) {
		/* a short, blocking goodbye: the peer may be gone */
		libssh2_session_set_blocking(s->session, 1);
		libssh2_session_set_timeout(s->session, 2000);
		if (s->channel)
			libssh2_channel_free(s->channel);
		libssh2_session_disconnect(s->session, "bye");
		libssh2_session_free(s->session);
	}
	if (s->sock >= 0)
		close(s->sock);
	if (s->inited)
		libssh2_exit();
	pr_gerrit_ssh_target_release(&s->t);
	pr_buf_release(&s->in);
	pr_buf_release(&s->err);
	free(s);
}
