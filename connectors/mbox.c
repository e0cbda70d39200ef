#include "pr.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connectors.h"
#include "delivery.h"

/*
 * The mbox connector: as a source, a folder where each new mbox file is one
 * series version; as a sink, one mbox file the mails are appended to.  The
 * source's poll is not written yet.
 *
 * The sink writes mboxrd (a body line matching /^>*From / gets one more
 * '>', which git mailsplit --mboxrd undoes) and delivers each message
 * exactly once, also across crashes, through a journal next to the mbox,
 * PATH.patchrelay:
 *
 *	begin NAME OFFSET	(fsync'ed before the mail is appended)
 *	done NAME		(fsync'ed after the appended mail is)
 *
 * NAME is the delivery key (bytes outside [A-Za-z0-9_-] as %XX) and the
 * message index.  A retry of a message that is "done" writes nothing; one
 * that only "begin"s was cut by a crash, so the mbox is truncated back to
 * OFFSET and the message written again.  This holds as long as patchrelay
 * is the only writer of the mbox.
 */

static int message_name(struct pr_buf *out, const struct pr_delivery *d)
{
	const unsigned char *k = (const unsigned char *)d->key;
	int err = 0;

	for (; *k && !err; k++) {
		if ((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		    (*k >= '0' && *k <= '9') || *k == '-' || *k == '_')
			err = pr_buf_addch(out, *k);
		else
			err = pr_buf_addf(out, "%%%02X", *k);
	}
	return err ? err : pr_buf_addf(out, ".%zu", d->index);
}

/* Render one mail as an mboxrd entry. */
static int render(struct pr_buf *out, const struct pr_delivery *d)
{
	const char *p = d->mail, *end = d->mail + d->len;
	int err = 0;

	if (d->len < 5 || memcmp(p, "From ", 5)) {
		err = pr_buf_adds(out,
				  "From patchrelay Thu Jan  1 00:00:00 1970\n");
	} else {
		/* the rendered mail brings its own From line */
		const char *nl = memchr(p, '\n', d->len);

		nl = nl ? nl + 1 : end;
		err = pr_buf_add(out, p, (size_t)(nl - p));
		p = nl;
	}
	while (!err && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;

		nl = nl ? nl + 1 : end;
		while (q < nl && *q == '>')
			q++;
		if (nl - q >= 5 && !memcmp(q, "From ", 5))
			err = pr_buf_addch(out, '>');
		if (!err)
			err = pr_buf_add(out, p, (size_t)(nl - p));
		p = nl;
	}
	if (!err && (out->len == 0 || out->ptr[out->len - 1] != '\n'))
		err = pr_buf_addch(out, '\n');
	/* a blank line before the next From line */
	if (!err && !(out->len >= 2 && out->ptr[out->len - 2] == '\n'))
		err = pr_buf_addch(out, '\n');
	return err;
}

/*
 * Look NAME up in the journal text: 2 when done, 1 with *offset when only
 * begun, 0 when absent.
 */
static int journal_state(const struct pr_buf *j, const char *name,
			 off_t *offset)
{
	size_t n = strlen(name);
	const char *p = j->ptr, *end = j->ptr + j->len;
	int state = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			break; /* a line cut by a crash */
		if ((size_t)(nl - p) > 5 + n && !memcmp(p, "done ", 5) &&
		    !memcmp(p + 5, name, n) && p[5 + n] == '\n')
			return 2;
		if ((size_t)(nl - p) > 6 + n && !memcmp(p, "begin ", 6) &&
		    !memcmp(p + 6, name, n) && p[6 + n] == ' ') {
			*offset = (off_t)strtoll(p + 7 + n, NULL, 10);
			state = 1;
		}
		p = nl + 1;
	}
	return state;
}

static int journal_add(int fd, const char *path, const char *line)
{
	if (pr_write_all(fd, line, strlen(line)) < 0 || fsync(fd) < 0)
		return pr_error(PR_EIO, "mbox journal '%s': cannot write: %s",
				path, strerror(errno));
	return 0;
}

static int mbox_deliver(struct pr_instance *inst, const struct pr_delivery *d,
			struct pr_deliver_result *out)
{
	const struct pr_mbox_ctx *ctx = inst->ctx;
	struct pr_buf jpath = PR_BUF_INIT, journal, name = PR_BUF_INIT;
	struct pr_buf entry = PR_BUF_INIT, line = PR_BUF_INIT;
	struct stat sb;
	off_t offset = 0;
	int jfd = -1, fd = -1, err, state;

	pr_buf_init(&journal, PR_LIMIT_MBOX_BYTES);
	out->status = PR_DELIVER_RETRY;
	out->retry_after_ms = 0;
	if ((err = pr_buf_addf(&jpath, "%s.patchrelay", ctx->path)) ||
	    (err = message_name(&name, d)) || (err = render(&entry, d)))
		goto done;
	jfd = open(jpath.ptr, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (jfd < 0) {
		err = pr_error(PR_EIO, "mbox journal '%s': cannot open: %s",
			       jpath.ptr, strerror(errno));
		goto done;
	}
	if ((err = pr_buf_read_fd(&journal, jfd)))
		goto done;
	state = journal_state(&journal, name.ptr, &offset);
	if (state == 2) {
		out->status = PR_DELIVER_OK;
		goto done;
	}
	fd = open(ctx->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		err = pr_error(PR_EIO, "mbox '%s': cannot open: %s", ctx->path,
			       strerror(errno));
		goto done;
	}
	if (state == 1 && sb.st_size > offset) {
		/* cut off what a crashed attempt wrote */
		if (ftruncate(fd, offset) < 0) {
			err = pr_error(PR_EIO, "mbox '%s': cannot truncate: %s",
				       ctx->path, strerror(errno));
			goto done;
		}
	} else if (state == 0 || sb.st_size < offset) {
		offset = sb.st_size;
		if ((err = pr_buf_addf(&line, "begin %s %lld\n", name.ptr,
				       (long long)offset)) ||
		    (err = journal_add(jfd, jpath.ptr, line.ptr)))
			goto done;
	}
	if (lseek(fd, offset, SEEK_SET) < 0 ||
	    pr_write_all(fd, entry.ptr, entry.len) < 0 || fsync(fd) < 0) {
		err = pr_error(PR_EIO, "mbox '%s': cannot write: %s", ctx->path,
			       strerror(errno));
		goto done;
	}
	pr_buf_reset(&line);
	if ((err = pr_buf_addf(&line, "done %s\n", name.ptr)) ||
	    (err = journal_add(jfd, jpath.ptr, line.ptr)))
		goto done;
	out->status = PR_DELIVER_OK;
done:
	if (fd >= 0)
		close(fd);
	if (jfd >= 0)
		close(jfd);
	if (err)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	pr_buf_release(&jpath);
	pr_buf_release(&journal);
	pr_buf_release(&name);
	pr_buf_release(&entry);
	pr_buf_release(&line);
	return err;
}

static const struct pr_option mbox_options[] = {
	{ "path", PR_OPT_PATH, NULL,
	  "source: the folder to watch for mbox files; sink: the mbox file to "
	  "append to",
	  offsetof(struct pr_mbox_ctx, path), true, NULL },
	PR_OPTIONS_END,
};

const struct pr_connector_type pr_connector_mbox = {
	.abi = PR_ABI_VERSION,
	.name = "mbox",
	.summary =
		"mbox files: a folder of series as a source, a file as a sink",
	.caps = PR_CAP_SOURCE | PR_CAP_SINK,
	.options = mbox_options,
	.ctx_size = sizeof(struct pr_mbox_ctx),
	.deliver = mbox_deliver,
};
