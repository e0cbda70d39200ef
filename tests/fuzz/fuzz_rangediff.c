/*
 * patchrelay's range-diff of two series read from mail: the input is two
 * mboxes separated by a line "=====" (without one, both sides are the
 * same mbox).  The first byte picks the creation factor.  Checked: no
 * crash, a range-diff ends with a newline, and a series compared with
 * itself pairs every patch (no '<' or '>' line: identical diffs pair).
 */
#include "base/pr.h"

#include "mail/am.h"
#include "mail/mailinfo.h"
#include "mail/mbox.h"
#include "git/rangediff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* few patches keep each run fast; the assignment is cubic */
#define MAX_PATCHES 24

static int one(const char *data, size_t len, const struct pr_mbox_where *w,
	       void *payload)
{
	struct pr_version *v = payload;
	struct pr_mailinfo mi;
	struct pr_patch *p = NULL;

	PR_UNUSED(w);
	if (v->nr >= MAX_PATCHES)
		return 1;
	pr_mailinfo_init(&mi);
	if (!pr_mailinfo_parse(&mi, data, len) &&
	    !pr_am_patch_from_mailinfo(&p, &mi))
		pr_version_add_patch(v, p);
	pr_mailinfo_release(&mi);
	return 0;
}

/*
 * Abort when a header line of out ("N:  ID S M:  ID SUBJECT") has the
 * status '<' or '>' of an unpaired patch.
 */
static void check_all_paired(const struct pr_buf *out)
{
	const char *p = out->ptr, *end = out->ptr + out->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *q;

		if (p < eol && *p != ' ') {
			q = memmem(p, (size_t)(eol - p), ":  ", 3);
			if (!q)
				abort();
			for (q += 3; q < eol && *q != ' '; q++)
				;
			if (q + 1 < eol && (q[1] == '<' || q[1] == '>'))
				abort();
		}
		p = eol + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char sep[] = "\n=====\n";
	const char *text = (const char *)data, *cut;
	struct pr_version *a = pr_version_new(1), *b = pr_version_new(2);
	struct pr_buf out = PR_BUF_INIT;
	int factor = 60;
	size_t alen;

	if (size) {
		factor = data[0] * 4;
		text++;
		size--;
	}
	cut = memmem(text, size, sep, sizeof(sep) - 1);
	alen = cut ? (size_t)(cut - text) + 1 : size;
	pr_mbox_split(text, alen, "fuzz-old", NULL, one, a);
	if (cut)
		pr_mbox_split(cut + sizeof(sep) - 1,
			      size - alen - (sizeof(sep) - 2), "fuzz-new", NULL,
			      one, b);
	if (!pr_rangediff_format(&out, a, cut ? b : a, factor) && out.len &&
	    out.ptr[out.len - 1] != '\n')
		abort();
	pr_buf_reset(&out);
	if (!pr_rangediff_format(&out, a, a, factor))
		check_all_paired(&out);
	pr_buf_release(&out);
	pr_version_free(a);
	pr_version_free(b);
	return 0;
}
