#ifndef PR_STORE_H
#define PR_STORE_H

#include <stdbool.h>
#include <stdint.h>

struct pr_buf;
struct pr_sql;
struct pr_version;

/*
 * The state store: one SQLite database in WAL mode that remembers what
 * patchrelay saw and what it sent, so that a restart (or a crash) never
 * loses an event and never sends a mail twice.
 *
 * Invariants:
 * - The schema version lives in table `schema_version` (one row).  Opening
 *   a store applies every forward migration above it, each in its own
 *   transaction, so a database is always at a whole version.  A database
 *   newer than this binary is refused (PR_ESTATE).
 * - A series is (origin connector, key) and is stored once.  Its versions
 *   are numbered 1..N, each with a fingerprint no other version of the
 *   series has: a version is new only when its fingerprint differs from
 *   every stored one, so an unchanged re-poll records nothing, and a
 *   source that reads an old version again (a lost cursor) finds that
 *   version's number instead of making a new one.
 * - A delivery is (series, version, sink) and holds one row per message,
 *   pending, sent or rejected, with an attempt count and the last error.
 *   A rejected message (the sink's permanent refusal) is never tried
 *   again and does not count as pending.
 * - The identity map (schema 4): each message sent through
 *   pr_store_delivery_mark_sent_as keeps its Message-ID, so a Message-ID
 *   leads back to (series, version, sink, index) and the other way; an
 *   external id (a PR number, a Patchwork id) is a (kind, value) pair of
 *   one series, found from the pair or from the series.  Creating a
 *   delivery that exists returns the existing one unchanged, which is how a
 *   restarted run resumes: it skips messages already marked sent.
 * - Landed versions (schema 5): each version's patch-ids are kept
 *   (pr_store_version_patches_set); a commit on a watched branch whose
 *   patch-id is one of them marks that patch landed, and a version is
 *   landed once every patch of it with a patch-id has (recorded once,
 *   with the branch and the commit of its last patch).  Versions recorded
 *   before schema 5 have no patch-ids and never land.
 * - The status page's records (schema 7, store_view.h): each version's title
 *   and last report, the series' link and submitter, each delivery's
 *   recipients.  Versions recorded before schema 7 have none.
 * - Every write is one transaction; a failure leaves the store unchanged.
 * - Functions return 0 (or a count, or a bool as 0/1 where said) or a
 *   negative PR_E* code with a message naming the store path.
 *
 * A store is used by one thread at a time.
 */

struct pr_sql;
struct pr_store;

/* The schema version this binary writes. */
#define PR_STORE_SCHEMA_LATEST 9

/* Open (creating if needed) and migrate to the latest schema. */
int pr_store_open(struct pr_store **out, const char *path);
/*
 * Open and migrate only up to `max_version` (>= 1).  For tests of the
 * migrations: it builds a database as an older binary would have.
 */
int pr_store_open_version(struct pr_store **out, const char *path,
			  int max_version);
/* Safe with NULL. */
void pr_store_free(struct pr_store *st);
/*
 * The store's connection, for the engine's modules that keep tables of
 * their own in it (engine/idmap.c); never for code above the engine.
 */
struct pr_sql *pr_store_sql(struct pr_store *st);
/*
 * Make every write so far durable (an fsync of the store's log; nothing
 * when nothing was written since the last call).  A write is otherwise
 * safe from a killed process at once, and from a power cut only after
 * this (see pr_store_open_version in store.c).
 */
int pr_store_sync(struct pr_store *st);
/* The path the store was opened with. */
const char *pr_store_path(const struct pr_store *st);
/*
 * The store's connection, for the engine part's modules that keep a table
 * of their own in the schema (notes.c); nothing above core/engine uses it.
 */
struct pr_sql *pr_store_sql(struct pr_store *st);
/* The schema version of the open database. */
int pr_store_schema_version(struct pr_store *st);

/*
 * Source cursors: an opaque position and an HTTP ETag per source name.
 * _get appends to cursor and etag (either may be NULL) and returns
 * PR_ENOENT without a message when the source has no cursor yet.
 */
int pr_store_cursor_get(struct pr_store *st, const char *source,
			struct pr_buf *cursor, struct pr_buf *etag);
int pr_store_cursor_set(struct pr_store *st, const char *source,
			const char *cursor, const char *etag);

/*
 * The fingerprint of a version: 40 hex digits (SHA-1) over its patches'
 * patch-ids in order, or over a patch's diff when its patch-id is not
 * computed.  Commit ids, dates and Message-IDs do not enter it, so a
 * rebase that changes nothing else is the same version.
 */
int pr_store_fingerprint(char out[41], const struct pr_version *v);
/*
 * The text fingerprint of a version: 40 hex digits over its patches'
 * subjects and commit messages (trailers included) in order, so that a
 * version whose patches are the same but whose messages were reworded is
 * a new version, and a rebase or a resend that changes neither is not.
 */
int pr_store_text_fingerprint(char out[41], const struct pr_version *v);

struct pr_store_version {
	int64_t series_id;
	int number; /* 1..N */
	int latest; /* the series' latest version number after the call */
	bool is_new; /* false when it matched a stored version */
};

/*
 * Record a version of series (origin, key) with `fingerprint`, `text_fp`
 * (its text fingerprint; NULL: not known) and `nr_patches`.  When a stored
 * version of the series (any of them, not only the latest) has the same
 * fingerprint and the same text fingerprint, nothing is written (but a
 * text fingerprint where the row had none: NULL, written before schema 9,
 * matches any), out->number is that version's and out->is_new is false;
 * out->number < out->latest then says an older version was seen again.
 * A new version is numbered after the latest; the first of a series takes
 * `first` when it is above 1 (the number its source gave: a list series
 * first seen at v3 is v3, not v1).
 */
int pr_store_record_version(struct pr_store_version *out, struct pr_store *st,
			    const char *origin, const char *key,
			    const char *fingerprint, const char *text_fp,
			    size_t nr_patches, int first);
/* The series id of (origin, key); PR_ENOENT (no message) when unknown. */
int pr_store_series_find(int64_t *out, struct pr_store *st, const char *origin,
			 const char *key);
/* Number of stored versions of a series (0 if none). */
int pr_store_version_count(struct pr_store *st, int64_t series_id);
/*
 * The number of a series' latest version (0 if none): the count, unless
 * its first version took its source's number (a list series first seen at
 * v3), when the numbers below the first are not stored.
 */
int pr_store_version_latest(struct pr_store *st, int64_t series_id);

/*
 * The identity map: a (kind, value) pair names one series.  Kinds are
 * "message-id" or "<connector>" for an external id (a GitHub PR number, a
 * Gerrit change id).  Adding a pair that exists for the same series is a
 * no-op; for another series it is PR_EEXIST.
 */
int pr_store_identity_add(struct pr_store *st, int64_t series_id,
			  const char *kind, const char *value);
/* PR_ENOENT (no message) when the pair is unknown. */
int pr_store_identity_find(int64_t *series_id, struct pr_store *st,
			   const char *kind, const char *value);
/*
 * The other way: append the value of kind `kind` of the series (the first
 * recorded when there are several); PR_ENOENT (no message) when none.
 */
int pr_store_identity_get(struct pr_buf *out, struct pr_store *st,
			  int64_t series_id, const char *kind);

/* Where a Message-ID was sent: the message of one delivery. */
struct pr_store_message {
	int64_t series_id;
	int version;
	size_t index;
};

/*
 * The message sent with `message_id` (no angle brackets), its sink name
 * appended to `sink` (may be NULL); PR_ENOENT (no message) when no sent
 * message has it.  The first delivery wins when two sinks sent the same
 * Message-ID.
 */
int pr_store_message_id_find(struct pr_store_message *out, struct pr_buf *sink,
			     struct pr_store *st, const char *message_id);
/*
 * Append the Message-ID message `index` of (series, version, sink) was
 * sent with; PR_ENOENT (no message) when it is not sent or was sent by a
 * binary that did not record it.
 */
int pr_store_message_id_get(struct pr_buf *out, struct pr_store *st,
			    int64_t series_id, int version, const char *sink,
			    size_t index);

enum pr_store_msg_status {
	PR_STORE_PENDING = 0,
	PR_STORE_SENT = 1,
	PR_STORE_REJECTED = 2,
};

/*
 * Create (or find) the delivery of (series, version, sink) with
 * `nr_messages` pending messages.  An existing delivery keeps its rows;
 * asking for it with another message count is PR_ESTATE.
 */
int pr_store_delivery_open(int64_t *out, struct pr_store *st, int64_t series_id,
			   int version, const char *sink, size_t nr_messages);
/* Status of message `index` (0-based): a pr_store_msg_status. */
int pr_store_delivery_status(struct pr_store *st, int64_t delivery,
			     size_t index);
/* Count one attempt of message `index`, recording `error` (NULL: none). */
int pr_store_delivery_attempt(struct pr_store *st, int64_t delivery,
			      size_t index, const char *error);
/* Record `error` as the last error of message `index`, counting nothing. */
int pr_store_delivery_note(struct pr_store *st, int64_t delivery, size_t index,
			   const char *error);
int pr_store_delivery_mark_sent(struct pr_store *st, int64_t delivery,
				size_t index);
/* Mark message `index` sent with its Message-ID, in one statement. */
int pr_store_delivery_mark_sent_as(struct pr_store *st, int64_t delivery,
				   size_t index, const char *message_id);
/*
 * Mark message `index` rejected for good, `reason` as its last error; it
 * is no longer pending and is not tried again.
 */
int pr_store_delivery_mark_rejected(struct pr_store *st, int64_t delivery,
				    size_t index, const char *reason);
/* Attempts made for message `index`. */
int pr_store_delivery_attempts(struct pr_store *st, int64_t delivery,
			       size_t index);
/*
 * 1 when the last attempt of message `index` never returned: it is
 * pending, was attempted, and no error was noted (the engine notes one
 * for every attempt that comes back unsent), so the process ended during
 * it and the sink may have taken the message; else 0.
 */
int pr_store_delivery_cut_short(struct pr_store *st, int64_t delivery,
				size_t index);
/* Messages of the delivery still pending. */
int pr_store_delivery_pending(struct pr_store *st, int64_t delivery);

/*
 * The delivery of (series, version, sink); PR_ENOENT (no message) when it
 * was never opened.
 */
int pr_store_delivery_find(int64_t *out, struct pr_store *st, int64_t series_id,
			   int version, const char *sink);

/*
 * The base time of the delivery (series, version, sink): the Date of its
 * first mail.  The first call stores `now`; every later call, in this
 * process or after a restart, gives the stored value, so a retry renders
 * the same mails.
 */
int pr_store_delivery_base_time(int64_t *out, struct pr_store *st,
				int64_t series_id, int version,
				const char *sink, int64_t now);

/*
 * The patches of a recorded version as the mbox pr_format_patch wrote
 * (schema 3), kept so that the next version's range-diff can be made.
 * _get appends them and returns PR_ENOENT (no message) when the version
 * or its mbox is unknown; _set on an unknown version is PR_ENOENT.
 */
int pr_store_version_mbox_set(struct pr_store *st, int64_t series_id,
			      int number, const char *mbox, size_t len);
int pr_store_version_mbox_get(struct pr_buf *out, struct pr_store *st,
			      int64_t series_id, int number);
/* Append the fingerprint of version `number`; PR_ENOENT when unknown. */
int pr_store_version_fingerprint(struct pr_buf *out, struct pr_store *st,
				 int64_t series_id, int number);

/*
 * For `patchrelay status`: one row per delivery, or one per series with no
 * delivery yet (sink NULL), ordered by series then version then sink.  The
 * strings live until fn returns.  A non-zero return of fn stops the walk
 * and is returned.
 */
struct pr_store_row {
	const char *origin;
	const char *key;
	int nr_versions; /* of the series */
	const char *sink; /* NULL: no delivery */
	int version; /* delivered version, 0 if none */
	int nr_messages;
	int sent;
	int attempts; /* over all its messages */
	const char *last_error; /* the latest recorded, NULL: none */
	int rejected; /* messages the sink refused for good */
};

typedef int (*pr_store_row_fn)(const struct pr_store_row *row, void *payload);
int pr_store_foreach_row(struct pr_store *st, pr_store_row_fn fn,
			 void *payload);

/*
 * Keep the patch-ids of version `number` (patch_ids[0..nr), git patch-id
 * --stable, in patch order; NULL or "" for a patch with no diff).  Asking
 * again for a version that has them changes nothing.
 */
int pr_store_version_patches_set(struct pr_store *st, int64_t series_id,
				 int number, const char *const *patch_ids,
				 size_t nr);

/* A version that landed: on `branch` as `commit` (its last patch's). */
struct pr_store_landed {
	int64_t series_id;
	int number;
	char *origin;
	char *key;
	char *branch;
	char *commit;
};

/*
 * Commits commits[i] with patch-ids patch_ids[i] (i < nr_commits) landed
 * on `branch`: mark their patches landed and give in *out (*nr entries;
 * free with pr_store_landed_free) the versions that landed by it, each
 * once in the life of the store.  One transaction.
 */
int pr_store_land(struct pr_store_landed **out, size_t *nr, struct pr_store *st,
		  const char *branch, const char *const *patch_ids,
		  const char *const *commits, size_t nr_commits);
void pr_store_landed_free(struct pr_store_landed *l, size_t nr);

/*
 * Every landed version, by series then version; the strings live until
 * fn returns.  A non-zero return of fn stops the walk and is returned.
 */
typedef int (*pr_store_landed_fn)(const struct pr_store_landed *l,
				  void *payload);
int pr_store_foreach_landed(struct pr_store *st, pr_store_landed_fn fn,
			    void *payload);

#endif
