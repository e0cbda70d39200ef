"""Gerrit's change search language (user-search), the part the emulator
knows: terms joined by AND (or a space), OR, NOT or a leading '-', and
parentheses; values quoted with "..." or {...}.

Operators: project, projects (prefix), branch, topic, intopic, status,
is (open, pending, new, closed, merged, abandoned, wip, private, owner,
reviewer, cc), change (number or Change-Id prefix), owner, reviewer, cc,
uploader, after/since, before/until (updated, inclusive, UTC), age,
commit, message, hashtag, label (NAME=V, NAME+V, NAME-V), limit.  A bare
number or Change-Id is change:, a bare hex string commit:, other words
message:.  Anything else is Gerrit's "Unsupported operator".
"""

import calendar
import re
import time

from gerrit_store import Error


class Query:
    def __init__(self, text, st, user):
        self.st = st
        self.user = user
        self.limit = None
        self.toks = tokenize(text)
        self.pos = 0
        if not self.toks:
            raise Error(400, "query is empty")
        self.pred = self.or_expr()
        if self.pos != len(self.toks):
            raise Error(400, "line 1:%d mismatched input '%s'" %
                        (self.pos, self.toks[self.pos]))

    def match(self, c):
        return self.st.visible(c, self.user) and self.pred(c)

    # ---- parser ----

    def peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def or_expr(self):
        preds = [self.and_expr()]
        while self.peek() == "OR":
            self.pos += 1
            preds.append(self.and_expr())
        if len(preds) == 1:
            return preds[0]
        return lambda c: any(p(c) for p in preds)

    def and_expr(self):
        preds = [self.unary()]
        while self.peek() not in (None, ")", "OR"):
            if self.peek() == "AND":
                self.pos += 1
            preds.append(self.unary())
        if len(preds) == 1:
            return preds[0]
        return lambda c: all(p(c) for p in preds)

    def unary(self):
        t = self.peek()
        if t is None:
            raise Error(400, "line 1:%d no viable alternative at input "
                        "'<EOF>'" % self.pos)
        if t in ("-", "NOT"):
            self.pos += 1
            p = self.unary()
            return lambda c: not p(c)
        if t == "(":
            self.pos += 1
            p = self.or_expr()
            if self.peek() != ")":
                raise Error(400, "line 1:%d missing ')'" % self.pos)
            self.pos += 1
            return p
        self.pos += 1
        return self.term(t)

    # ---- terms ----

    def term(self, tok):
        op, sep, value = tok.partition(":")
        if not sep or not re.match(r"^[a-z_]+$", op):
            return self.default(tok)
        value = unquote(value)
        fn = getattr(self, "op_" + op, None)
        if fn is None:
            raise Error(400, "Unsupported operator %s:%s" % (op, value))
        return fn(value)

    def default(self, word):
        word = unquote(word)
        if word.isdigit() or re.match(r"^I[0-9a-fA-F]+$", word):
            return self.op_change(word)
        if re.match(r"^[0-9a-fA-F]{7,40}$", word):
            return self.op_commit(word)
        return self.op_message(word)

    def account(self, value):
        if value == "self":
            if self.user is None:
                raise Error(400, "self is only allowed in queries by an "
                            "authenticated user")
            return self.user
        a = self.st.account(value)
        if a is None:
            raise Error(400, "Account '%s' not found" % value)
        return a["username"]

    def op_project(self, v):
        return lambda c: c["project"] == v

    def op_projects(self, v):
        return lambda c: c["project"].startswith(v)

    def op_branch(self, v):
        if v.startswith("refs/heads/"):
            v = v[len("refs/heads/"):]
        return lambda c: c["branch"] == v

    def op_topic(self, v):
        return lambda c: (c["topic"] or "") == v

    def op_intopic(self, v):
        return lambda c: v.lower() in (c["topic"] or "").lower()

    def op_hashtag(self, v):
        return lambda c: v.lower() in [h.lower() for h in c["hashtags"]]

    def op_status(self, v):
        v = v.lower()
        if v in ("open", "pending", "new"):
            return lambda c: c["status"] == "NEW"
        if v == "closed":
            return lambda c: c["status"] != "NEW"
        if v in ("merged", "abandoned"):
            return lambda c: c["status"] == v.upper()
        raise Error(400, "Unrecognized value: %s" % v)

    def op_is(self, v):
        v = v.lower()
        if v in ("open", "pending", "new", "closed", "merged", "abandoned"):
            return self.op_status(v)
        if v == "wip":
            return lambda c: c["wip"]
        if v == "private":
            return lambda c: c["private"]
        if v in ("owner", "reviewer", "cc"):
            return getattr(self, "op_" + v)("self")
        raise Error(400, "Unrecognized value: %s" % v)

    def op_change(self, v):
        if v.isdigit():
            return lambda c: c["number"] == int(v)
        return lambda c: c["change_id"].lower().startswith(v.lower())

    def op_owner(self, v):
        who = self.account(v)
        return lambda c: c["owner"] == who

    def op_reviewer(self, v):
        who = self.account(v)
        return lambda c: who in c["reviewers"]

    def op_cc(self, v):
        who = self.account(v)
        return lambda c: who in c["cc"]

    def op_uploader(self, v):
        who = self.account(v)
        return lambda c: c["patch_sets"][-1]["uploader"] == who

    def op_after(self, v):
        t = parse_time(v)
        return lambda c: c["updated"] >= t
    op_since = op_after

    def op_before(self, v):
        t = parse_time(v)
        return lambda c: c["updated"] <= t
    op_until = op_before

    def op_age(self, v):
        m = re.match(r"^(\d+)\s*(s|sec|second|seconds|m|min|minute|minutes|"
                     r"h|hr|hour|hours|d|day|days|w|week|weeks|mon|month|"
                     r"months|y|year|years)$", v)
        if not m:
            raise Error(400, "Invalid age: %s" % v)
        unit = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800,
                "y": 31536000}[m.group(2)[0]]
        if m.group(2).startswith("mon"):
            unit = 2592000
        cut = time.time() - int(m.group(1)) * unit
        return lambda c: c["updated"] <= cut

    def op_commit(self, v):
        v = v.lower()
        return lambda c: any(p["revision"].startswith(v)
                             for p in c["patch_sets"])

    def op_message(self, v):
        v = v.lower()
        return lambda c: v in c["patch_sets"][-1]["commit"]["message"].lower()

    def op_label(self, v):
        m = re.match(r"^([A-Za-z0-9-]+)(=|\+|-)?([+-]?\d+)?$", v)
        if not m:
            raise Error(400, "Invalid label: %s" % v)
        name = m.group(1)
        value = None
        if m.group(3) is not None:
            value = int(m.group(3))
            if m.group(2) == "-":
                value = -value
        st = self.st

        def pred(c):
            votes = st.current_votes(c).get(name, {})
            if value is None:
                return bool(votes)
            return any(x["value"] == value for x in votes.values())
        return pred

    def op_limit(self, v):
        if not v.isdigit():
            raise Error(400, "Invalid limit: %s" % v)
        self.limit = int(v) if self.limit is None else min(self.limit, int(v))
        return lambda c: True


def tokenize(text):
    toks = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch in "()":
            toks.append(ch)
            i += 1
            continue
        if ch == "-" and i + 1 < n and not text[i + 1].isspace():
            toks.append("-")
            i += 1
            continue
        start = i
        while i < n and not text[i].isspace() and text[i] not in "()":
            if text[i] == '"':
                j = text.find('"', i + 1)
                i = n if j < 0 else j + 1
            elif text[i] == "{":
                j = text.find("}", i + 1)
                i = n if j < 0 else j + 1
            else:
                i += 1
        toks.append(text[start:i])
    return toks


def unquote(v):
    if len(v) >= 2 and (v[0], v[-1]) in (('"', '"'), ("{", "}")):
        return v[1:-1]
    return v


def parse_time(v):
    m = re.match(r"^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d)"
                 r"(?:\.\d+)?)?)?(?:\s*([+-]\d{4}))?$", v.strip())
    if not m:
        raise Error(400, "Invalid timestamp: %s" % v)
    y, mo, d, h, mi, s = (int(g) if g else 0 for g in m.groups()[:6])
    t = calendar.timegm((y, mo, d, h, mi, s))
    if m.group(7):
        off = int(m.group(7)[1:3]) * 3600 + int(m.group(7)[3:5]) * 60
        t -= off if m.group(7)[0] == "+" else -off
    return t


def run(st, text, user, start=0, limit=None):
    """(changes, more) for a query, newest update first."""
    q = Query(text, st, user)
    rows = [c for c in st.changes() if q.match(c)]
    rows.sort(key=lambda c: (c["updated"], c["number"]), reverse=True)
    n = limit
    if q.limit is not None:
        n = q.limit if n is None else min(n, q.limit)
    if n is None:
        n = 500
    page = rows[start:start + n]
    return page, len(rows) > start + n
