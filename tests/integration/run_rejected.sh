#!/bin/sh
# A sink's permanent refusal (an SMTP server answering 554 to DATA) is
# recorded as rejected: the mail is not pending, is never tried again,
# shows in `patchrelay status` (and --json) and is logged; the route's
# other sink still gets the whole series.  The delivered mails keep their
# Message-IDs in the store (the identity map).  The route's feedback node
# (an mbox) is told once, with the rejection and what the other sink took,
# and not again on a later pass that sees the series again.
set -u
PY=/usr/bin/python3
fail() {
	echo "run_rejected.sh: $*" >&2
	exit 1
}
$PY -c 'import aiosmtpd' 2>/dev/null || {
	echo "run_rejected.sh: no python3-aiosmtpd: skipped"
	exit 77
}
tmp=$(mktemp -d) || exit 1
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1

rm -f port
$PY "$PR_SRC/tests/servers/smtpd.py" --maildir box --log box.log \
	--port-file port --data-reply "554 5.7.1 message refused by policy" \
	2>server.err &
server=$!
n=0
while [ ! -s port ]; do
	n=$((n + 1))
	[ "$n" -gt 100 ] && fail "server did not start: $(cat server.err)"
	sleep 0.1
done
port=$(cat port)

export GIT_AUTHOR_NAME='Ada Demo' GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME='Ada Demo' GIT_COMMITTER_EMAIL=ada@example.org
export GIT_AUTHOR_DATE='1796299200 +0000' GIT_COMMITTER_DATE='1796299200 +0000'
git init -q -b main repo
echo base >repo/file
git -C repo add file
git -C repo commit -q -m base
git -C repo checkout -q -b topic
for i in 1 2; do
	echo "line $i" >>repo/file
	git -C repo commit -q -a -m "file: add line $i"
done

cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "repo"]
	type = git
	url = $tmp/repo
	branch = topic
	base = main
	cover-letter = never
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$port
	starttls = never
	from = Relay <relay@example.org>
	to = list@example.org
[sink "inbox"]
	type = maildir
	path = $tmp/maildir
[sink "notes"]
	type = mbox
	path = $tmp/notes.mbox
[route "r"]
	from = repo
	to = list
	to = inbox
	feedback = notes
CONF

"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "pass 1: $(cat log1)"
grep -q "\[list\] rejected message 1/2: .*554" log1 ||
	fail "rejection not logged: $(cat log1)"
grep -q '2 mail(s) sent, 0 pending' log1 || fail "pass 1: $(cat log1)"
grep -q '2 mail(s) rejected' log1 || fail "pass 1: $(cat log1)"
[ "$(ls maildir/new | wc -l)" -eq 2 ] || fail "maildir: $(ls maildir/new)"

"$PATCHRELAY" status -c relay.conf >st || fail "status: $(cat st)"
grep -Eq "^repo:topic +1 +list +v1 +0/2 rejected:2 +1 +.*554" st ||
	fail "status: $(cat st)"
grep -Eq "^repo:topic +1 +inbox +v1 +2/2 " st || fail "status: $(cat st)"
"$PATCHRELAY" status -c relay.conf --json >st.json || fail "status --json"
$PY - st.json <<'PYEOF' || fail "status --json: $(cat st.json)"
import json, sys
rows = {r["sink"]: r for r in json.load(open(sys.argv[1]))["deliveries"]}
assert rows["list"]["rejected"] == 2 and rows["list"]["sent"] == 0, rows
assert rows["list"]["attempts"] == 1, rows
assert "554" in rows["list"]["last_error"], rows
assert rows["inbox"]["rejected"] == 0 and rows["inbox"]["sent"] == 2, rows
PYEOF

# the feedback: one mail, saying what went where and what was refused
nr_notes() { git mailsplit -o"$1" notes.mbox; }
mkdir notes1
[ "$(nr_notes notes1)" -eq 1 ] || fail "feedback mails: $(cat notes.mbox)"
grep -q '^Subject: \[patchrelay\] repo:topic: sent as v1 to inbox; Message-ID: <[^>]*>$' notes1/0001 ||
	fail "feedback subject: $(cat notes1/0001)"
grep -q 'sink list rejected message 1/2: .*554' notes1/0001 ||
	fail "feedback without the rejection: $(cat notes1/0001)"
grep -qi 'fail' notes1/0001 || fail "feedback verdict: $(cat notes1/0001)"

# the Message-IDs of the sent mails are in the store, the rejected have none
for f in maildir/new/*; do
	grep -m1 -i '^Message-ID:' "$f" | sed 's/^[^<]*<//; s/>.*//'
done | sort >want.ids
sqlite3 state.db "SELECT message_id FROM delivery_messages
	WHERE message_id IS NOT NULL ORDER BY 1" >got.ids
[ -s want.ids ] && cmp want.ids got.ids || fail "message-ids: $(cat got.ids)"

# a rejection is final: with the cursor gone the source emits v1 again,
# and its rejected mails are not tried again (one attempt, still)
sqlite3 state.db "DELETE FROM cursors"
"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "pass 2: $(cat log2)"
grep -q '1 version(s) seen, 0 new, 0 mail(s) sent, 0 pending' log2 ||
	fail "pass 2: $(cat log2)"
grep -q 'rejected message' log2 && fail "pass 2 tried again: $(cat log2)"
"$PATCHRELAY" status -c relay.conf --json >st2.json
$PY -c 'import json,sys; r=[r for r in json.load(open(sys.argv[1]))["deliveries"] if r["sink"]=="list"][0]; assert r["attempts"]==1, r' st2.json ||
	fail "rejected mail retried: $(cat st2.json)"
mkdir notes2
[ "$(nr_notes notes2)" -eq 1 ] || fail "feedback told again: $(cat notes.mbox)"
echo "run_rejected.sh: ok"
