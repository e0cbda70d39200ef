#include "base/pr.h"

#include <jansson.h>

#include "connectors.h"
#include "forge.h"
#include "forge_rest.h"
#include "gitlab.h"
#include "base/http.h"

/*
 * The gitlab connector: merge requests of GitLab projects as series, and
 * reports posted back as notes.  forge.c does the polling, the triggers,
 * the cursor and the feedback, forge_rest.c the requests and the JSON;
 * this file is GitLab REST v4's table for them.
 *
 * Invariants:
 * - Every project URL is `api_url` (trailing '/' dropped) + "/projects/" +
 *   the project's full path percent-encoded as ONE path segment
 *   ("group/sub/project" -> "group%2Fsub%2Fproject"), + a suffix.
 * - pr_forge_pr.number is the MR's iid (the N of !N and of every MR
 *   route), never its instance-wide id; fetch_ref is
 *   refs/merge-requests/N/head, which lives in the TARGET project (so
 *   fetch_url and base_url are both the target's http_url_to_repo, also
 *   for an MR from a fork).
 * - System notes ("added 1 commit", "closed") are dropped: GitLab writes
 *   them itself, they are never commands.  A note without an author or
 *   a body is PR_EPARSE.
 * - add_labels is a comma list: a label with a comma is refused (in the
 *   options at open, and in the request body).
 */

#define GITLAB_API_URL "https://gitlab.com/api/v4"

static int project_url(struct pr_buf *out, const char *api_url,
		       const char *project, const char *suffix)
{
	int err;

	if ((err = pr_forge_rest_base(out, api_url)) ||
	    (err = pr_buf_adds(out, "/projects/")) ||
	    (err = pr_http_escape(out, project)))
		return err;
	return suffix ? pr_buf_adds(out, suffix) : 0;
}

/* sha (may be null) and target_branch */
static int mr_ends(struct pr_forge_pr *pr, const json_t *o)
{
	const char *what = "gitlab merge request";
	int err;

	if ((err = pr_forge_json_str(&pr->head_sha, o, "sha", false, what)))
		return err;
	return pr_forge_json_str(&pr->base_ref, o, "target_branch", true, what);
}

const struct pr_forge_rest pr_gitlab_rest = {
	.ops = PR_FORGE_REST_OPS("gitlab", "oauth2"),
	.name = "gitlab",

	.repo_url = project_url,
	.auth_header = "PRIVATE-TOKEN: %s",
	/* most recently updated first: any change moves page 1's ETag */
	.list_prs = "/merge_requests?state=opened&order_by=updated_at"
		    "&sort=desc&per_page=100",
	.get_pr = { "GET", "/merge_requests/", "" },
	/* GitLab lists notes newest first unless asked */
	.list_comments = { "GET", "/merge_requests/",
			   "/notes?order_by=created_at&sort=asc&per_page=100" },
	.post_comment = { "POST", "/merge_requests/", "/notes" },
	.close_pr = { "PUT", "/merge_requests/", "" },
	.add_label = { "PUT", "/merge_requests/", "" },
	.repo_git_url = "http_url_to_repo",

	.clone_url = "http_url_to_repo",
	.find_pr = "/merge_requests?state=opened&per_page=100&source_branch=",
	.create_pr = "/merge_requests",
	.update_pr = { "PUT", "/merge_requests/", "" },
	.head_key = "source_branch",
	.base_key = "target_branch",

	/* a comment on a line is a note ("DiffNote") with a position */
	.position = "position",
	.line = { "new_path", "new_line", "old_line", NULL },

	.pr_what = "gitlab merge request",
	.number = "iid",
	.mark = "!",
	.body = "description",
	.web_url = "web_url",
	.author = "author",
	.login = "username",
	.ends = mr_ends,
	/* with_labels_details=true gives objects with a name */
	.label_strings = true,
	/* "work_in_progress" is the name before GitLab 15 */
	.draft_old = "work_in_progress",
	.ref_prefix = "refs/merge-requests/",

	.comment_what = "gitlab note",
	.system = "system",
	.comment_body_required = true,
	.user_what = "gitlab user",

	.close_key = "state_event",
	.close_value = "close",
	.label_key = "add_labels",

	/* a warning does not fail the commit: its description says it */
	.status = "/statuses/",
	.status_context = "name",
	.status_states = { "success", "success", "success", "failed" },
};

/* ---- the connector type ---- */

static int gitlab_open(struct pr_instance *inst)
{
	return pr_forge_type_open(inst, &pr_gitlab_rest.ops);
}

const struct pr_connector_type pr_connector_gitlab = {
	PR_FORGE_TYPE(struct pr_forge_ctx, GITLAB_API_URL, "project",
		      gitlab_open),
	.name = "gitlab",
	.summary = "merge requests of GitLab projects as series; reports "
		   "posted back as notes",
};
