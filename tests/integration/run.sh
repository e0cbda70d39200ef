#!/bin/sh
# patchrelay run --once: a git branch goes into a maildir as git
# format-patch writes it; a second pass delivers nothing; a changed branch
# is a new version; a bad option or config is exit status 2.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo repo
n=${NR_PATCHES:-3}
git_commits repo "$n"
git_maildir_conf "$tmp" "$tmp/repo" cover-letter=never >relay.conf

"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "first pass: $(cat log1)"
new=maildir/new
[ "$(ls "$new" | wc -l)" -eq "$n" ] || fail "not $n mails: $(ls "$new")"
git -C repo format-patch -q -o "$tmp/ref" main..topic
# the mails are what git send-email sends of those files: the same Subject
# and body, the headers rewritten (Date, Message-ID, threading)
i=0
for ref in "$tmp"/ref/*.patch; do
	got=$(echo "$new"/patchrelay.*-v1.$i)
	body "$ref" >"$tmp/want.body"
	body "$got" >"$tmp/got.body"
	cmp "$tmp/want.body" "$tmp/got.body" || fail "mail $i: body differs"
	[ "$(grep -m1 '^Subject:' "$ref")" = "$(grep -m1 '^Subject:' "$got")" ] ||
		fail "mail $i: subject differs"
	grep -q '^From ' "$got" && fail "mail $i: an mbox From line"
	if [ "$i" -gt 0 ]; then
		root=$(sed -n 's/^Message-ID: //p' "$new"/patchrelay.*-v1.0)
		grep -qx "In-Reply-To: $root" "$got" || fail "mail $i: not threaded"
	fi
	i=$((i + 1))
done

"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "second pass: $(cat log2)"
grep -q '0 version(s) seen, 0 new, 0 mail(s) sent' log2 ||
	fail "second pass: $(cat log2)"
[ "$(ls "$new" | wc -l)" -eq "$n" ] || fail "second pass wrote mail"

echo "one more" >> repo/file
git -C repo commit -q -a -m "file: one more line"
"$PATCHRELAY" run -c relay.conf --once 2>log3 || fail "third pass: $(cat log3)"
[ "$(ls "$new"/patchrelay.*-v2.* | wc -l)" -eq $((n + 1)) ] ||
	fail "version 2 not delivered: $(ls "$new")"

rc=0
"$PATCHRELAY" run --bogus 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "bad option: exit status $rc"
printf '[route "x"]\n\tfrom = nowhere\n' > bad.conf
rc=0
"$PATCHRELAY" run -c bad.conf --once 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "bad config: exit status $rc"
# A route whose step fails delivers nothing and says why.
cat > refuse.conf <<CONF
[core]
	state = $tmp/state-refuse.db
[source "repo"]
	type = git
	url = $tmp/repo
	branch = topic
	base = main
[check "size"]
	type = size-limit
	max-patches = 1
[sink "list"]
	type = maildir
	path = $tmp/refused
[route "r"]
	from = repo
	step = size
	to = list
CONF
"$PATCHRELAY" run -c refuse.conf --once 2>log4 || fail "refusing pass: $(cat log4)"
grep -q "refused: size/patches" log4 || fail "no refusal reason: $(cat log4)"
[ "$(ls "$tmp/refused/new" 2>/dev/null | wc -l)" -eq 0 ] ||
	fail "a refused series was delivered: $(ls "$tmp/refused/new")"
grep -q '1 refused' log4 || fail "refusal not counted: $(cat log4)"
echo "run.sh: ok"
