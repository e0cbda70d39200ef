#!/bin/sh
# patchrelay format against git format-patch: the same commits and options
# must give the same file names and the same bytes.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
fail=0

git_identity 'A U Thor <author@example.org>' '2026-12-03 12:00:00 +0100' \
	'C O Mitter <c@example.org>'
git_alone

R="$tmp/repo"
git init -q -b main "$R"
cd "$R"

commit() {
	git add -A
	git commit -q -m "$1"
}

# base
printf 'line1\nline2\nline3\n' >a.txt
printf '#include <stdio.h>\n\nint main(void)\n{\n\treturn 0;\n}\n' >main.c
seq 1 50 >long.txt
printf 'rename me please\nwith some lines\nthat stay\nthe same\n' >old.txt
printf 'to be deleted\n' >gone.txt
printf 'script\n' >run.sh
/usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 40)' >big.bin
commit "initial import"
git tag base

# plain edit with function context
printf '#include <stdio.h>\n\nint main(void)\n{\n\tputs("hi");\n\treturn 0;\n}\n' >main.c
sed -i 's/^25$/twenty-five/' long.txt
commit "main: say hi

A body paragraph that explains the change
over two lines.

Signed-off-by: A U Thor <author@example.org>"

# rename, mode change, deletion, new file
git mv old.txt new.txt
chmod +x run.sh
git rm -q gone.txt
printf 'fresh\n' >fresh.txt
# names git quotes, and names with a space (a tab after ---/+++ names)
printf 'spaced\n' >"sp ace.txt"
printf 'quoted\n' >"ä umlaut.txt"
commit "tree: rename, chmod, delete and create"

# binary file and missing final newline
printf '\000\001\002binary\377' >blob.bin
/usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 20 + b"\0changed" + bytes(range(256)) * 20)' >big.bin
printf 'no newline at end' >nonl.txt
# a verbatim message: trailing blanks, extra blank lines, a wrapped title
printf 'add a binary and a file  \nwithout final newline\n\n\n  body line   \ntab\t\n\n\n' >"$tmp/msg"
git add -A
git commit -q --cleanup=verbatim -F "$tmp/msg"

# non-ASCII author and subject
GIT_AUTHOR_NAME="Jöhn Dœ" git commit -q --allow-empty -m x
git reset -q --hard HEAD~1
printf 'ü\n' >>a.txt
git add -A
GIT_AUTHOR_NAME="Jöhn Dœ" git commit -q -m "Ärger: fix the ümlaut handling in a.txt for good"

# subject long enough to fold
echo more >>a.txt
commit "net: this is a fairly long subject line that should fold somewhere after seventy-eight columns"

# empty body, quoted author
echo x >>a.txt
git add -A
GIT_AUTHOR_NAME="A. U. Thor" git commit -q -m "a.txt: one more line"

check() {
	bad=$fail
	fail=0
	name=$1
	shift
	rm -rf "$tmp/git" "$tmp/pr"
	git format-patch -o "$tmp/git" "$@" >"$tmp/git.out"
	"$PATCHRELAY" format -o "$tmp/pr" "$@" >"$tmp/pr.out"
	sed "s#$tmp/git#OUT#" "$tmp/git.out" >"$tmp/git.names"
	sed "s#$tmp/pr#OUT#" "$tmp/pr.out" >"$tmp/pr.names"
	if ! cmp -s "$tmp/git.names" "$tmp/pr.names"; then
		echo "FAIL $name: printed names differ"
		diff "$tmp/git.names" "$tmp/pr.names" || true
		fail=1
	fi
	for f in "$tmp/git"/*; do
		b=$(basename "$f")
		if [ ! -f "$tmp/pr/$b" ]; then
			echo "FAIL $name: missing $b"
			fail=1
		elif cmp -s "$f" "$tmp/pr/$b"; then
			:
		else
			echo "FAIL $name: $b differs"
			diff -u "$f" "$tmp/pr/$b" | head -40 || true
			fail=1
		fi
	done
	[ $fail = 0 ] && echo "ok $name"
	[ $bad = 0 ] || fail=1
}

# strict: every byte of every file
check "single patch" -1
check "three patches" -3
check "cover letter" --cover-letter -3
check "cover letter and base" --cover-letter --base=HEAD~3 -3
check "base without cover" --base HEAD~2 -2
check "base with prerequisites" --base=HEAD~3 -1
check "base with rename and mode prerequisites" --base=base -5
check "base with binary prerequisites" --cover-letter --base=base -2
check "cover, base with prerequisites" --cover-letter --base HEAD~3 -v4 -1
check "reroll" -v2 -3
check "subject prefix" --subject-prefix "PATCH net-next" -2
check "signature" --signature "my sig" -2
check "prefix and reroll" --subject-prefix="RFC PATCH" -v 3 HEAD~3..HEAD
check "first edit" base..HEAD~5
check "five patches" -5
check "all since base" base
check "range" base..HEAD~2
check "cover over everything" --cover-letter base

# --from: the sender in From:, the author in-body (raw, even non-ASCII)
check "from committer" --from -3
check "from ident" --from="Sen Der <sender@example.net>" -3
check "from the author himself" --from="A U Thor <author@example.org>" -2
check "from, blanks kept before the name" --from="  Spaced   <s@example.net>" -1
check "from and cover letter" --from="Sen Der <s@example.net>" --cover-letter -3
check "in-reply-to" --in-reply-to="<root@example.net>" -2
check "in-reply-to, cover letter" --in-reply-to=root@example.net --cover-letter -2

# --thread: git's Message-Id is <commit>.<time(NULL)>.git.<committer email>
# and git takes the time from the clock (GIT_COMMITTER_DATE does not fix
# it), so the epoch is masked; every other byte must match
check_thread() {
	name=$1
	shift
	now=$(date +%s)
	git format-patch --stdout "$@" >"$tmp/git.thr"
	"$PATCHRELAY" format --stdout "$@" >"$tmp/pr.thr"
	# the epoch must be the clock's, not made up
	ep=$(sed -n 's/^Message-Id: <[^.]*\.\([0-9]*\)\.git\..*/\1/p' "$tmp/pr.thr" | head -1)
	if [ -z "$ep" ] || [ "$ep" -lt "$now" ] || [ "$ep" -gt $((now + 60)) ]; then
		echo "FAIL $name: no Message-Id with the current epoch ($ep)"
		fail=1
		return
	fi
	sed -E 's/^(Message-Id|In-Reply-To|References): <([^.>]*)\.[0-9]+\.git\./\1: <\2.EPOCH.git./' "$tmp/git.thr" >"$tmp/git.thrm"
	sed -E 's/^(Message-Id|In-Reply-To|References): <([^.>]*)\.[0-9]+\.git\./\1: <\2.EPOCH.git./' "$tmp/pr.thr" >"$tmp/pr.thrm"
	if ! grep -q '^Message-Id: <[0-9a-f]*.EPOCH.git.c@example.org>$' "$tmp/git.thrm" ||
	   ! cmp -s "$tmp/git.thrm" "$tmp/pr.thrm"; then
		echo "FAIL $name"
		diff "$tmp/git.thrm" "$tmp/pr.thrm" | head -20 || true
		fail=1
	else
		echo "ok $name"
	fi
}
check_thread "thread" --thread -3
check_thread "thread=shallow, in-reply-to" --thread=shallow --in-reply-to=x@y -3
check_thread "thread, cover letter" --thread --cover-letter -3
check_thread "thread, from" --thread --from -2

# --stdout
cd "$R"
git format-patch --stdout --cover-letter -3 >"$tmp/git.mbox"
"$PATCHRELAY" format --stdout --cover-letter -3 >"$tmp/pr.mbox"
if ! cmp -s "$tmp/git.mbox" "$tmp/pr.mbox"; then
	diff "$tmp/git.mbox" "$tmp/pr.mbox" | head -20
	echo "FAIL stdout"
	fail=1
else
	echo "ok stdout"
fi

# a second history: an empty commit (git writes an empty file), a
# symlink, text turned binary, a binary deleted, many files (stat scaling)
E="$tmp/edge"
git init -q -b main "$E"
cd "$E"
echo a >a
commit "root"
git commit -q --allow-empty -m "empty commit"
ln -s a link
commit "symlink"
printf '\001\002' >a
commit "text to binary"
git rm -q a
commit "delete the binary"
for i in $(seq 1 30); do
	echo "$i" >"file_with_a_rather_long_name_number_$i.txt"
done
seq 1 300 >big.txt
commit "many files"
check "edge history" HEAD~5
check "edge history, cover letter" --cover-letter HEAD~5
git format-patch --stdout HEAD~5 >"$tmp/git.mbox"
"$PATCHRELAY" format --stdout HEAD~5 >"$tmp/pr.mbox"
if ! cmp -s "$tmp/git.mbox" "$tmp/pr.mbox"; then
	echo "FAIL edge history --stdout"
	fail=1
else
	echo "ok edge history --stdout"
fi
cd "$R"

# a merge inside the range (left out; the order is git's date walk,
# all commits having the same date here)
M="$tmp/merge"
git init -q -b main "$M"
cd "$M"
echo a >a
commit "root"
git tag mbase
git checkout -q -b side
echo s >s
commit "on the side"
git checkout -q main
echo m >m
commit "on main"
git merge -q --no-edit side
echo z >>a
commit "after the merge"
check "merge in range" mbase
check "merge in range, cover letter" --cover-letter mbase..HEAD
cd "$R"

# binary files: small ones git does not pair as a rename (libgit2's
# similarity would), a binary renamed unchanged (a bare "Bin", no
# "Binary files" line), a binary renamed with an edit, new and deleted
# binaries; and the range-diff of two such series (git log -p there runs
# without --binary: "Binary files X and Y differ")
B="$tmp/binary"
git init -q -b main "$B"
cd "$B"
printf 'bin\000one' >a.bin
printf 'bin\000gone' >g.bin
/usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 8)' >big.bin
echo t >t.txt
commit "binary base"
git tag bbase
printf 'bin\000two' >a.bin
printf 'bin\000new!' >n.bin
git rm -q g.bin
echo u >>t.txt
commit "binary: edit, create, delete"
git mv a.bin r.bin
commit "binary: rename unchanged"
git mv big.bin big2.bin
printf 'tail\000' >>big2.bin
commit "binary: rename with an edit"
check "binary shapes" bbase
check "binary shapes, cover letter" --cover-letter bbase
# without --binary: "Binary files a/x and b/x differ" (/dev/null for a
# created or deleted file), abbreviated index ids, sizes still in the stat
check "binary shapes, --no-binary" --no-binary bbase
check "binary shapes, --no-binary and cover letter" --no-binary --cover-letter bbase
grep -q '^Binary files /dev/null and b/n.bin differ$' "$tmp"/git/*.patch ||
	{ echo "FAIL no created binary in git's --no-binary output"; fail=1; }
check "binary shapes, --no-binary then --binary" --no-binary --binary bbase
git checkout -q -b bv2 bbase
printf 'bin\000three' >a.bin
printf 'bin\000newer' >n.bin
git rm -q g.bin
commit "binary: edit, create, delete"
git mv a.bin r.bin
commit "binary: rename unchanged"
for f in 60 300; do
	git range-diff --no-color --creation-factor=$f bbase..main bbase..bv2 >"$tmp/rd.git"
	"$PATCHRELAY" range-diff --creation-factor $f bbase..main bbase..bv2 >"$tmp/rd.pr"
	if cmp -s "$tmp/rd.git" "$tmp/rd.pr"; then
		echo "ok binary range-diff, creation factor $f"
	else
		echo "FAIL binary range-diff, creation factor $f"
		diff "$tmp/rd.git" "$tmp/rd.pr" | head -20
		fail=1
	fi
done
cd "$R"

# -N over merges: git walks HEAD's history by committer date, skips the
# merges without counting them and keeps the first N others, oldest first;
# the dates here make that order differ from a topological one
N="$tmp/nmerge"
git init -q -b main "$N"
cd "$N"
t=1700000000
dated() {
	t=$((t + $2))
	echo "$1" >>"$1.f"
	git add -A
	GIT_COMMITTER_DATE="@$t +0000" GIT_AUTHOR_DATE="@$t +0000" \
		git commit -q -m "$1"
}
dated root 10
dated base 10
git checkout -q -b side
dated s1 10
dated s2 10
git checkout -q main
dated m1 5
dated m2 30
git checkout -q -b side2 HEAD~1
dated t1 1
git checkout -q main
t=$((t + 10))
GIT_COMMITTER_DATE="@$t +0000" git merge -q --no-edit side side2 >/dev/null
dated after 10
for n in 1 2 3 4 5 6 7 9; do
	check "-$n over an octopus merge" -$n
done
# the cover letter's stat: git starts it at the one commit outside the
# series that is a parent of a series commit, and prints none when there
# are several; a range ending at a merge has one (base), the whole history
# has one (the merge below "after")
nbase=$(git log --format=%H --grep='^base$')
for n in 1 2 3 4 5 7 8; do
	check "-$n over merges, cover letter" --cover-letter -$n
done
check "range ending at a merge, cover letter" --cover-letter "$nbase..HEAD~1"
grep -q '^ 2 files changed' "$tmp/git/0000-cover-letter.patch" ||
	{ echo "FAIL git shows no stat for a range ending at a merge"; fail=1; }
check "range over a merge, cover letter" --cover-letter "$nbase..HEAD"
git format-patch --stdout -3 | grep '^Subject' >"$tmp/subj"
printf 'Subject: [PATCH 1/3] m2\nSubject: [PATCH 2/3] t1\nSubject: [PATCH 3/3] after\n' |
	cmp -s - "$tmp/subj" || { echo "FAIL git's -3 order is not the date order"; fail=1; }
cd "$R"

# -C DIR, and no -o: files land in DIR, names printed bare
cfail=$fail
fail=0
mkdir "$tmp/c1" "$tmp/c2"
cp -r "$R" "$tmp/c1/repo"
cp -r "$R" "$tmp/c2/repo"
(cd "$tmp/c1" && git -C repo format-patch -2 >"$tmp/c1.out")
(cd "$tmp/c2" && "$PATCHRELAY" format -C repo -2 >"$tmp/c2.out")
if ! cmp -s "$tmp/c1.out" "$tmp/c2.out"; then
	echo "FAIL -C: printed names differ"
	fail=1
fi
for f in "$tmp/c1/repo"/*.patch; do
	if ! cmp -s "$f" "$tmp/c2/repo/$(basename "$f")"; then
		echo "FAIL -C: $(basename "$f") differs"
		fail=1
	fi
done
[ $fail = 0 ] && echo "ok -C"
[ $cfail = 0 ] || fail=1
cd "$R"

# hunk headers: git cuts the function line at 80 bytes and then trims
# it, and cuts the header at its first byte that is not UTF-8 (a space
# before such a byte stays; libgit2 trims first)
H="$tmp/hunkhdr"
git init -q -b main "$H"
cd "$H"
/usr/bin/python3 - <<'PY'
heads = {'a1': b'f' + b'x' * 77 + b' yyy', 'a2': b'g' + b'x' * 78 + b' yyyy',
         'a3': b'h' + b'x' * 77 + b' \xd0\xb9zz', 'a4': b'i' + b'x' * 77 + b' \xe9zz',
         'a5': b'j caf\xe9 latin-1 in the middle', 'a6': b'k' + b'x' * 76 + b'\xe2\x98\x83z',
         'a7': b'l short  \t', 'a8': b'm' + b'x' * 78 + b'\r'}
for name, head in heads.items():
    open(name, 'wb').write(head + b'\n' + b''.join(b' %d\n' % i for i in range(20)))
PY
commit "long function lines"
sed -i 's/^ 10$/ TEN/' a1 a2 a3 a4 a5 a6 a7 a8
commit "edit below long function lines"
check "hunk headers of long and 8-bit function lines" -1
cd "$R"

# refusals git also makes
if "$PATCHRELAY" format --base HEAD -1 >/dev/null 2>&1; then
	echo "FAIL a base that is not an ancestor was accepted"
	fail=1
fi
if "$PATCHRELAY" format --from=nobody -1 >/dev/null 2>&1; then
	echo "FAIL --from without an <email> was accepted"
	fail=1
fi
if "$PATCHRELAY" format no-such-rev >/dev/null 2>&1; then
	echo "FAIL an unknown revision was accepted"
	fail=1
fi

exit $fail
