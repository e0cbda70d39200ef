#ifndef PR_MBOX_H
#define PR_MBOX_H

#include "base/pr.h"

/*
 * Splitting mail sources into messages, as `git mailsplit` does.
 *
 * - A file whose first line is an mbox "From " line is a mailbox; a new
 *   message starts at each such line, and the "From " line stays with its
 *   message (git mailinfo reads it as a header and ignores it).
 * - Any other file is one message (.eml, .patch).  A directory is a maildir:
 *   the files of its cur/ and new/ subdirectories, sorted by name.
 * - CR before LF is dropped, as mailsplit does without --keep-cr.
 * - In mboxrd form (opts.mboxrd) one '>' is removed from ">From ",
 *   ">>From "...; in mboxo form (the default, git's) lines are kept.
 * - The callback gets each message's bytes (valid only during the call,
 *   with a NUL after them) and where it came from; a non-zero return stops
 *   the walk and is returned.
 * - A file is read a chunk at a time and only the message being read is
 *   held: memory follows the largest message (PR_LIMIT_MAIL_BYTES at
 *   most), not the file, which has no size limit.  A message is passed
 *   without a copy unless a CR or a '>' is dropped from it.
 */

struct pr_mbox_where {
	const char *path; /* the file */
	size_t number; /* 1-based message number in the file */
	size_t line; /* 1-based line of the message's first line */
};

struct pr_mbox_opts {
	bool mboxrd;
};

typedef int (*pr_mbox_cb)(const char *data, size_t len,
			  const struct pr_mbox_where *where, void *payload);

/* Split the bytes of one file already read (path names it in errors). */
int pr_mbox_split(const char *data, size_t len, const char *path,
		  const struct pr_mbox_opts *opts, pr_mbox_cb cb,
		  void *payload);
/* Read a file, mailbox or maildir and split it. */
int pr_mbox_read_path(const char *path, const struct pr_mbox_opts *opts,
		      pr_mbox_cb cb, void *payload);
/* Does this line look like an mbox separator line (git's is_from_line). */
bool pr_mbox_is_from_line(const char *line, size_t len);

#endif
