#include "base/pr.h"

#include <git2.h>
#include <libssh2.h>
#include <stdlib.h>

#include "gitfetch.h"
#include "gitnet.h"

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

int pr_gitfetch_known_host(struct pr_buf *why, const char *known_hosts,
			   const char *host, int port, const char *key,
			   size_t len, int type)
{
	struct pr_buf file = PR_BUF_INIT;
	LIBSSH2_SESSION *session = NULL;
	LIBSSH2_KNOWNHOSTS *hosts = NULL;
	const char *home = getenv("HOME");
	int rc = -1;

	if (known_hosts)
		pr_buf_adds(&file, known_hosts);
	else if (home && *home)
		pr_buf_addf(&file, "%s/.ssh/known_hosts", home);
	if (!type) {
		pr_buf_addf(why,
			    "host key of '%s': a type patchrelay cannot "
			    "check",
			    host);
		goto done;
	}
	if (!file.len) {
		pr_buf_addf(why,
			    "host key of '%s': no known_hosts file (HOME "
			    "is not set)",
			    host);
		goto done;
	}
	if (!(session = libssh2_session_init()) ||
	    !(hosts = libssh2_knownhost_init(session))) {
		pr_buf_adds(why, "cannot read known hosts: out of memory");
		goto done;
	}
	if (libssh2_knownhost_readfile(hosts, file.ptr,
				       LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
		pr_buf_addf(why, "host key of '%s': cannot read '%s'", host,
			    file.ptr);
		goto done;
	}
	switch (libssh2_knownhost_checkp(hosts, host, port, key, len,
					 LIBSSH2_KNOWNHOST_TYPE_PLAIN |
						 LIBSSH2_KNOWNHOST_KEYENC_RAW |
						 type,
					 NULL)) {
	case LIBSSH2_KNOWNHOST_CHECK_MATCH:
		rc = 0;
		break;
	case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
		pr_buf_addf(why,
			    "host key of '%s' port %d does not match the one "
			    "in '%s'",
			    host, port, file.ptr);
		break;
	default:
		pr_buf_addf(why, "host key of '%s' port %d is not in '%s'",
			    host, port, file.ptr);
	}
done:
	if (hosts)
		libssh2_knownhost_free(hosts);
	if (session)
		libssh2_session_free(session);
	pr_buf_release(&file);
	return rc;
}

/*
 * A TLS certificate libgit2 did not verify: its words in parentheses when
 * it left any (the first flag of mbed TLS's verdict, which may say "CN
 * mismatch" for a certificate nobody signed), and what to change.
 */
static int tls_refused(const struct pr_gitfetch_auth *a)
{
	const git_error *e = git_error_last();
	struct pr_buf why = PR_BUF_INIT;

	/* libgit2 1.5's http client takes its own words away before asking */
	pr_buf_adds(&why, "the server's certificate is not trusted");
	if (e && e->message)
		pr_buf_addf(&why, " (%s)", e->message);
	pr_buf_adds(&why, ": ");
	if (a->ca_file)
		pr_buf_addf(&why,
			    "no CA of ca-file '%s' signed it, or it does "
			    "not name the host",
			    a->ca_file);
	else
		pr_buf_adds(&why, "none of the system's CAs signed it, or it "
				  "does not name the host; set ca-file to "
				  "the CA that did");
	git_error_set_str(GIT_ERROR_SSL, why.ptr);
	pr_buf_release(&why);
	return GIT_ECERTIFICATE;
}

int pr_gitfetch_trust(const struct pr_gitfetch_auth *auth)
{
	const git_error *e;

	if (!auth || !auth->ca_file ||
	    git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, auth->ca_file,
			     NULL) == 0)
		return 0;
	e = git_error_last();
	return pr_error(PR_ECONFIG, "ca-file '%s': %s", auth->ca_file,
			e && e->message ? e->message : "cannot be read");
}

/*
 * An ssh host key is taken only when the known_hosts file holds it for
 * the host (and port), as ssh's StrictHostKeyChecking=yes.  libgit2's own
 * verdict (`valid`, from ~/.ssh/known_hosts) is not used: the file is the
 * configured one.  A TLS certificate is libgit2's to verify; one it did
 * not is refused with what to change.
 */
static int check_host(git_cert *cert, int valid, const char *host,
		      void *payload)
{
	const struct pr_gitfetch_cb *c = payload;
	const git_cert_hostkey *key = (const git_cert_hostkey *)cert;
	struct pr_buf why = PR_BUF_INIT;
	int rc;

	if (cert->cert_type == GIT_CERT_X509)
		return valid ? 0 : tls_refused(c->auth);
	if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
		return GIT_PASSTHROUGH;
	rc = pr_gitfetch_known_host(&why, c->auth->known_hosts, host,
				    pr_gitfetch_ssh_port(c->url), key->hostkey,
				    key->hostkey_len,
				    key->type & GIT_CERT_SSH_RAW
					    ? knownhost_type(key->raw_type)
					    : 0);
	if (rc)
		git_error_set_str(GIT_ERROR_SSH, why.ptr);
	pr_buf_release(&why);
	return rc;
}

void pr_gitfetch_callbacks(git_remote_callbacks *out, struct pr_gitfetch_cb *cb,
			   const struct pr_gitfetch_auth *auth, const char *url)
{
	static const struct pr_gitfetch_auth none = { NULL, NULL, NULL,
						      NULL, 0,	  NULL };

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

/* Does heads[0..n) hold the ref named by ref[0..len). */
static bool advertised(const git_remote_head **heads, size_t n, const char *ref,
		       size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(heads[i]->name) == len &&
		    !strncmp(heads[i]->name, ref, len))
			return true;
	return false;
}

/* PR_ENOENT naming the first spec whose source heads does not hold. */
static int check_advertised(git_remote *remote, const char *const *specs,
			    size_t nr, const char *what, const char *url)
{
	const git_remote_head **heads;
	size_t n, i;

	if (git_remote_ls(&heads, &n, remote) < 0)
		return fetch_fail(PR_ENET, what, url, NULL);
	for (i = 0; i < nr; i++) {
		const char *src = specs[i] + (specs[i][0] == '+');
		size_t len = strcspn(src, ":");
		struct pr_buf safe = PR_BUF_INIT;
		int err;

		if (advertised(heads, n, src, len))
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

/* Make the anonymous remote for url in repo and connect it for a fetch. */
static int fetch_connect(git_remote **out, git_repository *repo,
			 const char *url, git_fetch_options *opts,
			 struct pr_gitfetch_cb *cred,
			 const struct pr_gitfetch_auth *auth, const char *what)
{
	git_remote_create_options create = GIT_REMOTE_CREATE_OPTIONS_INIT;
	int rc;

	*out = NULL;
	opts->download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	opts->prune = GIT_FETCH_NO_PRUNE;
	opts->update_fetchhead = 0;
	pr_gitfetch_callbacks(&opts->callbacks, cred, auth, url);
	create.repository = repo;
	create.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
	if (git_remote_create_with_opts(out, url, &create) < 0)
		return fetch_fail(PR_EINVAL, what, url, cred->auth);
	rc = git_remote_connect(*out, GIT_DIRECTION_FETCH, &opts->callbacks,
				NULL, NULL);
	if (rc < 0)
		return fetch_fail(rc == GIT_EAUTH ? PR_EAUTH : PR_ENET, what,
				  url, cred->auth);
	return 0;
}

/* What git_remote_fetch does once connected: download, update the refs. */
static int fetch_download(git_remote *remote, const char *const *specs,
			  size_t nr, git_fetch_options *opts, const char *what,
			  const char *url, const struct pr_gitfetch_auth *auth)
{
	git_strarray refspecs = { (char **)specs, nr };
	int rc;

	if ((rc = git_remote_download(remote, &refspecs, opts)) < 0 ||
	    (rc = git_remote_update_tips(remote, &opts->callbacks, 0,
					 GIT_REMOTE_DOWNLOAD_TAGS_NONE, NULL)) <
		    0)
		return fetch_fail(rc == GIT_EAUTH ? PR_EAUTH : PR_ENET, what,
				  url, auth);
	return 0;
}

static void fetch_close(git_remote *remote)
{
	if (remote)
		git_remote_disconnect(remote);
	git_remote_free(remote);
}

static int fetch_here(git_repository *repo, const char *url,
		      const char *const *specs, size_t nr,
		      const struct pr_gitfetch_auth *auth, const char *what)
{
	git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
	git_remote *remote = NULL;
	struct pr_gitfetch_cb cred;
	int err;

	/* connect, see that each ref is there, then what git_remote_fetch does */
	if (!(err = fetch_connect(&remote, repo, url, &opts, &cred, auth,
				  what)) &&
	    !(err = check_advertised(remote, specs, nr, what, url)))
		err = fetch_download(remote, specs, nr, &opts, what, url,
				     cred.auth);
	fetch_close(remote);
	return err;
}

/*
 * The rules gitrevisions(7) gives for a short name, in its order; "%s" is
 * the name.  The first one, the name itself, applies to names that start
 * with "refs/" only (a cache has no HEAD or FETCH_HEAD of the remote's).
 */
static const char *const name_rules[] = {
	"refs/%s",	   "refs/tags/%s",	   "refs/heads/%s",
	"refs/remotes/%s", "refs/remotes/%s/HEAD",
};

#define NAME_RULES (sizeof(name_rules) / sizeof(name_rules[0]))

/* The rule's ref for the name's first len bytes, in out (reset first). */
static int rule_ref(struct pr_buf *out, size_t rule, const char *name,
		    size_t len)
{
	const char *rest = strstr(name_rules[rule], "%s");

	pr_buf_reset(out);
	return pr_buf_addf(out, "%.*s%.*s%s", (int)(rest - name_rules[rule]),
			   name_rules[rule], (int)len, name, rest + 2);
}

/*
 * Resolve name (its ref part: what comes before any '~' or '^') against
 * heads into ref; *rank is the number of rules that rank before the one
 * that matched (0 for a full ref name: it is found as it is).  PR_ENOENT
 * naming the name when nothing matches.
 */
static int resolve_name(struct pr_buf *ref, size_t *rank,
			const git_remote_head **heads, size_t n,
			const char *name, const char *what, const char *url)
{
	size_t len = strcspn(name, "~^"), i;
	bool full = !strncmp(name, "refs/", 5);
	struct pr_buf safe = PR_BUF_INIT;
	int err = 0;

	*rank = 0;
	pr_buf_reset(ref);
	if (full && !(err = pr_buf_add(ref, name, len)) &&
	    advertised(heads, n, ref->ptr, ref->len))
		return 0;
	for (i = 0; !full && i < NAME_RULES && !err; i++) {
		err = rule_ref(ref, i, name, len);
		if (!err && advertised(heads, n, ref->ptr, ref->len)) {
			*rank = i;
			return 0;
		}
	}
	if (err)
		return err;
	pr_gitfetch_safe_url(&safe, url);
	err = pr_error(PR_ENOENT,
		       full ? "fetch %s from '%s': the remote has no '%.*s'"
			    : "fetch %s from '%s': the remote has no '%.*s' "
			      "(no tag, branch or other ref of that name)",
		       what, safe.ptr, (int)len, name);
	pr_buf_release(&safe);
	return err;
}

/*
 * Delete from repo the refs that name would find before the rank-th rule
 * (the remote has none of them, or it would have been found there), so
 * that rev-parse in repo finds what was fetched and not what an earlier
 * fetch left.
 */
static int drop_shadows(git_repository *repo, const char *name, size_t rank)
{
	struct pr_buf ref = PR_BUF_INIT;
	git_reference *r = NULL;
	size_t i, len = strcspn(name, "~^");
	int err = 0;

	for (i = 0; i < rank && !err; i++) {
		if ((err = rule_ref(&ref, i, name, len)))
			break;
		if (git_reference_lookup(&r, repo, ref.ptr) < 0) {
			git_error_clear();
			continue;
		}
		if (git_reference_delete(r) < 0)
			err = pr_error(PR_EIO, "cache: cannot delete '%s': %s",
				       ref.ptr,
				       git_error_last() &&
						       git_error_last()->message
					       ? git_error_last()->message
					       : "libgit2 error");
		git_reference_free(r);
		r = NULL;
	}
	pr_buf_release(&ref);
	return err;
}

static int names_here(git_repository *repo, const char *url,
		      const char *const *names, size_t nr,
		      const struct pr_gitfetch_auth *auth, const char *what)
{
	git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
	git_remote *remote = NULL;
	struct pr_gitfetch_cb cred;
	const git_remote_head **heads;
	struct pr_buf ref = PR_BUF_INIT;
	struct pr_buf *spec = NULL;
	const char **specs = NULL;
	size_t *rank = NULL;
	size_t n, i, j, nspecs = 0;
	int err;

	if ((err = fetch_connect(&remote, repo, url, &opts, &cred, auth, what)))
		goto done;
	if (git_remote_ls(&heads, &n, remote) < 0) {
		err = fetch_fail(PR_ENET, what, url, cred.auth);
		goto done;
	}
	spec = pr_calloc(nr ? nr : 1, sizeof(*spec));
	specs = pr_calloc(nr ? nr : 1, sizeof(*specs));
	rank = pr_calloc(nr ? nr : 1, sizeof(*rank));
	for (i = 0; i < nr; i++)
		pr_buf_init(&spec[i], 0);
	for (i = 0; i < nr; i++) {
		if ((err = resolve_name(&ref, &rank[i], heads, n, names[i],
					what, url)) ||
		    (err = pr_buf_addf(&spec[nspecs], "+%s:%s", ref.ptr,
				       ref.ptr)))
			goto done;
		for (j = 0; j < nspecs && strcmp(specs[j], spec[nspecs].ptr);
		     j++)
			;
		if (j < nspecs) {
			pr_buf_reset(&spec[nspecs]);
			continue;
		}
		specs[nspecs] = spec[nspecs].ptr;
		nspecs++;
	}
	if ((err = fetch_download(remote, specs, nspecs, &opts, what, url,
				  cred.auth)))
		goto done;
	for (i = 0; i < nr && !err; i++)
		err = drop_shadows(repo, names[i], rank[i]);
done:
	fetch_close(remote);
	for (i = 0; spec && i < nr; i++)
		pr_buf_release(&spec[i]);
	free(spec);
	free(specs);
	free(rank);
	pr_buf_release(&ref);
	return err;
}

/* The arguments of a fetch, for the child of pr_gitnet_run. */
struct fetch_job {
	git_repository *repo;
	const char *url;
	const char *const *list; /* specs, or names */
	size_t nr;
	const struct pr_gitfetch_auth *auth;
	const char *what;
};

static int fetch_specs_job(struct pr_buf *extra, void *payload)
{
	const struct fetch_job *j = payload;
	int err = pr_gitfetch_trust(j->auth);

	PR_UNUSED(extra);
	return err ? err
		   : fetch_here(j->repo, j->url, j->list, j->nr, j->auth,
				j->what);
}

static int fetch_names_job(struct pr_buf *extra, void *payload)
{
	const struct fetch_job *j = payload;
	int err = pr_gitfetch_trust(j->auth);

	PR_UNUSED(extra);
	return err ? err
		   : names_here(j->repo, j->url, j->list, j->nr, j->auth,
				j->what);
}

/* Run a fetch job in a child, under the auth's timeout (gitnet.h). */
static int run_job(pr_gitnet_fn fn, const struct fetch_job *j)
{
	struct pr_buf head = PR_BUF_INIT;
	int err;

	if (!(err = pr_buf_addf(&head, "fetch %s from '", j->what)) &&
	    !(err = pr_gitfetch_safe_url(&head, j->url)) &&
	    !(err = pr_buf_addch(&head, '\'')))
		err = pr_gitnet_run(NULL, j->auth ? j->auth->timeout_ms : 0,
				    head.ptr, fn, (void *)j);
	pr_buf_release(&head);
	return err;
}

/* The job, its URL rewritten by the user's insteadOf when auth asks. */
static int rewrite_run(pr_gitnet_fn fn, struct fetch_job *j)
{
	struct pr_buf url = PR_BUF_INIT;
	int err = 0;

	if (j->auth && j->auth->insteadof) {
		if ((err = pr_gitnet_rewrite(&url, j->repo, j->url, false)))
			goto done;
		j->url = url.ptr;
	}
	err = run_job(fn, j);
done:
	pr_buf_release(&url);
	return err;
}

int pr_gitfetch(git_repository *repo, const char *url, const char *const *specs,
		size_t nr, const struct pr_gitfetch_auth *auth,
		const char *what)
{
	struct fetch_job j = { repo, url, specs, nr, auth, what };

	return rewrite_run(fetch_specs_job, &j);
}

int pr_gitfetch_names(git_repository *repo, const char *url,
		      const char *const *names, size_t nr,
		      const struct pr_gitfetch_auth *auth, const char *what)
{
	struct fetch_job j = { repo, url, names, nr, auth, what };

	return rewrite_run(fetch_names_job, &j);
}
