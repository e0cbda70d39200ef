/*
 * patchrelay am on an mbox: split, parse, assemble, collect the reply
 * trailers and write each newest complete version; every message written
 * must parse back and keep its patch.
 */
#include "base/pr.h"

#include "mail/am.h"
#include "mail/assemble.h"
#include "mail/mailinfo.h"
#include "mail/mbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mails {
	struct pr_patch *v[64];
	size_t nr;
};

static int one(const char *data, size_t len, const struct pr_mbox_where *w,
	       void *payload)
{
	struct mails *m = payload;
	struct pr_mailinfo mi;
	struct pr_patch *p = NULL;

	PR_UNUSED(w);
	if (m->nr >= PR_ARRAY_SIZE(m->v))
		return 1;
	pr_mailinfo_init(&mi);
	if (!pr_mailinfo_parse(&mi, data, len) &&
	    !pr_am_patch_from_mailinfo(&p, &mi))
		m->v[m->nr++] = p;
	pr_mailinfo_release(&mi);
	return 0;
}

/* Length of s without its trailing newlines. */
static size_t trimmed(const char *s, size_t len)
{
	while (len && s[len - 1] == '\n')
		len--;
	return len;
}

static void check_written(const struct pr_buf *b, const struct pr_patch *p)
{
	struct pr_mailinfo mi;
	size_t n, m;

	pr_mailinfo_init(&mi);
	if (pr_mailinfo_parse(&mi, b->ptr, b->len))
		abort();
	/*
	 * A diff as git writes it (from its "---" line) comes back whole, up
	 * to the blank lines that end the message.  It may come back with
	 * lines of the message before it: mailinfo splits a message whose
	 * own text held a "---" line that was no patch break where it stood.
	 */
	if (p->diff && !strncmp(p->diff, "---", 3)) {
		n = trimmed(p->diff, strlen(p->diff));
		m = trimmed(mi.patch.ptr, mi.patch.len);
		if (n > m || memcmp(p->diff, mi.patch.ptr + (m - n), n))
			abort();
	}
	pr_mailinfo_release(&mi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const trusted[] = { "maint@example.org" };
	const struct pr_am_opts opts = { trusted, 1 };
	struct mails m = { { 0 }, 0 };
	struct pr_patch *pat[64];
	struct pr_assembly a = { 0 };
	struct pr_trailer_list extra[64];
	struct pr_buf out = PR_BUF_INIT;
	size_t i, s, n = 0;

	pr_mbox_split((const char *)data, size, "fuzz", NULL, one, &m);
	for (i = 0; i < m.nr; i++)
		if (!pr_am_is_reply(m.v[i]))
			pat[n++] = m.v[i];
	if (pr_assemble_mails(&a, pat, n))
		goto done;
	for (s = 0; s < a.nr; s++) {
		const struct pr_asm_version *v =
			pr_assemble_latest_complete(&a.series[s]);

		if (!v || v->nr > PR_ARRAY_SIZE(extra))
			continue;
		memset(extra, 0, sizeof(extra));
		if (!pr_am_collect(extra, v, m.v, m.nr, &opts)) {
			for (i = 0; i < v->nr && i < (size_t)v->total; i++) {
				pr_buf_reset(&out);
				if (!pr_am_write_patch(&out, v->patches[i],
						       (int)i + 1, v->total,
						       &extra[i]))
					check_written(&out, v->patches[i]);
			}
		}
		for (i = 0; i < v->nr; i++)
			pr_trailer_list_release(&extra[i]);
	}
done:
	pr_buf_release(&out);
	pr_assemble_release(&a);
	for (i = 0; i < m.nr; i++)
		pr_patch_free(m.v[i]);
	return 0;
}
