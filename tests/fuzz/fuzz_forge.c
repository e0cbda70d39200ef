/*
 * The forge parsers: the first byte picks one, the rest is its input.
 * 0: the stored cursor (parse, format, parse again: the same text),
 * 1: a PR body's Cc: lines, 2: a Link header's rel="next",
 * 3/4: a github pull request / issue comment object,
 * 5/6: a gitlab merge request / note object.
 */
#include <jansson.h>

#include "base/pr.h"
#include "fuzz_input.h"
#include "forge.h"
#include "github.h"
#include "gitlab.h"
#include "base/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_cursor(const char *text)
{
	struct pr_forge_cursor a = { 0 }, b = { 0 };
	struct pr_buf t1 = PR_BUF_INIT, t2 = PR_BUF_INIT;

	if (!pr_forge_cursor_parse(&a, text) &&
	    !pr_forge_cursor_format(&t1, &a)) {
		/* what was written must read back as itself */
		if (pr_forge_cursor_parse(&b, t1.ptr) ||
		    pr_forge_cursor_format(&t2, &b) || strcmp(t1.ptr, t2.ptr))
			abort();
	}
	pr_forge_cursor_release(&a);
	pr_forge_cursor_release(&b);
	pr_buf_release(&t1);
	pr_buf_release(&t2);
}

static void fuzz_cc(const char *body)
{
	struct pr_recipient_list l = { 0 };
	char *rest = NULL;
	size_t i;

	if (!pr_forge_parse_cc(&l, &rest, body))
		for (i = 0; i < l.nr; i++)
			/* never a header break in an address */
			if (strpbrk(l.items[i].email, "\r\n") ||
			    strpbrk(l.items[i].name, "\r\n"))
				abort();
	free(rest);
	pr_recipient_list_release(&l);
}

static void fuzz_json(int which, const char *text, size_t len)
{
	json_error_t jerr;
	json_t *o = json_loadb(text, len, 0, &jerr);
	struct pr_forge_pr pr = { 0 };
	struct pr_forge_comment_list cl = { 0 };

	if (!o)
		return;
	if (which == 3)
		pr_forge_rest_pr_from_json(&pr, &pr_github_rest, o);
	else if (which == 4)
		pr_forge_rest_comment_from_json(&cl, &pr_github_rest, o);
	else if (which == 5)
		pr_forge_rest_pr_from_json(&pr, &pr_gitlab_rest, o);
	else
		pr_forge_rest_comment_from_json(&cl, &pr_gitlab_rest, o);
	pr_forge_pr_release(&pr);
	pr_forge_comment_list_release(&cl);
	json_decref(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_buf next = PR_BUF_INIT;
	size_t len;
	int which;
	char *text = fuzz_pick(data, size, 7, &which, &len);

	if (!text)
		return 0;
	if (which == 0)
		fuzz_cursor(text);
	else if (which == 1)
		fuzz_cc(text);
	else if (which == 2) {
		if (pr_http_link_rel(&next, text, "next") >= 0 &&
		    next.len > size)
			abort();
	} else
		fuzz_json(which, text, len);
	pr_buf_release(&next);
	free(text);
	pr_error_clear();
	return 0;
}
