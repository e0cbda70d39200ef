#include "base/pr.h"
#include "base/strlist.h"

void pr_strlist_add(struct pr_strlist *l, const char *s)
{
	PR_ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	l->items[l->nr++] = pr_strdup(s);
}

void pr_strlist_release(struct pr_strlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->nr = l->alloc = 0;
}
