#ifndef PR_BRIDGE_H
#define PR_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

struct pr_graph;
struct pr_graph_route;
struct pr_store;

/*
 * The bridge: what crosses between the two sides of a series patchrelay
 * carried from one side to the other (a list series opened as a pull
 * request, a pull request mailed to a list), besides the versions.
 *
 * - Replies.  A comment event (PR_EVENT_COMMENT with an id) whose
 *   series the store knows, by its key or by any id of the identity map
 *   (engine/idmap.h: a PR, a Message-ID seen or sent), crosses to each
 *   sink of its route that takes it from its side: a mail (not mirror, a
 *   reply on the list) to a sink with relay_comment (a forge: one comment
 *   on the pull request), anything else (a forge comment, review or line
 *   comment) to a mail sink (smtp, maildir, mbox) as one reply mail
 *   threaded under the mail it is about: the patch of the commit a
 *   comment names (a Gerrit review on a patch set), else the patch a line
 *   comment's file and line are in (quoted with the file and line), else
 *   the cover letter (else the first patch), of the newest version mailed.
 *   The reply is From: the author's name at the sink's `from` address,
 *   its first line says who wrote where; it goes to the version's
 *   recipients (the route's routing steps run again) and the sink's to
 *   and cc, through the sink's own delivery (sink key "SINK+reply-HASH"),
 *   so a retry sends the same mail and a crash never sends two.
 * - Each comment crosses once per sink: the relay table (and, for mail,
 *   the delivery) records it.  What patchrelay wrote never comes back:
 *   a comment whose id is a Message-ID patchrelay sent or what a relay
 *   posted is dropped, checked against the store, not by its text.
 * - The trailers a comment gives (Reviewed-by, Acked-by, Tested-by) are
 *   kept for the series: to the patch it answers, to every patch when it
 *   answers the cover letter (or the whole pull request);
 *   pr_bridge_trailers() gives them to the next version a sink pushes,
 *   by patchrelay am's rules (core/mail/am.h, pr_am_apply), and
 *   pr_bridge_trailed() to the next version a mail sink sends.
 * - States.  A state event of a known series, and a version found landed,
 *   go to each sink of the route with series_state that took a version
 *   of the series: "superseded"; "landed" (also merged, accepted);
 *   "withdrawn" (also abandoned, closed, rejected).
 * - A version event whose series patchrelay itself wrote (its key, URL or
 *   first Message-ID is an id patchrelay gave another series: a pull
 *   request it opened, read back by a source of that forge; a thread it
 *   mailed, read back from the list) is not a series to carry:
 *   pr_bridge_is_own() says so and the engine drops it.
 * - A dry run records and relays nothing.
 */

struct pr_bridge {
	const struct pr_graph *g;
	const struct pr_graph_route *route;
	struct pr_store *st;
	bool dry_run;
};

/* Keep a new version's mails (Message-IDs, threading) in the map. */
int pr_bridge_record_version(struct pr_store *st, int64_t series_id,
			     const struct pr_version *v);
/* Keep a mail a sink sent for version `number` in the map. */
int pr_bridge_record_sent(struct pr_store *st, int64_t series_id, int number,
			  const char *mail, size_t len);

/* 1 when s is a pull request patchrelay opened for another series. */
int pr_bridge_is_own(struct pr_store *st, const struct pr_series *s);

/* A comment event (see above); 0 when it needs nothing. */
int pr_bridge_comment(const struct pr_bridge *b, const struct pr_event *ev);

/*
 * A state of series (origin, key) (see above); `why` for the comment.
 * 0 when no sink needed it.
 */
int pr_bridge_state(const struct pr_bridge *b, const char *origin,
		    const char *key, const char *state, const char *why);

/*
 * The trailers gathered for the series that its version v gets, by
 * patchrelay am's rules: out[i] (v->nr entries, malloc'ed) the lines
 * "Key: value\n" for patch i, NULL when none; free with
 * pr_bridge_trailers_free.
 */
int pr_bridge_trailers(char ***out, struct pr_store *st, int64_t series_id,
		       const struct pr_version *v);
void pr_bridge_trailers_free(char **t, size_t nr);

/*
 * Version v as a mail sink sends it: its patches' messages with the
 * trailers pr_bridge_trailers() gives them, added as
 * pr_trailers_append() adds them (b4's way of sending a series on with
 * the reviews it got).  *out NULL when there is none to add; else `v`
 * is the version to render, sharing v's strings but the messages, valid
 * while v is; free with pr_bridge_trailed_free.
 */
struct pr_bridge_trailed {
	struct pr_version v;
	struct pr_patch *copies;
	char **bodies; /* the messages made */
};

int pr_bridge_trailed(struct pr_bridge_trailed **out, struct pr_store *st,
		      int64_t series_id, const struct pr_version *v);
void pr_bridge_trailed_free(struct pr_bridge_trailed *t);

struct pr_engine_stats;
struct pr_engine_version;
struct pr_graph_node;
struct pr_ident;
struct pr_idmap_mail;
struct pr_outgoing_rcpt;
struct pr_buf;
/*
 * One reply mail under `to` (its subject, Message-ID and References),
 * delivered through the sink node n as its own delivery sink_key of
 * version v: the Date is the delivery's first attempt and the Message-ID
 * comes from the delivery key (given in *mid), so a retry sends the same
 * mail and a sent one is never sent again.  The relayed forge comment and
 * the report's reply to the cover letter both go this way.
 */
int pr_bridge_send_reply(struct pr_engine_stats *stats, struct pr_store *st,
			 const struct pr_engine_version *v,
			 const char *sink_key, const struct pr_graph_node *n,
			 const struct pr_ident *from,
			 const struct pr_outgoing_rcpt *rcpt,
			 const struct pr_idmap_mail *to, const char *body,
			 struct pr_buf *mid);

#endif
