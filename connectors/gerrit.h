#ifndef PR_CONNECTORS_GERRIT_H
#define PR_CONNECTORS_GERRIT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/http.h"
#include "base/strlist.h"
#include "engine/registry.h"

/*
 * The gerrit connector (docs/connectors/gerrit.md).  As a source, open
 * changes of Gerrit projects become series: a `gerrit stream-events`
 * session over ssh says when something happened, and a REST query of the
 * open changes says what (connectors/gerrit_src.c).  Feedback is a review
 * on each change of the series, with a vote on `verified-label`.  As a
 * sink, a version is pushed to refs/for/BRANCH with a Change-Id per patch
 * (connectors/gerrit_sink.c).
 *
 * Files: gerrit.c (options, the REST client, feedback), gerrit_parse.c
 * (the three parsers: REST JSON, stream events, the push's remote: lines),
 * gerrit_stream.c (the libssh2 session), gerrit_src.c (poll),
 * gerrit_sink.c (the push).
 */

struct pr_gerrit_ctx {
	char *ssh_url; /* ssh://user@host:29418 */
	char *ssh_key; /* NULL: the ssh agent */
	char *known_hosts; /* NULL: ~/.ssh/known_hosts */
	char *rest_url; /* https://host[/prefix] */
	char *user;
	char *password; /* the HTTP password (a secret) */
	struct pr_strlist project;
	struct pr_strlist branch;
	char *trigger; /* auto | comment | label */
	char *label; /* trigger = label: the label whose vote sends */
	struct pr_strlist allow;
	char *series; /* topic | chain | change */
	char *verified_label; /* NULL or "": no vote */
	bool mirror_reviews;
	char *cache_dir;
	char *ca_file;
	int64_t timeout; /* ms, one request or ssh setup */
	int64_t catch_up; /* ms, a full catch-up at least this often */
	int64_t max_commits;
	char *committer; /* sink */
	char *archive_url; /* sink: Link: template, %m the Message-ID */
};

extern const struct pr_connector_type pr_connector_gerrit;

/* ---- what the REST API says (gerrit_parse.c) ---- */

struct pr_gerrit_account {
	int64_t id; /* _account_id, 0 when absent */
	char *name;
	char *email;
	char *username;
};

struct pr_gerrit_revision {
	char sha[41];
	int number; /* the patch set */
	char *ref; /* refs/changes/NN/C/PS */
	char parent[41]; /* "" when unknown */
	int nr_parents; /* -1 when unknown */
	char *kind; /* REWORK, TRIVIAL_REBASE, ... NULL when absent */
};

struct pr_gerrit_message {
	char *id;
	char *date; /* "2025-01-31 12:00:00.000000000", sorts as text */
	int ps; /* _revision_number, 0 when absent */
	char *tag; /* NULL when none */
	struct pr_gerrit_account author;
	char *message;
};

struct pr_gerrit_vote {
	char *label;
	int value;
	struct pr_gerrit_account by;
};

struct pr_gerrit_change {
	int64_t number;
	char *project;
	char *branch;
	char *topic; /* NULL when none */
	char *change_id; /* I + 40 hex */
	char *subject;
	char *status; /* NEW, MERGED, ABANDONED */
	char *updated;
	struct pr_gerrit_account owner;
	bool wip;
	bool private;
	char current[41]; /* current_revision, "" when absent */
	struct pr_gerrit_revision *revs;
	size_t nr_revs, alloc_revs;
	struct pr_gerrit_message *msgs; /* oldest first */
	size_t nr_msgs, alloc_msgs;
	struct pr_gerrit_vote *votes; /* labels.L.all[] with a value */
	size_t nr_votes, alloc_votes;
};

struct pr_gerrit_change_list {
	struct pr_gerrit_change *items;
	size_t nr, alloc;
	bool more; /* the last item had "_more_changes": true */
};

void pr_gerrit_account_release(struct pr_gerrit_account *a);
void pr_gerrit_change_release(struct pr_gerrit_change *c);
void pr_gerrit_change_list_release(struct pr_gerrit_change_list *l);
/* The revision of c with that sha (NULL: the current one), or NULL. */
const struct pr_gerrit_revision *
pr_gerrit_change_rev(const struct pr_gerrit_change *c, const char *sha);

/*
 * Strip Gerrit's ")]}'" line from a REST body: *json and *len are set to
 * what follows the first newline when the body starts with ")]}'", else to
 * the body.
 */
void pr_gerrit_json_body(const char **json, size_t *len, const char *body,
			 size_t blen);

/*
 * A /changes/ query's answer (the ")]}'" line included or not): each
 * ChangeInfo appended to out.  Only what patchrelay uses is read; a field
 * of the wrong type, or an answer that is not a list of objects, is
 * PR_EPARSE.  Revisions are sorted by patch set number, messages by date.
 */
int pr_gerrit_parse_changes(struct pr_gerrit_change_list *out, const char *body,
			    size_t len);

/* One inline comment (a CommentInfo of GET /changes/ID/comments). */
struct pr_gerrit_comment {
	char *id;
	char *path; /* "/COMMIT_MSG", "/PATCHSET_LEVEL" or a file */
	int64_t line; /* 0: on the file (or the patch set), not a line */
	int ps; /* patch_set */
	char *message;
	char *updated;
	char *change_message_id; /* NULL: not given (before Gerrit 3.4) */
	struct pr_gerrit_account author;
};

struct pr_gerrit_comment_list {
	struct pr_gerrit_comment *items;
	size_t nr, alloc;
};

void pr_gerrit_comment_list_release(struct pr_gerrit_comment_list *l);

/*
 * A change's comments (a map of path to a list of CommentInfo, the ")]}'"
 * line included or not), appended to out with their path; an `id` is
 * required, a field of the wrong type is PR_EPARSE.
 */
int pr_gerrit_parse_comments(struct pr_gerrit_comment_list *out,
			     const char *body, size_t len);

/* An AccountInfo (GET /accounts/self), the ")]}'" line included or not. */
int pr_gerrit_parse_account(struct pr_gerrit_account *out, const char *body,
			    size_t len);

/* ---- what stream-events says (gerrit_parse.c) ---- */

struct pr_gerrit_event {
	char *type; /* "patchset-created", ... */
	char *project; /* NULL when the event names none */
	char *branch; /* without refs/heads/, NULL when none */
	int64_t change; /* 0 when none */
	int ps; /* patchSet.number, 0 when none */
	char *who; /* username (else email, else name) of the actor */
	int64_t created; /* eventCreatedOn */
};

void pr_gerrit_event_release(struct pr_gerrit_event *e);

/*
 * One line of stream-events (without its newline).  A line that is not a
 * JSON object with a string "type" is PR_EPARSE; any other field may be
 * missing (apis.md: "any field may be missing").
 */
int pr_gerrit_event_parse(struct pr_gerrit_event *out, const char *line,
			  size_t len);

/* ---- what a push to refs/for says (gerrit_parse.c) ---- */

struct pr_gerrit_pushed {
	int64_t number;
	char *url;
	char *subject; /* as the line shows it, NULL when none */
	bool is_new; /* "[NEW]" */
};

struct pr_gerrit_push_answer {
	struct pr_gerrit_pushed *changes;
	size_t nr, alloc;
	struct pr_strlist errors; /* "ERROR: ..." lines, as Gerrit wrote them */
};

void pr_gerrit_push_answer_release(struct pr_gerrit_push_answer *a);

/*
 * The text Gerrit sends on the push's progress channel (what `git push`
 * shows after "remote: "), in as many pieces as it came: each
 * "  https://host/c/PROJECT/+/N SUBJECT [NEW]" line is a change, each
 * "ERROR: " line an error.  A "remote: " prefix and CR line ends are
 * taken; progress lines are skipped.  Lines are cut at 4 KiB.
 */
int pr_gerrit_push_parse(struct pr_gerrit_push_answer *out, const char *text,
			 size_t len);

/* ---- the REST client (gerrit.c) ---- */

/* The per-instance state shared by the source, the sink and feedback. */
struct pr_gerrit {
	struct pr_instance *inst;
	const struct pr_gerrit_ctx *o;
	struct pr_http_client http;
	char *basic; /* base64 of user:password, NULL: anonymous */
	const char *headers[2];
	struct pr_gerrit_src *src; /* gerrit_src.c's, NULL for a sink */
	/* the changes of the series being emitted, for feedback */
	struct pr_gerrit_fb *emitting;
	size_t nr_emitting;
	bool emitting_preview;
	/* the latest "rate limited until" a REST answer set: epoch seconds */
	int64_t retry_at;
};

/* A change and the revision of it a series holds (for feedback). */
struct pr_gerrit_fb {
	char *project;
	int64_t number;
	char sha[41];
	/* the change as the catch-up read it (its messages), while emitted */
	const struct pr_gerrit_change *change;
};

/*
 * One REST call: `path` below rest-url ("/a/changes/?q=..."), `body` a
 * JSON body or NULL.  2xx: 0, with the answer in resp; else a negative
 * PR_E* naming the method and URL: PR_EAUTH for 401/403 ("refused ... the
 * user and HTTP password"), PR_ENOENT for 404, PR_EAGAIN "rate limited
 * until T" (T in g->retry_at too) when pr_http_rate_limited says so (a
 * 429, or a 503 or 403 with Retry-After), PR_ENET otherwise, with
 * Gerrit's plain-text reason.
 */
int pr_gerrit_rest(struct pr_gerrit *g, struct pr_http_response *resp,
		   const char *method, const char *path, const char *body);

/*
 * Every open change of `project` (and of the branch filter), every page
 * (S= and _more_changes), with ALL_REVISIONS, ALL_COMMITS, MESSAGES,
 * DETAILED_ACCOUNTS and DETAILED_LABELS.  A change seen twice across
 * pages (it moved while paging) is kept once.
 */
int pr_gerrit_query_open(struct pr_gerrit *g, struct pr_gerrit_change_list *out,
			 const char *project);

struct json_t; /* jansson's */
/*
 * POST the review `body` (taken: freed here) on (project, number)
 * revision rev (a sha or "current").
 */
int pr_gerrit_post_review(struct pr_gerrit *g, const char *project,
			  int64_t number, const char *rev, struct json_t *body);
/* Post a review on (project, number) revision sha (see gerrit.c). */
int pr_gerrit_review(struct pr_gerrit *g, const char *project, int64_t number,
		     const char *sha, const char *message, int vote);

/* "<cache>/gerrit/<instance>/<project escaped>.git" */
int pr_gerrit_cache_path(struct pr_buf *out, const struct pr_gerrit *g,
			 const char *project);

/* The git URL of project: ssh-url/PROJECT, else rest-url/a/PROJECT. */
int pr_gerrit_git_url(struct pr_buf *out, const struct pr_gerrit *g,
		      const char *project);

/* ---- the ssh session (gerrit_stream.c) ---- */

struct pr_gerrit_ssh_target {
	char *user;
	char *host;
	int port;
};

void pr_gerrit_ssh_target_release(struct pr_gerrit_ssh_target *t);
/* ssh://[user@]host[:port][/...]; the user falls back to `user`. */
int pr_gerrit_ssh_target_parse(struct pr_gerrit_ssh_target *out,
			       const char *url, const char *user);

struct pr_gerrit_stream;

/*
 * Connect, check the host key against known-hosts (an unknown or changed
 * key is PR_EAUTH naming the host, port and file), log in with ssh-key
 * or the agent's keys and run `command` on an exec channel.  Errors are
 * PR_ENET (connect, ssh), PR_EAUTH (host key, login) and
 * PR_ETIMEOUT, each naming the host.
 */
int pr_gerrit_stream_open(struct pr_gerrit_stream **out,
			  const struct pr_gerrit_ctx *o, const char *command);
/*
 * The next complete line (its newline cut) in line: 1 when there is one,
 * 0 when none is there yet (after waiting up to wait_ms), PR_ENET when the
 * session ended (the server's stderr and exit status in the message) or
 * PR_ETOOBIG for a line over PR_LIMIT_GERRIT_EVENT_BYTES.
 */
int pr_gerrit_stream_line(struct pr_gerrit_stream *s, struct pr_buf *line,
			  int64_t wait_ms);
/* Safe with NULL. */
void pr_gerrit_stream_close(struct pr_gerrit_stream *s);

/* ---- the source and the sink ---- */

int pr_gerrit_poll(struct pr_instance *inst, const char *cursor,
		   pr_event_fn emit, void *payload);
void pr_gerrit_src_free(struct pr_gerrit_src *s);
int pr_gerrit_deliver_version(struct pr_instance *inst,
			      const struct pr_version_delivery *d,
			      struct pr_deliver_result *out);
/*
 * The identity map's kind of the Change-Ids sink `sink` pushed version
 * `number` with ("gerrit-ids:SINK:vN"; the value: one a patch, in order,
 * space-separated).
 */
int pr_gerrit_ids_kind(struct pr_buf *out, const char *sink, int number);
/* The same for the commits it pushed ("gerrit-commits:SINK:vN", shas). */
int pr_gerrit_commits_kind(struct pr_buf *out, const char *sink, int number);

/*
 * gerrit_relay.c, the sink's part of the reply relay (engine/bridge.h):
 * a list reply as a review message on the change of the patch it
 * answers, and a series' state told to its changes.
 */
int pr_gerrit_relay_comment(struct pr_instance *inst, const struct pr_relay *r,
			    char **posted);
int pr_gerrit_series_state(struct pr_instance *inst, const struct pr_relay *r,
			   const char *state, const char *why);

#endif
