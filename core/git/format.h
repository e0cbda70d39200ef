#ifndef PR_FORMAT_H
#define PR_FORMAT_H

#include "base/buf.h"
#include "model/model.h"

/*
 * Rendering of patches as the mails `git format-patch` writes (git 2.39).
 *
 * Invariants:
 * - Every function appends to `out` and never resets it; the functions
 *   that fold a header measure the line already in `out` (the text after
 *   its last '\n'), as git's pretty.c does, so call them right after the
 *   header name has been added.
 * - Output is byte for byte what git writes for the same input; where it is
 *   known to differ the function says so.
 * - Input strings are UTF-8 (git's default i18n.commitEncoding); bytes that
 *   are not valid UTF-8 are encoded one by one.
 * - Nothing here allocates beyond `out`; errors are only the cap of `out`.
 */

/* RFC 2047 header kinds: a Subject (text) or a From name (phrase). */
enum pr_format_rfc2047 {
	PR_RFC2047_SUBJECT = 0,
	PR_RFC2047_ADDRESS = 1,
};

/* True when git would encode s as an RFC 2047 word (non-ASCII, '\n', "=?"). */
bool pr_format_needs_rfc2047(const char *s, size_t len);

/* Append s as "=?UTF-8?q?...?=" words folded at 76 columns (git's add_rfc2047). */
int pr_format_add_rfc2047(struct pr_buf *out, const char *s, size_t len,
			  enum pr_format_rfc2047 type);

/*
 * Append text wrapped at `width` columns as git's strbuf_add_wrapped_text:
 * a negative indent1 says the first line already holds -indent1 columns;
 * continuation lines start with indent2 spaces.  ASCII text only (git
 * measures display width; the callers encode non-ASCII text first).
 */
int pr_format_add_wrapped(struct pr_buf *out, const char *text, size_t len,
			  int indent1, int indent2, int width);

/* Append "From: <name> <email>\n" as git does (RFC 2047 or RFC 822 quoting). */
int pr_format_from_header(struct pr_buf *out, const char *name,
			  const char *email);

/*
 * Append "Subject: [prefix n/N] subject\n": prefix "PATCH" or "PATCH v2"
 * ("" for none); n/N only when total > 0, n zero-padded to N's digits.
 */
int pr_format_subject_header(struct pr_buf *out, const char *prefix, int nr,
			     int total, const char *subject);

/* Append the file-name slug of a subject (git's format_sanitized_subject). */
int pr_format_slug(struct pr_buf *out, const char *subject, size_t len);

/*
 * Append the file name git gives patch nr: "[v<N>-]0001-<slug>.patch",
 * cut to 64 characters with the suffix as git does.  reroll is NULL when no
 * -v was given.  nr 0 with subject NULL gives the cover letter's name.
 */
int pr_format_filename(struct pr_buf *out, const char *reroll, int nr,
		       const char *subject);

/*
 * Append a message body as git's pp_remainder writes it: each line without
 * its trailing whitespace, no blank lines at either end.  NULL: nothing.
 */
int pr_format_add_body(struct pr_buf *out, const char *body);

/* Append an RFC 2822 date as git prints it: "Thu, 3 Dec 2026 12:00:00 +0100". */
int pr_format_date(struct pr_buf *out, int64_t time, int tz_minutes);

struct pr_format_opts {
	const char *subject_prefix; /* "PATCH" or "PATCH v2"; "" for none */
	const char *signature; /* NULL: git's version "2.39.5"; "" none */
	int nr, total; /* numbering; total 0 gives "[PATCH]" */
	/*
	 * The --base block of this mail: "base-commit: <id>\n" and any
	 * "prerequisite-patch-id: <id>\n" lines; NULL for none.
	 */
	const char *base_info;
	/*
	 * --from: the sender, who goes in the From: header; when the author
	 * differs (name or email) the body starts with the author's raw
	 * "From: name <email>" line and a blank line, as git does.  NULL
	 * for none.
	 */
	const struct pr_ident *sender;
	/*
	 * git's threading headers after the "From <id>" line, ids without
	 * angle brackets, NULL for none: "Message-Id: <message_id>" and
	 * "In-Reply-To: <in_reply_to>" plus "References: <in_reply_to>"
	 * (shallow threading has one reference).
	 */
	const char *message_id;
	const char *in_reply_to;
};

/*
 * Append one patch mail as format-patch writes it.  Needs from p: author,
 * time, tz_minutes, subject, body (may be NULL), commit_id, diffstat (the
 * --stat --summary text, may be NULL) and diff.
 */
int pr_format_patch(struct pr_buf *out, const struct pr_patch *p,
		    const struct pr_format_opts *opts);

/*
 * Append the --cover-letter mail: From <tip> line, the committer as From
 * and Date, the *** SUBJECT HERE *** / *** BLURB HERE *** template, the
 * shortlog of v (authors sorted by name, subjects wrapped at 72 columns),
 * stat (the --stat --summary text from base to tip; NULL when git shows
 * none, as for a series starting at a root commit), opts->base_info and the
 * signature.  opts->nr is ignored (the cover is number 0).
 */
int pr_format_cover(struct pr_buf *out, const struct pr_version *v,
		    const struct pr_format_opts *opts,
		    const struct pr_ident *committer, int64_t time,
		    int tz_minutes, const char *stat);

/*
 * A Message-Id as git format-patch --thread makes it, without angle
 * brackets: "<base>.<epoch>.git.<committer email>", base being the commit
 * id (or "cover" for the cover letter).
 */
int pr_format_patch_message_id(struct pr_buf *out, const char *base,
			       int64_t epoch, const char *committer_email);

/*
 * A Message-ID as git send-email makes it, without angle brackets:
 * "<UTC time as %Y%m%d%H%M%S>.<pid>-<serial>-<sender address>", serial
 * counting from 1 within one run.
 */
int pr_format_message_id(struct pr_buf *out, int64_t time, long pid, int serial,
			 const char *sender_email);

/*
 * Append the threading headers git send-email writes (--thread, no
 * --chain-reply-to): "Message-ID: <id>\n" and, for every mail but the
 * first of a series, "In-Reply-To: <root>\nReferences: <root>\n", root being
 * the cover letter (or the first patch without one).  Ids are given
 * without angle brackets; root NULL for the first mail.
 */
int pr_format_thread_headers(struct pr_buf *out, const char *message_id,
			     const char *root);

#endif
