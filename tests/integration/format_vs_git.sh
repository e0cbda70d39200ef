#!/bin/sh
# patchrelay format against git format-patch: the same commits and options
# must give the same file names and the same bytes.
set -eu

: "${PATCHRELAY:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

export GIT_AUTHOR_DATE="2026-12-03 12:00:00 +0100"
export GIT_COMMITTER_DATE="2026-12-03 12:00:00 +0100"
export GIT_CONFIG_NOSYSTEM=1 HOME="$T"
export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL="author@example.org"
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL="c@example.org"

R="$T/repo"
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
commit "tree: rename, chmod, delete and create"

# binary file and missing final newline
printf '\000\001\002binary\377' >blob.bin
/usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 20 + b"\0changed" + bytes(range(256)) * 20)' >big.bin
printf 'no newline at end' >nonl.txt
# a verbatim message: trailing blanks, extra blank lines, a wrapped title
printf 'add a binary and a file  \nwithout final newline\n\n\n  body line   \ntab\t\n\n\n' >"$T/msg"
git add -A
git commit -q --cleanup=verbatim -F "$T/msg"

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
	rm -rf "$T/git" "$T/pr"
	git format-patch -o "$T/git" "$@" >"$T/git.out"
	"$PATCHRELAY" format -o "$T/pr" "$@" >"$T/pr.out"
	sed "s#$T/git#OUT#" "$T/git.out" >"$T/git.names"
	sed "s#$T/pr#OUT#" "$T/pr.out" >"$T/pr.names"
	if ! cmp -s "$T/git.names" "$T/pr.names"; then
		echo "FAIL $name: printed names differ"
		diff "$T/git.names" "$T/pr.names" || true
		fail=1
	fi
	for f in "$T/git"/*; do
		b=$(basename "$f")
		if [ ! -f "$T/pr/$b" ]; then
			echo "FAIL $name: missing $b"
			fail=1
		elif cmp -s "$f" "$T/pr/$b"; then
			:
		else
			echo "FAIL $name: $b differs"
			diff -u "$f" "$T/pr/$b" | head -40 || true
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
check "reroll" -v2 -3
check "subject prefix" --subject-prefix "PATCH net-next" -2
check "signature" --signature "my sig" -2
check "prefix and reroll" --subject-prefix="RFC PATCH" -v 3 HEAD~3..HEAD
check "first edit" base..HEAD~5
check "five patches" -5
check "all since base" base
check "range" base..HEAD~2
check "cover over everything" --cover-letter base

# --stdout
cd "$R"
git format-patch --stdout --cover-letter -3 >"$T/git.mbox"
"$PATCHRELAY" format --stdout --cover-letter -3 >"$T/pr.mbox"
if ! cmp -s "$T/git.mbox" "$T/pr.mbox"; then
	diff "$T/git.mbox" "$T/pr.mbox" | head -20
	echo "FAIL stdout"
	fail=1
else
	echo "ok stdout"
fi

exit $fail
