#include "base/pr.h"

#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "connectors.h"
#include "engine/delivery.h"
#include "engine/engine.h"
#include "engine/store.h"

/*
 * The smtp sink against a real server: tests/servers/smtpd.py (aiosmtpd)
 * on 127.0.0.1, started and stopped by each test, writing what it accepts
 * into a maildir and one "FROM RCPT..." line per message into a log.  The
 * mails are a 5-patch series with a cover letter from git format-patch.
 */

#define NR_MAILS 6
#define SERVER PR_TEST_DATA "/../servers/smtpd.py"

struct fixture {
	char dir[64];
	char path[160]; /* scratch */
	char box[128], log[128], portfile[128], cert[128], key[128], db[128];
	char url[64];
	char *mails[NR_MAILS];
	size_t lens[NR_MAILS];
	pid_t server;
	struct pr_smtp_ctx ctx;
	struct pr_instance inst;
};

static const struct pr_engine_version version1 = { "git", "topic", 0, 1,
						   "0123456789abcdef" };

static int run(const char *cmd)
{
	int rc = system(cmd);

	return rc == 0 ? 0 : -1;
}

static int make_series(struct fixture *f)
{
	struct pr_buf cmd = PR_BUF_INIT;
	struct pr_buf b = PR_BUF_INIT;
	int i, err;

	pr_buf_addf(&cmd,
		    "set -e; cd '%s'; git init -q repo; cd repo;"
		    "git config user.name 'A U Thor';"
		    "git config user.email author@example.org;"
		    "echo base >f; git add f; git commit -qm base;"
		    "for i in 1 2 3 4 5; do echo line $i >>f;"
		    " printf 'x\\n.\\n..dot line\\n' >>f;"
		    " git commit -qam \"patch $i\" -m .dot -m . -m '..two';"
		    " done;"
		    "git format-patch -q --cover-letter --thread -o ../out"
		    " --to=list@example.org --cc=Reviewer@Example.org"
		    " --cc='\"Doe, Jane\" <jane@example.org>'"
		    " --cc=reviewer@example.org HEAD~5",
		    f->dir);
	err = run(cmd.ptr);
	pr_buf_release(&cmd);
	if (err)
		return err;
	for (i = 0; i < NR_MAILS; i++) {
		struct dirent *de;
		char prefix[8];
		DIR *d;

		snprintf(f->path, sizeof(f->path), "%s/out", f->dir);
		snprintf(prefix, sizeof(prefix), "%04d-", i);
		d = opendir(f->path);
		if (!d)
			return -1;
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, prefix, 5))
				break;
		if (!de) {
			closedir(d);
			return -1;
		}
		snprintf(f->path, sizeof(f->path), "%s/out/%s", f->dir,
			 de->d_name);
		closedir(d);
		pr_buf_reset(&b);
		if (pr_buf_read_file(&b, f->path))
			return -1;
		/* drop the mbox "From <sha>" line: a delivery has none */
		{
			char *nl = memchr(b.ptr, '\n', b.len);
			size_t skip = (size_t)(nl - b.ptr) + 1;

			f->lens[i] = b.len - skip;
			f->mails[i] = pr_memdup(b.ptr + skip, f->lens[i]);
		}
	}
	pr_buf_release(&b);
	/* the patches hold lines that SMTP must dot-stuff */
	if (!memmem(f->mails[1], f->lens[1], "\n.dot\n\n.\n\n..two\n", 16))
		return -1;
	return 0;
}

static int setup(void **state)
{
	struct fixture *f = pr_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pr-smtp-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->box, sizeof(f->box), "%s/box", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/envelopes", f->dir);
	snprintf(f->portfile, sizeof(f->portfile), "%s/port", f->dir);
	snprintf(f->cert, sizeof(f->cert), "%s/cert.pem", f->dir);
	snprintf(f->key, sizeof(f->key), "%s/key.pem", f->dir);
	snprintf(f->db, sizeof(f->db), "%s/state.db", f->dir);
	if (make_series(f))
		return -1;
	f->ctx.from = "bot@example.org";
	f->ctx.starttls = "never";
	f->ctx.max_recipients = 100;
	f->ctx.timeout = 10000;
	f->inst.name = "list";
	f->inst.kind = "sink";
	f->inst.ctx = &f->ctx;
	snprintf(f->inst.prefix, sizeof(f->inst.prefix), "smtp:list");
	*state = f;
	return 0;
}

static void stop_server(struct fixture *f)
{
	if (f->server > 0) {
		kill(f->server, SIGTERM);
		waitpid(f->server, NULL, 0);
		f->server = 0;
	}
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[160];
	int i;

	stop_server(f);
	f->inst.ctx = &f->ctx;
	pr_connector_smtp.close(&f->inst);
	for (i = 0; i < NR_MAILS; i++)
		free(f->mails[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* Start the server with extra arguments (NULL-terminated); fill f->url. */
static void start_server(struct fixture *f, const char *scheme, ...)
{
	const char *argv[32] = { "/usr/bin/python3",
				 SERVER,
				 "--maildir",
				 f->box,
				 "--log",
				 f->log,
				 "--port-file",
				 f->portfile };
	struct pr_buf port = PR_BUF_INIT;
	size_t n = 8;
	va_list ap;
	int i;

	va_start(ap, scheme);
	while (n < PR_ARRAY_SIZE(argv) - 1 &&
	       (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	unlink(f->portfile);
	f->server = fork();
	assert_true(f->server >= 0);
	if (f->server == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* aiosmtpd warns about AUTH without TLS on stderr */
		dup2(null, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {
		struct timespec ts = { 0, 50 * 1000000 };

		if (pr_buf_read_file(&port, f->portfile) == 0)
			break;
		nanosleep(&ts, NULL);
	}
	assert_true(i < 200);
	pr_buf_rtrim(&port);
	snprintf(f->url, sizeof(f->url), "%s://127.0.0.1:%s", scheme, port.ptr);
	f->ctx.url = f->url;
	pr_buf_release(&port);
}

/* The number of messages in the server's maildir. */
static size_t count_box(struct fixture *f)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(f->path, sizeof(f->path), "%s/new", f->box);
	d = opendir(f->path);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* The Message-ID header's value of a mail, malloc'ed; NULL if none. */
static char *mail_id(const char *mail, size_t len)
{
	const char *p = mail, *e = mail + len;

	while (p < e && *p != '\n') {
		const char *nl = memchr(p, '\n', (size_t)(e - p));

		if (!nl)
			nl = e;
		if (!strncasecmp(p, "Message-ID: ", 12)) {
			size_t n = (size_t)(nl - p) - 12;

			if (n && p[12 + n - 1] == '\r')
				n--;
			return pr_strndup(p + 12, n);
		}
		p = nl + 1;
	}
	return NULL;
}

static void crlf_to_lf(struct pr_buf *b)
{
	size_t i, j = 0;

	for (i = 0; i < b->len; i++)
		if (!(b->ptr[i] == '\r' && i + 1 < b->len &&
		      b->ptr[i + 1] == '\n'))
			b->ptr[j++] = b->ptr[i];
	pr_buf_setlen(b, j);
}

/*
 * Every mail of the series is in the maildir exactly once, and nothing
 * else is: checks by Message-ID.
 */
static void assert_box_holds_series(struct fixture *f)
{
	size_t seen[NR_MAILS] = { 0 };
	struct pr_buf b = PR_BUF_INIT;
	struct dirent *de;
	char dir[200];
	DIR *d;
	int i;

	snprintf(dir, sizeof(dir), "%s/new", f->box);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		char *id;
		bool found = false;

		if (de->d_name[0] == '.')
			continue;
		snprintf(f->path, sizeof(f->path), "%s/%s", dir, de->d_name);
		pr_buf_reset(&b);
		assert_int_equal(pr_buf_read_file(&b, f->path), 0);
		id = mail_id(b.ptr, b.len);
		assert_non_null(id);
		crlf_to_lf(&b);
		for (i = 0; i < NR_MAILS; i++) {
			char *want = mail_id(f->mails[i], f->lens[i]);

			if (!strcmp(id, want)) {
				seen[i]++;
				found = true;
				/* byte for byte, dot lines included */
				assert_int_equal(b.len, f->lens[i]);
				assert_memory_equal(b.ptr, f->mails[i], b.len);
			}
			free(want);
		}
		assert_true(found);
		free(id);
	}
	closedir(d);
	pr_buf_release(&b);
	for (i = 0; i < NR_MAILS; i++)
		assert_int_equal(seen[i], 1);
}

/* Record version 1 and deliver the series through the engine. */
static int pass(struct pr_engine_stats *stats, struct fixture *f)
{
	struct pr_engine_version v = version1;
	struct pr_store_version sv;
	struct pr_store *st = NULL;
	int err;

	memset(stats, 0, sizeof(*stats));
	if ((err = pr_store_open(&st, f->db)))
		return err;
	err = pr_store_record_version(&sv, st, v.origin, v.key, v.fingerprint,
				      NULL, NR_MAILS, 0);
	if (!err) {
		v.series_id = sv.series_id;
		v.number = sv.number;
		err = pr_engine_deliver(stats, st, &v, &f->inst,
					&pr_connector_smtp,
					(const char *const *)f->mails, f->lens,
					NR_MAILS);
	}
	pr_store_free(st);
	return err;
}

/* Deliver one mail directly; returns deliver()'s value. */
static int deliver_one(struct fixture *f, const char *mail,
		       struct pr_deliver_result *res)
{
	struct pr_delivery d = { "key-v1", 0, 1, mail, strlen(mail) };

	memset(res, 0, sizeof(*res));
	return pr_connector_smtp.deliver(&f->inst, &d, res);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_series_arrives(void **state)
{
	struct fixture *f = *state;
	struct pr_engine_stats stats;
	struct pr_buf log = PR_BUF_INIT;
	const char *p;
	int64_t t0;
	int n = 0;

	start_server(f, "smtp", NULL);
	assert_int_equal(pr_connector_smtp.open(&f->inst), 0);
	/* 600 a minute: one message every 100 ms at the most */
	f->ctx.rate = 600;
	t0 = now_ms();
	assert_int_equal(pass(&stats, f), 0);
	assert_true(now_ms() - t0 >= 500);
	assert_int_equal(stats.sent, 6);
	assert_int_equal(stats.pending, 0);
	assert_int_equal(count_box(f), 6);
	assert_box_holds_series(f);
	/* envelope: To + Cc, deduplicated without regard to case */
	assert_int_equal(pr_buf_read_file(&log, f->log), 0);
	for (p = log.ptr; (p = strstr(p, "bot@example.org list@example.org "
					 "Reviewer@Example.org "
					 "jane@example.org\n"));
	     p++)
		n++;
	assert_int_equal(n, 6);
	pr_buf_release(&log);
	/* a second pass sends nothing */
	assert_int_equal(pass(&stats, f), 0);
	assert_int_equal(stats.sent, 0);
	assert_int_equal(stats.skipped, 6);
	assert_int_equal(count_box(f), 6);
}

static void test_resume_after_drop(void **state)
{
	struct fixture *f = *state;
	struct pr_engine_stats stats;
	char port[16];
	const char *colon;

	start_server(f, "smtp", "--drop-after", "3", NULL);
	assert_int_equal(pass(&stats, f), 0);
	assert_int_equal(stats.sent, 3);
	assert_int_equal(stats.pending, 3);
	assert_int_equal(stats.status, PR_DELIVER_RETRY);
	assert_int_equal(count_box(f), 3);
	stop_server(f);
	/* the same server comes back on the same port */
	colon = strrchr(f->url, ':');
	snprintf(port, sizeof(port), "%s", colon + 1);
	start_server(f, "smtp", "--port", port, NULL);
	assert_int_equal(pass(&stats, f), 0);
	assert_int_equal(stats.sent, 3);
	assert_int_equal(stats.skipped, 3);
	assert_int_equal(stats.pending, 0);
	assert_int_equal(count_box(f), 6);
	assert_box_holds_series(f);
}

static int make_cert(struct fixture *f)
{
	struct pr_buf cmd = PR_BUF_INIT;
	int err;

	pr_buf_addf(&cmd,
		    "openssl req -x509 -newkey rsa:2048 -nodes -days 1"
		    " -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1"
		    " -keyout '%s' -out '%s' 2>/dev/null",
		    f->key, f->cert);
	err = run(cmd.ptr);
	pr_buf_release(&cmd);
	return err;
}

/* stderr into DIR/stderr until stderr_count() reads it back. */
static int saved_stderr = -1;

static void capture_stderr(struct fixture *f)
{
	char path[200];
	int fd;

	snprintf(path, sizeof(path), "%s/stderr", f->dir);
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
}

/* How many lines of the captured stderr hold text; stderr is restored. */
static int stderr_count(struct fixture *f, const char *text)
{
	struct pr_buf log = PR_BUF_INIT;
	char path[200];
	const char *p;
	int n = 0;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	snprintf(path, sizeof(path), "%s/stderr", f->dir);
	assert_int_equal(pr_buf_read_file(&log, path), 0);
	for (p = log.ptr; p && (p = strstr(p, text)); p++)
		n++;
	pr_buf_release(&log);
	return n;
}

static void test_starttls_auth(void **state)
{
	struct fixture *f = *state;
	struct pr_deliver_result res;
	struct pr_buf err_log = PR_BUF_INIT;
	char errfile[200];
	int saved, fd;

	assert_int_equal(make_cert(f), 0);
	start_server(f, "smtp", "--cert", f->cert, "--key", f->key,
		     "--require-tls", "--user", "bot", "--password",
		     "s3cret-pw", NULL);
	f->ctx.starttls = "required";
	f->ctx.user = "bot";
	f->ctx.password = "s3cret-pw";

	/* without the test CA the certificate does not verify */
	assert_true(deliver_one(f, f->mails[1], &res) < 0);
	assert_non_null(strstr(pr_error_message(), "sink 'list'"));
	assert_non_null(strstr(pr_error_message(),
			       "the server's certificate is not trusted"));
	assert_non_null(strstr(pr_error_message(), "set ca-file"));
	free(res.reason);
	assert_int_equal(count_box(f), 0);

	f->ctx.ca_file = f->cert;
	assert_int_equal(deliver_one(f, f->mails[1], &res), 0);
	assert_int_equal(res.status, PR_DELIVER_OK);
	free(res.reason);
	assert_int_equal(count_box(f), 1);

	/* a wrong password is a 5xx: rejected; the log never shows it */
	snprintf(errfile, sizeof(errfile), "%s/stderr", f->dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	f->ctx.password = "wrong-pw";
	assert_int_equal(deliver_one(f, f->mails[2], &res), 0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(res.status, PR_DELIVER_REJECTED);
	assert_non_null(strstr(res.reason, "535"));
	assert_null(strstr(res.reason, "wrong-pw"));
	free(res.reason);
	assert_int_equal(pr_buf_read_file(&err_log, errfile), 0);
	assert_non_null(strstr(err_log.ptr, "rejected"));
	assert_null(strstr(err_log.ptr, "wrong-pw"));
	pr_buf_release(&err_log);
	assert_int_equal(count_box(f), 1);
	f->ctx.password = "s3cret-pw";

	/* starttls = never against a server that requires it: refused */
	f->ctx.starttls = "never";
	assert_int_equal(deliver_one(f, f->mails[2], &res), 0);
	assert_int_equal(res.status, PR_DELIVER_REJECTED);
	free(res.reason);
	assert_int_equal(count_box(f), 1);
}

static void test_smtps(void **state)
{
	struct fixture *f = *state;
	struct pr_deliver_result res;

	assert_int_equal(make_cert(f), 0);
	start_server(f, "smtps", "--cert", f->cert, "--key", f->key, "--smtps",
		     NULL);
	/* starttls does not apply: smtps:// is TLS from the start */
	f->ctx.starttls = "never";
	assert_true(deliver_one(f, f->mails[3], &res) < 0);
	free(res.reason);
	assert_int_equal(count_box(f), 0);
	f->ctx.ca_file = f->cert;
	assert_int_equal(deliver_one(f, f->mails[3], &res), 0);
	assert_int_equal(res.status, PR_DELIVER_OK);
	free(res.reason);
	assert_int_equal(count_box(f), 1);
}

static void test_starttls_missing(void **state)
{
	struct fixture *f = *state;
	struct pr_deliver_result res;

	/* a server without STARTTLS: required fails, optional goes plain */
	start_server(f, "smtp", NULL);
	f->ctx.starttls = "required";
	assert_true(deliver_one(f, f->mails[1], &res) < 0);
	assert_non_null(strstr(pr_error_message(),
			       "the server does not offer STARTTLS"));
	free(res.reason);
	assert_int_equal(count_box(f), 0);
	f->ctx.starttls = "optional";
	capture_stderr(f);
	assert_int_equal(deliver_one(f, f->mails[1], &res), 0);
	assert_int_equal(res.status, PR_DELIVER_OK);
	free(res.reason);
	assert_int_equal(count_box(f), 1);
	/* going plain is said once, and not again for the next message */
	assert_int_equal(deliver_one(f, f->mails[2], &res), 0);
	free(res.reason);
	assert_int_equal(stderr_count(f, "does not offer STARTTLS: sending "
					 "without TLS (starttls = optional)"),
			 1);
}

static void test_server_faults(void **state)
{
	struct fixture *f = *state;
	struct pr_deliver_result res;

	start_server(f, "smtp", "--refuse-rcpt", "jane@example.org", NULL);
	assert_int_equal(deliver_one(f, f->mails[0], &res), 0);
	assert_int_equal(res.status, PR_DELIVER_REJECTED);
	assert_non_null(strstr(res.reason, "550"));
	assert_non_null(strstr(res.reason, "1/1"));
	free(res.reason);
	stop_server(f);

	start_server(f, "smtp", "--data-reply", "451 4.3.0 try later", NULL);
	assert_int_equal(deliver_one(f, f->mails[0], &res), 0);
	assert_int_equal(res.status, PR_DELIVER_RETRY);
	assert_true(res.retry_after_ms > 0);
	assert_non_null(strstr(res.reason, "451"));
	free(res.reason);
	stop_server(f);

	start_server(f, "smtp", "--data-reply", "554 5.6.0 no", NULL);
	assert_int_equal(deliver_one(f, f->mails[0], &res), 0);
	assert_int_equal(res.status, PR_DELIVER_REJECTED);
	assert_non_null(strstr(res.reason, "554"));
	free(res.reason);
	stop_server(f);
	assert_int_equal(count_box(f), 0);

	/* a server that hangs after the data: the timeout, then retry */
	start_server(f, "smtp", "--stall", "2", NULL);
	f->ctx.timeout = 500;
	assert_int_equal(deliver_one(f, f->mails[0], &res), 0);
	assert_int_equal(res.status, PR_DELIVER_RETRY);
	assert_non_null(strstr(res.reason, "timed out"));
	free(res.reason);
	stop_server(f);
	assert_int_equal(count_box(f), 0);

	/* nobody listening: retry */
	assert_int_equal(deliver_one(f, f->mails[0], &res), 0);
	assert_int_equal(res.status, PR_DELIVER_RETRY);
	free(res.reason);
}

/* Malformed headers are refused before any connection is made. */
static void test_header_injection(void **state)
{
	static const char *const bad[] = {
		"To: a@example.org\nSubject: x\rBcc: evil@example.org\n\nb\n",
		"To: a@example.org\nSubject: x\nBcc evil@example.org\n\nb\n",
		"To: a@example.org\nSubject: caf\xc3\xa9\n\nb\n",
		"  folded first\nTo: a@example.org\n\nb\n",
		"Subject: no recipient\n\nb\n",
		"To: <a@example.org\n\nb\n",
		"To: \"x\" <a b@example.org>\n\nb\n",
	};
	struct fixture *f = *state;
	struct pr_deliver_result res;
	struct pr_buf big = PR_BUF_INIT;
	size_t i;

	/* no server: a refusal must come from the checks, not the network */
	f->ctx.url = "smtp://127.0.0.1:1";
	for (i = 0; i < PR_ARRAY_SIZE(bad); i++) {
		assert_int_equal(deliver_one(f, bad[i], &res), 0);
		assert_int_equal(res.status, PR_DELIVER_REJECTED);
		assert_non_null(strstr(res.reason, "refused"));
		free(res.reason);
	}
	pr_buf_adds(&big, "To: a@example.org\nSubject: ");
	for (i = 0; i < 1000; i++)
		pr_buf_addch(&big, 'x');
	pr_buf_adds(&big, "\n\nbody\n");
	assert_int_equal(deliver_one(f, big.ptr, &res), 0);
	assert_int_equal(res.status, PR_DELIVER_REJECTED);
	assert_non_null(strstr(res.reason, "998"));
	free(res.reason);
	pr_buf_release(&big);
	/* a well-formed mail gets as far as the network */
	assert_int_equal(deliver_one(f, "To: a@example.org\n\nb\n", &res), 0);
	assert_int_equal(res.status, PR_DELIVER_RETRY);
	free(res.reason);
}

static void test_options(void **state)
{
	struct fixture *f = *state;

	f->ctx.url = "http://127.0.0.1";
	assert_true(pr_connector_smtp.open(&f->inst) < 0);
	f->ctx.url = "smtp://bot:pw@127.0.0.1";
	assert_true(pr_connector_smtp.open(&f->inst) < 0);
	assert_null(strstr(pr_error_message(), "pw"));
	f->ctx.url = "smtps://127.0.0.1:465";
	assert_int_equal(pr_connector_smtp.open(&f->inst), 0);
	/* a display name is fine: the envelope takes the address */
	f->ctx.from = "Bot <bot@example.org>";
	assert_int_equal(pr_connector_smtp.open(&f->inst), 0);
	f->ctx.from = "Bot <bot@example.org";
	assert_true(pr_connector_smtp.open(&f->inst) < 0);
	f->ctx.from = "Bot <bot@example.org> x@y";
	assert_true(pr_connector_smtp.open(&f->inst) < 0);
	f->ctx.from = "Bot <bot@example.org\r\nRCPT TO:x@y>";
	assert_true(pr_connector_smtp.open(&f->inst) < 0);
	f->ctx.from = "bot@example.org\r\nRCPT TO:<x@y>";
	assert_true(pr_connector_smtp.open(&f->inst) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_series_arrives, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resume_after_drop, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_starttls_auth, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_smtps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_starttls_missing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_server_faults, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_header_injection, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_options, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
