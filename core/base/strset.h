#ifndef PR_STRSET_H
#define PR_STRSET_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A set of strings, each owned by the set, for membership tests that must
 * stay O(1) however many strings a poll collects (the Message-IDs of a
 * public-inbox catch-up).  Open addressing with linear probing, grown to
 * keep it at most half full.  Invariants: a zeroed set is empty and valid;
 * after pr_strset_release() it is empty again; nr is the number of
 * distinct strings added.
 */
struct pr_strset {
	char **slots;
	size_t nr, size; /* size: 0 or a power of two */
};

/* Add a copy of s; true when it was not in the set yet. */
bool pr_strset_add(struct pr_strset *set, const char *s);
bool pr_strset_has(const struct pr_strset *set, const char *s);
void pr_strset_release(struct pr_strset *set);

#endif
