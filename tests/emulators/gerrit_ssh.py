"""The Gerrit emulator's SSH side: sshd's ForceCommand runs `gerrit.py ssh`
with the login name in USER and the command in SSH_ORIGINAL_COMMAND.

Commands: gerrit version | stream-events | query | review | ls-projects,
git-upload-pack / git-receive-pack 'PROJECT', and `scp -f
hooks/commit-msg` (what git-review runs).  Errors go to stderr as
"fatal: ..." with exit status 1, as Gerrit's SSH daemon does.

Every session registers itself in ROOT/sessions/PID.json (with the pid of
the sshd process serving it) so the knobs can cut streams and `gerrit.sh
stop` can end what is left.
"""

import fcntl
import json
import os
import select
import shlex
import signal
import struct
import sys
import termios
import time

import gerrit_query
from gerrit_knobs import parse_label
from gerrit_push import COMMIT_MSG_HOOK
from gerrit_store import Error, Store, VERSION, now

BANNER = """
  ****    Welcome to Gerrit Code Review    ****

  Hi %s, you have successfully connected over SSH.

  Unfortunately, interactive shells are disabled.
  To clone a hosted Git repository, use:

  git clone ssh://%s@127.0.0.1:%d/REPOSITORY_NAME.git

"""


class Fatal(Exception):
    pass


def out(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def sshd_pid():
    """The nearest ancestor named sshd: the process holding the session."""
    pid = os.getppid()
    while pid > 1:
        try:
            with open("/proc/%d/stat" % pid) as f:
                stat = f.read()
        except OSError:
            return None
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        if comm == "sshd":
            return pid
        pid = int(stat[stat.rfind(")") + 2:].split()[1])
    return None


class Session:
    def __init__(self, root, user, command):
        self.dir = os.path.join(root, "sessions")
        os.makedirs(self.dir, exist_ok=True)
        self.path = os.path.join(self.dir, "%d.json" % os.getpid())
        self.info = {"pid": os.getpid(), "sshd": sshd_pid(), "user": user,
                     "command": command, "since": now(), "stream": False}
        self.write()

    def write(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.info, f)
        os.replace(tmp, self.path)

    def close(self):
        try:
            os.unlink(self.path)
        except OSError:
            pass


def main(root):
    store = Store(root)
    user = os.environ.get("USER", "")
    cmd = os.environ.get("SSH_ORIGINAL_COMMAND", "")
    session = Session(root, user, cmd)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        return dispatch(store, user, cmd, session)
    except Fatal as e:
        sys.stderr.write("fatal: %s\n" % e)
        return 1
    except Error as e:
        sys.stderr.write("fatal: %s\n" % e.text)
        return 1
    finally:
        session.close()


def dispatch(store, user, cmd, session):
    try:
        argv = shlex.split(cmd)
    except ValueError as e:
        raise Fatal(str(e))
    with store.open() as st:
        if st.account(user) is None or st.account(user)["username"] != user:
            raise Fatal("no such account %s" % user)
        port = st.d["server"]["ssh_port"]
    if not argv:
        sys.stderr.write(BANNER % (user, user, port))
        return 127
    if argv[0] in ("git-upload-pack", "git-receive-pack") or \
            argv[:2] in (["git", "upload-pack"], ["git", "receive-pack"]):
        if argv[0] == "git":
            argv = ["git-" + argv[1]] + argv[2:]
        return git_service(store, user, argv, session)
    if argv[0] == "scp":
        return scp(argv[1:])
    if argv[0] != "gerrit" or len(argv) < 2:
        raise Fatal("%s: not found" % argv[0])
    name, args = argv[1], argv[2:]
    if name == "version":
        out("gerrit version %s\n" % VERSION)
        return 0
    if name == "stream-events":
        return stream_events(store, user, args, session)
    if name == "query":
        return query(store, user, args)
    if name == "review":
        return review(store, user, args)
    if name == "ls-projects":
        with store.open() as st:
            out("".join(p + "\n" for p in sorted(st.d["projects"])))
        return 0
    raise Fatal("gerrit: %s: not found" % name)


# ---- git ----

def git_service(store, user, argv, session):
    if len(argv) != 2:
        raise Fatal("%s: usage: %s PROJECT.git" % (argv[0], argv[0]))
    name = argv[1].strip("/")
    if name.endswith(".git"):
        name = name[:-4]
    with store.open() as st:
        if st.project(name) is None:
            raise Fatal("Project not found: %s" % name)
        path = st.repo(name)
        hidden = []
        if argv[0] == "git-upload-pack":
            # private changes of others are invisible, refs too
            for c in st.changes():
                if c["project"] == name and not st.visible(c, user):
                    hidden += [p["ref"] for p in c["patch_sets"]]
    env = dict(os.environ)
    env.update({"GERRIT_EMU_USER": user, "GERRIT_EMU_PROJECT": name,
                "GIT_CONFIG_NOSYSTEM": "1"})
    cmd = ["git"]
    for ref in hidden:
        cmd += ["-c", "uploadpack.hideRefs=" + ref]
    cmd += [argv[0][4:], path]
    sys.stdout.flush()
    # git replaces this process: it is no longer a session to end
    session.close()
    os.execvpe("git", cmd, env)


def scp(args):
    """The source side of scp (-f), for hooks/commit-msg only."""
    preserve = "-p" in args
    files = [a for a in args if not a.startswith("-")]
    if "-f" not in args or files != ["hooks/commit-msg"]:
        raise Fatal("scp: %s: not found" % " ".join(files))
    data = COMMIT_MSG_HOOK.encode()
    inp, o = sys.stdin.buffer, sys.stdout.buffer

    def ack():
        b = inp.read(1)
        if b != b"\0":
            raise Fatal("scp: protocol error")
    ack()
    if preserve:
        t = int(time.time())
        o.write(b"T%d 0 %d 0\n" % (t, t))
        o.flush()
        ack()
    o.write(b"C0755 %d commit-msg\n" % len(data))
    o.flush()
    ack()
    o.write(data + b"\0")
    o.flush()
    ack()
    return 0


# ---- stream-events ----

def read_cut(root):
    try:
        with open(os.path.join(root, "cut.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"gen": 0, "at": 0, "mode": "drop"}


def stream_events(store, user, args, session):
    types = set()
    i = 0
    while i < len(args):
        if args[i] in ("-s", "--subscribe") and i + 1 < len(args):
            types.add(args[i + 1])
            i += 2
        elif args[i].startswith("--subscribe="):
            types.add(args[i].split("=", 1)[1])
            i += 1
        else:
            raise Fatal('"%s" is not a valid option' % args[i])
    with store.open() as st:
        if not st.may_stream(user):
            raise Fatal('%s does not have "Stream Events" capability.' %
                        user)
        admin = st.is_admin(user)
        # the log up to here is what happened before we subscribed
        offset = store.events_size()
        last = st.d["event_seq"]
    gen = read_cut(store.root)["gen"]
    session.info["stream"] = True
    session.write()
    poll = select.poll()
    poll.register(sys.stdout.fileno(), select.POLLERR | select.POLLHUP)
    buf = b""
    f = open(store.events_path, "ab+")
    f.seek(offset)
    while True:
        chunk = f.read()
        buf += chunk
        cut = read_cut(store.root)
        if cut["gen"] <= gen:
            cut = None
        while b"\n" in buf:
            line, rest = buf.split(b"\n", 1)
            rec = json.loads(line)
            if cut and rec["seq"] > cut["at"]:
                break
            buf = rest
            last = rec["seq"]
            ev = rec["event"]
            if "to" in rec and user not in rec["to"] and not admin:
                continue
            if types and ev["type"] not in types:
                continue
            out(json.dumps(ev, separators=(",", ":")) + "\n")
        # a cut waits until this stream has had every event up to "at"
        if cut and last >= cut["at"]:
            return cut_now(cut, session)
        if poll.poll(0):
            return 0
        if not chunk:
            time.sleep(0.05)


def cut_now(cut, session):
    """End the stream: "eof" ends the command; "drop" kills the sshd
    process of the session, so the TCP connection closes with no SSH
    goodbye, once what was written has left the pipe to sshd."""
    sys.stdout.flush()
    if cut.get("mode") == "eof":
        return 0
    if cut.get("mode") == "stall":
        # the session stays open (its ssh connection answers keepalives)
        # and writes no more events, as when Gerrit's event delivery to
        # it stalls: it ends only when the client goes
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLERR | select.POLLHUP)
        while not poll.poll(1000):
            pass
        return 0
    fd = sys.stdout.fileno()
    for _ in range(100):
        try:
            left = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD,
                                                  b"\0\0\0\0"))[0]
        except OSError:
            left = 0
        if left == 0:
            break
        time.sleep(0.01)
    time.sleep(0.1)
    pid = session.info.get("sshd")
    if pid and open("/proc/%d/comm" % pid).read().strip() == "sshd":
        os.kill(pid, signal.SIGKILL)
    return 0


# ---- query ----

QUERY_FLAGS = ("--current-patch-set", "--patch-sets", "--all-approvals",
               "--files", "--comments", "--commit-message", "--dependencies",
               "--submit-records", "--all-reviewers", "--no-limit")


def query(store, user, args):
    fmt = "TEXT"
    flags = set()
    start = 0
    words = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--format="):
            fmt = a.split("=", 1)[1].upper()
        elif a == "--format" and i + 1 < len(args):
            fmt = args[i + 1].upper()
            i += 1
        elif a in QUERY_FLAGS:
            flags.add(a)
        elif a in ("-S", "--start") and i + 1 < len(args) or \
                a.startswith("--start="):
            v = a.split("=", 1)[1] if "=" in a else args[i + 1]
            if not v.isdigit():
                raise Fatal('"%s" is not a valid value for "--start"' % v)
            start = int(v)
            i += 0 if "=" in a else 1
        elif a == "--":
            words += args[i + 1:]
            break
        elif a.startswith("--"):
            raise Fatal('"%s" is not a valid option' % a)
        else:
            words.append(a)
        i += 1
    if fmt not in ("TEXT", "JSON"):
        raise Fatal('"%s" is not a valid value for "--format"' % fmt)
    t0 = time.time()
    with store.open() as st:
        try:
            rows, more = gerrit_query.run(st, " ".join(words), user, start,
                                          None if "--no-limit" in flags
                                          else 500)
        except Error as e:
            show(fmt, {"type": "error", "message": e.text})
            return 0
        for c in rows:
            show(fmt, query_row(st, c, flags), "change " + c["change_id"])
    show(fmt, {"type": "stats", "rowCount": len(rows),
               "runTimeMilliseconds": int((time.time() - t0) * 1000),
               "moreChanges": more})
    return 0


def show(fmt, obj, head=None):
    if fmt == "JSON":
        out(json.dumps(obj, separators=(",", ":")) + "\n")
        return
    lines = [head] if head else []
    text_lines(obj, "  " if head else "", lines)
    out("\n".join(lines) + "\n\n")


def text_lines(obj, ind, lines):
    for k, v in obj.items():
        if isinstance(v, dict):
            lines.append("%s%s:" % (ind, k))
            text_lines(v, ind + "  ", lines)
        elif isinstance(v, list):
            lines.append("%s%s:" % (ind, k))
            for x in v:
                if isinstance(x, dict):
                    text_lines(x, ind + "  ", lines)
                    lines.append("")
                else:
                    lines.append("%s  %s" % (ind, x))
        else:
            if isinstance(v, bool):
                v = "true" if v else "false"
            lines.append("%s%s: %s" % (ind, k, v))


def query_row(st, c, flags):
    row = st.change_attr(c, "--commit-message" in flags)
    row["lastUpdated"] = c["updated"]
    row["open"] = c["status"] == "NEW"
    row.setdefault("hashtags", [])
    approvals = "--all-approvals" in flags
    if "--current-patch-set" in flags:
        row["currentPatchSet"] = st.patch_set_attr(
            c, st.current(c), approvals=True, files="--files" in flags)
    if "--patch-sets" in flags or approvals:
        row["patchSets"] = [st.patch_set_attr(c, p, approvals=approvals,
                                              files="--files" in flags)
                            for p in c["patch_sets"]]
    if "--comments" in flags:
        row["comments"] = [{"timestamp": m["date"],
                            "reviewer": st.event_account(m["author"]),
                            "message": m["message"]} for m in c["messages"]]
    if "--all-reviewers" in flags:
        row["allReviewers"] = [st.event_account(u) for u in c["reviewers"]]
    if "--dependencies" in flags:
        import gerrit_api
        rel = gerrit_api.related(st, c, st.current(c))
        mine = [i for i, r in enumerate(rel) if r[0] is c]
        if mine:
            k = mine[0]
            dep = [{"id": x["change_id"], "number": x["number"],
                    "revision": p["revision"], "ref": p["ref"],
                    "isCurrentPatchSet": p is st.current(x)}
                   for x, p in rel[k + 1:k + 2]]
            need = [{"id": x["change_id"], "number": x["number"],
                     "revision": p["revision"], "ref": p["ref"],
                     "isCurrentPatchSet": p is st.current(x)}
                    for x, p in rel[k - 1:k] if k > 0]
            if dep:
                row["dependsOn"] = dep
            if need:
                row["neededBy"] = need
    if "--submit-records" in flags:
        votes = st.current_votes(c)
        labels = []
        for name in ("Code-Review", "Verified"):
            v = votes.get(name, {})
            best = max((x["value"] for x in v.values()), default=0)
            worst = min((x["value"] for x in v.values()), default=0)
            top = 2 if name == "Code-Review" else 1
            status = "REJECT" if worst == -top else \
                "OK" if best == top else "NEED"
            lab = {"label": name, "status": status}
            labels.append(lab)
        ok = all(x["status"] == "OK" for x in labels)
        row["submitRecords"] = [{"status": "OK" if ok else "NOT_READY",
                                 "labels": labels}]
    return row


# ---- review ----

def review(store, user, args):
    msg = None
    labels = {}
    tag = None
    as_json = False
    action = None
    strict = False
    project = branch = None
    tokens = []
    i = 0
    takes = {"-m": "m", "--message": "m", "-l": "l", "--label": "l",
             "--code-review": "cr", "--verified": "v", "-t": "t",
             "--tag": "t", "-n": "n", "--notify": "n", "-p": "p",
             "--project": "p", "-b": "b", "--branch": "b"}
    while i < len(args):
        a = args[i]
        key, eq, val = a.partition("=") if a.startswith("--") else \
            (a, "", "")
        if key in takes:
            if not eq:
                if i + 1 >= len(args):
                    raise Fatal('Option "%s" takes an operand' % key)
                val = args[i + 1]
                i += 1
            k = takes[key]
            if k == "m":
                msg = val
            elif k == "l":
                try:
                    name, v = parse_label(val)
                except Error:
                    raise Fatal('"%s" is not a valid label vote' % val)
                labels[name] = v
            elif k == "cr":
                labels["Code-Review"] = val
            elif k == "v":
                labels["Verified"] = val
            elif k == "t":
                tag = val
            elif k == "p":
                project = val
            elif k == "b":
                branch = val
        elif a in ("-j", "--json"):
            as_json = True
        elif a in ("--abandon", "--restore", "--submit", "-s", "--rebase",
                   "--move"):
            action = {"-s": "--submit"}.get(a, a)
        elif a == "--strict-labels":
            strict = True
        elif a in ("--ready", "--wip", "--work-in-progress"):
            action = action or a
        elif a.startswith("-"):
            raise Fatal('"%s" is not a valid option' % a)
        else:
            tokens.append(a)
        i += 1
    if not tokens:
        raise Fatal("no patch set specified")
    extra = {}
    if as_json:
        try:
            ri = json.loads(sys.stdin.read() or "{}")
        except ValueError as e:
            raise Fatal("internal error: %s" % e)
        msg = ri.get("message")
        labels.update(ri.get("labels") or {})
        tag = ri.get("tag", tag)
        extra["comments"] = ri.get("comments")
        strict = bool(ri.get("strict_labels", strict))
    failed = False
    with store.open(write=True) as st:
        targets = []
        for tok in tokens:
            targets.append(find_patch_set(st, user, tok, project, branch))
        for c, ps in targets:
            try:
                if action in ("--abandon", "--restore"):
                    if labels:
                        st.review(c, ps, user, "", labels, tag,
                                  strict=strict)
                    st.move(c, action[2:], user, msg or "")
                    continue
                st.review(c, ps, user, msg or "", labels, tag,
                          strict=strict, ready=action == "--ready",
                          wip=action in ("--wip", "--work-in-progress"),
                          **extra)
                if action == "--submit":
                    st.submit(c, user)
            except Error as e:
                failed = True
                sys.stderr.write("error: %s\n" % e.text)
    if failed:
        raise Fatal("one or more approvals failed; review output above")
    return 0


def find_patch_set(st, user, tok, project, branch):
    if "," in tok:
        num, _, psn = tok.partition(",")
        if not (num.isdigit() and psn.isdigit()):
            raise Fatal('"%s" is not a valid patch set' % tok)
        c = st.change(int(num))
        if c is None or not st.visible(c, user) or \
                not 1 <= int(psn) <= len(c["patch_sets"]) or \
                project and c["project"] != project or \
                branch and c["branch"] != branch:
            raise Fatal('"%s" no such patch set' % tok)
        return c, c["patch_sets"][int(psn) - 1]
    if len(tok) < 4 or any(ch not in "0123456789abcdef" for ch in tok):
        raise Fatal('"%s" is not a valid patch set' % tok)
    hits = [(c, p) for c in st.changes() for p in c["patch_sets"]
            if p["revision"].startswith(tok) and st.visible(c, user) and
            (not project or c["project"] == project) and
            (not branch or c["branch"] == branch)]
    if not hits:
        raise Fatal('"%s" no such patch set' % tok)
    if len(hits) > 1:
        raise Fatal('"%s" matches multiple patch sets' % tok)
    return hits[0]
