#ifndef PR_IDMAP_H
#define PR_IDMAP_H

#include <stdbool.h>
#include <stdint.h>

struct pr_buf;
struct pr_store;
struct pr_strlist;

/*
 * The identity map and what crossed a bridge, in the state store (schema
 * 7, store.c's migrations): every id a series has anywhere, the mails of
 * its versions (what a reply to one needs), the comments relayed to a sink
 * and what they became there, the review trailers gathered.
 *
 * Invariants:
 * - An id names the series it was first recorded for: identities
 *   (pr_store_identity_add: a PR, a Gerrit change, a Patchwork id, a
 *   branch, a Message-ID seen), a series' own key, the Message-ID of a
 *   mail seen (mails) or sent (delivery_messages).
 * - A mail row (message_id, series, version, idx) is written once: idx 0
 *   is the cover letter, 1..N the patches; subject is the Subject header
 *   as it went out ("[PATCH v2 2/3] ..."), refs its References (and its
 *   In-Reply-To last, when not among them), space-separated, without
 *   angle brackets.
 * - A relay row (item, sink) is written once, after the sink took the
 *   comment: `item` the comment's id at its source, `posted` the id of
 *   what the sink wrote (a comment id, a Message-ID).  What patchrelay
 *   wrote is known by it: pr_idmap_is_ours().
 * - A trailer row is written once per (series, item, version, idx, key,
 *   value): reading a comment again adds nothing.  idx -1 is the cover
 *   letter (every patch), else the patch's 0-based index; patch_id its
 *   git patch-id when known.  Rows come back in the order they came in.
 * - Errors are PR_ESTATE naming the store (engine/sql.h); a query that
 *   finds nothing is PR_ENOENT without a message.
 */

/*
 * The values an id a user gives may be stored as, appended to out: the
 * id itself (blanks around it dropped); without its angle brackets
 * ("<a@b>"); the Message-ID a link names (lore's /r/<id>, an archive's
 * /<list>/<id>/, Patchwork's /patch/<id>/); a Patchwork URL by number
 * as pr_idmap_patchwork_url() keeps it; "group/project!12" as
 * "group/project#12" (the forges' keys use '#').  Each once.
 */
int pr_idmap_candidates(struct pr_strlist *out, const char *id);

/*
 * A Patchwork URL that names a patch, cover letter or series by number
 * (its API URL, any API version: ROOT/api/1.2/patches/N/; its web pages:
 * ROOT/patch/N/, ROOT/project/P/patch/N/, ROOT/project/P/list/?series=N,
 * ROOT/series/N/mbox/) as the one value the identity map keeps for it:
 * "ROOT/api/patches/N/" ("covers", "series"), appended to out.
 * PR_ENOENT (no message) when url is none of these.  A patch's web page
 * named by Message-ID is not one: pr_idmap_candidates() gives its
 * Message-ID.
 */
int pr_idmap_patchwork_url(struct pr_buf *out, const char *url, size_t len);

/*
 * The series `value` names, any kind of id (see above), ascending: *out
 * malloc'ed (free it), *nr of them; 0 and *nr 0 when none.
 */
int pr_idmap_find(int64_t **out, size_t *nr, struct pr_store *st,
		  const char *value);

/*
 * The same for the ids patchrelay gave a series somewhere else (all but
 * Message-IDs seen: a PR it opened, a branch it pushed, a mail it sent).
 */
int pr_idmap_find_written(int64_t **out, size_t *nr, struct pr_store *st,
			  const char *value);

/*
 * Where `id` is in a per-patch list a sink kept for a version (kind
 * "...:vN", value the patches' ids in order, space-separated: the gerrit
 * sink's Change-Ids): *version N and *idx its 1-based place, the newest
 * version first.  PR_ENOENT (no message) when no list holds it.
 */
int pr_idmap_listed(int *version, int *idx, struct pr_store *st,
		    int64_t series_id, const char *id);

/* A series' source and key, appended; PR_ENOENT when unknown. */
int pr_idmap_series(struct pr_buf *origin, struct pr_buf *key,
		    struct pr_store *st, int64_t series_id);

/*
 * Each id of the series: its identities in the order recorded (kind as
 * recorded: "message-id", "github", "github-url", "branch", ...), then
 * each Message-ID it was sent with (kind "sent", note "v1 2/4 to SINK"),
 * then each comment relayed (kind "relayed", value what the sink wrote,
 * note "ITEM to SINK").  note may be NULL.  Strings live until fn
 * returns; a non-zero return stops the walk and is returned.
 */
typedef int (*pr_idmap_fn)(const char *kind, const char *value,
			   const char *note, void *payload);
int pr_idmap_foreach(struct pr_store *st, int64_t series_id, pr_idmap_fn fn,
		     void *payload);

/* ---- mails ---- */

struct pr_idmap_mail {
	char *message_id;
	char *subject;
	char *refs;
	int64_t series_id;
	int version;
	int idx;
};

void pr_idmap_mail_release(struct pr_idmap_mail *m);

/* Record a mail (a second time changes nothing). */
int pr_idmap_mail_add(struct pr_store *st, const char *message_id,
		      int64_t series_id, int version, int idx,
		      const char *subject, const char *refs);
/* The first mail recorded for (series, version, idx); PR_ENOENT none. */
int pr_idmap_mail_get(struct pr_idmap_mail *out, struct pr_store *st,
		      int64_t series_id, int version, int idx);
/* The mail recorded with message_id; PR_ENOENT when none. */
int pr_idmap_mail_find(struct pr_idmap_mail *out, struct pr_store *st,
		       const char *message_id);
/* The newest version of the series with a mail; PR_ENOENT none. */
int pr_idmap_mail_version(int *out, struct pr_store *st, int64_t series_id);

/*
 * The patch-id (git patch-id --stable) of patch idx (0-based) of a
 * version, as the store kept it; "" when it is not known.
 */
int pr_idmap_patch_id(char out[41], struct pr_store *st, int64_t series_id,
		      int version, int idx);

/* ---- relays ---- */

/* 1 when item already crossed to sink, else 0. */
int pr_idmap_relayed(struct pr_store *st, const char *item, const char *sink);
int pr_idmap_relay_add(struct pr_store *st, const char *item, const char *sink,
		       int64_t series_id, const char *posted);
/*
 * 1 when patchrelay wrote `id`: what a relay posted, or the Message-ID
 * of a mail it sent; else 0.
 */
int pr_idmap_is_ours(struct pr_store *st, const char *id);

/* ---- trailers ---- */

struct pr_idmap_trailer {
	int version;
	int idx; /* -1: the cover letter */
	const char *patch_id; /* NULL: unknown */
	const char *key;
	const char *value;
};

int pr_idmap_trailer_add(struct pr_store *st, int64_t series_id,
			 const struct pr_idmap_trailer *t, const char *item);
typedef int (*pr_idmap_trailer_fn)(const struct pr_idmap_trailer *t,
				   void *payload);
int pr_idmap_trailers(struct pr_store *st, int64_t series_id,
		      pr_idmap_trailer_fn fn, void *payload);

#endif
