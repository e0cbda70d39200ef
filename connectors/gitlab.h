#ifndef PR_GITLAB_H
#define PR_GITLAB_H

#include <stdbool.h>
#include <stdint.h>

#include "http.h"
#include "registry.h"

/*
 * The GitLab REST v4 side of the gitlab connector: URLs, request bodies
 * and the JSON of merge requests, notes and users.  The poll state machine
 * shared with GitHub is connectors/forge.c's; this file only maps.
 *
 * Invariants:
 * - Every project URL is `api_url` (trailing '/' dropped) + "/projects/" +
 *   the project's full path percent-encoded as ONE path segment
 *   ("group/sub/project" -> "group%2Fsub%2Fproject"), + a suffix.
 * - Parsers take the raw text of one answer and trust nothing in it: a
 *   missing or mistyped required field is PR_EPARSE naming the field, a
 *   string holding a NUL byte is PR_EPARSE, and a JSON null string field
 *   becomes NULL (a null `description` becomes "", as the model wants).
 * - Parsed structures own their strings; release them with the matching
 *   _release or _free (safe on zeroed structures and on NULL).
 * - pr_gitlab_parse_notes drops system notes ("added 1 commit", "closed"):
 *   GitLab writes those itself, they are never commands.
 * - Request bodies are JSON built with jansson, so no text from a user or
 *   a config file can break out of its string.
 */

/* One merge request, as the list and the single-MR answers give it. */
struct pr_gitlab_mr {
	int64_t iid; /* per project, the N of !N and of every MR route */
	char *state; /* "opened", "closed", "merged", "locked" */
	char *title;
	char *description; /* "" when GitLab has null */
	char *author; /* author.username; NULL when absent */
	char *sha; /* head commit; NULL when the MR has no commit */
	char *target_branch;
	char *source_branch;
	char *web_url;
	char *updated_at;
	bool draft;
	struct pr_strlist labels;
};

void pr_gitlab_mr_release(struct pr_gitlab_mr *mr);
void pr_gitlab_mrs_free(struct pr_gitlab_mr *mrs, size_t nr);

/* One note (comment) of a merge request; system notes never get here. */
struct pr_gitlab_note {
	int64_t id;
	char *author; /* author.username */
	char *body;
	char *created_at;
};

void pr_gitlab_notes_free(struct pr_gitlab_note *notes, size_t nr);

/* Append api_url + "/projects/" + escaped project + suffix (raw). */
int pr_gitlab_project_url(struct pr_buf *out, const char *api_url,
			  const char *project, const char *suffix);

/*
 * The URL of the page after the one `url` asked for, from the answer's
 * x-next-page (url's page= replaced or added), else from its Link
 * rel="next" (keyset pagination sends only that).  Returns 1 with the URL
 * in out, 0 on the last page, or a negative PR_E* code.
 */
int pr_gitlab_next_url(struct pr_buf *out, const char *url,
		       const struct pr_http_response *resp);

/* A JSON array of merge requests (a list answer), appended to *out. */
int pr_gitlab_parse_mrs(struct pr_gitlab_mr **out, size_t *nr, const char *text,
			size_t len);
/* One merge request object. */
int pr_gitlab_parse_mr(struct pr_gitlab_mr *out, const char *text, size_t len);
/* A JSON array of notes, appended to *out, system notes dropped. */
int pr_gitlab_parse_notes(struct pr_gitlab_note **out, size_t *nr,
			  const char *text, size_t len);
/* GET /user: the username, malloc'ed. */
int pr_gitlab_parse_user(char **username, const char *text, size_t len);
/* GET /projects/:id: http_url_to_repo, malloc'ed. */
int pr_gitlab_parse_project(char **http_url, const char *text, size_t len);

/* {"body": text} */
int pr_gitlab_note_json(struct pr_buf *out, const char *text);
/* {"state_event": "close"} */
int pr_gitlab_close_json(struct pr_buf *out);
/* {"add_labels": add, "remove_labels": remove}; NULL leaves a key out. */
int pr_gitlab_labels_json(struct pr_buf *out, const char *add,
			  const char *remove);

/*
 * 0 for a 2xx or 304 answer; otherwise a PR_E* code with a message naming
 * the method, the URL, the status and GitLab's own error text: 401/403
 * PR_EAUTH, 404 PR_ENOENT, 429 PR_EAGAIN, 5xx PR_ENET, other PR_EINVAL.
 */
int pr_gitlab_check(const struct pr_http_response *resp, const char *method,
		    const char *url);

#endif
