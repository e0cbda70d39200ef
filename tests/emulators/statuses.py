"""Commit statuses for the forge emulators (GitHub and GitLab).

GitHub: POST /repos/{o}/{r}/statuses/{sha}, GET .../commits/{ref}/statuses
and .../commits/{ref}/status (combined).  GitLab: POST
/projects/:id/statuses/:sha, GET /projects/:id/repository/commits/:sha/
statuses.  Kept in state["statuses"]["owner/repo"][sha], oldest first.
See README.md for the answers, errors included.
"""

import time

from common import ApiError, Response, git

GH_STATES = ("error", "failure", "pending", "success")
GL_STATES = ("pending", "running", "success", "failed", "canceled",
             "skipped")
GH_DOC = "https://docs.github.com/rest/commits/statuses"


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class Statuses:
    """What both forges share: the commits a repository has, the list."""

    def commit_sha(self, owner, repo, ref):
        """The full SHA of commit ref in the repository, or None."""
        out = git(["rev-parse", "--verify", "-q", ref + "^{commit}"],
                  cwd=self.repo_path(owner, repo), check=False).strip()
        return out or None

    def status_list(self, owner, repo, sha):
        return self.state.setdefault("statuses", {}).setdefault(
            owner + "/" + repo, {}).setdefault(sha, [])

    @staticmethod
    def latest_per(items, key):
        """The newest item of each key value, newest first."""
        seen, out = set(), []
        for s in reversed(items):
            if s[key] not in seen:
                seen.add(s[key])
                out.append(s)
        return out


class GitHubStatuses(Statuses):

    def status_routes(self, R, NAME):
        return [
            ("POST", R + "/statuses/([^/]+)", self.post_status),
            ("GET", R + "/commits/([^/]+)/statuses", self.list_statuses),
            ("GET", R + "/commits/([^/]+)/status", self.combined_status),
        ]

    def gh_commit(self, owner, repo, ref):
        self.get_repo(owner, repo)
        sha = self.commit_sha(owner, repo, ref)
        if sha is None:
            # what api.github.com answers for a SHA the repository lacks
            raise ApiError(422, {"message": "No commit found for SHA: %s"
                                 % ref, "documentation_url": GH_DOC,
                                 "status": "422"})
        return sha

    def gh_status_json(self, base, owner, repo, s):
        return {"url": "%s/repos/%s/%s/statuses/%s" % (base, owner, repo,
                                                        s["sha"]),
                "avatar_url": "", "id": s["id"], "node_id": "SC_%d" % s["id"],
                "state": s["state"], "description": s["description"],
                "target_url": s["target_url"], "context": s["context"],
                "created_at": iso(s["created_at"]),
                "updated_at": iso(s["created_at"]),
                "creator": self.user_json(base, s["creator"])}

    def post_status(self, req, owner, repo, ref):
        u = self.need_user(req)
        j = req.json(self.bad_json)
        if not isinstance(j, dict):
            raise self.bad_json()
        sha = self.gh_commit(owner, repo, ref)
        e = None
        if j.get("state") not in GH_STATES:
            e = {"resource": "Status", "code": "custom", "field": "state",
                 "message": "state is not included in the list"}
        elif len(j.get("description") or "") > 140:
            e = {"resource": "Status", "code": "custom",
                 "field": "description", "message": "description is too "
                 "long (maximum is 140 characters)"}
        if e:
            raise ApiError(422, {"message": "Validation Failed",
                                 "errors": [e], "documentation_url": GH_DOC,
                                 "status": "422"})
        s = {"id": self.new_id(), "sha": sha, "state": j["state"],
             "description": j.get("description"),
             "target_url": j.get("target_url"),
             "context": j.get("context") or "default",
             "creator": u["login"], "created_at": int(time.time())}
        self.status_list(owner, repo, sha).append(s)
        return Response(201, self.gh_status_json(req.base, owner, repo, s))

    def list_statuses(self, req, owner, repo, ref):
        sha = self.gh_commit(owner, repo, ref)
        items = list(reversed(self.status_list(owner, repo, sha)))
        return self.paged(req, items, lambda s: self.gh_status_json(
            req.base, owner, repo, s))

    def combined_status(self, req, owner, repo, ref):
        sha = self.gh_commit(owner, repo, ref)
        latest = self.latest_per(self.status_list(owner, repo, sha),
                                 "context")
        states = [s["state"] for s in latest]
        if any(x in ("error", "failure") for x in states):
            state = "failure"
        elif not states or "pending" in states:
            state = "pending"
        else:
            state = "success"
        return Response(200, {
            "state": state, "sha": sha, "total_count": len(latest),
            "statuses": [self.gh_status_json(req.base, owner, repo, s)
                         for s in latest],
            "repository": self.repo_json(req.base, owner, repo)})


class GitLabStatuses(Statuses):

    def status_routes(self, P):
        return [
            ("POST", P + "/statuses/([^/]+)", self.post_status),
            ("GET", P + "/repository/commits/([^/]+)/statuses",
             self.list_statuses),
        ]

    def gl_commit(self, pid, ref):
        owner, repo = self.project(pid)
        sha = self.commit_sha(owner, repo, ref)
        if sha is None:
            raise ApiError(404, {"message": "404 Commit Not Found"})
        return owner, repo, sha

    def gl_status_json(self, base, s):
        u = self.state["users"].get(s["author"]) or {"id": 0}
        return {"id": s["id"], "sha": s["sha"], "ref": s["ref"],
                "status": s["status"], "name": s["name"],
                "target_url": s["target_url"],
                "description": s["description"],
                "created_at": iso(s["created_at"]),
                "started_at": None, "finished_at": None,
                "allow_failure": False, "coverage": None,
                "author": {"id": u["id"], "username": s["author"],
                           "name": u.get("name") or s["author"],
                           "state": "active",
                           "web_url": "%s/%s" % (base, s["author"])}}

    def post_status(self, req, pid, ref):
        u = self.need_user(req)
        j = self.params(req)
        if "state" not in j:
            raise ApiError(400, {"error": "state is missing"})
        if j["state"] not in GL_STATES:
            raise ApiError(400, {"error": "state does not have a valid "
                                 "value"})
        owner, repo, sha = self.gl_commit(pid, ref)
        name = j.get("name") or j.get("context") or "default"
        items = self.status_list(owner, repo, sha)
        open_ = [s for s in items if s["name"] == name and
                 s["status"] in ("pending", "running")]
        if open_ and open_[-1]["status"] == j["state"]:
            # GitLab moves a pending or running status; the same state
            # again is no transition
            verb = {"pending": "enqueue", "running": "run"}[j["state"]]
            raise ApiError(400, {"message": "Cannot transition status via "
                                 ":%s from :%s" % (verb, j["state"])})
        if open_:
            s = open_[-1]
            s["status"] = j["state"]
            s["description"] = j.get("description", s["description"])
            s["target_url"] = j.get("target_url", s["target_url"])
        else:
            s = {"id": self.new_id(), "sha": sha, "ref": j.get("ref"),
                 "status": j["state"], "name": name,
                 "target_url": j.get("target_url"),
                 "description": j.get("description"),
                 "author": u["login"], "created_at": int(time.time())}
            items.append(s)
        return Response(201, self.gl_status_json(req.base, s))

    def list_statuses(self, req, pid, ref):
        owner, repo, sha = self.gl_commit(pid, ref)
        items = self.status_list(owner, repo, sha)
        if str(req.arg("all", "false")).lower() != "true":
            items = list(reversed(self.latest_per(items, "name")))
        if req.arg("name"):
            items = [s for s in items if s["name"] == req.arg("name")]
        return self.paged(req, items, lambda s: self.gl_status_json(
            req.base, s))
