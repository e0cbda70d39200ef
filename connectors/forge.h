#ifndef PR_FORGE_H
#define PR_FORGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/http.h"
#include "engine/registry.h"

/*
 * What GitHub and GitLab share: pull (merge) requests polled over a REST
 * API, turned into series, and reports posted back as comments.  forge.c
 * holds what a forge means (conditional polling, triggers, permissions,
 * the cursor, building the series, feedback) and reaches the forge only
 * through a pr_forge_ops table; forge_rest.c implements those ops for a
 * forge described by a const struct pr_forge_rest (its URLs, headers,
 * JSON fields and quirks: connectors/github.c, connectors/gitlab.c), and
 * forge_fetch.c fetches a PR's commits with libgit2.  None of the three
 * holds a forge-specific string.
 *
 * Invariants:
 * - A forge's connector context starts with a struct pr_forge_opts (the
 *   options both forges have, PR_FORGE_OPTIONS below), so forge.c reads
 *   the options from inst->ctx.  inst->state is a struct pr_forge made by
 *   pr_forge_open() and freed by pr_forge_close().
 * - The series key is "owner/repo#N" for both forges (N: the PR number,
 *   GitLab's iid), s->url the PR's web URL, s->submitter the head
 *   commit's author.
 * - Nothing is sent unless a trigger fired for a user who may trigger
 *   (see "Triggers" below); comments by the token's own account are never
 *   read as commands, so patchrelay cannot trigger itself.
 * - A command comment is acted on once: the cursor keeps, per PR, the
 *   highest comment id handled.
 *
 * What each op must do (all of them):
 * - Return 0 on success, PR_FORGE_NOT_MODIFIED (a positive 1) when a
 *   conditional GET was answered 304 (then the out list is left empty
 *   and *etag_out is untouched: nothing changed since that ETag), or a
 *   negative PR_E* through pr_error(): PR_EAUTH for 401/403 without a
 *   rate limit, PR_ENOENT for 404, PR_EAGAIN for a rate limit (after
 *   setting f->retry_at, see pr_forge_http()), PR_ENET for any other
 *   status >= 400 or a transport failure, PR_EPARSE for a body that is
 *   not the JSON expected.  Messages name the method and the URL, never
 *   the token.
 * - Make every request through pr_forge_http() (forge_rest.h: it sends
 *   the conditional header, recognises rate limits and maps the statuses)
 *   and every list through pr_forge_get_list() (it follows the pages to
 *   the end: Link rel="next", else a non-empty x-next-page).
 * - Lists are conditional on the ETag of their first page: `etag` in
 *   (NULL: unconditional), the first page's new ETag in *etag_out
 *   (malloc'ed, NULL when the answer had none).
 * - list_prs lists only open PRs, most recently updated first (so that
 *   any change to any PR changes the first page and its ETag).
 * - list_comments lists a PR's comments oldest first; system notes
 *   (GitLab "closed", "added 1 commit") are left out.
 */

#define PR_FORGE_NOT_MODIFIED 1

/* An instance's kind for messages ("source", "sink"; tests leave it NULL). */
#define PR_FORGE_KIND(inst) ((inst)->kind ? (inst)->kind : "source")

/* The options both forges have, stored first in their context. */
struct pr_forge_opts {
	char *api_url;
	struct pr_strlist repo; /* "owner/name" (GitLab: a full path) */
	char *token;
	char *trigger; /* auto | comment | label */
	char *label; /* trigger = label: the label that sends */
	struct pr_strlist allow; /* logins that may /submit any PR */
	struct pr_strlist maintainers; /* logins that may /allow @user */
	int64_t max_commits;
	char *close; /* after-send | on-merge | never */
	char *label_sent;
	char *label_refused;
	char *label_landed;
	char *cache_dir;
	char *ca_file;
	int64_t timeout; /* milliseconds */
	/* comments, line comments and reviews become comment events */
	bool mirror_reviews;
};

extern const char *const pr_forge_trigger_choices[];
extern const char *const pr_forge_close_choices[];

/*
 * The entries of a forge's option table for the fields of pr_forge_opts,
 * at offsets inside its context type CTX (which holds a pr_forge_opts
 * named `forge`), with API_URL as the default api-url and REPO_KEY the
 * name of the repeatable repository option ("repo" on GitHub, "project"
 * on GitLab, whose projects are full group paths).
 */
#define PR_FORGE_OPTIONS(CTX, API_URL, REPO_KEY)                         \
	{ "api-url",                                                     \
	  PR_OPT_STRING,                                                 \
	  API_URL,                                                       \
	  "the REST API's base URL",                                     \
	  offsetof(CTX, forge.api_url),                                  \
	  false,                                                         \
	  NULL },                                                        \
		{ REPO_KEY,                                              \
		  PR_OPT_LIST,                                           \
		  NULL,                                                  \
		  "a repository to poll: owner/name or group/project",   \
		  offsetof(CTX, forge.repo),                             \
		  true,                                                  \
		  NULL },                                                \
		{ "token",                                               \
		  PR_OPT_SECRET,                                         \
		  NULL,                                                  \
		  "the API token: file:PATH or env:NAME",                \
		  offsetof(CTX, forge.token),                            \
		  false,                                                 \
		  NULL },                                                \
		{ "trigger",                                             \
		  PR_OPT_ENUM,                                           \
		  "comment",                                             \
		  "what sends a PR: auto (every new head), comment "     \
		  "(/submit, /preview), label (the `label` option)",     \
		  offsetof(CTX, forge.trigger),                          \
		  false,                                                 \
		  pr_forge_trigger_choices },                            \
		{ "label",                                               \
		  PR_OPT_STRING,                                         \
		  NULL,                                                  \
		  "trigger = label: the label that sends a PR",          \
		  offsetof(CTX, forge.label),                            \
		  false,                                                 \
		  NULL },                                                \
		{ "allow",                                               \
		  PR_OPT_LIST,                                           \
		  NULL,                                                  \
		  "a login that may /submit any PR (repeatable)",        \
		  offsetof(CTX, forge.allow),                            \
		  false,                                                 \
		  NULL },                                                \
		{ "maintainers",                                         \
		  PR_OPT_LIST,                                           \
		  NULL,                                                  \
		  "a login that may /allow @user on a PR (repeatable)",  \
		  offsetof(CTX, forge.maintainers),                      \
		  false,                                                 \
		  NULL },                                                \
		{ "max-commits",                                         \
		  PR_OPT_INT,                                            \
		  "30",                                                  \
		  "a PR with more commits is refused",                   \
		  offsetof(CTX, forge.max_commits),                      \
		  false,                                                 \
		  NULL },                                                \
		{ "close",                                               \
		  PR_OPT_ENUM,                                           \
		  "never",                                               \
		  "close the PR: after-send, on-merge, never",           \
		  offsetof(CTX, forge.close),                            \
		  false,                                                 \
		  pr_forge_close_choices },                              \
		{ "label-sent",                                          \
		  PR_OPT_STRING,                                         \
		  NULL,                                                  \
		  "a label added to a PR once it was sent",              \
		  offsetof(CTX, forge.label_sent),                       \
		  false,                                                 \
		  NULL },                                                \
		{ "label-refused",                                       \
		  PR_OPT_STRING,                                         \
		  NULL,                                                  \
		  "a label added to a PR that was refused",              \
		  offsetof(CTX, forge.label_refused),                    \
		  false,                                                 \
		  NULL },                                                \
		{ "label-landed",                                        \
		  PR_OPT_STRING,                                         \
		  NULL,                                                  \
		  "a label added to a PR whose commits landed",          \
		  offsetof(CTX, forge.label_landed),                     \
		  false,                                                 \
		  NULL },                                                \
		{ "cache-dir",                                           \
		  PR_OPT_PATH,                                           \
		  NULL,                                                  \
		  "where the fetched commits are kept (default: "        \
		  "$XDG_CACHE_HOME/patchrelay or ~/.cache/patchrelay)",  \
		  offsetof(CTX, forge.cache_dir),                        \
		  false,                                                 \
		  NULL },                                                \
		{ "ca-file",                                             \
		  PR_OPT_PATH,                                           \
		  NULL,                                                  \
		  "CA bundle replacing the system's for the API",        \
		  offsetof(CTX, forge.ca_file),                          \
		  false,                                                 \
		  NULL },                                                \
		{ "timeout",                                             \
		  PR_OPT_DURATION,                                       \
		  "60s",                                                 \
		  "the longest one API request may take",                \
		  offsetof(CTX, forge.timeout),                          \
		  false,                                                 \
		  NULL },                                                \
	{                                                                \
		"mirror-reviews", PR_OPT_BOOL, "false",                  \
			"comments, line comments and reviews become "    \
			"comment events (the reply relay)",              \
			offsetof(CTX, forge.mirror_reviews), false, NULL \
	}

/*
 * A forge as a sink (forge_sink.c): a version from any source pushed as a
 * branch and opened as a pull request.  The options it adds, stored
 * right after the pr_forge_opts in the context.
 */
struct pr_forge_sink_opts {
	char *push_url; /* NULL: the repository's own git URL */
	char *branch_prefix;
	char *base; /* the target branch, and the base when none is named */
	char *committer; /* "Name <addr>"; NULL: as git picks it */
	char *archive_url; /* %m: a Message-ID; NULL: none */
};

/* A forge connector's context: the options of the type's table. */
struct pr_forge_ctx {
	struct pr_forge_opts forge;
	struct pr_forge_sink_opts sink;
};

/* The entries of the option table for pr_forge_sink_opts, in CTX.sink. */
#define PR_FORGE_SINK_OPTIONS(CTX)                                          \
	{ "push-url",                                                       \
	  PR_OPT_STRING,                                                    \
	  NULL,                                                             \
	  "sink: the git remote the branch is pushed to (default: the "     \
	  "repository's own)",                                              \
	  offsetof(CTX, sink.push_url),                                     \
	  false,                                                            \
	  NULL },                                                           \
		{ "branch-prefix",                                          \
		  PR_OPT_STRING,                                            \
		  "patchrelay/",                                            \
		  "sink: what the series' branch name starts with",         \
		  offsetof(CTX, sink.branch_prefix),                        \
		  false,                                                    \
		  NULL },                                                   \
		{ "base",                                                   \
		  PR_OPT_STRING,                                            \
		  NULL,                                                     \
		  "sink: the target branch (and the base of a series that " \
		  "names none)",                                            \
		  offsetof(CTX, sink.base),                                 \
		  false,                                                    \
		  NULL },                                                   \
		{ "committer",                                              \
		  PR_OPT_STRING,                                            \
		  NULL,                                                     \
		  "sink: the committer \"Name <addr>\" (default: as git "   \
		  "picks it)",                                              \
		  offsetof(CTX, sink.committer),                            \
		  false,                                                    \
		  NULL },                                                   \
	{                                                                   \
		"archive-url", PR_OPT_STRING, NULL,                         \
			"sink: the list archive's link, %m the Message-ID", \
			offsetof(CTX, sink.archive_url), false, NULL        \
	}

struct pr_forge_pr {
	int64_t number;
	char *title;
	char *body; /* "" when empty */
	char *author; /* login */
	char *head_sha;
	char *base_ref; /* target branch */
	char *web_url;
	char *fetch_url; /* a git URL holding fetch_ref */
	char *fetch_ref; /* "refs/pull/N/head" */
	char *base_url; /* a git URL holding base_ref (the target repo) */
	struct pr_strlist labels;
	char *updated_at;
	bool draft;
};

struct pr_forge_pr_list {
	struct pr_forge_pr *items;
	size_t nr, alloc;
};

struct pr_forge_comment {
	int64_t id;
	char *author; /* login */
	char *body;
	char *url; /* NULL: the forge gives none */
	char *path; /* a comment on a line: its file; NULL: not on a line */
	int64_t line; /* its line, 0 when unknown */
	char *hunk; /* the lines it answers (GitHub's diff_hunk); NULL */
	char *state; /* a review's verdict ("APPROVED"); NULL */
};

struct pr_forge_comment_list {
	struct pr_forge_comment *items;
	size_t nr, alloc;
};

void pr_forge_pr_release(struct pr_forge_pr *pr);
/* A new zeroed item at the end of l. */
struct pr_forge_pr *pr_forge_pr_list_add(struct pr_forge_pr_list *l);
void pr_forge_pr_list_release(struct pr_forge_pr_list *l);
struct pr_forge_comment *
pr_forge_comment_list_add(struct pr_forge_comment_list *l);
void pr_forge_comment_list_release(struct pr_forge_comment_list *l);

struct pr_forge;

struct pr_forge_ops {
	const char *name; /* "github" */
	/* the user name git sends with the token over HTTPS: "x-access-token" */
	const char *git_user;
	/*
	 * Called by pr_forge_open() on the new state (no network): refuse
	 * what these ops cannot serve (PR_ECONFIG), set f->http's auth
	 * header and headers.  NULL: nothing to do.
	 */
	int (*open)(struct pr_forge *f);
	/* The token's own login, malloc'ed in *out (conditional on etag). */
	int (*whoami)(struct pr_forge *f, char **out, const char *etag,
		      char **etag_out);
	/* The open PRs of repo, every page (see above). */
	int (*list_prs)(struct pr_forge *f, struct pr_forge_pr_list *out,
			const char *repo, const char *etag, char **etag_out);
	/* One PR (unconditional). */
	int (*get_pr)(struct pr_forge *f, struct pr_forge_pr *out,
		      const char *repo, int64_t number);
	/* A PR's comments, oldest first, every page. */
	int (*list_comments)(struct pr_forge *f,
			     struct pr_forge_comment_list *out,
			     const char *repo, int64_t number, const char *etag,
			     char **etag_out);
	/* Post a Markdown comment; its id in *id (NULL: not asked). */
	int (*post_comment)(struct pr_forge *f, const char *repo,
			    int64_t number, const char *body, int64_t *id);
	/*
	 * mirror-reviews: a PR's comments on lines and its reviews, oldest
	 * first, every page (conditional as list_comments); a forge that
	 * keeps them among the comments lists none here.
	 */
	int (*list_line_comments)(struct pr_forge *f,
				  struct pr_forge_comment_list *out,
				  const char *repo, int64_t number,
				  const char *etag, char **etag_out);
	int (*list_reviews)(struct pr_forge *f,
			    struct pr_forge_comment_list *out, const char *repo,
			    int64_t number, const char *etag, char **etag_out);
	int (*close_pr)(struct pr_forge *f, const char *repo, int64_t number);
	/* Add one label (the others stay). */
	int (*add_label)(struct pr_forge *f, const char *repo, int64_t number,
			 const char *label);
	/* The repository's git URL (what a sink pushes to), malloc'ed. */
	int (*clone_url)(struct pr_forge *f, char **out, const char *repo);
	/*
	 * The open PR whose head is `branch` of repo itself; PR_ENOENT
	 * without a message when there is none.
	 */
	int (*find_pr)(struct pr_forge *f, struct pr_forge_pr *out,
		       const char *repo, const char *branch);
	/* Open a PR of branch into base; the new PR in out. */
	int (*create_pr)(struct pr_forge *f, struct pr_forge_pr *out,
			 const char *repo, const char *branch, const char *base,
			 const char *title, const char *body);
	/* Set a PR's title and description. */
	int (*update_pr)(struct pr_forge *f, const char *repo, int64_t number,
			 const char *title, const char *body);
	/*
	 * report-to: a commit status on sha for `context`, its state the
	 * verdict's (enum pr_verdict), description one line.
	 */
	int (*post_status)(struct pr_forge *f, const char *repo,
			   const char *sha, int verdict, const char *context,
			   const char *description);
};

/* The per-instance state (inst->state). */
struct pr_forge {
	const struct pr_forge_ops *ops;
	struct pr_instance *inst;
	const struct pr_forge_opts *opts; /* inst->ctx */
	struct pr_http_client http; /* filled by pr_forge_open() */
	/* set by pr_forge_http() on a rate-limit answer: epoch seconds */
	int64_t retry_at;
	/* a sink's options (the context's), NULL for a source */
	const struct pr_forge_sink_opts *sink;
	/* the series being emitted is a preview (for feedback) */
	bool emitting_preview;
	int64_t now; /* 0: time(NULL); tests set it */
};

/*
 * Make the state for inst (no network): checks the shared options (repo
 * form, trigger = label needs label), fills f->http with the token, CA
 * file and timeout, then calls ops->open.
 */
int pr_forge_open(struct pr_forge **out, struct pr_instance *inst,
		  const struct pr_forge_ops *ops);
void pr_forge_close(struct pr_forge *f);

/*
 * A forge's connector type: its open() calls pr_forge_type_open() with
 * its ops (inst->state is the pr_forge); poll, feedback and close are
 * these as they are.  PR_FORGE_TYPE is the part of the type's initializer
 * that all forges share: CTX is the context type, API_URL and REPO_KEY
 * as for PR_FORGE_OPTIONS, OPEN the forge's open().
 */
/* clang-format off */
#define PR_FORGE_TYPE(CTX, API_URL, REPO_KEY, OPEN)                      \
	.abi = PR_ABI_VERSION,                                           \
	.caps = PR_CAP_SOURCE | PR_CAP_SINK | PR_CAP_FEEDBACK,           \
	.options = (const struct pr_option[]){                           \
		PR_FORGE_OPTIONS(CTX, API_URL, REPO_KEY),                \
		PR_FORGE_SINK_OPTIONS(CTX),                              \
		PR_OPTIONS_END,                                          \
	},                                                               \
	.ctx_size = sizeof(CTX),                                         \
	.open = OPEN,                                                    \
	.poll = pr_forge_type_poll,                                      \
	.feedback = pr_forge_type_feedback,                              \
	.close = pr_forge_type_close,                                    \
	.deliver_version = pr_forge_sink_deliver,                        \
	.relay_comment = pr_forge_sink_relay,                            \
	.series_state = pr_forge_sink_state,                             \
	.report = pr_forge_type_report
/* clang-format on */

int pr_forge_type_open(struct pr_instance *inst,
		       const struct pr_forge_ops *ops);
int pr_forge_type_poll(struct pr_instance *inst, const char *cursor,
		       pr_event_fn emit, void *payload);
int pr_forge_type_feedback(struct pr_instance *inst, const struct pr_series *s,
			   const struct pr_report *report, const char *summary);
void pr_forge_type_close(struct pr_instance *inst);
/* report-to: a commit status on the PR's head (forge_report.c). */
int pr_forge_type_report(struct pr_instance *inst,
			 const struct pr_report_post *p);

/*
 * The sink (forge_sink.c), on a struct pr_forge_ctx.
 *
 * deliver: the version's commits (as `git am` makes them from its
 * mails, gitpush.h) on its base-commit, else on `base`, pushed, forced, to
 * push-url as the branch pr_forge_sink_branch names; then the open pull
 * request of that branch into `base` gets the cover letter's subject as
 * its title and its body plus the archive link as its description, made
 * when there is none; a later version updates both and comments the
 * range-diff against the version before it.  A series that does not
 * apply is a rejection naming the patch and why; nothing is pushed or
 * opened then.  The pull request's number, URL and the branch go into the
 * store's identity map under the series.
 *
 * open (a sink): one repository, `base` set, a branch prefix git takes,
 * a committer that parses, no password in push-url.
 */
int pr_forge_sink_open(struct pr_forge *f);
int pr_forge_sink_deliver(struct pr_instance *inst,
			  const struct pr_version_delivery *d,
			  struct pr_deliver_result *out);
/*
 * The reply relay's ops (registry.h): the pull request of r's series is
 * the series' own when it came from this repository (key "repo#N"), else
 * the one this sink opened (the identity map's "<forge>" id of the
 * series, else the open PR of its branch).  relay: one comment there,
 * naming the author, the mail answered and the archive link, the text as
 * mailed, and the trailers given; *posted its pr_forge_ref_id.  state:
 * a PR this sink opened gets a comment saying why and is closed.  No PR:
 * nothing done, 0.
 */
int pr_forge_sink_relay(struct pr_instance *inst, const struct pr_relay *r,
			char **posted);
int pr_forge_sink_state(struct pr_instance *inst, const struct pr_relay *r,
			const char *state, const char *why);
/*
 * The branch of series (origin, key): prefix, then the key with every
 * byte outside [A-Za-z0-9._-] as '-' (at most 48 of them, no ".." and no
 * leading '.'), '-' and 8 hex digits of the SHA-1 of origin NUL key, so
 * two keys never share a branch.  The same for every version.
 */
int pr_forge_sink_branch(struct pr_buf *out, const char *prefix,
			 const char *origin, const char *key);

/* "owner/repo#7" -> repo "owner/repo" (appended) and 7; else PR_EINVAL. */
int pr_forge_split_key(struct pr_buf *repo, int64_t *number, const char *key);

/*
 * The id a comment of this forge has in a comment event's ref
 * (pr_event.id): "<forge>-<kind>:<id>", kind "comment" (on the PR),
 * "line-comment" or "review".  What a sink posts is recorded under it,
 * so that the source that reads it back knows it for patchrelay's.
 */
int pr_forge_ref_id(struct pr_buf *out, const struct pr_forge *f,
		    const char *kind, int64_t id);

/* The time: f->now when a test set it, else time(NULL). */
int64_t pr_forge_now(const struct pr_forge *f);
/* t as "2026-12-03T18:00:00Z" (UTC). */
void pr_forge_format_time(char out[32], int64_t t);

/*
 * The commits of a PR fetched into the cache repository:
 * <cache-dir>/<forge>/<repo, %XX-escaped>.git (bare), with fetch_ref from
 * fetch_url as refs/patchrelay/head/N and refs/heads/<base_ref> from
 * base_url as refs/patchrelay/base/N.  `range` is the revision range of
 * the series (base..head: what `git format-patch` would take), `commits`
 * and `merges` count it.  The token is given to git only when the server
 * asks for credentials.
 */
struct pr_forge_fetched {
	struct pr_buf dir; /* the cache repository */
	char *range;
	char head[41], base[41], merge_base[41]; /* merge_base "" if none */
	size_t commits, merges;
	char first_merge[41];
};

int pr_forge_cache_path(struct pr_buf *out, const struct pr_forge *f,
			const char *repo);
int pr_forge_fetch(struct pr_forge_fetched *out, struct pr_forge *f,
		   const char *repo, const struct pr_forge_pr *pr);
void pr_forge_fetched_release(struct pr_forge_fetched *f);

/* The forge's poll and feedback (connector type ops call these). */
int pr_forge_poll(struct pr_forge *f, const char *cursor, pr_event_fn emit,
		  void *payload);
int pr_forge_feedback(struct pr_forge *f, const struct pr_series *s,
		      const struct pr_report *report, const char *summary);

/*
 * The decisions, exposed for tests.
 *
 * pr_forge_may_trigger: whether `login` may /submit or /preview PR `pr`:
 * its author, a login on `allow`, or one in `allowed` (logins a
 * maintainer /allow-ed on this PR).  Logins compare case-insensitively.
 */
bool pr_forge_may_trigger(const struct pr_forge_opts *o,
			  const struct pr_forge_pr *pr,
			  const struct pr_strlist *allowed, const char *login);

/*
 * The addresses of the "Cc:" lines of a PR body, added to out as
 * PR_RCPT_CC with reason "cc: in PR body"; the cover body without those
 * lines in *rest (malloc'ed).  A value that is not a clean address (a CR,
 * LF or other control byte, no '@', a second address glued on) is
 * dropped.  Returns 0 or PR_E*.
 */
int pr_forge_parse_cc(struct pr_recipient_list *out, char **rest,
		      const char *body);

/*
 * The cursor: a JSON object, version 1, that forge.c writes into every
 * event it emits (the engine stores it per route):
 *
 *	{"v":1, "retry_at":EPOCH, "self":"login", "self_etag":"...",
 *	 "lists":{"owner/repo":"etag"},
 *	 "prs":{"owner/repo#7":{"c":LAST_COMMENT_ID, "head":"sha",
 *	        "etag":"comments etag", "allowed":["login"],
 *	        "told":["login"], "m":LAST_MIRRORED_COMMENT_ID,
 *	        "r":LAST_LINE_COMMENT_ID, "re":"etag",
 *	        "v":LAST_REVIEW_ID, "ve":"etag"}}}
 *
 * "head" is the head last emitted or refused (so trigger = auto does
 * not send or refuse one head twice), "told" the logins already told
 * they may not trigger (told once).  A PR that is no longer open is
 * dropped, so the cursor stays as big as the open PRs.  Unknown keys
 * are ignored; a text that is not such an object is PR_EPARSE.
 */
struct pr_forge_pr_state {
	char *key; /* "owner/repo#7" */
	int64_t last_comment;
	char *head; /* NULL: none */
	char *etag; /* of the comment list; NULL: none */
	/* mirror-reviews: the last comment, line comment, review emitted */
	int64_t last_mirror, last_line, last_review;
	char *line_etag, *review_etag; /* NULL: none */
	struct pr_strlist allowed;
	struct pr_strlist told;
	bool seen; /* in this poll's list of open PRs (not stored) */
};

struct pr_forge_list_etag {
	char *repo;
	char *etag;
};

struct pr_forge_cursor {
	int64_t retry_at; /* 0: none */
	char *self; /* the token's login */
	char *self_etag;
	struct pr_forge_list_etag *lists;
	size_t nr_lists, alloc_lists;
	struct pr_forge_pr_state *prs;
	size_t nr_prs, alloc_prs;
};

/* Parse text (NULL or "": an empty cursor) into a zeroed c. */
int pr_forge_cursor_parse(struct pr_forge_cursor *c, const char *text);
/* Append c as JSON text (keys in a fixed order). */
int pr_forge_cursor_format(struct pr_buf *out, const struct pr_forge_cursor *c);
void pr_forge_cursor_release(struct pr_forge_cursor *c);
/* The state of PR key; a new empty one when create, else NULL. */
struct pr_forge_pr_state *pr_forge_cursor_pr(struct pr_forge_cursor *c,
					     const char *key, bool create);

#endif
