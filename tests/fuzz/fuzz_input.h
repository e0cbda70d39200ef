#ifndef PR_FUZZ_INPUT_H
#define PR_FUZZ_INPUT_H

/* How the fuzz targets cut their input (shared, header only). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

/*
 * The first byte picks one of n parsers (*which, its value modulo n); the
 * rest comes back NUL-terminated in a new allocation (*len its length), so
 * a parser reading past it is caught.  NULL for an empty input.
 */
static inline char *fuzz_pick(const uint8_t *data, size_t size, int n,
			      int *which, size_t *len)
{
	char *text;

	if (!size || !(text = malloc(size)))
		return NULL;
	*which = data[0] % n;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	*len = size - 1;
	return text;
}

/* fn on every line of data (without its '\n') that holds no NUL. */
static inline void fuzz_each_line(const uint8_t *data, size_t size,
				  void (*fn)(const char *line, size_t len))
{
	struct pr_buf line = PR_BUF_INIT;
	size_t i = 0;

	while (i < size) {
		size_t n = 0;

		while (i + n < size && data[i + n] != '\n')
			n++;
		pr_buf_reset(&line);
		if (!memchr(data + i, '\0', n) &&
		    !pr_buf_add(&line, data + i, n) && line.ptr)
			fn(line.ptr, line.len);
		i += n + 1;
	}
	pr_buf_release(&line);
}

#endif
