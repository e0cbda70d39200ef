#!/bin/sh
# The status page in a real browser: a daemon sends a pull request whose
# title holds a <script>, and Debian's headless chromium loads / and the
# series' page.  From the DOM the browser built (--dump-dom: after its
# parsing and any script it ran), the test checks the series, its version,
# state, recipients (each address the mails went to) and its report, the
# Message-IDs linked into the archive, and that the title shows as text:
# no script element, and the document's title unchanged (the script would
# have changed it).  /api/series says the same.
command -v chromium >/dev/null 2>&1 || {
	echo "$me: no chromium: skipped"
	exit 77
}
. "$(dirname "$0")/web_lib.sh"

branch topic1 drivers/net/foo/foo.c 'int foo2;
int foo3;' 'foo: add foo2 and foo3'
title="<script>document.title='pwned';document.body.innerHTML='pwned'</script> foo: the second foo"
pull "$GH" topic1 "$title"
# a warning in the report: more than 1 line
config '[check "size"]
	type = size-limit
	warn-lines = 1
[route "gh-list"]
	step = size'
start_daemon
comment "$GH" 1 ada /submit
out=$($HOOKS send --forge github --url "$W/hooks/gh" --secret "$GH_SECRET")
[ "$out" = "202 polling 'gh'" ] || fail "hook: $out"
wait_for 10 mails_at_least 2 || fail "nothing sent: $(cat daemon.log)"

# browse URL OUT: the DOM chromium made of URL
browse() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-dev-shm-usage --no-first-run \
		--user-data-dir="$tmp/chromium" --dump-dom "$1" >"$2" \
		2>>chromium.err || fail "chromium on $1: $(tail -5 chromium.err)"
	[ -s "$2" ] || fail "chromium made nothing of $1: $(tail -5 chromium.err)"
}
browse "$W/" list.html
id=$(curl -sf "$W/api/series" | $PY -c 'import json, sys
print(json.load(sys.stdin)["series"][0]["id"])') || fail "no /api/series"
browse "$W/series/$id" series.html
curl -sf "$W/api/series/$id" >series.json || fail "no /api/series/$id"

$PY - "$tmp/box" list.html series.html series.json "$title" <<'PYEOF' || fail "the page"
import email, email.utils, html.parser, json, mailbox, sys

box = mailbox.Maildir(sys.argv[1], create=False)
mails = [email.message_from_bytes(m.as_bytes()) for m in box]
assert len(mails) == 2, len(mails)
sent_to = set()
for m in mails:
    for _, a in email.utils.getaddresses(m.get_all("To", []) +
                                         m.get_all("Cc", [])):
        sent_to.add(a.lower())
mids = sorted(m["Message-ID"].strip("<>") for m in mails)
title = sys.argv[5]

class Dom(html.parser.HTMLParser):
    """Text by class, the tags seen, the links and the document title."""
    def __init__(self):
        super().__init__()
        self.stack, self.text, self.tags, self.links = [], {}, [], []
        self.title = ""
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "a":
            self.links.append(a.get("href"))
        if tag not in ("br", "meta", "link", "img", "input", "hr"):
            self.stack.append((tag, a.get("class", "").split()))
    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break
    def handle_data(self, data):
        for tag, classes in self.stack:
            for c in classes:
                self.text[c] = self.text.get(c, "") + data
            if tag == "title":
                self.title += data

def load(path):
    d = Dom()
    d.feed(open(path, encoding="utf-8").read())
    return d

lst = load(sys.argv[2])
assert "script" not in lst.tags, "a script element on the list"
assert lst.title == "patchrelay: series in flight", lst.title
assert lst.text["title"] == title, lst.text["title"]
assert lst.text["version"] == "v1", lst.text["version"]
assert lst.text["state"].strip() == "sent", lst.text["state"]
rc = lst.text["recipients"]
for a in sent_to:
    assert a in rc, (a, rc)
report = lst.text["report"]
assert report.startswith("warn"), report
assert "size/lines: 2 lines changed" in report and "maintainers/recipients" in report, report
assert lst.text["delivery"].startswith("list v1: 2/2 sent"), lst.text

ser = load(sys.argv[3])
assert "script" not in ser.tags, "a script element on the series page"
assert ser.title == title, ser.title
assert ser.text["title"] == title, ser.text["title"]
for a in sent_to:
    assert a in ser.text["recipients"], a
for mid in mids:
    assert "https://lore.example.org/r/" + mid in ser.links, (mid, ser.links)
    assert mid in ser.text["identities"], ser.text["identities"]
assert "kernel/net#1" in ser.text["identities"]
assert any(l and l.endswith("/kernel/net/pull/1") for l in ser.links)

j = json.load(open(sys.argv[4]))
assert j["title"] == title and j["version"] == 1 and j["state"] == "sent", j
assert j["report"]["verdict"] == "warn", j["report"]
got = set(r["email"] for d in j["deliveries"] for r in d["recipients"])
assert got == sent_to, (got, sent_to)
assert sorted(m["message_id"] for d in j["deliveries"]
              for m in d["mails"]) == mids
PYEOF
echo "ok: the page as chromium shows it"
