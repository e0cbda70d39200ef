#!/bin/sh
# Compare core/git/diff.c against git: the diffstat and --summary lines of
# `git format-patch` mails, and `git patch-id` (default and --stable), on a
# repository with many change shapes, one commit per shape.
set -eu
. "$(dirname "$0")/lib.sh"
tool="$PR_BUILD/tests/tools/diffstat_tool"
tmpdir
cd "$tmp"

git init -q repo
cd repo
git config user.name 'T Ester'
git config user.email t@example.org
git config core.quotePath true

commit() {
	git add -A
	git commit -q -m "$1"
}

seq 1 50 >edit.txt
seq 1 200 >big.txt
printf 'keep\n' >mode.sh
seq 1 100 >ren.txt
seq 1 100 >copy-src.txt
seq 1 30 >del.txt
mkdir -p dir/sub
seq 1 40 >dir/sub/moved.c
{ printf 'bin\000'; head -c 2000 /dev/urandom; } >blob.bin
{ printf 'bin\000'; head -c 500 /dev/urandom; } >gone.bin
commit base

sed -i 's/^7$/seven/' edit.txt
commit 'edit one line'

printf 'new\nfile\n' >added.txt
commit 'add a file'

git rm -q del.txt
commit 'delete a file'

git mv ren.txt renamed.txt
sed -i 's/^50$/fifty/' renamed.txt
commit 'rename with an edit'

git mv dir/sub/moved.c dir/other.c
commit 'pure rename across directories'

chmod +x mode.sh
commit 'mode change'

printf 'no newline' >nonl.txt
commit 'file without final newline'

printf 'now a newline\n' >nonl.txt
commit 'add the final newline'

printf 'x\n' >"$(printf 'caf\303\251.txt')"
printf 'y\n' >'with space.txt'
printf 'z\n' >'quo"te.txt'
commit 'non-ascii and quoted names'

long=very/long/directory/name/that/goes/on/and/on/for/quite/a/while/indeed
mkdir -p "$long"
seq 1 10 >"$long/and-a-long-file-name-too.txt"
commit 'long path'

i=0
while [ $i -lt 30 ]; do
	seq 1 $((i * 3 + 1)) >"many$i.txt"
	i=$((i + 1))
done
commit 'many files'

seq 1000 1300 >big.txt
commit 'rewrite a big file (graph scaling)'

{ printf 'bin\000'; head -c 3000 /dev/urandom; } >blob.bin
{ printf 'bin\000'; head -c 100 /dev/urandom; } >newblob.bin
git rm -q gone.bin
commit 'binary files'

cp copy-src.txt copied.txt
sed -i 's/^3$/three/' copied.txt
commit 'copy with an edit'

ln -s edit.txt link
commit 'add a symlink'

rm link
printf 'now a file\n' >link
commit 'symlink becomes a file (type change)'

git mv 'with space.txt' 'renamed space.txt'
chmod +x 'renamed space.txt'
commit 'rename with spaces and a mode change'

git mv "$(printf 'caf\303\251.txt')" "$(printf 'd\303\251j\303\240.txt')"
commit 'rename of a non-ascii name'

mkdir -p a/b/c
seq 1 20 >a/b/c/deep.txt
commit 'deep file'
git mv a/b/c/deep.txt a/x/c/deep.txt 2>/dev/null || { mkdir -p a/x/c; git mv a/b/c/deep.txt a/x/c/deep.txt; }
commit 'rename a middle directory'

{ cat blob.bin; printf 'appended\000bytes'; } >blob.tmp
mv blob.tmp blob.bin
commit 'small change to a big binary (delta hunks)'

fail=0
check() { # mail file, git format-patch options
	mail=$1
	shift
	sed -n '/^---$/,/^$/p' "$mail" | sed '1d;$d' >expect.stat
	"$tool" stat "$mail" >got.stat
	if ! cmp -s expect.stat got.stat; then
		echo "diffstat differs for $mail ($*):"
		diff expect.stat got.stat || true
		fail=1
	fi
	for mode in '' --stable; do
		git patch-id $mode <"$mail" | cut -d' ' -f1 >expect.id
		"$tool" patch-id $mode "$mail" >got.id
		if ! cmp -s expect.id got.id; then
			echo "patch-id $mode differs for $mail"
			fail=1
		fi
	done
}

n=0
for opts in '' '-C -C' '--no-renames'; do
	rm -rf out
	# shellcheck disable=SC2086
	git format-patch -q $opts -o out --root HEAD
	for m in out/*.patch; do
		check "$m" $opts
		cat expect.stat >>all.stat
		n=$((n + 1))
	done
done
git diff HEAD~3 HEAD~1 >plain.diff
check_id() {
	for mode in '' --stable; do
		a=$(git patch-id $mode <"$1" | cut -d' ' -f1)
		b=$("$tool" patch-id $mode "$1")
		[ "$a" = "$b" ] || { echo "patch-id $mode differs for $1"; fail=1; }
	done
}
check_id plain.diff

# binary files without --binary: "Binary files a/x and b/x differ", with
# /dev/null for created and deleted ones, must give git's patch ids
rm -rf nobin
git format-patch -q --no-binary -o nobin --root HEAD
for m in nobin/*.patch; do
	check_id "$m"
	n=$((n + 1))
done
grep -q '^Binary files /dev/null and b/.* differ$' nobin/*.patch ||
	{ echo "no created binary without --binary"; fail=1; }
grep -q '^Binary files a/.* and /dev/null differ$' nobin/*.patch ||
	{ echo "no deleted binary without --binary"; fail=1; }
grep -q '^Binary files a/.* and b/.* differ$' nobin/*.patch ||
	{ echo "no changed binary without --binary"; fail=1; }

# the shapes must really be there, or the comparison proves little
for want in ' copy ' ' rename ' 'dir/{sub/moved.c => other.c}' ' mode change ' \
	' delete mode ' 'Bin 0 -> ' ' bytes' '"caf\303\251.txt"' '.../' \
	'30 files changed'; do
	grep -q -F -- "$want" all.stat || { echo "no '$want' in any diffstat"; fail=1; }
done
grep -q '^delta ' out/*.patch || { echo "no delta binary hunk made"; fail=1; }
echo "checked $n mails"
[ $n -gt 40 ] || { echo "too few mails"; exit 1; }
exit $fail
