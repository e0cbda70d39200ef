#!/bin/sh
# Webhooks against a daemon whose sources are polled every 10 minutes
# (tests/emulators/hooks.py sends them as GitHub and GitLab do):
# (a) a /submit on the GitHub emulator and a signed hook: the series is
#     sent within 2 s; the same on GitLab;
# (b) a bad signature (and a missing one, a wrong GitLab token): 401,
#     logged, and no request reaches the forge;
# (c) the same delivery id twice, a poll apart: one poll;
# (d) 1,000 hooks in 10 s, with /submit on three more pull requests in
#     the middle: every hook answered 202, /healthz answering all along,
#     the daemon's memory bounded, the hooks costing a poll a second, and
#     every series sent exactly once;
# (e) the edges (unknown source 404, wrong method 405, a body or headers
#     over the caps refused) and /metrics parsed by
#     python3-prometheus-client's parser, its counters what the test did;
# (f) the daemon's --log-format=json lines all parse.
. "$(dirname "$0")/web_lib.sh"

branch topic1 drivers/net/foo/foo.c 'int foo2;' 'foo: add foo2'
branch topic2 net/core/dev.c 'int dev2;' 'net: add dev2'
branch topic3 fs/ext4/inode.c 'int inode2;' 'ext4: add inode2'
branch topic4 drivers/net/foo/foo.c 'int foo3;' 'foo: add foo3'
branch topic5 net/core/dev.c 'int dev3;' 'net: add dev3'
pull "$GH" topic1 'foo: the second foo'
pull "$GL" topic2 'net: the second dev'
config ''
start_daemon --log-format=json
clear_log "$GH"
clear_log "$GL"

# -- (a) /submit, then the hook: sent within 2 s; a lone patch is 2 mails
# submit FORGE BASE SOURCE SECRET MAILS: /submit on request 1, its hook,
# and MAILS in the box within 2 s of the hook
submit() {
	comment "$2" 1 ada /submit
	t0=$(now)
	out=$($HOOKS send --forge "$1" --url "$W/hooks/$3" --secret "$4" \
		--delivery "$1-0000-4000-8000-000000000001" --number 1)
	[ "$out" = "202 polling '$3'" ] || fail "$1 hook: $out"
	wait_for 5 mails_at_least "$5" || fail "$1: nothing sent: $(cat daemon.log)"
	took=$(elapsed "$t0")
	within 2 "$took" || fail "$1: sent after ${took}s, not within 2s"
	echo "$1: sent ${took}s after the hook"
	[ "$(mails)" -eq "$5" ] || fail "$1: $(mails) mails, want $5"
}
submit github "$GH" gh "$GH_SECRET" 2
submit gitlab "$GL" gl "$GL_SECRET" 4

# -- (b) bad signatures: 401, logged, and the forges hear nothing
sleep 1.2
clear_log "$GH"
clear_log "$GL"
out=$($HOOKS send --forge github --url "$W/hooks/gh" --secret "$GH_SECRET" --bad)
[ "$out" = "401 bad signature" ] || fail "bad github signature: $out"
out=$(curl -s -w ' %{http_code}' -X POST -H 'X-GitHub-Event: issue_comment' \
	-H 'X-GitHub-Delivery: 33333333' -H 'Content-Type: application/json' \
	-d '{"action":"created"}' "$W/hooks/gh")
[ "$out" = "bad signature
 401" ] || fail "unsigned github hook: $out"
out=$($HOOKS send --forge gitlab --url "$W/hooks/gl" --secret "$GL_SECRET" --bad)
[ "$out" = "401 bad signature" ] || fail "bad gitlab token: $out"
sleep 1.5
[ -z "$(requests "$GH")" ] || fail "a bad hook reached GitHub: $(requests "$GH")"
[ -z "$(requests "$GL")" ] || fail "a bad hook reached GitLab: $(requests "$GL")"
grep -q "hook for 'gh' from 127.0.0.1 refused: bad or missing X-Hub-Signature-256" \
	daemon.log || fail "the refusal is not logged: $(cat daemon.log)"

# -- (c) the same delivery id twice, a poll apart: one poll
polls_gh() { requests "$GH" | grep -c '^GET /repos/kernel/net/pulls?'; }
id=44444444-0000-4000-8000-000000000001
out=$($HOOKS send --forge github --url "$W/hooks/gh" --secret "$GH_SECRET" --delivery $id)
[ "$out" = "202 polling 'gh'" ] || fail "first delivery: $out"
polled() { [ "$(polls_gh)" -ge 1 ]; }
wait_for 5 polled || fail "the hook did not poll"
sleep 1.5
out=$($HOOKS send --forge github --url "$W/hooks/gh" --secret "$GH_SECRET" --delivery $id)
[ "$out" = "200 delivery seen before" ] || fail "replayed delivery: $out"
sleep 1.5
[ "$(polls_gh)" -eq 1 ] || fail "$(polls_gh) polls for one delivery sent twice"
grep -q "delivery '$id' seen before" daemon.log || fail "the replay is not logged"

# -- (d) 1,000 hooks in 10 s; three /submit in the middle
pull "$GH" topic3 'ext4: the second inode'
pull "$GH" topic4 'foo: the third foo'
pull "$GH" topic5 'net: the third dev'
sleep 1.2
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$daemon/status"; }
polls_before=$(metric 'patchrelay_polls_total{source="gh",result="ok"}')
rss0=$(rss)
$HOOKS burst --forge github --url "$W/hooks/gh" --secret "$GH_SECRET" \
	--count 1000 --seconds 10 --workers 16 --probe "$W/healthz" \
	>burst.json &
burst=$!
sleep 4
for n in 2 3 4; do
	comment "$GH" $n ada /submit
done
rss_mid=$(rss)
wait $burst || fail "burst: exit $?"
cat burst.json
# the pull requests of the burst: 3 lone patches, 2 mails each
wait_for 10 mails_at_least 10 || fail "burst: $(mails) mails, want 10"
sleep 2
rss1=$(rss)
echo "rss: ${rss0} kB before, ${rss_mid} kB during, ${rss1} kB after"
polls_after=$(metric 'patchrelay_polls_total{source="gh",result="ok"}')
asan=
ldd "$PATCHRELAY-full" 2>/dev/null | grep -q libasan && asan=asan
$PY - burst.json "$rss0" "$rss1" "$polls_before" "$polls_after" "$asan" <<'PYEOF' ||
import json, sys
b = json.load(open(sys.argv[1]))
assert b["statuses"] == {"202": 1000}, b["statuses"]
assert b["seconds"] < 15, b
# responsive: /healthz answered all along, none slow
assert b["probes"] >= 50 and b["probe_failures"] == 0, b
assert b["probe_max_ms"] < 1000, b
# bounded: the hooks leave no trace in memory but the ids kept (fixed);
# under AddressSanitizer freed memory is held back on purpose (its
# quarantine), and LeakSanitizer checks at the exit instead
grow = int(sys.argv[3]) - int(sys.argv[2])
assert grow < 16 * 1024 or sys.argv[6] == "asan", "grew %d kB" % grow
# a poll a second at most (and some: the hooks did poll)
polls = float(sys.argv[5]) - float(sys.argv[4])
assert 2 <= polls <= 16, polls
PYEOF
	fail "burst"
[ "$(mails)" -eq 10 ] || fail "burst: $(mails) mails, want 10 (sent twice?)"
# each pull request's mails once: its cover and its patch, no repeat
$PY - "$tmp/box" <<'PYEOF' || fail "mails sent twice"
import collections, email, mailbox, sys
box = mailbox.Maildir(sys.argv[1], create=False)
subjects = collections.Counter(
    email.message_from_bytes(m.as_bytes())["Subject"] for m in box)
assert all(n == 1 for n in subjects.values()), subjects
assert len(subjects) == 10, subjects
PYEOF

# -- the edges: an unknown source, a wrong method, a body over the cap
# (told by its length, or sent: the connection is cut), headers over the
# cap; the server answers on
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code -X POST -d x "$W/hooks/nosuch")" = 404 ] || fail "unknown source"
[ "$(code "$W/hooks/gh")" = 405 ] || fail "GET of a hook"
[ "$(code -X POST -d x "$W/")" = 405 ] || fail "POST of a page"
[ "$(code -X POST -H 'Content-Length: 26214401' "$W/hooks/gh")" = 413 ] ||
	fail "a hook over 25 MiB by its length"
head -c 27000000 /dev/zero | curl -s -o /dev/null -w '%{http_code}' \
	-X POST -H 'Transfer-Encoding: chunked' --data-binary @- \
	"$W/hooks/gh" >big.code 2>/dev/null
[ "$(cat big.code)" != 202 ] && [ "$(cat big.code)" != 401 ] ||
	fail "a 27 MB hook was read whole: $(cat big.code)"
[ "$(code -H "X-Big: $(head -c 40000 /dev/zero | tr '\0' a)" "$W/healthz")" != 200 ] ||
	fail "40 kB of headers taken"
[ "$(code "$W/healthz")" = 200 ] || fail "the server after the edges"

# -- (e) /metrics: Prometheus' parser, and the counters of this test
curl -sf "$W/metrics" >metrics.txt || fail "no /metrics"
$PY - metrics.txt "$(mails)" <<'PYEOF' || fail "metrics: $(cat metrics.txt)"
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in
        text_string_to_metric_families(open(sys.argv[1]).read())}
def value(name, **labels):
    for f in fams.values():
        for s in f.samples:
            if s.name == name and all(s.labels.get(k) == v
                                      for k, v in labels.items()):
                return s.value
    raise KeyError((name, labels))
assert fams["patchrelay_hooks"].type == "counter"
assert fams["patchrelay_poll_duration_seconds"].type == "histogram"
hooks = lambda src, res: value("patchrelay_hooks_total", source=src,
                               result=res)
# (a) 1, (c) 1, (d) 1000 accepted on gh; (a) 1 on gl
assert hooks("gh", "accepted") == 1002, hooks("gh", "accepted")
assert hooks("gl", "accepted") == 1
assert hooks("gh", "unauthorized") == 2
assert hooks("gl", "unauthorized") == 1
assert hooks("gh", "replayed") == 1
assert hooks("", "unknown") == 1
# a GET, a length over the cap, a body over the cap
assert hooks("", "refused") == 1 and hooks("gh", "refused") == 2
mails = int(sys.argv[2])
assert value("patchrelay_mails_sent_total") == mails, mails
# 5 series: 1 on GitLab, 4 on GitHub, each sent once
assert value("patchrelay_versions_total") == 5
assert value("patchrelay_delivery_duration_seconds_count", sink="list") == 5
assert value("patchrelay_mails_pending") == 0
assert value("patchrelay_mails_rejected_total") == 0
assert value("patchrelay_sources_failing") == 0
for src in ("gh", "gl"):
    polls = sum(s.value for s in fams["patchrelay_polls"].samples
                if s.labels.get("source") == src)
    assert value("patchrelay_poll_duration_seconds_count",
                 source=src) == polls, src
    assert value("patchrelay_poll_duration_seconds_bucket", source=src,
                 le="+Inf") == polls, src
assert value("patchrelay_passes_total") >= 5
PYEOF

# -- (f) every line of the JSON log parses
stop "$daemon"
[ "$stopped" -eq 0 ] || fail "the daemon's exit: $stopped"
$PY - daemon.log <<'PYEOF' || fail "log: $(cat daemon.log)"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines
for l in lines:
    o = json.loads(l)
    assert o["level"] in ("error", "warn", "info", "debug"), o
    assert o["time"].endswith("Z") and "message" in o, o
assert any(o.get("instance") == "web" and "polling it now" in o["message"]
           for o in map(json.loads, lines))
PYEOF
echo "ok: hooks"
