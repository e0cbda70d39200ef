#ifndef PR_NOTES_H
#define PR_NOTES_H

struct pr_buf;
struct pr_store;

/*
 * Notes: what a connector keeps in the state file about the world it
 * talks to (the patchwork connector: a Patchwork patch's id and state
 * beside its Message-ID, the check states it posted, how each landed
 * commit was matched), as (scope, key) -> value text.  The scope names
 * the instance ("patchwork:NAME"); keys and values are the connector's.
 *
 * Invariants:
 * - Table `notes` of the state file's schema (version 6 on), through the
 *   store's own connection, so a note written inside a pass is in the same
 *   file and order as the rest of the state.
 * - _set replaces the value of (scope, key) in one transaction.
 * - Values are text without NUL; errors are PR_ESTATE naming the file.
 */

/* Append the value; PR_ENOENT (no message) when there is none. */
int pr_notes_get(struct pr_buf *out, struct pr_store *st, const char *scope,
		 const char *key);
int pr_notes_set(struct pr_store *st, const char *scope, const char *key,
		 const char *value);

/*
 * Every note whose scope starts with scope_prefix and whose key starts
 * with key_prefix, by scope then key; the strings live until fn returns.
 * A non-zero return of fn stops the walk and is returned.
 */
typedef int (*pr_notes_fn)(const char *scope, const char *key,
			   const char *value, void *payload);
int pr_notes_foreach(struct pr_store *st, const char *scope_prefix,
		     const char *key_prefix, pr_notes_fn fn, void *payload);

#endif
