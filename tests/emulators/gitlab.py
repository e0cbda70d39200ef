#!/usr/bin/python3
"""A GitLab REST v4 emulator for patchrelay's tests (stdlib only).

  /usr/bin/python3 tests/emulators/gitlab.py --root DIR --port-file FILE [--port 0]

API base http://127.0.0.1:PORT/api/v4; git at
http://127.0.0.1:PORT/git/GROUP/PROJECT.git with refs/merge-requests/N/head.
See README.md beside this file.  Shapes follow
/work/shared/reference/apis.md section 2.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ApiError, Emulator, Response, http_date, \
    link_header, main, paginate  # noqa: E402
from gitlab_ci import GitLabCI  # noqa: E402
from statuses import GitLabStatuses  # noqa: E402


def iso(t):
    if t is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + \
        ".%03dZ" % (int(t * 1000) % 1000)


class GitLab(GitLabCI, GitLabStatuses, Emulator):
    name = "gitlab"
    api_prefix = "/api/v4"
    git_pull_ref = "refs/merge-requests/%d/head"
    default_per_page = 20

    def api_routes(self):
        P = "/projects/([^/]+)"
        M = P + r"/merge_requests/(\d+)"
        return [
            ("GET", "/user", self.get_user),
            ("GET", P, self.get_project),
            ("GET", P + "/merge_requests", self.list_mrs),
            ("POST", P + "/merge_requests", self.create_mr),
            ("GET", M, self.get_mr),
            ("PUT", M, self.put_mr),
            ("GET", M + "/commits", self.list_commits),
            ("GET", M + "/diffs", self.list_diffs),
            ("GET", M + "/notes", self.list_notes),
            ("POST", M + "/notes", self.post_note),
            ("POST", M + "/discussions", self.post_discussion),
        ] + self.ci_routes() + self.status_routes(P)

    def authenticate(self, req):
        token = req.headers.get("PRIVATE-TOKEN")
        auth = req.headers.get("Authorization", "")
        if token is None and auth:
            scheme, _, token = auth.partition(" ")
            if scheme.lower() != "bearer":
                raise ApiError(401, {"message": "401 Unauthorized"})
        if token is None:
            return
        u = self.user_by_token(token.strip())
        if u is None:
            raise ApiError(401, {"message": "401 Unauthorized"})
        req.user = u

    def need_user(self, req):
        if req.user is None:
            raise ApiError(401, {"message": "401 Unauthorized"})
        return req.user

    def not_found(self, what):
        if what == "repo":
            return ApiError(404, {"message": "404 Project Not Found"})
        if what == "route":
            return ApiError(404, {"error": "404 Not Found"})
        return ApiError(404, {"message": "404 Not found"})

    def bad_json(self):
        return ApiError(400, {"error": "400 Bad Request"})

    def ratelimit_headers(self):
        rl = self.state["ratelimit"]
        return {"RateLimit-Limit": rl["limit"],
                "RateLimit-Observed": rl["used"],
                "RateLimit-Remaining": rl["remaining"],
                "RateLimit-Reset": rl["reset"],
                "RateLimit-ResetTime": http_date(rl["reset"])}

    def ratelimit_exhausted(self, req):
        rl = self.state["ratelimit"]
        r = Response(429, {"message": {"error": "This endpoint has been "
                                       "requested too many times. Try "
                                       "again later."}})
        r.headers.update(self.ratelimit_headers())
        r.headers["Retry-After"] = max(0, int(rl["reset"] - time.time()))
        return r

    def secondary_body(self, status):
        if status == 429:
            return {"message": {"error": "This endpoint has been requested "
                                "too many times. Try again later."}}
        return {"message": "%d error" % status}

    def paged(self, req, items, render=None):
        page_items, page, per_page, pages = paginate(
            req, items, self.default_per_page)
        if render:
            page_items = [render(x) for x in page_items]
        r = Response(200, page_items)
        r.headers.update({
            "x-page": page, "x-per-page": per_page,
            "x-next-page": page + 1 if page < pages else "",
            "x-prev-page": page - 1 if page > 1 else "",
            "x-total": len(items), "x-total-pages": pages,
            "Link": link_header(req, page, pages, always_first_last=True)})
        return r

    def params(self, req):
        """A request's parameters: its query, then its JSON or form body
        (GitLab takes them from either)."""
        j = dict((k, v[-1]) for k, v in req.query.items())
        body = req.json(self.bad_json)
        if isinstance(body, dict):
            j.update(body)
        return j

    def project(self, pid):
        for key, r in self.state["repos"].items():
            if key == pid or str(r["id"]) == pid:
                return key.split("/", 1)
        raise self.not_found("repo")

    def project_id(self, owner, repo):
        r = self.state["repos"].get(owner + "/" + repo)
        if r:
            return r["id"]
        forks = self.state.setdefault("forks", {})
        return forks.setdefault(owner + "/" + repo,
                                {"id": self.new_id()})["id"]

    def user_json(self, base, login):
        u = self.state["users"].get(login) or {"id": 0, "login": login,
                                               "name": login}
        return {"id": u["id"], "username": login,
                "name": u.get("name", login), "state": "active",
                "avatar_url": "", "web_url": base + "/" + login}

    def mr_json(self, base, owner, repo, pr, detail):
        full = owner + "/" + repo
        state = {"open": "opened"}.get(pr["state"], pr["state"])
        d = {"id": pr["id"], "iid": pr["number"],
             "project_id": self.project_id(owner, repo),
             "title": pr["title"], "description": pr["body"],
             "state": state, "created_at": iso(pr["created_at"]),
             "updated_at": iso(pr["updated_at"]),
             "closed_at": iso(pr["closed_at"]),
             "merged_at": iso(pr["merged_at"]),
             "target_branch": pr["base_ref"],
             "source_branch": pr["head_ref"],
             "source_project_id": self.project_id(pr["head_owner"], repo),
             "target_project_id": self.project_id(owner, repo),
             "author": self.user_json(base, pr["user"]),
             "labels": list(pr["labels"]), "draft": pr["draft"],
             "work_in_progress": pr["draft"], "sha": pr["head_sha"],
             "merge_commit_sha": None,
             "user_notes_count": sum(1 for c in pr["comments"]
                                     if not c["system"]),
             "web_url": "%s/%s/-/merge_requests/%d" % (base, full,
                                                       pr["number"]),
             "references": {"short": "!%d" % pr["number"],
                            "relative": "!%d" % pr["number"],
                            "full": "%s!%d" % (full, pr["number"])},
             "detailed_merge_status": "mergeable"
             if state == "opened" else "not_open",
             "merge_status": "can_be_merged"}
        if detail:
            files = self.pr_files(owner, repo, pr)
            d["diff_refs"] = {
                "base_sha": self.merge_base(owner, repo, pr["base_sha"],
                                            pr["head_sha"]),
                "head_sha": pr["head_sha"], "start_sha": pr["base_sha"]}
            d["changes_count"] = str(len(files))
            d["prepared_at"] = iso(pr["created_at"])
        return d

    def note_json(self, base, pr, c):
        d = self.plain_note_json(base, pr, c)
        if c.get("position"):
            d["type"] = "DiffNote"
            d["position"] = c["position"]
            d["resolvable"] = True
        return d

    def plain_note_json(self, base, pr, c):
        return {"id": c["id"], "type": None, "body": c["body"],
                "author": self.user_json(base, c["user"]),
                "created_at": iso(c["created_at"]),
                "updated_at": iso(c["updated_at"]),
                "system": c["system"], "noteable_id": pr["id"],
                "noteable_type": "MergeRequest",
                "noteable_iid": pr["number"], "internal": False,
                "confidential": False, "resolvable": False}

    def pushed(self, owner, repo, pr, old):
        c = self.pr_commits(owner, repo, pr)
        subj = c[-1]["message"].split("\n")[0] if c else ""
        self.add_comment(pr, pr["user"], "added %d commit%s\n\n<ul><li>"
                         "%s - %s</li></ul>" % (
                             len(c), "" if len(c) == 1 else "s",
                             pr["head_sha"][:8], subj), system=True)

    # ---- routes ----

    def get_user(self, req):
        u = self.need_user(req)
        d = self.user_json(req.base, u["login"])
        d["email"] = u["email"]
        return Response(200, d)

    def get_project(self, req, pid):
        owner, repo = self.project(pid)
        r = self.state["repos"][owner + "/" + repo]
        return Response(200, {
            "id": r["id"], "name": repo, "path": repo,
            "path_with_namespace": owner + "/" + repo,
            "namespace": {"path": owner, "full_path": owner},
            "default_branch": r["default_branch"],
            "http_url_to_repo": self.clone_url(req.base, owner, repo),
            "web_url": "%s/%s/%s" % (req.base, owner, repo)})

    def list_mrs(self, req, pid):
        owner, repo = self.project(pid)
        state = req.arg("state", "all")
        if state not in ("opened", "closed", "locked", "merged", "all"):
            raise ApiError(400, {"error": "state does not have a valid "
                                 "value"})
        mrs = self.repo_pulls(owner, repo)
        gl = {"open": "opened"}
        if state != "all":
            mrs = [p for p in mrs if gl.get(p["state"], p["state"]) == state]
        for k, f in (("source_branch", "head_ref"),
                     ("target_branch", "base_ref")):
            if req.arg(k):
                mrs = [p for p in mrs if p[f] == req.arg(k)]
        iids = req.query.get("iids[]")
        if iids:
            mrs = [p for p in mrs if str(p["number"]) in iids]
        order = req.arg("order_by", "created_at")
        key = "updated_at" if order == "updated_at" else "created_at"
        mrs.sort(key=lambda p: (p[key], p["number"]),
                 reverse=req.arg("sort", "desc") == "desc")
        return self.paged(req, mrs, lambda p: self.mr_json(
            req.base, owner, repo, p, False))

    def create_mr(self, req, pid):
        u = self.need_user(req)
        owner, repo = self.project(pid)
        j = self.params(req)
        keys = ("source_branch", "target_branch", "title")
        missing = [k for k in keys if not j.get(k)]
        if missing:
            raise ApiError(400, {"error": ", ".join(
                "%s is missing" % k for k in missing)})
        src, dst = j["source_branch"], j["target_branch"]
        if src == dst:
            raise ApiError(422, {"message": [
                "You can't use same project/branch for source and target"]})
        if self.branch_sha(owner, repo, src) is None:
            raise ApiError(422, {"message": {"source_branch":
                                             ["does not exist"]}})
        if self.branch_sha(owner, repo, dst) is None:
            raise ApiError(422, {"message": {"target_branch":
                                             ["does not exist"]}})
        old = self.open_pull_of(owner, repo, owner, src)
        if old:
            raise ApiError(409, {"message": [
                "Another open merge request already exists for this "
                "source branch: !%d" % old["number"]]})
        pr = self.new_pull(owner, repo, u["login"], j["title"],
                           j.get("description") or "", owner, src, dst,
                           False)
        self.open_from_branch(owner, repo, pr)
        return Response(201, self.mr_json(req.base, owner, repo, pr, True))

    def get_mr(self, req, pid, iid):
        owner, repo = self.project(pid)
        pr = self.get_pull(owner, repo, int(iid))
        return Response(200, self.mr_json(req.base, owner, repo, pr, True))

    def put_mr(self, req, pid, iid):
        u = self.need_user(req)
        owner, repo = self.project(pid)
        pr = self.get_pull(owner, repo, int(iid))
        j = self.params(req)
        keys = ("state_event", "title", "description", "labels",
                "add_labels", "remove_labels", "target_branch")
        if not any(k in j for k in keys):
            raise ApiError(400, {"error": ", ".join(keys) + " are missing, "
                                 "at least one parameter must be provided"})
        ev = j.get("state_event")
        if ev is not None and ev not in ("close", "reopen"):
            raise ApiError(400, {"error": "state_event does not have a "
                                 "valid value"})
        if ev == "close" and self.set_state(pr, "closed"):
            self.add_comment(pr, u["login"], "closed", system=True)
        if ev == "reopen" and self.set_state(pr, "open"):
            self.add_comment(pr, u["login"], "reopened", system=True)
        for k, f in (("title", "title"), ("description", "body")):
            if k in j:
                pr[f] = j[k]
                self.touch(pr)

        def names(v):
            return [x for x in (v if isinstance(v, list)
                                else str(v).split(",")) if x]
        if "labels" in j:
            pr["labels"] = []
            self.label_add(owner, repo, pr, names(j["labels"]))
        if "add_labels" in j:
            self.label_add(owner, repo, pr, names(j["add_labels"]))
        if "remove_labels" in j:
            pr["labels"] = [x for x in pr["labels"]
                            if x not in names(j["remove_labels"])]
            self.touch(pr)
        return Response(200, self.mr_json(req.base, owner, repo, pr, True))

    def list_commits(self, req, pid, iid):
        owner, repo = self.project(pid)
        pr = self.get_pull(owner, repo, int(iid))
        cs = list(reversed(self.pr_commits(owner, repo, pr)))

        def render(c):
            return {"id": c["sha"], "short_id": c["sha"][:8],
                    "title": c["message"].split("\n")[0],
                    "message": c["message"] + "\n",
                    "author_name": c["author_name"],
                    "author_email": c["author_email"],
                    "authored_date": c["author_iso"],
                    "committer_name": c["committer_name"],
                    "committer_email": c["committer_email"],
                    "committed_date": c["committer_iso"],
                    "created_at": c["committer_iso"],
                    "parent_ids": c["parents"], "trailers": {},
                    "extended_trailers": {},
                    "web_url": "%s/%s/%s/-/commit/%s" % (
                        req.base, owner, repo, c["sha"])}
        return self.paged(req, cs, render)

    def list_diffs(self, req, pid, iid):
        owner, repo = self.project(pid)
        pr = self.get_pull(owner, repo, int(iid))

        def render(f):
            return {"old_path": f["old_path"], "new_path": f["new_path"],
                    "a_mode": f["a_mode"], "b_mode": f["b_mode"],
                    "diff": f["patch"] + "\n" if f["patch"] else "",
                    "new_file": f["status"] == "added",
                    "renamed_file": f["status"] == "renamed",
                    "deleted_file": f["status"] == "removed",
                    "generated_file": False, "collapsed": False,
                    "too_large": False}
        return self.paged(req, self.pr_files(owner, repo, pr), render)

    def post_discussion(self, req, pid, iid):
        """A new thread: with a position, a comment on a line of the
        diff (a DiffNote), as GitLab checks the position."""
        u = self.need_user(req)
        owner, repo = self.project(pid)
        pr = self.get_pull(owner, repo, int(iid))
        j = self.params(req)
        if not str(j.get("body", "")).strip():
            raise ApiError(400, {"error": "body is missing"})
        pos = j.get("position")
        if pos is not None:
            if not isinstance(pos, dict) or \
                    pos.get("position_type") != "text":
                raise ApiError(400, {"error": "position[position_type] "
                                     "does not have a valid value"})
            line = pos.get("new_line")
            if isinstance(line, str) and line.isdigit():
                line = int(line)
            ok = pos.get("head_sha") == pr["head_sha"] and \
                isinstance(line, int) and self.diff_hunk(
                    owner, repo, pr, pos.get("new_path"), line) is not None
            if not ok:
                raise ApiError(400, {"message": "400 Bad request - Note "
                                     "{:line_code=>[\"can't be blank\", "
                                     "\"must be a valid line code\"]}"})
            pos = dict(pos, new_line=line)
        c = self.add_comment(pr, u["login"], str(j["body"]), position=pos)
        return Response(201, {"id": "%040x" % c["id"],
                              "individual_note": pos is None,
                              "notes": [self.note_json(req.base, pr, c)]})

    def list_notes(self, req, pid, iid):
        owner, repo = self.project(pid)
        pr = self.get_pull(owner, repo, int(iid))
        notes = list(pr["comments"])
        order = "updated_at" if req.arg("order_by") == "updated_at" \
            else "created_at"
        notes.sort(key=lambda c: (c[order], c["id"]),
                   reverse=req.arg("sort", "desc") == "desc")
        return self.paged(req, notes,
                          lambda c: self.note_json(req.base, pr, c))

    def post_note(self, req, pid, iid):
        u = self.need_user(req)
        owner, repo = self.project(pid)
        pr = self.get_pull(owner, repo, int(iid))
        j = self.params(req)
        if "body" not in j:
            raise ApiError(400, {"error": "body is missing"})
        if not str(j["body"]).strip():
            raise ApiError(400, {"message": {"note": ["can't be blank"]}})
        c = self.add_comment(pr, u["login"], str(j["body"]))
        return Response(201, self.note_json(req.base, pr, c))


if __name__ == "__main__":
    sys.exit(main(GitLab))
