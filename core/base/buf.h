#ifndef PR_BUF_H
#define PR_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

/*
 * pr_buf: a growable byte buffer with git's strbuf invariants and curl's
 * dynbuf size cap.
 *
 * - `ptr` is never NULL and `ptr[len]` is always '\0', so ptr can be used as
 *   a C string at any time (it may also hold NUL bytes inside).
 * - `alloc` is 0 while ptr points at a shared empty string; never write to
 *   ptr before something was added.
 * - `cap` is the most bytes (not counting the NUL) the buffer may hold; 0
 *   means no cap.  A buffer of untrusted input takes its cap from limits.h.
 *   An add that would pass the cap changes nothing and returns PR_ETOOBIG
 *   with a message saying which limit.
 *
 * Initialise with PR_BUF_INIT (no cap) or pr_buf_init(&b, cap); free the
 * contents with pr_buf_release(), after which the buffer is re-usable.
 */

struct pr_buf {
	char *ptr;
	size_t len;
	size_t alloc;
	size_t cap;
};

extern char pr_buf_slop[1];
#define PR_BUF_INIT                  \
	{                            \
		pr_buf_slop, 0, 0, 0 \
	}

void pr_buf_init(struct pr_buf *b, size_t cap);
void pr_buf_release(struct pr_buf *b);
/* Hand the contents to the caller (free() them); the buffer is reset. */
char *pr_buf_detach(struct pr_buf *b, size_t *len);

int pr_buf_grow(struct pr_buf *b, size_t extra);
int pr_buf_add_grow(struct pr_buf *b, const void *data, size_t len);
int pr_buf_adds(struct pr_buf *b, const char *s);

/* Room for len more bytes and the NUL, within the cap? */
static inline int pr_buf_fits(const struct pr_buf *b, size_t len)
{
	return len < b->alloc - b->len && (!b->cap || len <= b->cap - b->len);
}

/* Inline: the parsers add a few bytes at a time (a line, a character). */
static inline int pr_buf_add(struct pr_buf *b, const void *data, size_t len)
{
	if (!b->alloc || !pr_buf_fits(b, len))
		return pr_buf_add_grow(b, data, len);
	memmove(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

static inline int pr_buf_addch(struct pr_buf *b, int c)
{
	char ch = (char)c;

	if (!b->alloc || !pr_buf_fits(b, 1))
		return pr_buf_add_grow(b, &ch, 1);
	b->ptr[b->len++] = ch;
	b->ptr[b->len] = '\0';
	return 0;
}
int pr_buf_addf(struct pr_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int pr_buf_vaddf(struct pr_buf *b, const char *fmt, va_list ap);
int pr_buf_addbuf(struct pr_buf *b, const struct pr_buf *other);

/* Set len (<= current len) and terminate. */
void pr_buf_setlen(struct pr_buf *b, size_t len);
static inline void pr_buf_reset(struct pr_buf *b)
{
	pr_buf_setlen(b, 0);
}
/* Remove trailing whitespace (space, tab, CR, LF). */
void pr_buf_rtrim(struct pr_buf *b);
/* How many bytes of s (len long) fit in max without cutting a UTF-8
 * sequence: len when it fits, else max or less. */
size_t pr_utf8_fit(const char *s, size_t len, size_t max);
/* Cut b to max bytes (max > 3) on a UTF-8 boundary, "..." ending what
 * was cut; b stays as it is when it fits. */
void pr_buf_cap_utf8(struct pr_buf *b, size_t max);

/* Append a whole file; the cap applies.  Errors name the path. */
int pr_buf_read_file(struct pr_buf *b, const char *path);
/* Append everything readable from fd up to EOF; the cap applies. */
int pr_buf_read_fd(struct pr_buf *b, int fd);

/*
 * Write all of data[0..len) to fd, retrying after EINTR and short writes.
 * Returns 0, or -1 with errno set (the caller names the file).
 */
int pr_write_all(int fd, const void *data, size_t len);

#endif
