#ifndef PR_ENGINE_H
#define PR_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/registry.h"
#include "engine/store.h"

struct pr_buf;

/*
 * The engine's delivery step: hand the rendered mails of one version to
 * one sink, message by message, with each message's status in the store.
 *
 * And one pass over a config graph (pr_engine_pass): for each route, poll
 * its source from the stored cursor; for each event with a version,
 * record the version, run the route's steps, render the version's patches
 * as git format-patch mails (no cover letter yet) and deliver them to each
 * sink; the cursor is stored only after all of that.  A source that fails
 * is counted and skipped; the other routes still run.  A "landed" event
 * (PR_EVENT_STATE, state "landed", series = the watched branch whose
 * latest version holds the new commits with commit_id and patch_id) goes
 * first to each of the route's sinks whose type has `landed` (an error of
 * one holds the cursor), then marks the stored versions it completes as
 * landed (pr_store_land) and tells each to the route's feedback node
 * once, summary "landed in BRANCH as COMMIT", with an empty report.
 * While a pass runs, every instance's `store` is the pass's store.  A
 * comment event with an id, and a state event, go to the bridge
 * (engine/bridge.h): a review mirrored from a forge becomes a reply mail
 * under the patch it is about, a reply on a list a comment on the pull
 * request, each once.
 *
 * Invariants:
 * - The delivery key depends only on what is delivered (origin, series
 *   key, version number and fingerprint, sink name), never on row ids of
 *   the store, so a sink that deduplicates by key stays right even when
 *   the state file is lost and rebuilt.
 * - A message is recorded as sent only after the sink returned
 *   PR_DELIVER_OK, and messages go in index order; the first one that
 *   fails stops the delivery, so a later pass resumes where it stopped.
 *   With a sink that writes each (key, index) at most once (maildir, mbox)
 *   this gives exactly-once delivery across crashes.
 * - An attempt is counted in the store before the sink is called, so a
 *   message whose delivery crashes the process still shows its attempts.
 * - A sink's PR_DELIVER_REJECTED is final: the message and every later
 *   one of the delivery are marked rejected (never tried again, not
 *   pending), the error is logged, and in a pass the route's report gains
 *   a FAIL entry "sink X rejected message i/N: reason" that feedback gets
 *   (with the summary of the sinks that did take the version, or NULL).
 * - A message is marked sent together with its Message-ID (the header of
 *   the rendered mail), which is how the store maps Message-IDs back to a
 *   series (pr_store_message_id_find).
 */

struct pr_engine_version {
	const char *origin; /* source connector instance */
	const char *key; /* series key at the origin */
	int64_t series_id; /* from pr_store_record_version */
	int number;
	const char *fingerprint;
};

struct pr_engine_stats {
	size_t sent; /* delivered by this call */
	size_t skipped; /* already sent (or rejected) before */
	size_t pending; /* still pending after this call */
	size_t rejected; /* refused for good by this call (or not sent) */
	enum pr_deliver_status status; /* of the last message tried */
};

/* Append the delivery key: 20 hex digits, "-v", the version number. */
int pr_engine_delivery_key(struct pr_buf *out,
			   const struct pr_engine_version *v, const char *sink);

/*
 * Deliver mails[0..nr) (lens[i] bytes each) of version `v` to the sink
 * instance `inst` of connector `type`.  Returns 0 when the sink was
 * reached (even if it asked to retry or rejected: see stats->status) or a
 * negative PR_E* when the store or the sink failed; a sink error is also
 * recorded as the message's last error.
 */
int pr_engine_deliver(struct pr_engine_stats *stats, struct pr_store *st,
		      const struct pr_engine_version *v,
		      struct pr_instance *inst,
		      const struct pr_connector_type *type,
		      const char *const *mails, const size_t *lens, size_t nr);

/*
 * pr_engine_deliver under another sink key ("<sink>+reply-..." for a
 * relayed reply), which keeps its own delivery rows and Message-IDs.
 */
int pr_engine_deliver_as(struct pr_engine_stats *stats, struct pr_store *st,
			 const struct pr_engine_version *v,
			 const char *sink_key, struct pr_instance *inst,
			 const struct pr_connector_type *type,
			 const char *const *mails, const size_t *lens,
			 size_t nr);

/*
 * Render each patch of `v` as the mail `git format-patch` writes for it
 * ([PATCH i/N] when there are several): *mails[i] of (*lens)[i] bytes.
 * Free with pr_engine_render_free().
 */
int pr_engine_render(char ***mails, size_t **lens, const struct pr_version *v);
void pr_engine_render_free(char **mails, size_t *lens, size_t nr);

/*
 * Version `number` of a series as the store kept it for range-diffs (its
 * patches as pr_format_patch wrote them, read back: author, subject,
 * message, diff and, when it came from git, the commit id) in *out;
 * PR_ENOENT (no message) when the store has no mbox for it.
 */
int pr_engine_stored_version(struct pr_version **out, struct pr_store *st,
			     int64_t series_id, int number);

struct pr_graph;

struct pr_engine_pass_stats {
	size_t events; /* versions seen */
	size_t new_versions;
	size_t sent; /* mails delivered in this pass */
	size_t pending; /* mails left pending (sink asked to retry) */
	size_t failed_sources; /* sources (or routes) that returned errors */
	size_t refused; /* versions a step failed: nothing delivered */
	size_t rejected; /* mails a sink refused for good in this pass */
	size_t landed; /* versions found landed on a watched branch */
	size_t owed; /* feedback or reports that failed, tried next pass */
};

/*
 * How a pass runs.  NULL means every field zero: a real pass.
 *
 * Under dry_run every delivery is rendered exactly as it would be sent
 * and written, instead of to the sink, to dry_run_dir (one file per mail,
 * SINK.KEY.INDEX, SINK with bytes outside [A-Za-z0-9_-] as '_') when it is
 * set, else to dry_run_fd (the mails one after another: each begins with
 * its "From <commit>" line and a blank line goes between two mails, so
 * the stream is an mbox as git format-patch --stdout writes it).  No delivery is created, no mail recorded as sent
 * and no source cursor moves, so a later real pass still delivers all of
 * it.  The versions seen are recorded (a version row is not a delivery),
 * so the numbers a dry run shows are the ones the real run sends.
 */
struct pr_engine_opts {
	bool dry_run;
	int dry_run_fd;
	const char *dry_run_dir;
	/*
	 * Which sources this pass polls: sources[0..nr_sources) by name;
	 * NULL polls every source.  A route whose source is not listed is
	 * skipped (its cursor is untouched).
	 */
	const char *const *sources;
	size_t nr_sources;
	/*
	 * Of those, the ones a webhook asked for (pr_instance.hooked is set
	 * while they poll); NULL: none.
	 */
	const char *const *hooked;
	size_t nr_hooked;
	/*
	 * Called once per route polled, after its poll, with the source's
	 * name and what the poll returned: 0, 1 (a sink asked to retry: the
	 * cursor held back) or a negative PR_E* whose message is
	 * pr_error_message() until the callback returns.  retry_at is
	 * pr_engine_retry_at() of that message (0: none).  When set, the
	 * engine does not log a failing source itself: the caller decides
	 * how often to complain.
	 */
	void (*polled)(const char *source, int err, int64_t retry_at,
		       void *payload);
	/*
	 * Called after a sink took a version (sent mails or a push) in a
	 * real pass, with the sink's name, the messages it took and the
	 * milliseconds it spent; NULL: nobody asks.
	 */
	void (*delivered)(const char *sink, size_t sent, int64_t ms,
			  void *payload);
	void *payload;
};

/*
 * "Rate limited until T": a source that must not be polled before a time
 * (a forge's rate limit, a Retry-After) returns PR_EAGAIN with a message
 * holding "rate limited until T", T being seconds since the epoch
 * (GitHub's X-RateLimit-Reset) or a UTC time "2026-12-03T19:00:00Z".
 * The run loop does not poll that source again before T (nor before its
 * interval and backoff say).  Store what the source needs to remember
 * through a cursor-only event before returning the error.
 *
 * pr_engine_retry_at gives T as seconds since the epoch, or 0 when
 * `message` holds no such phrase (or T does not parse).
 */
int64_t pr_engine_retry_at(const char *message);

/*
 * Call each instance's open() (connector or plugin) once, in graph order,
 * before the first pass over a freshly loaded graph.  On a failure the
 * instances opened so far, and the one that failed, are closed again
 * and the error is PR_ECONFIG
 * naming the instance ("sink 'mail': option 'url': ..."), so a graph is
 * either all open or all closed.  pr_engine_close() calls each close() in
 * reverse order; call it once per successful pr_engine_open(), before
 * pr_graph_free() (on shutdown and for the old graph of a SIGHUP swap).
 */
int pr_engine_open(struct pr_graph *g);
void pr_engine_close(struct pr_graph *g);

/*
 * What pr_engine_open() would refuse, without running anything: each
 * instance's open() and then its close(), in graph order (open() has no
 * side effects, registry.h).  Each failure adds one message to problems,
 * the one pr_engine_open() would give for it; the result is PR_ECONFIG,
 * "N problems in config 'FILE'" as pr_graph_load() says it, when there
 * was one, else 0.  The graph is
 * left closed.  For commands that validate only (patchrelay graph).
 */
int pr_engine_check(struct pr_graph *g, struct pr_strlist *problems);

/*
 * Append the directory of the state file `state` ("." for a bare file
 * name): what pr_engine_pass() hands each source it polls as
 * pr_instance.state_dir.
 */
int pr_engine_state_dir(struct pr_buf *out, const char *state);

/*
 * One pass; returns 0 when every route ran (even with pending mails) or
 * the error of the last route that failed (its message recorded).
 */
int pr_engine_pass(struct pr_engine_pass_stats *out, const struct pr_graph *g,
		   struct pr_store *st, const struct pr_engine_opts *opts);

#endif
