#include "base/pr.h"
#include "pr_version.h"

#include <jansson.h>

#include "connectors.h"
#include "forge.h"
#include "forge_rest.h"
#include "github.h"
#include "base/http.h"

/*
 * The github connector: pull requests of GitHub repositories as series,
 * and reports posted back as issue comments.  forge.c does the polling,
 * the triggers, the cursor and the feedback, forge_rest.c the requests
 * and the JSON; this file is GitHub REST v3's table for them.
 *
 * Invariants:
 * - Every repository URL is `api_url` (trailing '/' dropped) + "/repos/" +
 *   owner + "/" + name, each of the two percent-encoded as one path
 *   segment, + a suffix.  A repository is exactly "owner/name".
 * - fetch_ref is refs/pull/N/head, which GitHub keeps in the BASE
 *   repository for every PR (a fork only has the branch), also when the
 *   fork was deleted (head.repo null); so fetch_url and base_url are both
 *   base.repo.clone_url.
 * - An issue comment without a user (GitHub answers null for some
 *   deleted accounts) is dropped: nobody may trigger through it.  A null
 *   comment body is "".
 * - A label is an object with a name.  The label body is a list, so a
 *   label may hold a comma.
 */

#define GITHUB_API_URL "https://api.github.com"

static int repo_url(struct pr_buf *out, const char *api_url, const char *repo,
		    const char *suffix)
{
	const char *slash = strchr(repo, '/');
	char *owner;
	int err;

	if (!slash || slash == repo || !slash[1] || strchr(slash + 1, '/'))
		return pr_error(PR_EINVAL,
				"github repository '%s': want owner/name",
				repo);
	owner = pr_strndup(repo, (size_t)(slash - repo));
	if (!(err = pr_forge_rest_base(out, api_url)) &&
	    !(err = pr_buf_adds(out, "/repos/")) &&
	    !(err = pr_http_escape(out, owner)) &&
	    !(err = pr_buf_adds(out, "/")) &&
	    !(err = pr_http_escape(out, slash + 1)) && suffix)
		err = pr_buf_adds(out, suffix);
	free(owner);
	return err;
}

/*
 * The head and base of a pull: head.sha, base.ref and the git URLs (both
 * base.repo's, see above).  head.repo is still checked for its type.
 */
static int pull_ends(struct pr_forge_pr *pr, const json_t *o)
{
	const char *what = "github pull request";
	const json_t *head, *base, *head_repo, *base_repo;
	int err;

	if ((err = pr_forge_json_obj(&head, o, "head", true, what)) ||
	    (err = pr_forge_json_obj(&base, o, "base", true, what)) ||
	    (err = pr_forge_json_str(&pr->head_sha, head, "sha", true,
				     "github pull request head")) ||
	    (err = pr_forge_json_str(&pr->base_ref, base, "ref", true,
				     "github pull request base")) ||
	    (err = pr_forge_json_obj(&head_repo, head, "repo", false,
				     "github pull request head")) ||
	    (err = pr_forge_json_obj(&base_repo, base, "repo", true,
				     "github pull request base")) ||
	    (err = pr_forge_json_str(&pr->base_url, base_repo, "clone_url",
				     true, "github pull request base repo")))
		return err;
	free(pr->fetch_url);
	pr->fetch_url = pr_strdup(pr->base_url);
	return 0;
}

/* GitHub answers the default API version without these, 403 without a UA */
static const char *const github_headers[] = {
	"Accept: application/vnd.github+json",
	"X-GitHub-Api-Version: 2022-11-28",
	NULL,
};

const struct pr_forge_rest pr_github_rest = {
	.ops = PR_FORGE_REST_OPS("github", "x-access-token"),
	.name = "github",

	.repo_url = repo_url,
	.auth_header = "Authorization: Bearer %s",
	.headers = github_headers,
	.user_agent = "patchrelay/" PATCHRELAY_VERSION,
	/* most recently updated first: any change moves page 1's ETag */
	.list_prs = "/pulls?state=open&sort=updated&direction=desc"
		    "&per_page=100",
	.get_pr = { "GET", "/pulls/", "" },
	/* a PR is an issue for comments; GitHub lists them oldest first */
	.list_comments = { "GET", "/issues/", "/comments?per_page=100" },
	.post_comment = { "POST", "/issues/", "/comments" },
	.close_pr = { "PATCH", "/pulls/", "" },
	.add_label = { "POST", "/issues/", "/labels" },

	.clone_url = "clone_url",
	.find_pr = "/pulls?state=open&per_page=100&head=",
	.find_owner = true,
	.create_pr = "/pulls",
	.update_pr = { "PATCH", "/pulls/", "" },
	.head_key = "head",
	.base_key = "base",

	/* review comments and reviews, both oldest first */
	.list_line_comments = { "GET", "/pulls/", "/comments?per_page=100" },
	.list_reviews = { "GET", "/pulls/", "/reviews?per_page=100" },
	.comment_url = "html_url",
	.line = { "path", "line", "original_line", "diff_hunk" },

	.pr_what = "github pull request",
	.number = "number",
	.mark = "#",
	.body = "body",
	.web_url = "html_url",
	.author = "user",
	.login = "login",
	.ends = pull_ends,
	.ref_prefix = "refs/pull/",

	.comment_what = "github comment",
	.drop_authorless = true,
	.user_what = "github user",

	.close_key = "state",
	.close_value = "closed",
	.label_key = "labels",
	.label_array = true,

	/* a warning does not fail the commit: its description says it */
	.status = "/statuses/",
	.status_context = "context",
	.status_states = { "success", "success", "success", "failure" },
};

/* ---- the connector type ---- */

static int github_open(struct pr_instance *inst)
{
	return pr_forge_type_open(inst, &pr_github_rest.ops);
}

const struct pr_connector_type pr_connector_github = {
	PR_FORGE_TYPE(struct pr_forge_ctx, GITHUB_API_URL, "repo", github_open),
	.name = "github",
	.summary = "pull requests of GitHub repositories as series; reports "
		   "posted back as comments",
};
