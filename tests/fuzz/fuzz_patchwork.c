/*
 * The patchwork parsers: the first byte picks one, the rest is its input.
 * 0: the source's cursor (parse, format, parse again: the same text),
 * 1: a page of patches, 2: a page of events, 3: a series, 4: the states
 * of a 400 answer and an error body's text, 5: a Link header's rel="next"
 * and rel="last", 6: Patchwork's hash of a mail body and of a diff.
 */
#include "base/pr.h"
#include "fuzz_input.h"
#include "base/http.h"
#include "git/pwhash.h"
#include "patchwork.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_cursor(const char *text)
{
	struct pr_pw_cursor a, b;
	struct pr_buf t1 = PR_BUF_INIT, t2 = PR_BUF_INIT;

	if (!pr_pw_cursor_parse(&a, text) && a.since &&
	    !pr_pw_cursor_format(&t1, &a)) {
		/* what was written must read back as itself */
		if (pr_pw_cursor_parse(&b, t1.ptr) ||
		    pr_pw_cursor_format(&t2, &b) || strcmp(t1.ptr, t2.ptr))
			abort();
		pr_pw_cursor_release(&b);
	}
	pr_pw_cursor_release(&a);
	pr_buf_release(&t1);
	pr_buf_release(&t2);
}

static void fuzz_lists(int which, const char *text, size_t len)
{
	struct pr_pw_patch_list pl = { 0 };
	struct pr_pw_event_list el = { 0 };
	struct pr_pw_series s;
	size_t i;

	if (which == 1 && !pr_pw_patches_parse(&pl, text, len))
		for (i = 0; i < pl.nr; i++)
			/* every patch has what the sync needs */
			if (!pl.items[i].msgid || !pl.items[i].state ||
			    !pl.items[i].name)
				abort();
	if (which == 2)
		pr_pw_events_parse(&el, text, len);
	if (which == 3 && !pr_pw_series_parse(&s, text, len)) {
		if (!s.mbox || s.version < 1)
			abort();
		pr_pw_series_release(&s);
	}
	pr_pw_patch_list_release(&pl);
	pr_pw_event_list_release(&el);
}

static void fuzz_errors(const char *text, size_t len)
{
	struct pr_strlist states = { 0 };
	struct pr_buf out = PR_BUF_INIT;
	size_t i;

	if (!pr_pw_states_parse(&states, text))
		for (i = 0; i < states.nr; i++)
			if (!*states.items[i] ||
			    strpbrk(states.items[i], ", ."))
				abort();
	pr_pw_error_text(&out, text, len);
	pr_strlist_release(&states);
	pr_buf_release(&out);
}

static void fuzz_hash(const char *text, size_t len)
{
	struct pr_buf diff = PR_BUF_INIT;
	char h1[41], h2[41];

	if (!pr_pwhash_extract(&diff, text, len) &&
	    pr_pwhash_mail(h1, text, len) >= 0) {
		/* the mail's hash is the hash of the diff it cut out */
		if (pr_pwhash_diff(h2, diff.ptr, diff.len) < 0 ||
		    (!memchr(diff.ptr, '\0', diff.len) && strcmp(h1, h2)) ||
		    diff.len > len + 1)
			abort();
	}
	pr_pwhash_diff(h1, text, len);
	pr_buf_release(&diff);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_buf next = PR_BUF_INIT;
	size_t len;
	int which;
	char *text = fuzz_pick(data, size, 7, &which, &len);

	if (!text)
		return 0;
	if (which == 0) {
		fuzz_cursor(text);
	} else if (which <= 3) {
		fuzz_lists(which, text, len);
	} else if (which == 4) {
		fuzz_errors(text, len);
	} else if (which == 5) {
		if ((pr_http_link_rel(&next, text, "next") >= 0 &&
		     next.len > size) ||
		    pr_http_link_rel(&next, text, "last") < 0)
			abort();
	} else {
		fuzz_hash(text, len);
	}
	pr_buf_release(&next);
	free(text);
	pr_error_clear();
	return 0;
}
