/*
 * Series assembly on mails made from the input, in one of two forms:
 * - an mbox (the input starts with "From "): split, each mail read as
 *   git mailinfo reads it, as `patchrelay parse` and the mail sources do;
 * - lines "message-id in-reply-to author [@TIME] subject..." ('-' for no
 *   id, TIME seconds since the epoch), so the fuzzer drives threads,
 *   prefixes, authors and Patchwork's 20-minute window at once.
 */
#include "base/pr.h"

#include "mail/am.h"
#include "mail/assemble.h"
#include "mail/mbox.h"
#include "model/model.h"
#include "model/subject.h"

#define MAX_MAILS 64

struct mails {
	struct pr_patch *v[MAX_MAILS];
	size_t nr;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool input_mail(struct pr_patch *const *mails, size_t nr,
		       const struct pr_patch *p)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (mails[i] == p)
			return true;
	return false;
}

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

static void read_lines(struct mails *m, const char *text, size_t size)
{
	size_t pos = 0;

	while (pos < size && m->nr < MAX_MAILS) {
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
		while (w < n && line[w] == ' ')
			w++;
		if (w < n && line[w] == '@') {
			char *t = word(line, n, &w);

			p->time = strtoll(t + 1, NULL, 10);
			free(t);
		}
		p->subject_raw = pr_strndup(line + w, n - w);
		p->subject = pr_strdup(p->subject_raw);
		pr_subject_parse_prefix(&p->prefix, p->subject_raw);
		m->v[m->nr++] = p;
	}
}

static int one_mail(const char *data, size_t len, const struct pr_mbox_where *w,
		    void *payload)
{
	struct mails *m = payload;
	struct pr_patch *p = NULL;

	PR_UNUSED(w);
	if (m->nr >= MAX_MAILS)
		return 1;
	if (!pr_am_patch_parse(&p, data, len))
		m->v[m->nr++] = p;
	pr_error_clear();
	return 0;
}

/*
 * Every patch is one of the input mails and a version holds none twice.
 * The same mail may be in two versions: a partial re-roll or resend is
 * filled from the version before.  Versions ascend by number, postings of
 * one number by start; only an incomplete version is superseded.
 */
static void check(const struct pr_assembly *a, struct pr_patch *const *mails,
		  size_t nr)
{
	size_t i, j, k, m;

	for (i = 0; i < a->nr; i++) {
		if (!a->series[i].nr)
			abort();
		for (j = 0; j < a->series[i].nr; j++) {
			const struct pr_asm_version *v =
				&a->series[i].versions[j];

			if (j && (v->number < v[-1].number ||
				  (v->number == v[-1].number &&
				   v->first <= v[-1].first)))
				abort();
			if (v->superseded && v->complete)
				abort();
			for (k = 0; k < v->nr; k++)
				if (v->patches[k] == v->cover ||
				    !input_mail(mails, nr, v->patches[k]))
					abort();
			for (k = 0; k < v->nr; k++)
				for (m = k + 1; m < v->nr; m++)
					if (v->patches[k] == v->patches[m])
						abort();
			if (v->cover && !input_mail(mails, nr, v->cover))
				abort();
		}
	}
}

/* What `parse --json` prints of an assembly, the mails by address. */
static void fingerprint(struct pr_buf *out, const struct pr_assembly *a)
{
	size_t i, j, k;

	for (i = 0; i < a->nr; i++) {
		const struct pr_asm_series *s = &a->series[i];

		pr_buf_addf(out, "%s:", s->key ? s->key : "-");
		for (j = 0; j < s->nr; j++) {
			const struct pr_asm_version *v = &s->versions[j];

			pr_buf_addf(out, " v%d/%d%d%d%d %p %s", v->number,
				    v->total, v->complete, v->partial_reroll,
				    v->superseded, (void *)v->cover,
				    v->supersedes ? v->supersedes : "-");
			for (k = 0; k < v->nr; k++)
				pr_buf_addf(out, " %p", (void *)v->patches[k]);
		}
		pr_buf_addch(out, '\n');
	}
}

/* The mails slimmed as `parse --json` holds them group the same. */
static void same_when_slim(const struct pr_assembly *whole,
			   struct pr_patch *const *given, size_t n)
{
	struct pr_buf want = PR_BUF_INIT, got = PR_BUF_INIT;
	struct pr_assembly a = { 0 };
	size_t i;

	fingerprint(&want, whole);
	for (i = 0; i < n; i++)
		pr_assemble_slim(given[i]);
	if (pr_assemble_mails(&a, given, n))
		abort();
	fingerprint(&got, &a);
	if (strcmp(want.ptr, got.ptr))
		abort();
	pr_assemble_release(&a);
	pr_buf_release(&want);
	pr_buf_release(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mails m = { { 0 }, 0 };
	struct pr_patch *given[MAX_MAILS];
	struct pr_assembly a = { 0 };
	const char *text = (const char *)data;
	size_t i, n;

	if (size >= 5 && !memcmp(text, "From ", 5)) {
		pr_mbox_split(text, size, "fuzz", NULL, one_mail, &m);
		/* what the callers give: patches and covers, no replies */
		n = pr_am_series_mails(given, m.v, m.nr);
	} else {
		read_lines(&m, text, size);
		/* everything, replies too (the assembler leaves them out) */
		for (n = 0; n < m.nr; n++)
			given[n] = m.v[n];
	}
	pr_error_clear();
	if (pr_assemble_mails(&a, given, n) == 0) {
		check(&a, m.v, m.nr);
		same_when_slim(&a, given, n);
	}
	pr_error_clear();
	pr_assemble_release(&a);
	for (i = 0; i < m.nr; i++)
		pr_patch_free(m.v[i]);
	return 0;
}
