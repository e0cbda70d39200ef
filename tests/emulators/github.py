#!/usr/bin/python3
"""A GitHub REST API emulator for patchrelay's tests (stdlib only).

  /usr/bin/python3 tests/emulators/github.py --root DIR --port-file FILE [--port 0]

API base http://127.0.0.1:PORT (what `api-url` is set to); git at
http://127.0.0.1:PORT/git/OWNER/REPO.git.  See README.md beside this file
for every endpoint and control knob.  Shapes follow api.github.com as
/work/shared/reference/apis.md section 1 describes it.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ApiError, Emulator, Response, link_header, main, \
    paginate  # noqa: E402
from github_actions import GitHubActions  # noqa: E402
from statuses import GitHubStatuses  # noqa: E402

DOCS = "https://docs.github.com/rest"
NAME = r"([A-Za-z0-9_.-]+)"


def iso(t):
    return None if t is None else \
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def err(status, message, doc=DOCS, **extra):
    body = {"message": message, "documentation_url": doc,
            "status": str(status)}
    body.update(extra)
    return ApiError(status, body)


def validation(resource, field, code, message=None, doc=DOCS):
    e = {"resource": resource, "code": code, "field": field}
    if message:
        e["message"] = message
    return err(422, "Validation Failed", doc, errors=[e])


class GitHub(GitHubActions, GitHubStatuses, Emulator):
    name = "github"
    api_prefix = ""
    git_pull_ref = "refs/pull/%d/head"
    default_per_page = 30

    def api_routes(self):
        R = "/repos/" + NAME + "/" + NAME
        return [
            ("GET", "/user", self.get_user),
            ("GET", "/rate_limit", self.get_rate_limit),
            ("GET", "/users/" + NAME, self.get_user_login),
            ("GET", R, self.get_repo_api),
            ("GET", R + "/pulls", self.list_pulls),
            ("POST", R + "/pulls", self.create_pull),
            ("GET", R + r"/pulls/(\d+)", self.get_pull_api),
            ("PATCH", R + r"/pulls/(\d+)", self.patch_pull),
            ("GET", R + r"/pulls/(\d+)/commits", self.list_commits),
            ("GET", R + r"/pulls/(\d+)/files", self.list_files),
            ("GET", R + r"/pulls/(\d+)/comments",
             self.list_review_comments),
            ("POST", R + r"/pulls/(\d+)/comments",
             self.post_review_comment),
            ("GET", R + r"/pulls/(\d+)/reviews", self.list_reviews),
            ("POST", R + r"/pulls/(\d+)/reviews", self.post_review),
            ("GET", R + r"/issues/(\d+)/comments", self.list_comments),
            ("POST", R + r"/issues/(\d+)/comments", self.post_comment),
            ("GET", R + r"/issues/(\d+)/labels", self.list_labels),
            ("POST", R + r"/issues/(\d+)/labels", self.add_labels),
            ("PUT", R + r"/issues/(\d+)/labels", self.set_labels),
            ("DELETE", R + r"/issues/(\d+)/labels", self.clear_labels),
            ("DELETE", R + r"/issues/(\d+)/labels/([^/]+)",
             self.remove_label),
        ] + self.ci_routes() + self.status_routes(R, NAME)

    # ---- forge-specific plumbing ----

    def authenticate(self, req):
        # api.github.com refuses an API request without a User-Agent
        if not req.headers.get("User-Agent", "").strip():
            raise err(403, "Request forbidden by administrative rules. "
                      "Please make sure your request has a User-Agent "
                      "header (https://docs.github.com/en/rest/overview/"
                      "resources-in-the-rest-api#user-agent-required). "
                      "Check https://developer.github.com for other "
                      "possible causes.")
        auth = req.headers.get("Authorization", "")
        if not auth:
            return
        scheme, _, token = auth.partition(" ")
        if scheme.lower() not in ("bearer", "token") or not token.strip():
            raise err(401, "Bad credentials")
        u = self.user_by_token(token.strip())
        if u is None:
            raise err(401, "Bad credentials")
        req.user = u

    def need_user(self, req):
        if req.user is None:
            raise err(401, "Requires authentication")
        return req.user

    def not_found(self, what):
        return err(404, "Not Found")

    def bad_json(self):
        return err(400, "Problems parsing JSON")

    def free_endpoint(self, req):
        return req.path == "/rate_limit"

    def ratelimit_headers(self):
        rl = self.state["ratelimit"]
        return {"x-ratelimit-limit": rl["limit"],
                "x-ratelimit-remaining": rl["remaining"],
                "x-ratelimit-reset": rl["reset"],
                "x-ratelimit-used": rl["used"],
                "x-ratelimit-resource": "core",
                "X-GitHub-Media-Type": "github.v3; format=json"}

    def ratelimit_exhausted(self, req):
        if req.user:
            msg = "API rate limit exceeded for user ID %d." % req.user["id"]
        else:
            msg = ("API rate limit exceeded for 127.0.0.1. (But here's the "
                   "good news: Authenticated requests get a higher rate "
                   "limit. Check out the documentation for more details.)")
        r = Response(403, {
            "message": msg,
            "documentation_url": "https://docs.github.com/rest/overview/"
            "rate-limits-for-the-rest-api", "status": "403"})
        r.headers.update(self.ratelimit_headers())
        return r

    def secondary_body(self, status):
        if status in (403, 429):
            return {"message": "You have exceeded a secondary rate limit. "
                    "Please wait a few minutes before you try again. If you "
                    "reach out to GitHub Support for help, please include "
                    "the request ID 0000:0000:0000000:0000000:00000000.",
                    "documentation_url": "https://docs.github.com/rest/"
                    "overview/rate-limits-for-the-rest-api"
                    "#about-secondary-rate-limits", "status": str(status)}
        return {"message": "Server Error", "status": str(status)}

    def paged(self, req, items, render=None):
        page_items, page, _, pages = paginate(req, items,
                                              self.default_per_page)
        if render:
            page_items = [render(x) for x in page_items]
        r = Response(200, page_items)
        link = link_header(req, page, pages, always_first_last=False)
        if link:
            r.headers["Link"] = link
        return r

    # ---- rendering ----

    def user_json(self, base, login):
        u = self.state["users"].get(login) or {"id": 0, "login": login}
        return {"login": login, "id": u["id"],
                "node_id": "U_%d" % u["id"], "avatar_url": "",
                "url": base + "/users/" + login,
                "html_url": base + "/" + login, "type": "User",
                "site_admin": False}

    def repo_json(self, base, owner, repo):
        r = self.state["repos"].get(owner + "/" + repo) or \
            self.fork_meta(owner, repo)
        return {"id": r["id"], "node_id": "R_%d" % r["id"], "name": repo,
                "full_name": owner + "/" + repo,
                "owner": self.user_json(base, owner), "private": False,
                "fork": owner + "/" + repo not in self.state["repos"],
                "html_url": "%s/%s/%s" % (base, owner, repo),
                "url": "%s/repos/%s/%s" % (base, owner, repo),
                "clone_url": self.clone_url(base, owner, repo),
                "default_branch": r.get("default_branch", "main")}

    def fork_meta(self, owner, repo):
        forks = self.state.setdefault("forks", {})
        key = owner + "/" + repo
        if key not in forks:
            forks[key] = {"id": self.new_id()}
        return forks[key]

    def label_json(self, base, owner, repo, name):
        lab = self.state["repos"][owner + "/" + repo]["labels"][name]
        return {"id": lab["id"], "node_id": "LA_%d" % lab["id"],
                "url": "%s/repos/%s/%s/labels/%s" % (base, owner, repo,
                                                     name),
                "name": name, "color": lab["color"], "default": False,
                "description": lab["description"]}

    def pull_json(self, base, owner, repo, pr, detail):
        api = "%s/repos/%s/%s" % (base, owner, repo)
        n = pr["number"]
        d = {
            "url": "%s/pulls/%d" % (api, n), "id": pr["id"],
            "node_id": "PR_%d" % pr["id"],
            "html_url": "%s/%s/%s/pull/%d" % (base, owner, repo, n),
            "diff_url": "%s/%s/%s/pull/%d.diff" % (base, owner, repo, n),
            "patch_url": "%s/%s/%s/pull/%d.patch" % (base, owner, repo, n),
            "issue_url": "%s/issues/%d" % (api, n),
            "commits_url": "%s/pulls/%d/commits" % (api, n),
            "comments_url": "%s/issues/%d/comments" % (api, n),
            "number": n,
            "state": "open" if pr["state"] == "open" else "closed",
            "locked": False, "title": pr["title"],
            "user": self.user_json(base, pr["user"]),
            "body": pr["body"] or None,
            "labels": [self.label_json(base, owner, repo, x)
                       for x in pr["labels"]],
            "created_at": iso(pr["created_at"]),
            "updated_at": iso(pr["updated_at"]),
            "closed_at": iso(pr["closed_at"]),
            "merged_at": iso(pr["merged_at"]),
            "merge_commit_sha": None, "draft": pr["draft"],
            "head": {"label": "%s:%s" % (pr["head_owner"], pr["head_ref"]),
                     "ref": pr["head_ref"], "sha": pr["head_sha"],
                     "user": self.user_json(base, pr["head_owner"]),
                     "repo": None if pr.get("fork_deleted") else
                     self.repo_json(base, pr["head_owner"], repo)},
            "base": {"label": "%s:%s" % (owner, pr["base_ref"]),
                     "ref": pr["base_ref"], "sha": pr["base_sha"],
                     "user": self.user_json(base, owner),
                     "repo": self.repo_json(base, owner, repo)},
            "author_association": "OWNER" if pr["user"] == owner
            else "CONTRIBUTOR",
        }
        if detail:
            files = self.pr_files(owner, repo, pr)
            d.update({
                "merged": pr["merged_at"] is not None, "mergeable": True,
                "mergeable_state": "clean", "merged_by": None,
                "comments": len(pr["comments"]), "review_comments": 0,
                "maintainer_can_modify": False,
                "commits": len(self.pr_commits(owner, repo, pr)),
                "additions": sum(f["additions"] for f in files),
                "deletions": sum(f["deletions"] for f in files),
                "changed_files": len(files)})
        return d

    def comment_json(self, base, owner, repo, pr, c):
        api = "%s/repos/%s/%s" % (base, owner, repo)
        return {"id": c["id"], "node_id": "IC_%d" % c["id"],
                "url": "%s/issues/comments/%d" % (api, c["id"]),
                "html_url": "%s/%s/%s/pull/%d#issuecomment-%d" %
                (base, owner, repo, pr["number"], c["id"]),
                "issue_url": "%s/issues/%d" % (api, pr["number"]),
                "body": c["body"], "user": self.user_json(base, c["user"]),
                "created_at": iso(c["created_at"]),
                "updated_at": iso(c["updated_at"]),
                "author_association": "OWNER" if c["user"] == owner
                else "NONE"}

    # ---- routes ----

    def get_user(self, req):
        u = self.need_user(req)
        d = self.user_json(req.base, u["login"])
        d.update({"name": u["name"], "email": u["email"]})
        return Response(200, d)

    def get_user_login(self, req, login):
        if login not in self.state["users"]:
            raise self.not_found("user")
        u = self.state["users"][login]
        d = self.user_json(req.base, login)
        d.update({"name": u["name"], "email": u["email"]})
        return Response(200, d)

    def get_rate_limit(self, req):
        rl = self.state["ratelimit"]
        core = {"limit": rl["limit"], "remaining": rl["remaining"],
                "reset": rl["reset"], "used": rl["used"],
                "resource": "core"}
        return Response(200, {"resources": {"core": core}, "rate": core})

    def get_repo_api(self, req, owner, repo):
        self.get_repo(owner, repo)
        return Response(200, self.repo_json(req.base, owner, repo))

    def list_pulls(self, req, owner, repo):
        self.get_repo(owner, repo)
        state = req.arg("state", "open")
        if state not in ("open", "closed", "all"):
            raise validation("PullRequest", "state", "invalid")
        sort = req.arg("sort", "created")
        if sort not in ("created", "updated", "popularity", "long-running"):
            raise validation("PullRequest", "sort", "invalid")
        direction = req.arg("direction",
                            "desc" if sort == "created" else "asc")
        if sort == "created" and "direction" not in req.query:
            direction = "desc"
        pulls = self.repo_pulls(owner, repo)
        if state != "all":
            pulls = [p for p in pulls if
                     (p["state"] == "open") == (state == "open")]
        head = req.arg("head")
        if head:
            who, _, ref = head.partition(":")
            pulls = [p for p in pulls if p["head_owner"] == who and
                     (not ref or p["head_ref"] == ref)]
        if req.arg("base"):
            pulls = [p for p in pulls if p["base_ref"] == req.arg("base")]
        key = "updated_at" if sort == "updated" else "created_at"
        pulls.sort(key=lambda p: (p[key], p["number"]),
                   reverse=direction == "desc")
        return self.paged(req, pulls, lambda p: self.pull_json(
            req.base, owner, repo, p, False))

    def create_pull(self, req, owner, repo):
        u = self.need_user(req)
        self.get_repo(owner, repo)
        j = req.json(self.bad_json)
        if not isinstance(j, dict):
            raise self.bad_json()
        doc = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"
        for k in ("title", "head", "base"):
            if not isinstance(j.get(k), str) or not j[k]:
                raise validation("PullRequest", k, "missing_field", doc=doc)
        who, _, ref = j["head"].rpartition(":")
        who = who or owner
        if self.branch_sha(who, repo, ref) is None:
            raise validation("PullRequest", "head", "invalid", doc=doc)
        if self.branch_sha(owner, repo, j["base"]) is None:
            raise validation("PullRequest", "base", "invalid", doc=doc)
        if self.open_pull_of(owner, repo, who, ref):
            raise err(422, "Validation Failed", doc, errors=[{
                "resource": "PullRequest", "code": "custom",
                "message": "A pull request already exists for %s:%s." %
                (who, ref)}])
        if not self.has_commits(owner, repo,
                                self.branch_sha(who, repo, ref), j["base"]):
            raise err(422, "Validation Failed", doc, errors=[{
                "resource": "PullRequest", "code": "custom",
                "message": "No commits between %s and %s" %
                (j["base"], ref)}])
        pr = self.new_pull(owner, repo, u["login"], j["title"],
                           j.get("body") or "", who, ref, j["base"],
                           bool(j.get("draft", False)))
        self.open_from_branch(owner, repo, pr)
        r = Response(201, self.pull_json(req.base, owner, repo, pr, True))
        r.headers["Location"] = "%s/repos/%s/%s/pulls/%d" % (
            req.base, owner, repo, pr["number"])
        return r

    def get_pull_api(self, req, owner, repo, n):
        pr = self.get_pull(owner, repo, int(n))
        accept = req.headers.get("Accept", "")
        if "application/vnd.github.diff" in accept or \
                "application/vnd.github.v3.diff" in accept:
            return Response(200, self.pr_diff(owner, repo, pr),
                            ctype="application/vnd.github.diff; "
                            "charset=utf-8")
        if "application/vnd.github.patch" in accept or \
                "application/vnd.github.v3.patch" in accept:
            return Response(200, self.pr_patch(owner, repo, pr),
                            ctype="application/vnd.github.patch; "
                            "charset=utf-8")
        return Response(200, self.pull_json(req.base, owner, repo, pr, True))

    def patch_pull(self, req, owner, repo, n):
        self.need_user(req)
        pr = self.get_pull(owner, repo, int(n))
        j = req.json(self.bad_json)
        if not isinstance(j, dict):
            raise self.bad_json()
        if "state" in j:
            if j["state"] not in ("open", "closed"):
                raise validation("PullRequest", "state", "invalid")
            self.set_state(pr, j["state"])
        if "title" in j:
            if not j["title"]:
                raise validation("PullRequest", "title", "missing_field")
            pr["title"] = j["title"]
            self.touch(pr)
        if "body" in j:
            pr["body"] = j["body"] or ""
            self.touch(pr)
        if "base" in j:
            if self.branch_sha(owner, repo, j["base"]) is None:
                raise validation("PullRequest", "base", "invalid")
            pr["base_ref"] = j["base"]
            pr["base_sha"] = self.branch_sha(owner, repo, j["base"])
            self.touch(pr)
        return Response(200, self.pull_json(req.base, owner, repo, pr, True))

    def list_commits(self, req, owner, repo, n):
        pr = self.get_pull(owner, repo, int(n))
        out = []
        for c in self.pr_commits(owner, repo, pr)[:250]:
            api = "%s/repos/%s/%s" % (req.base, owner, repo)
            author = self.login_by_email(c["author_email"])
            committer = self.login_by_email(c["committer_email"])
            out.append({
                "sha": c["sha"], "node_id": "C_" + c["sha"],
                "url": "%s/commits/%s" % (api, c["sha"]),
                "html_url": "%s/%s/%s/commit/%s" % (req.base, owner, repo,
                                                    c["sha"]),
                "commit": {
                    "author": {"name": c["author_name"],
                               "email": c["author_email"],
                               "date": iso(c["author_time"])},
                    "committer": {"name": c["committer_name"],
                                  "email": c["committer_email"],
                                  "date": iso(c["committer_time"])},
                    "message": c["message"],
                    "tree": {"sha": c["tree"],
                             "url": "%s/git/trees/%s" % (api, c["tree"])},
                    "url": "%s/git/commits/%s" % (api, c["sha"]),
                    "comment_count": 0},
                "author": self.user_json(req.base, author) if author
                else None,
                "committer": self.user_json(req.base, committer)
                if committer else None,
                "parents": [{"sha": p,
                             "url": "%s/commits/%s" % (api, p)}
                            for p in c["parents"]]})
        return self.paged(req, out)

    def login_by_email(self, email):
        for u in self.state["users"].values():
            if u["email"].lower() == email.lower():
                return u["login"]
        return None

    def list_files(self, req, owner, repo, n):
        pr = self.get_pull(owner, repo, int(n))
        out = []
        for f in self.pr_files(owner, repo, pr)[:3000]:
            path = f["old_path"] if f["status"] == "removed" \
                else f["new_path"]
            d = {"sha": None, "filename": path, "status": f["status"],
                 "additions": f["additions"], "deletions": f["deletions"],
                 "changes": f["additions"] + f["deletions"]}
            if not f["binary"] and f["patch"]:
                d["patch"] = f["patch"]
            if f["status"] in ("renamed", "copied"):
                d["previous_filename"] = f["old_path"]
            out.append(d)
        return self.paged(req, out)

    def list_comments(self, req, owner, repo, n):
        pr = self.get_pull(owner, repo, int(n))
        cs = [self.comment_json(req.base, owner, repo, pr, c)
              for c in pr["comments"] if not c["system"]]
        return self.paged(req, cs)

    def post_comment(self, req, owner, repo, n):
        u = self.need_user(req)
        pr = self.get_pull(owner, repo, int(n))
        j = req.json(self.bad_json)
        body = j.get("body") if isinstance(j, dict) else None
        doc = "https://docs.github.com/rest/issues/comments" \
            "#create-an-issue-comment"
        if not isinstance(body, str) or body == "":
            raise validation("IssueComment", "body", "missing_field",
                             doc=doc)
        if len(body) > 65536:
            raise validation("IssueComment", "data", "unprocessable",
                             "Body is too long (maximum is 65536 "
                             "characters)", doc=doc)
        c = self.add_comment(pr, u["login"], body)
        r = Response(201, self.comment_json(req.base, owner, repo, pr, c))
        r.headers["Location"] = "%s/repos/%s/%s/issues/comments/%d" % (
            req.base, owner, repo, c["id"])
        return r

    # ---- reviews ----

    def review_comment_json(self, base, owner, repo, pr, c):
        api = "%s/repos/%s/%s" % (base, owner, repo)
        d = {"id": c["id"], "node_id": "PRRC_%d" % c["id"],
             "url": "%s/pulls/comments/%d" % (api, c["id"]),
             "pull_request_review_id": c.get("review_id"),
             "diff_hunk": c["diff_hunk"], "path": c["path"],
             "position": None, "original_position": None,
             "commit_id": c["commit_id"],
             "original_commit_id": c["commit_id"],
             "user": self.user_json(base, c["user"]), "body": c["body"],
             "created_at": iso(c["created_at"]),
             "updated_at": iso(c["updated_at"]),
             "html_url": "%s/%s/%s/pull/%d#discussion_r%d" % (
                 base, owner, repo, pr["number"], c["id"]),
             "pull_request_url": "%s/pulls/%d" % (api, pr["number"]),
             "author_association": "NONE",
             "line": c["line"], "original_line": c["line"],
             "side": "RIGHT", "start_line": None,
             "original_start_line": None, "start_side": None}
        if c.get("in_reply_to"):
            d["in_reply_to_id"] = c["in_reply_to"]
        return d

    def review_json(self, base, owner, repo, pr, r):
        return {"id": r["id"], "node_id": "PRR_%d" % r["id"],
                "user": self.user_json(base, r["user"]),
                "body": r["body"], "state": r["state"],
                "html_url": "%s/%s/%s/pull/%d#pullrequestreview-%d" % (
                    base, owner, repo, pr["number"], r["id"]),
                "pull_request_url": "%s/repos/%s/%s/pulls/%d" % (
                    base, owner, repo, pr["number"]),
                "commit_id": r["commit_id"],
                "submitted_at": iso(r["created_at"]),
                "author_association": "NONE"}

    def list_review_comments(self, req, owner, repo, n):
        pr = self.get_pull(owner, repo, int(n))
        return self.paged(req, pr.get("review_comments", []),
                          lambda c: self.review_comment_json(
                              req.base, owner, repo, pr, c))

    def new_review_comment(self, owner, repo, pr, user, j, review_id=None):
        """A comment on a line of the PR's diff, as GitHub checks it."""
        doc = "https://docs.github.com/rest/pulls/comments" \
            "#create-a-review-comment-for-a-pull-request"
        if not isinstance(j.get("body"), str) or not j["body"]:
            raise validation("PullRequestReviewComment", "body",
                             "missing_field", doc=doc)
        if j.get("in_reply_to"):
            for c in pr.get("review_comments", []):
                if c["id"] == int(j["in_reply_to"]):
                    return self.add_comment(
                        pr, user, j["body"], where="review_comments",
                        path=c["path"], line=c["line"],
                        diff_hunk=c["diff_hunk"], commit_id=c["commit_id"],
                        in_reply_to=c["id"], review_id=review_id)
            raise err(404, "Not Found")
        path, line = j.get("path"), j.get("line")
        if not isinstance(path, str) or not isinstance(line, int):
            raise validation("PullRequestReviewComment", "line",
                             "missing_field", doc=doc)
        hunk = self.diff_hunk(owner, repo, pr, path, line)
        if hunk is None:
            raise err(422, "Validation Failed", doc, errors=[{
                "resource": "PullRequestReviewComment", "code": "custom",
                "field": "pull_request_review_thread.line",
                "message": "could not be resolved"}])
        return self.add_comment(pr, user, j["body"],
                                where="review_comments", path=path,
                                line=line, diff_hunk=hunk,
                                commit_id=j.get("commit_id") or
                                pr["head_sha"], review_id=review_id)

    def post_review_comment(self, req, owner, repo, n):
        u = self.need_user(req)
        pr = self.get_pull(owner, repo, int(n))
        j = req.json(self.bad_json)
        if not isinstance(j, dict):
            raise self.bad_json()
        c = self.new_review_comment(owner, repo, pr, u["login"], j)
        return Response(201, self.review_comment_json(req.base, owner, repo,
                                                      pr, c))

    def list_reviews(self, req, owner, repo, n):
        pr = self.get_pull(owner, repo, int(n))
        return self.paged(req, pr.get("reviews", []),
                          lambda r: self.review_json(req.base, owner, repo,
                                                     pr, r))

    def post_review(self, req, owner, repo, n):
        u = self.need_user(req)
        pr = self.get_pull(owner, repo, int(n))
        j = req.json(self.bad_json)
        if not isinstance(j, dict):
            raise self.bad_json()
        states = {"APPROVE": "APPROVED", "REQUEST_CHANGES":
                  "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}
        event = j.get("event")
        if event not in states:
            raise validation("PullRequestReview", "event", "invalid")
        body = j.get("body") or ""
        if event != "APPROVE" and not body and not j.get("comments"):
            raise err(422, "Unprocessable Entity", errors=[
                "Review Can not request changes or comment on a pull "
                "request without a body or comments"])
        r = self.add_comment(pr, u["login"], body, where="reviews",
                             state=states[event],
                             commit_id=pr["head_sha"])
        for c in j.get("comments") or []:
            self.new_review_comment(owner, repo, pr, u["login"], c, r["id"])
        return Response(200, self.review_json(req.base, owner, repo, pr, r))

    def labels_response(self, req, owner, repo, pr):
        return Response(200, [self.label_json(req.base, owner, repo, x)
                              for x in pr["labels"]])

    def list_labels(self, req, owner, repo, n):
        pr = self.get_pull(owner, repo, int(n))
        return self.labels_response(req, owner, repo, pr)

    def label_names(self, req):
        j = req.json(self.bad_json)
        names = j.get("labels") if isinstance(j, dict) else j
        if not isinstance(names, list) or not names or \
                not all(isinstance(x, str) and x for x in names):
            raise validation("Label", "labels", "missing_field")
        return names

    def add_labels(self, req, owner, repo, n):
        self.need_user(req)
        pr = self.get_pull(owner, repo, int(n))
        self.label_add(owner, repo, pr, self.label_names(req))
        return self.labels_response(req, owner, repo, pr)

    def set_labels(self, req, owner, repo, n):
        self.need_user(req)
        pr = self.get_pull(owner, repo, int(n))
        names = self.label_names(req)
        pr["labels"] = []
        self.label_add(owner, repo, pr, names)
        return self.labels_response(req, owner, repo, pr)

    def clear_labels(self, req, owner, repo, n):
        self.need_user(req)
        pr = self.get_pull(owner, repo, int(n))
        pr["labels"] = []
        self.touch(pr)
        return Response(204, b"")

    def remove_label(self, req, owner, repo, n, name):
        self.need_user(req)
        pr = self.get_pull(owner, repo, int(n))
        if name not in pr["labels"]:
            raise err(404, "Label does not exist",
                      "https://docs.github.com/rest/issues/labels"
                      "#remove-a-label-from-an-issue")
        pr["labels"].remove(name)
        self.touch(pr)
        return self.labels_response(req, owner, repo, pr)


if __name__ == "__main__":
    sys.exit(main(GitHub))
