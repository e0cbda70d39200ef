#!/bin/sh
# The gerrit source's webhook end to end: the daemon (`run`, core.http on
# loopback, the source polled every 10 minutes, series = change) against
# the Gerrit emulator behind a real sshd and aiosmtpd.  The hook is what
# Gerrit's webhooks plugin POSTs: the event's JSON (as the emulator
# recorded it) to /hooks/gr?token=SECRET.  With the stream-events session
# unable to say anything, only the hook can wake the source:
# (a) the stream ended (its command exited), not yet noticed: a new patch
#     set and its hook -> the source reconnects, catches up over REST at
#     once and the patch set is mailed;
# (b) the stream stalled (open, answering keepalives, no more events): the
#     same, the catch-up because of the hook alone;
# (c) a wrong token and a missing one -> 401, logged, and no request
#     reaches the emulator's REST API (its request log);
# (d) the same delivery twice (the plugin's retry: the same body) -> 200
#     "delivery seen before" and one catch-up, counted in the request log;
# (e) nothing was mailed twice.
set -u
NAME=web_hooks_gerrit.sh
. "$PR_SRC/tests/integration/gerrit_lib.sh"
SECRET=gr-hook-s3cret

clone alice work
commit work drivers/net/foo/foo.c 'foo: add foo2'
push alice work HEAD:refs/for/master >push.out
grep -q '/c/kernel/+/1 foo: add foo2 \[NEW\]' push.out ||
	fail "no change: $(cat push.out)"

change_conf '	http = 127.0.0.1:0' '	interval = 10m
	webhook-secret = env:GR_HOOK_SECRET'
export GR_PW="$GERRIT_HTTP_PASSWORD_relay" GR_HOOK_SECRET=$SECRET
"$PATCHRELAY" run -c relay.conf >daemon.log 2>&1 &
daemon=$!

# wait_until SECONDS COMMAND...: COMMAND true within SECONDS (generous:
# no timing is asserted), the daemon alive all along
wait_until() {
	n=$(($1 * 10))
	shift
	until "$@"; do
		kill -0 "$daemon" 2>/dev/null || fail "the daemon died: $(cat daemon.log)"
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}
listening() { grep -q 'listening on http' daemon.log 2>/dev/null; }
wait_until 30 listening || fail "no web server: $(cat daemon.log)"
W=$(sed -n 's/.*listening on \(http:[^ "]*\)\/.*/\1/p' daemon.log | head -n 1)
mails_are() { [ "$(mails)" -ge "$1" ]; }
wait_until 60 mails_are 1 || fail "v1 was not mailed: $(cat daemon.log)"
ctl wait-streams count=1 timeout=30 >/dev/null

# rest_requests: how many REST requests the emulator has had
rest_requests() { $GERRIT_CTL log | $PY -c 'import json, sys
print(len(json.load(sys.stdin)["requests"]))'; }
# catch_ups: the change queries (one per project per catch-up)
catch_ups() { $GERRIT_CTL log | $PY -c 'import json, sys
print(sum(1 for r in json.load(sys.stdin)["requests"]
          if r["method"] == "GET" and r["path"].startswith("/a/changes/?")))'; }
# last_event FILE: the newest event, as the webhooks plugin posts it
last_event() { $GERRIT_CTL events | $PY -c 'import json, sys
print(json.dumps(json.load(sys.stdin)["events"][-1]))' >"$1"; }
# hook FILE [TOKEN]: POST it as the plugin does; "STATUS BODY" on stdout
hook() {
	code=$(curl -s -o hook.out -w '%{http_code}' -X POST \
		-H 'Content-Type: application/json; charset=UTF-8' \
		-H 'User-Agent: Apache-HttpClient/4.5.14 (Java/17.0.9)' \
		--data-binary "@$1" "$W/hooks/gr${2-?token=$SECRET}")
	echo "$code $(head -n 1 hook.out)"
}

# -- (a) the stream ended, not yet noticed: the hook brings the patch set
sleep 1.2
ctl cut-streams after=0 mode=eof >/dev/null
ctl patchset change=1 user=alice >/dev/null
last_event ev2.json
out=$(hook ev2.json)
[ "$out" = "202 polling 'gr'" ] || fail "(a) hook: $out"
wait_until 60 mails_are 2 ||
	fail "(a) the hook did not bring the patch set: $(tail -20 daemon.log)"
echo "$NAME: (a) ended stream: the hook brought v2"

# -- (b) the stream stalled: only the hook can say the patch set is there
sleep 1.2
ctl cut-streams after=0 mode=stall >/dev/null
ctl patchset change=1 user=alice >/dev/null
last_event ev3.json
grep -q '"type": "patchset-created"' ev3.json || fail "event: $(cat ev3.json)"
q0=$(catch_ups)
out=$(hook ev3.json)
[ "$out" = "202 polling 'gr'" ] || fail "(b) hook: $out"
wait_until 60 mails_are 3 ||
	fail "(b) the hook did not bring the patch set: $(tail -20 daemon.log)"
[ "$(catch_ups)" -gt "$q0" ] || fail "(b) mailed without a catch-up?"
grep -q "Subject: \[PATCH v3\] foo: add foo2" "$tmp"/box/new/* ||
	fail "(b) no v3 mailed"
echo "$NAME: (b) stalled stream: the hook brought v3"

# -- (c) a wrong token, none: 401, logged, nothing asked of Gerrit
sleep 1.2
r0=$(rest_requests)
out=$(hook ev3.json "?token=$SECRET-wrong")
[ "$out" = "401 bad signature" ] || fail "(c) wrong token: $out"
out=$(hook ev3.json '')
[ "$out" = "401 bad signature" ] || fail "(c) no token: $out"
sleep 2
[ "$(rest_requests)" -eq "$r0" ] ||
	fail "(c) a refused hook reached Gerrit: $(rest_requests) requests, was $r0"
grep -q "hook for 'gr' from 127.0.0.1 refused: bad or missing token" daemon.log ||
	fail "(c) the refusal is not logged: $(cat daemon.log)"
echo "$NAME: (c) wrong and missing token: 401, no request to Gerrit"

# -- (d) one delivery twice: one poll
ctl cut-streams after=0 mode=stall >/dev/null
ctl patchset change=1 user=alice >/dev/null
last_event ev4.json
q0=$(catch_ups)
out=$(hook ev4.json)
[ "$out" = "202 polling 'gr'" ] || fail "(d) first delivery: $out"
wait_until 60 mails_are 4 || fail "(d) v4 not mailed: $(tail -20 daemon.log)"
sleep 1.5
out=$(hook ev4.json)
[ "$out" = "200 delivery seen before" ] || fail "(d) replayed delivery: $out"
sleep 2
[ "$(catch_ups)" -eq $((q0 + 1)) ] ||
	fail "(d) $(($(catch_ups) - q0)) catch-ups for one delivery sent twice"
echo "$NAME: (d) one delivery twice: one catch-up"

# -- (e) each version mailed once
sleep 1
[ "$(mails)" -eq 4 ] || fail "(e) $(mails) mails, want 4"
$PY - "$tmp/box" <<'PYEOF' || fail "(e) the mails are wrong"
import collections, email, mailbox, sys
box = mailbox.Maildir(sys.argv[1], create=False)
subjects = collections.Counter(
    email.message_from_bytes(m.as_bytes())["Subject"] for m in box)
assert sorted(subjects) == ["[PATCH v2] foo: add foo2",
                            "[PATCH v3] foo: add foo2",
                            "[PATCH v4] foo: add foo2",
                            "[PATCH] foo: add foo2"], subjects
assert all(n == 1 for n in subjects.values()), subjects
PYEOF
kill "$daemon"
wait "$daemon"
daemon=
echo "$NAME: ok"
exit 0
