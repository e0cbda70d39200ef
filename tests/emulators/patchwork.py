#!/usr/bin/python3
"""A Patchwork REST API emulator for patchrelay's tests (stdlib only).

  /usr/bin/python3 tests/emulators/patchwork.py --root DIR --port-file FILE [--port 0]

API at http://127.0.0.1:PORT/api/ (and /api/1.0/ .. /api/1.4/), mboxes at
/series/ID/mbox/ and /project/LINKNAME/{patch,cover}/MSGID/mbox/.  Mails
fed through POST /_emu/mail are parsed and grouped into series as
Patchwork's parser does (apis.md section 4), so a test feeds it the mbox a
list got.  See README.md beside this file.
"""

import datetime
import email.header
import email.parser
import email.policy
import email.utils
import hashlib
import os
import re
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ApiError, Emulator, Response, link_header, \
    main  # noqa: E402
from pwhash import hash_diff, split_body  # noqa: E402

DEFAULT_STATES = ["new", "under-review", "accepted", "rejected", "rfc",
                  "not-applicable", "changes-requested",
                  "awaiting-upstream", "superseded", "deferred"]
CHECK_STATES = ["pending", "success", "warning", "fail"]
LATEST = "1.4"
PER_PAGE, MAX_PER_PAGE = 30, 250
SERIES_DELAY = 20 * 60  # SERIES_DELAY_INTERVAL, seconds
NO_RIGHTS = "You do not have permission to perform this action."
NO_CREDENTIALS = "Authentication credentials were not provided."
RESPONSE_RE = re.compile(
    r"^(Tested|Reviewed|Acked|Signed-off|Nacked|Reported)-by:.*$",
    re.M | re.I)


def iso(t):
    """Django's rendering of a naive UTC datetime (microseconds if any)."""
    us = round(t * 1e6)
    d = datetime.datetime.fromtimestamp(us // 1000000, datetime.timezone.utc)
    d = d.replace(tzinfo=None, microsecond=us % 1000000)
    return d.isoformat()


def parse_iso(s):
    try:
        d = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        return None
    if d.tzinfo is None:
        d = d.replace(tzinfo=datetime.timezone.utc)
    return d.timestamp()


def state_name(slug):
    return " ".join(w.capitalize() for w in slug.split("-"))


def slugify(s):
    s = re.sub(r"[^\w\s-]", "", s.lower()).strip()
    return re.sub(r"[-\s]+", "-", s)


def normalise_space(s):
    return re.sub(r"\s+", " ", s).strip()


def split_prefixes(prefix):
    tokens = []
    m = re.match(r"^PATCH (\d+ of \d+)(.*)$", prefix)
    if m:
        tokens += ["PATCH", m.group(1)]
        prefix = m.group(2)
    return tokens + [t for t in re.split(r"[,\s]+", prefix) if t]


def clean_subject(subject, drop):
    """(name, prefixes): Re:/Fwd: and [PATCH], [linkname] dropped."""
    drop = [d.lower() for d in drop] + ["patch"]
    subject = normalise_space(re.sub(r"^(re|fwd?)[:\s]\s*", " ", subject,
                                     flags=re.I))
    prefixes = []
    m = re.match(r"^\[([^\]]*)\]\s*(.*)$", subject)
    while m:
        prefixes += [p for p in split_prefixes(m.group(1))
                     if p.lower() not in drop]
        subject = m.group(2)
        m = re.match(r"^\[([^\]]*)\]\s*(.*)$", subject)
    subject = normalise_space(subject)
    if prefixes:
        subject = "[%s] %s" % (",".join(prefixes), subject)
    return subject, prefixes


def series_marker(prefixes):
    for p in prefixes:
        m = re.match(r".*?([0-9]+)(?:/| of )([0-9]+)$", p)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None, None


def parse_version(name, prefixes):
    for p in prefixes:
        m = re.match(r"^[vV](\d+)$", p)
        if m:
            return int(m.group(1))
    m = re.search(r"\([vV](\d+)\)", name)
    return int(m.group(1)) if m else 1


def msgids(value):
    return re.findall(r"<[^>]+>", value or "")


def split_mbox(text):
    """The messages of an mbox (mboxrd unquoting) or of one bare mail."""
    msgs, cur = [], None
    for line in text.split("\n"):
        if line.startswith("From ") and (cur is None or not cur or
                                         cur[-1] == ""):
            if cur:
                msgs.append("\n".join(cur))
            cur = []
            continue
        if cur is None:
            cur = []
        if re.match(r"^>+From ", line):
            line = line[1:]
        cur.append(line)
    if cur:
        msgs.append("\n".join(cur))
    return msgs


class Patchwork(Emulator):
    name = "patchwork"

    def __init__(self, root):
        super().__init__(root)
        st = self.state
        for key, val in (("projects", {}), ("people", {}), ("patches", {}),
                         ("covers", {}), ("series", {}), ("refs", {}),
                         ("events", []), ("states", DEFAULT_STATES),
                         ("persist", True)):
            st.setdefault(key, val)

    def api_routes(self):
        return []

    # ---- plumbing ----

    def ratelimit_headers(self):
        return {}

    def secondary_body(self, status):
        if status == 429:
            return {"detail": "Request was throttled. Expected available "
                              "in 1 second."}
        if status == 503:
            return "<h1>Service Unavailable</h1>"
        return {"detail": "error %d" % status}

    def user_json(self, req, u):
        if u is None:
            return None
        return {"id": u["id"], "url": self.url(req, "users/%d/" % u["id"]),
                "username": u["login"], "first_name": u.get("name", ""),
                "last_name": "", "email": u["email"]}

    def url(self, req, rest):
        v = getattr(req, "version", None)
        return "%s/api/%s%s" % (req.base, v + "/" if v else "", rest)

    def authenticate(self, req):
        auth = req.headers.get("Authorization", "")
        scheme, _, cred = auth.strip().partition(" ")
        if scheme.lower() == "token":
            u = self.user_by_token(cred.strip())
            if u is None:
                raise ApiError(403, {"detail": "Invalid token."})
            req.user = u
        elif scheme.lower() == "basic":
            import base64
            try:
                login, _, pw = base64.b64decode(cred).decode().partition(":")
            except ValueError:
                raise ApiError(403, {"detail": "Invalid basic header. "
                                     "Credentials not correctly base64 "
                                     "encoded."})
            u = self.state["users"].get(login)
            if u is None or u["token"] != pw:
                raise ApiError(403, {"detail": "Invalid username/password."})
            req.user = u

    def not_found(self, what=None):
        return ApiError(404, {"detail": "Not found."})

    def paged(self, req, items, render):
        try:
            per_page = int(req.arg("per_page", PER_PAGE))
            if per_page < 1:
                per_page = PER_PAGE
        except ValueError:
            per_page = PER_PAGE
        per_page = min(per_page, self.state.get("max_per_page",
                                                MAX_PER_PAGE))
        pages = max(1, (len(items) + per_page - 1) // per_page)
        try:
            page = int(req.arg("page", 1))
        except ValueError:
            page = 0
        if page < 1 or page > pages:
            raise ApiError(404, {"detail": "Invalid page."})
        chunk = items[(page - 1) * per_page:page * per_page]
        r = Response(200, [render(x) for x in chunk])
        r.headers["Link"] = link_header(req, page, pages, True)
        r.headers["Allow"] = "GET, HEAD, OPTIONS"
        return r

    # ---- lookups ----

    def project(self, key):
        for p in self.state["projects"].values():
            if str(p["id"]) == str(key) or \
                    p["link_name"].lower() == str(key).lower():
                return p
        return None

    def project_by_id(self, pid):
        return self.project(str(pid))

    def person(self, email_addr, name=None):
        people = self.state["people"]
        key = email_addr.lower()
        p = people.get(key)
        if p is None:
            p = {"id": self.new_id(), "name": name, "email": email_addr}
            people[key] = p
        elif name and name != p["name"]:
            p["name"] = name
        return p

    def person_by_id(self, pid):
        for p in self.state["people"].values():
            if p["id"] == pid:
                return p
        return None

    def user_of(self, person):
        for u in self.state["users"].values():
            if u["email"].lower() == person["email"].lower():
                return u
        return None

    def user_by_id(self, uid):
        for u in self.state["users"].values():
            if u["id"] == uid:
                return u
        return None

    def get(self, kind, ident):
        obj = self.state[kind].get(str(ident))
        if obj is None:
            raise self.not_found()
        return obj

    def editable(self, user, patch):
        """Patch.is_editable: a maintainer, the submitter or the delegate."""
        if user is None:
            return False
        proj = self.project_by_id(patch["project"])
        sub = self.person_by_id(patch["submitter"])
        if sub and sub["email"].lower() == user["email"].lower():
            return True
        if patch["delegate"] == user["id"]:
            return True
        return user["login"] in proj["maintainers"]

    # ---- rendering ----

    def project_json(self, req, p):
        return {"id": p["id"], "url": self.url(req, "projects/%d/" % p["id"]),
                "name": p["name"], "link_name": p["link_name"],
                "list_id": p["list_id"], "list_email": p["list_email"],
                "web_url": p.get("web_url", ""), "scm_url": "",
                "webscm_url": "", "list_archive_url": "",
                "list_archive_url_format": "", "commit_url_format": ""}

    def person_json(self, req, pid):
        p = self.person_by_id(pid)
        return {"id": p["id"], "url": self.url(req, "people/%d/" % p["id"]),
                "name": p["name"], "email": p["email"]}

    def web(self, req, obj, kind):
        proj = self.project_by_id(obj["project"])
        return "%s/project/%s/%s/%s/" % (
            req.base, proj["link_name"], kind,
            urllib.parse.quote(obj["msgid"][1:-1], safe="@+=.-_"))

    def embedded(self, req, kind, obj):
        """The short form events and lists embed (embedded.py)."""
        if kind == "series":
            return {"id": obj["id"],
                    "url": self.url(req, "series/%d/" % obj["id"]),
                    "web_url": self.series_web(req, obj),
                    "date": iso(obj["date"]), "name": obj["name"],
                    "version": obj["version"],
                    "mbox": "%s/series/%d/mbox/" % (req.base, obj["id"])}
        if kind == "check":
            return {"id": obj["id"], "url": self.url(
                req, "patches/%d/checks/%d/" % (obj["patch"], obj["id"])),
                "date": iso(obj["date"]), "state": obj["state"],
                "target_url": obj["target_url"], "context": obj["context"]}
        path = "patches" if kind == "patch" else "covers"
        w = self.web(req, obj, kind)
        return {"id": obj["id"],
                "url": self.url(req, "%s/%d/" % (path, obj["id"])),
                "web_url": w, "msgid": obj["msgid"],
                "list_archive_url": None, "date": iso(obj["date"]),
                "name": obj["name"], "mbox": w + "mbox/"}

    def series_web(self, req, s):
        proj = self.project_by_id(s["project"])
        return "%s/project/%s/list/?series=%d" % (req.base,
                                                  proj["link_name"], s["id"])

    def latest_checks(self, patch):
        """The newest check per (user, context)."""
        newest = {}
        for c in patch["checks"]:
            newest[(c["user"], c["context"])] = c
        return list(newest.values())

    def combined(self, patch):
        states = [c["state"] for c in self.latest_checks(patch)]
        for s in ("fail", "warning", "pending"):
            if s in states:
                return s
        return "success" if states else "pending"

    def patch_json(self, req, p, detail=False):
        proj = self.project_by_id(p["project"])
        w = self.web(req, p, "patch")
        s = self.state["series"].get(str(p["series"])) if p["series"] \
            else None
        out = {"id": p["id"], "url": self.url(req, "patches/%d/" % p["id"]),
               "web_url": w, "project": self.project_json(req, proj),
               "msgid": p["msgid"], "list_archive_url": None,
               "date": iso(p["date"]), "name": p["name"],
               "commit_ref": p["commit_ref"], "pull_url": None,
               "state": p["state"], "archived": p["archived"],
               "hash": p["hash"],
               "submitter": self.person_json(req, p["submitter"]),
               "delegate": self.user_json(req, self.user_by_id(
                   p["delegate"])) if p["delegate"] else None,
               "mbox": w + "mbox/",
               "series": [self.embedded(req, "series", s)] if s else [],
               "comments": self.url(req, "patches/%d/comments/" % p["id"]),
               "check": self.combined(p),
               "checks": self.url(req, "patches/%d/checks/" % p["id"]),
               "tags": {}, "related": []}
        if detail:
            headers = {}
            for k, v in p["headers"]:
                headers.setdefault(k, []).append(v)
            out.update({"headers": {k: v[0] if len(v) == 1 else v
                                    for k, v in headers.items()},
                        "content": p["content"], "diff": p["diff"],
                        "prefixes": p["prefixes"]})
        return out

    def cover_json(self, req, c, detail=False):
        proj = self.project_by_id(c["project"])
        w = self.web(req, c, "cover")
        s = self.state["series"].get(str(c["series"])) if c["series"] \
            else None
        out = {"id": c["id"], "url": self.url(req, "covers/%d/" % c["id"]),
               "web_url": w, "project": self.project_json(req, proj),
               "msgid": c["msgid"], "list_archive_url": None,
               "date": iso(c["date"]), "name": c["name"],
               "submitter": self.person_json(req, c["submitter"]),
               "mbox": w + "mbox/",
               "series": [self.embedded(req, "series", s)] if s else [],
               "comments": self.url(req, "covers/%d/comments/" % c["id"])}
        if detail:
            out.update({"headers": {k: v for k, v in c["headers"]},
                        "content": c["content"]})
        return out

    def series_json(self, req, s):
        proj = self.project_by_id(s["project"])
        patches = sorted((self.state["patches"][str(i)]
                          for i in s["patches"]), key=lambda p: p["number"])
        cover = self.state["covers"].get(str(s["cover"])) if s["cover"] \
            else None
        out = self.embedded(req, "series", s)
        out.update({
            "project": self.project_json(req, proj),
            "submitter": self.person_json(req, s["submitter"]),
            "total": s["total"], "received_total": len(patches),
            "received_all": s["total"] <= len(patches),
            "cover_letter": self.embedded(req, "cover", cover)
            if cover else None,
            "patches": [self.embedded(req, "patch", p) for p in patches]})
        if not req.version or req.version >= "1.4":
            out["dependencies"] = []
            out["dependents"] = []
        return out

    def check_json(self, req, c):
        return {"id": c["id"], "url": self.url(
            req, "patches/%d/checks/%d/" % (c["patch"], c["id"])),
            "user": self.user_json(req, self.user_by_id(c["user"])),
            "date": iso(c["date"]), "state": c["state"],
            "target_url": c["target_url"], "context": c["context"],
            "description": c["description"]}

    def event_json(self, req, e):
        proj = self.project_by_id(e["project"])
        payload = {}
        for k, v in e["payload"].items():
            if k in ("patch", "series", "cover"):
                obj = self.state[{"patch": "patches", "series": "series",
                                  "cover": "covers"}[k]][str(v)]
                payload[k] = self.embedded(req, k, obj)
            elif k == "check":
                patch = self.state["patches"][str(e["payload"]["patch"])]
                c = [x for x in patch["checks"] if x["id"] == v][0]
                payload[k] = self.embedded(req, "check", c)
            else:
                payload[k] = v
        out = {"id": e["id"], "category": e["category"],
               "project": self.project_json(req, proj),
               "date": iso(e["date"]), "payload": payload}
        if not req.version or req.version >= "1.2":
            out["actor"] = self.user_json(req, self.user_by_id(e["actor"])) \
                if e["actor"] else None
        return out

    # ---- filters ----

    def timestamps(self, req, items):
        """since (>=) and before (<) on date; a bad value empties."""
        for name, keep in (("since", lambda d, t: d >= t),
                           ("before", lambda d, t: d < t)):
            val = req.arg(name)
            if val is None:
                continue
            t = parse_iso(val)
            if t is None:
                return []
            # in whole microseconds, as the database compares them
            items = [x for x in items
                     if keep(round(x["date"] * 1e6), round(t * 1e6))]
        return items

    def search(self, req, items):
        """q: every term (split on blanks and commas) in the name."""
        terms = (req.arg("q") or "").replace("\x00", "").replace(
            ",", " ").lower().split()
        return [x for x in items
                if all(t in (x["name"] or "").lower() for t in terms)]

    def ordered(self, req, items, default, fields):
        order = req.arg("order", default)
        key = order.lstrip("-")
        if key not in fields:
            order, key = default, default.lstrip("-")
        return sorted(items, key=lambda x: (x[key], x["id"]),
                      reverse=order.startswith("-"))

    def filter_project(self, req, items):
        vals = req.query.get("project")
        if not vals:
            return items
        ids = []
        for v in vals:
            p = self.project(v)
            if p is None:
                return None
            ids.append(p["id"])
        return [x for x in items if x["project"] in ids]

    def list_patches(self, req):
        items = self.filter_project(req, list(
            self.state["patches"].values()))
        if items is None:
            return self.paged(req, [], None)
        q = req.query
        if q.get("series"):
            try:
                sids = [int(v) for v in q["series"]]
            except ValueError:
                return self.paged(req, [], None)
            items = [p for p in items if p["series"] in sids]
        if q.get("submitter"):
            who = set()
            for v in q["submitter"]:
                p = self.person_by_id(int(v)) if v.isdigit() else \
                    self.state["people"].get(v.lower())
                if p is None:
                    return self.paged(req, [], None)
                who.add(p["id"])
            items = [p for p in items if p["submitter"] in who]
        if q.get("state"):
            slugs = set()
            for v in q["state"]:
                match = [s for i, s in enumerate(self.state["states"])
                         if v == str(i + 1) or state_name(s).lower() ==
                         " ".join(v.split("-")).lower()]
                if not match:
                    return self.paged(req, [], None)
                slugs.add(match[0])
            items = [p for p in items if p["state"] in slugs]
        if req.arg("archived") is not None:
            a = req.arg("archived").lower()
            if a not in ("true", "false", "1", "0"):
                return self.paged(req, [], None)
            items = [p for p in items
                     if p["archived"] == (a in ("true", "1"))]
        if not req.version or req.version >= "1.2":
            if req.arg("hash") is not None:
                h = req.arg("hash").lower()
                items = [p for p in items if (p["hash"] or "") == h]
            if req.arg("msgid") is not None:
                m = "<" + req.arg("msgid") + ">"
                items = [p for p in items if p["msgid"] == m]
        items = self.search(req, items)
        items = self.ordered(req, self.timestamps(req, items), "id",
                             ("id", "name", "date", "state", "archived"))
        return self.paged(req, items, lambda p: self.patch_json(req, p))

    # ---- routes ----

    def route(self, req):
        m = re.match(r"^/api(?:/(1\.[0-4]))?(/.*)$", req.path)
        if not m:
            return self.web_route(req)
        req.version = m.group(1)
        path = m.group(2)
        get = req.method in ("GET", "HEAD")
        if path == "/" and get:
            return Response(200, {k: self.url(req, k + "/") for k in (
                "bundles", "covers", "events", "patches", "people",
                "projects", "series", "users")})
        if path == "/projects/" and get:
            items = sorted(self.state["projects"].values(),
                           key=lambda p: p["link_name"])
            return self.paged(req, items,
                              lambda p: self.project_json(req, p))
        m = re.match(r"^/projects/([^/]+)/$", path)
        if m and get:
            p = self.project(m.group(1))
            if p is None:
                raise self.not_found()
            return Response(200, self.project_json(req, p))
        if path == "/patches/" and get:
            return self.list_patches(req)
        m = re.match(r"^/patches/(\d+)/$", path)
        if m:
            p = self.get("patches", m.group(1))
            if get:
                return Response(200, self.patch_json(req, p, True))
            if req.method in ("PATCH", "PUT"):
                return self.update_patch(req, p)
        m = re.match(r"^/patches/(\d+)/checks/$", path)
        if m:
            p = self.get("patches", m.group(1))
            if get:
                items = self.timestamps(req, sorted(
                    p["checks"], key=lambda c: c["id"]))
                for k in ("context", "state"):
                    if req.arg(k):
                        items = [c for c in items if c[k] == req.arg(k)]
                return self.paged(req, items,
                                  lambda c: self.check_json(req, c))
            if req.method == "POST":
                return self.post_check(req, p)
        m = re.match(r"^/patches/(\d+)/checks/(\d+)/$", path)
        if m and get:
            p = self.get("patches", m.group(1))
            for c in p["checks"]:
                if c["id"] == int(m.group(2)):
                    return Response(200, self.check_json(req, c))
            raise self.not_found()
        m = re.match(r"^/(patches|covers)/(\d+)/comments/$", path)
        if m and get:
            obj = self.get(m.group(1), m.group(2))
            return self.paged(req, obj["comments"], lambda c: {
                "id": c["id"], "msgid": c["msgid"], "date": iso(c["date"]),
                "subject": c["subject"], "content": c["content"],
                "submitter": self.person_json(req, c["submitter"])})
        if path == "/covers/" and get:
            items = self.filter_project(req, list(
                self.state["covers"].values())) or []
            if req.arg("msgid") is not None:
                items = [c for c in items
                         if c["msgid"] == "<" + req.arg("msgid") + ">"]
            items = self.ordered(req, self.timestamps(req, items), "id",
                                 ("id", "name", "date"))
            return self.paged(req, items, lambda c: self.cover_json(req, c))
        m = re.match(r"^/covers/(\d+)/$", path)
        if m and get:
            return Response(200, self.cover_json(
                req, self.get("covers", m.group(1)), True))
        if path == "/series/" and get:
            return self.list_series(req)
        m = re.match(r"^/series/(\d+)/$", path)
        if m and get:
            return Response(200, self.series_json(
                req, self.get("series", m.group(1))))
        if path == "/events/" and get:
            return self.list_events(req)
        if path == "/users/" and get:
            return self.paged(req, sorted(self.state["users"].values(),
                                          key=lambda u: u["id"]),
                              lambda u: self.user_json(req, u))
        if path == "/people/" and get:
            return self.paged(req, sorted(self.state["people"].values(),
                                          key=lambda p: p["id"]),
                              lambda p: self.person_json(req, p["id"]))
        if re.match(r"^/(projects|patches|covers|series|events|users|"
                    r"people|bundles)/", path) and not get:
            raise ApiError(405, {"detail": 'Method "%s" not allowed.' %
                                 req.method})
        raise self.not_found()

    def list_series(self, req):
        items = self.filter_project(req, list(
            self.state["series"].values()))
        if items is None:
            return self.paged(req, [], None)
        if req.arg("submitter"):
            v = req.arg("submitter")
            p = self.person_by_id(int(v)) if v.isdigit() else \
                self.state["people"].get(v.lower())
            items = [s for s in items if p and s["submitter"] == p["id"]]
        items = self.search(req, items)
        items = self.ordered(req, self.timestamps(req, items), "id",
                             ("id", "name", "date"))
        return self.paged(req, items, lambda s: self.series_json(req, s))

    def list_events(self, req):
        items = self.filter_project(req, list(self.state["events"]))
        if items is None:
            return self.paged(req, [], None)
        for key in ("category",):
            if req.query.get(key):
                items = [e for e in items if e[key] in req.query[key]]
        for key in ("series", "patch", "cover"):
            if req.query.get(key):
                try:
                    ids = [int(v) for v in req.query[key]]
                except ValueError:
                    return self.paged(req, [], None)
                items = [e for e in items if e["payload"].get(key) in ids]
        items = self.ordered(req, self.timestamps(req, items), "-date",
                             ("date",))
        return self.paged(req, items, lambda e: self.event_json(req, e))

    def update_patch(self, req, p):
        if req.user is None:
            raise ApiError(403, {"detail": NO_CREDENTIALS})
        if not self.editable(req.user, p):
            raise ApiError(403, {"detail": NO_RIGHTS})
        j = req.json(lambda: ApiError(400, {"detail": "JSON parse error"}))
        if not isinstance(j, dict):
            raise ApiError(400, {"detail": "Invalid data. Expected a "
                                 "dictionary, but got %s." %
                                 type(j).__name__})
        errors, new = {}, {}
        if "state" in j:
            val = j["state"]
            if not isinstance(val, str):
                errors["state"] = ["Incorrect type. Expected string value, "
                                   "received %s." % type(val).__name__]
            elif slugify(val) not in self.state["states"]:
                errors["state"] = ["Invalid state %s. Expected one of: %s." %
                                   (slugify(val),
                                    ", ".join(self.state["states"]))]
            else:
                new["state"] = slugify(val)
        if "archived" in j:
            if not isinstance(j["archived"], bool):
                errors["archived"] = ["Must be a valid boolean."]
            else:
                new["archived"] = j["archived"]
        if "commit_ref" in j:
            if j["commit_ref"] is not None and \
                    len(str(j["commit_ref"])) > 255:
                errors["commit_ref"] = ["Ensure this field has no more than "
                                        "255 characters."]
            else:
                new["commit_ref"] = j["commit_ref"]
        if "delegate" in j:
            d = j["delegate"]
            u = self.user_by_id(d) if isinstance(d, int) else \
                self.state["users"].get(d) if d else None
            proj = self.project_by_id(p["project"])
            if d is not None and (u is None or
                                  u["login"] not in proj["maintainers"]):
                errors["delegate"] = ["User '%s' is not a maintainer for "
                                      "project '%s'" % (d, proj["name"])]
            else:
                new["delegate"] = u["id"] if u else None
        if errors:
            raise ApiError(400, errors)
        before = p["state"]
        p.update(new)
        if p["state"] != before:
            self.event("patch-state-changed", p["project"],
                       {"patch": p["id"], "previous_state": before,
                        "current_state": p["state"]}, req.user["id"])
        return Response(200, self.patch_json(req, p, True))

    def post_check(self, req, p):
        if not self.editable(req.user, p):
            raise ApiError(403, {"detail": NO_RIGHTS})
        j = req.json(lambda: ApiError(400, {"detail": "JSON parse error"}))
        errors = {}
        state = j.get("state", "")
        if state == "":
            errors["state"] = ["A check must have a state."]
        elif state not in CHECK_STATES:
            errors["state"] = ['"%s" is not a valid choice.' % state]
        context = j.get("context", "default")
        if not re.match(r"^[-a-zA-Z0-9_]+$", context or ""):
            errors["context"] = ["Enter a valid \u201cslug\u201d consisting "
                                 "of letters, numbers, underscores or "
                                 "hyphens."]
        if errors:
            raise ApiError(400, errors)
        c = {"id": self.new_id(), "patch": p["id"], "user": req.user["id"],
             "date": self.now(), "state": state,
             "target_url": j.get("target_url") or None, "context": context,
             "description": j.get("description") or None}
        p["checks"].append(c)
        self.event("check-created", p["project"],
                   {"patch": p["id"], "check": c["id"]}, req.user["id"])
        r = Response(201, self.check_json(req, c))
        r.headers["Location"] = self.check_json(req, c)["url"]
        return r

    # ---- mboxes (the web side) ----

    def web_route(self, req):
        m = re.match(r"^/series/(\d+)/mbox/$", req.path)
        if m:
            s = self.get("series", m.group(1))
            patches = sorted((self.state["patches"][str(i)]
                              for i in s["patches"]),
                             key=lambda p: p["number"])
            return self.mbox_response("\n".join(self.mbox_of(p)
                                                for p in patches))
        m = re.match(r"^/project/([^/]+)/(patch|cover)/([^/]+)/mbox/$",
                     req.path)
        if m:
            proj = self.project(m.group(1))
            msgid = "<" + urllib.parse.unquote(m.group(3)) + ">"
            kind = "patches" if m.group(2) == "patch" else "covers"
            for obj in self.state[kind].values():
                if proj and obj["project"] == proj["id"] and \
                        obj["msgid"] == msgid:
                    return self.mbox_response(self.mbox_of(obj))
        return Response(404, "<h1>Not Found</h1>", ctype="text/html")

    def mbox_response(self, text):
        return Response(200, text.encode("utf-8"),
                        ctype="text/plain; charset=utf-8")

    def mbox_of(self, obj):
        """A patch or cover as Patchwork's mbox view writes it."""
        body = (obj["content"] or "").strip() + "\n" \
            if obj["content"] else ""
        parts = re.split(r"^-{2,3} ?$", body, maxsplit=1, flags=re.M)
        post = ""
        if len(parts) == 2:
            body = parts[0].strip() + "\n"
            post = parts[1].rstrip()
        for c in obj["comments"]:
            body += "".join(m.group(0) + "\n"
                            for m in RESPONSE_RE.finditer(c["content"]))
        if post:
            body += "---" + post + "\n"
        if obj.get("diff"):
            body += "\n" + obj["diff"]
        sub = self.person_by_id(obj["submitter"])
        head = ["From patchwork " + time.strftime(
            "%a %b %d %H:%M:%S %Y", time.gmtime(obj["date"])),
            'Content-Type: text/plain; charset="utf-8"',
            "MIME-Version: 1.0",
            "Content-Transfer-Encoding: " +
            ("7bit" if body.isascii() else "8bit"),
            "X-Patchwork-Submitter: " + email.utils.formataddr(
                (sub["name"] or "", sub["email"])),
            "X-Patchwork-Id: %d" % obj["id"]]
        for k, v in obj["headers"]:
            if k.lower() in ("content-type", "content-transfer-encoding",
                             "mime-version"):
                continue
            head.append("%s: %s" % (k, v))
        return "\n".join(head) + "\n\n" + body

    # ---- mail intake (patchwork/parser.py as apis.md describes it) ----

    def now(self):
        t = time.time()
        last = self.state.get("last_time", 0)
        if t <= last:
            t = last + 0.000001
        self.state["last_time"] = t
        return t

    def event(self, category, project, payload, actor=None):
        self.state["events"].append({
            "id": self.new_id(), "category": category, "project": project,
            "date": self.now(), "actor": actor, "payload": payload})

    def find_project(self, msg, list_id):
        if not list_id:
            for h in ("List-ID", "X-Mailing-List", "X-list"):
                v = normalise_space(str(msg.get(h, "")))
                if not v:
                    continue
                m = re.match(r".*<([^>]+)>.*", v, re.S) or \
                    re.match(r"^(\S+)$", v)
                if m:
                    list_id = m.group(1)
                    break
        for p in self.state["projects"].values():
            if list_id and p["list_id"] == list_id:
                return p
        return None

    def ingest(self, raw, list_id=None):
        msg = email.parser.Parser(policy=email.policy.compat32).parsestr(raw)
        for h in ("From", "Subject", "Message-Id"):
            if msg.get(h) is None:
                return "missing %s" % h
        if str(msg.get("X-Patchwork-Hint", "")).strip().lower() == "ignore":
            return "ignored"
        proj = self.find_project(msg, list_id)
        if proj is None:
            return "no project"
        msgid = (msgids(str(msg["Message-Id"])) or
                 [str(msg["Message-Id"]).strip()])[0]
        subject = normalise_space(str(email.header.make_header(
            email.header.decode_header(str(msg["Subject"])))))
        name, prefixes = clean_subject(subject, [proj["link_name"]])
        is_comment = re.match(r"^(re)[:\s]\s*", subject, re.I)
        x, n = series_marker(prefixes)
        version = parse_version(name, prefixes)
        refs = []
        for v in msg.get_all("In-Reply-To", []):
            refs += msgids(str(v))[:1] or [str(v).strip()]
        for v in msg.get_all("References", []):
            for r in reversed(msgids(str(v))):
                if r not in refs:
                    refs.append(r)
        date = email.utils.parsedate_to_datetime(str(msg["Date"])) \
            .timestamp() if msg.get("Date") else self.now()
        body = ""
        for part in msg.walk():
            if part.get_content_maintype() != "text" or \
                    part.get_content_subtype() != "plain":
                continue
            data = part.get_payload(decode=True) or b""
            body += data.decode(part.get_content_charset() or "utf-8",
                                "replace")
        diff, comment = (None, body) if is_comment else split_body(body)
        content = re.sub(r"^(-- |_+)\n.*", "", comment or "",
                         flags=re.S | re.M).strip().replace("\x00", "")
        realname, addr = email.utils.parseaddr(str(email.header.make_header(
            email.header.decode_header(str(msg["From"])))))
        headers = [(k, str(v)) for k, v in msg.items()]
        for kind in ("patches", "covers"):
            for o in self.state[kind].values():
                if o["project"] == proj["id"] and o["msgid"] == msgid:
                    return "duplicate"
        if not is_comment and diff:
            author = self.person(addr, realname or None)
            state = str(msg.get("X-Patchwork-State", "new")).strip().lower()
            p = {"id": self.new_id(), "project": proj["id"], "msgid": msgid,
                 "name": name[:255], "date": date, "headers": headers,
                 "submitter": author["id"], "content": content,
                 "diff": diff, "hash": hash_diff(diff),
                 "state": state if state in self.state["states"] else "new",
                 "archived": False, "commit_ref": None, "delegate": None,
                 "series": None, "number": None, "checks": [],
                 "comments": [], "prefixes": prefixes}
            self.state["patches"][str(p["id"])] = p
            self.event("patch-created", proj["id"], {"patch": p["id"]})
            self.add_to_series(proj, p, msgid, refs, x, n, version, date,
                               author)
            return "patch"
        if x == 0 and not is_comment:
            is_cover = not refs or not any(
                c["name"] == name for c in self.state["covers"].values())
            if is_cover:
                return self.add_cover(proj, msgid, name, date, headers,
                                      content, addr, realname, version, n)
        return self.add_comment_to(proj, refs, msgid, subject, date,
                                   content, addr, realname)

    def new_series(self, proj, date, author, version, total):
        s = {"id": self.new_id(), "project": proj["id"], "name": None,
             "date": date, "submitter": author["id"], "version": version,
             "total": total, "patches": [], "cover": None}
        self.state["series"][str(s["id"])] = s
        self.event("series-created", proj["id"], {"series": s["id"]})
        return s

    def ref_series(self, proj, ref):
        sid = self.state["refs"].get("%d %s" % (proj["id"], ref))
        return self.state["series"].get(str(sid)) if sid else None

    def add_ref(self, proj, ref, s):
        self.state["refs"].setdefault("%d %s" % (proj["id"], ref), s["id"])

    def series_has(self, s, number):
        return any(self.state["patches"][str(i)]["number"] == number
                   for i in s["patches"])

    def add_to_series(self, proj, p, msgid, refs, x, n, version, date,
                      author):
        s = None
        if n:
            # by reference: own Message-ID, In-Reply-To, References
            for ref in [msgid] + refs:
                s = self.ref_series(proj, ref)
                if s:
                    break
            if s is None:
                # by markers: submitter, version, total, within 20 minutes
                cands = [c for c in self.state["series"].values()
                         if c["project"] == proj["id"] and
                         c["submitter"] == author["id"] and
                         c["version"] == version and c["total"] == n and
                         abs(c["date"] - date) <= SERIES_DELAY]
                cands.sort(key=lambda c: -c["date"])
                for c in cands:
                    if not self.series_has(c, x):
                        s = c
                        break
        else:
            x = n = 1
        if s is None or self.series_has(s, x):
            s = self.new_series(proj, date, author, version, n)
            for ref in refs + [msgid]:
                self.add_ref(proj, ref, s)
        if not s["name"] and x == 1:
            s["name"] = p["name"]
        p["series"], p["number"] = s["id"], x
        # patch-completed: this one and the successors it unblocks
        numbers = {self.state["patches"][str(i)]["number"]: i
                   for i in s["patches"]}
        s["patches"].append(p["id"])
        if all(k in numbers for k in range(1, x)):
            self.event("patch-completed", proj["id"],
                       {"patch": p["id"], "series": s["id"]})
            k = x + 1
            while k in numbers:
                self.event("patch-completed", proj["id"],
                           {"patch": numbers[k], "series": s["id"]})
                k += 1
        if len(s["patches"]) >= s["total"]:
            self.event("series-completed", proj["id"], {"series": s["id"]})

    def add_cover(self, proj, msgid, name, date, headers, content, addr,
                  realname, version, n):
        author = self.person(addr, realname or None)
        s = self.ref_series(proj, msgid)
        if s is None:
            s = self.new_series(proj, date, author, version, n)
            self.add_ref(proj, msgid, s)
        c = {"id": self.new_id(), "project": proj["id"], "msgid": msgid,
             "name": name[:255], "date": date, "headers": headers,
             "submitter": author["id"], "content": content,
             "series": s["id"], "comments": []}
        self.state["covers"][str(c["id"])] = c
        self.event("cover-created", proj["id"], {"cover": c["id"]})
        if not s["cover"]:
            s["cover"] = c["id"]
            bare = re.match(r"^\[([^\]]*)\]\s*(.*)$", name)
            cover_name = bare.group(2) if bare else name.strip()
            first = [self.state["patches"][str(i)] for i in s["patches"]
                     if self.state["patches"][str(i)]["number"] == 1]
            if not s["name"] or (first and s["name"] == first[0]["name"]):
                s["name"] = cover_name
        return "cover"

    def add_comment_to(self, proj, refs, msgid, subject, date, content,
                       addr, realname):
        for kind in ("patches", "covers"):
            for ref in refs:
                for o in self.state[kind].values():
                    hit = o["msgid"] == ref or any(
                        c["msgid"] == ref for c in o["comments"])
                    if o["project"] == proj["id"] and hit:
                        author = self.person(addr, realname or None)
                        o["comments"].append({
                            "id": self.new_id(), "msgid": msgid,
                            "date": date, "subject": subject,
                            "content": content, "submitter": author["id"]})
                        return "comment"
        return "dropped"

    # ---- the control API ----

    def control(self, req):
        p = req.path[len("/_emu"):]
        if req.method != "POST" or p not in (
                "/projects", "/mail", "/states", "/bulk", "/set",
                "/max-per-page"):
            return super().control(req)
        j = req.json(lambda: ApiError(400, {"error": "body is not JSON"}))
        try:
            out = self.control_post(p, j)
        except KeyError as e:
            raise ApiError(400, {"error": "missing field %s" % e})
        self.save()
        return out

    def control_post(self, p, j):
        st = self.state
        if p == "/projects":
            proj = self.project(j["link_name"])
            if proj is None:
                proj = {"id": self.new_id(), "link_name": j["link_name"]}
                st["projects"][str(proj["id"])] = proj
            proj.update({"name": j.get("name", j["link_name"]),
                         "list_id": j.get("list_id",
                                          j["link_name"] + ".example.org"),
                         "list_email": j.get("list_email",
                                             j["link_name"] +
                                             "@example.org"),
                         "maintainers": j.get("maintainers", [])})
            return Response(201, {"id": proj["id"]})
        if p == "/mail":
            texts = split_mbox(j["mbox"]) if "mbox" in j else [j["mail"]]
            results = [self.ingest(t, j.get("list_id")) for t in texts]
            return Response(201, {"results": results})
        if p == "/states":
            st["states"] = list(j["states"])
            return Response(200, {"states": st["states"]})
        if p == "/max-per-page":
            # an instance's own cap (apis.md: not known per instance)
            st["max_per_page"] = int(j["max"])
            return Response(200, {"max": st["max_per_page"]})
        if p == "/set":
            # a patch's fields set behind the API's back (test setup)
            patch = self.get("patches", j["patch"])
            patch.update({k: v for k, v in j.items() if k != "patch"})
            return Response(200, {"id": patch["id"]})
        return self.bulk(j)

    def bulk(self, j):
        """count synthetic patches, one series each: without mail or
        events, or (mail) with a mail's headers, a diff and the events a
        mailed one-patch series has, and (state_changes) a
        patch-state-changed event each."""
        proj = self.project(j["project"])
        addr = j.get("submitter", "bulk@example.org")
        author = self.person(addr, "Bulk")
        mail = bool(j.get("mail"))
        ids = []
        for i in range(int(j["count"])):
            pid = self.new_id()
            date = self.now()
            name = "bulk patch %d" % pid
            s = {"id": self.new_id(), "project": proj["id"],
                 "name": name, "date": date,
                 "submitter": author["id"], "version": 1, "total": 1,
                 "patches": [pid], "cover": None}
            self.state["series"][str(s["id"])] = s
            p = self.state["patches"][str(pid)] = {
                "id": pid, "project": proj["id"],
                "msgid": "<bulk-%d@example.org>" % pid,
                "name": name, "date": date, "headers": [],
                "submitter": author["id"], "content": "", "diff": "",
                "hash": hashlib.sha1(b"bulk %d" % pid).hexdigest(),
                "state": j.get("state", "new"), "archived": False,
                "commit_ref": None, "delegate": None, "series": s["id"],
                "number": 1, "checks": [], "comments": [], "prefixes": []}
            if mail:
                p["headers"] = [
                    ("From", "Bulk <%s>" % addr),
                    ("Date", email.utils.formatdate(date)),
                    ("Subject", "[PATCH] " + name),
                    ("Message-Id", p["msgid"])]
                p["content"] = "Change %d.\n\nSigned-off-by: Bulk <%s>" \
                    % (pid, addr)
                p["diff"] = ("diff --git a/b%d.c b/b%d.c\n--- a/b%d.c\n"
                             "+++ b/b%d.c\n@@ -1 +1,2 @@\n x\n+y\n"
                             % ((pid,) * 4))
                p["hash"] = hash_diff(p["diff"])
                for cat, payload in (
                        ("series-created", {"series": s["id"]}),
                        ("patch-created", {"patch": pid}),
                        ("patch-completed", {"patch": pid,
                                             "series": s["id"]}),
                        ("series-completed", {"series": s["id"]})):
                    self.event(cat, proj["id"], payload)
            if j.get("state_changes"):
                p["state"] = "under-review"
                self.event("patch-state-changed", proj["id"],
                           {"patch": pid, "previous_state": "new",
                            "current_state": "under-review"})
            ids.append(pid)
        return Response(201, {"first": ids[0] if ids else None,
                              "count": len(ids)})

    # ---- dispatch ----

    def api(self, req):
        with self.lock:
            req.version = None
            try:
                if req.path.startswith("/api"):
                    self.authenticate(req)
                resp = self.route(req)
            except ApiError as e:
                resp = Response(e.status, e.body, e.headers)
            return resp


if __name__ == "__main__":
    sys.exit(main(Patchwork))
