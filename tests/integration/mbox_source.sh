#!/bin/sh
# The mbox source: a folder of mbox files, read as one stream of mails
# (here each file is git format-patch --cover-letter --stdout, one series
# version, without Message-IDs).  The mails delivered to
# a maildir carry the input's patches (git mailinfo and git patch-id of
# both sides agree), a second pass sends nothing, a touched file sends
# nothing, a v2 file becomes v2 of the same series, and a bad file is an
# error naming it while the other files still go through; removed and renamed
# files send nothing, and a new file among them is sent alone; a version
# missing a patch waits, its file read again, until the patch comes.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
mkdir repo
echo base >repo/file
echo other >repo/other
git_base repo
git -C repo checkout -q -b topic
for i in 1 2 3; do
	echo "line $i" >>repo/file
	git -C repo commit -q -a -m "file: add line $i" -m "Line $i of the file.

Signed-off-by: Ada Demo <ada@example.org>"
done

# a file without its trailing blank lines (mailsplit keeps the blank line
# between two mails of an mbox with the first)
trim() {
	awk '{ l[NR] = $0 } END { n = NR; while (n > 0 && l[n] == "") n--;
		for (i = 1; i <= n; i++) print l[i] }' "$1"
}

mkdir in
# a cover letter with a real subject, as a user sends it
cover() {
	sed -e 's/\*\*\* SUBJECT HERE \*\*\*/file: more lines/' \
		-e 's/\*\*\* BLURB HERE \*\*\*/Three more lines for the file./'
}
git -C repo format-patch -q --cover-letter --stdout main..topic | cover \
	>in/01-lines.mbox

cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "folder"]
	type = mbox
	path = $tmp/in
[sink "inbox"]
	type = maildir
	path = $tmp/maildir
[route "r"]
	from = folder
	to = inbox
CONF

"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "pass 1: $(cat log1)"
new=maildir/new
[ "$(ls $new | wc -l)" -eq 4 ] || fail "pass 1: not 4 mails: $(ls $new) $(cat log1)"

# the same patches: mailinfo of each input mail against each output mail
mkdir split-in
git mailsplit -osplit-in in/01-lines.mbox >/dev/null
i=0
for want in split-in/*; do
	got=$(echo $new/patchrelay.*-v1.$i)
	[ -f "$got" ] || fail "no mail $i: $(ls $new)"
	git mailinfo "$tmp/wm" "$tmp/wp" <"$want" >"$tmp/wi"
	git mailinfo "$tmp/gm" "$tmp/gp" <"$got" >"$tmp/gi"
	trim "$tmp/wp" >"$tmp/wp2"
	trim "$tmp/gp" >"$tmp/gp2"
	cmp -s "$tmp/wp2" "$tmp/gp2" || fail "mail $i: patch differs"
	if [ "$i" -gt 0 ]; then
		cmp -s "$tmp/wm" "$tmp/gm" || fail "mail $i: message differs"
		grep -v '^Date:' "$tmp/wi" >"$tmp/wi2"
		grep -v '^Date:' "$tmp/gi" >"$tmp/gi2"
		cmp -s "$tmp/wi2" "$tmp/gi2" ||
			fail "mail $i: author or subject differs"
		grep -q "^Subject: \[PATCH $i/3\]" "$got" ||
			fail "mail $i: subject $(grep '^Subject:' "$got")"
	fi
	i=$((i + 1))
done
grep -q '^Subject: \[PATCH 0/3\] file: more lines' $new/patchrelay.*-v1.0 ||
	fail "cover subject: $(grep '^Subject' $new/patchrelay.*-v1.0)"
grep -q '^Three more lines for the file.' $new/patchrelay.*-v1.0 ||
	fail "cover blurb lost"
[ "$(grep -c '^Ada Demo (3):' $new/patchrelay.*-v1.0)" -eq 1 ] ||
	fail "cover shortlog not once"
git patch-id --stable <in/01-lines.mbox | cut -d' ' -f1 >want.ids
cat $new/patchrelay.*-v1.[123] | git patch-id --stable | cut -d' ' -f1 >got.ids
[ -s want.ids ] && cmp -s want.ids got.ids || fail "patch-ids differ"

# nothing new: nothing sent; a touched file is not new either
"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "pass 2: $(cat log2)"
grep -q '0 mail(s) sent' log2 || fail "pass 2: $(cat log2)"
touch -d '2027-01-01 00:00' in/01-lines.mbox
"$PATCHRELAY" run -c relay.conf --once 2>log3 || fail "pass 3: $(cat log3)"
grep -q '0 mail(s) sent' log3 || fail "pass 3 (touched): $(cat log3)"
[ "$(ls $new | wc -l)" -eq 4 ] || fail "a pass with nothing new wrote mail"

# v2: the second patch changed, and a bad file beside it
git -C repo checkout -q -b topic2 topic~2
echo "line two" >>repo/file
git -C repo commit -q -a -m "file: add line 2" -m "Line 2, spelled out.

Signed-off-by: Ada Demo <ada@example.org>"
echo "line 3" >>repo/file
git -C repo commit -q -a -m "file: add line 3" -m "Line 3 of the file.

Signed-off-by: Ada Demo <ada@example.org>"
git -C repo format-patch -q -v2 --cover-letter --stdout main..HEAD | cover \
	>in/02-lines-v2.mbox
# not mail (a mail without a patch is list traffic, not an error)
printf 'From nobody Mon Sep 17 00:00:00 2001\n\nno mail here\n' \
	>in/00-bad.mbox
rc=0
"$PATCHRELAY" run -c relay.conf --once 2>log4 || rc=$?
[ "$rc" -ne 0 ] || fail "pass 4: a bad file is not an error"
grep -q "00-bad.mbox" log4 || fail "pass 4: bad file not named: $(cat log4)"
[ "$(ls $new/patchrelay.*-v2.* | wc -l)" -eq 4 ] ||
	fail "v2 not delivered: $(ls $new) $(cat log4)"
for i in 1 2 3; do
	grep -q "^Subject: \[PATCH v2 $i/3\]" $new/patchrelay.*-v2.$i ||
		fail "v2 mail $i: $(grep '^Subject:' $new/patchrelay.*-v2.$i)"
done
grep -q '^Range-diff against v1:' $new/patchrelay.*-v2.0 ||
	fail "v2 cover: no range-diff"
git patch-id --stable <in/02-lines-v2.mbox | cut -d' ' -f1 >want2.ids
cat $new/patchrelay.*-v2.[123] | git patch-id --stable | cut -d' ' -f1 >got2.ids
cmp -s want2.ids got2.ids || fail "v2 patch-ids differ"

# the bad file is told once; the next pass is clean and sends nothing:
# the cursor (the time of the poll, then the files in name order) is found
# whole, so it is not rewritten
cursor() { sqlite3 state.db "SELECT cursor FROM cursors"; }
cursor >cursor4
[ "$(awk 'NF == 4 { print $4 }' cursor4 | tr '\n' ' ')" = \
	"00-bad.mbox 01-lines.mbox 02-lines-v2.mbox " ] ||
	fail "pass 4 cursor: $(cat cursor4)"
"$PATCHRELAY" run -c relay.conf --once 2>log5 || fail "pass 5: $(cat log5)"
grep -q '0 mail(s) sent' log5 || fail "pass 5: $(cat log5)"
[ "$(ls $new | wc -l)" -eq 8 ] || fail "pass 5 wrote mail: $(ls $new)"
cursor >cursor5
cmp -s cursor4 cursor5 || fail "pass 5 read a file again: $(cat cursor5)"

# files removed, and a copy of v2 under a name that sorts first: the same
# fingerprint, so nothing is sent; a new series in the middle is sent alone
rm in/00-bad.mbox
mv in/02-lines-v2.mbox in/000-copy.mbox
"$PATCHRELAY" run -c relay.conf --once 2>log6 || fail "pass 6: $(cat log6)"
grep -q '0 mail(s) sent' log6 || fail "pass 6 (renamed): $(cat log6)"
git -C repo checkout -q -b other main
echo more >>repo/other
git -C repo commit -q -a -m "other: one more line" -m "More.

Signed-off-by: Ada Demo <ada@example.org>"
git -C repo format-patch -q --stdout main..HEAD >in/005-other.mbox
"$PATCHRELAY" run -c relay.conf --once 2>log7 || fail "pass 7: $(cat log7)"
grep -q '1 mail(s) sent' log7 || fail "pass 7 (one new file): $(cat log7)"
grep -l '^Subject: \[PATCH\] other: one more line' $new/* >/dev/null ||
	fail "pass 7: the new series is not in the maildir"
"$PATCHRELAY" run -c relay.conf --once 2>log8 || fail "pass 8: $(cat log8)"
grep -q '0 mail(s) sent' log8 || fail "pass 8: $(cat log8)"
[ "$(ls $new | wc -l)" -eq 9 ] || fail "pass 8 wrote mail: $(ls $new)"

# a version missing a patch waits (its Date is now, the wait 1h): its file
# is named in the cursor and read again by each pass until the patch
# arrives in another file; then it is sent once, whole
half() { # half N: patch N/2 of a series, the second answering the first
	printf 'From w%s Mon Sep 17 00:00:00 2001\nFrom: Ada Demo <ada@example.org>\n' "$1"
	printf 'Date: %s\nSubject: [PATCH %s/2] wait: part %s\n' "$(date -R)" "$1" "$1"
	printf 'Message-ID: <w%s@example.org>\n' "$1"
	[ "$1" = 1 ] || printf 'In-Reply-To: <w1@example.org>\nReferences: <w1@example.org>\n'
	printf '\nPart %s.\n\nSigned-off-by: Ada Demo <ada@example.org>\n---\n' "$1"
	printf 'diff --git a/w%s b/w%s\n--- a/w%s\n+++ b/w%s\n@@ -1 +1,2 @@\n x\n+y\n\n' \
		"$1" "$1" "$1" "$1"
}
half 1 >in/006-half.mbox
"$PATCHRELAY" run -c relay.conf --once 2>log9 || fail "pass 9: $(cat log9)"
grep -q '0 mail(s) sent' log9 || fail "pass 9 sent a waiting version: $(cat log9)"
cursor | grep -qx 'wait 006-half.mbox' || fail "pass 9 cursor: $(cursor)"
"$PATCHRELAY" run -c relay.conf --once 2>log10 || fail "pass 10: $(cat log10)"
grep -q '0 mail(s) sent' log10 || fail "pass 10: $(cat log10)"
cursor | grep -qx 'wait 006-half.mbox' || fail "pass 10 cursor: $(cursor)"
half 2 >in/007-rest.mbox
"$PATCHRELAY" run -c relay.conf --once 2>log11 || fail "pass 11: $(cat log11)"
grep -q '2 mail(s) sent' log11 || fail "pass 11 (the rest came): $(cat log11)"
cursor | grep -q '^wait ' && fail "pass 11 still waits: $(cursor)"
"$PATCHRELAY" run -c relay.conf --once 2>log12 || fail "pass 12: $(cat log12)"
grep -q '0 mail(s) sent' log12 || fail "pass 12: $(cat log12)"
[ "$(ls $new | wc -l)" -eq 11 ] || fail "pass 12: not 11 mails: $(ls $new)"
echo "mbox_source.sh: ok"
