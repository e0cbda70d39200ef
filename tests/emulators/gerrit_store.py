"""The Gerrit emulator's state: accounts, projects, changes, events.

One JSON file (ROOT/state.json) holds everything; every process opens it
through Store.open(), which takes an flock on ROOT/state.lock (shared to
read, exclusive to write), loads the file and, for a write, saves it and
appends the events raised meanwhile to ROOT/events.jsonl before the lock
is released.  So the REST server, the ssh commands and git's hooks, each
its own process, see one consistent server.

Times are whole epoch seconds, as NoteDb stores them (REST shows
".000000000").  A change is stored once:

  {"number", "project", "branch", "change_id", "topic", "hashtags",
   "owner", "status" (NEW|MERGED|ABANDONED), "wip", "private", "created",
   "updated", "submitted", "submitter", "reviewers", "cc",
   "patch_sets": [{"number", "revision", "ref", "uploader", "created",
                   "kind", "commit": {parents, author, committer, subject,
                   message}, "insertions", "deletions", "files"}],
   "messages": [{"id", "author", "date", "message", "tag", "ps"}],
   "votes": {LABEL: {USER: {"value", "date", "ps"}}},
   "comments": [{"id", "author", "ps", "path", "line", "message",
                 "unresolved", "updated"}]}
"""

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import subprocess
import time

VERSION = "3.9.1"
ZERO = "0" * 40
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

# (username, id, full name, email, groups)
ACCOUNTS = [
    ("admin", 1000000, "Administrator", "admin@example.com",
     ["Administrators"]),
    ("alice", 1000001, "Alice Owner", "alice@example.com", []),
    ("bob", 1000002, "Bob Reviewer", "bob@example.com", []),
    ("relay", 1000003, "Patch Relay", "relay@example.com",
     ["Non-Interactive Users"]),
]

LABELS = {
    "Code-Review": {-2: "This shall not be submitted",
                    -1: "I would prefer this is not submitted as is",
                    0: "No score",
                    1: "Looks good to me, but someone else must approve",
                    2: "Looks good to me, approved"},
    "Verified": {-1: "Fails", 0: "No score", 1: "Verified"},
}
LABEL_ORDER = ["Code-Review", "Verified"]

# what each user may vote: label -> (min, max)
RANGES = {
    "admin": {"Code-Review": (-2, 2), "Verified": (-1, 1)},
    "alice": {"Code-Review": (-1, 1)},
    "bob": {"Code-Review": (-2, 2)},
    "relay": {"Code-Review": (-1, 1), "Verified": (-1, 1)},
}

# Code-Review survives a new patch set of these kinds (copyCondition)
STICKY_KINDS = ("TRIVIAL_REBASE", "NO_CODE_CHANGE", "NO_CHANGE")


class Error(Exception):
    """A refusal: status is the REST status; text is Gerrit's message."""

    def __init__(self, status, text):
        super().__init__(text)
        self.status = status
        self.text = text


def now():
    return int(time.time())


def git(args, cwd, input=None, check=True, env=None):
    """Run git; stdout as str.  Raises Error(500) on failure if check."""
    e = dict(os.environ)
    for k in list(e):
        # inside a hook git passes its own GIT_DIR and friends; the
        # proc-receive hook runs after the quarantine is migrated
        if k.startswith("GIT_"):
            del e[k]
    e.update({"LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1",
              "GIT_TERMINAL_PROMPT": "0"})
    if env:
        e.update(env)
    p = subprocess.run(["git"] + args, cwd=cwd, input=input,
                       capture_output=True, env=e)
    if check and p.returncode != 0:
        raise Error(500, "git %s: %s" % (" ".join(args),
                                         p.stderr.decode("utf-8", "replace")))
    return p.stdout.decode("utf-8", "replace")


def change_ref(number, ps):
    return "refs/changes/%02d/%d/%d" % (number % 100, number, ps)


def footer_change_ids(message):
    """The Change-Id footer values of message's last paragraph (JGit's
    getFooterLines: the last block of `Key: value` lines)."""
    lines = message.rstrip("\n").split("\n")
    block = []
    for line in reversed(lines):
        if not line.strip():
            break
        block.append(line)
    if len(block) == len(lines):
        # the subject alone is not a footer
        block = block[:-1]
    ids = []
    for line in reversed(block):
        key, sep, val = line.partition(":")
        if sep and key.lower() == "change-id":
            ids.append(val.strip())
    return ids


def subject_of(message):
    """JGit's getShortMessage: the first paragraph on one line."""
    para = message.lstrip("\n").split("\n\n", 1)[0]
    return " ".join(para.strip().split("\n")).strip()


class Store:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.state_path = os.path.join(self.root, "state.json")
        self.lock_path = os.path.join(self.root, "state.lock")
        self.events_path = os.path.join(self.root, "events.jsonl")
        self.git_root = os.path.join(self.root, "git")
        self.here = os.path.dirname(os.path.abspath(__file__))

    @contextlib.contextmanager
    def open(self, write=False):
        os.makedirs(self.root, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if write else fcntl.LOCK_SH)
            st = State(self, self.load())
            yield st
            if write:
                st.commit()
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def load(self):
        try:
            with open(self.state_path) as f:
                return json.load(f)
        except FileNotFoundError:
            return fresh_state()

    def events_size(self):
        try:
            return os.path.getsize(self.events_path)
        except FileNotFoundError:
            return 0


def fresh_state():
    accounts = {}
    for user, aid, name, email, groups in ACCOUNTS:
        accounts[user] = {"username": user, "id": aid, "name": name,
                          "email": email, "groups": groups,
                          "http_password": secrets.token_urlsafe(18),
                          "registered": now()}
    return {"accounts": accounts, "projects": {}, "changes": {},
            "next_change": 1, "event_seq": 0, "message_seq": 0,
            "fails": [], "cut": {"gen": 0, "at": 0, "mode": "drop"},
            "server": {"rest_url": "http://127.0.0.1", "ssh_port": 29418}}


class State:
    """The loaded state under the lock, with the model's operations."""

    def __init__(self, store, data):
        self.store = store
        self.d = data
        self.pending = []

    # ---- persistence and events ----

    def commit(self):
        tmp = self.store.state_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.d, f, indent=1, sort_keys=True)
        os.replace(tmp, self.store.state_path)
        if self.pending:
            with open(self.store.events_path, "a") as f:
                for rec in self.pending:
                    f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            self.pending = []

    def emit(self, event, change=None):
        """Queue a stream event; a private change's events reach only
        those who may see it."""
        self.d["event_seq"] += 1
        rec = {"seq": self.d["event_seq"], "event": event}
        if change is not None and change["private"]:
            rec["to"] = sorted(set([change["owner"]] + change["reviewers"] +
                                   change["cc"]))
        self.pending.append(rec)
        return rec["seq"]

    # ---- accounts ----

    def account(self, key):
        """An account by username, email, id or full name; None if none."""
        if key is None:
            return None
        a = self.d["accounts"].get(key)
        if a:
            return a
        for a in self.d["accounts"].values():
            if key in (a["email"], str(a["id"]), a["name"]):
                return a
        return None

    def need_account(self, key):
        a = self.account(key)
        if a is None:
            raise Error(400, "Account '%s' not found" % key)
        return a

    def is_admin(self, user):
        return "Administrators" in self.d["accounts"][user]["groups"]

    def may_stream(self, user):
        g = self.d["accounts"][user]["groups"]
        return "Administrators" in g or "Non-Interactive Users" in g

    # ---- projects ----

    def repo(self, project):
        return os.path.join(self.store.git_root, project + ".git")

    def project(self, name):
        return self.d["projects"].get(name)

    def create_project(self, name, src=None, branch="master", user="admin"):
        if not name or name.startswith("/") or ".." in name.split("/") or \
                name.endswith(".git"):
            raise Error(400, "invalid project name: %s" % name)
        if name in self.d["projects"]:
            raise Error(409, "Project already exists")
        path = self.repo(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        git(["init", "-q", "--bare", "-b", branch, path], cwd=self.store.root)
        for k, v in (("receive.procReceiveRefs", "refs/"),
                     ("receive.advertisePushOptions", "true"),
                     ("uploadpack.allowReachableSHA1InWant", "true"),
                     ("uploadpack.allowTipSHA1InWant", "true"),
                     ("core.logAllRefUpdates", "false"),
                     ("gc.auto", "0")):
            git(["config", k, v], cwd=path)
        hook = os.path.join(path, "hooks", "proc-receive")
        with open(hook, "w") as f:
            f.write("#!/bin/sh\nexec /usr/bin/python3 %s hook proc-receive "
                    "--root %s\n" % (os.path.join(self.store.here,
                                                  "gerrit.py"),
                                     self.store.root))
        os.chmod(hook, 0o755)
        acc = self.d["accounts"][user]
        if src:
            git(["fetch", "-q", "--no-tags", os.path.abspath(src),
                 "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"],
                cwd=path)
            if not git(["rev-parse", "-q", "--verify",
                        "refs/heads/" + branch], cwd=path, check=False):
                raise Error(400, "'%s' has no branch %s" % (src, branch))
        else:
            ident = {"GIT_AUTHOR_NAME": acc["name"],
                     "GIT_AUTHOR_EMAIL": acc["email"],
                     "GIT_COMMITTER_NAME": "Gerrit Code Review",
                     "GIT_COMMITTER_EMAIL": "gerrit@example.com"}
            sha = git(["commit-tree", EMPTY_TREE, "-m",
                       "Initial empty repository"], cwd=path,
                      env=ident).strip()
            git(["update-ref", "refs/heads/" + branch, sha], cwd=path)
        self.d["projects"][name] = {"name": name, "created": now(),
                                    "head": "refs/heads/" + branch}
        self.emit({"type": "project-created", "projectName": name,
                   "projectHead": "refs/heads/" + branch,
                   "eventCreatedOn": now()})
        return self.d["projects"][name]

    def branch_tip(self, project, branch):
        out = git(["rev-parse", "-q", "--verify",
                   "refs/heads/%s^{commit}" % branch],
                  cwd=self.repo(project), check=False).strip()
        return out or None

    # ---- changes ----

    def changes(self):
        return self.d["changes"].values()

    def change(self, number):
        return self.d["changes"].get(str(number))

    def url(self, c):
        return "%s/c/%s/+/%d" % (self.d["server"]["rest_url"], c["project"],
                                 c["number"])

    def visible(self, c, user):
        """May user (None: anonymous) see change c?"""
        if not c["private"]:
            return True
        if user is None:
            return False
        return user == c["owner"] or user in c["reviewers"] or \
            user in c["cc"] or self.is_admin(user)

    def resolve(self, ident, user):
        """A change by any REST id form; Error(404) when none or hidden."""
        from urllib.parse import unquote
        raw = ident
        ident = unquote(ident)
        found = []
        parts = ident.split("~")
        if ident.isdigit():
            found = [self.change(int(ident))]
        elif len(parts) == 2 and parts[1].isdigit():
            c = self.change(int(parts[1]))
            found = [c] if c and c["project"] == parts[0] else []
        elif len(parts) == 3:
            br = parts[1]
            if br.startswith("refs/heads/"):
                br = br[len("refs/heads/"):]
            found = [c for c in self.changes()
                     if c["project"] == parts[0] and c["branch"] == br and
                     c["change_id"] == parts[2]]
        elif ident.startswith("I"):
            found = [c for c in self.changes() if c["change_id"] == ident]
        found = [c for c in found if c and self.visible(c, user)]
        if len(found) != 1:
            if len(found) > 1:
                raise Error(404, "Multiple changes found for %s" % raw)
            raise Error(404, "Not found: %s" % raw)
        return found[0]

    def patch_set(self, c, rev):
        """A patch set of c by 'current', number or (abbreviated) sha."""
        if rev in ("current", "0"):
            return c["patch_sets"][-1]
        if rev.isdigit() and len(rev) < 5:
            n = int(rev)
            if 1 <= n <= len(c["patch_sets"]):
                return c["patch_sets"][n - 1]
        elif len(rev) >= 4:
            hits = [p for p in c["patch_sets"]
                    if p["revision"].startswith(rev.lower())]
            if len(hits) == 1:
                return hits[0]
        raise Error(404, "Not found: %s" % rev)

    def by_change_id(self, project, branch, change_id):
        for c in self.changes():
            if c["project"] == project and c["branch"] == branch and \
                    c["change_id"] == change_id:
                return c
        return None

    def commit_info(self, project, sha):
        """What the REST API and the events need of a commit."""
        path = self.repo(project)
        fmt = "%H%x00%P%x00%an%x00%ae%x00%at%x00%ai%x00%cn%x00%ce%x00" \
              "%ct%x00%ci%x00%T%x00%B"
        f = git(["log", "-1", "--no-show-signature", "--format=" + fmt, sha],
                cwd=path).split("\x00")
        message = f[11]
        if message.endswith("\n\n"):
            message = message[:-1]

        def tz(iso):
            off = iso.split()[-1]
            m = int(off[1:3]) * 60 + int(off[3:5])
            return -m if off[0] == "-" else m
        parents = f[1].split()
        info = {"commit": f[0], "parents": parents, "tree": f[10],
                "author": {"name": f[2], "email": f[3], "date": int(f[4]),
                           "tz": tz(f[5])},
                "committer": {"name": f[6], "email": f[7], "date": int(f[8]),
                              "tz": tz(f[9])},
                "subject": subject_of(message), "message": message}
        base = parents[0] if parents else EMPTY_TREE
        files = []
        ins = dels = 0
        out = git(["diff", "--numstat", "-M", "--no-renames", base, sha],
                  cwd=path)
        for line in out.splitlines():
            a, d, name = line.split("\t", 2)
            a = int(a) if a != "-" else 0
            d = int(d) if d != "-" else 0
            ins += a
            dels += d
            files.append({"path": name, "insertions": a, "deletions": d})
        status = git(["diff", "--name-status", "--no-renames", base, sha],
                     cwd=path)
        kinds = {}
        for line in status.splitlines():
            k, _, name = line.partition("\t")
            kinds[name] = k[0]
        for fl in files:
            fl["status"] = kinds.get(fl["path"], "M")
        return info, ins, dels, files

    def change_kind(self, project, old, new):
        """Gerrit's ChangeKind of new against the previous patch set."""
        o, n = old["commit"], new
        if o["tree"] == n["tree"] and o["parents"] == n["parents"]:
            return "NO_CHANGE" if o["message"] == n["message"] \
                else "NO_CODE_CHANGE"
        if o["message"] == n["message"] and len(n["parents"]) == 1:
            if self.patch_id(project, old["revision"]) == \
                    self.patch_id(project, n["commit"]):
                return "TRIVIAL_REBASE"
        return "REWORK"

    def patch_id(self, project, sha):
        path = self.repo(project)
        diff = git(["diff-tree", "-p", "--root", sha], cwd=path)
        out = git(["patch-id", "--stable"], cwd=path, input=diff.encode())
        return out.split()[0] if out.strip() else ""

    def new_message(self, c, user, text, tag, ps):
        self.d["message_seq"] += 1
        mid = hashlib.sha1(("%d/%d" % (c["number"], self.d["message_seq"]))
                           .encode()).hexdigest()
        m = {"id": mid, "author": user, "date": now(), "message": text,
             "tag": tag, "ps": ps}
        c["messages"].append(m)
        return m

    def touch(self, c):
        c["updated"] = max(now(), c["updated"])

    def add_patch_set(self, c, sha, uploader, note=None):
        """A new patch set (sha already in the repository, its ref not yet
        made); returns it.  Emits patchset-created."""
        info, ins, dels, files = self.commit_info(c["project"], sha)
        n = len(c["patch_sets"]) + 1
        kind = "REWORK"
        if c["patch_sets"]:
            kind = self.change_kind(c["project"], c["patch_sets"][-1], info)
        ps = {"number": n, "revision": sha, "ref": change_ref(c["number"], n),
              "uploader": uploader, "created": now(), "kind": kind,
              "commit": info, "insertions": ins, "deletions": dels,
              "files": files}
        git(["update-ref", ps["ref"], sha], cwd=self.repo(c["project"]))
        c["patch_sets"].append(ps)
        # votes: only Code-Review survives, and only a trivial new patch set
        for label, votes in c["votes"].items():
            for v in votes.values():
                if v["ps"] == n - 1 and (label == "Code-Review" and
                                         kind in STICKY_KINDS):
                    v["ps"] = n
        text = "Uploaded patch set %d." % n
        if note:
            text += "\n\n" + note
        tag = "autogenerated:gerrit:newWipPatchSet" if c["wip"] else \
            "autogenerated:gerrit:newPatchSet"
        self.new_message(c, uploader, text, tag, n)
        self.touch(c)
        return ps

    def create_change(self, project, branch, sha, uploader, change_id,
                      topic=None, wip=False, private=False, note=None):
        number = self.d["next_change"]
        self.d["next_change"] += 1
        t = now()
        c = {"number": number, "project": project, "branch": branch,
             "change_id": change_id, "topic": topic or None, "hashtags": [],
             "owner": uploader, "status": "NEW", "wip": bool(wip),
             "private": bool(private), "created": t, "updated": t,
             "submitted": None, "submitter": None, "reviewers": [],
             "cc": [], "patch_sets": [], "messages": [], "votes": {},
             "comments": [], "review_started": not wip}
        self.d["changes"][str(number)] = c
        self.add_patch_set(c, sha, uploader, note)
        return c

    def current(self, c):
        return c["patch_sets"][-1]

    def current_votes(self, c):
        """{label: {user: value}} of the current patch set (no zeros)."""
        n = len(c["patch_sets"])
        out = {}
        for label, votes in c["votes"].items():
            for user, v in votes.items():
                if v["ps"] == n and v["value"] != 0:
                    out.setdefault(label, {})[user] = v
        return out

    # ---- events ----

    def event_account(self, user):
        a = self.d["accounts"][user]
        return {"name": a["name"], "email": a["email"],
                "username": a["username"]}

    def change_attr(self, c, commit_message=True):
        ps = self.current(c)
        a = {"project": c["project"], "branch": c["branch"],
             "id": c["change_id"], "number": c["number"],
             "subject": ps["commit"]["subject"],
             "owner": self.event_account(c["owner"]), "url": self.url(c),
             "createdOn": c["created"], "status": c["status"]}
        if c["topic"]:
            a["topic"] = c["topic"]
        if c["hashtags"]:
            a["hashtags"] = list(c["hashtags"])
        if commit_message:
            a["commitMessage"] = ps["commit"]["message"]
        if c["wip"]:
            a["wip"] = True
        if c["private"]:
            a["private"] = True
        return a

    def patch_set_attr(self, c, ps, approvals=False, files=False):
        cm = ps["commit"]["author"]
        a = {"number": ps["number"], "revision": ps["revision"],
             "parents": list(ps["commit"]["parents"]), "ref": ps["ref"],
             "uploader": self.event_account(ps["uploader"]),
             "createdOn": ps["created"],
             "author": {"name": cm["name"], "email": cm["email"]},
             "kind": ps["kind"], "sizeInsertions": ps["insertions"],
             "sizeDeletions": -ps["deletions"]}
        acc = self.account(cm["email"])
        if acc:
            a["author"]["username"] = acc["username"]
        if approvals:
            lst = []
            for label in LABEL_ORDER:
                for user, v in sorted(c["votes"].get(label, {}).items()):
                    if v["ps"] == ps["number"] and v["value"] != 0:
                        lst.append({"type": label, "description": label,
                                    "value": str(v["value"]),
                                    "grantedOn": v["date"],
                                    "by": self.event_account(user)})
            if lst:
                a["approvals"] = lst
        if files:
            a["files"] = [{"file": "/COMMIT_MSG", "type": "ADDED",
                           "insertions": len(ps["commit"]["message"]
                                             .splitlines()) + 6,
                           "deletions": 0}]
            kinds = {"A": "ADDED", "D": "DELETED", "M": "MODIFIED",
                     "T": "MODIFIED"}
            for f in ps["files"]:
                a["files"].append({"file": f["path"],
                                   "type": kinds.get(f["status"], "MODIFIED"),
                                   "insertions": f["insertions"],
                                   "deletions": -f["deletions"]})
        return a

    def change_event(self, etype, c, ps=None, **extra):
        ev = {"type": etype}
        ev.update(extra)
        ev["change"] = self.change_attr(c)
        if ps is not None:
            ev["patchSet"] = self.patch_set_attr(c, ps)
        ev["project"] = c["project"]
        ev["refName"] = "refs/heads/" + c["branch"]
        ev["changeKey"] = {"key": c["change_id"]}
        ev["eventCreatedOn"] = now()
        return self.emit(ev, c)

    def ref_updated(self, project, ref, old, new, user):
        self.emit({"type": "ref-updated",
                   "submitter": self.event_account(user),
                   "refUpdate": {"oldRev": old or ZERO, "newRev": new or ZERO,
                                 "refName": ref, "project": project},
                   "eventCreatedOn": now()})

    # ---- model operations shared by REST, ssh and the knobs ----

    def is_ancestor(self, project, a, b):
        p = subprocess.run(["git", "merge-base", "--is-ancestor", a, b],
                           cwd=self.repo(project), capture_output=True,
                           env={"PATH": os.environ.get("PATH", "/usr/bin"),
                                "GIT_CONFIG_NOSYSTEM": "1"})
        return p.returncode == 0

    def add_reviewer(self, c, who, by, cc=False, event=True):
        into = c["cc"] if cc else c["reviewers"]
        if who in into or who == c["owner"]:
            return
        if not cc and who in c["cc"]:
            c["cc"].remove(who)
        into.append(who)
        self.touch(c)
        if event and not cc:
            self.change_event("reviewer-added", c, self.current(c),
                              reviewer=self.event_account(who),
                              adder=self.event_account(by))

    def review(self, c, ps, user, message="", labels=None, tag=None,
               comments=None, strict=True, ready=None, wip=None):
        """PostReview: votes, a change message and inline comments by
        user on patch set ps.  Returns the labels applied ({name: value}).
        Raises Error as Gerrit answers; with strict=False (ssh without
        --strict-labels) bad votes are dropped."""
        labels = dict(labels or {})
        applied = {}
        for name, value in labels.items():
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise Error(400, 'label "%s": %s is not a valid value' %
                            (name, value))
            if name not in LABELS:
                if strict:
                    raise Error(400, 'label "%s" is not a configured label'
                                % name)
                continue
            if value not in LABELS[name]:
                if strict:
                    raise Error(400, 'label "%s": %d is not a valid value'
                                % (name, value))
                continue
            lo, hi = RANGES.get(user, {}).get(name, (0, 0))
            if not lo <= value <= hi:
                if strict:
                    raise Error(403, 'Applying label "%s": %d is restricted'
                                % (name, value))
                continue
            applied[name] = value
        if applied and c["status"] != "NEW":
            raise Error(409, "change is closed")
        if applied and ps["number"] != len(c["patch_sets"]):
            raise Error(409, "not permitted to vote on outdated patch set")
        t = now()
        changed = []
        approvals = []
        for name in LABEL_ORDER:
            votes = c["votes"].setdefault(name, {})
            old = votes.get(user)
            oldv = old["value"] if old and old["ps"] == ps["number"] else 0
            if name in applied:
                if applied[name] != oldv:
                    changed.append((name, applied[name]))
                votes[user] = {"value": applied[name], "date": t,
                               "ps": ps["number"]}
            if name in applied or (old and old["ps"] == ps["number"]):
                a = {"type": name, "description": name,
                     "value": str(votes[user]["value"])}
                if name in applied and applied[name] != oldv:
                    a["oldValue"] = str(oldv)
                approvals.append(a)
        ncomments = 0
        for path, lst in sorted((comments or {}).items()):
            for cm in lst:
                self.d["message_seq"] += 1
                c["comments"].append({
                    "id": "%08x_%08x" % (c["number"], self.d["message_seq"]),
                    "author": user, "ps": ps["number"], "path": path,
                    "line": cm.get("line"), "message": cm.get("message", ""),
                    "unresolved": bool(cm.get("unresolved", False)),
                    "updated": t})
                ncomments += 1
        if ready and c["wip"] or wip and not c["wip"]:
            c["wip"] = not c["wip"]
            c["review_started"] = c["review_started"] or not c["wip"]
            self.change_event("wip-state-changed", c, ps,
                              changer=self.event_account(user))
        if not changed and not message and not ncomments:
            return applied
        text = "Patch Set %d:" % ps["number"]
        for name, value in changed:
            text += " -%s" % name if value == 0 else \
                " %s%+d" % (name, value)
        if ncomments:
            text += "\n\n(%d comment%s)" % (ncomments,
                                           "" if ncomments == 1 else "s")
        if message:
            text += "\n\n" + message
        self.new_message(c, user, text, tag, ps["number"])
        if applied and user != c["owner"]:
            # a voter becomes a reviewer, without an event of its own
            self.add_reviewer(c, user, user, event=False)
        self.touch(c)
        ev = {"author": self.event_account(user), "comment": text}
        if approvals:
            ev["approvals"] = approvals
        self.change_event("comment-added", c, ps, **ev)
        return applied

    def merged(self, c, user, new_rev, text="Change has been successfully "
               "merged"):
        """c became part of its branch (a submit or a direct push)."""
        c["status"] = "MERGED"
        c["submitted"] = now()
        c["submitter"] = user
        self.new_message(c, user, text, "autogenerated:gerrit:merged",
                         len(c["patch_sets"]))
        self.touch(c)
        self.change_event("change-merged", c, self.current(c),
                          submitter=self.event_account(user), newRev=new_rev)

    def submit(self, c, user):
        """Submit c and the open changes it depends on (MERGE_IF_NECESSARY):
        a fast-forward when the branch tip is an ancestor, else a merge
        commit.  Raises Error(409) as Gerrit does."""
        if c["status"] != "NEW":
            raise Error(409, "change is %s" % c["status"].lower())
        if c["wip"]:
            raise Error(409, "Change %d is work in progress" % c["number"])
        path = self.repo(c["project"])
        ref = "refs/heads/" + c["branch"]
        tip = self.branch_tip(c["project"], c["branch"])
        head = self.current(c)["revision"]
        chain = [x for x in self.changes()
                 if x["project"] == c["project"] and
                 x["branch"] == c["branch"] and x["status"] == "NEW" and
                 x is not c and
                 self.is_ancestor(c["project"], self.current(x)["revision"],
                                  head) and
                 not self.is_ancestor(c["project"],
                                      self.current(x)["revision"], tip)]
        if tip and self.is_ancestor(c["project"], tip, head):
            new = head
        else:
            out = subprocess.run(["git", "merge-tree", "--write-tree", tip,
                                  head], cwd=path, capture_output=True)
            if out.returncode != 0:
                raise Error(409, "Failed to submit 1 change due to the "
                            "following problems:\nChange %d: Change could "
                            "not be merged due to a path conflict. Please "
                            "rebase the change locally and upload the "
                            "rebased commit for review." % c["number"])
            tree = out.stdout.decode().split()[0]
            a = self.d["accounts"][user]
            new = git(["commit-tree", tree, "-p", tip, "-p", head, "-m",
                       'Merge "%s"' % self.current(c)["commit"]["subject"]],
                      cwd=path, env={"GIT_AUTHOR_NAME": a["name"],
                                     "GIT_AUTHOR_EMAIL": a["email"],
                                     "GIT_COMMITTER_NAME": "Gerrit Code "
                                     "Review",
                                     "GIT_COMMITTER_EMAIL":
                                     "gerrit@example.com"}).strip()
        git(["update-ref", ref, new] + ([tip] if tip else []), cwd=path)
        chain.sort(key=lambda x: x["number"])
        for x in chain + [c]:
            self.merged(x, user, new)
        self.ref_updated(c["project"], ref, tip, new, user)
        return new

    # abandon and restore: (status before, after, message, tag, event, actor)
    MOVES = {"abandon": ("NEW", "ABANDONED", "Abandoned", "abandon",
                         "change-abandoned", "abandoner"),
             "restore": ("ABANDONED", "NEW", "Restored", "restore",
                         "change-restored", "restorer")}

    def move(self, c, what, user, reason=""):
        """Abandon or restore c; 409 "change is ..." when it cannot."""
        before, after, text, tag, event, actor = self.MOVES[what]
        if c["status"] != before:
            raise Error(409, "change is %s" % c["status"].lower())
        c["status"] = after
        self.new_message(c, user, text + ("\n\n" + reason if reason else ""),
                         "autogenerated:gerrit:" + tag, len(c["patch_sets"]))
        self.touch(c)
        self.change_event(event, c, self.current(c),
                          **{actor: self.event_account(user),
                             "reason": reason})

    def set_topic(self, c, user, topic):
        old = c["topic"] or ""
        if (topic or "") == old:
            return
        c["topic"] = topic or None
        text = "Topic set to %s" % topic if topic and not old else \
            "Topic changed from %s to %s" % (old, topic) if topic else \
            "Topic %s removed" % old
        self.new_message(c, user, text, "autogenerated:gerrit:setTopic",
                         len(c["patch_sets"]))
        self.touch(c)
        self.change_event("topic-changed", c, None,
                          changer=self.event_account(user), oldTopic=old)
