/*
 * Series assembly on mails made from the input: each line is
 * "message-id in-reply-to author subject..." ('-' for no id), so the
 * fuzzer drives threads, prefixes and authors at once.
 */
#include "base/pr.h"

#include "mail/assemble.h"
#include "model/model.h"
#include "model/subject.h"

static bool input_mail(struct pr_patch *const *mails, size_t nr,
		       const struct pr_patch *p)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (mails[i] == p)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next space-separated word of line[*pos..n), malloc'd. */
static char *word(const char *line, size_t n, size_t *pos)
{
	size_t s;

	while (*pos < n && line[*pos] == ' ')
		(*pos)++;
	s = *pos;
	while (*pos < n && line[*pos] != ' ')
		(*pos)++;
	return pr_strndup(line + s, *pos - s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_patch *mails[64] = { 0 };
	struct pr_assembly a = { 0 };
	const char *text = (const char *)data;
	size_t nr = 0, pos = 0, i, j, k, m;

	while (pos < size && nr < PR_ARRAY_SIZE(mails)) {
		const char *nl = memchr(text + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - text) - pos : size - pos, w = 0;
		const char *line = text + pos;
		struct pr_patch *p = pr_patch_new();

		pos += n + (nl ? 1 : 0);
		p->message_id = word(line, n, &w);
		p->in_reply_to = word(line, n, &w);
		if (!strcmp(p->message_id, "-")) {
			free(p->message_id);
			p->message_id = NULL;
		}
		if (p->in_reply_to[0] && strcmp(p->in_reply_to, "-")) {
			p->references = pr_calloc(1, sizeof(*p->references));
			p->references[0] = pr_strdup(p->in_reply_to);
			p->nr_references = p->alloc_references = 1;
		}
		p->author.email = word(line, n, &w);
		p->subject_raw = pr_strndup(line + w, n - w);
		p->subject = pr_strdup(p->subject_raw);
		pr_subject_parse_prefix(&p->prefix, p->subject_raw);
		mails[nr++] = p;
	}
	if (pr_assemble_mails(&a, mails, nr) == 0) {
		/*
		 * Every patch is one of the input mails and a version holds
		 * none twice.  The same mail may be in two versions: a b4
		 * partial re-roll is filled from the version before.
		 */
		for (i = 0; i < a.nr; i++) {
			if (!a.series[i].nr)
				abort();
			for (j = 0; j < a.series[i].nr; j++) {
				const struct pr_asm_version *v =
					&a.series[i].versions[j];

				if (j && v->number <= v[-1].number)
					abort();
				for (k = 0; k < v->nr; k++)
					if (v->patches[k] == v->cover ||
					    !input_mail(mails, nr,
							v->patches[k]))
						abort();
				for (k = 0; k < v->nr; k++)
					for (m = k + 1; m < v->nr; m++)
						if (v->patches[k] ==
						    v->patches[m])
							abort();
				if (v->cover &&
				    !input_mail(mails, nr, v->cover))
					abort();
			}
		}
	}
	pr_assemble_release(&a);
	for (i = 0; i < nr; i++)
		pr_patch_free(mails[i]);
	return 0;
}
