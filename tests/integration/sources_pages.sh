#!/bin/sh
# The public-inbox source pages back through new.atom?t= until it reaches
# its cursor, against a real public-inbox-httpd (through
# tests/servers/fault_proxy.py, whose log shows every request): 40 new
# threads (120 mails, several feed pages) and a reply to an old series
# arriving between two polls each come out exactly once, each thread is
# fetched once, and a third poll with nothing new reads one page and no
# thread.  Then max-pages: a first poll stops there, while a poll whose
# cursor is further back reads on to it and gives the same events as with
# the default bound; a page cut short fails the poll naming
# its url; mails whose Date is behind or ahead of their arrival are
# neither taken as seen nor hide the next one; and a second that fills a
# page is reported.  public-inbox missing is a failure, not a skip.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
list="$PR_SRC/tests/data/sources/list"

# poll NAME CONF [ARGS...]: poll source "list" into NAME.json, NAME.err;
# NAME.req gets the requests the proxy saw for it
poll() {
	n=$1 c=$2
	shift 2
	: > proxy.log
	"$PATCHRELAY" poll -c "$c" list --json "$@" > "$n.json" 2> "$n.err" ||
		fail "poll $n failed: $(cat "$n.err")"
	grep -o '"GET [^ ]*' proxy.log | sed 's/^"GET //' > "$n.req" || true
}

# the mails: 40 threads of a cover letter and two patches, a minute apart
# from 11:00, and a reply acking a1-1 (a series of the first poll) at 11:20:30
mkdir new
$PY - new <<'EOF'
import sys
d = sys.argv[1]
for i in range(40):
    for j in range(3):
        m = f"s{i:02d}-{j}@example.org"
        if j == 0:
            subj, refs = f"[PATCH 0/2] drv{i:02d}: fix it", ""
            body = "Fixes it in two steps.\n"
        else:
            subj = f"[PATCH {j}/2] drv{i:02d}: step {j}"
            refs = f"In-Reply-To: <s{i:02d}-0@example.org>\nReferences: <s{i:02d}-0@example.org>\n"
            body = (f"Step {j}.\n\nSigned-off-by: Dev {i} <dev{i}@example.org>\n---\n"
                    f" d{i}.c | 1 +\n 1 file changed, 1 insertion(+)\n\n"
                    f"diff --git a/d{i}.c b/d{i}.c\n--- a/d{i}.c\n+++ b/d{i}.c\n"
                    f"@@ -1 +1,2 @@\n x\n+y{j}\n")
        h, mi = 11 + i // 60, i % 60
        open(f"{d}/{i:02d}-{j}.eml", "w").write(
            f"From: Dev {i} <dev{i}@example.org>\n"
            f"Date: Tue, 10 Nov 2026 {h:02d}:{mi:02d}:{j:02d} +0000\n"
            f"Subject: {subj}\nMessage-ID: <{m}>\n{refs}"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n" + body)
open(f"{d}/20-ack.eml", "w").write(
    "From: Carol Acker <carol@example.org>\n"
    "Date: Tue, 10 Nov 2026 11:20:30 +0000\n"
    "Subject: Re: [PATCH 1/2] net: add one\nMessage-ID: <ack-a1@example.org>\n"
    "In-Reply-To: <a1-1@example.org>\n"
    "References: <a1-0@example.org> <a1-1@example.org>\n"
    "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n"
    "Looks right.\n\nAcked-by: Carol Acker <carol@example.org>\n")
EOF
[ "$(ls new | wc -l)" -eq 121 ] || fail "the generator wrote $(ls new | wc -l) mails"

start_public_inbox test "$list"/*.eml
start_fault_proxy "http://127.0.0.1:$(cat pi/port)"
inbox="$proxy_url/test/"
conf() { # conf FILE [MAX-PAGES]
	{
		printf '[source "list"]\n\ttype = public-inbox\n\turl = %s\n' "$inbox"
		printf '\ttimeout = 20s\n\ttrusted = maint@example.org\n'
		[ $# -lt 2 ] || printf '\tmax-pages = %s\n' "$2"
	} > "$1"
}
conf pi.conf

# the first poll: the 15 mails of the list fit one page
poll p1 pi.conf
c1=$(poll_cursor p1.json)
[ -n "$c1" ] || fail "the first poll stored no cursor: $(cat p1.json)"
grep -c '"kind"' p1.json > /dev/null || fail "the first poll emitted nothing"

pi_add new/*.eml
feedmax=$(curl -sS "${inbox}new.atom" | grep -o '<entry>' | wc -l)
[ "$feedmax" -ge 2 ] && [ "$feedmax" -lt 121 ] ||
	fail "new.atom holds $feedmax entries, not one page of 121 mails"

# the second poll: every series once, complete, and the ack once
poll p2 pi.conf --cursor "$c1"
$PY - p2.json <<'EOF' || fail "the second poll: $(cat p2.json)"
import json, sys
d = json.load(open(sys.argv[1]))
series = [e for e in d["events"] if e["kind"] == "series"]
want = [f"s{i:02d}-0@example.org" for i in range(40)]
assert sorted(e["series"] for e in series) == want, [e["series"] for e in series]
for e in series:
    s = e["series"][:3]
    assert e["patches"] == [f"{s}-1@example.org", f"{s}-2@example.org"], e
    assert d["series"][e["series"]]["versions"][0]["complete"], e
others = [(e["kind"], e["series"]) for e in d["events"] if e["kind"] != "series"]
assert others == [("comment", "a1-0@example.org")], others
acks = [c for c in d["comments"] if c["from"] == "carol@example.org"]
assert len(acks) == 1 and acks[0]["trailers"] == ["Acked-by: Carol Acker <carol@example.org>"], d["comments"]
EOF
# each thread fetched once: the 40 new ones and a1's, nothing else
grep 't.mbox.gz$' p2.req | sort > p2.threads
[ "$(wc -l < p2.threads)" -eq 41 ] || fail "41 threads to fetch, fetched: $(cat p2.threads)"
[ "$(sort -u p2.threads | wc -l)" -eq 41 ] || fail "a thread fetched twice: $(cat p2.threads)"
grep -qx '/test/a1-1@example.org/t.mbox.gz\|/test/ack-a1@example.org/t.mbox.gz' p2.threads ||
	fail "a1's thread was not fetched: $(cat p2.threads)"
grep -q '/test/\(b-\|c-\|r[0-9]\)' p2.threads && fail "an old thread with nothing new fetched: $(cat p2.threads)"
# the pages: new.atom, then ?t= older and older, until one holds a mail
# older than the cursor's second: 121 new mails, c-1 (the cursor, 10:15:00)
# and r4 (10:14:00), each page repeating the oldest of the one before
grep 'new.atom' p2.req > p2.pages
$PY - p2.pages "$feedmax" <<'EOF' || fail "the pages of the second poll: $(cat p2.pages)"
import sys
pages = open(sys.argv[1]).read().split()
f = int(sys.argv[2])
n = 1
while f + (f - 1) * (n - 1) < 123:
    n += 1
assert len(pages) == n, (len(pages), n)
assert pages[0] == "/test/new.atom", pages
ts = [p.split("?t=")[1] for p in pages[1:]]
assert all(len(t) == 14 and t.isdigit() for t in ts), ts
assert ts == sorted(ts, reverse=True) and len(set(ts)) == len(ts), ts
EOF
c2=$(poll_cursor p2.json)
case $c2 in *"high=00000000001794310742.s39-2@example.org "*) ;;
*) fail "the cursor is not at the newest mail: $c2" ;; esac

# the third poll, nothing new: one page, no thread, no event, no cursor
poll p3 pi.conf --cursor "$c2"
$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["events"] == [] and d["cursor"] is None, d' p3.json ||
	fail "a poll with nothing new emitted something: $(cat p3.json)"
[ "$(cat p3.req)" = "/test/new.atom" ] || fail "a poll with nothing new asked for: $(cat p3.req)"

# max-pages: a first poll stops there and says so
conf two.conf 2
poll first2 two.conf
[ "$(grep -c 'new.atom' first2.req)" -eq 2 ] || fail "max-pages = 2 read: $(cat first2.req)"
grep -q 'first poll: read 2 pages (max-pages), older mail left' first2.err ||
	fail "no log line for the bounded first poll: $(cat first2.err)"
grep -q '"s39-0@example.org"' first2.json || fail "the bounded first poll missed the newest: $(cat first2.json)"
grep -q '"s00-0@example.org"' first2.json && fail "the bounded first poll read past 2 pages"

# max-pages bounds a first poll only: with a cursor further back than
# max-pages pages the poll still reads back to it, and gives what the
# second poll (the default max-pages, 10) gave
conf two_c.conf 2
: > proxy.log
poll short two_c.conf --cursor "$c1"
[ "$(grep -c 'new.atom' short.req)" -gt 2 ] ||
	fail "a poll with a cursor stopped at max-pages = 2: $(cat short.req)"
grep -q 'first poll' short.err && fail "a poll with a cursor took itself for a first one: $(cat short.err)"
$PY - p2.json short.json <<'EOF' || fail "max-pages = 2 with a cursor differs from the default: $(diff p2.json short.json)"
import json, re, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for d in a, b:
    d["cursor"] = re.sub(r" time=[0-9]+", "", d["cursor"])
assert a == b
EOF

# a page cut short fails the poll, naming the page, and emits nothing
echo "truncate new.atom?t=" > faults
if "$PATCHRELAY" poll -c pi.conf list --json --cursor "$c1" > cut.json 2> cut.err; then
	fail "a cut page did not fail the poll: $(cat cut.json)"
fi
grep -q "error: source 'list': atom '${inbox}new.atom?t=[0-9]\{14\}' offset [0-9]*: " cut.err ||
	fail "unclear cut-page error: $(cat cut.err)"
grep -q '"kind"' cut.json && fail "events emitted before the cut page"
: > faults

# mails whose Date is not when they reached the archive sort where they
# arrived (their first Received: date, what the feed sorts by): one sent
# at 10:30 but received at 12:00, after the cursor's newest (11:39:02), is
# new, not taken as seen; one from a clock a day ahead, received at 12:01,
# does not hide the mail that arrives after it
one() { # one FILE ID DATE [RECEIVED]
	{
		[ $# -lt 4 ] || printf 'Received: from mx by list; %s\n' "$4"
		printf 'From: Eve Late <eve@example.org>\nDate: %s\n' "$3"
		printf 'Subject: [PATCH] %s: one\nMessage-ID: <%s@example.org>\n' "$2" "$2"
		printf 'MIME-Version: 1.0\nContent-Type: text/plain\n\n'
		printf 'One.\n\nSigned-off-by: Eve Late <eve@example.org>\n---\n'
		printf 'diff --git a/%s.c b/%s.c\n--- a/%s.c\n+++ b/%s.c\n' "$2" "$2" "$2" "$2"
		printf '@@ -1 +1,2 @@\n x\n+y\n'
	} > "$1"
}
one delayed.eml delayed 'Tue, 10 Nov 2026 10:30:00 +0000' 'Tue, 10 Nov 2026 12:00:00 +0000'
one ahead.eml ahead 'Wed, 11 Nov 2026 12:01:00 +0000' 'Tue, 10 Nov 2026 12:01:00 +0000'
pi_add delayed.eml ahead.eml
poll p4 pi.conf --cursor "$c2"
$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
ev = sorted((e["kind"], e["series"]) for e in d["events"])
assert ev == [("series", "ahead@example.org"), ("series", "delayed@example.org")], ev
assert " high=00000000001794312060.ahead@example.org " in d["cursor"], d["cursor"]' p4.json ||
	fail "the mails received late or from a clock ahead: $(cat p4.json)"
one after.eml after 'Tue, 10 Nov 2026 12:02:00 +0000'
pi_add after.eml
poll p5 pi.conf --cursor "$(poll_cursor p4.json)"
$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
ev = [(e["kind"], e["series"]) for e in d["events"]]
assert ev == [("series", "after@example.org")], ev' p5.json ||
	fail "the mail after one from a clock ahead: $(cat p5.json)"

# more than a page of mails received in one second: no ?t= reaches past
# them (the known limit); the poll says so, names the second, and goes on
n=$((feedmax + 5))
i=0
while [ $i -lt $n ]; do
	one "same$i.eml" "same$i" 'Tue, 10 Nov 2026 12:30:00 +0000'
	i=$((i + 1))
done
pi_add same*.eml
poll p6 pi.conf --cursor "$(poll_cursor p5.json)"
grep -q "warning: \[public-inbox:list\] feed '${inbox}new.atom?t=20261110123000': more than a page of messages arrived in the second 20261110123000; older ones are on no page" p6.err ||
	fail "no warning for a second that fills a page: $(cat p6.err)"
[ "$(grep -c '"kind": "series"' p6.json)" -ge "$feedmax" ] ||
	fail "the mails of the full second were not emitted: $(cat p6.json)"
echo "sources_pages.sh: ok"
