#include "base/pr.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "git/libgit.h"
#include "gitnet.h"

#define GITNET_IDLE_MS 60000
#define GITNET_STEP_MS 200 /* how often the child's counters are read */
#define GITNET_RECORD_MAX (320 * 1024) /* the message, a push's answer */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The bytes pid read and wrote so far (rchar + wchar), or -1. */
static int64_t child_io(pid_t pid)
{
	char path[64], text[512];
	const char *r, *w;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	r = strstr(text, "rchar:");
	w = strstr(text, "wchar:");
	if (!r || !w)
		return -1;
	return strtoll(r + 6, NULL, 10) + strtoll(w + 6, NULL, 10);
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* The child: run fn, send "CODE\nMESSAGE\0EXTRA", and end. */
static void child(int fd, pid_t parent, pr_gitnet_fn fn, void *payload)
{
	struct pr_buf extra = PR_BUF_INIT, rec = PR_BUF_INIT;
	int err;

	/* a relay killed with kill -9 takes its transfer along */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	err = fn(&extra, payload);
	pr_buf_addf(&rec, "%d\n%s", err, err ? pr_error_message() : "");
	pr_buf_addch(&rec, '\0');
	pr_buf_add(&rec, extra.ptr, extra.len);
	write_all(fd, rec.ptr, rec.len);
	_exit(0);
}

/* The child's record into its code, message and extra. */
static int take_record(struct pr_buf *extra, const struct pr_buf *rec,
		       const char *what, int wst)
{
	const char *nl = rec->len ? memchr(rec->ptr, '\n', rec->len) : NULL;
	const char *msg, *nul;
	int err;

	if (!nl) {
		if (WIFSIGNALED(wst))
			return pr_error(PR_ENET,
					"%s: the transfer ended by "
					"signal %d",
					what, WTERMSIG(wst));
		return pr_error(PR_ENET,
				"%s: the transfer ended without an "
				"answer",
				what);
	}
	err = (int)strtol(rec->ptr, NULL, 10);
	msg = nl + 1;
	nul = memchr(msg, '\0', rec->len - (size_t)(msg - rec->ptr));
	if (nul && extra)
		pr_buf_add(extra, nul + 1,
			   rec->len - (size_t)(nul + 1 - rec->ptr));
	if (err >= 0)
		return err;
	return pr_error(err, "%.*s",
			(int)(nul ? nul - msg : rec->ptr + rec->len - msg),
			msg);
}

int pr_gitnet_run(struct pr_buf *extra, int64_t idle_ms, const char *what,
		  pr_gitnet_fn fn, void *payload)
{
	struct pr_buf rec;
	int fds[2] = { -1, -1 }, wst = 0, err = 0;
	int64_t io, seen = -1, moved;
	bool timed_out = false;
	pid_t pid, self = getpid();
	char chunk[4096];

	if (idle_ms <= 0)
		idle_ms = GITNET_IDLE_MS;
	pr_buf_init(&rec, GITNET_RECORD_MAX);
	if (pipe2(fds, O_CLOEXEC)) {
		err = pr_error(PR_EIO, "%s: pipe: %s", what, strerror(errno));
		goto done;
	}
	pid = fork();
	if (pid < 0) {
		err = pr_error(PR_EIO, "%s: fork: %s", what, strerror(errno));
		goto done;
	}
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], self, fn, payload);
	}
	close(fds[1]);
	fds[1] = -1;
	moved = now_ms();
	for (;;) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		int r = poll(&p, 1, GITNET_STEP_MS);

		if (r > 0) {
			ssize_t n = read(fds[0], chunk, sizeof(chunk));

			if (n == 0 || (n < 0 && errno != EINTR))
				break;
			if (n > 0 && pr_buf_add(&rec, chunk, (size_t)n))
				pr_error_clear(); /* over the cap: cut */
		}
		io = child_io(pid);
		/* no counters to read: no watchdog, as libgit2 alone */
		if (io < 0 || io != seen) {
			seen = io;
			moved = now_ms();
		} else if (now_ms() - moved >= idle_ms) {
			kill(pid, SIGKILL);
			timed_out = true;
			break;
		}
	}
	while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		err = pr_error(PR_ETIMEOUT,
			       "%s: nothing came or went for %lld s: the "
			       "server does not answer",
			       what, (long long)(idle_ms / 1000));
	else
		err = take_record(extra, &rec, what, wst);
done:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	pr_buf_release(&rec);
	return err;
}

/*
 * If entry is url.<base>.KEY (KEY insteadof or pushinsteadof, as libgit2
 * lowercases it) and its value is a longer prefix of url than *best,
 * take it: *best its length, *base the base.
 */
static void take_rewrite(const git_config_entry *e, const char *key,
			 const char *url, size_t *best, const char **base,
			 size_t *base_len)
{
	size_t len = strlen(e->name), klen = strlen(key), vlen;

	if (strncmp(e->name, "url.", 4) || len < 5 + klen ||
	    e->name[len - klen - 1] != '.' ||
	    strcmp(e->name + len - klen, key) || !e->value)
		return;
	vlen = strlen(e->value);
	/* strictly longer: on a tie the first one read stays */
	if (!vlen || vlen <= *best || strncmp(url, e->value, vlen))
		return;
	*best = vlen;
	*base = e->name + 4;
	*base_len = len - 4 - klen - 1;
}

int pr_gitnet_rewrite(struct pr_buf *out, git_repository *repo, const char *url,
		      bool push)
{
	struct pr_buf fetch_base = PR_BUF_INIT, push_base = PR_BUF_INIT;
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	size_t best = 0, pbest = 0, len = 0, plen = 0;
	const char *base;
	int err;

	if ((err = pr_libgit_config(&cfg, repo)))
		goto done;
	if (git_config_iterator_new(&it, cfg) < 0) {
		err = pr_libgit_fail("config", "url.<base>.insteadOf");
		goto done;
	}
	/* the entries die with the iterator: keep the bases as they come */
	while (git_config_next(&e, it) == 0) {
		base = NULL;
		take_rewrite(e, "insteadof", url, &best, &base, &len);
		if (base) {
			pr_buf_reset(&fetch_base);
			if ((err = pr_buf_add(&fetch_base, base, len)))
				goto done;
		}
		base = NULL;
		if (push)
			take_rewrite(e, "pushinsteadof", url, &pbest, &base,
				     &plen);
		if (base) {
			pr_buf_reset(&push_base);
			if ((err = pr_buf_add(&push_base, base, plen)))
				goto done;
		}
	}
	if (pbest)
		err = pr_buf_addf(out, "%s%s", push_base.ptr, url + pbest);
	else if (best)
		err = pr_buf_addf(out, "%s%s", fetch_base.ptr, url + best);
	else
		err = pr_buf_adds(out, url);
done:
	git_config_iterator_free(it);
	git_config_free(cfg);
	pr_buf_release(&fetch_base);
	pr_buf_release(&push_base);
	return err;
}
