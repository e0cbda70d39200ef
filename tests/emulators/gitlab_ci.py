"""GitLab CI in the GitLab emulator: the pipeline trigger API, pipelines,
their jobs and job traces (a mixin of gitlab.py; README.md has the table).

A triggered pipeline plays a scenario queued for its project with
POST /_emu/ci (the default: one job "build" that succeeds): it is
"pending" on the first read, "running" for `polls` reads, then ends
(failed when a job without allow_failure failed, else success); a
scenario with "never" runs until it is cancelled.
"""

import time

from common import ApiError, Response

TERMINAL = ("success", "failed", "canceled", "skipped")


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + \
        ".%03dZ" % (int(t * 1000) % 1000)


class GitLabCI:
    def ci_routes(self):
        P = "/projects/([^/]+)"
        return [
            ("POST", P + "/trigger/pipeline", self.trigger_pipeline),
            ("GET", P + r"/pipelines/(\d+)", self.get_pipeline),
            ("GET", P + r"/pipelines/(\d+)/jobs", self.pipeline_jobs),
            ("POST", P + r"/pipelines/(\d+)/cancel", self.cancel_pipeline),
            ("GET", P + r"/jobs/(\d+)/trace", self.job_trace),
        ]

    def ci(self):
        return self.state.setdefault(
            "ci", {"tokens": {}, "scenarios": {}, "pipelines": {}})

    # ---- control: POST /_emu/ci ----

    def control_extra(self, p, j):
        if p != "/ci":
            return None
        for k in ("owner", "repo"):
            if k not in j:
                raise ApiError(400, {"error": "missing field '%s'" % k})
        return self.control_ci(j)

    def control_ci(self, j):
        key = j["owner"] + "/" + j["repo"]
        self.get_repo(j["owner"], j["repo"])
        ci = self.ci()
        if "trigger_token" in j:
            ci["tokens"][key] = j["trigger_token"]
        if "jobs" in j or "never" in j:
            ci["scenarios"].setdefault(key, []).append({
                "jobs": j.get("jobs", [{"name": "build"}]),
                "polls": int(j.get("polls", 1)),
                "never": bool(j.get("never", False))})
        self.save()
        return Response(201, {"queued": len(ci["scenarios"].get(key, []))})

    # ---- the pipeline's life ----

    def pipeline_json(self, base, key, p):
        return {"id": p["id"], "iid": p["iid"], "project_id": p["project_id"],
                "sha": p["sha"], "ref": p["ref"], "status": p["status"],
                "source": "trigger", "created_at": iso(p["created"]),
                "updated_at": iso(p["updated"]),
                "web_url": "%s/%s/-/pipelines/%d" % (base, key, p["id"])}

    def job_json(self, base, key, p, job):
        return {"id": job["id"], "name": job["name"], "stage": job["stage"],
                "status": job["status"],
                "allow_failure": job["allow_failure"],
                "duration": job["duration"], "ref": p["ref"],
                "pipeline": {"id": p["id"], "status": p["status"]},
                "web_url": "%s/%s/-/jobs/%d" % (base, key, job["id"])}

    def advance(self, p):
        """One read of a pipeline that has not ended moves it on."""
        if p["status"] in TERMINAL:
            return
        p["reads"] += 1
        p["updated"] = time.time()
        if p["reads"] == 1:
            p["status"] = "pending"
        elif p["never"] or p["reads"] <= 1 + p["polls"]:
            p["status"] = "running"
            for job in p["jobs"]:
                job["status"] = "running"
        else:
            failed = False
            for job in p["jobs"]:
                job["status"] = job["result"]
                job["duration"] = job["seconds"]
                failed |= job["result"] == "failed" and \
                    not job["allow_failure"]
            p["status"] = "failed" if failed else "success"

    def find_pipeline(self, pid, n):
        owner, repo = self.project(pid)
        key = owner + "/" + repo
        p = self.ci()["pipelines"].get(str(n))
        if p is None or p["project"] != key:
            raise ApiError(404, {"message": "404 Not found"})
        return key, p

    # ---- routes ----

    def trigger_pipeline(self, req, pid):
        owner, repo = self.project(pid)
        key = owner + "/" + repo
        j = dict((k, v[-1]) for k, v in req.query.items())
        body = req.json(self.bad_json)
        if isinstance(body, dict):
            j.update(body)
        # a form sends variables[NAME]=value, JSON an object
        variables = dict(j.get("variables") or {})
        for k, v in j.items():
            if k.startswith("variables[") and k.endswith("]"):
                variables[k[len("variables["):-1]] = v
        if not j.get("token"):
            raise ApiError(400, {"error": "token is missing"})
        if not j.get("ref"):
            raise ApiError(400, {"error": "ref is missing"})
        ci = self.ci()
        if ci["tokens"].get(key) != j["token"]:
            raise ApiError(404, {"message": "404 Not Found"})
        sha = self.branch_sha(owner, repo, j["ref"])
        if sha is None:
            raise ApiError(400, {"message": {"base": ["Reference not "
                                                      "found"]}})
        queue = ci["scenarios"].get(key) or []
        sc = queue.pop(0) if queue else {"jobs": [{"name": "build"}],
                                         "polls": 1, "never": False}
        n = self.new_id()
        jobs = []
        for i, job in enumerate(sc["jobs"]):
            jobs.append({"id": self.new_id(), "name": job["name"],
                         "stage": job.get("stage", "test"),
                         "result": job.get("status", "success"),
                         "allow_failure": bool(job.get("allow_failure")),
                         "seconds": float(job.get("duration", 10 + i)),
                         "trace": job.get("trace", "Job succeeded\n"),
                         "status": "created", "duration": None})
        now = time.time()
        p = {"id": n, "iid": len(ci["pipelines"]) + 1,
             "project": key, "project_id": self.state["repos"][key]["id"],
             "ref": j["ref"], "sha": sha, "status": "created",
             "variables": variables, "jobs": jobs, "reads": 0,
             "polls": sc["polls"], "never": sc["never"],
             "created": now, "updated": now, "canceled_by": None}
        ci["pipelines"][str(n)] = p
        return Response(201, self.pipeline_json(req.base, key, p))

    def get_pipeline(self, req, pid, n):
        self.need_user(req)
        key, p = self.find_pipeline(pid, n)
        self.advance(p)
        self.save()
        return Response(200, self.pipeline_json(req.base, key, p))

    def pipeline_jobs(self, req, pid, n):
        self.need_user(req)
        key, p = self.find_pipeline(pid, n)
        # newest first, as GitLab lists them
        jobs = [self.job_json(req.base, key, p, job)
                for job in reversed(p["jobs"])]
        return self.paged(req, jobs)

    def cancel_pipeline(self, req, pid, n):
        u = self.need_user(req)
        key, p = self.find_pipeline(pid, n)
        if p["status"] not in TERMINAL:
            p["status"] = "canceled"
            p["canceled_by"] = u["login"]
            for job in p["jobs"]:
                if job["status"] not in TERMINAL:
                    job["status"] = "canceled"
        return Response(200, self.pipeline_json(req.base, key, p))

    def job_trace(self, req, pid, n):
        self.need_user(req)
        owner, repo = self.project(pid)
        for p in self.ci()["pipelines"].values():
            if p["project"] != owner + "/" + repo:
                continue
            for job in p["jobs"]:
                if job["id"] == int(n):
                    text = job["trace"] if job["status"] in TERMINAL \
                        else ""
                    return Response(200, text,
                                    ctype="text/plain; charset=utf-8")
        raise ApiError(404, {"message": "404 Not found"})
