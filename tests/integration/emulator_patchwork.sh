#!/bin/sh
# tests/emulators/patchwork.py against what apis.md section 4 and
# Patchwork's code say: the API index and versions, series grouping from
# mail (threaded, by markers within 20 minutes, a v2 under v1's cover in
# a series of its own, replies as comments), the hash of each mail, pages
# (bare arrays, Link next/prev/first/last, per_page capped at 250, a page
# past the last 404), filters (msgid without brackets, hash, state names,
# an unknown project empty, since/before on events), the 403 texts, the
# 400 of a bad state listing the instance's states, checks (append-only,
# newest per context wins, the combined `check`), and a 503 with
# Retry-After from a failure rule.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir
start_emulator patchwork "$tmp/emu"

$PY - "$emu_url" "$PR_SRC/tests/emulators" <<'PYEOF' ||
import json, sys, urllib.error, urllib.request
B = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from pwhash import hash_mail_body


def call(method, path, body=None, token=None):
    req = urllib.request.Request(B + path, method=method,
                                 data=json.dumps(body).encode()
                                 if body is not None else None)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Token " + token)
    try:
        with urllib.request.urlopen(req) as r:
            data = r.read()
            return r.status, dict(r.headers), \
                json.loads(data) if data[:1] in (b"[", b"{") else data
    except urllib.error.HTTPError as e:
        data = e.read()
        return e.code, dict(e.headers), \
            json.loads(data) if data[:1] in (b"[", b"{") else data


def ok(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)


def mail(msgid, subject, frm="Ada <ada@example.org>", irt=None,
         date="Thu, 03 Dec 2026 12:00:00 +0000", diff=True, body="Text.\n"):
    h = ["From: " + frm, "Subject: " + subject, "Message-Id: <%s>" % msgid,
         "Date: " + date, "List-Id: <netdev.example.org>"]
    if irt:
        h += ["In-Reply-To: <%s>" % irt, "References: <%s>" % irt]
    text = "\n".join(h) + "\n\n" + body
    if diff:
        text += ("---\n a | 1 +\n\ndiff --git a/a b/a\nindex 1..2 100644\n"
                 "--- a/a\n+++ b/a\n@@ -1 +1,2 @@\n a\n+%s\n-- \n2.39.5\n"
                 % msgid)
    return text


def feed(*mails):
    st, _, j = call("POST", "/_emu/mail", {"mbox": "".join(
        "From x Mon Sep 17 00:00:00 2001\n" + m + "\n" for m in mails)})
    ok(st == 201, "feed: %s %s" % (st, j))
    return j["results"]


call("POST", "/_emu/projects", {"link_name": "netdev",
                                "list_id": "netdev.example.org",
                                "maintainers": ["kuba"]})
call("POST", "/_emu/users", {"login": "kuba", "token": "k",
                             "email": "kuba@example.org"})
call("POST", "/_emu/users", {"login": "bob", "token": "b",
                             "email": "bob@example.org"})
call("POST", "/_emu/users", {"login": "ada", "token": "a",
                             "email": "ada@example.org"})

st, _, idx = call("GET", "/api/1.3/")
ok(st == 200 and idx["patches"] == B + "/api/1.3/patches/", "index %s" % idx)
ok(sorted(idx) == ["bundles", "covers", "events", "patches", "people",
                   "projects", "series", "users"], "index keys")

# v1: a cover and 3 patches threaded to it
v1 = [mail("c1@x", "[PATCH 0/3] net: things", diff=False)] + \
    [mail("p%d@x" % i, "[PATCH %d/3] net: thing %d" % (i, i), irt="c1@x")
     for i in (1, 2, 3)]
ok(feed(*v1) == ["cover", "patch", "patch", "patch"], "v1 intake")
st, _, series = call("GET", "/api/series/")
ok(len(series) == 1 and series[0]["name"] == "net: things" and
   series[0]["total"] == 3 and series[0]["received_all"] and
   series[0]["cover_letter"]["msgid"] == "<c1@x>" and
   [p["msgid"] for p in series[0]["patches"]] ==
   ["<p1@x>", "<p2@x>", "<p3@x>"], "v1 series %s" % series)
# the hash of each patch is its mail's
st, _, p1 = call("GET", "/api/patches/?msgid=p1@x")
ok(p1[0]["hash"] == hash_mail_body(v1[1].split("\n\n", 1)[1]), "hash")
ok(p1[0]["name"] == "[1/3] net: thing 1" and p1[0]["state"] == "new" and
   p1[0]["check"] == "pending", "patch fields %s" % p1[0])
st, _, d = call("GET", "/api/patches/%d/" % p1[0]["id"])
ok(d["diff"].startswith("diff --git a/a b/a") and "2.39.5" not in d["diff"]
   and d["prefixes"] == ["1/3"], "detail %s" % d)
# msgid is matched without brackets only; 1.1 has no msgid filter
ok(call("GET", "/api/patches/?msgid=<p1@x>")[2] == [], "msgid brackets")
ok(len(call("GET", "/api/1.1/patches/?msgid=p1@x")[2]) == 3, "1.1 msgid")

# v2 threaded under v1's cover: a series of its own
v2 = [mail("c2@x", "[PATCH v2 0/3] net: things", irt="c1@x", diff=False)] + \
    [mail("q%d@x" % i, "[PATCH v2 %d/3] net: thing %d" % (i, i), irt="c2@x")
     for i in (1, 2, 3)]
feed(*v2)
st, _, series = call("GET", "/api/series/?order=id")
ok(len(series) == 2 and series[1]["version"] == 2 and
   len(series[1]["patches"]) == 3 and series[0]["received_total"] == 3,
   "v2 series %s" % [(s["name"], s["version"], len(s["patches"]))
                     for s in series])
# unthreaded patches of one submitter, version and total: one series;
# a reply is a comment
m1 = mail("u1@x", "[PATCH 1/2] fs: a", frm="Eve <eve@example.org>")
m2 = mail("u2@x", "[PATCH 2/2] fs: b", frm="Eve <eve@example.org>",
          date="Thu, 03 Dec 2026 12:10:00 +0000")
m3 = mail("u3@x", "[PATCH 1/2] fs: a", frm="Eve <eve@example.org>",
          date="Thu, 03 Dec 2026 13:00:00 +0000")
r1 = mail("r1@x", "Re: [PATCH 1/2] fs: a", irt="u1@x", diff=False,
          body="Acked-by: Kuba <kuba@example.org>\n")
ok(feed(m1, m2, m3, r1) == ["patch", "patch", "patch", "comment"],
   "unthreaded intake")
st, _, s2 = call("GET", "/api/series/?submitter=eve@example.org")
ok(sorted(len(s["patches"]) for s in s2) == [1, 2], "markers %s" % s2)
ok(feed(m1) == ["duplicate"], "duplicate")

# pages: bare arrays, Link, the cap, past the last page
st, h, page = call("GET", "/api/patches/?per_page=2&page=2")
link = h["Link"]
ok(len(page) == 2 and 'rel="next"' in link and 'rel="prev"' in link and
   'rel="first"' in link and 'page=5>; rel="last"' in link, "link %s" % link)
st, h, page = call("GET", "/api/patches/?per_page=2&page=5")
ok('rel="next"' not in h["Link"] and len(page) == 1, "last page")
ok(call("GET", "/api/patches/?per_page=2&page=6")[2] ==
   {"detail": "Invalid page."}, "past the last")
call("POST", "/_emu/bulk", {"project": "netdev", "count": 300})
ok(len(call("GET", "/api/patches/?per_page=1000")[2]) == 250, "cap 250")

# filters
ok(call("GET", "/api/patches/?project=nosuch")[:3:2] == (200, []),
   "unknown project")
ok(len(call("GET", "/api/patches/?hash=" + p1[0]["hash"])[2]) == 1, "hash")

# auth and rights
pid = p1[0]["id"]
st, _, j = call("GET", "/api/patches/", token="nope")
ok((st, j) == (403, {"detail": "Invalid token."}), "bad token %s" % j)
st, _, j = call("PATCH", "/api/patches/%d/" % pid, {"state": "accepted"})
ok((st, j) == (403, {"detail": "Authentication credentials were not "
                                "provided."}), "anonymous %s" % j)
st, _, j = call("PATCH", "/api/patches/%d/" % pid, {"state": "accepted"},
                "b")
ok((st, j) == (403, {"detail": "You do not have permission to perform "
                                "this action."}), "no rights %s" % j)
st, _, j = call("PATCH", "/api/patches/%d/" % pid, {"state": "mainline"},
                "k")
ok(st == 400 and j == {"state": [
    "Invalid state mainline. Expected one of: new, under-review, accepted, "
    "rejected, rfc, not-applicable, changes-requested, awaiting-upstream, "
    "superseded, deferred."]}, "bad state %s" % j)
call("POST", "/_emu/states", {"states": ["new", "accepted",
                                         "needs-review-ack"]})
st, _, j = call("PATCH", "/api/patches/%d/" % pid, {"state": "Mainline"},
                "k")
ok(j["state"][0].endswith("Expected one of: new, accepted, "
                          "needs-review-ack."), "custom states %s" % j)
# the submitter may change their own patch
st, _, j = call("PATCH", "/api/patches/%d/" % pid,
                {"state": "Needs-Review-ACK", "commit_ref": "abc"}, "a")
ok(st == 200 and j["state"] == "needs-review-ack" and
   j["commit_ref"] == "abc", "submitter %s %s" % (st, j))
ok(len(call("GET", "/api/patches/?state=needs-review-ack")[2]) == 1,
   "state filter")

# checks: newest per context wins; the combined state
def check(state, ctx, token="k"):
    return call("POST", "/api/patches/%d/checks/" % pid,
                {"state": state, "context": ctx, "description": "d"}, token)


ok(check("fail", "ci-a")[0] == 201, "check")
ok(call("GET", "/api/patches/%d/" % pid)[2]["check"] == "fail", "fail")
check("success", "ci-a")
check("warning", "ci-b")
ok(call("GET", "/api/patches/%d/" % pid)[2]["check"] == "warning", "warn")
check("success", "ci-b")
ok(call("GET", "/api/patches/%d/" % pid)[2]["check"] == "success", "ok")
ok(len(call("GET", "/api/patches/%d/checks/" % pid)[2]) == 4, "append")
ok(check("", "ci-a")[2] == {"state": ["A check must have a state."]},
   "no state")
ok(check("success", "ci a")[0] == 400, "context slug")
ok(check("success", "ci-a", "b")[2]["detail"].startswith(
    "You do not have permission"), "check rights")

# events: categories, since/before, order
st, _, ev = call("GET", "/api/events/?category=series-completed&order=date")
# v1, v2 and Eve's two; her lone late 1/2 waits for its 2/2
ok(len(ev) == 3 and ev[0]["payload"]["series"]["version"] == 1 and
   ev[0]["date"] <= ev[1]["date"], "events %s" % ev)
since = ev[1]["date"]
st, _, later = call("GET", "/api/events/?category=series-completed&since=" +
                    since)
ok(len(later) == 2 and all(e["date"] >= since for e in later), "since")
st, _, before = call("GET", "/api/events/?category=series-completed&"
                     "before=" + since)
ok(len(before) == 1, "before")
ok(call("GET", "/api/events/?since=garbage")[2] == [], "bad since")

# the series mbox carries the patches in order, with Patchwork's headers
st, _, mbox = call("GET", "/series/%d/mbox/" % series[0]["id"])
text = mbox.decode()
ok(text.count("X-Patchwork-Id: ") == 3 and
   text.index("<p1@x>") < text.index("<p3@x>"), "mbox")

# a failure rule: 503 with Retry-After
call("POST", "/_emu/fail", {"match": "/api/events/", "status": 503,
                            "headers": {"Retry-After": "7"}})
st, h, _ = call("GET", "/api/events/")
ok(st == 503 and h["Retry-After"] == "7", "503")
ok(call("GET", "/api/events/")[0] == 200, "rule used up")
print("ok")
PYEOF
	fail "see above"
echo "emulator_patchwork.sh: ok"
