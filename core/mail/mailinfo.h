#ifndef PR_MAILINFO_H
#define PR_MAILINFO_H

#include "base/pr.h"
#include "model/model.h"

/*
 * One mail read the way `git mailinfo` reads it by default (no -k, no -b,
 * no --scissors, -u): the author, subject and date, with in-body From:,
 * Date: and Subject: lines overriding the headers when the mail carries a
 * patch; the message (`msg`) and the patch (`patch`) byte for byte as
 * mailinfo writes its msg and patch files, except that the message is
 * always valid UTF-8 (bytes that are not are read as latin-1, and text in a
 * charset iconv does not know is kept raw instead of failing).
 *
 * Every string is non-NULL and valid UTF-8 after pr_mailinfo_parse
 * succeeds ("" when absent), except pull_url and pull_ref, and the Message-ID
 * fields, which keep the header's bytes.  Where the UTF-8 form of name,
 * email, date, subject, subject_raw or msg is not what git mailinfo writes
 * (raw 8-bit header text, a message in no charset or in UTF-8 that is not
 * valid, or in a charset iconv does not know, where git fails), `bytes`
 * holds mailinfo's own bytes; NULL (bytes.has_msg false) where the field
 * is them.
 *
 * The kind: a subject that is a reply (pr_subject_is_reply) is a reply;
 * then a mail with a patch is a patch; a request-pull body is a pull; a
 * 0/N prefix is a cover; an In-Reply-To without a patch is a reply; the
 * rest is other.
 */

enum pr_mail_kind {
	PR_MAIL_OTHER = 0,
	PR_MAIL_PATCH,
	PR_MAIL_COVER,
	PR_MAIL_REPLY,
	PR_MAIL_PULL,
};

struct pr_mailinfo {
	char *name; /* Author: as mailinfo prints it */
	char *email;
	char *sender; /* the From: header's address, whatever the author */
	char *date;
	char *subject; /* cleaned as mailinfo cleans it */
	char *subject_raw; /* decoded, unfolded, not cleaned */
	char *message_id; /* without <>, "" when absent */
	char *in_reply_to;
	char **references;
	size_t nr_references;
	struct pr_buf msg;
	struct pr_buf patch;
	enum pr_mail_kind kind;
	struct pr_subject_prefix prefix; /* of subject_raw (model/subject.h) */
	/* the message's trailers; for a reply, those outside quoted text */
	struct pr_trailer_list trailers;
	char *pull_url; /* a `git request-pull` mail: NULL otherwise */
	char *pull_ref; /* NULL when none was given */
	struct {
		char *name, *email, *date, *subject, *subject_raw;
		struct pr_buf msg; /* valid when has_msg */
		bool has_msg;
	} bytes;
	struct pr_mailinfo_scratch *scratch; /* the parse's buffers */
};

void pr_mailinfo_init(struct pr_mailinfo *mi);
void pr_mailinfo_release(struct pr_mailinfo *mi);
/*
 * Empty mi for the next pr_mailinfo_parse, keeping the memory of its
 * buffers: a mailbox is read without a malloc per line.
 */
void pr_mailinfo_reset(struct pr_mailinfo *mi);
int pr_mailinfo_parse(struct pr_mailinfo *out, const char *data, size_t len);

/* Clean a subject in place as mailinfo does without -k. */
void pr_mailinfo_clean_subject(struct pr_buf *s);
/* Split a From: value into name and email as mailinfo does. */
int pr_mailinfo_split_from(struct pr_buf *name, struct pr_buf *email,
			   const char *from);
const char *pr_mail_kind_name(enum pr_mail_kind kind);

#endif
