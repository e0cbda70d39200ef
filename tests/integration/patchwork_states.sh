#!/bin/sh
# A series' state at Patchwork closes what a sink opened for it: the
# patchwork source (tests/emulators/patchwork.py) reads patch-state-changed
# events besides series-completed ones, and a github sink
# (tests/emulators/github.py) opened a pull request for its series:
# (a) v1 of a 2-patch series opens a PR; its v2 (same name, the same
#     series) force-pushes it;
# (b) v1's patches set superseded at Patchwork: the series moved on (its
#     newer version is the same series), the PR stays open;
# (c) v2's patches set superseded (a newer version patchrelay does not
#     know as this series): the series is superseded, the PR is closed
#     once, with a comment saying why; more passes say nothing more.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp" || exit 1
pw_netdev
PW=$emu_url
start_emulator github "$tmp/gh"
GH=$emu_url
emu_ctl POST /_emu/users '{"login":"relay-bot","token":"tok-sink"}' >/dev/null
emu_ctl POST /_emu/repos "{\"owner\":\"kernel\",\"repo\":\"net\",\"from\":\"$tmp/tree\",\"branch\":\"main\"}" >/dev/null
emu_url=$PW
export PW_TOKEN=ci-token GH_TOKEN=tok-sink

{
	conf_section core "state=$tmp/state.db"
	conf_section 'source "pwq"' type=patchwork "api-url=$PW/api/" \
		project=netdev token=env:PW_TOKEN
	conf_section 'sink "gh"' type=github "api-url=$GH" repo=kernel/net \
		token=env:GH_TOKEN base=main
	conf_section 'route "ci"' from=pwq to=gh
} >relay.conf
run() { GIT_COMMITTER_DATE="@1796400000 +0000" \
	"$PATCHRELAY" run -c relay.conf --once >>run.log 2>&1 ||
	fail "run failed: $(tail run.log)"; }
pulls() {
	curl -sf -H 'Authorization: Bearer tok-sink' -H 'User-Agent: test' \
		"$GH/repos/kernel/net/pulls?state=all" | $PY -c 'import json, sys
for p in json.load(sys.stdin):
    print(p["number"], p["state"])'
}
comments() {
	curl -sf -H 'Authorization: Bearer tok-sink' -H 'User-Agent: test' \
		"$GH/repos/kernel/net/issues/1/comments"
}
# supersede PREFIX: set the patches whose name starts with PREFIX superseded
supersede() {
	for id in $(curl -sf "$PW/api/patches/?project=netdev&per_page=250" |
		$PY -c 'import json, sys
for p in json.load(sys.stdin):
    if p["name"].startswith(sys.argv[1]):
        print(p["id"])' "$1"); do
		curl -sf -X PATCH -H 'Authorization: Token ci-token' \
			-H 'Content-Type: application/json' \
			-d '{"state":"superseded"}' "$PW/api/patches/$id/" >/dev/null ||
			fail "supersede $id"
	done
}

# ---- (a) v1 opens a PR, v2 force-pushes it
run
pw_series a 1 a1.c a2.c
pw_feed "$tmp"/a-1/*.patch
run
[ "$(pulls)" = "1 open" ] || fail "v1: $(pulls) $(tail run.log)"
sleep 1
pw_series a 2 a1.c a2.c
pw_feed "$tmp"/a-2/*.patch
run
[ "$(pulls)" = "1 open" ] || fail "v2: $(pulls) $(tail run.log)"
grep -q "v2 of '.*' pushed" run.log || fail "v2 not pushed: $(tail run.log)"

# ---- (b) v1 superseded: the series lives on in v2
supersede '[1/2]'
supersede '[2/2]'
run
[ "$(pulls)" = "1 open" ] || fail "closed by v1's state: $(pulls)"

# ---- (c) v2 superseded: the PR closes once
supersede '[v2,'
run
[ "$(pulls)" = "1 closed" ] || fail "not closed: $(pulls) $(tail run.log)"
comments >c1.json
$PY - c1.json <<'PY' || fail "closing comment: $(cat c1.json)"
import json, re, sys
c = [x["body"] for x in json.load(open(sys.argv[1]))]
closing = [b for b in c if b.startswith("This series was superseded")]
assert len(closing) == 1, c
assert re.search(r"patch \d+ set superseded in Patchwork; patchrelay "
                 r"closes this pull request", closing[0]), closing
PY
run
run
comments >c2.json
cmp -s c1.json c2.json || fail "more comments: $(cat c2.json)"
echo "patchwork_states.sh: ok"
