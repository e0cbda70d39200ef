#include "base/pr.h"
#include "mail/mbox.h"
#include "mail/mail.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

bool pr_mbox_is_from_line(const char *line, size_t len)
{
	const char *p;
	long year = 0;
	size_t i;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len < 20 || memcmp(line, "From ", 5))
		return false;
	/* the last "hh:mm" of the date, then a year after 1990 */
	for (p = line + len - 1; p > line + 5; p--)
		if (*p == ':')
			break;
	if (p <= line + 9 || p + 3 > line + len)
		return false;
	if (!isdigit((unsigned char)p[-4]) || !isdigit((unsigned char)p[-2]) ||
	    !isdigit((unsigned char)p[-1]) || !isdigit((unsigned char)p[1]) ||
	    !isdigit((unsigned char)p[2]))
		return false;
	for (i = 3; p + i < line + len && p[i] == ' '; i++)
		;
	for (; p + i < line + len && isdigit((unsigned char)p[i]) &&
	       year < 100000;
	     i++)
		year = year * 10 + (p[i] - '0');
	return year > 90;
}

static bool is_escaped_from(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && line[i] == '>')
		i++;
	return i > 0 && len - i >= 5 && !memcmp(line + i, "From ", 5);
}

static bool is_blank(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)line[i]))
			return false;
	return true;
}

/* Bytes read at a time from a file; a message may span many reads. */
#define READ_CHUNK (256 * PR_KIB)

enum split_mode {
	UNDECIDED,
	MBOX,
	ONE_MESSAGE
};

/*
 * A split in progress over a window of the input: w[mstart, scan) are the
 * whole lines of the message being read, w[scan, ...) what is not read yet.
 */
struct split {
	const char *path;
	const struct pr_mbox_opts *opts;
	pr_mbox_cb cb;
	void *payload;
	enum split_mode mode;
	size_t mstart, scan;
	size_t searched; /* w[scan, searched) holds no LF: a line in reads */
	size_t number, lineno, first;
	size_t out_len; /* the message's bytes once CRs and '>'s are dropped */
	bool copy; /* a CR or a '>' is dropped: the message goes through msg */
	bool writable; /* the window may hold a NUL after a message a moment */
	struct pr_buf msg;
};

/* One line as the message holds it: CR before LF and a mboxrd '>' gone. */
static size_t line_out(const struct split *s, const char **line, size_t n)
{
	const char *l = *line;

	if (s->opts && s->opts->mboxrd && l[0] == '>' &&
	    is_escaped_from(l, n)) {
		l++;
		n--;
	}
	*line = l;
	if (n >= 2 && l[n - 1] == '\n' && l[n - 2] == '\r')
		return n - 1;
	return n;
}

/* Give the callback w[mstart, end), through msg when bytes are dropped. */
static int emit(struct split *s, char *w, size_t end)
{
	struct pr_mbox_where where = { s->path, ++s->number, s->first };
	size_t pos = s->mstart, start, n, out;
	int err;

	if (!s->copy && s->writable) {
		char save = w[end];

		/* a C string as well, as the callbacks had from msg */
		w[end] = '\0';
		err = s->cb(w + s->mstart, end - s->mstart, &where, s->payload);
		w[end] = save;
		return err;
	}
	pr_buf_reset(&s->msg);
	if (!s->copy) {
		if ((err = pr_buf_add(&s->msg, w + pos, end - pos)))
			return err;
		pos = end;
	}
	while (pos < end) {
		const char *line;

		start = pos;
		n = pr_mail_next_line(w, end, &pos);
		line = w + start;
		out = line_out(s, &line, n);
		/* with its CR dropped, the line is out - 1 bytes and a LF */
		if (out < (size_t)(w + pos - line)) {
			err = pr_buf_add(&s->msg, line, out - 1);
			if (!err)
				err = pr_buf_addch(&s->msg, '\n');
		} else {
			err = pr_buf_add(&s->msg, line, out);
		}
		if (err)
			return err;
	}
	return s->cb(s->msg.ptr, s->msg.len, &where, s->payload);
}

/* The first line that is not blank decides: a mailbox or one message. */
static void decide(struct split *s, const char *line, size_t n)
{
	if (n && pr_mbox_is_from_line(line, n)) {
		s->mode = MBOX;
		s->mstart = s->scan; /* blank lines before it are dropped */
		s->first = s->lineno + 1;
		return;
	}
	s->mode = ONE_MESSAGE;
	s->scan = s->mstart = s->searched = 0;
	s->lineno = 0;
	s->first = 1;
}

static int too_big(const struct split *s)
{
	int err = pr_error(PR_ETOOBIG, "input over the %zu-byte limit",
			   (size_t)PR_LIMIT_MAIL_BYTES);

	return pr_error_wrap(err, "mbox '%s' message %zu line %zu", s->path,
			     s->number + 1, s->first);
}

/* Read the whole lines of w[scan, len), and at eof the rest. */
static int feed(struct split *s, char *w, size_t len, bool eof)
{
	size_t start, n, out;
	const char *line, *nl;
	int err;

	for (;;) {
		start = s->scan;
		if (s->searched < start)
			s->searched = start;
		nl = s->searched < len
			     ? memchr(w + s->searched, '\n', len - s->searched)
			     : NULL;
		if (!nl && !(eof && start < len)) {
			s->searched = len;
			/* a line longer than a message may be: no more reads */
			if (len - start > PR_LIMIT_MAIL_BYTES - s->out_len + 2)
				return too_big(s);
			break;
		}
		n = nl ? (size_t)(nl - w) + 1 - start : len - start;
		line = w + start;
		if (s->mode == UNDECIDED) {
			/* like mailsplit, skip blank lines before "From " */
			if (is_blank(line, n)) {
				s->lineno++;
				s->scan += n;
				continue;
			}
			decide(s, line, n);
			continue;
		}
		s->lineno++;
		/* 'F': most lines are not looked at further */
		if (s->mode == MBOX && s->lineno > s->first && line[0] == 'F' &&
		    pr_mbox_is_from_line(line, n)) {
			err = emit(s, w, start);
			if (err)
				return err;
			s->mstart = start;
			s->first = s->lineno;
			s->out_len = 0;
			s->copy = false;
		}
		out = line_out(s, &line, n);
		s->copy = s->copy || out != n;
		if (out > PR_LIMIT_MAIL_BYTES - s->out_len)
			return too_big(s);
		s->out_len += out;
		s->scan += n;
	}
	if (!eof)
		return 0;
	if (s->mode == UNDECIDED) {
		/* nothing but blank lines: one message of them */
		decide(s, "", 0);
		return feed(s, w, len, eof);
	}
	return s->lineno ? emit(s, w, s->scan) : 0;
}

static void split_init(struct split *s, const char *path,
		       const struct pr_mbox_opts *opts, pr_mbox_cb cb,
		       void *payload)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	s->opts = opts;
	s->cb = cb;
	s->payload = payload;
	s->mode = UNDECIDED;
	pr_buf_init(&s->msg, PR_LIMIT_MAIL_BYTES);
}

int pr_mbox_split(const char *data, size_t len, const char *path,
		  const struct pr_mbox_opts *opts, pr_mbox_cb cb, void *payload)
{
	struct split s;
	int err;

	split_init(&s, path, opts, cb, payload);
	/* the caller's bytes are only read: each message is copied */
	err = feed(&s, (char *)data, len, true);
	pr_buf_release(&s.msg);
	return err;
}

/*
 * Read a file a chunk at a time, keeping only the message being read: the
 * memory is that of the largest message, not of the file.
 */
static int read_file(const char *path, const struct pr_mbox_opts *opts,
		     pr_mbox_cb cb, void *payload)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct pr_buf w = PR_BUF_INIT;
	struct split s;
	int err = 0;

	if (fd < 0)
		return pr_error(errno == ENOENT ? PR_ENOENT : PR_EIO,
				"cannot open '%s': %s", path, strerror(errno));
	split_init(&s, path, opts, cb, payload);
	s.writable = true;
	for (;;) {
		ssize_t n;

		/* drop the messages given already */
		if (s.mstart) {
			memmove(w.ptr, w.ptr + s.mstart, w.len - s.mstart);
			pr_buf_setlen(&w, w.len - s.mstart);
			s.scan -= s.mstart;
			s.searched -= s.mstart;
			s.mstart = 0;
		}
		if ((err = pr_buf_grow(&w, READ_CHUNK)))
			break;
		n = read(fd, w.ptr + w.len, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = pr_error(PR_EIO, "'%s': read failed: %s", path,
				       strerror(errno));
			break;
		}
		w.len += (size_t)n;
		if ((err = feed(&s, w.ptr, w.len, n == 0)) || n == 0)
			break;
	}
	close(fd);
	pr_buf_release(&s.msg);
	pr_buf_release(&w);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_maildir(const char *dir, const struct pr_mbox_opts *opts,
			pr_mbox_cb cb, void *payload)
{
	static const char *const subs[] = { "cur", "new" };
	char **names = NULL;
	size_t nr = 0, alloc = 0, i, s;
	struct pr_buf p = PR_BUF_INIT;
	int err = 0;

	for (s = 0; s < PR_ARRAY_SIZE(subs); s++) {
		DIR *d;
		struct dirent *de;

		pr_buf_reset(&p);
		pr_buf_addf(&p, "%s/%s", dir, subs[s]);
		d = opendir(p.ptr);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			PR_ALLOC_GROW(names, nr + 1, alloc);
			pr_buf_reset(&p);
			pr_buf_addf(&p, "%s/%s/%s", dir, subs[s], de->d_name);
			names[nr++] = pr_strdup(p.ptr);
		}
		closedir(d);
	}
	if (!nr) {
		err = pr_error(PR_ENOENT,
			       "maildir '%s': no messages in cur/ or new/",
			       dir);
		goto done;
	}
	qsort(names, nr, sizeof(*names), cmp_str);
	for (i = 0; i < nr && !err; i++)
		err = read_file(names[i], opts, cb, payload);
done:
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	pr_buf_release(&p);
	return err;
}

int pr_mbox_read_path(const char *path, const struct pr_mbox_opts *opts,
		      pr_mbox_cb cb, void *payload)
{
	struct stat st;

	if (stat(path, &st))
		return pr_error(PR_ENOENT, "no such file '%s'", path);
	if (S_ISDIR(st.st_mode))
		return read_maildir(path, opts, cb, payload);
	return read_file(path, opts, cb, payload);
}
