#include "base/pr.h"
#include "fuzz_input.h"
#include "engine/cfg.h"
#include "mail/mail.h"
#include "mail/outgoing.h"

/*
 * pr_outgoing_parse_address on each line of the input, and what it
 * accepts rendered as the sender and as a To: and Cc: recipient: every
 * header line stays printable ASCII within 998 bytes, no header field
 * appears that was not rendered (no injection), and the To: value read
 * back gives the same address and, for a UTF-8 name, the same name up
 * to white space.
 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* s with each run of spaces made one space, and none at either end. */
static void squeeze(struct pr_buf *out, const char *s)
{
	pr_buf_reset(out);
	for (; s && *s; s++)
		if (*s != ' ' || (out->len && s[1] && s[1] != ' '))
			pr_buf_addch(out, *s);
}

/* The unfolded value of the field `name` of mail's header block. */
static void field(struct pr_buf *out, const char *mail, const char *name)
{
	const char *end = strstr(mail, "\n\n"), *p;
	size_t n = strlen(name);

	pr_buf_reset(out);
	for (p = mail; p && p < end; p = strchr(p, '\n') + 1)
		if (!strncmp(p, name, n) && p[n] == ':')
			break;
	if (!p || p >= end)
		return;
	for (p += n + 2; p < end; p++) {
		if (*p == '\n' && p[1] != ' ' && p[1] != '\t')
			break;
		if (*p != '\n')
			pr_buf_addch(out, *p);
	}
}

/* The fields a rendered mail may have, each at most once. */
static const char *const known[] = {
	"From",		"To",
	"Cc",		"Subject",
	"Date",		"Message-ID",
	"X-Mailer",	"MIME-Version",
	"Content-Type", "Content-Transfer-Encoding",
	NULL,
};

static void check_mail(const char *mail, size_t len)
{
	const char *end = strstr(mail, "\n\n"), *p;
	int seen[16] = { 0 };

	if (!end || (size_t)(end - mail) > len)
		abort();
	for (p = mail; p <= end; p += strcspn(p, "\n") + 1) {
		size_t n = strcspn(p, "\n"), i;

		if (n > 998)
			abort();
		for (i = 0; i < n; i++)
			if ((p[i] < ' ' && p[i] != '\t') ||
			    (unsigned char)p[i] >= 127)
				abort();
		if (n && p[0] != ' ' && p[0] != '\t') {
			size_t k = strcspn(p, ":"), j;

			for (j = 0; known[j]; j++)
				if (strlen(known[j]) == k &&
				    !strncmp(p, known[j], k))
					break;
			if (!known[j] || seen[j]++)
				abort();
		}
	}
	if (!seen[0] || !seen[1])
		abort();
}

static void one(const char *line, size_t len)
{
	struct pr_ident id = { NULL, NULL }, back = { NULL, NULL };
	struct pr_version *v = NULL;
	struct pr_series *s = NULL;
	struct pr_strlist to = { 0 };
	struct pr_outgoing_rcpt rc;
	struct pr_outgoing_opts opts = { 0 };
	struct pr_outgoing o = { 0 };
	struct pr_buf a = PR_BUF_INIT, b = PR_BUF_INIT, f = PR_BUF_INIT;
	struct pr_patch *p;

	if (pr_outgoing_parse_address(&id, line))
		goto done;
	v = pr_version_new(1);
	s = pr_series_new("fuzz", "k");
	p = pr_patch_new();
	pr_ident_set(&p->author, "A U Thor", "a@example.org");
	p->subject = pr_strdup("fix it");
	p->body = pr_strdup("Words.\n");
	p->diff = pr_strdup("diff --git a/f b/f\n--- a/f\n+++ b/f\n"
			    "@@ -0,0 +1 @@\n+x\n");
	pr_version_add_patch(v, p);
	pr_strlist_add(&to, line);
	if (pr_outgoing_recipients(&rc, s, &to, &to, false))
		abort();
	opts.key = "k-v1";
	opts.sender = &id;
	opts.rcpt = &rc;
	if (!pr_outgoing_render(&o, v, &opts)) {
		check_mail(o.mails[0], o.lens[0]);
		field(&f, o.mails[0], "To");
		if (pr_outgoing_parse_address(&back, f.ptr) ||
		    strcmp(back.email, id.email))
			abort();
		if (id.name && pr_mail_is_utf8(id.name, strlen(id.name))) {
			squeeze(&a, id.name);
			squeeze(&b, back.name);
			if (strcmp(a.ptr ? a.ptr : "", b.ptr ? b.ptr : ""))
				abort();
		}
	}
	pr_outgoing_release(&o);
	pr_outgoing_rcpt_release(&rc);
done:
	pr_ident_release(&id);
	pr_ident_release(&back);
	pr_strlist_release(&to);
	pr_version_free(v);
	pr_series_free(s);
	pr_buf_release(&a);
	pr_buf_release(&b);
	pr_buf_release(&f);
	pr_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_each_line(data, size, one);
	return 0;
}
