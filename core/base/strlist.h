#ifndef PR_STRLIST_H
#define PR_STRLIST_H

#include <stddef.h>

/*
 * A list of strings, each owned by the list (a repeated config key, a
 * sink's fixed recipients).  Invariants: items[0..nr) are malloc'd
 * NUL-terminated strings in the order they were added; a zeroed list is
 * empty and valid; after pr_strlist_release() it is empty again.
 */
struct pr_strlist {
	char **items;
	size_t nr, alloc;
};

/* Append a copy of s. */
void pr_strlist_add(struct pr_strlist *l, const char *s);
void pr_strlist_release(struct pr_strlist *l);

#endif
