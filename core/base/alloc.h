#ifndef PR_ALLOC_H
#define PR_ALLOC_H

#include <stddef.h>

/*
 * Allocation wrappers.  Out of memory is not an error patchrelay recovers
 * from: these print one line and abort.  A size that comes from input must be
 * checked against limits.h before it reaches an allocator; a cap is an input
 * error, not an allocation failure.
 *
 * Multiplications are checked for overflow (pr_calloc, pr_reallocarray).
 */

void *pr_malloc(size_t size);
void *pr_calloc(size_t nmemb, size_t size);
void *pr_realloc(void *ptr, size_t size);
void *pr_reallocarray(void *ptr, size_t nmemb, size_t size);
char *pr_strdup(const char *s);
/* A copy of the first n bytes of s (or fewer, up to a NUL), NUL-terminated. */
char *pr_strndup(const char *s, size_t n);
/* A copy of exactly n bytes, with a NUL after them. */
char *pr_memdup(const void *data, size_t n);

/*
 * Make room for at least `nr` elements in the array `x` whose capacity is
 * `alloc`, growing it geometrically (git's ALLOC_GROW).
 */
#define PR_ALLOC_GROW(x, nr, alloc)                                        \
	do {                                                               \
		if ((nr) > (alloc)) {                                      \
			(alloc) = (alloc) < 8 ? 8 : (alloc)*2;             \
			if ((alloc) < (nr))                                \
				(alloc) = (nr);                            \
			(x) = pr_reallocarray((x), (alloc), sizeof(*(x))); \
		}                                                          \
	} while (0)

#endif
