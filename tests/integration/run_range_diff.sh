#!/bin/sh
# A branch pushed again is the next version: its cover letter carries the
# range-diff against the previous version exactly as `git format-patch
# --cover-letter -v2 --range-diff=<v1>` writes it, a link to v1's cover
# letter, and "[PATCH v2 n/N]" subjects.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
mkdir repo
printf 'one\ntwo\nthree\nfour\nfive\n' > repo/file
printf 'alpha\n' > repo/other
git_base repo
git -C repo checkout -q -b topic
sed -i 's/two/TWO/' repo/file
git -C repo commit -q -a -m "file: shout two" -m "Signed-off-by: Ada Demo <ada@example.org>"
sed -i 's/four/FOUR/' repo/file
git -C repo commit -q -a -m "file: shout four" -m "Signed-off-by: Ada Demo <ada@example.org>"
echo beta >> repo/other
git -C repo commit -q -a -m "other: add beta" -m "Signed-off-by: Ada Demo <ada@example.org>"
git -C repo tag v1

git_maildir_conf "$tmp" "$tmp/repo" cover-letter=always >relay.conf

"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "v1: $(cat log1)"
[ "$(ls maildir/new | wc -l)" -eq 4 ] || fail "v1: not 4 mails: $(ls maildir/new)"
v1cover=$(grep -l '^Subject: \[PATCH 0/3\]' maildir/new/*) ||
	fail "v1: no cover letter"
v1id=$(message_id "$v1cover")
[ -n "$v1id" ] || fail "v1 cover has no Message-ID"

# v2: the second patch changes, a fourth one is added
git -C repo reset -q --hard main
sed -i 's/two/TWO/' repo/file
git -C repo commit -q -a -m "file: shout two" -m "Signed-off-by: Ada Demo <ada@example.org>"
sed -i 's/four/Four!/' repo/file
git -C repo commit -q -a -m "file: shout four, politely" -m "Signed-off-by: Ada Demo <ada@example.org>"
echo beta >> repo/other
git -C repo commit -q -a -m "other: add beta" -m "Signed-off-by: Ada Demo <ada@example.org>"
echo five >> repo/other
git -C repo commit -q -a -m "other: add five" -m "Signed-off-by: Ada Demo <ada@example.org>"

"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "v2: $(cat log2)"
[ "$(ls maildir/new | wc -l)" -eq 9 ] || fail "v2: not 9 mails in all"
v2cover=$(grep -l '^Subject: \[PATCH v2 0/4\]' maildir/new/*) ||
	fail "v2: no '[PATCH v2 0/4]' cover letter"
[ "$(grep -l '^Subject: \[PATCH v2 [1-4]/4\]' maildir/new/* | wc -l)" -eq 4 ] ||
	fail "v2: not 4 '[PATCH v2 n/4]' patches"
grep -q "$v1id" "$v2cover" || fail "v2 cover does not link to v1's cover <$v1id>"

# the block, compared with what git format-patch writes for the same range
git -C repo format-patch -q --cover-letter -v2 --range-diff=main..v1 \
	-o "$tmp/ref" main..topic
block() { sed -n '/^Range-diff against v1:$/,/^-- $/p' "$1" | sed '$d' |
	sed '/^base-commit:/,$d'; }
block "$tmp"/ref/v2-0000-cover-letter.patch >want
block "$v2cover" >got
[ -s want ] || fail "git wrote no range-diff block"
[ "$(head -1 got)" = "Range-diff against v1:" ] ||
	fail "v2 cover has no range-diff block: $(cat "$v2cover")"
# trailing blank lines differ in where the base-commit line sits
sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' want >want.t
sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' got >got.t
diff -u want.t got.t || fail "range-diff block differs from git format-patch's"
# the "!" pair for the changed patch is there, with its inner diff
grep -q '^2:  [0-9a-f]\{7\} ! 2:  [0-9a-f]\{7\} file: shout four$' got ||
	fail "no '!' line for the changed patch: $(cat got)"

# a third pass with nothing new sends nothing
"$PATCHRELAY" run -c relay.conf --once 2>log3 || fail "pass 3: $(cat log3)"
[ "$(ls maildir/new | wc -l)" -eq 9 ] || fail "pass 3 sent again"
echo "run_range_diff.sh: ok"
