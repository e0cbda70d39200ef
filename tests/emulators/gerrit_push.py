"""Pushes: git's proc-receive hook for every ref (receive.procReceiveRefs
is "refs/"), so each command gets its own result as Gerrit gives it.

refs/for/BRANCH[%opt,...] (and `git push -o opt`) makes a change per new
commit, or a new patch set of the open change with the commit's
Change-Id; refs/heads/* and refs/tags/* are direct pushes (admin only);
refs/changes/* and the rest are refused.  The hook prints what Gerrit
prints (git shows it as `remote:` lines) and answers `ok REF` or
`ng REF REASON`.  It runs after git has moved the pushed objects out of
quarantine, so it may make refs/changes/NN/N/PS itself.
"""

import os
import re
import signal
import sys
import time
import urllib.parse

from gerrit_store import Error, Store, ZERO, footer_change_ids, git

CHANGE_ID = re.compile(r"^I[0-9a-fA-F]{4,40}$")

# the commit-msg hook served by `scp -p -P PORT USER@HOST:hooks/commit-msg`
# and GET /tools/hooks/commit-msg (written for the emulator; it does what
# apis.md section 3 says Gerrit's does)
COMMIT_MSG_HOOK = r"""#!/bin/sh
# commit-msg hook of patchrelay's Gerrit emulator: adds a Change-Id trailer
# unless gerrit.createChangeId is false, the message is empty, a squash!
# or fixup! subject, or it has one already.
test "$(git config --type=bool --get gerrit.createChangeId)" = false && exit 0
test -n "$(grep -v '^#' "$1" | tr -d ' \t\n')" || exit 0
case $(head -n 1 "$1") in
'squash! '* | 'fixup! '*) exit 0 ;;
esac
grep -q '^Change-Id: I[0-9a-f]\{40\}$' "$1" && exit 0
id=$({
	git var GIT_COMMITTER_IDENT
	echo
	git rev-parse HEAD 2>/dev/null ||
		echo 4b825dc642cb6eb9a060e54bf8d69288fbee4904
	echo
	grep -v '^#' "$1"
} | git hash-object --stdin) || exit 1
git -c trailer.ifexists=doNothing interpret-trailers --in-place \
	--trailer "Change-Id: I$id" "$1"
"""

# args4j spellings of the magic branch options
OPTION_NAMES = {
    "topic": "topic", "wip": "wip", "work-in-progress": "wip",
    "ready": "ready", "private": "private", "remove-private":
    "remove-private", "r": "r", "reviewer": "r", "cc": "cc",
    "t": "hashtag", "hashtag": "hashtag", "m": "m", "message": "m",
    "notify": "notify", "l": "label", "label": "label",
    "publish-comments": None, "no-publish-comments": None, "np": None,
    "trace": None, "base": "base", "notedb": None, "skip-validation": None,
}


# ---- pkt-line ----

def read_pkt(f):
    head = f.read(4)
    if len(head) < 4:
        return None
    n = int(head, 16)
    if n == 0:
        return ""
    return f.read(n - 4).decode("utf-8", "replace").rstrip("\n")


def write_pkt(f, s):
    if s is None:
        f.write(b"0000")
    else:
        b = (s + "\n").encode()
        f.write(b"%04x" % (len(b) + 4) + b)
    f.flush()


def hook(root, name):
    if name != "proc-receive":
        sys.stderr.write("gerrit.py: no hook %s\n" % name)
        return 1
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    read_pkt(inp)
    while read_pkt(inp):
        pass
    write_pkt(out, "version=1\0push-options")
    write_pkt(out, None)
    cmds = []
    while True:
        line = read_pkt(inp)
        if not line:
            break
        cmds.append(line.split(" ", 2))
    # we asked for push-options: git sends that section, maybe empty
    options = []
    while True:
        line = read_pkt(inp)
        if not line:
            break
        options.append(line)
    user = os.environ.get("GERRIT_EMU_USER", "")
    project = os.environ.get("GERRIT_EMU_PROJECT", "")
    with Store(root).open(write=True) as st:
        stall = st.d.get("stall_pushes", 0)
        if stall:
            st.d["stall_pushes"] = stall - 1
    if stall:
        return stall_until_gone()
    results = Receive(Store(root), user, project, options).run(cmds)
    with Store(root).open(write=True) as st:
        drop = st.d.get("drop_pushes", 0)
        if drop:
            st.d["drop_pushes"] = drop - 1
    if drop:
        # the drop-push knob: what was pushed is stored, and the
        # connection is lost before the client hears so
        from gerrit_ssh import sshd_pid
        pid = sshd_pid()
        if pid:
            os.kill(pid, signal.SIGKILL)
        return 1
    for ref, reason in results:
        write_pkt(out, "ok " + ref if reason is None else
                  "ng %s %s" % (ref, reason))
    write_pkt(out, None)
    return 0


def stall_until_gone():
    """The stall-push knob: the pack was taken, and no answer comes (not
    even a keepalive: the connection is silent) until the client leaves,
    as a Gerrit whose receive stalls.  Nothing is stored."""
    from gerrit_ssh import sshd_pid
    pid = sshd_pid()
    for _ in range(3000):  # 10 minutes at most
        try:
            if pid is None:
                break
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.2)
    return 1


class Receive:
    def __init__(self, store, user, project, push_options):
        self.store = store
        self.user = user
        self.project = project
        self.push_options = push_options
        self.lines = []

    def say(self, text):
        self.lines.append(text)

    def flush(self):
        for line in self.lines:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        self.lines = []

    def run(self, cmds):
        magic = [c for c in cmds if c[2].startswith("refs/for/")]
        results = []
        with self.store.open(write=True) as st:
            self.st = st
            stats = {"refs": len(cmds), "new": 0, "updated": 0}
            if magic and len(magic) != len(cmds):
                results = [(c[2], "cannot combine normal pushes and magic "
                            "pushes") for c in cmds]
            else:
                first = True
                for old, new, ref in cmds:
                    if ref.startswith("refs/for/"):
                        if not first:
                            results.append((ref, "duplicate request"))
                            continue
                        first = False
                        results.append((ref, self.magic(old, new, ref,
                                                        stats)))
                    else:
                        results.append((ref, self.regular(old, new, ref)))
            progress = "Processing changes: refs: %d" % stats["refs"]
            for k in ("new", "updated"):
                if stats[k]:
                    progress += ", %s: %d" % (k, stats[k])
            self.lines.insert(0, progress + ", done")
        self.flush()
        return results

    # ---- direct pushes ----

    def regular(self, old, new, ref):
        st = self.st
        if ref.startswith("refs/changes/"):
            return "upload to refs/changes not allowed"
        if not (ref.startswith("refs/heads/") or ref.startswith("refs/tags/")):
            return "prohibited by Gerrit: not permitted: update"
        if not st.is_admin(self.user):
            what = "create" if old == ZERO else \
                "delete" if new == ZERO else "update"
            return "prohibited by Gerrit: not permitted: %s" % what
        path = st.repo(self.project)
        if new == ZERO:
            git(["update-ref", "-d", ref, old], cwd=path)
        else:
            git(["update-ref", ref, new] + ([] if old == ZERO else [old]),
                cwd=path)
        st.ref_updated(self.project, ref, old, new, self.user)
        if ref.startswith("refs/heads/") and new != ZERO:
            self.close_merged(ref[len("refs/heads/"):], new)
        return None

    def close_merged(self, branch, tip):
        """Open changes of branch whose current patch set the push made
        part of the branch become MERGED (receive.autoclose)."""
        st = self.st
        for c in list(st.changes()):
            if c["project"] != self.project or c["branch"] != branch or \
                    c["status"] != "NEW":
                continue
            sha = st.current(c)["revision"]
            if st.is_ancestor(self.project, sha, tip):
                st.merged(c, self.user, tip,
                          "Change has been successfully pushed.")

    # ---- refs/for ----

    def parse(self, ref):
        """(branch, {option: [values]}) of refs/for/BRANCH%opts and the
        push options; raises Error with Gerrit's reason."""
        rest = ref[len("refs/for/"):]
        rest, _, opts = rest.partition("%")
        if rest.startswith("refs/heads/"):
            rest = rest[len("refs/heads/"):]
        pairs = []
        for s in [o for o in opts.split(",") if o]:
            k, _, v = s.partition("=")
            pairs.append((k, v))
        for s in self.push_options:
            k, _, v = s.partition("=")
            pairs.append((k, v))
        out = {}
        for k, v in pairs:
            if k not in OPTION_NAMES:
                raise Error(400, '"%s%s" is not a valid option' %
                            ("-" if len(k) == 1 else "--", k))
            name = OPTION_NAMES[k]
            if name:
                out.setdefault(name, []).append(v)
        return rest, out

    def magic(self, old, new, ref, stats):
        st = self.st
        try:
            branch, opts = self.parse(ref)
        except Error as e:
            return e.text
        path = st.repo(self.project)
        if st.branch_tip(self.project, branch) is None:
            return "branch %s not found" % branch
        if "wip" in opts and "ready" in opts:
            return "the options 'wip' and 'ready' are mutually exclusive"
        if "private" in opts and "remove-private" in opts:
            return "the options 'private' and 'remove-private' are " \
                "mutually exclusive"
        reviewers, ccs = [], []
        for key, into in (("r", reviewers), ("cc", ccs)):
            for who in opts.get(key, []):
                acc = st.account(who)
                if acc is None:
                    return "%s does not identify a registered user or " \
                        "group" % who
                into.append(acc["username"])
        tip = st.branch_tip(self.project, branch)
        base = git(["merge-base", new, tip], cwd=path, check=False).strip()
        if not base:
            return "no common ancestry"
        heads = git(["for-each-ref", "--format=%(objectname)",
                     "refs/heads/", "refs/tags/"], cwd=path).split()
        commits = git(["rev-list", "--topo-order", "--reverse", new, "--not"]
                      + heads, cwd=path).split()
        tracked = set(ps["revision"] for c in st.changes()
                      if c["project"] == self.project
                      for ps in c["patch_sets"])
        commits = [c for c in commits if c not in tracked]
        # validate every commit first: one bad commit refuses the push
        plan = []
        seen = set()
        for sha in commits:
            msg = git(["log", "-1", "--format=%B", sha], cwd=path)
            short = git(["rev-parse", "--short=7", sha], cwd=path).strip()
            reason = self.check_change_id(short, msg)
            if reason:
                return reason
            cid = footer_change_ids(msg)[-1]
            if cid in seen:
                return "same Change-Id in multiple changes."
            seen.add(cid)
            c = st.by_change_id(self.project, branch, cid)
            if c is not None and c["status"] != "NEW":
                return "change %s closed" % st.url(c)
            plan.append((sha, cid, c))
        if not plan:
            return "no new changes"
        topic = opts.get("topic", [None])[-1]
        note = None
        if "m" in opts:
            note = urllib.parse.unquote(opts["m"][-1].replace("_", " "))
        report = []
        for sha, cid, c in plan:
            if c is None:
                c = st.create_change(self.project, branch, sha, self.user,
                                     cid, topic, "wip" in opts,
                                     "private" in opts, note)
                stats["new"] += 1
                report.append((c, True))
                for tag in opts.get("hashtag", []):
                    if tag and tag not in c["hashtags"]:
                        c["hashtags"].append(tag)
                st.change_event("patchset-created", c, st.current(c),
                                uploader=st.event_account(self.user))
            else:
                ps = self.replace(c, sha, opts, topic, note)
                stats["updated"] += 1
                report.append((c, False))
                st.change_event("patchset-created", c, ps,
                                uploader=st.event_account(self.user))
            for who in reviewers:
                st.add_reviewer(c, who, self.user)
            for who in ccs:
                st.add_reviewer(c, who, self.user, cc=True)
        self.say("")
        self.say("SUCCESS")
        self.say("")
        for c, created in report:
            line = "  %s %s" % (st.url(c), crop(st.current(c)["commit"]
                                               ["subject"]))
            if c["private"]:
                line += " [PRIVATE]"
            if c["wip"]:
                line += " [WIP]"
            if created:
                line += " [NEW]"
            self.say(line)
        self.say("")
        return None

    def replace(self, c, sha, opts, topic, note):
        st = self.st
        if "wip" in opts and not c["wip"]:
            c["wip"] = True
            st.change_event("wip-state-changed", c, st.current(c),
                            changer=st.event_account(self.user))
        if "ready" in opts and c["wip"]:
            c["wip"] = False
            c["review_started"] = True
            st.change_event("wip-state-changed", c, st.current(c),
                            changer=st.event_account(self.user))
        if "private" in opts and not c["private"] or \
                "remove-private" in opts and c["private"]:
            c["private"] = "private" in opts
            st.change_event("private-state-changed", c, st.current(c),
                            changer=st.event_account(self.user))
        if topic is not None and topic != (c["topic"] or ""):
            old = c["topic"]
            c["topic"] = topic or None
            st.change_event("topic-changed", c, None,
                            changer=st.event_account(self.user),
                            oldTopic=old or "")
        for tag in opts.get("hashtag", []):
            if tag and tag not in c["hashtags"]:
                c["hashtags"].append(tag)
        return st.add_patch_set(c, sha, self.user, note)

    def check_change_id(self, short, msg):
        """Gerrit's ChangeIdValidator: None, or the rejection reason (the
        ERROR lines are said)."""
        ids = footer_change_ids(msg)
        subject = msg.split("\n", 1)[0]
        if not ids:
            if subject.startswith("Change-Id:"):
                return self.invalid(short, "missing subject; Change-Id must "
                                    "be in message footer", hint=False)
            if "\nChange-Id:" in msg:
                self.say("ERROR: commit %s: Change-Id must be in message "
                         "footer" % short)
                self.say("")
                self.say("Hint: run")
                self.say("  git commit --amend")
                self.say("and move 'Change-Id: Ixxx..' to the bottom on a "
                         "separate line")
                self.say("")
                return "commit %s: Change-Id must be in message footer" % \
                    short
            return self.invalid(short, "missing Change-Id in message footer")
        if len(ids) > 1:
            return self.invalid(short, "multiple Change-Id lines in message "
                                "footer", hint=False)
        v = ids[0]
        if not re.match(r"^I[0-9a-f]{40}$", v) or re.match(r"^I00*$", v):
            return self.invalid(short, "invalid Change-Id line format in "
                                "message footer")
        return None

    def invalid(self, short, what, hint=True):
        if hint:
            port = self.st.d["server"]["ssh_port"]
            self.say("ERROR: commit %s: %s" % (short, what))
            self.say("")
            self.say("Hint: to automatically insert a Change-Id, install "
                     "the hook:")
            self.say("  gitdir=$(git rev-parse --git-dir); scp -p -P %d "
                     "%s@127.0.0.1:hooks/commit-msg ${gitdir}/hooks/" %
                     (port, self.user))
            self.say("and then amend the commit:")
            self.say("  git commit --amend --no-edit")
            self.say("Finally, push your changes again")
            self.say("")
        return "commit %s: %s" % (short, what)


def crop(subject):
    """DefaultChangeReportFormatter.cropSubject: at most 80 characters,
    cut at a space among the last ten and marked with '...'."""
    if len(subject) <= 80:
        return subject
    n = 77
    for pos in range(n, n - 10, -1):
        if subject[pos - 1].isspace():
            return subject[:pos] + "..."
    return subject[:n] + "..."
