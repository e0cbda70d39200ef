#include "base/pr.h"
#include "mail/mail.h"
#include "mail/mailinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole mail path: headers, encoded words, MIME and mailinfo's split. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_mailinfo mi;
	struct pr_buf b = PR_BUF_INIT;

	pr_mailinfo_init(&mi);
	if (!pr_mailinfo_parse(&mi, (const char *)data, size)) {
		/* the invariant the JSON output relies on */
		if (!pr_mail_is_utf8(mi.msg.ptr, mi.msg.len) ||
		    !pr_mail_is_utf8(mi.subject, strlen(mi.subject)) ||
		    !pr_mail_is_utf8(mi.name, strlen(mi.name)))
			abort();
	}
	pr_mailinfo_release(&mi);
	pr_mail_decode_words(&b, (const char *)data, size);
	if (!pr_mail_is_utf8(b.ptr, b.len))
		abort();
	pr_buf_release(&b);
	return 0;
}
