#include "base/pr.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/cfg.h"
#include "connectors.h"
#include "mailsrc.h"
#include "engine/delivery.h"
#include "base/sha1.h"
#include "base/strset.h"
#include "mail/mbox.h"
#include "model/report_render.h"

/*
 * The mbox connector: as a source, a folder of mbox files read as a stream
 * of mails; as a sink, one mbox file the mails are appended to.
 *
 * The source reads the regular files of the folder whose name does not
 * start with '.', in name order, each as git mailsplit reads a mailbox,
 * and hands their mails, in that order, to the mail sources' grouping
 * (connectors/mailsrc.h, core/mail/assemble.h): a file may hold a series,
 * several, several versions and their replies (a list archive), or one
 * version's patches without Message-IDs (git format-patch --stdout).  The
 * cursor is "mbox2 time=T" (when its poll ran), a "wait NAME" line for
 * each file holding a mail of a version that waits for its missing
 * patches, and one line per file present at that poll, "HASH SIZE MTIME
 * NAME" (HASH the SHA-1 of the content, MTIME in nanoseconds), so it is
 * bounded by the folder (at most MBOX_SOURCE_FILES files).  A poll reads
 * the files that are new, whose size or mtime changed, or that hold a
 * waiting version; an idle poll is a stat(2) per file.  A mail is seen
 * (emitted by an earlier poll, as connectors/mailsrc.h says) when its file
 * has the hash the cursor has, or when it starts in the part of a grown
 * file whose bytes hash as the cursor's hash did (mail was appended);
 * a touched file is read again and only a new hash makes it new.  A file
 * with a message that is not a mail is reported once, naming it; the
 * other files still go through and the poll then fails.
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
 *
 * As a feedback node (a route's `feedback = NAME` naming an mbox sink) it
 * appends one mail per feedback to the same mbox, To: the submitter when
 * known, "Subject: [patchrelay] ORIGIN:KEY: FIRST LINE OF THE SUMMARY" (or
 * "refused"), the summary and the report as a mail renders it.  It is not
 * journaled: the engine tells a feedback once, and a feedback cut by a
 * crash is a courtesy lost, not a series.
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

/* Most files a source folder may hold; more is a configuration error. */
#define MBOX_SOURCE_FILES 100000

struct seen {
	char *name;
	long long size, mtime;
	char hash[41];
};

struct seen_list {
	struct seen *items;
	size_t nr, alloc;
};

static void seen_list_release(struct seen_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->items[i].name);
	free(l->items);
	l->items = NULL;
	l->nr = l->alloc = 0;
}

static int cmp_seen(const void *a, const void *b)
{
	return strcmp(((const struct seen *)a)->name,
		      ((const struct seen *)b)->name);
}

/* The entry named NAME of a list sorted by cmp_seen, or NULL. */
static struct seen *seen_find(struct seen_list *l, const char *name)
{
	struct seen key = { .name = (char *)name };

	if (!l->nr)
		return NULL;
	return bsearch(&key, l->items, l->nr, sizeof(*l->items), cmp_seen);
}

static struct seen *seen_add(struct seen_list *l, const char *name)
{
	struct seen *s;

	PR_ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	s = &l->items[l->nr++];
	memset(s, 0, sizeof(*s));
	s->name = pr_strdup(name);
	return s;
}

/*
 * Read a cursor written by seen_write into a list sorted by name; lines
 * that do not parse are dropped.
 */
static void seen_parse(struct seen_list *out, const char *cursor)
{
	const char *p = cursor;

	while (p && *p) {
		size_t n = strcspn(p, "\n");
		const char *line = p, *q;
		struct seen tmp;
		char *end;

		p += n + (p[n] ? 1 : 0);
		if (n < 42 || strspn(line, "0123456789abcdef") != 40 ||
		    line[40] != ' ')
			continue;
		q = line + 41;
		tmp.size = strtoll(q, &end, 10);
		if (*end != ' ')
			continue;
		tmp.mtime = strtoll(end + 1, &end, 10);
		if (*end != ' ' || end + 1 >= line + n)
			continue;
		q = end + 1;
		{
			char *name = pr_strndup(q, (size_t)(line + n - q));
			struct seen *s = seen_add(out, name);

			free(name);
			memcpy(s->hash, line, 40);
			s->hash[40] = 0;
			s->size = tmp.size;
			s->mtime = tmp.mtime;
		}
	}
	if (out->nr)
		qsort(out->items, out->nr, sizeof(*out->items), cmp_seen);
}

static int seen_write(struct pr_buf *out, const struct seen_list *l)
{
	size_t i;
	int err = 0;

	pr_buf_reset(out);
	for (i = 0; i < l->nr && !err; i++)
		if (l->items[i].hash[0])
			err = pr_buf_addf(out, "%s %lld %lld %s\n",
					  l->items[i].hash, l->items[i].size,
					  l->items[i].mtime, l->items[i].name);
	return err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the folder's candidate files, sorted. */
static int list_folder(struct pr_strlist *out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int err = 0;

	if (!d)
		return pr_error(PR_EIO, "mbox folder '%s': cannot open: %s",
				dir, strerror(errno));
	while ((de = readdir(d))) {
		/* a name with a newline cannot be a cursor line */
		if (de->d_name[0] == '.' || strchr(de->d_name, '\n'))
			continue;
		if (out->nr >= MBOX_SOURCE_FILES) {
			err = pr_error(PR_ETOOBIG,
				       "mbox folder '%s': more than %d files",
				       dir, MBOX_SOURCE_FILES);
			break;
		}
		pr_strlist_add(out, de->d_name);
	}
	closedir(d);
	if (out->nr)
		qsort(out->items, out->nr, sizeof(*out->items), cmp_names);
	return err;
}

static void hash_hex(char out[41], const char *data, size_t len)
{
	pr_sha1_git_blob_hex(out, data, len);
}

/*
 * The cursor's header: "mbox2 time=T" (when its poll ran), then "wait NAME"
 * for each file holding a mail of a version that waits.
 */
static int64_t cursor_time(const char *cursor)
{
	long long t = 0;

	if (cursor && !strncmp(cursor, "mbox2 time=", 11))
		t = strtoll(cursor + 11, NULL, 10);
	return t > 0 ? t : 0;
}

/*
 * The "wait NAME" lines at the top of the cursor, in out: a set, looked up
 * once per file (a folder of 10,000 waiting files made a list scan of it
 * quadratic).
 */
static void cursor_waits(struct pr_strset *out, const char *cursor)
{
	const char *p = cursor, *nl;

	while (p && (nl = strchr(p, '\n'))) {
		if (!strncmp(p, "wait ", 5)) {
			char *name = pr_strndup(p + 5, (size_t)(nl - p - 5));

			pr_strset_add(out, name);
			free(name);
		} else if (strncmp(p, "mbox2 ", 6))
			break; /* the file lines */
		p = nl + 1;
	}
}

/* One file being read into the batch. */
struct poll_file {
	size_t index; /* in name order */
	const char *name;
	int64_t mtime; /* seconds: the arrival of its mails */
	size_t seen_upto; /* its first bytes the last poll saw */
	const char *data;
	size_t at, line; /* where the walk to the next message is */
	struct pr_mailsrc_parts *parts;
};

/* pr_mbox_split's callback: one message into the batch, seen or not. */
static int add_message(const char *data, size_t len,
		       const struct pr_mbox_where *w, void *payload)
{
	struct poll_file *pf = payload;
	struct pr_buf pos = PR_BUF_INIT;
	size_t start;
	int err;

	/* the offset of the message's first line, for seen_upto */
	while (pf->line + 1 < w->line) {
		const char *nl = strchr(pf->data + pf->at, '\n');

		if (!nl)
			break;
		pf->at = (size_t)(nl + 1 - pf->data);
		pf->line++;
	}
	start = pf->at;
	/* a position sorts by file, then by message: "INDEX/NAME/NUMBER" */
	if (!(err = pr_buf_addf(&pos, "%010zu/%s/%010zu", pf->index, pf->name,
				w->number))) {
		struct pr_mailsrc_batch *b = &pf->parts->b;

		pr_mailsrc_parts_add(pf->parts, pos.ptr, data, len, pf->mtime);
		b->v[b->nr - 1].seen = start < pf->seen_upto;
	}
	pr_buf_release(&pos);
	return err;
}

/*
 * The cursor after the files [0, end) were read (a poll is read in parts,
 * connectors/mailsrc.h): the files after end as the last cursor had them,
 * and waiting when it said so.
 */
struct mbox_cursor {
	const struct seen_list *files;
	const struct pr_strlist *held; /* positions */
	int64_t now;
	const struct pr_strlist *names; /* the folder's files, in name order */
	const struct pr_strset *was_waiting;
	size_t end;
};

/* The file name in a position "INDEX/NAME/NUMBER", once in out. */
static void add_name(struct pr_strlist *out, struct pr_strset *names,
		     const char *pos)
{
	const char *a = strchr(pos, '/'), *b = strrchr(pos, '/');
	char *name;

	if (!a || a == b)
		return;
	name = pr_strndup(a + 1, (size_t)(b - a - 1));
	if (pr_strset_add(names, name))
		pr_strlist_add(out, name);
	free(name);
}

static int write_cursor(struct pr_buf *out, const char *low, void *payload)
{
	const struct mbox_cursor *mc = payload;
	struct pr_buf files = PR_BUF_INIT;
	struct pr_strlist waits = { 0 };
	struct pr_strset names = { NULL, 0, 0 };
	size_t i;
	int err;

	/* the files to read again are the ones in held */
	PR_UNUSED(low);
	for (i = 0; mc->held && i < mc->held->nr; i++)
		add_name(&waits, &names, mc->held->items[i]);
	for (i = mc->end; i < mc->names->nr; i++)
		if (pr_strset_has(mc->was_waiting, mc->names->items[i]) &&
		    pr_strset_add(&names, mc->names->items[i]))
			pr_strlist_add(&waits, mc->names->items[i]);
	err = pr_buf_addf(out, "mbox2 time=%lld\n", (long long)mc->now);
	for (i = 0; !err && i < waits.nr; i++)
		err = pr_buf_addf(out, "wait %s\n", waits.items[i]);
	if (!err && !(err = seen_write(&files, mc->files)))
		err = pr_buf_add(out, files.ptr, files.len);
	pr_strlist_release(&waits);
	pr_strset_release(&names);
	pr_buf_release(&files);
	return err;
}

/*
 * How much of a file the last poll saw: all of it when its hash is the
 * same; when it grew and its old bytes hash as the cursor says (mail was
 * appended), those; else nothing.
 */
static size_t seen_part(const struct seen *old, const char *data, size_t len,
			const char *hash)
{
	char prefix[41];

	if (!old || !old->hash[0])
		return 0;
	if (!strcmp(old->hash, hash))
		return len;
	if (old->size <= 0 || (size_t)old->size > len)
		return 0;
	hash_hex(prefix, data, (size_t)old->size);
	return strcmp(prefix, old->hash) ? 0 : (size_t)old->size;
}

struct count_ctx {
	pr_event_fn emit;
	void *payload;
	size_t nr;
};

static int count_event(const struct pr_event *ev, void *payload)
{
	struct count_ctx *cc = payload;

	cc->nr++;
	return cc->emit(ev, cc->payload);
}

/* Read file i into the part when it is new, changed or holds a wait. */
static int read_one(struct pr_mailsrc_parts *parts, struct pr_buf *data,
		    const struct pr_instance *inst, const struct pr_strset *w,
		    const struct seen *was, struct seen *s, size_t i,
		    bool *fresh, bool *moved, struct pr_buf *bad,
		    size_t *nr_bad)
{
	const struct pr_mbox_ctx *ctx = inst->ctx;
	struct pr_buf path = PR_BUF_INIT;
	struct poll_file pf;
	struct stat sb;
	char hash[41];
	long long mtime;
	int err;

	if ((err = pr_buf_addf(&path, "%s/%s", ctx->path, s->name)))
		goto done;
	if (stat(path.ptr, &sb) < 0 || !S_ISREG(sb.st_mode))
		goto done;
	mtime = (long long)sb.st_mtim.tv_sec * 1000000000LL +
		sb.st_mtim.tv_nsec;
	/* an unchanged file (size and mtime) is read only when one of its
	 * versions waits */
	if (s->hash[0] && s->size == (long long)sb.st_size &&
	    s->mtime == mtime && !pr_strset_has(w, s->name))
		goto done;
	pr_buf_reset(data);
	if ((err = pr_buf_read_file(data, path.ptr)))
		goto done;
	if (s->hash[0] && s->size == (long long)sb.st_size &&
	    s->mtime == mtime) {
		memcpy(hash, s->hash, 41);
	} else {
		hash_hex(hash, data->ptr, data->len);
		*moved = true;
	}
	memset(&pf, 0, sizeof(pf));
	pf.index = i;
	pf.name = s->name;
	pf.mtime = (int64_t)sb.st_mtime;
	pf.seen_upto = seen_part(was, data->ptr, data->len, hash);
	pf.data = data->ptr;
	pf.parts = parts;
	*fresh = pf.seen_upto < data->len;
	s->size = (long long)sb.st_size;
	s->mtime = mtime;
	memcpy(s->hash, hash, 41);
	if (pr_mbox_split(data->ptr, data->len, path.ptr, NULL, add_message,
			  &pf) < 0 &&
	    *fresh) {
		/* reported once; the other files still go through */
		if (!(*nr_bad)++)
			pr_buf_addf(bad, "mbox file '%s': %s", path.ptr,
				    pr_error_message());
		pr_log_warn(inst->prefix, "mbox file '%s': %s", path.ptr,
			    pr_error_message());
	}
	pr_error_clear();
done:
	pr_buf_release(&path);
	return err;
}

static int mbox_poll(struct pr_instance *inst, const char *cursor,
		     pr_event_fn emit, void *payload)
{
	const struct pr_mbox_ctx *ctx = inst->ctx;
	struct seen_list old = { NULL, 0, 0 }, cur = { NULL, 0, 0 };
	struct pr_strlist names = { 0 }, skipped = { 0 }, held = { 0 };
	struct pr_strset was_waiting = { NULL, 0, 0 };
	struct pr_buf data, text = PR_BUF_INIT, bad = PR_BUF_INIT;
	struct pr_mailsrc_parts parts;
	struct pr_mailsrc_opts o;
	struct mbox_cursor mc;
	struct count_ctx cc = { emit, payload, 0 };
	struct pr_event ev = { 0 };
	size_t i, kept = 0, nr_bad = 0, total = 0;
	bool moved = !cursor, *fresh = NULL;
	int err = 0;

	memset(&parts, 0, sizeof(parts));
	mc.files = &cur;
	mc.held = &held;
	mc.now = (int64_t)time(NULL);
	mc.names = &names;
	mc.was_waiting = &was_waiting;
	mc.end = 0;
	pr_buf_init(&data, PR_LIMIT_MBOX_BYTES);
	seen_parse(&old, cursor);
	cursor_waits(&was_waiting, cursor);
	if ((err = list_folder(&names, ctx->path)) ||
	    (err = pr_mailsrc_parts_init(&parts, NULL)))
		goto done;
	fresh = pr_calloc(names.nr + 1, sizeof(*fresh));
	for (i = 0; i < names.nr; i++) {
		struct seen *was = seen_find(&old, names.items[i]);
		struct seen *c = seen_add(&cur, names.items[i]);

		if (was) {
			c->size = was->size;
			c->mtime = was->mtime;
			memcpy(c->hash, was->hash, 41);
			kept++;
		}
	}
	if (kept != old.nr)
		moved = true;
	pr_mailsrc_opts_init(&o, inst, ctx->wait, &ctx->trusted, mc.now);
	o.has_prev = cursor != NULL;
	o.prev_time = cursor_time(cursor);
	o.cursor = write_cursor;
	o.cursor_payload = &mc;
	o.skipped = &skipped;
	o.held = &held;
	/*
	 * The files read are one stream, in name order: a series, its
	 * versions and its replies may be spread over several; it is
	 * emitted in parts of whole files (connectors/mailsrc.h).
	 */
	for (i = 0; i < names.nr; i++) {
		if ((err = read_one(&parts, &data, inst, &was_waiting,
				    seen_find(&old, names.items[i]),
				    &cur.items[i], i, &fresh[i], &moved, &bad,
				    &nr_bad)))
			goto done;
		total += data.len;
		pr_buf_reset(&data);
		if (total > PR_LIMIT_MBOX_BYTES) {
			err = pr_error(PR_ETOOBIG,
				       "mbox folder '%s': more than %zu MiB of "
				       "mail to read",
				       ctx->path, PR_LIMIT_MBOX_BYTES / PR_MIB);
			goto done;
		}
		if (i + 1 == names.nr || !pr_mailsrc_parts_full(&parts))
			continue;
		mc.end = i + 1;
		if ((err = pr_mailsrc_parts_emit(&parts, false, &o, count_event,
						 &cc)))
			goto done;
	}
	mc.end = names.nr;
	if ((err = pr_mailsrc_parts_emit(&parts, true, &o, count_event, &cc)))
		goto done;
	/* a message of a new or changed file that is not mail */
	for (i = 0; i < skipped.nr; i++) {
		size_t f = (size_t)strtoull(skipped.items[i], NULL, 10);

		if (f >= names.nr || !fresh[f])
			continue;
		if (!nr_bad++)
			pr_buf_addf(&bad,
				    "mbox file '%s/%s': message '%s' is "
				    "not a mail",
				    ctx->path, names.items[f],
				    skipped.items[i]);
		fresh[f] = false; /* once a file */
	}
	if (!cc.nr && (moved || nr_bad)) {
		/* a cursor-only event: new, removed, touched or bad files */
		if ((err = write_cursor(&text, NULL, &mc)))
			goto done;
		ev.kind = PR_EVENT_STATE;
		ev.cursor = pr_strdup(text.ptr);
		err = emit(&ev, payload);
		pr_event_release(&ev);
		if (err)
			goto done;
	}
	if (nr_bad)
		err = pr_error(PR_EPARSE, "%s%s", bad.ptr,
			       nr_bad > 1 ? " (and more files)" : "");
done:
	if (err < 0)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	free(fresh);
	pr_mailsrc_parts_release(&parts);
	pr_strlist_release(&skipped);
	pr_strlist_release(&held);
	pr_strset_release(&was_waiting);
	seen_list_release(&old);
	seen_list_release(&cur);
	pr_strlist_release(&names);
	pr_buf_release(&data);
	pr_buf_release(&text);
	pr_buf_release(&bad);
	return err;
}

static int mbox_feedback(struct pr_instance *inst, const struct pr_series *s,
			 const struct pr_report *report, const char *summary)
{
	const struct pr_mbox_ctx *ctx = inst->ctx;
	struct pr_buf mail = PR_BUF_INIT, entry = PR_BUF_INIT;
	struct pr_delivery d = { "feedback", 0, 1, NULL, 0 };
	size_t first = summary ? strcspn(summary, "\n") : 0;
	int fd = -1, err;

	if ((err = pr_buf_adds(&mail,
			       "From: patchrelay <patchrelay@localhost>\n")))
		goto done;
	/* a header line must stay one line whatever the source gave */
	if (s->submitter.email && !strpbrk(s->submitter.email, "\r\n") &&
	    (err = pr_buf_addf(&mail, "To: %s\n", s->submitter.email)))
		goto done;
	if ((err = pr_buf_adds(&mail, "Subject: [patchrelay] ")) ||
	    (err = pr_buf_addf(&mail, "%s:%s: ", s->origin_connector,
			       s->origin_key)))
		goto done;
	if (summary)
		err = pr_buf_add(&mail, summary, first);
	else
		err = pr_buf_adds(&mail, "refused");
	if (err || (err = pr_buf_adds(&mail, "\n\n")))
		goto done;
	if (summary && (err = pr_buf_addf(&mail, "%s\n", summary)))
		goto done;
	if (report->nr &&
	    ((summary && (err = pr_buf_addch(&mail, '\n'))) ||
	     (err = pr_report_render(&mail, report, PR_RENDER_MAIL))))
		goto done;
	d.mail = mail.ptr;
	d.len = mail.len;
	if ((err = render(&entry, &d)))
		goto done;
	fd = open(ctx->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 || pr_write_all(fd, entry.ptr, entry.len) < 0 ||
	    fsync(fd) < 0)
		err = pr_error(PR_EIO, "mbox '%s': cannot write feedback: %s",
			       ctx->path, strerror(errno));
done:
	if (fd >= 0)
		close(fd);
	pr_buf_release(&mail);
	pr_buf_release(&entry);
	return err;
}

static const struct pr_option mbox_options[] = {
	{ "path", PR_OPT_PATH, NULL,
	  "source: the folder to watch for mbox files; sink: the mbox file to "
	  "append to",
	  offsetof(struct pr_mbox_ctx, path), true, NULL },
	PR_MAILSRC_OPTIONS(struct pr_mbox_ctx),
	PR_OPTIONS_END,
};

const struct pr_connector_type pr_connector_mbox = {
	.abi = PR_ABI_VERSION,
	.name = "mbox",
	.summary =
		"mbox files: a folder of series as a source, a file as a sink",
	.caps = PR_CAP_SOURCE | PR_CAP_SINK | PR_CAP_FEEDBACK,
	.options = mbox_options,
	.ctx_size = sizeof(struct pr_mbox_ctx),
	.poll = mbox_poll,
	.deliver = mbox_deliver,
	.feedback = mbox_feedback,
};
