"""Shared plumbing of the GitHub and GitLab emulators (Python 3 stdlib only).

An emulator is one process serving three things on 127.0.0.1:
  - the forge's REST API (github.py / gitlab.py supply the routes),
  - the bare git repositories under ROOT/git over smart HTTP through
    `git http-backend` run as a CGI program: read by anyone, pushed to
    with a user's token as the HTTP password (a push moves the PRs whose
    head is a pushed branch),
  - a control API under /_emu/ that tests use to set up users, repos,
    pull requests, comments, failures and the rate limit.

Invariants:
  - All state lives in one dict (Emulator.state) guarded by one lock and is
    written to ROOT/state.json after every change, so GET /_emu/state and
    the file always agree.  Times are stored as epoch seconds (float) and
    rendered by each forge in its own format.
  - A pull request (GitLab: merge request) is stored once, forge-neutral;
    its head commit is always at refs/pull/N/head (GitLab
    refs/merge-requests/N/head) of the base repository and at
    refs/heads/REF of the head repository (the submitter's fork,
    ROOT/git/USER/REPO.git, which is the base repository itself when the
    submitter owns it).
  - Every request outside /_emu/ is logged (method, path with query,
    status, If-None-Match) and first meets the /_emu/fail rules; control
    requests are never logged, failed or rate limited.
  - Only authenticated-or-anonymous API requests answered with something
    other than 304 count against the primary rate limit; /_emu/fail answers
    and git traffic do not.
"""

import argparse
import base64
import email.utils
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ApiError(Exception):
    """Raised by a route to answer with status and a JSON body."""

    def __init__(self, status, body, headers=None):
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}


class Request:
    def __init__(self, method, raw_path, headers, body, host):
        self.method = method
        self.raw_path = raw_path
        path, _, query = raw_path.partition("?")
        self.path = path
        self.query_string = query
        self.query = urllib.parse.parse_qs(query, keep_blank_values=True)
        self.headers = headers
        self.body = body
        # behind a proxy that speaks TLS (tests/servers/fault_proxy.py),
        # the links name https, as Django's SECURE_PROXY_SSL_HEADER does
        proto = headers.get("X-Forwarded-Proto", "http")
        self.base = (proto if proto in ("http", "https") else "http") + \
            "://" + host
        self.user = None
        self._json = None

    def json(self, bad):
        """The body as JSON ({} when empty); bad() builds the error."""
        if self._json is not None:
            return self._json
        if not self.body.strip():
            self._json = {}
            return self._json
        ctype = self.headers.get("Content-Type", "")
        if ctype.startswith("application/x-www-form-urlencoded"):
            form = urllib.parse.parse_qs(self.body.decode("utf-8", "replace"),
                                         keep_blank_values=True)
            self._json = {k: v[-1] if not k.endswith("[]") else v
                          for k, v in form.items()}
            return self._json
        try:
            self._json = json.loads(self.body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise bad()
        return self._json

    def arg(self, name, default=None):
        v = self.query.get(name)
        return v[-1] if v else default


class Response:
    def __init__(self, status, body=b"", headers=None, ctype=None):
        self.status = status
        self.headers = dict(headers or {})
        if isinstance(body, (dict, list)) or body is None:
            body = json.dumps(body, indent=None).encode() if body is not None \
                else b"null"
            ctype = ctype or "application/json; charset=utf-8"
        elif isinstance(body, str):
            body = body.encode()
        self.body = body
        if ctype:
            self.headers["Content-Type"] = ctype


def http_date(t):
    return email.utils.formatdate(t, usegmt=True)


def git(args, cwd=None, input=None, check=True):
    """Run git quietly; returns stdout as str (raises on failure if check)."""
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C",
                "GIT_CONFIG_NOSYSTEM": "1"})
    p = subprocess.run(["git"] + args, cwd=cwd, input=input,
                       capture_output=True, env=env)
    if check and p.returncode != 0:
        raise ApiError(500, {"message": "emulator: git %s failed: %s" %
                             (" ".join(args),
                              p.stderr.decode("utf-8", "replace").strip())})
    return p.stdout.decode("utf-8", "replace")


def paginate(req, items, default_per_page, max_per_page=100):
    """The page of items req asks for, and (page, per_page, pages)."""
    try:
        per_page = int(req.arg("per_page", default_per_page))
    except ValueError:
        per_page = default_per_page
    if per_page < 1:
        per_page = default_per_page
    per_page = min(per_page, max_per_page)
    try:
        page = int(req.arg("page", 1))
    except ValueError:
        page = 1
    page = max(page, 1)
    pages = max(1, (len(items) + per_page - 1) // per_page)
    start = (page - 1) * per_page
    return items[start:start + per_page], page, per_page, pages


def page_url(req, page):
    q = [(k, v) for k, vs in req.query.items() for v in vs if k != "page"]
    q.append(("page", str(page)))
    return "%s%s?%s" % (req.base, req.path, urllib.parse.urlencode(q))


def link_header(req, page, pages, always_first_last):
    rels = []
    if page < pages:
        rels.append(("next", page + 1))
    if page > 1:
        rels.append(("prev", page - 1))
    if always_first_last or pages > 1:
        if always_first_last or page > 1:
            rels.append(("first", 1))
        if always_first_last or page < pages:
            rels.append(("last", pages))
    return ", ".join('<%s>; rel="%s"' % (page_url(req, p), r)
                     for r, p in rels)


def etag_matches(inm, etag):
    if not inm:
        return False
    if inm.strip() == "*":
        return True
    strip = etag[2:] if etag.startswith("W/") else etag
    for tag in inm.split(","):
        tag = tag.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        if tag == strip:
            return True
    return False


def parse_diff(text):
    """Split `git diff` output into per-file dicts (path, status, hunks)."""
    files = []
    cur = None
    in_hunks = False
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            m = re.match(r"diff --git a/(.*) b/(.*)$", line)
            cur = {"old_path": m.group(1) if m else "",
                   "new_path": m.group(2) if m else "",
                   "status": "modified", "additions": 0, "deletions": 0,
                   "hunks": [], "binary": False, "a_mode": None,
                   "b_mode": None}
            files.append(cur)
            in_hunks = False
            continue
        if cur is None:
            continue
        if in_hunks or line.startswith("@@"):
            in_hunks = True
            cur["hunks"].append(line)
            if line.startswith("+"):
                cur["additions"] += 1
            elif line.startswith("-"):
                cur["deletions"] += 1
            continue
        if line.startswith("new file mode "):
            cur["status"] = "added"
            cur["b_mode"] = line.split()[-1]
            cur["a_mode"] = "0"
        elif line.startswith("deleted file mode "):
            cur["status"] = "removed"
            cur["a_mode"] = line.split()[-1]
            cur["b_mode"] = "0"
        elif line.startswith("old mode "):
            cur["a_mode"] = line.split()[-1]
        elif line.startswith("new mode "):
            cur["b_mode"] = line.split()[-1]
        elif line.startswith("rename from "):
            cur["status"] = "renamed"
            cur["old_path"] = line[len("rename from "):]
        elif line.startswith("rename to "):
            cur["new_path"] = line[len("rename to "):]
        elif line.startswith("copy from "):
            cur["status"] = "copied"
            cur["old_path"] = line[len("copy from "):]
        elif line.startswith("copy to "):
            cur["new_path"] = line[len("copy to "):]
        elif line.startswith("index "):
            parts = line.split()
            if len(parts) == 3 and cur["a_mode"] is None:
                cur["a_mode"] = cur["b_mode"] = parts[2]
        elif line.startswith("Binary files "):
            cur["binary"] = True
    for f in files:
        while f["hunks"] and f["hunks"][-1] == "":
            f["hunks"].pop()
        f["patch"] = "\n".join(f["hunks"])
        if f["a_mode"] is None:
            f["a_mode"] = f["b_mode"] = "100644"
    return files


class Emulator:
    """Forge-neutral state, control API and request plumbing.

    Subclasses set: name, api_prefix, git_pull_ref (format with n),
    default_per_page, and implement authenticate(), api_routes(),
    ratelimit_headers(), ratelimit_exhausted(), secondary_body(),
    not_found(), bad_json(), paginate_headers().
    """

    name = "forge"
    api_prefix = ""
    git_pull_ref = "refs/pull/%d/head"
    default_per_page = 30

    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.git_root = os.path.join(self.root, "git")
        os.makedirs(self.git_root, exist_ok=True)
        self.state_path = os.path.join(self.root, "state.json")
        self.lock = threading.RLock()
        self.state = {
            "next_id": 1000, "users": {}, "repos": {}, "pulls": {},
            "ratelimit": {"limit": 5000, "remaining": 5000, "used": 0,
                          "reset": int(time.time()) + 3600},
            "fails": [], "log": [],
        }
        if os.path.exists(self.state_path):
            with open(self.state_path) as f:
                self.state.update(json.load(f))
        self.routes = [(m, re.compile("^" + self.api_prefix + p + "$"), fn)
                       for m, p, fn in self.api_routes()]

    # ---- state helpers ----

    def save(self):
        if not self.state.get("persist", True):
            return
        tmp = self.state_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.state, f, indent=1, sort_keys=True)
        os.replace(tmp, self.state_path)

    def new_id(self):
        self.state["next_id"] += 1
        return self.state["next_id"]

    def repo_path(self, owner, repo):
        return os.path.join(self.git_root, owner, repo + ".git")

    def clone_url(self, base, owner, repo):
        return "%s/git/%s/%s.git" % (base, owner, repo)

    def user_by_token(self, token):
        for u in self.state["users"].values():
            if u["token"] == token:
                return u
        return None

    def get_repo(self, owner, repo):
        r = self.state["repos"].get(owner + "/" + repo)
        if r is None:
            raise self.not_found("repo")
        return r

    def get_pull(self, owner, repo, n):
        self.get_repo(owner, repo)
        pr = self.state["pulls"].get(owner + "/" + repo, {}).get(str(n))
        if pr is None:
            raise self.not_found("pull")
        return pr

    def repo_pulls(self, owner, repo):
        return list(self.state["pulls"].get(owner + "/" + repo, {}).values())

    def ensure_bare(self, owner, repo, default_branch="main"):
        path = self.repo_path(owner, repo)
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            git(["init", "-q", "--bare", "-b", default_branch, path])
            # http-backend serves only repositories marked for export or
            # all with GIT_HTTP_EXPORT_ALL; refuse pushes either way
            git(["config", "http.receivepack", "false"], cwd=path)
            git(["config", "uploadpack.allowAnySHA1InWant", "true"],
                cwd=path)
        return path

    def fetch_into(self, path, src, ref, dest_refs):
        """Fetch ref from the local repository src; point dest_refs at it."""
        git(["fetch", "-q", "--no-tags", os.path.abspath(src), ref],
            cwd=path)
        sha = git(["rev-parse", "FETCH_HEAD^{commit}"], cwd=path).strip()
        for d in dest_refs:
            git(["update-ref", d, sha], cwd=path)
        return sha

    def branch_sha(self, owner, repo, branch):
        out = git(["rev-parse", "--verify", "-q",
                   "refs/heads/%s^{commit}" % branch],
                  cwd=self.repo_path(owner, repo), check=False).strip()
        return out or None

    def merge_base(self, owner, repo, a, b):
        out = git(["merge-base", a, b], cwd=self.repo_path(owner, repo),
                  check=False).strip()
        return out or a

    def pr_commits(self, owner, repo, pr):
        """The PR's commits, oldest first, as dicts."""
        fmt = "%x1e%H%x1f%T%x1f%P%x1f%an%x1f%ae%x1f%at%x1f%aI%x1f" \
              "%cn%x1f%ce%x1f%ct%x1f%cI%x1f%B"
        out = git(["log", "--reverse", "--format=" + fmt,
                   "%s..%s" % (pr["base_sha"], pr["head_sha"])],
                  cwd=self.repo_path(owner, repo))
        commits = []
        for rec in out.split("\x1e")[1:]:
            f = rec.split("\x1f")
            # %B plus the record's own newline; GitHub drops both
            msg = f[11].rstrip("\n")
            commits.append({
                "sha": f[0], "tree": f[1], "parents": f[2].split(),
                "author_name": f[3], "author_email": f[4],
                "author_time": int(f[5]), "author_iso": f[6],
                "committer_name": f[7], "committer_email": f[8],
                "committer_time": int(f[9]), "committer_iso": f[10],
                "message": msg})
        return commits

    def pr_files(self, owner, repo, pr):
        mb = self.merge_base(owner, repo, pr["base_sha"], pr["head_sha"])
        out = git(["diff", "--no-color", "--no-ext-diff", "-M",
                   "--src-prefix=a/", "--dst-prefix=b/", mb, pr["head_sha"]],
                  cwd=self.repo_path(owner, repo))
        return parse_diff(out)

    def pr_diff(self, owner, repo, pr):
        mb = self.merge_base(owner, repo, pr["base_sha"], pr["head_sha"])
        return git(["diff", "--no-color", "--no-ext-diff", "-M",
                    "--src-prefix=a/", "--dst-prefix=b/", mb,
                    pr["head_sha"]], cwd=self.repo_path(owner, repo))

    def pr_patch(self, owner, repo, pr):
        return git(["format-patch", "--stdout", "--no-color",
                    "%s..%s" % (pr["base_sha"], pr["head_sha"])],
                   cwd=self.repo_path(owner, repo))

    def diff_hunk(self, owner, repo, pr, path, line):
        """The PR's diff of path up to new-side line `line`: the hunk
        header and its lines through that one (GitHub's diff_hunk), or
        None when the diff does not show that line."""
        for f in self.pr_files(owner, repo, pr):
            if f["new_path"] != path:
                continue
            out, new = [], None
            for h in f["hunks"]:
                if h.startswith("@@"):
                    m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)", h)
                    new = int(m.group(1)) if m else None
                    out = [h]
                    continue
                if new is None:
                    continue
                out.append(h)
                if h.startswith("-") or h.startswith("\\"):
                    continue
                if new == line:
                    return "\n".join(out)
                new += 1
        return None

    def touch(self, pr):
        pr["updated_at"] = max(time.time(), pr["updated_at"] + 0.001)

    def add_comment(self, pr, login, body, system=False, where="comments",
                    **extra):
        c = {"id": self.new_id(), "user": login, "body": body,
             "created_at": time.time(), "system": system}
        c["updated_at"] = c["created_at"]
        c.update(extra)
        pr.setdefault(where, []).append(c)
        self.touch(pr)
        return c

    def label_add(self, owner, repo, pr, names):
        r = self.get_repo(owner, repo)
        for n in names:
            if n not in r["labels"]:
                r["labels"][n] = {"id": self.new_id(), "color": "ededed",
                                  "description": None}
            if n not in pr["labels"]:
                pr["labels"].append(n)
        self.touch(pr)

    def set_state(self, pr, state):
        if pr["state"] == state:
            return False
        pr["state"] = state
        pr["closed_at"] = time.time() if state == "closed" else None
        self.touch(pr)
        return True

    # ---- the control API ----

    def control(self, req):
        bad = lambda: ApiError(400, {"error": "body is not JSON"})
        p = req.path[len("/_emu"):]
        if req.method == "GET" and p == "/log":
            return Response(200, self.state["log"])
        if req.method == "POST" and p == "/log/clear":
            self.state["log"] = []
            self.save()
            return Response(200, {"cleared": True})
        if req.method == "GET" and p == "/state":
            return Response(200, self.state)
        if req.method == "GET" and p == "/connections":
            return Response(200, {"opened": self.state.get("next_conn", 0),
                                  "dropped": self.state.get("dropped", 0)})
        if req.method != "POST":
            raise ApiError(404, {"error": "no such control endpoint"})
        j = req.json(bad)

        def need(*keys):
            for k in keys:
                if k not in j:
                    raise ApiError(400, {"error": "missing field '%s'" % k})

        if p == "/persist":
            self.state["persist"] = bool(j.get("on", True))
            return Response(200, {"persist": self.state["persist"]})
        if p == "/keepalive":
            ka = {"max": int(j.get("max", 0)), "drop": bool(j.get("drop"))}
            self.state["keepalive"] = ka
            self.save()
            return Response(200, ka)
        if p == "/users":
            need("login", "token")
            login = j["login"]
            u = self.state["users"].get(login)
            if u is None:
                u = {"id": self.new_id(), "login": login}
                self.state["users"][login] = u
            u.update({"token": j["token"], "name": j.get("name", login),
                      "email": j.get("email", login + "@example.org")})
            self.save()
            return Response(201, {"id": u["id"]})
        if p == "/repos":
            need("owner", "repo")
            branch = j.get("branch", "main")
            path = self.ensure_bare(j["owner"], j["repo"], branch)
            if j.get("from"):
                self.fetch_into(path, j["from"], j.get("ref", branch),
                                ["refs/heads/" + branch])
            git(["symbolic-ref", "HEAD", "refs/heads/" + branch], cwd=path)
            key = j["owner"] + "/" + j["repo"]
            r = self.state["repos"].get(key)
            if r is None:
                r = {"id": self.new_id(), "owner": j["owner"],
                     "repo": j["repo"], "labels": {}, "next_number": 1}
                self.state["repos"][key] = r
            r["default_branch"] = branch
            self.save()
            return Response(201, {"id": r["id"]})
        if p == "/pulls":
            need("owner", "repo", "user", "from", "ref")
            return self.control_pulls(j)
        m = re.match(r"^/pulls/([^/]+)/([^/]+)/(\d+)/push$", p)
        if m:
            need("from")
            pr = self.get_pull(m.group(1), m.group(2), int(m.group(3)))
            self.push_pull(m.group(1), m.group(2), pr, j["from"],
                           j.get("ref", pr["head_ref"]))
            self.save()
            return Response(200, {"number": pr["number"],
                                  "sha": pr["head_sha"]})
        m = re.match(r"^/pulls/([^/]+)/([^/]+)/(\d+)/delete-fork$", p)
        if m:
            # the submitter deleted the fork: the PR stays, its head ref
            # in the base repository too (GitHub: head.repo is null)
            pr = self.get_pull(m.group(1), m.group(2), int(m.group(3)))
            fork = self.repo_path(pr["head_owner"], m.group(2))
            if fork != self.repo_path(m.group(1), m.group(2)):
                shutil.rmtree(fork, ignore_errors=True)
            pr["fork_deleted"] = True
            self.save()
            return Response(200, {"number": pr["number"]})
        if p == "/comments":
            need("owner", "repo", "number", "user", "body")
            pr = self.get_pull(j["owner"], j["repo"], int(j["number"]))
            for i in range(int(j.get("count", 1))):
                c = self.add_comment(pr, j["user"], j["body"],
                                     bool(j.get("system", False)))
            self.save()
            return Response(201, {"id": c["id"]})
        if p == "/fail":
            rule = {"match": j.get("match", ""),
                    "method": j.get("method"),
                    "status": j.get("status"),
                    "headers": j.get("headers", {}),
                    "body": j.get("body"),
                    "count": int(j.get("count", 1)),
                    "delay_ms": int(j.get("delay_ms", 0))}
            try:
                re.compile(rule["match"])
            except re.error as e:
                raise ApiError(400, {"error": "bad match regex: %s" % e})
            if j.get("clear"):
                self.state["fails"] = []
            else:
                self.state["fails"].append(rule)
            self.save()
            return Response(201, {"rules": len(self.state["fails"])})
        if p == "/ratelimit":
            rl = self.state["ratelimit"]
            for k in ("limit", "remaining", "reset", "used"):
                if k in j:
                    rl[k] = int(j[k])
            if "remaining" in j and "used" not in j:
                rl["used"] = max(0, rl["limit"] - rl["remaining"])
            self.save()
            return Response(200, rl)
        extra = self.control_extra(p, j)
        if extra is not None:
            return extra
        raise ApiError(404, {"error": "no such control endpoint"})

    def control_extra(self, p, j):
        """A subclass's own control endpoints (POST); None: not one."""
        return None

    def control_pulls(self, j):
        owner, repo = j["owner"], j["repo"]
        r = self.get_repo(owner, repo)
        user = j["user"]
        if user not in self.state["users"]:
            raise ApiError(400, {"error": "unknown user '%s'" % user})
        base = j.get("base", r["default_branch"])
        if self.branch_sha(owner, repo, base) is None:
            raise ApiError(400, {"error": "no base branch '%s'" % base})
        count = int(j.get("count", 1))
        numbers = []
        for i in range(count):
            title = j.get("title", "pull %d" % r["next_number"])
            if count > 1:
                title = "%s %d" % (title, i + 1)
            pr = self.new_pull(owner, repo, user, title, j.get("body", ""),
                               user, j["ref"], base,
                               bool(j.get("draft", False)))
            n = pr["number"]
            if i == 0:
                self.push_pull(owner, repo, pr, j["from"], j["ref"])
                first = pr
            else:
                # the same head as the first: no fetch, just the ref
                pr["head_sha"] = first["head_sha"]
                pr["base_sha"] = first["base_sha"]
                git(["update-ref", self.git_pull_ref % n, pr["head_sha"]],
                    cwd=self.repo_path(owner, repo))
            for name in j.get("labels", []):
                self.label_add(owner, repo, pr, [name])
            numbers.append(n)
        self.save()
        out = {"number": numbers[0]}
        if count > 1:
            out["numbers"] = numbers
        return Response(201, out)

    def new_pull(self, owner, repo, user, title, body, head_owner, head_ref,
                 base, draft):
        """A new open pull request of owner/repo, no head yet."""
        r = self.get_repo(owner, repo)
        n = r["next_number"]
        r["next_number"] += 1
        now = time.time()
        pr = {"number": n, "id": self.new_id(), "title": title,
              "body": body, "user": user, "state": "open",
              "draft": draft, "head_ref": head_ref,
              "head_owner": head_owner, "base_ref": base, "head_sha": "",
              "base_sha": "", "labels": [], "comments": [],
              "review_comments": [], "reviews": [],
              "created_at": now, "updated_at": now, "closed_at": None,
              "merged_at": None, "pushes": 0}
        self.state["pulls"].setdefault(owner + "/" + repo, {})[str(n)] = pr
        return pr

    def open_from_branch(self, owner, repo, pr):
        """Point a new PR's head at its branch as it stands now."""
        head_path = self.repo_path(pr["head_owner"], repo)
        base_path = self.repo_path(owner, repo)
        sha = self.branch_sha(pr["head_owner"], repo, pr["head_ref"])
        if head_path != base_path:
            self.fetch_into(base_path, head_path,
                            "refs/heads/" + pr["head_ref"],
                            [self.git_pull_ref % pr["number"]])
        else:
            git(["update-ref", self.git_pull_ref % pr["number"], sha],
                cwd=base_path)
        pr["head_sha"] = sha
        pr["base_sha"] = self.branch_sha(owner, repo, pr["base_ref"]) or ""

    def open_pull_of(self, owner, repo, head_owner, head_ref):
        """The open PR of owner/repo whose head is head_owner's head_ref."""
        for pr in self.repo_pulls(owner, repo):
            if pr["state"] == "open" and pr["head_owner"] == head_owner \
                    and pr["head_ref"] == head_ref:
                return pr
        return None

    def has_commits(self, owner, repo, head_sha, base):
        """Whether head_sha has a commit that the base branch has not."""
        out = git(["rev-list", "--count", "refs/heads/%s..%s" %
                   (base, head_sha)], cwd=self.repo_path(owner, repo),
                  check=False).strip()
        return out not in ("", "0")

    def after_push(self, owner, repo):
        """A git push to owner/repo moves the heads of the PRs of its
        branches, as the forge does on every push."""
        for key, pulls in self.state["pulls"].items():
            base_owner, _, base_repo = key.partition("/")
            if base_repo != repo:
                continue
            for pr in pulls.values():
                if pr["state"] != "open" or pr["head_owner"] != owner:
                    continue
                sha = self.branch_sha(owner, repo, pr["head_ref"])
                if not sha or sha == pr["head_sha"]:
                    continue
                old = pr["head_sha"]
                self.open_from_branch(base_owner, base_repo, pr)
                pr["pushes"] += 1
                self.pushed(base_owner, base_repo, pr, old)
                self.touch(pr)
        self.save()

    def git_pusher(self, req):
        """The user whose token a push carries (HTTP basic: any user
        name, the token as password), or a 401 answer to send."""
        auth = req.headers.get("Authorization", "")
        scheme, _, cred = auth.partition(" ")
        user = None
        if scheme.lower() == "basic":
            try:
                raw = base64.b64decode(cred.strip()).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                raw = ""
            with self.lock:
                user = self.user_by_token(raw.partition(":")[2])
        if user is None:
            return Response(401, "Authentication failed\n",
                            {"WWW-Authenticate":
                             'Basic realm="%s"' % self.name},
                            ctype="text/plain")
        return user

    def push_pull(self, owner, repo, pr, src, ref):
        """New head for pr from ref of the local repository src."""
        base_path = self.repo_path(owner, repo)
        old = pr["head_sha"]
        sha = self.fetch_into(base_path, src, ref,
                              [self.git_pull_ref % pr["number"]])
        fork = self.ensure_bare(pr["head_owner"], repo)
        if fork == base_path:
            git(["update-ref", "refs/heads/" + pr["head_ref"], sha],
                cwd=base_path)
        else:
            self.fetch_into(fork, base_path, self.git_pull_ref %
                            pr["number"], ["refs/heads/" + pr["head_ref"]])
        pr["head_sha"] = sha
        pr["base_sha"] = self.branch_sha(owner, repo, pr["base_ref"]) or ""
        if old and old != sha:
            pr["pushes"] += 1
            self.pushed(owner, repo, pr, old)
        self.touch(pr)

    def pushed(self, owner, repo, pr, old):
        """Hook: a forge that notes force-pushes does it here."""

    # ---- failure rules and the rate limit ----

    def take_fail(self, req):
        """The first matching /_emu/fail rule (used up by one), or None."""
        for rule in self.state["fails"]:
            if rule["method"] and rule["method"] != req.method:
                continue
            if not re.search(rule["match"], req.raw_path):
                continue
            if rule["count"] > 0:
                rule["count"] -= 1
                if rule["count"] == 0:
                    self.state["fails"].remove(rule)
            self.save()
            return dict(rule)
        return None

    def fail_response(self, rule):
        status = rule["status"]
        headers = dict(rule["headers"])
        body = rule["body"]
        if body is None:
            body = self.secondary_body(status)
        headers.update(self.ratelimit_headers())
        return Response(status, body, headers)

    def ratelimit_tick(self):
        rl = self.state["ratelimit"]
        if time.time() >= rl["reset"]:
            rl["remaining"] = rl["limit"]
            rl["used"] = 0
            rl["reset"] = int(time.time()) + 3600

    def ratelimit_count(self):
        rl = self.state["ratelimit"]
        if rl["remaining"] > 0:
            rl["remaining"] -= 1
            rl["used"] += 1

    # ---- dispatch ----

    def api(self, req):
        with self.lock:
            self.ratelimit_tick()
            try:
                self.authenticate(req)
                if self.state["ratelimit"]["remaining"] <= 0 and \
                        not self.free_endpoint(req):
                    return self.ratelimit_exhausted(req)
                for method, rx, fn in self.routes:
                    m = rx.match(req.path)
                    if not m:
                        continue
                    if method != req.method and not (
                            method == "GET" and req.method == "HEAD"):
                        continue
                    resp = fn(req, *[urllib.parse.unquote(g)
                                     for g in m.groups()])
                    break
                else:
                    raise self.not_found("route")
            except ApiError as e:
                resp = Response(e.status, e.body, e.headers)
            if req.method in ("GET", "HEAD") and resp.status == 200:
                h = hashlib.sha1(resp.body)
                h.update((req.user or {}).get("login", "").encode())
                h.update(req.headers.get("Accept", "").encode())
                resp.headers["ETag"] = 'W/"%s"' % h.hexdigest()
                if etag_matches(req.headers.get("If-None-Match"),
                                resp.headers["ETag"]):
                    # a conditional hit is free against the primary limit
                    resp = Response(304, b"", {
                        "ETag": resp.headers["ETag"]})
                    resp.headers.update(self.ratelimit_headers())
                    return resp
            if not self.free_endpoint(req) and resp.status != 401:
                self.ratelimit_count()
            resp.headers.update(self.ratelimit_headers())
            if resp.status in (200, 201, 204) and req.method != "GET":
                self.save()
            return resp

    def free_endpoint(self, req):
        return False

    def git_cgi(self, req):
        """Serve ROOT/git through git http-backend (CGI): reads for anyone,
        pushes with a token (git_pusher)."""
        path_info = urllib.parse.unquote(req.path[len("/git"):])
        if ".." in path_info.split("/"):
            return Response(404, "Not Found\n", ctype="text/plain")
        push = "git-receive-pack" in path_info or \
            "service=git-receive-pack" in req.query_string
        pusher = self.git_pusher(req) if push else None
        if isinstance(pusher, Response):
            return pusher
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "GIT_PROJECT_ROOT": self.git_root,
               "GIT_HTTP_EXPORT_ALL": "1",
               "GIT_CONFIG_NOSYSTEM": "1",
               "HOME": self.root,
               "PATH_INFO": path_info,
               "QUERY_STRING": req.query_string,
               "REQUEST_METHOD": req.method,
               "CONTENT_TYPE": req.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(req.body)),
               "REMOTE_ADDR": "127.0.0.1",
               "SERVER_PROTOCOL": "HTTP/1.1",
               "GATEWAY_INTERFACE": "CGI/1.1"}
        for h in ("Git-Protocol", "Content-Encoding"):
            if req.headers.get(h):
                env["HTTP_" + h.upper().replace("-", "_")] = req.headers[h]
        if push:
            # a push with a valid token is taken (the repositories keep
            # http.receivepack false for everyone else)
            env.update({"REMOTE_USER": pusher["login"],
                        "GIT_CONFIG_COUNT": "1",
                        "GIT_CONFIG_KEY_0": "http.receivepack",
                        "GIT_CONFIG_VALUE_0": "true"})
        p = subprocess.run(["git", "http-backend"], input=req.body,
                           capture_output=True, env=env)
        if push and req.method == "POST" and p.returncode == 0:
            m = re.match(r"^/([^/]+)/([^/]+)\.git/git-receive-pack$",
                         path_info)
            if m:
                with self.lock:
                    self.after_push(m.group(1), m.group(2))
        out = p.stdout
        sep = out.find(b"\r\n\r\n")
        skip = 4
        if sep < 0:
            sep = out.find(b"\n\n")
            skip = 2
        if sep < 0:
            return Response(500, "git http-backend failed: %s\n" %
                            p.stderr.decode("utf-8", "replace"),
                            ctype="text/plain")
        status = 200
        headers = {}
        for line in out[:sep].decode("latin-1").splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k:
                headers[k.strip()] = v.strip()
        return Response(status, out[sep + skip:], headers)


def make_handler(emu):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = emu.name + "-emulator"
        # headers and body go out in two writes: without this, a kept
        # connection waits for the client's delayed ACK (40 ms) each time
        disable_nagle_algorithm = True

        def log_message(self, fmt, *args):
            pass

        def read_body(self):
            if self.headers.get("Transfer-Encoding", "").lower() == \
                    "chunked":
                data = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0], 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n",
                                                            b""):
                            pass
                        return data
                    data += self.rfile.read(size)
                    self.rfile.readline()
            n = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(n) if n else b""

        def kept(self):
            """Whether this connection may take one more request (the
            keepalive knob), numbering it at its first API request."""
            with emu.lock:
                if not hasattr(self, "conn"):
                    self.conn = emu.state.get("next_conn", 0) + 1
                    emu.state["next_conn"] = self.conn
                    self.answers = 0
                ka = emu.state.get("keepalive") or {}
                if not ka.get("drop") or not ka.get("max") or \
                        self.answers < ka["max"]:
                    return True
                emu.state["dropped"] = emu.state.get("dropped", 0) + 1
            # an idle connection closed as the request came: no answer
            self.close_connection = True
            return False

        def answered(self):
            self.answers += 1
            ka = emu.state.get("keepalive") or {}
            if ka.get("max") and not ka.get("drop") and \
                    self.answers >= ka["max"]:
                # closed without a "Connection: close" to warn the client
                self.close_connection = True

        def dispatch(self):
            body = self.read_body()
            req = Request(self.command, self.path, self.headers, body,
                          self.headers.get("Host", "127.0.0.1"))
            if req.path.startswith("/_emu/"):
                with emu.lock:
                    try:
                        resp = emu.control(req)
                    except ApiError as e:
                        resp = Response(e.status, e.body, e.headers)
                self.send(resp)
                return
            if not self.kept():
                return
            with emu.lock:
                rule = emu.take_fail(req)
            if rule and rule["delay_ms"]:
                time.sleep(rule["delay_ms"] / 1000.0)
            if rule and rule["status"]:
                with emu.lock:
                    resp = emu.fail_response(rule)
            elif req.path.startswith("/git/"):
                resp = emu.git_cgi(req)
            else:
                resp = emu.api(req)
            with emu.lock:
                emu.state["log"].append({
                    "method": req.method, "path": req.raw_path,
                    "status": resp.status,
                    "if_none_match": req.headers.get("If-None-Match"),
                    # so tests can check what a client sends
                    "user_agent": req.headers.get("User-Agent"),
                    "accept": req.headers.get("Accept"),
                    "api_version": req.headers.get("X-GitHub-Api-Version"),
                    "auth_scheme": req.headers.get(
                        "Authorization", "").partition(" ")[0] or None,
                    "conn": self.conn})
                emu.save()
            try:
                self.send(resp)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.answered()

        def send(self, resp):
            self.send_response(resp.status)
            for k, v in resp.headers.items():
                self.send_header(k, str(v))
            no_body = resp.status in (204, 304) or self.command == "HEAD"
            if resp.status not in (204, 304):
                self.send_header("Content-Length", str(len(resp.body)))
            self.end_headers()
            if not no_body:
                self.wfile.write(resp.body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = \
            dispatch

    return Handler


def main(emu_class, argv=None):
    ap = argparse.ArgumentParser(description="%s emulator" %
                                 emu_class.name)
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args(argv)
    os.makedirs(args.root, exist_ok=True)
    emu = emu_class(args.root)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(emu))
    server.daemon_threads = True
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(tmp, args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit("run github.py or gitlab.py")
