#!/bin/sh
# patchrelay am: a 3-patch series with a cover letter made by git
# format-patch, plus replies giving trailers (to the cover, to a patch,
# quoted only, for someone else), applied with git am; the commits must
# carry exactly the expected trailers.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

git_identity 'A U Thor <author@example.org>'
git_alone
mkdir "$tmp/repo"
printf 'one\n' >"$tmp/repo/f"
git_base "$tmp/repo"
cd "$tmp/repo" || exit 1
git tag base
git checkout -q -b v1
for i in 1 2 3; do
	printf 'line %s\n' "$i" >>f
	[ "$i" = 2 ] && export GIT_AUTHOR_NAME='Doe, John "J.Q." \o/'
	[ "$i" = 3 ] && export GIT_AUTHOR_NAME='Zoë Ñandú'
	git commit -qam "add line $i" -m "Line $i is needed." \
		-m "Signed-off-by: A U Thor <author@example.org>" ||
		fail "commit $i"
done
export GIT_AUTHOR_NAME='A U Thor'
git format-patch -q --cover-letter --thread -o "$tmp/out" base..HEAD ||
	fail "format-patch"
# v2's ids below come from the same clock second: make v1's distinct
for f in "$tmp/out"/*.patch; do
	sed 's/\.git\.author@example\.org>/.v1@example.org>/' "$f" >"$f.new" &&
		mv "$f.new" "$f" || fail "rewrite ids"
done
cover=$(message_id "$tmp/out/0000-cover-letter.patch")
p1=$(message_id "$tmp/out/0001-add-line-1.patch")
p2=$(message_id "$tmp/out/0002-add-line-2.patch")
p3=$(message_id "$tmp/out/0003-add-line-3.patch")
[ -n "$cover" ] && [ -n "$p1" ] && [ -n "$p2" ] && [ -n "$p3" ] ||
	fail "no Message-Ids in format-patch output"

# reply FROM TO-ID SUBJECT BODY
n=0
reply() {
	n=$((n + 1))
	printf 'From reply Mon Sep 17 00:00:00 2001\nFrom: %s\nSubject: Re: %s\nDate: Thu, 3 Dec 2026 12:0%s:00 +0000\nMessage-Id: <reply%s@example.org>\nIn-Reply-To: <%s>\nReferences: <%s> <%s>\n\n%s\n\n' \
		"$1" "$3" "$n" "$n" "$2" "$cover" "$2" "$4"
}
{
	cat "$tmp/out"/*.patch
	# to patch 2 only
	reply 'Ack Two <ack@example.org>' "$p2" '[PATCH 2/3] add line 2' \
		'Looks fine.

Acked-by: Ack Two <ack@example.org>'
	# to the cover: every patch
	reply 'Rev One <rev@example.org>' "$cover" '[PATCH 0/3] series' \
		'For the series:

Reviewed-by: Rev One <rev@example.org>'
	# the same trailer again to patch 1: no duplicate
	reply 'Rev One <rev@example.org>' "$p1" '[PATCH 1/3] add line 1' \
		'Reviewed-by: Rev One <rev@example.org>'
	# quoted only: does not count
	reply 'Quo Ted <quoted@example.org>' "$p3" '[PATCH 3/3] add line 3' \
		'> Tested-by: Quo Ted <quoted@example.org>
I agree with the above.'
	# a trailer for someone else: dropped unless the sender is trusted
	reply 'Main Tainer <maint@example.org>' "$p1" '[PATCH 1/3] add line 1' \
		'Acked-by: Other Person <other@example.org>'
} >"$tmp/all.mbox"

"$PATCHRELAY" am "$tmp/all.mbox" >"$tmp/am.mbox" || fail "am: exit $?"
"$PATCHRELAY" am -o "$tmp/am-o.mbox" "$tmp/all.mbox" || fail "am -o: exit $?"
cmp -s "$tmp/am.mbox" "$tmp/am-o.mbox" || fail "-o differs from stdout"
[ "$(grep -c '^From 0000' "$tmp/am.mbox")" = 3 ] || fail "not 3 patches"

# apply PATCHED-MBOX ORIGINAL: git am onto base, trailers of each commit to $tmp/got
apply() {
	git checkout -q --detach base || fail "checkout base"
	git am -q "$1" || fail "git am $1"
	: >"$tmp/got"
	for c in $(git rev-list --reverse base..HEAD); do
		echo "== $(git log -1 --format=%s "$c")" >>"$tmp/got"
		git log -1 --format=%B "$c" |
			git interpret-trailers --parse >>"$tmp/got"
	done
	[ "$(git rev-parse HEAD^{tree})" = "$(git rev-parse "$2^{tree}")" ] ||
		fail "tree after git am differs from $2"
}

sob='Signed-off-by: A U Thor <author@example.org>'
rev='Reviewed-by: Rev One <rev@example.org>'
cat >"$tmp/want" <<EOW
== add line 1
$sob
$rev
== add line 2
$sob
Acked-by: Ack Two <ack@example.org>
$rev
== add line 3
$sob
$rev
EOW
apply "$tmp/am.mbox" v1
diff -u "$tmp/want" "$tmp/got" || fail "trailers differ"
# author and message body came through
git log -1 --format='%an <%ae>|%s' HEAD~2 | grep -qx 'A U Thor <author@example.org>|add line 1' ||
	fail "author or subject of patch 1"
git log -1 --format=%b HEAD | grep -qx 'Line 3 is needed.' || fail "body of patch 3"
[ "$(git log -1 --format=%an HEAD~1)" = 'Doe, John "J.Q." \o/' ] ||
	fail "quoted author of patch 2: $(git log -1 --format=%an HEAD~1)"
git log -1 --format='%an <%ae>' HEAD | grep -qx 'Zoë Ñandú <author@example.org>' ||
	fail "UTF-8 author of patch 3: $(git log -1 --format=%an HEAD)"

# the same mails as a maildir give the same output
mkdir -p "$tmp/md/cur" "$tmp/md/new" "$tmp/md/tmp"
(cd "$tmp/md/cur" && awk '/^From [^ ]+ Mon Sep 17 00:00:00 2001$/{n++}
	{f=sprintf("%03d", n); print > f}' "$tmp/all.mbox") ||
	fail "maildir split"
"$PATCHRELAY" am "$tmp/md" >"$tmp/md.mbox" || fail "am maildir: exit $?"
cmp -s "$tmp/am.mbox" "$tmp/md.mbox" || fail "maildir output differs"

# --trust: the maintainer may give someone else's trailer
"$PATCHRELAY" am --trust MAINT@example.org "$tmp/all.mbox" >"$tmp/trust.mbox" ||
	fail "am --trust: exit $?"
cat >"$tmp/want" <<EOW
== add line 1
$sob
$rev
Acked-by: Other Person <other@example.org>
== add line 2
$sob
Acked-by: Ack Two <ack@example.org>
$rev
== add line 3
$sob
$rev
EOW
apply "$tmp/trust.mbox" v1
diff -u "$tmp/want" "$tmp/got" || fail "trailers with --trust differ"

# v2 threaded into v1: only v2 is written, v1's trailers stay behind
git checkout -q -b v2 base || fail "branch v2"
for i in 1 2 3; do
	printf 'line %s, v2\n' "$i" >>f
	git commit -qam "add line $i" -m "Line $i is needed." \
		-m "Signed-off-by: A U Thor <author@example.org>" ||
		fail "v2 commit $i"
done
git format-patch -q -v2 --cover-letter --thread --in-reply-to="$cover" \
	-o "$tmp/out2" base..v2 || fail "format-patch v2"
v2p3=$(message_id "$tmp/out2/v2-0003-add-line-3.patch")
{
	cat "$tmp/all.mbox" "$tmp/out2"/*.patch
	reply 'Tes Ter <tester@example.org>' "$v2p3" '[PATCH v2 3/3] add line 3' \
		'Tested-by: Tes Ter <tester@example.org>'
} >"$tmp/v2.mbox"
"$PATCHRELAY" am "$tmp/v2.mbox" >"$tmp/am2.mbox" || fail "am v2: exit $?"
grep -q '^Subject: \[PATCH 1/3\] add line 1$' "$tmp/am2.mbox" ||
	fail "v2 subject"
[ "$(grep -c '^From 0000' "$tmp/am2.mbox")" = 3 ] || fail "v2: not 3 patches"
cat >"$tmp/want" <<EOW
== add line 1
$sob
== add line 2
$sob
== add line 3
$sob
Tested-by: Tes Ter <tester@example.org>
EOW
apply "$tmp/am2.mbox" v2
diff -u "$tmp/want" "$tmp/got" || fail "v2 trailers differ"

# an incomplete series alone: nothing to write, exit 1
cat "$tmp/out/0000-cover-letter.patch" "$tmp/out/0001-add-line-1.patch" \
	>"$tmp/part.mbox"
"$PATCHRELAY" am "$tmp/part.mbox" >"$tmp/part.out" 2>"$tmp/part.err"
[ $? = 1 ] || fail "incomplete series: want exit 1"
[ ! -s "$tmp/part.out" ] || fail "incomplete series: output written"
"$PATCHRELAY" am --bogus x 2>/dev/null
[ $? = 2 ] || fail "unknown option: want exit 2"
echo "ok"
