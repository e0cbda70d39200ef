#ifndef PR_GITLAB_H
#define PR_GITLAB_H

#include <jansson.h>

#include "forge.h"

/*
 * The GitLab REST v4 side of the gitlab connector: URLs, request bodies
 * and the JSON of merge requests, notes and users, mapped onto forge.h's
 * model.  The poll state machine shared with GitHub is connectors/
 * forge.c's; gitlab.c only maps.
 *
 * Invariants:
 * - Every project URL is `api_url` (trailing '/' dropped) + "/projects/" +
 *   the project's full path percent-encoded as ONE path segment
 *   ("group/sub/project" -> "group%2Fsub%2Fproject"), + a suffix.
 * - The mappers trust nothing in the JSON: a missing or mistyped required
 *   field is PR_EPARSE naming the field; a JSON null string becomes NULL
 *   (a null `description` becomes "", as forge.h wants).  On an error the
 *   half-filled item stays in its list, to be freed with the list.
 * - pr_forge_pr.number is the MR's iid (the N of !N and of every MR
 *   route), never its instance-wide id; fetch_ref is
 *   refs/merge-requests/N/head, which lives in the TARGET project (so
 *   fetch_url and base_url are both the target's http_url_to_repo, also
 *   for an MR from a fork).
 * - System notes ("added 1 commit", "closed") are dropped: GitLab writes
 *   them itself, they are never commands.
 * - Request bodies are JSON built with jansson, so no text from a user or
 *   a config file can break out of its string.
 */

/* Append api_url + "/projects/" + escaped project + suffix (raw). */
int pr_gitlab_project_url(struct pr_buf *out, const char *api_url,
			  const char *project, const char *suffix);

/* One merge request object (a list element or GET .../:iid) into pr. */
int pr_gitlab_mr_from_json(struct pr_forge_pr *pr, const json_t *o);
/* One note; added to out unless it is a system note. */
int pr_gitlab_note_from_json(struct pr_forge_comment_list *out,
			     const json_t *o);
/* GET /user: the username, malloc'ed. */
int pr_gitlab_user_from_json(char **username, const json_t *o);

/* {"body": text} */
int pr_gitlab_note_json(struct pr_buf *out, const char *text);
/* {"state_event": "close"} */
int pr_gitlab_close_json(struct pr_buf *out);
/* {"add_labels": add}; GitLab labels cannot hold a comma. */
int pr_gitlab_label_json(struct pr_buf *out, const char *add);

#endif
