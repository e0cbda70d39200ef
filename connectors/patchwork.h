#ifndef PR_CONNECTORS_PATCHWORK_H
#define PR_CONNECTORS_PATCHWORK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/http.h"
#include "base/strlist.h"
#include "engine/registry.h"

/*
 * The patchwork connector (DESIGN.md section 3, apis.md section 4): a
 * Patchwork project's REST API (1.0 to 1.4) as a sink that syncs patch
 * states (landed commits accepted, earlier versions superseded), a
 * feedback node that posts reports as checks, and a source of the series
 * Patchwork completed.  The files:
 *
 *	patchwork.c	the type, its options, feedback (checks)
 *	pw_api.c	requests, pages, the JSON answers (this header)
 *	pw_sync.c	the sink: landed commits and superseded versions
 *	pw_source.c	the source: series-completed events to versions
 *
 * Invariants:
 * - Every request goes through pr_pw_request(), which counts it (reads
 *   and writes apart: the bench and the logs show them) and turns
 *   Patchwork's answers into errors that name the instance: 403 is
 *   PR_EAUTH with Patchwork's `detail` text, 400 PR_EINVAL with the
 *   field errors, 404 PR_ENOENT, 429 and 503 PR_EAGAIN "rate limited
 *   until T" when a Retry-After says T, other failures PR_ENET.
 * - Lists are followed page by page through Link rel="next", which must
 *   stay under api-url (the token is never sent elsewhere).
 * - What the connector learns is kept as notes of scope "patchwork:NAME"
 *   (engine/notes.h) when the engine hands it the store; docs/connectors/
 *   patchwork.md lists the keys.
 */

struct pr_patchwork_ctx {
	char *api_url;
	char *project;
	char *token;
	char *on_landed;
	char *on_superseded;
	char *check_context;
	struct pr_strlist match;
	char *report_url;
	char *since;
	bool archive;
	char *ca_file;
	int64_t timeout;
	int64_t max_pages;
};

extern const struct pr_connector_type pr_connector_patchwork;

/* How a landed commit may be matched, in the order `match` lists them. */
enum pr_pw_match {
	PR_PW_MATCH_MSGID = 0,
	PR_PW_MATCH_HASH,
	PR_PW_MATCH_PATCH_ID,
	PR_PW_MATCH_SUBJECT,
};

const char *pr_pw_match_name(enum pr_pw_match m);

/* The per-instance state (inst->state). */
struct pr_pw {
	struct pr_instance *inst;
	const struct pr_patchwork_ctx *o;
	struct pr_http_client http;
	struct pr_buf api; /* api-url with a final '/' */
	enum pr_pw_match match[4];
	size_t nr_match;
	size_t reads, writes; /* requests sent */
};

/*
 * Check the options and make the state (no network): api-url must be
 * http(s), project a link name, check-context a slug, match a list of
 * known methods (each value may hold several, split on commas and
 * blanks; none: msgid, hash, patch-id).
 */
int pr_pw_open(struct pr_pw **out, struct pr_instance *inst);
void pr_pw_free(struct pr_pw *pw);

/* A patch as a list or detail answer gives it. */
struct pr_pw_patch {
	int64_t id;
	int64_t series_id; /* 0: none */
	char *msgid; /* without the angle brackets */
	char *name; /* "[v2,1/3] subject" */
	char *state;
	char *hash; /* NULL: none */
	char *commit_ref;
	char *web_url;
	char *submitter; /* email */
	char *diff; /* detail only, else NULL */
	bool archived;
};

struct pr_pw_patch_list {
	struct pr_pw_patch *items;
	size_t nr, alloc;
};

void pr_pw_patch_release(struct pr_pw_patch *p);
void pr_pw_patch_list_release(struct pr_pw_patch_list *l);

/*
 * One patch object (a jansson json_t *, borrowed) into a zeroed *out;
 * PR_EPARSE naming the field when it is not what the API gives.
 */
int pr_pw_patch_parse(struct pr_pw_patch *out, const void *json);
/* A page of patches: a JSON array of patch objects, appended to out. */
int pr_pw_patches_parse(struct pr_pw_patch_list *out, const char *text,
			size_t len);

/* An event: series-completed, patch-state-changed (others: category). */
struct pr_pw_event {
	int64_t id;
	char *category;
	char *date; /* ISO 8601 as given, no zone */
	int64_t series_id; /* 0: the payload names none */
	char *series_url; /* the API URL of the series */
	/* patch-state-changed: the patch's Message-ID (no brackets), id,
	 * and the state it came to; NULL, 0 otherwise */
	char *patch_msgid;
	int64_t patch_id;
	char *state;
};

struct pr_pw_event_list {
	struct pr_pw_event *items;
	size_t nr, alloc;
};

void pr_pw_event_list_release(struct pr_pw_event_list *l);
/* A page of events appended to out (every category: see category). */
int pr_pw_events_parse(struct pr_pw_event_list *out, const char *text,
		       size_t len);

/* A series as its detail answer gives it. */
struct pr_pw_series {
	int64_t id;
	char *name; /* NULL: none */
	char *web_url;
	char *mbox; /* the patches' mbox */
	int version;
	int total;
	bool received_all;
	char *submitter_name, *submitter_email;
	char *cover_mbox; /* NULL: no cover letter */
	char *cover_msgid;
	int64_t cover_id;
	char *cover_web_url; /* NULL: none */
	/* its patches, as the detail lists them (id, web_url; no diff) */
	struct pr_pw_patch_list patches;
};

void pr_pw_series_release(struct pr_pw_series *s);
int pr_pw_series_parse(struct pr_pw_series *out, const char *text, size_t len);

/*
 * The states a 400 answer to a state change lists ("Invalid state foo.
 * Expected one of: new, under-review, ..."), added to out; PR_ENOENT
 * when the body holds no such text.
 */
int pr_pw_states_parse(struct pr_strlist *out, const char *body);

/* The `detail` or field errors of an error body as one line. */
int pr_pw_error_text(struct pr_buf *out, const char *body, size_t len);

/*
 * One request: url absolute or relative to api-url, body JSON or NULL.
 * 2xx is 0; anything else an error as said above (resp is filled in
 * whenever an answer came; release it).
 */
int pr_pw_request(struct pr_pw *pw, struct pr_http_response *resp,
		  const char *method, const char *url, const char *body);

/*
 * GET url and every next page, handing each page's body to fn; at most
 * max-pages pages (0: no limit).
 */
int pr_pw_get_pages(struct pr_pw *pw, const char *url,
		    int (*fn)(const char *body, size_t len, void *payload),
		    void *payload);

/*
 * The project's patches whose `filter` is `value` (msgid without
 * brackets, hash, q...), every page, appended to out.
 */
int pr_pw_find(struct pr_pw *pw, struct pr_pw_patch_list *out,
	       const char *filter, const char *value);

/* One patch in detail (diff included) into a zeroed *out. */
int pr_pw_get_patch(struct pr_pw *pw, struct pr_pw_patch *out, int64_t id);

/*
 * Set p's state (and commit_ref when not NULL, and archived when
 * `archive`); p->state follows.  A state the instance does not have is
 * PR_ECONFIG naming the option and listing the instance's states.
 */
int pr_pw_set_state(struct pr_pw *pw, struct pr_pw_patch *p, const char *option,
		    const char *state, const char *commit_ref, bool archive);

/* accepted, rejected, superseded, not-applicable, on-landed, on-superseded */
bool pr_pw_state_is_final(const struct pr_pw *pw, const char *state);

/* Notes of this instance (no-ops, PR_ENOENT for get, without a store). */
int pr_pw_note_get(struct pr_pw *pw, struct pr_buf *out, const char *key);
int pr_pw_note_set(struct pr_pw *pw, const char *key, const char *value);

/*
 * The note "patch:MSGID" of p: its id, series, state and web link, with
 * the series (origin, key, version) patchrelay knows it by (origin NULL:
 * none; an existing note's is kept).
 */
int pr_pw_note_patch(struct pr_pw *pw, const struct pr_pw_patch *p,
		     const char *origin, const char *key, int version);

/*
 * Keep what Patchwork calls an object of the series stored as series_id
 * in the identity map (engine/idmap.h): `what` "patches", "covers" or
 * "series", its id (kind "patchwork-patch", "-cover", "-series": its API
 * URL as pr_idmap_patchwork_url() keeps it) and its web page (kind
 * "patchwork-url"; NULL: none).  An id another series has stays its
 * (logged); nothing without a store.
 */
int pr_pw_remember(struct pr_pw *pw, int64_t series_id, const char *what,
		   int64_t id, const char *web_url);

/* pw_sync.c: the sink's ops. */
int pr_pw_landed(struct pr_instance *inst, const struct pr_series *branch);
int pr_pw_deliver_version(struct pr_instance *inst,
			  const struct pr_version_delivery *vd,
			  struct pr_deliver_result *out);

/* pw_source.c: the source's poll; its cursor, exposed for tests. */
int pr_pw_poll(struct pr_instance *inst, const char *cursor, pr_event_fn emit,
	       void *payload);

/* "pw1 since=DATE seen=ID,ID": where the event poll stands. */
struct pr_pw_cursor {
	char *since; /* NULL: not started */
	int64_t *seen; /* event ids at `since` already handled */
	size_t nr_seen, alloc_seen;
};

int pr_pw_cursor_parse(struct pr_pw_cursor *out, const char *text);
int pr_pw_cursor_format(struct pr_buf *out, const struct pr_pw_cursor *c);
void pr_pw_cursor_release(struct pr_pw_cursor *c);

#endif
