#include "base/pr.h"

static void die_oom(size_t size)
{
	fprintf(stderr, "patchrelay: out of memory allocating %zu bytes\n",
		size);
	abort();
}

void *pr_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die_oom(size);
	return p;
}

void *pr_calloc(size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		die_oom(SIZE_MAX);
	p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die_oom(nmemb * size);
	return p;
}

void *pr_realloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		die_oom(size);
	return p;
}

void *pr_reallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		die_oom(SIZE_MAX);
	return pr_realloc(ptr, nmemb * size);
}

char *pr_strdup(const char *s)
{
	return pr_memdup(s, strlen(s));
}

char *pr_strndup(const char *s, size_t n)
{
	const char *nul = memchr(s, '\0', n);

	return pr_memdup(s, nul ? (size_t)(nul - s) : n);
}

char *pr_memdup(const void *data, size_t n)
{
	char *p;

	if (n == SIZE_MAX)
		die_oom(n);
	p = pr_malloc(n + 1);
	if (n)
		memcpy(p, data, n);
	p[n] = '\0';
	return p;
}
