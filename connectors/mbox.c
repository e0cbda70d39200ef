#include "base/pr.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mail/am.h"
#include "engine/cfg.h"
#include "connectors.h"
#include "engine/delivery.h"
#include "mail/mailinfo.h"
#include "mail/mbox.h"
#include "model/report_render.h"

/*
 * The mbox connector: as a source, a folder where each new mbox file is one
 * series version; as a sink, one mbox file the mails are appended to.
 *
 * The source reads every regular file of the folder whose name does not
 * start with '.', in name order, as git mailsplit reads a mailbox: the
 * file is one version (its patches by their n/N markers, its 0/N mail the
 * cover letter), one event.  The cursor lists the files seen,
 * one line each, "HASH SIZE MTIME NAME" (HASH the SHA-1 of the content,
 * MTIME in nanoseconds), for the files present at the last poll only, so
 * it is bounded by the folder (at most MBOX_SOURCE_FILES files).  A file
 * whose size and mtime are unchanged is not read again; a changed one is
 * read and hashed, and only a new hash makes events (an unchanged series
 * is the same fingerprint anyway, so nothing is sent twice).  A file that
 * does not parse is recorded in the cursor too (it is reported once, and
 * read again once it changes), the others still go through, and the poll
 * then fails with a message naming it.
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

struct file_mails {
	struct pr_patch **mails;
	size_t nr, alloc;
	char base[41]; /* a patch's base-commit line, "" when none */
};

/* "base-commit: <40 hex>" on a line of text, as format-patch --base writes. */
static void find_base(char out[41], const char *text)
{
	const char *p = text;

	while (p && (p = strstr(p, "base-commit: "))) {
		if ((p == text || p[-1] == '\n') &&
		    strspn(p + 13, "0123456789abcdef") == 40) {
			memcpy(out, p + 13, 40);
			out[40] = 0;
			return;
		}
		p += 13;
	}
}

static int file_mail(const char *data, size_t len,
		     const struct pr_mbox_where *w, void *payload)
{
	struct file_mails *fm = payload;
	struct pr_mailinfo mi;
	struct pr_patch *p = NULL;
	int err;

	pr_mailinfo_init(&mi);
	if (fm->nr >= PR_LIMIT_SERIES_PATCHES * 4) {
		err = pr_error(PR_ETOOBIG, "more than %zu mails",
			       (size_t)PR_LIMIT_SERIES_PATCHES * 4);
		goto done;
	}
	if ((err = pr_mailinfo_parse(&mi, data, len)) ||
	    (err = pr_am_patch_from_mailinfo(&p, &mi))) {
		err = pr_error_wrap(err, "message %zu line %zu", w->number,
				    w->line);
		goto done;
	}
	if (p->diff)
		find_base(fm->base, p->diff);
	pr_am_bare_diff(p);
	PR_ALLOC_GROW(fm->mails, fm->nr + 1, fm->alloc);
	fm->mails[fm->nr++] = p;
done:
	pr_mailinfo_release(&mi);
	return err;
}

/*
 * The blurb of a format-patch cover letter: its text before the shortlog
 * ("Name (N):" after a blank line), which the outgoing cover renders anew.
 */
static char *cover_blurb(const struct pr_patch *c)
{
	const char *b = c->body ? c->body : "", *p = b;
	size_t n = c->author.name ? strlen(c->author.name) : 0;

	while (n && (p = strstr(p, c->author.name))) {
		if (p - b >= 2 && p[-1] == '\n' && p[-2] == '\n' &&
		    p[n] == ' ' && p[n + 1] == '(' &&
		    strspn(p + n + 2, "0123456789") &&
		    !strncmp(p + n + 2 + strspn(p + n + 2, "0123456789"),
			     "):\n", 3))
			return pr_strndup(b, (size_t)(p - 1 - b));
		p += n;
	}
	return pr_strdup(b);
}

static int cmp_index(const void *a, const void *b)
{
	const struct pr_patch *x = *(const struct pr_patch *const *)a;
	const struct pr_patch *y = *(const struct pr_patch *const *)b;

	return (x->prefix.index > y->prefix.index) -
	       (x->prefix.index < y->prefix.index);
}

/*
 * The file as one version: its patches (mails with a diff) by their n/N
 * markers, each 1..N exactly once, and the 0/N mail as the cover letter.
 * The file says what the version is, so no threading is needed (git
 * format-patch --stdout writes none).  Replies in the file are ignored.
 */
static int version_of(struct pr_version **out, struct file_mails *fm)
{
	struct pr_version *v = pr_version_new(1);
	struct pr_patch *cover = NULL;
	size_t i;
	int total = -1, err = 0;

	for (i = 0; i < fm->nr; i++) {
		struct pr_patch *p = fm->mails[i];

		if (pr_am_is_reply(p))
			continue;
		if (p->diff && p->diff[0]) {
			int t = p->prefix.total ? p->prefix.total : 1;

			if (total >= 0 && t != total) {
				err = pr_error(PR_EPARSE,
					       "message %zu: patch %d/%d in a "
					       "series of %d",
					       i + 1, p->prefix.index, t,
					       total);
				goto done;
			}
			total = t;
			if (!p->prefix.total)
				p->prefix.index = 1;
			pr_version_add_patch(v, p);
			fm->mails[i] = NULL;
		} else if (!p->prefix.index && p->prefix.total && !cover) {
			cover = p;
		}
	}
	if (!v->nr) {
		err = pr_error(PR_EPARSE, "no patch in the file");
		goto done;
	}
	qsort(v->patches, v->nr, sizeof(*v->patches), cmp_index);
	for (i = 0; i < v->nr; i++)
		if (v->patches[i]->prefix.index != (int)i + 1) {
			err = pr_error(PR_EPARSE,
				       "patch %zu/%d missing or sent twice",
				       i + 1, total);
			goto done;
		}
	if ((int)v->nr != total) {
		err = pr_error(PR_EPARSE, "%zu of %d patches", v->nr, total);
		goto done;
	}
	v->number = v->patches[0]->prefix.version;
	if (cover) {
		v->cover = pr_calloc(1, sizeof(*v->cover));
		v->cover->subject = pr_strdup(cover->subject);
		v->cover->body = cover_blurb(cover);
		find_base(v->base_commit, cover->body);
	}
	if (!v->base_commit[0])
		memcpy(v->base_commit, fm->base, sizeof(v->base_commit));
done:
	if (err) {
		pr_version_free(v);
		v = NULL;
	}
	*out = v;
	return err;
}

/* Parse one file into a series with its one version. */
static int read_series(struct pr_series **out, const char *source,
		       const char *path, const char *data, size_t len)
{
	struct file_mails fm = { NULL, 0, 0, "" };
	struct pr_version *v = NULL;
	const struct pr_patch *first;
	const char *key;
	size_t i;
	int err;

	*out = NULL;
	if ((err = pr_mbox_split(data, len, path, NULL, file_mail, &fm)) ||
	    (err = version_of(&v, &fm)))
		goto done;
	first = v->patches[0];
	/*
	 * The key must be the same for every version: the cover letter's
	 * subject (unless format-patch's placeholder), else the first
	 * patch's.
	 */
	if (v->cover && strcmp(v->cover->subject, "*** SUBJECT HERE ***"))
		key = v->cover->subject;
	else
		key = first->subject;
	*out = pr_series_new(source, key);
	pr_ident_set(&(*out)->submitter, first->author.name,
		     first->author.email);
	pr_series_add_version(*out, v);
	v = NULL;
done:
	pr_version_free(v);
	for (i = 0; i < fm.nr; i++)
		pr_patch_free(fm.mails[i]);
	free(fm.mails);
	return err;
}

static void hash_hex(char out[41], const char *data, size_t len)
{
	git_oid oid;

	git_libgit2_init();
	if (git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB) < 0)
		memset(&oid, 0, sizeof(oid));
	git_oid_tostr(out, 41, &oid);
	git_libgit2_shutdown();
}

static int mbox_poll(struct pr_instance *inst, const char *cursor,
		     pr_event_fn emit, void *payload)
{
	const struct pr_mbox_ctx *ctx = inst->ctx;
	struct seen_list old = { NULL, 0, 0 }, cur = { NULL, 0, 0 };
	struct pr_strlist names = { 0 };
	struct pr_buf path = PR_BUF_INIT, data, text = PR_BUF_INIT;
	struct pr_buf bad = PR_BUF_INIT;
	struct pr_series *series = NULL;
	struct pr_event ev = { 0 };
	size_t i, kept = 0, nr_bad = 0;
	bool moved = !cursor;
	int err = 0;

	pr_buf_init(&data, PR_LIMIT_MBOX_BYTES);
	seen_parse(&old, cursor);
	if ((err = list_folder(&names, ctx->path)))
		goto done;
	/*
	 * One entry per file, in name order: what was seen of it, or an
	 * empty hash for a file not yet read (seen_write leaves it out).
	 */
	for (i = 0; i < names.nr; i++) {
		struct seen *o = seen_find(&old, names.items[i]);
		struct seen *c = seen_add(&cur, names.items[i]);

		if (o) {
			c->size = o->size;
			c->mtime = o->mtime;
			memcpy(c->hash, o->hash, 41);
			kept++;
		}
	}
	if (kept != old.nr)
		moved = true;
	for (i = 0; i < names.nr; i++) {
		struct seen *s = &cur.items[i];
		struct stat sb;
		char hash[41];
		long long mtime;

		pr_buf_reset(&path);
		if ((err = pr_buf_addf(&path, "%s/%s", ctx->path,
				       names.items[i])))
			goto done;
		if (stat(path.ptr, &sb) < 0 || !S_ISREG(sb.st_mode))
			continue;
		mtime = (long long)sb.st_mtim.tv_sec * 1000000000LL +
			sb.st_mtim.tv_nsec;
		if (s->hash[0] && s->size == (long long)sb.st_size &&
		    s->mtime == mtime)
			continue;
		pr_buf_reset(&data);
		if ((err = pr_buf_read_file(&data, path.ptr)))
			goto done;
		hash_hex(hash, data.ptr, data.len);
		moved = true;
		if (!strcmp(s->hash, hash)) {
			/* touched, not changed */
			s->size = (long long)sb.st_size;
			s->mtime = mtime;
			continue;
		}
		s->size = (long long)sb.st_size;
		s->mtime = mtime;
		memcpy(s->hash, hash, 41);
		err = read_series(&series, inst->name, path.ptr, data.ptr,
				  data.len);
		if (err) {
			/* reported once; the other files still go through */
			if (!nr_bad++)
				pr_buf_addf(&bad, "mbox file '%s': %s",
					    path.ptr, pr_error_message());
			pr_log_warn(inst->prefix, "mbox file '%s': %s",
				    path.ptr, pr_error_message());
			err = 0;
			continue;
		}
		if ((err = seen_write(&text, &cur)))
			goto done;
		ev.kind = PR_EVENT_VERSION;
		ev.series = series;
		series = NULL;
		ev.cursor = pr_strdup(text.ptr);
		err = emit(&ev, payload);
		pr_event_release(&ev);
		memset(&ev, 0, sizeof(ev));
		if (err)
			goto done;
		moved = false;
	}
	if ((err = seen_write(&text, &cur)))
		goto done;
	if (moved || nr_bad) {
		/* a cursor-only event: removed, touched or bad files */
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
	pr_series_free(series);
	seen_list_release(&old);
	seen_list_release(&cur);
	pr_strlist_release(&names);
	pr_buf_release(&path);
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
