#!/bin/sh
# A version whose patches are the same but whose commit messages changed is
# a new version (the store's text fingerprint): a git branch of two
# commits, v1 sent; the second commit's message reworded, the code the
# same: v2 is sent, its range-diff is git range-diff's (the message
# change shown); the branch rebased onto a moved main, nothing else
# changed: nothing is sent.  A state written before the text fingerprint
# (v2's text cleared, the cursor without text=) sends nothing either, and
# a reword after it is v3.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_alone
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
mkdir repo
echo base >repo/file
echo other >repo/other
git_base repo
git -C repo checkout -q -b topic
for i in 1 2; do
	echo "line $i" >>repo/file
	git -C repo commit -q -a -m "file: add line $i" -m "Line $i, for the test.

Signed-off-by: Ada Demo <ada@example.org>"
done
git_maildir_conf "$tmp" "$tmp/repo" cover-letter=always >relay.conf

# pass N WANT: a run whose pass line says WANT ("3 mail(s) sent")
pass() {
	"$PATCHRELAY" run -c relay.conf --once 2>"log$1" ||
		fail "pass $1: $(cat "log$1")"
	grep -q "$2" "log$1" || fail "pass $1, not '$2': $(cat "log$1")"
}
pass 1 ' 1 new, 3 mail(s) sent'

git -C repo commit -q --amend -m 'file: add line 2' -m 'Line 2, as the
reviewer asked.

Signed-off-by: Ada Demo <ada@example.org>'
pass 2 ' 1 new, 3 mail(s) sent'
cover=$(grep -l '^Subject: \[PATCH v2 0/2\]' maildir/new/*) ||
	fail "no v2 cover letter: $(grep -h '^Subject' maildir/new/*)"
# the range-diff is git's, commit message included
git -C repo range-diff --no-color topic@{1}~2..topic@{1} main..topic \
	>git.rd || fail "git range-diff"
grep -q 'reviewer asked' git.rd || fail "git's range-diff: $(cat git.rd)"
sed -n '/^Range-diff against v1:$/,/^-- *$/p' "$cover" | sed '1d;$d' >ours.rd
[ -s ours.rd ] || fail "no range-diff in the v2 cover letter"
diff git.rd ours.rd >rd.diff ||
	fail "the range-diff is not git's: $(cat rd.diff)"

# a moved main and a rebase that changes no patch and no message
git -C repo checkout -q main
echo more >>repo/other
git -C repo commit -q -a -m 'other: more'
git -C repo checkout -q topic
git -C repo rebase -q main || fail rebase
pass 3 ' 0 new, 0 mail(s) sent'

# a state from before the text fingerprint: nothing again, then v3
# (v2's row: a store of then holds no two versions with the same patches)
sqlite3 state.db "UPDATE versions SET text_fp = NULL WHERE number = 2;
	UPDATE cursors SET cursor = substr(cursor, 1, 47)"
[ "$(sqlite3 state.db "SELECT cursor FROM cursors")" \
	= "branch=$(sqlite3 state.db "SELECT fingerprint FROM versions
	WHERE number = 2")" ] || fail "the cursor: $(sqlite3 state.db \
	'SELECT cursor FROM cursors')"
pass 4 ' 0 new, 0 mail(s) sent'
git -C repo commit -q --amend -m 'file: add line 2, at the end'
pass 5 ' 1 new, 3 mail(s) sent'
grep -q '^Subject: \[PATCH v3 2/2\] file: add line 2, at the end$' \
	maildir/new/* || fail "no v3: $(grep -h '^Subject' maildir/new/*)"
echo "ok a reworded message is a new version, a rebase is not"
