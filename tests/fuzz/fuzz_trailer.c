/*
 * The text parsers on arbitrary input: commit-message trailers, reply
 * trailers, the subject prefix of the first line, pull-request detection.
 */
#include "base/pr.h"

#include "model/model.h"
#include "mail/pull.h"
#include "model/subject.h"
#include "model/trailer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_trailer_list l = { 0 };
	struct pr_subject_prefix p;
	const char *text = (const char *)data;
	char *first, *url = NULL, *ref = NULL;
	const char *nl = memchr(text, '\n', size);
	size_t i;

	pr_trailers_parse(&l, text, size);
	pr_trailers_from_reply(&l, text, size);
	for (i = 0; i < l.nr; i++)
		if (!l.items[i].key[0])
			abort(); /* a trailer always has a key */
	pr_trailer_list_release(&l);

	first = pr_strndup(text, nl ? (size_t)(nl - text) : size);
	pr_subject_parse_prefix(&p, first);
	if (p.version < 1 || p.index < 0 || p.total < 0)
		abort();
	pr_subject_prefix_release(&p);
	pr_subject_is_reply(first);
	free(first);

	if (pr_pull_detect(&url, &ref, text, size) == 1 && !url[0])
		abort();
	free(url);
	free(ref);
	return 0;
}
