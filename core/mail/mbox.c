#include "base/pr.h"
#include "mail/mbox.h"
#include "mail/mail.h"

#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>

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

static int emit(struct pr_buf *msg, const char *path, size_t number,
		size_t line, pr_mbox_cb cb, void *payload)
{
	struct pr_mbox_where w = { path, number, line };

	return cb(msg->ptr, msg->len, &w, payload);
}

int pr_mbox_split(const char *data, size_t len, const char *path,
		  const struct pr_mbox_opts *opts, pr_mbox_cb cb, void *payload)
{
	struct pr_buf msg;
	size_t pos = 0, start, n, lineno = 0, first = 1, number = 0;
	bool mbox;
	int err = 0;

	pr_buf_init(&msg, PR_LIMIT_MAIL_BYTES);
	/* like mailsplit, skip blank lines before the first "From " line */
	for (;;) {
		start = pos;
		n = pr_mail_next_line(data, len, &pos);
		if (!n || !is_blank(data + start, n))
			break;
		lineno++;
	}
	mbox = n && pr_mbox_is_from_line(data + start, n);
	pos = mbox ? start : 0;
	if (!mbox)
		lineno = 0;
	first = lineno + 1;
	for (;;) {
		start = pos;
		n = pr_mail_next_line(data, len, &pos);
		if (!n)
			break;
		lineno++;
		if (mbox && pr_mbox_is_from_line(data + start, n) &&
		    lineno > first) {
			err = emit(&msg, path, ++number, first, cb, payload);
			if (err)
				goto done;
			pr_buf_reset(&msg);
			first = lineno;
		}
		if (opts && opts->mboxrd && is_escaped_from(data + start, n)) {
			start++;
			n--;
		}
		if (n >= 2 && data[start + n - 1] == '\n' &&
		    data[start + n - 2] == '\r') {
			err = pr_buf_add(&msg, data + start, n - 2);
			if (!err)
				err = pr_buf_addch(&msg, '\n');
		} else {
			err = pr_buf_add(&msg, data + start, n);
		}
		if (err) {
			err = pr_error_wrap(err,
					    "mbox '%s' message %zu line %zu",
					    path, number + 1, first);
			goto done;
		}
	}
	if (lineno)
		err = emit(&msg, path, ++number, first, cb, payload);
done:
	pr_buf_release(&msg);
	return err;
}

static int read_file(const char *path, const struct pr_mbox_opts *opts,
		     pr_mbox_cb cb, void *payload)
{
	struct pr_buf b;
	int err;

	pr_buf_init(&b, PR_LIMIT_MBOX_BYTES);
	err = pr_buf_read_file(&b, path);
	if (!err)
		err = pr_mbox_split(b.ptr, b.len, path, opts, cb, payload);
	pr_buf_release(&b);
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
