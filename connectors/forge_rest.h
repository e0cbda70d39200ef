#ifndef PR_FORGE_REST_H
#define PR_FORGE_REST_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "base/http.h"
#include "forge.h"

/*
 * How patchrelay speaks to a forge's REST API: the requests (conditional
 * GETs, pages, rate limits), the JSON of pull requests, comments and users
 * mapped onto forge.h's model, and the request bodies.  A forge is one
 * const struct pr_forge_rest (connectors/github.c, connectors/gitlab.c):
 * its URLs, headers, field names and quirks, as data; the code that reads
 * them is here and names no forge.
 *
 * Invariants:
 * - Every request goes through pr_forge_http() and every list through
 *   pr_forge_get_list(); both follow forge.h's rules for the ops (status
 *   mapping, 304, ETags, rate limits).
 * - The mappers trust nothing in the JSON: a missing or mistyped required
 *   field is PR_EPARSE naming the field (the message starts with the
 *   table's noun, "github pull request: no 'title'"); a JSON null string
 *   becomes NULL, a null PR body "".  On an error the half-filled item
 *   stays in its list, to be freed with the list.
 * - Request bodies are JSON built with jansson, so no text from a user or
 *   a config file can break out of its string; text that is not UTF-8 is
 *   PR_EINVAL.
 */

/*
 * One request on one PR: the repository's URL, then path, the PR number,
 * tail ("/issues/" 7 "/comments").
 */
struct pr_forge_route {
	const char *method;
	const char *path;
	const char *tail;
};

struct pr_forge_rest {
	/* first: PR_FORGE_REST_OPS(...); forge_rest.c finds the table by it */
	struct pr_forge_ops ops;
	const char *name; /* "github": errors say "github request: ..." */

	/* ---- requests ---- */
	/*
	 * Append api_url + the repository's part + suffix (raw, may be
	 * NULL).  PR_EINVAL for a repository it cannot name: the open op
	 * refuses such a `repo` option.
	 */
	int (*repo_url)(struct pr_buf *out, const char *api_url,
			const char *repo, const char *suffix);
	const char *auth_header; /* printf format with the token's %s */
	const char *const *headers; /* NULL-ended, or NULL */
	const char *user_agent; /* NULL: pr_http's default */
	/* after the repository URL: the open PRs, most recently updated first */
	const char *list_prs;
	struct pr_forge_route get_pr;
	struct pr_forge_route list_comments; /* oldest first */
	struct pr_forge_route post_comment; /* body {"body": text} */
	struct pr_forge_route close_pr;
	struct pr_forge_route add_label;
	/*
	 * NULL: ends() fills fetch_url and base_url from the PR itself.
	 * Else the field of the repository's object (GET repo_url) that
	 * holds the git URL of every PR's refs, asked once a list or a PR
	 * is read.
	 */
	const char *repo_git_url;

	/* ---- a sink's requests (forge_sink.c) ---- */
	const char *clone_url; /* the repository object's git URL field */
	/*
	 * After the repository URL: the open PRs whose head is a branch of
	 * the repository itself, the branch (escaped) appended, after
	 * "OWNER:" (the repository's first part) when find_owner.
	 */
	const char *find_pr;
	bool find_owner;
	const char *create_pr; /* after the repository URL; POSTed */
	struct pr_forge_route update_pr; /* title and description */
	/* the create body's fields: {"title", body, head_key, base_key} */
	const char *head_key, *base_key;

	/* ---- mirror-reviews (forge.c): what is said on the lines ---- */
	/* the comments on lines; method NULL: the comment list has them */
	struct pr_forge_route list_line_comments;
	/* the reviews (a verdict with text); method NULL: none */
	struct pr_forge_route list_reviews;
	/* a comment's URL field; NULL: the PR's URL and "#note_ID" */
	const char *comment_url;
	/* the object of a comment holding the fields below; NULL: itself */
	const char *position;
	/* its file, line (new side; else old side) and hunk fields */
	struct {
		const char *path, *no, *old, *hunk;
	} line;

	/* ---- a pull request's JSON ---- */
	const char *pr_what; /* "github pull request" */
	const char *number; /* "number": the N of the PR's routes */
	const char *mark; /* "#": errors name the PR "#7" */
	const char *body; /* the PR's description */
	const char *web_url;
	const char *author; /* the object of a PR's or comment's author */
	const char *login; /* its login; also the login of GET /user */
	/* head_sha and base_ref (and the git URLs, see repo_git_url) */
	int (*ends)(struct pr_forge_pr *pr, const json_t *o);
	/* a label may be a bare string; else only an object with a name */
	bool label_strings;
	const char *draft_old; /* read when "draft" is absent, or NULL */
	const char *ref_prefix; /* fetch_ref is ref_prefix N "/head" */

	/* ---- a comment's and a user's JSON (author, login as above) ---- */
	const char *comment_what; /* "github comment" */
	/* a comment with a true value here is the forge's own: dropped */
	const char *system;
	/* a comment without author is dropped (else PR_EPARSE) */
	bool drop_authorless;
	/* a comment's body must be a string (else null or absent is "") */
	bool comment_body_required;
	const char *user_what; /* "github user" */

	/* ---- request bodies ---- */
	const char *close_key, *close_value; /* {"state": "closed"} */
	/* {"labels": [label]} when label_array, else {"add_labels": label} */
	const char *label_key;
	bool label_array;

	/* ---- report-to: a commit status (forge_report.c) ---- */
	const char *status; /* after the repository URL, then the SHA */
	const char *status_context; /* the context's field: "context" */
	/* the state of each verdict (model/report.h): skip, pass, warn, fail */
	const char *status_states[4];
};

/*
 * The ops of a table (the initializer of its `ops`): the requests are
 * this file's, reading the table around them.
 */
#define PR_FORGE_REST_OPS(NAME, GIT_USER)                                   \
	{                                                                   \
		.name = NAME, .git_user = GIT_USER,                         \
		.open = pr_forge_rest_open, .whoami = pr_forge_rest_whoami, \
		.list_prs = pr_forge_rest_list_prs,                         \
		.get_pr = pr_forge_rest_get_pr,                             \
		.list_comments = pr_forge_rest_list_comments,               \
		.post_comment = pr_forge_rest_post_comment,                 \
		.close_pr = pr_forge_rest_close_pr,                         \
		.add_label = pr_forge_rest_add_label,                       \
		.clone_url = pr_forge_rest_clone_url,                       \
		.find_pr = pr_forge_rest_find_pr,                           \
		.create_pr = pr_forge_rest_create_pr,                       \
		.update_pr = pr_forge_rest_update_pr,                       \
		.list_line_comments = pr_forge_rest_list_line_comments,     \
		.list_reviews = pr_forge_rest_list_reviews,                 \
		.post_status = pr_forge_rest_post_status,                   \
	}

/*
 * The ops (forge.h says what each must do); f->ops is the `ops` of the
 * table.  open: PR_ECONFIG for an option the table cannot serve (a
 * repository repo_url refuses; a label with a comma unless label_array),
 * and f->http takes the table's auth header, headers and user agent.
 */
int pr_forge_rest_open(struct pr_forge *f);
int pr_forge_rest_whoami(struct pr_forge *f, char **out, const char *etag,
			 char **etag_out);
int pr_forge_rest_list_prs(struct pr_forge *f, struct pr_forge_pr_list *out,
			   const char *repo, const char *etag, char **etag_out);
int pr_forge_rest_get_pr(struct pr_forge *f, struct pr_forge_pr *out,
			 const char *repo, int64_t number);
int pr_forge_rest_list_comments(struct pr_forge *f,
				struct pr_forge_comment_list *out,
				const char *repo, int64_t number,
				const char *etag, char **etag_out);
int pr_forge_rest_post_comment(struct pr_forge *f, const char *repo,
			       int64_t number, const char *body, int64_t *id);
int pr_forge_rest_list_line_comments(struct pr_forge *f,
				     struct pr_forge_comment_list *out,
				     const char *repo, int64_t number,
				     const char *etag, char **etag_out);
int pr_forge_rest_list_reviews(struct pr_forge *f,
			       struct pr_forge_comment_list *out,
			       const char *repo, int64_t number,
			       const char *etag, char **etag_out);
int pr_forge_rest_close_pr(struct pr_forge *f, const char *repo,
			   int64_t number);
int pr_forge_rest_add_label(struct pr_forge *f, const char *repo,
			    int64_t number, const char *label);
int pr_forge_rest_clone_url(struct pr_forge *f, char **out, const char *repo);
int pr_forge_rest_find_pr(struct pr_forge *f, struct pr_forge_pr *out,
			  const char *repo, const char *branch);
int pr_forge_rest_create_pr(struct pr_forge *f, struct pr_forge_pr *out,
			    const char *repo, const char *branch,
			    const char *base, const char *title,
			    const char *body);
int pr_forge_rest_update_pr(struct pr_forge *f, const char *repo,
			    int64_t number, const char *title,
			    const char *body);
int pr_forge_rest_post_status(struct pr_forge *f, const char *repo,
			      const char *sha, int verdict, const char *context,
			      const char *description);

/*
 * One request.  Returns 0 for a 2xx answer, PR_FORGE_NOT_MODIFIED for
 * 304, else a negative PR_E* as forge.h describes; a rate limit (403 or
 * 429 with retry-after, or x-ratelimit-remaining 0 with a reset) sets
 * f->retry_at and is PR_EAGAIN "rate limited until <time>".  resp is
 * filled in every case but a transport failure; release it.
 */
int pr_forge_http(struct pr_forge *f, struct pr_http_response *resp,
		  const char *method, const char *url, const char *json_body,
		  const char *etag);

/*
 * GET url and every next page (Link rel="next", else a non-empty
 * x-next-page); calls item(elem, payload) for each element of each page's
 * JSON array (a jansson json_t *, borrowed).  Conditional on etag for the
 * first page, whose new ETag goes to *etag_out (malloc'ed, NULL when
 * none).
 */
int pr_forge_get_list(struct pr_forge *f, const char *url, const char *etag,
		      char **etag_out, int (*item)(void *elem, void *payload),
		      void *payload);

/* Append api_url without its trailing slashes. */
int pr_forge_rest_base(struct pr_buf *out, const char *api_url);

/* ---- the JSON mapping (exposed for the tests and the fuzzer) ---- */

/* One PR object (a list element or a GET of one PR) into pr. */
int pr_forge_rest_pr_from_json(struct pr_forge_pr *pr,
			       const struct pr_forge_rest *api,
			       const json_t *o);
/* One comment, added to out unless the table drops it. */
int pr_forge_rest_comment_from_json(struct pr_forge_comment_list *out,
				    const struct pr_forge_rest *api,
				    const json_t *o);
/* GET /user: the login, malloc'ed. */
int pr_forge_rest_user_from_json(char **login, const struct pr_forge_rest *api,
				 const json_t *o);

/* The request bodies: a comment, closing, adding one label. */
int pr_forge_rest_comment_json(struct pr_buf *out,
			       const struct pr_forge_rest *api,
			       const char *text);
int pr_forge_rest_close_json(struct pr_buf *out,
			     const struct pr_forge_rest *api);
int pr_forge_rest_label_json(struct pr_buf *out,
			     const struct pr_forge_rest *api,
			     const char *label);
/* A commit status: {state, CONTEXT-FIELD, description}. */
int pr_forge_rest_status_json(struct pr_buf *out,
			      const struct pr_forge_rest *api, int verdict,
			      const char *context, const char *description);
/* Opening a PR (branch NULL: only title and body, an update). */
int pr_forge_rest_pr_json(struct pr_buf *out, const struct pr_forge_rest *api,
			  const char *branch, const char *base,
			  const char *title, const char *body);

/*
 * For the tables' ends(): the string at `key` of obj copied into *slot
 * (absent or null: NULL, an error when required), and obj[key] as an
 * object in *sub (likewise); another type is PR_EPARSE.  Messages start
 * with `what`.
 */
int pr_forge_json_str(char **slot, const json_t *obj, const char *key,
		      bool required, const char *what);
int pr_forge_json_obj(const json_t **sub, const json_t *obj, const char *key,
		      bool required, const char *what);

#endif
