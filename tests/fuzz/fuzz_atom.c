#include "base/pr.h"
#include "mail/atom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_atom_feed f;
	size_t i;
	int err;

	err = pr_atom_parse(&f, (const char *)data, size, "fuzz");
	/* an error leaves no entries; a success keeps each field a string */
	if (err && (f.nr || f.v))
		abort();
	for (i = 0; i < f.nr; i++) {
		if (f.v[i].link && strlen(f.v[i].link) > size)
			abort();
		if (f.v[i].title && strlen(f.v[i].title) > 4 * size)
			abort();
	}
	pr_atom_feed_release(&f);
	pr_error_clear();
	return 0;
}
