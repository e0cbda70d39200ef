#ifndef PR_TRAILER_H
#define PR_TRAILER_H

#include <stddef.h>

#include "model/model.h"

/*
 * Trailer parsing.  Invariants:
 * - Nothing here allocates except through pr_trailer_list_add(); on any
 *   return the list holds only complete key/value pairs, in input order.
 * - Input need not be NUL-terminated; exactly len bytes are read.
 * - Keys are kept as written (case and all), values are trimmed and
 *   continuation lines are joined with one space, as git does.
 * - Neither function fails on odd input; they return 0 or a negative
 *   PR_E* code only for a size cap.
 */

/* Trailers of a commit message by git interpret-trailers' rules (the last paragraph, "Key: value" lines with git's token rules, continuation lines, the 25%-non-trailer rule, git-generated "(cherry picked from" lines, Signed-off-by and other known prefixes). Appends to out in order. */
int pr_trailers_parse(struct pr_trailer_list *out, const char *msg, size_t len);
/* Trailers a review reply gives: lines "Key-by: Name <addr>" (Acked-by, Reviewed-by, Tested-by, Nacked-by, Reported-by, Suggested-by, Signed-off-by, Co-developed-by, Cc, Link, Fixes and any X-by:) that are NOT in quoted text (lines starting with '>' ) and not in the quoted patch; appends to out. */
int pr_trailers_from_reply(struct pr_trailer_list *out, const char *body,
			   size_t len);

/*
 * Add `lines` (whole "Key: value" lines, each with its LF) to the message
 * held in msg from byte `start` on, as git interpret-trailers adds
 * trailers: the message is trimmed to end with one LF, and the lines go
 * into the trailer block it ends with, else after a blank line as a new
 * block; an empty message becomes the lines alone.  The patch sinks
 * (gitcommit.c) and the mail sinks (engine/bridge.h) add the review
 * trailers gathered for a series with it.
 */
struct pr_buf;
int pr_trailers_append(struct pr_buf *msg, size_t start, const char *lines);

#endif
