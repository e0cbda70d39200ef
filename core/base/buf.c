#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/pr.h"

char pr_buf_slop[1];

void pr_buf_init(struct pr_buf *b, size_t cap)
{
	b->ptr = pr_buf_slop;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap;
}

void pr_buf_release(struct pr_buf *b)
{
	if (b->alloc)
		free(b->ptr);
	pr_buf_init(b, b->cap);
}

char *pr_buf_detach(struct pr_buf *b, size_t *len)
{
	char *p;

	if (!b->alloc)
		pr_buf_grow(b, 0);
	p = b->ptr;
	if (len)
		*len = b->len;
	pr_buf_init(b, b->cap);
	return p;
}

int pr_buf_grow(struct pr_buf *b, size_t extra)
{
	size_t want;

	if (extra > SIZE_MAX - b->len - 1)
		return pr_error(PR_ETOOBIG, "buffer size overflow");
	want = b->len + extra;
	if (b->cap && want > b->cap)
		return pr_error(PR_ETOOBIG, "input over the %zu-byte limit",
				b->cap);
	if (want + 1 <= b->alloc)
		return 0;
	{
		size_t n = b->alloc < 64 ? 64 : b->alloc;

		while (n < want + 1)
			n = n > SIZE_MAX / 2 ? want + 1 : n * 2;
		if (!b->alloc) {
			b->ptr = pr_malloc(n);
			b->ptr[0] = '\0';
		} else {
			b->ptr = pr_realloc(b->ptr, n);
		}
		b->alloc = n;
	}
	return 0;
}

int pr_buf_add_grow(struct pr_buf *b, const void *data, size_t len)
{
	int err = pr_buf_grow(b, len);

	if (err)
		return err;
	if (len)
		memmove(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int pr_buf_adds(struct pr_buf *b, const char *s)
{
	return pr_buf_add(b, s, strlen(s));
}

int pr_buf_addbuf(struct pr_buf *b, const struct pr_buf *other)
{
	return pr_buf_add(b, other->ptr, other->len);
}

int pr_buf_vaddf(struct pr_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n, err;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return pr_error(PR_EINVAL, "bad format string '%s'", fmt);
	err = pr_buf_grow(b, (size_t)n);
	if (err)
		return err;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int pr_buf_addf(struct pr_buf *b, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = pr_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return err;
}

void pr_buf_setlen(struct pr_buf *b, size_t len)
{
	if (len > b->len)
		len = b->len;
	b->len = len;
	if (b->alloc)
		b->ptr[len] = '\0';
}

size_t pr_utf8_fit(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	/* back off continuation bytes: s[max] must start a character */
	while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

void pr_buf_cap_utf8(struct pr_buf *b, size_t max)
{
	if (b->len <= max)
		return;
	pr_buf_setlen(b, pr_utf8_fit(b->ptr, b->len, max - 3));
	pr_buf_adds(b, "...");
}

void pr_buf_rtrim(struct pr_buf *b)
{
	while (b->len && strchr(" \t\r\n", b->ptr[b->len - 1]))
		b->len--;
	pr_buf_setlen(b, b->len);
}

int pr_buf_read_fd(struct pr_buf *b, int fd)
{
	for (;;) {
		ssize_t n;
		int err = pr_buf_grow(b, 65536);

		if (err == PR_ETOOBIG && b->cap && b->len < b->cap)
			err = pr_buf_grow(b, b->cap - b->len);
		if (err) {
			/* Full to the cap: only an error if more is coming. */
			char probe;

			if (b->cap && b->len == b->cap &&
			    read(fd, &probe, 1) == 0)
				return 0;
			return pr_error(PR_ETOOBIG,
					"input over the %zu-byte limit",
					b->cap);
		}
		n = read(fd, b->ptr + b->len, b->alloc - b->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return pr_error(PR_EIO, "read failed: %s",
					strerror(errno));
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
		b->ptr[b->len] = '\0';
	}
	return 0;
}

int pr_buf_read_file(struct pr_buf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return pr_error(errno == ENOENT ? PR_ENOENT : PR_EIO,
				"cannot open '%s': %s", path, strerror(errno));
	err = pr_buf_read_fd(b, fd);
	close(fd);
	if (err)
		return pr_error_wrap(err, "'%s'", path);
	return 0;
}

int pr_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
