/*
 * The kernel-ci log readers of plugins/kernel_ci_log.c: the first byte
 * picks a build log or a serial console, the rest is the text.  Beyond not
 * crashing: every quote is printable lines (tab and LF aside), each ending
 * in LF; a finding's key is a line of the input; a console with its
 * marker is never NO_MARKER, one without it is never OK or WARNING; a
 * verdict other than OK and NO_MARKER has the line that decided it.
 */
#include "base/pr.h"
#include "kernel_ci.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void printable(const char *s)
{
	size_t n = strlen(s);

	for (; *s; s++)
		if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
			abort();
	if (n && s[-1] != '\n')
		abort();
}

static void check_findings(const struct pr_kci_findings *f, size_t cap)
{
	size_t i;

	if (f->nr > cap)
		abort();
	for (i = 0; i < f->nr; i++) {
		if (strchr(f->items[i].key, '\n') || !*f->items[i].quote)
			abort();
		printable(f->items[i].quote);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	static const char marker[] = "MARK";

	if (!size)
		return 0;
	if (data[0] & 1) {
		struct pr_kci_findings errors = { 0 }, warnings = { 0 };
		struct pr_buf key = PR_BUF_INIT;

		pr_kci_build_scan(&errors, &warnings, text, size - 1, 5);
		check_findings(&errors, 5);
		check_findings(&warnings, 5);
		pr_kci_warning_key(&key, text, size - 1);
		if (key.len > size - 1)
			abort();
		pr_buf_release(&key);
		pr_kci_findings_release(&errors);
		pr_kci_findings_release(&warnings);
	} else {
		struct pr_kci_console con;
		bool has = memmem(text, size - 1, marker, 4) != NULL;

		pr_kci_console_scan(&con, text, size - 1, marker);
		printable(con.quote.ptr);
		if (has != (con.marker_line != NULL))
			abort();
		if (has && con.state == PR_KCI_BOOT_NO_MARKER)
			abort();
		if (!has && (con.state == PR_KCI_BOOT_OK ||
			     con.state == PR_KCI_BOOT_WARNING))
			abort();
		if ((con.state == PR_KCI_BOOT_PANIC ||
		     con.state == PR_KCI_BOOT_OOPS ||
		     con.state == PR_KCI_BOOT_WARNING) &&
		    !con.headline)
			abort();
		pr_kci_console_release(&con);
	}
	return 0;
}
