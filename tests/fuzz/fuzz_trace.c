/*
 * The trace redactor of core/base/trace.c.  The first byte picks the protocol
 * and the direction, the rest is a conversation split at LF.  Beyond not
 * crashing: every traced line is printable ASCII and bounded, and a line
 * sent to an SMTP or IMAP server after an AUTH (until an answer other
 * than a continuation) is always "<redacted>".
 */
#include "base/pr.h"
#include "base/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const topics[] = { "http", "smtp", "imap" };
	struct pr_trace t = { NULL, "fuzz", true, false };
	struct pr_buf out = PR_BUF_INIT;
	const char *p, *end;
	size_t i;

	if (!size)
		return 0;
	t.topic = topics[data[0] % 3];
	p = (const char *)data + 1;
	end = (const char *)data + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/* a line's own first byte says which way it goes */
		bool sent = len && (p[0] & 1);
		bool was_auth = t.in_auth;

		pr_buf_reset(&out);
		if (pr_trace_line(&out, &t, sent, p, len))
			abort();
		for (i = 0; i < out.len; i++)
			if (out.ptr[i] < 0x20 || out.ptr[i] > 0x7e)
				abort();
		if (out.len > 1100)
			abort();
		if (strcmp(t.topic, "http") && sent && was_auth &&
		    strcmp(out.ptr, "<redacted>"))
			abort();
		p += len + 1;
	}
	pr_buf_release(&out);
	return 0;
}
