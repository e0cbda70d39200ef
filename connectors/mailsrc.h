#ifndef PR_MAILSRC_H
#define PR_MAILSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/registry.h"

struct pr_asm_series;

/*
 * What the three mail sources (maildir, imap, public-inbox) share: a batch
 * of raw messages read from a list becomes series, versions and comments,
 * and a cursor says where the next poll starts.  Invariants:
 *
 * - Every message has a position, a string that sorts (strcmp) in the order
 *   the source received them: maildir "<mtime as 20 digits>.<file name>",
 *   imap "<UID as 20 digits>", public-inbox "<arrival as 20 digits>.<id>".
 *   A poll reads every message whose position is >= the cursor's `low`
 *   (and maildir every file its cursor does not call seen).
 * - The cursor is a low-water mark: `low` is the position of the oldest
 *   message of a version still waiting for its missing patches (or `high`
 *   when none waits), `high` the newest position a poll has seen, `time`
 *   when that poll ran, `held` the positions of the mails of the versions
 *   it held.  A message at or below `high` was seen: a comment is emitted
 *   only when its message is above it, a version only when one of its
 *   mails is above it or all of them were held (a cursor without `held`:
 *   or it was neither complete nor due at `time`).
 *   So each version and comment is emitted once though messages are
 *   re-read, and a poll that failed (no cursor stored) is repeated whole.
 * - A version is emitted when complete, or, incomplete, once `wait` has
 *   passed since its newest mail's Date (its arrival when it has no Date).
 * - The series key is the thread root (the first Message-ID of its
 *   References, else its In-Reply-To, else its own Message-ID) of the cover
 *   letter of the series' first version in the batch, else of its first
 *   patch, so that v2 threaded into v1 keeps v1's key when a later poll
 *   reads only v2.  A reply answers the nearest patch or cover letter of
 *   its thread (core/mail/am.h); a reply whose series is not in the batch is
 *   keyed by its own thread root.
 * - A COMMENT event's series holds one version (the number of the one
 *   answered) of stubs: for each patch the reply gives trailers to (every
 *   patch for a reply to the cover letter, b4's rule), its message_id,
 *   subject and, as trailers, the trailers this reply gives it; a reply
 *   to the cover letter also sets the version's cover.  ev->trailers holds
 *   the reply's trailers that were kept: a trailer naming an address other
 *   than the sender's is dropped unless the sender is trusted.
 * - A COMMENT event's id is the reply's Message-ID (mirror false: it is
 *   a mail), its ref.url the reply's archive link (when the source has an
 *   archive); a series gets the archive link of its first mail as
 *   archive_url.
 * - The new cursor rides on the last event emitted (of each part, for a
 *   poll in parts, below); a poll that emits
 *   nothing leaves the cursor where it was (the next poll re-reads).
 */

struct pr_mailsrc_msg {
	char *pos;
	char *data;
	size_t len;
	int64_t arrival; /* seconds since the epoch, 0 when unknown */
	bool seen; /* seen by the poll that made the cursor (see below) */
	bool waited; /* held by that poll, as a version still waiting */
};

struct pr_mailsrc_batch {
	struct pr_mailsrc_msg *v;
	size_t nr, alloc;
};

/* Copy one message into the batch. */
void pr_mailsrc_batch_add(struct pr_mailsrc_batch *b, const char *pos,
			  const char *data, size_t len, int64_t arrival);
void pr_mailsrc_batch_release(struct pr_mailsrc_batch *b);

struct pr_mailsrc_cursor {
	char *epoch; /* imap: the UIDVALIDITY; "" for the others */
	char *low; /* NULL: from the beginning */
	char *high; /* NULL: nothing seen */
	int64_t time;
	/* the positions of the mails of the versions that poll held */
	bool has_held;
	struct pr_strlist held;
	/* maildir: the names of the files seen near high (connectors/maildir.c) */
	bool has_seen;
	struct pr_strlist seen;
};

/*
 * Text form: "mailsrc1 epoch=E low=L high=H time=T", each value with bytes
 * outside [A-Za-z0-9._@+-] written %XX and "-" for NULL, then with has_held
 * " held=A,B,..." and with has_seen " seen=A,B,..." (each item so written,
 * none empty; maybe none).  Parsing refuses anything else (PR_EPARSE naming
 * the cursor) and leaves *out zeroed; it sorts the two lists.
 */
int pr_mailsrc_cursor_parse(struct pr_mailsrc_cursor *out, const char *text);
int pr_mailsrc_cursor_format(struct pr_buf *out,
			     const struct pr_mailsrc_cursor *c);
void pr_mailsrc_cursor_release(struct pr_mailsrc_cursor *c);
/* Is s in the list (sorted, as pr_mailsrc_cursor_parse leaves it)? */
bool pr_mailsrc_list_has(const struct pr_strlist *l, const char *s);

struct pr_mailsrc_opts {
	const char *origin; /* the source instance's name */
	const char *prefix; /* its log prefix */
	int64_t wait_ms;
	const struct pr_strlist *trusted;
	int64_t now; /* seconds since the epoch */
	const char *epoch; /* written into the new cursor; NULL: "" */
	/* the archive's link to a mail, %m its Message-ID; NULL: none */
	const char *archive;
	/* set by pr_mailsrc_emit; a source calling pr_mailsrc_emit_seen sets
	 * them itself */
	bool has_prev; /* the messages' seen flags come from a cursor */
	bool knows_waited; /* and their waited flags too */
	int64_t prev_time; /* when the poll that made that cursor ran */
	/* the text of the new cursor, low the position of the oldest mail of
	 * a version still waiting (NULL: none waits) */
	int (*cursor)(struct pr_buf *out, const char *low, void *payload);
	void *cursor_payload;
	/*
	 * NULL, or may give a series another key than the one computed (the
	 * patchwork source: an earlier poll's key for a later version); the
	 * new *key must outlive the pr_mailsrc_emit_seen() call
	 */
	int (*rekey)(const char **key, const struct pr_asm_series *s,
		     void *payload);
	void *rekey_payload;
	/* the state store during the engine's pass (pr_instance.store):
	 * without a rekey of its own, pr_mailsrc_rekey() */
	struct pr_store *store;
	/* NULL, or gets the position of each message that does not parse */
	struct pr_strlist *skipped;
	/* NULL, or gets the position of each mail of a version that waits */
	struct pr_strlist *held;
	/* more parts of this poll follow (pr_mailsrc_parts): an incomplete
	 * version waits, due or not (its missing patches may be in the next
	 * part), unless `carried` says enough mails wait already */
	bool more, carried;
};

/* The options of a poll of instance inst at `now`; epoch "", no archive. */
void pr_mailsrc_opts_init(struct pr_mailsrc_opts *o,
			  const struct pr_instance *inst, int64_t wait_ms,
			  const struct pr_strlist *trusted, int64_t now);

/*
 * Group the batch (in position order) and emit its events: for each
 * series, the versions to emit (PR_EVENT_SERIES for the series' first
 * version in the batch when it is v1, PR_EVENT_VERSION for the others),
 * then a PR_EVENT_COMMENT per new reply.  `prev` is the cursor the batch
 * was read from (NULL: the beginning): a message at or below its high is
 * seen.  A message that does not parse is logged and skipped.  A
 * superseded version (core/mail/assemble.h) is not emitted.  Returns 0, a
 * negative PR_E*, or what emit returned when non-zero.
 */
int pr_mailsrc_emit(struct pr_mailsrc_batch *b,
		    const struct pr_mailsrc_cursor *prev,
		    const struct pr_mailsrc_opts *o, pr_event_fn emit,
		    void *payload);
/*
 * The same for a source with a cursor of its own (the mbox source): each
 * message's seen flag, o->has_prev and o->prev_time say what the last
 * poll saw, and o->cursor writes the cursor the last event carries.
 */
int pr_mailsrc_emit_seen(const struct pr_mailsrc_batch *b,
			 const struct pr_mailsrc_opts *o, pr_event_fn emit,
			 void *payload);

/*
 * The key a series of the poll had in an earlier poll (mailsrc_key.c), for
 * a mail source with a store and no rekey of its own: a version not
 * threaded into the versions before it, as git send-email sends a v2, is
 * of their series also when they came in an earlier poll.  b4's change-id
 * stays.  A version in the thread of a stored series of this source (the
 * key computed is its key, or a mail of it) is of it when it is v2 or
 * later, has the submitter and subject noted for it, or has a mail of it
 * (read again); else its key is its first mail's Message-ID, as one poll
 * keys a lone patch answering a series.  Outside such a thread: the
 * stored series with the mail its previous-version link names ("v1:
 * URL"), else, for v2 and later, the series an earlier version came in
 * under the same submitter and subject (its cover letter's, else its
 * first patch's).  Each complete version's submitter and subject are
 * noted in the store for the later ones ("mailsrc:ORIGIN",
 * "src:SUBMITTER\x1fSUBJECT" -> key).
 */
struct pr_mailsrc_rekey {
	struct pr_store *store;
	const char *origin, *prefix;
	struct pr_strlist keys; /* the keys given, owned */
};
int pr_mailsrc_rekey(const char **key, const struct pr_asm_series *s,
		     void *payload);

/*
 * A poll in parts, for a position-ordered source (imap, public-inbox): a
 * long catch-up is read, grouped and emitted a part at a time, so that a
 * poll holds one part, not the whole catch-up.  The source adds messages
 * to `b` in position order and calls pr_mailsrc_parts_emit() when
 * pr_mailsrc_parts_full() says so, and once at the end (last true).
 *
 * A part is a poll from the cursor the part before it ended with (`cur`,
 * the poll's own cursor for the first part): it emits what that poll
 * would, and its last event carries the cursor it ends with, whose high is
 * the part's newest position and whose held list names the mails of the
 * versions still waiting, and also the mails the previous cursor held that
 * come after the part.  So a kill -9 at any point is a kill between two
 * polls: the next poll re-reads from the last cursor stored.  Every
 * incomplete version waits at the end of a part that is not the last (its
 * missing patches may be in the next), unless the mails carried into the
 * part were already PR_MAILSRC_PART (then only those not yet due wait).  After
 * a part, `b` holds only the mails of the versions that wait, and `cur` the
 * cursor the part ended with (also when it emitted nothing, and the cursor
 * stored is the one before).
 */
struct pr_mailsrc_parts {
	struct pr_mailsrc_batch b;
	struct pr_mailsrc_cursor cur;
	bool has_cur; /* false: the first part reads from the beginning */
	size_t carried; /* the first `carried` messages of b waited */
	size_t bytes; /* the bytes of b's messages */
	size_t max; /* messages in a part */
};

/* A part: PR_MAILSRC_PART messages, or PATCHRELAY_MAIL_PART (for tests). */
#define PR_MAILSRC_PART 2000
#define PR_MAILSRC_PART_BYTES (32u << 20)

/* Start with the poll's cursor (NULL: the beginning), which is copied. */
int pr_mailsrc_parts_init(struct pr_mailsrc_parts *p,
			  const struct pr_mailsrc_cursor *prev);
/* Copy one message into the part. */
void pr_mailsrc_parts_add(struct pr_mailsrc_parts *p, const char *pos,
			  const char *data, size_t len, int64_t arrival);
bool pr_mailsrc_parts_full(const struct pr_mailsrc_parts *p);
/* Drop the messages after position end: the next part reads them again. */
void pr_mailsrc_parts_cut(struct pr_mailsrc_parts *p, const char *end);
/*
 * Emit the part (pr_mailsrc_emit) and keep only what waits.  A source with
 * a cursor of its own (o->cursor set: maildir) sets the messages' flags
 * itself and its cursor describes the part (the files up to it, what the
 * poll's cursor held after it); the part is pr_mailsrc_emit_seen's, and
 * o->held, which names what it held, is emptied after it.
 */
int pr_mailsrc_parts_emit(struct pr_mailsrc_parts *p, bool last,
			  const struct pr_mailsrc_opts *o, pr_event_fn emit,
			  void *payload);
void pr_mailsrc_parts_release(struct pr_mailsrc_parts *p);

/* The options every mail source has (wait, trusted), for its table. */
#define PR_MAILSRC_OPTIONS(ctx)                                                     \
	{ "wait",                                                                   \
	  PR_OPT_DURATION,                                                          \
	  "1h",                                                                     \
	  "how long an incomplete version waits for its missing patches",           \
	  offsetof(ctx, wait),                                                      \
	  false,                                                                    \
	  NULL },                                                                   \
	{                                                                           \
		"trusted", PR_OPT_LIST, NULL,                                       \
			"a sender whose trailers for others are kept (repeatable)", \
			offsetof(ctx, trusted), false, NULL                         \
	}

#endif
