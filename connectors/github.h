#ifndef PR_GITHUB_H
#define PR_GITHUB_H

#include <jansson.h>

#include "forge.h"

/*
 * The GitHub REST v3 side of the github connector: URLs, headers, request
 * bodies and the JSON of pull requests, issue comments and users, mapped
 * onto forge.h's model.  The poll state machine shared with GitLab is
 * connectors/forge.c's; github.c only maps.
 *
 * Invariants:
 * - Every repository URL is `api_url` (trailing '/' dropped) + "/repos/" +
 *   owner + "/" + name, each of the two percent-encoded as one path
 *   segment, + a suffix.  A repository is exactly "owner/name".
 * - The mappers trust nothing in the JSON: a missing or mistyped required
 *   field is PR_EPARSE naming the field; a JSON null string becomes NULL
 *   (a null `body` becomes "", as forge.h wants).  On an error the
 *   half-filled item stays in its list, to be freed with the list.
 * - fetch_ref is refs/pull/N/head, which GitHub keeps in the BASE
 *   repository for every PR (a fork only has the branch), also when the
 *   fork was deleted (head.repo null); so fetch_url and base_url are both
 *   base.repo.clone_url.
 * - An issue comment without a user (GitHub answers null for some
 *   deleted accounts) is dropped: nobody may trigger through it.
 * - Request bodies are JSON built with jansson, so no text from a user or
 *   a config file can break out of its string.
 */

/* Append api_url + "/repos/" + escaped owner/name + suffix (raw). */
int pr_github_repo_url(struct pr_buf *out, const char *api_url,
		       const char *repo, const char *suffix);

/* One pull request object (a list element or GET .../pulls/N) into pr. */
int pr_github_pr_from_json(struct pr_forge_pr *pr, const json_t *o);
/* One issue comment; added to out unless it has no user. */
int pr_github_comment_from_json(struct pr_forge_comment_list *out,
				const json_t *o);
/* GET /user: the login, malloc'ed. */
int pr_github_user_from_json(char **login, const json_t *o);

/* {"body": text} */
int pr_github_comment_json(struct pr_buf *out, const char *text);
/* {"state": "closed"} */
int pr_github_close_json(struct pr_buf *out);
/* {"labels": [label]} */
int pr_github_label_json(struct pr_buf *out, const char *label);

#endif
