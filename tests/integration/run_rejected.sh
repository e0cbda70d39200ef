#!/bin/sh
# A sink's permanent refusal (an SMTP server answering 554 to DATA) is
# recorded as rejected: the mail is not pending, is never tried again,
# shows in `patchrelay status` (and --json) and is logged; the route's
# other sink still gets the whole series.  The delivered mails keep their
# Message-IDs in the store (the identity map).  The route's feedback node
# (an mbox) is told once, with the rejection and what the other sink took,
# and not again on a later pass that sees the series again.
set -u
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || skip "no python3-aiosmtpd"
tmpdir
cd "$tmp" || exit 1

start_smtpd box --data-reply "554 5.7.1 message refused by policy"
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo repo
git_commits repo 2

{
	git_source_conf "$tmp/state.db" "$tmp/repo" cover-letter=never
	cat <<CONF
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$smtpd_port
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
} >relay.conf

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
