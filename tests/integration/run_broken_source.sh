#!/bin/sh
# patchrelay run: a source that fails every pass never stops the others.
# The broken route is logged at error and counted; the working route's
# mails are all delivered; --once then exits 3 (a runtime failure), and
# the working route's cursor moved while the broken one has none.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo repo
git_commits repo 2

# the broken source comes first, so a stop at the first failure would show
cat > relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "gone"]
	type = git
	url = $tmp/no-such-repo
	branch = topic
	base = main
[source "repo"]
	type = git
	url = $tmp/repo
	branch = topic
	base = main
	cover-letter = never
[sink "inbox"]
	type = maildir
	path = $tmp/maildir
[route "a-broken"]
	from = gone
	to = inbox
[route "b-working"]
	from = repo
	to = inbox
CONF

rc=0
"$PATCHRELAY" run -c relay.conf --once 2>log || rc=$?
[ "$rc" -eq 3 ] || fail "exit status $rc, not 3: $(cat log)"
grep -q '2 mail(s) sent' log || fail "working route not delivered: $(cat log)"
grep -q '1 failing source(s)' log || fail "failure not counted: $(cat log)"
grep -q "error: \[git:gone\] source 'gone'" log || fail "broken source not named: $(cat log)"
[ "$(ls maildir/new | wc -l)" -eq 2 ] || fail "maildir: $(ls maildir/new)"
git -C repo format-patch -q -o "$tmp/ref" main..topic
# the headers are send-email's; the body is format-patch's
bodies_match "$tmp/ref" 'maildir/new/patchrelay.*-v1.' || fail "a body differs"

# the working route's cursor moved: a second pass sends nothing more,
# and the broken source still fails on its own
rc=0
"$PATCHRELAY" run -c relay.conf --once 2>log2 || rc=$?
[ "$rc" -eq 3 ] || fail "second pass: exit status $rc: $(cat log2)"
grep -q '0 mail(s) sent' log2 || fail "second pass sent mail: $(cat log2)"
[ "$(ls maildir/new | wc -l)" -eq 2 ] || fail "second pass wrote mail"
exit 0
