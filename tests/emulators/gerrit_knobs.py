"""The Gerrit emulator's knobs: `gerrit.py ctl --root DIR KNOB key=value...`
or `POST /__emu/KNOB` with a JSON object; both answer a JSON object.
README.md (Gerrit, Knobs) lists them."""

import json
import os
import re
import signal
import sys
import tempfile
import time

from gerrit_rest import Response
from gerrit_store import Error, Store, git, now


def cli(root, knob, args):
    params = {}
    for a in args:
        k, sep, v = a.partition("=")
        if not sep:
            sys.exit("gerrit.py ctl: '%s' is not key=value" % a)
        if k in params:
            if not isinstance(params[k], list):
                params[k] = [params[k]]
            params[k].append(v)
        else:
            params[k] = v
    try:
        result = run(Store(root), knob, params)
    except Error as e:
        sys.stderr.write("gerrit.py ctl %s: %s\n" % (knob, e.text))
        return 1
    print(json.dumps(result, indent=1, sort_keys=True))
    return 0


def http(store, req):
    knob = req.path[len("/__emu/"):]
    try:
        params = json.loads(req.body.decode() or "{}")
        if not isinstance(params, dict):
            raise ValueError("not an object")
    except ValueError as e:
        return Response(400, json.dumps({"error": str(e)}),
                        "application/json")
    try:
        result = run(store, knob, params)
    except Error as e:
        return Response(e.status, json.dumps({"error": e.text}),
                        "application/json")
    return Response(200, json.dumps(result), "application/json")


def run(store, knob, p):
    fn = KNOBS.get(knob)
    if fn is None:
        raise Error(404, "no knob '%s' (knobs: %s)" % (knob,
                                                       " ".join(KNOBS)))
    return fn(store, p)


def listed(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def need(p, *keys):
    for k in keys:
        if p.get(k) in (None, ""):
            raise Error(400, "missing '%s'" % k)


def parse_label(lv):
    """NAME=VALUE, NAME+N or NAME-N (LabelVote.parse)."""
    m = re.match(r"^([A-Za-z0-9-]+?)(?:=([+-]?\d+)|([+-]\d+))$", lv)
    if not m:
        raise Error(400, "invalid label vote '%s'" % lv)
    return m.group(1), int(m.group(2) or m.group(3))


def find_change(st, p):
    need(p, "change")
    return st.resolve(str(p["change"]), "admin")


def user_of(st, p, default):
    u = p.get("user") or default
    if st.account(u) is None or st.account(u)["username"] != u:
        raise Error(400, "no user '%s'" % u)
    return u


# ---- knobs ----

def create_project(store, p):
    need(p, "name")
    with store.open(write=True) as st:
        proj = st.create_project(p["name"], p.get("from"),
                                 p.get("branch", "master"))
    return {"project": proj["name"],
            "repository": os.path.join(store.git_root, p["name"] + ".git")}


def fail(store, p):
    need(p, "status")
    rule = {"status": int(p["status"]), "count": int(p.get("count", 1)),
            "match": p.get("match", ""), "retry_after": p.get("retry_after"),
            "body": p.get("body")}
    try:
        re.compile(rule["match"])
    except re.error as e:
        raise Error(400, "bad match: %s" % e)
    with store.open(write=True) as st:
        st.d["fails"].append(rule)
        return {"rules": len(st.d["fails"])}


def drop_push(store, p):
    with store.open(write=True) as st:
        st.d["drop_pushes"] = int(p.get("count", 1))
    return {"drop_pushes": st.d["drop_pushes"]}


def stall_push(store, p):
    with store.open(write=True) as st:
        st.d["stall_pushes"] = int(p.get("count", 1))
    return {"stall_pushes": st.d["stall_pushes"]}


def fail_clear(store, p):
    with store.open(write=True) as st:
        st.d["fails"] = []
    return {"rules": 0}


def cut_streams(store, p):
    mode = p.get("mode", "drop")
    if mode not in ("drop", "eof", "stall"):
        raise Error(400, "mode is drop, eof or stall")
    with store.open(write=True) as st:
        path = os.path.join(store.root, "cut.json")
        try:
            with open(path) as f:
                gen = json.load(f)["gen"]
        except (OSError, ValueError):
            gen = 0
        cut = {"gen": gen + 1, "at": st.d["event_seq"] +
               int(p.get("after", 0)), "mode": mode}
        with open(path + ".tmp", "w") as f:
            json.dump(cut, f)
        os.replace(path + ".tmp", path)
    return {"cut": cut, "streams": len(sessions(store, streams=True))}


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except (OSError, TypeError):
        return None


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def sessions(store, streams=False):
    """The registered ssh sessions still alive: the pid must still be the
    emulator (a reused pid is not ours) and the sshd pid still sshd."""
    d = os.path.join(store.root, "sessions")
    out = []
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(d, name)) as f:
                s = json.load(f)
        except (OSError, ValueError):
            continue
        if "gerrit.py" not in cmdline(s["pid"]):
            try:
                os.unlink(os.path.join(d, name))
            except OSError:
                pass
            continue
        if comm(s.get("sshd")) != "sshd":
            s["sshd"] = None
        if streams and not s.get("stream"):
            continue
        out.append(s)
    return out


def list_streams(store, p):
    return {"streams": [{"pid": s["pid"], "user": s["user"],
                         "since": s["since"]}
                        for s in sessions(store, streams=True)]}


def wait_streams(store, p):
    want = int(p.get("count", 1))
    deadline = time.time() + float(p.get("timeout", 10))
    while True:
        got = sessions(store, streams=True)
        if len(got) >= want:
            return {"streams": len(got)}
        if time.time() > deadline:
            raise Error(408, "%d stream(s) open, waited for %d" %
                        (len(got), want))
        time.sleep(0.05)


def end_sessions(store, p):
    n = 0
    for s in sessions(store):
        for pid in (s.get("sshd"), s["pid"]):
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                    n += 1
                except OSError:
                    pass
    return {"killed": n}


def dropped_output(store, p):
    with store.open(write=True) as st:
        seq = st.emit({"type": "dropped-output", "eventCreatedOn": now()})
    return {"seq": seq}


def review(store, p):
    with store.open(write=True) as st:
        c = find_change(st, p)
        user = user_of(st, p, None)
        ps = st.patch_set(c, str(p.get("ps", "current")))
        labels = {}
        for lv in listed(p.get("label")):
            name, v = parse_label(lv)
            labels[name] = v
        applied = st.review(c, ps, user, p.get("message", ""), labels,
                            p.get("tag"))
        return {"change": c["number"], "labels": applied}


def patchset(store, p):
    out = []
    for _ in range(int(p.get("count", 1))):
        with store.open(write=True) as st:
            c = find_change(st, p)
            if c["status"] != "NEW":
                raise Error(409, "change %d is closed" % c["number"])
            user = user_of(st, p, c["owner"])
            sha = new_commit(st, c, user, p.get("message"),
                             str(p.get("rebase", "0")) in ("1", "true"))
            ps = st.add_patch_set(c, sha, user)
            st.change_event("patchset-created", c, ps,
                            uploader=st.event_account(user))
            out.append({"change": c["number"], "patch_set": ps["number"],
                        "revision": sha, "kind": ps["kind"]})
    return out[-1] if len(out) == 1 else {"patch_sets": out}


def new_commit(st, c, user, message, rebase):
    """A commit for the next patch set of c, made with plumbing in the
    bare repository through a scratch index."""
    path = st.repo(c["project"])
    cur = st.current(c)
    cm = cur["commit"]
    parents = list(cm["parents"])
    acc = st.d["accounts"][user]
    env = {"GIT_AUTHOR_NAME": cm["author"]["name"],
           "GIT_AUTHOR_EMAIL": cm["author"]["email"],
           "GIT_AUTHOR_DATE": "%d %s%02d%02d" % (
               cm["author"]["date"], "-" if cm["author"]["tz"] < 0 else "+",
               abs(cm["author"]["tz"]) // 60, abs(cm["author"]["tz"]) % 60),
           "GIT_COMMITTER_NAME": acc["name"],
           "GIT_COMMITTER_EMAIL": acc["email"]}
    fd, index = tempfile.mkstemp(prefix="index.", dir=path)
    os.close(fd)
    os.unlink(index)
    ienv = dict(env, GIT_INDEX_FILE=index)
    try:
        if rebase:
            tip = rebase_target(st, c)
            git(["read-tree", tip], cwd=path, env=ienv)
            diff = git(["diff-tree", "-p", "--binary", parents[0],
                        cur["revision"]], cwd=path)
            if diff.strip():
                git(["apply", "--cached"], cwd=path, env=ienv,
                    input=diff.encode())
            parents = [tip]
            tree = git(["write-tree"], cwd=path, env=ienv).strip()
        elif message is not None:
            tree = cm["tree"]
        else:
            git(["read-tree", cur["revision"]], cwd=path, env=ienv)
            files = [f["path"] for f in cur["files"] if f["status"] != "D"]
            name = files[0] if files else "emulator-patchset.txt"
            old = git(["cat-file", "blob", "%s:%s" % (cur["revision"], name)],
                      cwd=path, check=False) if files else ""
            blob = git(["hash-object", "-w", "--stdin"], cwd=path,
                       input=(old + "patch set %d\n" %
                              (len(c["patch_sets"]) + 1)).encode()).strip()
            git(["update-index", "--add", "--cacheinfo",
                 "100644,%s,%s" % (blob, name)], cwd=path, env=ienv)
            tree = git(["write-tree"], cwd=path, env=ienv).strip()
    finally:
        if os.path.exists(index):
            os.unlink(index)
    msg = cm["message"] if message is None else message
    if "Change-Id: " + c["change_id"] not in msg:
        msg = msg.rstrip("\n") + "\n\nChange-Id: %s\n" % c["change_id"]
    args = ["commit-tree", tree]
    for par in parents:
        args += ["-p", par]
    return git(args, cwd=path, env=env, input=msg.encode()).strip()


def rebase_target(st, c):
    """Where Gerrit's Rebase puts c: on the current patch set of the open
    change its parent is a patch set of, else on the branch tip."""
    parent = st.current(c)["commit"]["parents"][0]
    for x in st.changes():
        if x is not c and x["status"] == "NEW" and \
                x["project"] == c["project"] and \
                any(p["revision"] == parent for p in x["patch_sets"]):
            return st.current(x)["revision"]
    return st.branch_tip(c["project"], c["branch"])


def merge(store, p):
    with store.open(write=True) as st:
        c = find_change(st, p)
        sha = st.submit(c, user_of(st, p, "admin"))
        return {"change": c["number"], "status": c["status"], "rev": sha}


def move(what):
    """The abandon and restore knobs."""
    def knob(store, p):
        with store.open(write=True) as st:
            c = find_change(st, p)
            st.move(c, what, user_of(st, p, c["owner"]), p.get("reason", ""))
            return {"change": c["number"], "status": c["status"]}
    return knob


def topic(store, p):
    with store.open(write=True) as st:
        c = find_change(st, p)
        st.set_topic(c, user_of(st, p, c["owner"]), p.get("topic", ""))
        return {"change": c["number"], "topic": c["topic"]}


def log(store, p):
    reqs = []
    try:
        with open(os.path.join(store.root, "rest.jsonl")) as f:
            reqs = [json.loads(line) for line in f if line.strip()]
    except OSError:
        pass
    return {"requests": reqs}


def events(store, p):
    out = []
    try:
        with open(store.events_path) as f:
            out = [json.loads(line)["event"] for line in f if line.strip()]
    except OSError:
        pass
    return {"events": out}


def state(store, p):
    with store.open() as st:
        return st.d


KNOBS = {
    "create-project": create_project, "fail": fail, "fail-clear": fail_clear,
    "drop-push": drop_push, "stall-push": stall_push,
    "cut-streams": cut_streams, "streams": list_streams,
    "wait-streams": wait_streams, "end-sessions": end_sessions,
    "dropped-output": dropped_output, "review": review, "patchset": patchset,
    "merge": merge, "abandon": move("abandon"), "restore": move("restore"),
    "topic": topic, "log": log, "events": events, "state": state,
}
