#!/bin/sh
# The gerrit source in the daemon (`run`, not --once) following
# stream-events from the emulator behind a real sshd, series = change,
# trigger = auto, the source polled every second:
# (a) 50 changes pushed at once are each sent once as v1;
# (b) a new patch set on one change is mailed within 2 s of its event
#     (the mail's arrival in the maildir, measured from the knob's return);
# (c) a burst of 50 patch sets (one on each change) with the stream cut 5
#     times in the middle of it (twice by a dropped TCP connection, three
#     times by the command's end), alternating: every change's v2 is
#     mailed exactly once and none is missed, and the daemon reconnected
#     after each cut;
# (d) nothing more is sent once the burst is over (no version twice).
set -u
NAME=gerrit_stream.sh
. "$PR_SRC/tests/integration/gerrit_lib.sh"

N=50
clone alice work
i=1
while [ $i -le $N ]; do
	echo "int c$i;" >"work/drivers/net/foo/c$i.c"
	git -C work add "drivers/net/foo/c$i.c"
	git -C work commit -q -s -m "foo: add c$i" \
		-m "Change-Id: I$(printf 'c%d' $i | sha1sum | cut -c1-40)" ||
		fail "commit $i"
	i=$((i + 1))
done
push alice work HEAD:refs/for/master >push.out
grep -q "/c/kernel/+/$N foo: add c$N \[NEW\]" push.out ||
	fail "the push made no $N changes: $(tail -3 push.out)"

change_conf '' '	interval = 1s'
export GR_PW="$GERRIT_HTTP_PASSWORD_relay"
"$PATCHRELAY" run -c relay.conf >daemon.log 2>&1 &
daemon=$!

wait_mails() { # COUNT SECONDS
	n=0
	while [ "$(mails)" -lt "$1" ]; do
		n=$((n + 1))
		[ "$n" -gt $(($2 * 10)) ] &&
			fail "$(mails) mails after $2 s, want $1: $(tail -5 daemon.log)"
		kill -0 "$daemon" 2>/dev/null || fail "the daemon died: $(cat daemon.log)"
		sleep 0.1
	done
}

# -- (a) all 50 as v1
wait_mails $N 120
ctl wait-streams count=1 timeout=20 >/dev/null

# -- (b) one new patch set, mailed because the stream said so: the 1 s
# poll reads Gerrit's REST only when the stream has said something (or
# every 10 minutes), so only the event can bring it within seconds.  The
# issue's 2 s is the figure printed here (about 1.2 s on an idle machine);
# the bound is looser, as a timed assertion on a loaded 2-core CI machine
# must be, yet far below the 10-minute catch-up.
sleep 2
before=$(mails)
ctl patchset change=7 user=alice >/dev/null
t0=$(date +%s%N)
wait_mails $((before + 1)) 30
ms=$((($(date +%s%N) - t0) / 1000000))
echo "one patch set: mailed ${ms} ms after its event"
[ "$ms" -le 20000 ] || fail "the new patch set took ${ms} ms, over 20 s"

# -- (c) a burst of 50 patch sets, the stream cut 5 times in the middle
base=$(mails)
i=1
cuts=0
while [ $i -le $N ]; do
	ctl patchset change=$i user=alice >/dev/null
	case $i in
	10 | 20 | 30 | 35 | 40)
		if [ $((cuts % 2)) = 0 ]; then mode=eof; else mode=drop; fi
		ctl wait-streams count=1 timeout=20 >/dev/null
		ctl cut-streams after=0 mode=$mode >/dev/null
		cuts=$((cuts + 1))
		;;
	esac
	i=$((i + 1))
done
wait_mails $((base + N)) 180

# -- (d) nothing more comes
sleep 5
[ "$(mails)" -eq $((base + N)) ] ||
	fail "$(mails) mails, want $((base + N)): a version went twice"
$PY - "$tmp/box" "$N" <<'PYEOF' || fail "the mails are wrong"
import collections, email, mailbox, re, sys
box = mailbox.Maildir(sys.argv[1], create=False)
n = int(sys.argv[2])
ids, got = set(), collections.Counter()
for m in box:
    m = email.message_from_bytes(m.as_bytes())
    mid = m["Message-ID"]
    assert mid not in ids, "Message-ID twice: %s" % mid
    ids.add(mid)
    s = re.match(r"\[PATCH(?: v(\d+))?\] foo: add c(\d+)$", m["Subject"])
    assert s, m["Subject"]
    got[(int(s.group(2)), int(s.group(1) or 1))] += 1
for c in range(1, n + 1):
    want = [1, 2, 3] if c == 7 else [1, 2]
    have = sorted(v for (cc, v) in got if cc == c)
    assert have == want, (c, have, want)
    for v in want:
        assert got[(c, v)] == 1, (c, v, got[(c, v)])
PYEOF
conn=$(grep -c 'stream-events: connected' daemon.log)
[ "$conn" -ge 6 ] || fail "the stream connected $conn times, want 6 or more"
grep -q 'stream ended' daemon.log || fail "no cut was noticed: $(cat daemon.log)"
kill "$daemon"
wait "$daemon"
daemon=
exit 0
