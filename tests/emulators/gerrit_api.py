"""The Gerrit emulator's REST routes and JSON entities (rest-api-changes,
rest-api-accounts, rest-api-config).

Every request first meets the `fail` knob's rules, then authentication
(/a/ needs HTTP basic with the user's HTTP password: 401 otherwise;
without /a/ the caller is anonymous: reads only, private changes hidden,
a write is 403 "Authentication required").  JSON answers start with
)]}' and a newline; errors are text/plain.
"""

import base64
import io
import json
import re
import time
import urllib.parse
import zipfile

import gerrit_query
from gerrit_rest import Response, json_response, text
from gerrit_store import (Error, LABELS, LABEL_ORDER, RANGES, VERSION, git,
                          subject_of)

OPTIONS = ("LABELS", "DETAILED_LABELS", "CURRENT_REVISION", "ALL_REVISIONS",
           "CURRENT_COMMIT", "ALL_COMMITS", "CURRENT_FILES", "ALL_FILES",
           "DETAILED_ACCOUNTS", "MESSAGES", "CURRENT_ACTIONS", "REVIEWED",
           "DOWNLOAD_COMMANDS", "WEB_LINKS", "CHECK", "CHANGE_ACTIONS",
           "COMMIT_FOOTERS", "PUSH_CERTIFICATES", "REVIEWER_UPDATES",
           "SUBMITTABLE", "TRACKING_IDS", "SKIP_MERGEABLE",
           "SUBMIT_REQUIREMENTS", "CUSTOM_KEYED_VALUES", "STAR", "PARENTS",
           "DRAFT_COMMENTS")

CHANGE = r"/changes/([^/]+)"
REV = CHANGE + r"/revisions/([^/]+)"


def ts(t):
    """REST timestamps: UTC with nanoseconds (NoteDb keeps seconds)."""
    return time.strftime("%Y-%m-%d %H:%M:%S.000000000", time.gmtime(t))


def handle(store, req):
    if req.path.startswith("/__emu/"):
        import gerrit_knobs
        return gerrit_knobs.http(store, req)
    path = req.path
    if path == "/a" or path.startswith("/a/"):
        path = path[2:] or "/"
        req.authed = True
    rule = take_fail(store, req)
    if rule is not None:
        resp = fail_response(rule)
    else:
        resp = route(store, req, path)
    log(store, req, resp)
    return resp


def take_fail(store, req):
    """The first fail rule matching "METHOD PATH?QUERY", used up by one."""
    with store.open() as st:
        if not st.d["fails"]:
            return None
    with store.open(write=True) as st:
        for rule in st.d["fails"]:
            if rule.get("match") and not re.search(
                    rule["match"], "%s %s" % (req.method, req.raw)):
                continue
            if rule["count"] > 0:
                rule["count"] -= 1
                if rule["count"] == 0:
                    st.d["fails"].remove(rule)
            return dict(rule)
    return None


FAIL_TEXT = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
             404: "Not Found", 405: "Method Not Allowed", 409: "Conflict",
             412: "Precondition Failed", 422: "Unprocessable Entity",
             429: "Too Many Requests", 500: "Internal Server Error",
             502: "Bad Gateway", 503: "Service Unavailable",
             504: "Gateway Timeout"}


def fail_response(rule):
    status = int(rule["status"])
    headers = {}
    if rule.get("retry_after") is not None:
        headers["Retry-After"] = str(rule["retry_after"])
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="Gerrit Code Review"'
    return text(status, rule.get("body") or FAIL_TEXT.get(status, "Error"),
                headers)


def log(store, req, resp):
    with open(store.root + "/rest.jsonl", "a") as f:
        f.write(json.dumps({"method": req.method, "path": req.raw,
                            "status": resp.status, "user": req.user,
                            "authed": req.authed}) + "\n")


def route(store, req, path):
    write = req.method in ("POST", "PUT", "DELETE")
    with store.open(write=write) as st:
        if req.authed:
            h = req.headers.get("Authorization", "")
            user = None
            if h.startswith("Basic "):
                try:
                    u, _, pw = base64.b64decode(h[6:]).decode() \
                        .partition(":")
                except (ValueError, UnicodeDecodeError):
                    u, pw = "", None
                acc = st.account(u)
                if acc and acc["username"] == u and \
                        acc["http_password"] == pw:
                    user = u
            if user is None:
                return text(401, "Unauthorized", {
                    "WWW-Authenticate": 'Basic realm="Gerrit Code Review"'})
            req.user = user
        elif write:
            raise Error(403, "Authentication required")
        for method, rx, fn in ROUTES:
            m = re.match("^" + rx + "$", path)
            if m and method == ("GET" if req.method == "HEAD"
                                else req.method):
                return fn(st, req, *m.groups())
        for method, rx, fn in ROUTES:
            if re.match("^" + rx + "$", path):
                return text(405, "Method Not Allowed")
    return text(404, "Not Found")


# ---- entities ----

def account_info(st, user, detailed):
    a = st.d["accounts"][user]
    info = {"_account_id": a["id"]}
    if detailed:
        info.update({"name": a["name"], "email": a["email"],
                     "username": a["username"], "display_name": a["name"]})
    return info


def git_person(p):
    return {"name": p["name"], "email": p["email"], "date": ts(p["date"]),
            "tz": p["tz"]}


def commit_info(st, c, ps, with_sha=False):
    cm = ps["commit"]
    parents = []
    for sha in cm["parents"]:
        msg = git(["log", "-1", "--format=%B", sha],
                  cwd=st.repo(c["project"]), check=False)
        parents.append({"commit": sha, "subject": subject_of(msg)})
    info = {}
    if with_sha:
        info["commit"] = ps["revision"]
    info.update({"parents": parents, "author": git_person(cm["author"]),
                 "committer": git_person(cm["committer"]),
                 "subject": cm["subject"], "message": cm["message"]})
    return info


def files_info(ps):
    out = {"/COMMIT_MSG": {"status": "A", "lines_inserted":
                           len(ps["commit"]["message"].splitlines()) + 6,
                           "size_delta": len(ps["commit"]["message"]),
                           "size": len(ps["commit"]["message"])}}
    for f in ps["files"]:
        e = {}
        if f["status"] != "M":
            e["status"] = f["status"]
        if f["insertions"]:
            e["lines_inserted"] = f["insertions"]
        if f["deletions"]:
            e["lines_deleted"] = f["deletions"]
        out[f["path"]] = e
    return out


def revision_info(st, c, ps, opts, current):
    detailed = "DETAILED_ACCOUNTS" in opts
    r = {"kind": ps["kind"], "_number": ps["number"],
         "created": ts(ps["created"]),
         "uploader": account_info(st, ps["uploader"], detailed),
         "ref": ps["ref"],
         "fetch": {"ssh": {"url": "ssh://127.0.0.1:%d/%s" % (
             st.d["server"]["ssh_port"], c["project"]), "ref": ps["ref"]}}}
    if "ALL_COMMITS" in opts or current and "CURRENT_COMMIT" in opts:
        r["commit"] = commit_info(st, c, ps)
    if "ALL_FILES" in opts or current and "CURRENT_FILES" in opts:
        r["files"] = files_info(ps)
    return r


def label_info(st, c, name, detailed, detailed_accounts):
    votes = st.current_votes(c).get(name, {})
    vals = LABELS[name]
    lo, hi = min(vals), max(vals)
    info = {}
    best = max(votes.items(), key=lambda kv: kv[1]["value"], default=None)
    worst = min(votes.items(), key=lambda kv: kv[1]["value"], default=None)
    if worst and worst[1]["value"] == lo:
        info["rejected"] = account_info(st, worst[0], detailed_accounts)
    elif best and best[1]["value"] == hi:
        info["approved"] = account_info(st, best[0], detailed_accounts)
    elif worst and worst[1]["value"] < 0:
        info["disliked"] = account_info(st, worst[0], detailed_accounts)
        info["value"] = worst[1]["value"]
    elif best and best[1]["value"] > 0:
        info["recommended"] = account_info(st, best[0], detailed_accounts)
        info["value"] = best[1]["value"]
    if detailed:
        allv = []
        for user in [c["owner"]] + c["reviewers"]:
            v = votes.get(user)
            a = account_info(st, user, detailed_accounts)
            a["value"] = v["value"] if v else 0
            if v:
                a["date"] = ts(v["date"])
            lo_u, hi_u = RANGES.get(user, {}).get(name, (0, 0))
            if hi_u or lo_u:
                a["permitted_voting_range"] = {"min": lo_u, "max": hi_u}
            allv.append(a)
        info["all"] = allv
        info["values"] = {("%+d" % v if v else " 0"): d
                          for v, d in sorted(vals.items())}
    info["default_value"] = 0
    return info


def message_info(st, m, detailed):
    info = {"id": m["id"], "author": account_info(st, m["author"], detailed),
            "real_author": account_info(st, m["author"], detailed),
            "date": ts(m["date"]), "message": m["message"],
            "_revision_number": m["ps"]}
    if m["tag"]:
        info["tag"] = m["tag"]
    return info


def change_info(st, c, opts):
    detailed = "DETAILED_ACCOUNTS" in opts
    ps = st.current(c)
    info = {"id": "%s~%d" % (urllib.parse.quote(c["project"], safe=""),
                             c["number"]),
            "triplet_id": "%s~%s~%s" % (
                urllib.parse.quote(c["project"], safe=""),
                urllib.parse.quote(c["branch"], safe=""), c["change_id"]),
            "project": c["project"], "branch": c["branch"]}
    if c["topic"]:
        info["topic"] = c["topic"]
    info.update({
        "attention_set": {}, "removed_from_attention_set": {},
        "hashtags": list(c["hashtags"]), "change_id": c["change_id"],
        "subject": ps["commit"]["subject"], "status": c["status"],
        "created": ts(c["created"]), "updated": ts(c["updated"])})
    if c["status"] == "MERGED":
        info["submitted"] = ts(c["submitted"])
        info["submitter"] = account_info(st, c["submitter"], detailed)
    unresolved = sum(1 for x in c["comments"] if x["unresolved"])
    info.update({
        "insertions": ps["insertions"], "deletions": ps["deletions"],
        "total_comment_count": len(c["comments"]),
        "unresolved_comment_count": unresolved,
        "has_review_started": c["review_started"],
        "_number": c["number"], "virtual_id_number": c["number"],
        "owner": account_info(st, c["owner"], detailed),
        "requirements": []})
    if c["wip"]:
        info["work_in_progress"] = True
    if c["private"]:
        info["is_private"] = True
    if "LABELS" in opts or "DETAILED_LABELS" in opts:
        info["labels"] = {n: label_info(st, c, n, "DETAILED_LABELS" in opts,
                                        detailed) for n in LABEL_ORDER}
        if "DETAILED_LABELS" in opts:
            perm = {}
            for n in LABEL_ORDER:
                lo, hi = (0, 0)
                if "_user" in opts:
                    lo, hi = RANGES.get(opts["_user"], {}).get(n, (0, 0))
                if lo or hi:
                    perm[n] = [("%+d" % v if v else " 0")
                               for v in sorted(LABELS[n]) if lo <= v <= hi]
            info["permitted_labels"] = perm
        info["removable_reviewers"] = []
        info["reviewers"] = {}
        if c["reviewers"]:
            info["reviewers"]["REVIEWER"] = [
                account_info(st, u, detailed) for u in c["reviewers"]]
        if c["cc"]:
            info["reviewers"]["CC"] = [account_info(st, u, detailed)
                                       for u in c["cc"]]
    if "MESSAGES" in opts:
        info["messages"] = [message_info(st, m, detailed)
                            for m in c["messages"]]
    if "CURRENT_REVISION" in opts or "ALL_REVISIONS" in opts:
        info["current_revision"] = ps["revision"]
        info["current_revision_number"] = ps["number"]
        pss = c["patch_sets"] if "ALL_REVISIONS" in opts else [ps]
        info["revisions"] = {p["revision"]: revision_info(st, c, p, opts,
                                                          p is ps)
                             for p in pss}
    if "SUBMITTABLE" in opts:
        votes = st.current_votes(c)
        info["submittable"] = c["status"] == "NEW" and any(
            v["value"] == 2 for v in votes.get("Code-Review", {}).values()) \
            and not any(v["value"] == -2 for v in
                        votes.get("Code-Review", {}).values())
    return info


def options(req):
    opts = {}
    for o in req.args("o"):
        o = o.upper()
        if o not in OPTIONS:
            raise Error(400, '"%s" is not a valid value for "-o"' % o)
        opts[o] = True
    if req.user:
        opts["_user"] = req.user
    return opts


# ---- routes ----

def get_version(st, req):
    return json_response(req, VERSION)


def get_self(st, req):
    if req.user is None:
        raise Error(403, "Authentication required")
    return json_response(req, account_json(st, req.user))


def account_json(st, user):
    a = st.d["accounts"][user]
    return {"_account_id": a["id"], "name": a["name"], "email": a["email"],
            "username": a["username"], "display_name": a["name"],
            "registered_on": ts(a["registered"])}


def get_account(st, req, ident):
    if ident == "self":
        return get_self(st, req)
    a = st.account(urllib.parse.unquote(ident))
    if a is None:
        raise Error(404, "Account '%s' not found" % ident)
    return json_response(req, account_json(st, a["username"]))


def query_changes(st, req):
    opts = options(req)
    qs = req.args("q") or ["status:open"]
    try:
        start = int(req.arg("S", req.arg("start", "0")))
        n = req.arg("n", req.arg("limit"))
        n = int(n) if n is not None else None
    except ValueError:
        raise Error(400, "Invalid number")
    results = []
    for q in qs:
        rows, more = gerrit_query.run(st, q, req.user, start, n)
        lst = [change_info(st, c, opts) for c in rows]
        if more and lst:
            lst[-1]["_more_changes"] = True
        results.append(lst)
    return json_response(req, results[0] if len(qs) == 1 else results)


def get_change(st, req, ident):
    c = st.resolve(ident, req.user)
    return json_response(req, change_info(st, c, options(req)))


def get_detail(st, req, ident):
    c = st.resolve(ident, req.user)
    opts = options(req)
    for o in ("LABELS", "DETAILED_LABELS", "DETAILED_ACCOUNTS", "MESSAGES",
              "REVIEWER_UPDATES", "SUBMITTABLE"):
        opts[o] = True
    return json_response(req, change_info(st, c, opts))


def get_topic(st, req, ident):
    c = st.resolve(ident, req.user)
    return json_response(req, c["topic"] or "")


def put_topic(st, req, ident):
    c = st.resolve(ident, req.user)
    body = parse_body(req) if req.method == "PUT" else {}
    topic = body.get("topic") if isinstance(body, dict) else body
    st.set_topic(c, req.user, topic or "")
    if not topic:
        return Response(204, b"")
    return json_response(req, topic)


def get_messages(st, req, ident):
    c = st.resolve(ident, req.user)
    return json_response(req, [message_info(st, m, True)
                               for m in c["messages"]])


def get_comments(st, req, ident):
    c = st.resolve(ident, req.user)
    out = {}
    for x in c["comments"]:
        e = {"id": x["id"], "patch_set": x["ps"],
             "author": account_info(st, x["author"], True),
             "updated": ts(x["updated"]), "message": x["message"],
             "unresolved": x["unresolved"]}
        if x["line"]:
            e["line"] = x["line"]
        out.setdefault(x["path"], []).append(e)
    return json_response(req, out)


def get_revision_commit(st, req, ident, rev):
    c = st.resolve(ident, req.user)
    ps = st.patch_set(c, rev)
    return json_response(req, commit_info(st, c, ps, with_sha=True))


def get_revision_files(st, req, ident, rev):
    c = st.resolve(ident, req.user)
    return json_response(req, files_info(st.patch_set(c, rev)))


def get_revision_review(st, req, ident, rev):
    c = st.resolve(ident, req.user)
    st.patch_set(c, rev)
    opts = options(req)
    for o in ("LABELS", "DETAILED_LABELS", "DETAILED_ACCOUNTS", "MESSAGES",
              "CURRENT_REVISION", "CURRENT_COMMIT"):
        opts[o] = True
    return json_response(req, change_info(st, c, opts))


def get_patch(st, req, ident, rev):
    c = st.resolve(ident, req.user)
    ps = st.patch_set(c, rev)
    raw = req.has("raw")
    if raw and req.has("zip"):
        raise Error(400, "raw and zip options are mutually exclusive")
    parents = ps["commit"]["parents"]
    if len(parents) > 1:
        raise Error(409, "Revision has more than 1 parent.")
    if not parents:
        raise Error(409, "Revision has no parent.")
    path = req.arg("path")
    cm = ps["commit"]
    body = ""
    if path is None:
        a = cm["author"]
        off = a["tz"]
        date = time.strftime("%a, %d %b %Y %H:%M:%S", time.gmtime(
            a["date"] + off * 60)) + " %s%02d%02d" % (
                "-" if off < 0 else "+", abs(off) // 60, abs(off) % 60)
        msg = cm["message"][len(cm["message"].split("\n", 1)[0]):]
        if msg.startswith("\n\n"):
            msg = msg[2:]
        if msg.startswith("\n"):
            msg = msg[1:]
        body = "From %s Mon Sep 17 00:00:00 2001\nFrom: %s <%s>\nDate: %s\n" \
            "Subject: [PATCH] %s\n\n%s" % (ps["revision"], a["name"],
                                          a["email"], date, cm["subject"],
                                          msg)
        if not body.endswith("\n"):
            body += "\n"
        body += "---\n\n"
    args = ["-c", "core.abbrev=7", "diff", "--no-color", "--no-ext-diff",
            parents[0], ps["revision"]]
    if path is not None:
        args += ["--", path]
    diff = git(args, cwd=st.repo(c["project"]))
    if path is not None and not diff:
        raise Error(404, "File not found: %s." % path)
    data = (body + diff).encode("utf-8")
    short = ps["revision"][:7] + ".diff"
    if req.has("zip"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            info = zipfile.ZipInfo(short, time.gmtime(
                cm["committer"]["date"])[:6])
            z.writestr(info, data)
        return Response(200, buf.getvalue(), "application/zip", {
            "Content-Disposition": 'attachment; filename="%s.zip"' % short})
    if raw:
        h = {"X-Content-Type-Options": "nosniff"}
        if req.has("download"):
            h["Content-Disposition"] = 'attachment; filename="%s"' % short
        return Response(200, data, "text/plain; charset=UTF-8", h)
    h = {"X-FYI-Content-Encoding": "base64",
         "X-FYI-Content-Type": "application/mbox",
         "X-Content-Type-Options": "nosniff"}
    if req.has("download"):
        h["Content-Disposition"] = 'attachment; filename="%s.base64"' % short
    return Response(200, base64.b64encode(data),
                    "text/plain; charset=ISO-8859-1", h)


def related(st, c, ps):
    """The relation chain through ps: [(change, patch set)], newest
    descendant first, then c itself, then its ancestors (nearest first);
    only open changes of the same project and branch."""
    by_sha = {}
    for x in st.changes():
        if x["project"] != c["project"] or x["branch"] != c["branch"]:
            continue
        if x["status"] != "NEW" and x is not c:
            continue
        for p in x["patch_sets"]:
            by_sha[p["revision"]] = (x, p)
    ancestors = []
    seen = {c["number"]}
    parents = ps["commit"]["parents"]
    while len(parents) == 1 and parents[0] in by_sha:
        x, p = by_sha[parents[0]]
        if x["number"] in seen:
            break
        seen.add(x["number"])
        ancestors.append((x, p))
        parents = p["commit"]["parents"]
    descendants = []
    for x in st.changes():
        if x["number"] in seen or x["project"] != c["project"] or \
                x["status"] != "NEW" or x["branch"] != c["branch"]:
            continue
        p = st.current(x)
        depth = 0
        cur = p
        while True:
            depth += 1
            par = cur["commit"]["parents"]
            if len(par) != 1:
                break
            if par[0] == ps["revision"]:
                descendants.append((depth, x, p))
                break
            if par[0] not in by_sha:
                break
            cur = by_sha[par[0]][1]
            if depth > 1000:
                break
    descendants.sort(key=lambda d: (-d[0], -d[1]["number"]))
    chain = [(x, p) for _, x, p in descendants] + [(c, ps)] + ancestors
    return chain if len(chain) > 1 else []


def get_related(st, req, ident, rev):
    c = st.resolve(ident, req.user)
    ps = st.patch_set(c, rev)
    out = []
    for x, p in related(st, c, ps):
        cm = p["commit"]
        out.append({"project": x["project"], "change_id": x["change_id"],
                    "commit": {"commit": p["revision"],
                               "parents": [{"commit": s}
                                           for s in cm["parents"]],
                               "author": git_person(cm["author"]),
                               "subject": cm["subject"]},
                    "_change_number": x["number"],
                    "_revision_number": p["number"],
                    "_current_revision_number": len(x["patch_sets"]),
                    "status": x["status"]})
    return json_response(req, {"changes": out})


def parse_body(req):
    """RestApiServlet.parseRequest: JSON (an object, or a string), text/plain
    as a string, a POSTed form; no body at all is an empty input."""
    ctype = req.headers.get("Content-Type")
    mime = (ctype or "").split(";")[0].strip().lower()
    if not req.body and ctype is None:
        return {}
    if mime == "application/json":
        try:
            v = json.loads(req.body.decode("utf-8") or "null")
        except (ValueError, UnicodeDecodeError) as e:
            raise Error(400, str(e))
        if v is None:
            return {}
        if not isinstance(v, (dict, str)):
            raise Error(400, "Expected JSON object")
        return v
    if mime == "text/plain":
        return req.body.decode("utf-8", "replace")
    if req.method == "POST" and mime == "application/x-www-form-urlencoded":
        if not req.body:
            return {}
        form = urllib.parse.parse_qs(req.body.decode("utf-8", "replace"))
        return {k: v[-1] for k, v in form.items()}
    raise Error(400, "Expected Content-Type: application/json")


def post_review(st, req, ident, rev):
    c = st.resolve(ident, req.user)
    ps = st.patch_set(c, rev)
    ri = parse_body(req)
    if not isinstance(ri, dict):
        ri = {"message": ri}
    notify = ri.get("notify")
    if notify is not None and notify not in ("NONE", "OWNER",
                                             "OWNER_REVIEWERS", "ALL"):
        raise Error(400, "Invalid value for notify: %s" % notify)
    labels = ri.get("labels") or {}
    comments = ri.get("comments") or {}
    for path, lst in comments.items():
        for cm in lst:
            if path != "/COMMIT_MSG" and path != "/PATCHSET_LEVEL" and \
                    path not in [f["path"] for f in ps["files"]]:
                raise Error(400, "file %s not found in revision %s,%d" % (
                    path, c["number"], ps["number"]))
    applied = st.review(c, ps, req.user, ri.get("message") or "", labels,
                        ri.get("tag"), comments,
                        strict=ri.get("strict_labels", True),
                        ready=ri.get("ready"),
                        wip=ri.get("work_in_progress"))
    out = {}
    if applied or labels:
        out["labels"] = applied
    if ri.get("ready"):
        out["ready"] = True
    return json_response(req, out)


def post_move(what):
    """POST /changes/{id}/abandon or /restore with {"message"}."""
    def post(st, req, ident):
        c = st.resolve(ident, req.user)
        body = parse_body(req)
        if isinstance(body, str):
            body = {"message": body}
        st.move(c, what, req.user, body.get("message") or "")
        return json_response(req, change_info(st, c, {}))
    return post


def post_submit(st, req, ident):
    c = st.resolve(ident, req.user)
    if not st.is_admin(req.user) and req.user != "bob":
        raise Error(403, "submit not permitted")
    st.submit(c, req.user)
    return json_response(req, change_info(st, c, {}))


def get_commit_msg_hook(st, req):
    from gerrit_push import COMMIT_MSG_HOOK
    return Response(200, COMMIT_MSG_HOOK, "application/octet-stream")


def list_projects(st, req):
    return json_response(req, {p: {"id": urllib.parse.quote(p, safe=""),
                                   "state": "ACTIVE"}
                               for p in sorted(st.d["projects"])})


ROUTES = [
    ("GET", "/config/server/version", get_version),
    ("GET", "/accounts/([^/]+)", get_account),
    ("GET", "/changes/", query_changes),
    ("GET", CHANGE, get_change),
    ("GET", CHANGE + "/detail", get_detail),
    ("GET", CHANGE + "/topic", get_topic),
    ("PUT", CHANGE + "/topic", put_topic),
    ("DELETE", CHANGE + "/topic", put_topic),
    ("GET", CHANGE + "/messages", get_messages),
    ("GET", CHANGE + "/comments", get_comments),
    ("POST", CHANGE + "/abandon", post_move("abandon")),
    ("POST", CHANGE + "/restore", post_move("restore")),
    ("POST", CHANGE + "/submit", post_submit),
    ("GET", REV + "/commit", get_revision_commit),
    ("GET", REV + "/files/?", get_revision_files),
    ("GET", REV + "/review", get_revision_review),
    ("GET", REV + "/patch", get_patch),
    ("GET", REV + "/related", get_related),
    ("POST", REV + "/review", post_review),
    ("GET", "/tools/hooks/commit-msg", get_commit_msg_hook),
    ("GET", "/projects/", list_projects),
]
