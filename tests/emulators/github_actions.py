"""GitHub Actions in the GitHub emulator: workflow_dispatch, the runs of a
workflow, a run, its jobs, cancel (a mixin of github.py; README.md has the
table).

A workflow exists once POST /_emu/workflows defines it (its file name, the
inputs it declares, its run-name).  A dispatched run plays a scenario
queued with POST /_emu/ci (the default: one job "build" that succeeds):
"queued" on the first read, "in_progress" for `polls` reads, then
"completed" with the conclusion of its jobs (failure when one failed); a
scenario with "never" stays in progress until it is cancelled.
"""

import re
import time

from common import ApiError, Response

DOCS = "https://docs.github.com/rest/actions"


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def gh_err(status, message, doc=DOCS):
    return ApiError(status, {"message": message, "documentation_url": doc,
                             "status": str(status)})


class GitHubActions:
    def ci_routes(self):
        R = r"/repos/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/actions"
        return [
            ("POST", R + r"/workflows/([^/]+)/dispatches", self.dispatch),
            ("GET", R + r"/workflows/([^/]+)/runs", self.list_runs),
            ("GET", R + r"/runs/(\d+)", self.get_run),
            ("GET", R + r"/runs/(\d+)/jobs", self.run_jobs),
            ("POST", R + r"/runs/(\d+)/cancel", self.cancel_run),
        ]

    def ci(self):
        return self.state.setdefault(
            "ci", {"workflows": {}, "scenarios": {}, "runs": {}})

    # ---- control: POST /_emu/workflows, /_emu/ci ----

    def control_extra(self, p, j):
        if p not in ("/ci", "/workflows"):
            return None
        for k in ("owner", "repo") + (("workflow",) if p == "/workflows"
                                      else ()):
            if k not in j:
                raise ApiError(400, {"error": "missing field '%s'" % k})
        return self.control_ci(j) if p == "/ci" else \
            self.control_workflows(j)

    def control_workflows(self, j):
        key = j["owner"] + "/" + j["repo"]
        self.get_repo(j["owner"], j["repo"])
        wfs = self.ci()["workflows"].setdefault(key, {})
        wf = {"id": self.new_id(), "file": j["workflow"],
              "name": j.get("name", j["workflow"]),
              "inputs": j.get("inputs", []),
              "required": j.get("required", []),
              "run_name": j.get("run_name")}
        wfs[j["workflow"]] = wf
        self.save()
        return Response(201, {"id": wf["id"]})

    def control_ci(self, j):
        key = j["owner"] + "/" + j["repo"]
        self.get_repo(j["owner"], j["repo"])
        self.ci()["scenarios"].setdefault(key, []).append({
            "jobs": j.get("jobs", [{"name": "build"}]),
            "polls": int(j.get("polls", 1)),
            "never": bool(j.get("never", False))})
        self.save()
        return Response(201, {})

    def find_workflow(self, owner, repo, wf_id):
        self.get_repo(owner, repo)
        for wf in self.ci()["workflows"].get(owner + "/" + repo,
                                             {}).values():
            if wf["file"] == wf_id or str(wf["id"]) == wf_id:
                return wf
        raise gh_err(404, "Not Found")

    def find_run(self, owner, repo, n):
        self.get_repo(owner, repo)
        run = self.ci()["runs"].get(str(n))
        if run is None or run["repo"] != owner + "/" + repo:
            raise gh_err(404, "Not Found")
        return run

    # ---- the run's life ----

    def run_json(self, base, run):
        return {"id": run["id"], "name": run["wf_name"],
                "display_title": run["title"],
                "run_number": run["number"], "event": "workflow_dispatch",
                "status": run["status"], "conclusion": run["conclusion"],
                "workflow_id": run["wf_id"],
                "head_branch": run["ref"], "head_sha": run["sha"],
                "path": ".github/workflows/" + run["wf_file"],
                "html_url": "%s/%s/actions/runs/%d" % (base, run["repo"],
                                                       run["id"]),
                "created_at": iso(run["created"]),
                "updated_at": iso(run["updated"]),
                "run_started_at": iso(run["created"])}

    def job_json(self, base, run, job):
        return {"id": job["id"], "run_id": run["id"], "name": job["name"],
                "status": job["status"], "conclusion": job["conclusion"],
                "html_url": "%s/%s/actions/runs/%d/job/%d" % (
                    base, run["repo"], run["id"], job["id"]),
                "steps": [{"name": s["name"], "number": i + 1,
                           "status": job["status"],
                           "conclusion": s["conclusion"]
                           if job["status"] == "completed" else None}
                          for i, s in enumerate(job["steps"])]}

    def advance(self, run):
        if run["status"] == "completed":
            return
        run["reads"] += 1
        run["updated"] = time.time()
        if run["reads"] == 1:
            run["status"] = "queued"
        elif run["never"] or run["reads"] <= 1 + run["polls"]:
            run["status"] = "in_progress"
            for job in run["jobs"]:
                job["status"] = "in_progress"
        else:
            run["status"] = "completed"
            failed = False
            for job in run["jobs"]:
                job["status"] = "completed"
                job["conclusion"] = job["result"]
                failed |= job["result"] == "failure"
            run["conclusion"] = "failure" if failed else "success"

    # ---- routes ----

    def dispatch(self, req, owner, repo, wf_id):
        self.need_user(req)
        wf = self.find_workflow(owner, repo, wf_id)
        j = req.json(self.bad_json)
        if not isinstance(j, dict) or not j.get("ref"):
            raise gh_err(422, "Invalid request.\n\n\"ref\" wasn't "
                         "supplied.")
        inputs = j.get("inputs") or {}
        extra = sorted(k for k in inputs if k not in wf["inputs"])
        if extra:
            raise gh_err(422, "Unexpected inputs provided: %s" %
                         str(extra).replace("'", '"'))
        missing = [k for k in wf["required"] if k not in inputs]
        if missing:
            raise gh_err(422, "Required input '%s' not provided" %
                         missing[0])
        for k, v in inputs.items():
            if not isinstance(v, str) or len(v) > 65535:
                raise gh_err(422, "Invalid value for input '%s'" % k)
        sha = self.branch_sha(owner, repo, j["ref"])
        if sha is None:
            raise gh_err(422, "No ref found for: %s" % j["ref"])
        key = owner + "/" + repo
        ci = self.ci()
        queue = ci["scenarios"].get(key) or []
        sc = queue.pop(0) if queue else {"jobs": [{"name": "build"}],
                                         "polls": 1, "never": False}
        # run-name: ${{ inputs.X }} filled in, else the workflow's name
        title = wf["name"]
        if wf["run_name"]:
            title = re.sub(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}",
                           lambda m: str(inputs.get(m.group(1), "")),
                           wf["run_name"])
        now = time.time()
        n = self.new_id()
        jobs = [{"id": self.new_id(), "name": job["name"],
                 "result": job.get("conclusion", "success"),
                 "steps": job.get("steps", [{"name": "Run",
                                             "conclusion": job.get(
                                                 "conclusion",
                                                 "success")}]),
                 "status": "queued", "conclusion": None}
                for job in sc["jobs"]]
        ci["runs"][str(n)] = {
            "id": n, "repo": key, "wf_id": wf["id"], "wf_file": wf["file"],
            "wf_name": wf["name"], "title": title, "inputs": inputs,
            "number": sum(1 for r in ci["runs"].values()
                          if r["wf_id"] == wf["id"]) + 1,
            "ref": j["ref"], "sha": sha, "status": "requested",
            "conclusion": None, "jobs": jobs, "reads": 0,
            "polls": sc["polls"], "never": sc["never"], "created": now,
            "updated": now, "cancelled_by": None}
        return Response(204, b"")

    def list_runs(self, req, owner, repo, wf_id):
        wf = self.find_workflow(owner, repo, wf_id)
        runs = [r for r in self.ci()["runs"].values()
                if r["wf_id"] == wf["id"]]
        if req.arg("event") and req.arg("event") != "workflow_dispatch":
            runs = []
        if req.arg("branch"):
            runs = [r for r in runs if r["ref"] == req.arg("branch")]
        runs.sort(key=lambda r: r["id"], reverse=True)
        per = min(int(req.arg("per_page", "30")), 100)
        page = int(req.arg("page", "1"))
        part = runs[(page - 1) * per:page * per]
        return Response(200, {"total_count": len(runs),
                              "workflow_runs": [self.run_json(req.base, r)
                                                for r in part]})

    def get_run(self, req, owner, repo, n):
        run = self.find_run(owner, repo, n)
        self.advance(run)
        self.save()
        return Response(200, self.run_json(req.base, run))

    def run_jobs(self, req, owner, repo, n):
        run = self.find_run(owner, repo, n)
        return Response(200, {"total_count": len(run["jobs"]),
                              "jobs": [self.job_json(req.base, run, job)
                                       for job in run["jobs"]]})

    def cancel_run(self, req, owner, repo, n):
        u = self.need_user(req)
        run = self.find_run(owner, repo, n)
        if run["status"] == "completed":
            raise gh_err(409, "Cannot cancel a workflow run that is "
                         "completed.")
        run["status"] = "completed"
        run["conclusion"] = "cancelled"
        run["cancelled_by"] = u["login"]
        for job in run["jobs"]:
            if job["status"] != "completed":
                job["status"] = "completed"
                job["conclusion"] = "cancelled"
        return Response(202, {})
