#include "pr.h"

#include <git2.h>
#include <libssh2.h>
#include <stdlib.h>

#include "gitfetch.h"

/* Bytes kept as they are in a cache directory name; the rest is %XX. */
static bool plain_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

int pr_gitfetch_escape(struct pr_buf *out, const char *name)
{
	const unsigned char *p;
	int err = 0;

	/* "grp/sub/proj" is one directory: a name cannot climb out */
	for (p = (const unsigned char *)name; *p && !err; p++)
		err = plain_byte(*p) ? pr_buf_addch(out, *p)
				     : pr_buf_addf(out, "%%%02X", *p);
	return err;
}

int pr_gitfetch_safe_url(struct pr_buf *out, const char *url)
{
	const char *scheme = strstr(url, "://");
	const char *host, *at, *colon;
	size_t auth_len;

	if (!scheme)
		return pr_buf_adds(out, url);
	host = scheme + 3;
	auth_len = strcspn(host, "/?#");
	/* the last '@' before the path ends the user part */
	for (at = NULL, colon = host; colon < host + auth_len; colon++)
		if (*colon == '@')
			at = colon;
	if (!at)
		return pr_buf_adds(out, url);
	colon = memchr(host, ':', (size_t)(at - host));
	if (!colon)
		return pr_buf_adds(out, url);
	return pr_buf_addf(out, "%.*s:<redacted>%s", (int)(colon - url), url,
			   at);
}

int pr_gitfetch_open_cache(git_repository **out, const char *dir)
{
	const git_error *e;

	*out = NULL;
	if (git_repository_open_bare(out, dir) == 0 ||
	    git_repository_init(out, dir, 1) == 0)
		return 0;
	e = git_error_last();
	return pr_error(PR_EIO, "cache repository '%s': %s", dir,
			e && e->message ? e->message : "cannot create");
}

/*
 * Asked only when the server wants credentials.  Each kind once: libgit2
 * asks again when an answer was refused, and a second try of the same
 * answer would only loop.
 */
static int credentials(git_credential **out, const char *url,
		       const char *user_from_url, unsigned int allowed,
		       void *payload)
{
	struct pr_gitfetch_cb *c = payload;
	const struct pr_gitfetch_auth *a = c->auth;
	const char *user = user_from_url && *user_from_url ? user_from_url
							   : a->user;

	PR_UNUSED(url);
	if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) && a->user &&
	    a->password && !(c->tried & GIT_CREDENTIAL_USERPASS_PLAINTEXT)) {
		c->tried |= GIT_CREDENTIAL_USERPASS_PLAINTEXT;
		return git_credential_userpass_plaintext_new(out, a->user,
							     a->password);
	}
	if ((allowed & GIT_CREDENTIAL_USERNAME) && user &&
	    !(c->tried & GIT_CREDENTIAL_USERNAME)) {
		c->tried |= GIT_CREDENTIAL_USERNAME;
		return git_credential_username_new(out, user);
	}
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) && user &&
	    !(c->tried & GIT_CREDENTIAL_SSH_KEY)) {
		c->tried |= GIT_CREDENTIAL_SSH_KEY;
		if (a->ssh_key)
			return git_credential_ssh_key_new(out, user, NULL,
							  a->ssh_key, NULL);
		return git_credential_ssh_key_from_agent(out, user);
	}
	/* libgit2's own words would be "no callback set" */
	git_error_set_str(GIT_ERROR_NET,
			  c->tried
				  ? "the server refused the credentials offered"
				  : "the server asks for credentials and none "
				    "are configured");
	return GIT_EAUTH;
}

int pr_gitfetch_ssh_port(const char *url)
{
	const char *p = strstr(url, "://"), *end, *q;
	long port;

	if (!p)
		return 22; /* scp-like host:path */
	p += 3;
	end = p + strcspn(p, "/");
	/* the host follows the last '@'; an IPv6 one is in brackets */
	for (q = p; q < end; q++)
		if (*q == '@')
			p = q + 1;
	if (p < end && *p == '[') {
		if (!(q = memchr(p, ']', (size_t)(end - p))))
			return 22;
		p = q;
	}
	q = memchr(p, ':', (size_t)(end - p));
	if (!q || q + 1 >= end || q[1] < '0' || q[1] > '9')
		return 22;
	port = strtol(q + 1, NULL, 10);
	return port > 0 && port < 65536 ? (int)port : 22;
}

/* libgit2's raw host key type as libssh2's known_hosts type. */
static int knownhost_type(git_cert_ssh_raw_type_t t)
{
	switch (t) {
	case GIT_CERT_SSH_RAW_TYPE_RSA:
		return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
	case GIT_CERT_SSH_RAW_TYPE_DSS:
		return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
	case GIT_CERT_SSH_RAW_TYPE_KEY_ECDSA_256:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
	case GIT_CERT_SSH_RAW_TYPE_KEY_ECDSA_384:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
	case GIT_CERT_SSH_RAW_TYPE_KEY_ECDSA_521:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
	case GIT_CERT_SSH_RAW_TYPE_KEY_ED25519:
		return LIBSSH2_KNOWNHOST_KEY_ED25519;
	default:
		return 0;
	}
}

/*
 * An ssh host key is taken only when the known_hosts file holds it for
 * the host (and port), as ssh's StrictHostKeyChecking=yes.  libgit2's own
 * verdict (`valid`, from ~/.ssh/known_hosts) is not used: the file is the
 * configured one.  TLS is left to libgit2's own check (GIT_PASSTHROUGH).
 */
static int check_host(git_cert *cert, int valid, const char *host,
		      void *payload)
{
	const struct pr_gitfetch_cb *c = payload;
	const git_cert_hostkey *key = (const git_cert_hostkey *)cert;
	struct pr_buf file = PR_BUF_INIT, why = PR_BUF_INIT;
	LIBSSH2_SESSION *session = NULL;
	LIBSSH2_KNOWNHOSTS *hosts = NULL;
	const char *home = getenv("HOME");
	int type, port, rc = -1;

	PR_UNUSED(valid);
	if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
		return GIT_PASSTHROUGH;
	port = pr_gitfetch_ssh_port(c->url);
	if (c->auth->known_hosts)
		pr_buf_adds(&file, c->auth->known_hosts);
	else if (home && *home)
		pr_buf_addf(&file, "%s/.ssh/known_hosts", home);
	type = knownhost_type(key->raw_type);
	if (!(key->type & GIT_CERT_SSH_RAW) || !type) {
		pr_buf_addf(&why,
			    "host key of '%s': a type patchrelay cannot "
			    "check",
			    host);
		goto done;
	}
	if (!file.len) {
		pr_buf_addf(&why,
			    "host key of '%s': no known_hosts file (HOME "
			    "is not set)",
			    host);
		goto done;
	}
	if (!(session = libssh2_session_init()) ||
	    !(hosts = libssh2_knownhost_init(session))) {
		pr_buf_adds(&why, "cannot read known hosts: out of memory");
		goto done;
	}
	if (libssh2_knownhost_readfile(hosts, file.ptr,
				       LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
		pr_buf_addf(&why, "host key of '%s': cannot read '%s'", host,
			    file.ptr);
		goto done;
	}
	switch (libssh2_knownhost_checkp(
		hosts, host, port, key->hostkey, key->hostkey_len,
		LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
			type,
		NULL)) {
	case LIBSSH2_KNOWNHOST_CHECK_MATCH:
		rc = 0;
		break;
	case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
		pr_buf_addf(&why,
			    "host key of '%s' port %d does not match the one "
			    "in '%s'",
			    host, port, file.ptr);
		break;
	default:
		pr_buf_addf(&why, "host key of '%s' port %d is not in '%s'",
			    host, port, file.ptr);
	}
done:
	if (rc)
		git_error_set_str(GIT_ERROR_SSH, why.ptr);
	if (hosts)
		libssh2_knownhost_free(hosts);
	if (session)
		libssh2_session_free(session);
	pr_buf_release(&file);
	pr_buf_release(&why);
	return rc;
}

void pr_gitfetch_callbacks(git_remote_callbacks *out, struct pr_gitfetch_cb *cb,
			   const struct pr_gitfetch_auth *auth, const char *url)
{
	static const struct pr_gitfetch_auth none = { NULL, NULL, NULL, NULL };

	cb->auth = auth ? auth : &none;
	cb->url = url;
	cb->tried = 0;
	out->credentials = credentials;
	out->certificate_check = check_host;
	out->payload = cb;
}

/* The failure as "fetch WHAT from 'URL': why", the password kept out. */
static int fetch_fail(int code, const char *what, const char *url,
		      const struct pr_gitfetch_auth *auth)
{
	const git_error *e = git_error_last();
	struct pr_buf safe = PR_BUF_INIT, why = PR_BUF_INIT;
	const char *msg = e && e->message ? e->message : "failed";
	const char *pw = auth ? auth->password : NULL;
	const char *hit;
	int err;

	pr_gitfetch_safe_url(&safe, url);
	/* libgit2 may quote the URL it was given */
	for (; pw && *pw && (hit = strstr(msg, pw)); msg = hit + strlen(pw))
		pr_buf_addf(&why, "%.*s<redacted>", (int)(hit - msg), msg);
	pr_buf_adds(&why, msg);
	err = pr_error(code, "fetch %s from '%s': %s", what, safe.ptr,
		       why.ptr ? why.ptr : "failed");
	pr_buf_release(&safe);
	pr_buf_release(&why);
	return err;
}

/* PR_ENOENT naming the first spec whose source heads does not hold. */
static int check_advertised(git_remote *remote, const char *const *specs,
			    size_t nr, const char *what, const char *url)
{
	const git_remote_head **heads;
	size_t n, i, j;

	if (git_remote_ls(&heads, &n, remote) < 0)
		return fetch_fail(PR_ENET, what, url, NULL);
	for (i = 0; i < nr; i++) {
		const char *src = specs[i] + (specs[i][0] == '+');
		size_t len = strcspn(src, ":");
		struct pr_buf safe = PR_BUF_INIT;
		int err;

		for (j = 0; j < n; j++)
			if (strlen(heads[j]->name) == len &&
			    !strncmp(heads[j]->name, src, len))
				break;
		if (j < n)
			continue;
		pr_gitfetch_safe_url(&safe, url);
		err = pr_error(PR_ENOENT,
			       "fetch %s from '%s': the remote has no '%.*s'",
			       what, safe.ptr, (int)len, src);
		pr_buf_release(&safe);
		return err;
	}
	return 0;
}

int pr_gitfetch(git_repository *repo, const char *url, const char *const *specs,
		size_t nr, const struct pr_gitfetch_auth *auth,
		const char *what)
{
	git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
	git_remote_create_options create = GIT_REMOTE_CREATE_OPTIONS_INIT;
	git_remote *remote = NULL;
	struct pr_gitfetch_cb cred;
	git_strarray refspecs = { (char **)specs, nr };
	int err = 0, rc;

	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	opts.prune = GIT_FETCH_NO_PRUNE;
	opts.update_fetchhead = 0;
	pr_gitfetch_callbacks(&opts.callbacks, &cred, auth, url);
	create.repository = repo;
	create.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
	if (git_remote_create_with_opts(&remote, url, &create) < 0) {
		err = fetch_fail(PR_EINVAL, what, url, cred.auth);
		goto done;
	}
	/* connect, see that each ref is there, then what git_remote_fetch does */
	rc = git_remote_connect(remote, GIT_DIRECTION_FETCH, &opts.callbacks,
				NULL, NULL);
	if (rc < 0) {
		err = fetch_fail(rc == GIT_EAUTH ? PR_EAUTH : PR_ENET, what,
				 url, cred.auth);
		goto done;
	}
	if ((err = check_advertised(remote, specs, nr, what, url)))
		goto done;
	if ((rc = git_remote_download(remote, &refspecs, &opts)) < 0 ||
	    (rc = git_remote_update_tips(remote, &opts.callbacks, 0,
					 GIT_REMOTE_DOWNLOAD_TAGS_NONE, NULL)) <
		    0)
		err = fetch_fail(rc == GIT_EAUTH ? PR_EAUTH : PR_ENET, what,
				 url, cred.auth);
done:
	if (remote)
		git_remote_disconnect(remote);
	git_remote_free(remote);
	return err;
}
