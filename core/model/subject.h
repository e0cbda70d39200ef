#ifndef PR_SUBJECT_H
#define PR_SUBJECT_H

#include <stdbool.h>

#include "model/model.h"

/*
 * Subject-line prefixes.  Invariants:
 * - pr_subject_parse_prefix() always leaves out in a valid state (release
 *   it with pr_subject_prefix_release()); out->list is NULL or malloc'd.
 * - version is >= 1; index and total are >= 0; a 0/N cover letter has
 *   index 0 and total N.
 * - A NULL subject is treated as "".
 * - The words GIT and PULL ("[GIT PULL net]") and "of" are not list tags.
 */

/* Parse the bracket prefix(es) of a subject ("[PATCH net-next v3 2/7] x", "[RFC PATCH v2 0/4]", "[PATCH 1 of 2]", "[net,v2,1/2]", "Re: [PATCH]", "[PATCH v2 RESEND 3/5]", "[PATCHv2 1/3]", "[PATCH RFC net-next]", multiple bracket groups "[PATCH] [net] x") into out: list tag, rfc, version (default 1), index, total. Returns 0; never fails on odd input (unknown words are ignored or taken as the list tag: the list tag is the word that is not PATCH/RFC/RESEND/vN/n/N, like "net-next", "bpf-next", "net"). */
int pr_subject_parse_prefix(struct pr_subject_prefix *out, const char *subject);
/* True when the subject is a reply ("Re:", "RE:", "Aw:", "Fwd:" is not a reply) */
bool pr_subject_is_reply(const char *subject);

#endif
