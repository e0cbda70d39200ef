#include "base/pr.h"
#include "mail/mbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(const char *msg, size_t len, const struct pr_mbox_where *w,
		 void *payload)
{
	size_t *total = payload;

	/* every message is a part of the input, with its CRs dropped */
	if (len > PR_LIMIT_MAIL_BYTES || w->number == 0 || w->line == 0)
		abort();
	*total += len;
	PR_UNUSED(msg);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pr_mbox_opts o = { false };
	size_t total = 0;

	pr_mbox_split((const char *)data, size, "fuzz", &o, count, &total);
	if (total > size)
		abort();
	o.mboxrd = true;
	total = 0;
	pr_mbox_split((const char *)data, size, "fuzz", &o, count, &total);
	if (total > size)
		abort();
	return 0;
}
