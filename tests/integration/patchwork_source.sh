#!/bin/sh
# The patchwork source against tests/emulators/patchwork.py: the series
# Patchwork completed become versions, read from /api/events/
# (series-completed, since= and event ids, pages by Link).  The first
# poll only notes where the events stand; a new series is emitted once
# (its mbox parsed by the core: the mails delivered carry its patches), and
# its checks go back to Patchwork; a v2 Patchwork shows is version 2 of the
# same series; with one event a page every page is read; a 503 with
# Retry-After is "rate limited until" and loses nothing.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp" || exit 1
pw_netdev
B=$emu_url
pw_series a 1 a1.c
pw_feed "$tmp"/a-1/*.patch

cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "pwq"]
	type = patchwork
	api-url = $B/api/
	project = netdev
	token = env:PW_TOKEN
[check "size"]
	type = size-limit
	max-files = 10
[sink "inbox"]
	type = maildir
	path = $tmp/maildir
[route "ci"]
	from = pwq
	step = size
	to = inbox
	feedback = pwq
CONF
export PW_TOKEN=ci-token
count() { find maildir/new -type f 2>/dev/null | wc -l; }

# the first look: what Patchwork completed before is not news
"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "pass 1: $(cat log1)"
grep -q '0 version(s) seen' log1 || fail "pass 1: $(cat log1)"
[ "$(count)" -eq 0 ] || fail "pass 1 sent"

# a new 3-patch series: emitted once (a cover letter and 3 patches),
# its mails carry its patches
pw_series b 1 b1.c b2.c b3.c
pw_feed "$tmp"/b-1/*.patch
"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "pass 2: $(cat log2)"
grep -q '1 version(s) seen, 1 new, 4 mail(s) sent' log2 ||
	fail "pass 2: $(cat log2)"
for i in 1 2 3; do
	grep -lq "^Subject: \[PATCH $i/3\] b$i.c: add it (b)" maildir/new/* ||
		fail "patch $i not sent: $(cat log2)"
done
# the diffs made it through Patchwork's mbox: same patch-ids as git's
for f in maildir/new/*; do git patch-id --stable <"$f" | cut -d' ' -f1; done |
	sort >sent.ids
git -C tree log -p main..b | git patch-id --stable | cut -d' ' -f1 | sort >git.ids
cmp -s sent.ids git.ids || fail "patch-ids differ: $(cat sent.ids git.ids)"
# and its checks went back to Patchwork
curl -sf "$B/api/patches/?project=netdev&per_page=250" | $PY -c '
import json, sys
b = [p for p in json.load(sys.stdin) if "(b)" in p["name"]]
assert len(b) == 3 and all(p["check"] == "success" for p in b), b' ||
	fail "checks of b"
# its Patchwork ids are in the identity map: lookup answers from any of
# them (API URLs of any version, web pages) with all the others
curl -sf "$B/api/patches/?project=netdev&per_page=250" | $PY -c '
import json, sys
b = sorted((p for p in json.load(sys.stdin) if "(b)" in p["name"]),
           key=lambda p: p["name"])
print(b[1]["id"], b[1]["series"][0]["id"], b[1]["msgid"].strip("<>"))' >b.ids ||
	fail "b's ids"
read -r pid sid mid <b.ids
"$PATCHRELAY" lookup -c relay.conf "$B/api/1.2/patches/$pid/" >lk1 ||
	fail "lookup by API URL: $(cat lk1)"
[ "$(grep -c "^  patchwork-patch  *$B/api/patches/[0-9]*/\$" lk1)" -eq 3 ] ||
	fail "patch ids: $(cat lk1)"
grep -q "^  patchwork-series  *$B/api/series/$sid/\$" lk1 ||
	fail "series id: $(cat lk1)"
grep -q "^  patchwork-cover " lk1 || fail "cover id: $(cat lk1)"
grep -q "^  patchwork-url  *$B/project/netdev/list/?series=$sid\$" lk1 ||
	fail "series page: $(cat lk1)"
grep -q "^  message-id  *$mid\$" lk1 || fail "Message-ID: $(cat lk1)"
for id in "$B/project/netdev/list/?series=$sid" "$B/patch/$pid/" "<$mid>" \
	"$B/api/series/$sid"; do
	"$PATCHRELAY" lookup -c relay.conf "$id" >lk2 || fail "lookup $id"
	cmp -s lk1 lk2 || fail "lookup $id: $(cat lk2)"
done
"$PATCHRELAY" lookup -c relay.conf "$B/api/patches/99999/" >lk3 2>&1 &&
	fail "an unknown patch found: $(cat lk3)"
"$PATCHRELAY" run -c relay.conf --once 2>log3 || fail "pass 3: $(cat log3)"
grep -q '0 version(s) seen' log3 || fail "pass 3: $(cat log3)"

# one event a page: every page is read; b's v2 is b's version 2
pw_ctl /max-per-page '{"max":1}'
pw_series b 2 b1.c b2.c b3.c
pw_series c 1 c1.c
pw_feed "$tmp"/b-2/*.patch
pw_feed "$tmp"/c-1/*.patch
"$PATCHRELAY" run -c relay.conf --once 2>log4 || fail "pass 4: $(cat log4)"
grep -q '2 version(s) seen, 2 new, 6 mail(s) sent' log4 ||
	fail "pass 4: $(cat log4)"
"$PATCHRELAY" status -c relay.conf --json >st4.json
$PY - st4.json <<'PYEOF' || fail "status: $(cat st4.json)"
import json, sys
rows = json.load(open(sys.argv[1]))["deliveries"]
versions = {}
for r in rows:
    versions[r["key"]] = max(versions.get(r["key"], 0), r["versions"])
assert sorted(versions.values()) == [1, 2], versions
PYEOF
grep -lq '^Subject: \[PATCH v2 3/3\] b3.c: add it (b)' maildir/new/* ||
	fail "b v2 not sent as v2"

# a 503 with Retry-After: rate limited, nothing lost
pw_series d 1 d1.c
pw_feed "$tmp"/d-1/*.patch
pw_ctl /fail '{"match":"/api/events/","status":503,"headers":{"Retry-After":"30"}}'
"$PATCHRELAY" run -c relay.conf --once 2>log5 && fail "503 passed"
grep -q 'rate limited until' log5 || fail "pass 5: $(cat log5)"
"$PATCHRELAY" run -c relay.conf --once 2>log6 || fail "pass 6: $(cat log6)"
grep -q '1 version(s) seen, 1 new, 2 mail(s) sent' log6 ||
	fail "pass 6: $(cat log6)"
echo "patchwork_source.sh: ok"
