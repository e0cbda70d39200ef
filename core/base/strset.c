#include "base/pr.h"

#include "base/strset.h"

/* FNV-1a, 64 bits. */
static uint64_t hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The slot holding s, or the empty slot where it would go. */
static size_t probe(char *const *slots, size_t size, const char *s)
{
	size_t i = (size_t)hash(s) & (size - 1);

	while (slots[i] && strcmp(slots[i], s))
		i = (i + 1) & (size - 1);
	return i;
}

static void grow(struct pr_strset *set)
{
	size_t size = set->size ? set->size * 2 : 64, i;
	char **slots = pr_calloc(size, sizeof(*slots));

	for (i = 0; i < set->size; i++)
		if (set->slots[i])
			slots[probe(slots, size, set->slots[i])] =
				set->slots[i];
	free(set->slots);
	set->slots = slots;
	set->size = size;
}

bool pr_strset_add(struct pr_strset *set, const char *s)
{
	size_t i;

	if (2 * (set->nr + 1) > set->size)
		grow(set);
	i = probe(set->slots, set->size, s);
	if (set->slots[i])
		return false;
	set->slots[i] = pr_strdup(s);
	set->nr++;
	return true;
}

bool pr_strset_has(const struct pr_strset *set, const char *s)
{
	return set->size && set->slots[probe(set->slots, set->size, s)];
}

void pr_strset_release(struct pr_strset *set)
{
	size_t i;

	for (i = 0; i < set->size; i++)
		free(set->slots[i]);
	free(set->slots);
	memset(set, 0, sizeof(*set));
}
