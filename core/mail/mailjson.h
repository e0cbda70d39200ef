#ifndef PR_MAILJSON_H
#define PR_MAILJSON_H

#include <jansson.h>

#include "mail/mailinfo.h"

/*
 * The JSON of a parsed mail (`patchrelay parse --json`), losing no byte.
 *
 * Invariants:
 * - A text field whose bytes are UTF-8 without a NUL is a JSON string of
 *   exactly those bytes.
 * - Any other field is still a string, the readable form (the model's
 *   UTF-8 form, or the bytes read as latin-1 with a NUL shown as U+FFFD,
 *   since many JSON readers refuse "\u0000"), and KEY_base64
 *   beside KEY holds the exact bytes in base64 (RFC 4648, padded).  For
 *   from.name, from.email, date, subject, subject_raw and body the exact
 *   bytes are those git mailinfo writes (pr_mailinfo.bytes); for diff and
 *   the Message-IDs they are the model's own.
 * - An array of strings KEY gets KEY_base64 when one of its entries needs
 *   it: an array as long, null where the entry is UTF-8.
 * - So the bytes of any field are KEY_base64 decoded when it is there, else
 *   KEY encoded as UTF-8.
 */

struct pr_jsonw;

/*
 * Write key = the text of p[0..len) with w (base/json.h); exact (NULL: p
 * itself) is the field's true bytes.  key_base64 is added when those are
 * not UTF-8 or differ from the text.
 */
void pr_mailjson_field(struct pr_jsonw *w, const char *key, const char *p,
		       size_t len, const char *exact, size_t exact_len);
/* The same for a C string s; NULL gives null. */
void pr_mailjson_field_str(struct pr_jsonw *w, const char *key, const char *s);
/* key = the n strings of v (a NULL entry is null), with key_base64. */
void pr_mailjson_field_list(struct pr_jsonw *w, const char *key, char *const *v,
			    size_t n);

/*
 * The object of one message (docs/commands/parse.md), written as it goes
 * (parse --json streams its messages).
 */
void pr_mailjson_write(struct pr_jsonw *w, const char *key,
		       const struct pr_mailinfo *mi);
/* The same object read back as a json_t (NULL only when out of memory). */
json_t *pr_mailjson_message(const struct pr_mailinfo *mi);

#endif
