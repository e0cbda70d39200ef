#!/bin/sh
# patchrelay run: a source that fails every pass never stops the others.
# The broken route is logged at error and counted; the working route's
# mails are all delivered; --once then exits 3 (a runtime failure), and
# the working route's cursor moved while the broken one has none.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

fail() { echo "run_broken_source.sh: $*" >&2; exit 1; }

export GIT_AUTHOR_NAME='Ada Demo' GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME='Ada Demo' GIT_COMMITTER_EMAIL=ada@example.org
export GIT_AUTHOR_DATE='1796299200 +0000' GIT_COMMITTER_DATE='1796299200 +0000'
git init -q -b main repo
echo base > repo/file
git -C repo add file
git -C repo commit -q -m base
git -C repo checkout -q -b topic
for i in 1 2; do
	echo "line $i" >> repo/file
	git -C repo commit -q -a -m "file: add line $i"
done

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
i=0
for ref in "$tmp"/ref/*.patch; do
	# the headers are send-email's; the body is format-patch's
	sed '1,/^$/d' "$ref" >want.body
	sed '1,/^$/d' maildir/new/patchrelay.*-v1.$i >got.body
	cmp want.body got.body || fail "mail $i: body differs"
	i=$((i + 1))
done

# the working route's cursor moved: a second pass sends nothing more,
# and the broken source still fails on its own
rc=0
"$PATCHRELAY" run -c relay.conf --once 2>log2 || rc=$?
[ "$rc" -eq 3 ] || fail "second pass: exit status $rc: $(cat log2)"
grep -q '0 mail(s) sent' log2 || fail "second pass sent mail: $(cat log2)"
[ "$(ls maildir/new | wc -l)" -eq 2 ] || fail "second pass wrote mail"
exit 0
