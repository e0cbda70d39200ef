#include "base/pr.h"
#include "mailsrc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The mail sources' cursor (connectors/mailsrc.h): what parses formats to
 * a text that parses to the same cursor and formats the same again (the
 * held and seen lists sorted), and every list item is non-empty.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_mailsrc_cursor a, b;
	struct pr_buf t1 = PR_BUF_INIT, t2 = PR_BUF_INIT;
	char *text;
	size_t i;

	pr_log_set_level(PR_LOG_ERROR);
	text = pr_strndup((const char *)data, size);
	if (!pr_mailsrc_cursor_parse(&a, text)) {
		for (i = 0; i < a.held.nr; i++)
			if (!a.held.items[i][0])
				abort();
		for (i = 0; i < a.seen.nr; i++)
			if (!a.seen.items[i][0] ||
			    !pr_mailsrc_list_has(&a.seen, a.seen.items[i]))
				abort();
		if (pr_mailsrc_cursor_format(&t1, &a) ||
		    pr_mailsrc_cursor_parse(&b, t1.ptr) ||
		    pr_mailsrc_cursor_format(&t2, &b) ||
		    strcmp(t1.ptr, t2.ptr) || a.has_held != b.has_held ||
		    a.has_seen != b.has_seen || a.seen.nr != b.seen.nr ||
		    a.held.nr != b.held.nr)
			abort();
		pr_mailsrc_cursor_release(&b);
	}
	pr_error_clear();
	pr_mailsrc_cursor_release(&a);
	pr_buf_release(&t1);
	pr_buf_release(&t2);
	free(text);
	return 0;
}
