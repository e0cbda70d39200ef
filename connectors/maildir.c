#include "base/pr.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "connectors.h"
#include "engine/delivery.h"
#include "mailsrc.h"
#include "mail/mbox.h"

/*
 * The maildir sink: writes each mail, exactly as the core rendered it, into
 * PATH/new, creating PATH and its tmp/, new/ and cur/ when missing.
 *
 * Each message is written exactly once, also across crashes: its file name
 * is derived from the delivery key and the message index, not from the
 * time and pid as maildir(5) suggests, so a retry can see that the message
 * is already in new/ (or in cur/, where a reader moved it, with ":2,..."
 * flags appended) and write nothing.  The write goes to tmp/ first, is
 * fsync'ed and renamed into new/, so a reader never sees a partial mail
 * and a crash leaves at most a stale tmp/ file that the retry overwrites.
 *
 * The maildir source reads the messages of PATH/new and PATH/cur (a reader
 * moving one from new/ to cur/ keeps its name before ':' and its mtime),
 * each at the position "<mtime>.<name>" (connectors/mailsrc.h), and never
 * moves or flags them: the cursor says what was seen, by mtime and by the
 * names near its high mark (see window_cursor()).
 */

static int make_dir(const char *path)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	return pr_error(PR_EIO, "maildir '%s': cannot create: %s", path,
			strerror(errno));
}

/* Create PATH (and its parents) and the three maildir folders. */
static int make_maildir(const char *path)
{
	struct pr_buf b = PR_BUF_INIT;
	static const char *const subs[] = { "tmp", "new", "cur" };
	size_t i;
	int err = 0;

	if ((err = pr_buf_adds(&b, path)))
		goto done;
	for (i = 1; i < b.len; i++) {
		if (b.ptr[i] != '/')
			continue;
		b.ptr[i] = '\0';
		err = make_dir(b.ptr);
		b.ptr[i] = '/';
		if (err)
			goto done;
	}
	if ((err = make_dir(path)))
		goto done;
	for (i = 0; i < PR_ARRAY_SIZE(subs); i++) {
		pr_buf_reset(&b);
		if ((err = pr_buf_addf(&b, "%s/%s", path, subs[i])) ||
		    (err = make_dir(b.ptr)))
			goto done;
	}
done:
	pr_buf_release(&b);
	return err;
}

/*
 * The file name of a message: "patchrelay.<key>.<index>", the key with
 * every byte outside [A-Za-z0-9_-] written as %XX, so that distinct keys
 * give distinct names and no name holds '/', ':' or '.'.
 */
static int message_name(struct pr_buf *out, const struct pr_delivery *d)
{
	const unsigned char *k = (const unsigned char *)d->key;
	int err;

	if ((err = pr_buf_adds(out, "patchrelay.")))
		return err;
	for (; *k; k++) {
		if ((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		    (*k >= '0' && *k <= '9') || *k == '-' || *k == '_')
			err = pr_buf_addch(out, *k);
		else
			err = pr_buf_addf(out, "%%%02X", *k);
		if (err)
			return err;
	}
	return pr_buf_addf(out, ".%zu", d->index);
}

/* 1 when new/NAME or cur/NAME[:flags] exists, 0 when not, or an error. */
static int already_there(const char *path, const char *name)
{
	struct pr_buf b = PR_BUF_INIT;
	struct dirent *de;
	struct stat sb;
	size_t n = strlen(name);
	DIR *dir = NULL;
	int ret = 0;

	if ((ret = pr_buf_addf(&b, "%s/new/%s", path, name)))
		goto done;
	if (stat(b.ptr, &sb) == 0) {
		ret = 1;
		goto done;
	}
	pr_buf_reset(&b);
	if ((ret = pr_buf_addf(&b, "%s/cur", path)))
		goto done;
	dir = opendir(b.ptr);
	if (!dir) {
		ret = pr_error(PR_EIO, "maildir '%s': cannot read: %s", b.ptr,
			       strerror(errno));
		goto done;
	}
	while ((de = readdir(dir))) {
		if (!strncmp(de->d_name, name, n) &&
		    (de->d_name[n] == '\0' || de->d_name[n] == ':')) {
			ret = 1;
			break;
		}
	}
done:
	if (dir)
		closedir(dir);
	pr_buf_release(&b);
	return ret;
}

static int sync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	int ret = 0;

	if (fd < 0 || fsync(fd) < 0)
		ret = pr_error(PR_EIO, "maildir '%s': cannot sync: %s", path,
			       strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

static int maildir_deliver(struct pr_instance *inst,
			   const struct pr_delivery *d,
			   struct pr_deliver_result *out)
{
	const struct pr_maildir_ctx *ctx = inst->ctx;
	struct pr_buf name = PR_BUF_INIT, tmp = PR_BUF_INIT, dst = PR_BUF_INIT;
	int fd = -1, err;

	out->status = PR_DELIVER_RETRY;
	out->retry_after_ms = 0;
	if ((err = make_maildir(ctx->path)) || (err = message_name(&name, d)))
		goto done;
	err = already_there(ctx->path, name.ptr);
	if (err < 0)
		goto done;
	if (err == 1) {
		err = 0;
		out->status = PR_DELIVER_OK;
		goto done;
	}
	if ((err = pr_buf_addf(&tmp, "%s/tmp/%s", ctx->path, name.ptr)) ||
	    (err = pr_buf_addf(&dst, "%s/new/%s", ctx->path, name.ptr)))
		goto done;
	/* a stale tmp/ file from a crashed attempt is overwritten */
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || pr_write_all(fd, d->mail, d->len) < 0 || fsync(fd) < 0) {
		err = pr_error(PR_EIO, "maildir '%s': cannot write: %s",
			       tmp.ptr, strerror(errno));
		goto done;
	}
	if (close(fd) < 0) {
		fd = -1;
		err = pr_error(PR_EIO, "maildir '%s': cannot write: %s",
			       tmp.ptr, strerror(errno));
		goto done;
	}
	fd = -1;
	if (rename(tmp.ptr, dst.ptr) < 0) {
		err = pr_error(PR_EIO,
			       "maildir '%s': cannot rename into new/: %s",
			       tmp.ptr, strerror(errno));
		goto done;
	}
	/* make the rename durable before the engine records it as sent */
	pr_buf_reset(&tmp);
	if ((err = pr_buf_addf(&tmp, "%s/new", ctx->path)) ||
	    (err = sync_dir(tmp.ptr)))
		goto done;
	out->status = PR_DELIVER_OK;
done:
	if (fd >= 0)
		close(fd);
	if (err)
		err = pr_error_wrap(err, "sink '%s'", inst->name);
	pr_buf_release(&name);
	pr_buf_release(&tmp);
	pr_buf_release(&dst);
	return err;
}

/*
 * How far below the newest mtime seen the cursor still names each file it
 * saw: a file delivered late (written into tmp/ before a file the last
 * poll read, renamed into new/ after it) within that many seconds is read.
 */
#define SEEN_WINDOW 60

/* A file of new/ or cur/: its path, its name before ':', its position. */
struct entry {
	char *path;
	char *name;
	char *pos;
	int64_t mtime;
};

struct scan {
	struct entry *v;
	size_t nr, alloc;
};

static void scan_release(struct scan *sc)
{
	size_t i;

	for (i = 0; i < sc->nr; i++) {
		free(sc->v[i].path);
		free(sc->v[i].name);
		free(sc->v[i].pos);
	}
	free(sc->v);
	memset(sc, 0, sizeof(*sc));
}

/* List the regular files of PATH/sub (none when it does not exist). */
static int scan_folder(struct scan *sc, const char *path, const char *sub)
{
	struct pr_buf dir = PR_BUF_INIT, file = PR_BUF_INIT;
	struct dirent *de;
	DIR *d = NULL;
	int err = 0;

	if ((err = pr_buf_addf(&dir, "%s/%s", path, sub)))
		goto done;
	d = opendir(dir.ptr);
	if (!d) {
		/* a maildir nobody delivered to yet has no new/ or cur/ */
		if (errno != ENOENT)
			err = pr_error(PR_EIO, "maildir '%s': cannot read: %s",
				       dir.ptr, strerror(errno));
		goto done;
	}
	while ((de = readdir(d))) {
		struct entry *e;
		struct stat sb;
		size_t n = strcspn(de->d_name, ":");

		if (de->d_name[0] == '.')
			continue;
		pr_buf_reset(&file);
		if ((err = pr_buf_addf(&file, "%s/%s", dir.ptr, de->d_name)))
			goto done;
		if (stat(file.ptr, &sb) < 0 || !S_ISREG(sb.st_mode))
			continue; /* moved away meanwhile, or not a mail */
		PR_ALLOC_GROW(sc->v, sc->nr + 1, sc->alloc);
		e = &sc->v[sc->nr++];
		e->path = pr_strdup(file.ptr);
		e->name = pr_strndup(de->d_name, n);
		e->mtime = (int64_t)sb.st_mtime;
		pr_buf_reset(&file);
		if ((err = pr_buf_addf(&file, "%020lld.%s", (long long)e->mtime,
				       e->name)))
			goto done;
		e->pos = pr_strdup(file.ptr);
	}
done:
	if (d)
		closedir(d);
	pr_buf_release(&dir);
	pr_buf_release(&file);
	return err;
}

/* mbox_split's callback: the one message of a file, CRs dropped. */
struct one_file {
	struct pr_mailsrc_parts *parts;
	const struct entry *e;
	bool seen, waited;
};

static int add_message(const char *data, size_t len,
		       const struct pr_mbox_where *w, void *payload)
{
	struct one_file *f = payload;

	PR_UNUSED(w);
	pr_mailsrc_parts_add(f->parts, f->e->pos, data, len, f->e->mtime);
	f->parts->b.v[f->parts->b.nr - 1].seen = f->seen;
	f->parts->b.v[f->parts->b.nr - 1].waited = f->waited;
	return 0;
}

/* Add the message of file e to the batch, seen or not, waited or not. */
static int read_entry(struct pr_mailsrc_parts *parts, const struct entry *e,
		      bool seen, bool waited)
{
	struct pr_mbox_opts mo = { false };
	struct one_file f = { parts, e, seen, waited };
	int err;

	/* a chunk at a time, the message passed without a copy */
	err = pr_mbox_read_path(e->path, &mo, add_message, &f);
	if (err == PR_ENOENT)
		err = 0; /* moved away meanwhile (into cur/: read there next) */
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The seconds of a position "<mtime as 20 digits>.<name>". */
static int64_t pos_time(const char *pos)
{
	return pos ? (int64_t)strtoll(pos, NULL, 10) : 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->pos,
		      ((const struct entry *)b)->pos);
}

/*
 * The cursor: below high's second less SEEN_WINDOW every file was seen,
 * from there on exactly those named in `seen`.  After a part (a catch-up
 * is read in parts, connectors/mailsrc.h) it describes the files up to the
 * part's last (`end`) as read and the others as the last cursor did.
 */
struct window {
	const struct pr_mailsrc_cursor *prev; /* NULL: the first poll */
	const struct scan *sc; /* sorted by position */
	int64_t now;
	struct pr_strlist held; /* the positions of the mails that wait */
	size_t end; /* the files sc->v[0..end) were read, or passed over */
};

static bool was_seen(const struct window *w, const struct entry *e)
{
	const struct pr_mailsrc_cursor *c = w->prev;

	if (!c)
		return false;
	/* a cursor of before the seen names: everything up to high */
	if (!c->has_seen)
		return c->high && strcmp(e->pos, c->high) <= 0;
	/* no high: every file read was dated ahead of the clock, and named */
	if (c->high && e->mtime < pos_time(c->high) - SEEN_WINDOW)
		return true;
	return pr_mailsrc_list_has(&c->seen, e->name);
}

/* l (borrowed) and the held files of the last cursor after the part. */
static void held_after(struct pr_strlist *l, const struct window *w,
		       const char **low)
{
	const struct pr_strlist *h = w->prev ? &w->prev->held : NULL;
	const char *end = w->end ? w->sc->v[w->end - 1].pos : NULL;
	size_t i;

	if (w->end == w->sc->nr || !h || !h->nr)
		return;
	l->items = pr_calloc(w->held.nr + h->nr + 1, sizeof(char *));
	if (w->held.nr)
		memcpy(l->items, w->held.items, w->held.nr * sizeof(char *));
	for (i = 0; i < h->nr; i++) {
		if (end && strcmp(h->items[i], end) <= 0)
			continue;
		l->items[l->nr++] = h->items[i];
		/* sorted: the first is the oldest */
		if (!*low)
			*low = h->items[i];
	}
}

static int window_cursor(struct pr_buf *out, const char *low, void *payload)
{
	const struct window *w = payload;
	struct pr_mailsrc_cursor next;
	const char **names = NULL;
	size_t i, nr = 0;
	int64_t floor;
	int err;

	memset(&next, 0, sizeof(next));
	next.epoch = "";
	next.high = w->prev ? w->prev->high : NULL;
	/* a file dated ahead of the clock does not move high: it is named */
	for (i = 0; i < w->end; i++)
		if (w->sc->v[i].mtime <= w->now &&
		    (!next.high || strcmp(w->sc->v[i].pos, next.high) > 0))
			next.high = w->sc->v[i].pos;
	floor = pos_time(next.high) - SEEN_WINDOW;
	names = pr_calloc(w->sc->nr + 1, sizeof(*names));
	/* after the part, the files the last cursor saw stay seen */
	for (i = 0; i < w->sc->nr; i++)
		if (w->sc->v[i].mtime >= floor &&
		    (i < w->end || was_seen(w, &w->sc->v[i])))
			names[nr++] = w->sc->v[i].name;
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_str);
	/* borrowed: the lists are not released */
	next.seen.items = (char **)names;
	next.seen.nr = nr;
	next.has_seen = true;
	next.has_held = true;
	next.held = w->held;
	/* and what it held after the part waits still */
	held_after(&next.held, w, &low);
	next.low = (char *)(low ? low : next.high);
	next.time = w->now;
	err = pr_mailsrc_cursor_format(out, &next);
	free(names);
	if (next.held.items != w->held.items)
		free(next.held.items);
	return err;
}

static int maildir_poll(struct pr_instance *inst, const char *cursor,
			pr_event_fn emit, void *payload)
{
	const struct pr_maildir_ctx *ctx = inst->ctx;
	struct pr_mailsrc_cursor prev;
	struct pr_mailsrc_parts parts;
	struct pr_mailsrc_opts o;
	struct scan sc = { NULL, 0, 0 };
	struct window w;
	struct stat sb;
	size_t i;
	int err = 0;

	memset(&prev, 0, sizeof(prev));
	memset(&parts, 0, sizeof(parts));
	memset(&w, 0, sizeof(w));
	if (cursor && (err = pr_mailsrc_cursor_parse(&prev, cursor)))
		goto done;
	if (stat(ctx->path, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		err = pr_error(PR_ENOENT, "maildir '%s': not a directory",
			       ctx->path);
		goto done;
	}
	if ((err = scan_folder(&sc, ctx->path, "new")) ||
	    (err = scan_folder(&sc, ctx->path, "cur")) ||
	    (err = pr_mailsrc_parts_init(&parts, NULL)))
		goto done;
	if (sc.nr)
		qsort(sc.v, sc.nr, sizeof(*sc.v), cmp_entry);
	w.prev = cursor ? &prev : NULL;
	w.sc = &sc;
	w.now = (int64_t)time(NULL);
	pr_mailsrc_opts_init(&o, inst, ctx->wait, &ctx->trusted, w.now);
	o.has_prev = cursor != NULL;
	o.prev_time = cursor ? prev.time : 0;
	o.knows_waited = prev.has_held;
	o.held = &w.held;
	o.cursor = window_cursor;
	o.cursor_payload = &w;
	/* what was not seen, and what is at or after low (seen or not), in
	 * parts (connectors/mailsrc.h) */
	for (i = 0; i < sc.nr; i++) {
		bool seen = was_seen(&w, &sc.v[i]);
		bool waited = pr_mailsrc_list_has(&prev.held, sc.v[i].pos);
		bool read = !seen || !prev.low ||
			    strcmp(sc.v[i].pos, prev.low) >= 0;

		if (read && (err = read_entry(&parts, &sc.v[i], seen, waited)))
			goto done;
		if (i + 1 == sc.nr || !pr_mailsrc_parts_full(&parts))
			continue;
		w.end = i + 1;
		if ((err = pr_mailsrc_parts_emit(&parts, false, &o, emit,
						 payload)))
			goto done;
	}
	w.end = sc.nr;
	err = pr_mailsrc_parts_emit(&parts, true, &o, emit, payload);
done:
	if (err < 0)
		err = pr_error_wrap(err, "source '%s'", inst->name);
	pr_mailsrc_cursor_release(&prev);
	pr_mailsrc_parts_release(&parts);
	scan_release(&sc);
	pr_strlist_release(&w.held);
	return err;
}

static const struct pr_option maildir_options[] = {
	{ "path", PR_OPT_PATH, NULL,
	  "sink: the maildir to write to (cur/, new/ and tmp/ are created); "
	  "source: the maildir to read",
	  offsetof(struct pr_maildir_ctx, path), true, NULL },
	PR_MAILSRC_OPTIONS(struct pr_maildir_ctx),
	PR_OPTIONS_END,
};

const struct pr_connector_type pr_connector_maildir = {
	.abi = PR_ABI_VERSION,
	.name = "maildir",
	.summary = "a maildir: mails as a sink, a list's traffic as a source",
	.caps = PR_CAP_SOURCE | PR_CAP_SINK,
	.options = maildir_options,
	.ctx_size = sizeof(struct pr_maildir_ctx),
	.poll = maildir_poll,
	.deliver = maildir_deliver,
};
