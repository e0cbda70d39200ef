/*
 * The reply relay's parsers: the first byte picks one, the rest is its
 * input.  0: pr_quote_text; 1: pr_quote_diff_line, the input's first line
 * "PATH LINE" and the rest a diff (every output line must be quoted and
 * end in LF, and the quoted line must be one pr_quote_touches knows);
 * 2: pr_idmap_candidates of a lookup id (no empty candidate, none twice).
 */
#include "base/pr.h"
#include "base/strlist.h"
#include "engine/idmap.h"
#include "mail/quote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every line of b is "> ..." or ">" and ends in LF. */
static void check_quoted(const struct pr_buf *b)
{
	size_t i = 0;

	while (i < b->len) {
		const char *nl = memchr(b->ptr + i, '\n', b->len - i);

		if (!nl || b->ptr[i] != '>' ||
		    (nl > b->ptr + i + 1 && b->ptr[i + 1] != ' '))
			abort();
		i = (size_t)(nl - b->ptr) + 1;
	}
}

static void fuzz_diff_line(const char *text)
{
	struct pr_buf b = PR_BUF_INIT, path = PR_BUF_INIT;
	const char *nl = strchr(text, '\n'), *sp;
	long long line;

	if (!nl)
		return;
	sp = memchr(text, ' ', (size_t)(nl - text));
	if (!sp || pr_buf_add(&path, text, (size_t)(sp - text)))
		goto done;
	line = atoll(sp + 1);
	if (pr_quote_diff_line(&b, nl + 1, path.ptr, line, 3) == 0) {
		check_quoted(&b);
		if (!pr_quote_touches(nl + 1, path.ptr))
			abort();
	} else if (b.len) {
		abort();
	}
done:
	pr_buf_release(&b);
	pr_buf_release(&path);
}

static void fuzz_candidates(const char *text)
{
	struct pr_strlist l = { 0 };
	size_t i, j;

	if (!pr_idmap_candidates(&l, text))
		for (i = 0; i < l.nr; i++) {
			if (!*l.items[i])
				abort();
			for (j = 0; j < i; j++)
				if (!strcmp(l.items[i], l.items[j]))
					abort();
		}
	pr_strlist_release(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_buf b = PR_BUF_INIT;
	char *text;

	if (!size)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] % 3 == 0) {
		if (pr_quote_text(&b, text) == 0)
			check_quoted(&b);
	} else if (data[0] % 3 == 1) {
		fuzz_diff_line(text);
	} else {
		fuzz_candidates(text);
	}
	pr_buf_release(&b);
	free(text);
	pr_error_clear();
	return 0;
}
