#!/bin/sh
# patchrelay range-diff against git range-diff --no-color: two versions of
# a series built in a real repository for each case (reworded commit,
# changed hunk, dropped, added and reordered patches, an identical series,
# a patch changed past the creation factor, renames, modes, binaries, tabs
# in messages, a two-digit series), compared byte for byte with cmp.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

git_identity 'A U Thor <author@example.org>' '1700000000 +0000' \
	'C O Mitter <c@example.org>'
git_alone
repo="$tmp/repo"
git init -q "$repo" || fail "git init"
cd "$repo" || exit 1

# base: a C file with functions, numbered lines, a few small files
cat >a.c <<'EOF'
#include <stdio.h>

static int foo(int x)
{
	int y = x * 2;

	if (y > 10)
		return y;
	return x;
}

static int bar(int x)
{
	return foo(x) + 1;
}

int main(void)
{
	printf("%d\n", bar(3));
	return 0;
}
EOF
seq 1 60 >b.txt
seq 100 120 >c.txt
printf 'd one\nd two\nd three\n' >d.txt
printf 'bin\000ary' >blob.bin
printf '#!/bin/sh\necho hi\n' >run.sh
git add . && git commit -qm "base" || fail "base commit"
git tag base

commit() { git add -A && git commit -q "$@" || fail "commit $*"; }

# the patches of a series; the variants change one argument
p_foo() { # $1: the new line in foo, $2: what main prints (bar(3))
	sed -e "s/	int y = x \* 2;/	int y = x * 2;\n	$1/" \
		-e "s/bar(3)/${2:-bar(4)}/" a.c >a.c.new && mv a.c.new a.c
	commit -m "a: tweak foo" -m "Make foo do more work."
}
p_b() { # $1: message body, $2: line 10, $3: line 50
	sed -e "s/^10\$/$2/" -e "s/^50\$/$3/" b.txt >b.new && mv b.new b.txt
	commit -m "b: change two lines" -m "$1" -m "Signed-off-by: A U Thor <author@example.org>"
}
p_e() { seq 1 12 | sed 's/^/e line /' >e.txt; commit -m "e: add a file"; }
p_d() { # $1: text
	printf '%s\n' "$1" >>d.txt
	commit -m "d: append" -m "Tab	in	the body, and ünïcödé	too."
}
p_mv() { git mv c.txt c2.txt && sed 's/^110$/one-ten/' c2.txt >c.new &&
	mv c.new c2.txt && commit -m "c: rename and touch"; }
p_mode() { chmod +x d.txt; commit -m "d: make executable"; }
p_bin() { printf 'bin\000ary %s' "$1" >blob.bin; commit -m "blob: update"; }
p_rm() { git rm -q run.sh && commit -m "drop run.sh"; }

branch() { git checkout -q -B "$1" base || fail "checkout $1"; }

branch v1
p_foo "y += 1;"; p_b "Body one." 10x 50x; p_e; p_d "d four"; p_mv

check() { # $1: name, $2: old range, $3: new range, $4...: extra options
	name=$1 r1=$2 r2=$3
	shift 3
	git range-diff --no-color "$@" "$r1" "$r2" >"$tmp/$name.git" ||
		fail "$name: git range-diff"
	"$PATCHRELAY" range-diff "$@" "$r1" "$r2" >"$tmp/$name.pr" ||
		fail "$name: patchrelay range-diff exit $?"
	cmp "$tmp/$name.git" "$tmp/$name.pr" || {
		diff -u "$tmp/$name.git" "$tmp/$name.pr" >&2
		fail "$name: output differs from git"
	}
	[ -s "$tmp/$name.git" ] || fail "$name: empty output"
	cases=$((cases + 1))
}
cases=0

branch identical
p_foo "y += 1;"; p_b "Body one." 10x 50x; p_e; p_d "d four"; p_mv
check identical base..v1 base..identical
grep -q ' = ' "$tmp/identical.git" || fail "identical: no '=' lines"

branch reword
p_foo "y += 1;"; p_b "A reworded body that says more." 10x 50x; p_e
p_d "d four"; p_mv
check reword base..v1 base..reword

branch hunk
p_foo "y += 2;" "bar(5)"; p_b "Body one." 10x 50y; p_e; p_d "d four"; p_mv
check hunk base..v1 base..hunk
grep -q '^    @@ a.c: static int bar' "$tmp/hunk.git" ||
	fail "hunk: no funcname section header"

branch dropped
p_foo "y += 1;"; p_b "Body one." 10x 50x; p_d "d four"; p_mv
check dropped base..v1 base..dropped
grep -q ' < -: ' "$tmp/dropped.git" || fail "dropped: no '<' line"

branch added
p_foo "y += 1;"; p_b "Body one." 10x 50x; p_rm; p_e; p_d "d four"; p_mv
check added base..v1 base..added
grep -q '^-:  ------- > ' "$tmp/added.git" || fail "added: no '>' line"

branch reordered
p_e; p_foo "y += 1;"; p_d "d four"; p_b "Body one." 10x 50x; p_mv
check reordered base..v1 base..reordered

branch beyond
p_foo "y += 1;"; p_b "Body one." 10x 50x; p_e
p_d "a completely different line"; p_mv
check beyond base..v1 base..beyond
check beyond-cf base..v1 base..beyond --creation-factor=200
check beyond-cf0 base..v1 base..reword --creation-factor=0

branch extras1
p_foo "y += 1;"; p_mode; p_bin one; p_rm; p_d "d four"
branch extras2
p_foo "y += 1;"; p_bin two; p_mode; p_d "d five"; p_rm
check extras base..extras1 base..extras2
check extras-cf base..extras1 base..extras2 --creation-factor=1000

# two-digit patch numbers, and the three-argument form
branch long1
i=1
while [ $i -le 11 ]; do
	echo "line $i" >"f$i.txt"
	commit -m "add f$i"
	i=$((i + 1))
done
branch long2
i=1
while [ $i -le 12 ]; do
	echo "line $i" >"f$i.txt"
	[ $i = 5 ] && echo "changed" >>"f$i.txt"
	commit -m "add f$i"
	i=$((i + 1))
done
check long base..long1 base..long2
"$PATCHRELAY" range-diff base long1 long2 >"$tmp/three.pr" ||
	fail "three-argument form: exit $?"
cmp "$tmp/long.git" "$tmp/three.pr" || fail "three-argument form differs"

# a changed author
branch author
GIT_AUTHOR_NAME="Other Person" p_foo "y += 1;"
p_b "Body one." 10x 50x; p_e; p_d "d four"; p_mv
check author base..v1 base..author

# a first paragraph of several lines: the header joins it (oneline), the
# commit message part keeps its lines
p_para() {
	echo "$1" >>e.txt
	commit -m "e: a subject that goes on
over $1 lines
  and a third, indented one" -m "The body."
}
branch para1
p_e; p_para two; p_foo "y += 1;"
branch para2
p_e; p_para other; p_foo "y += 1;"
check para base..para1 base..para2
check para-cf base..para1 base..para2 --creation-factor=300
grep -q '^    -    over two lines$' "$tmp/para-cf.git" ||
	fail "para: the paragraph's second line is not in git's diff"

# usage and bad ranges
"$PATCHRELAY" range-diff base..v1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "one range: want exit 2"
"$PATCHRELAY" range-diff base..v1 base..nosuch >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad range: want exit 2"
"$PATCHRELAY" range-diff --creation-factor=x base..v1 base..v1 \
	>/dev/null 2>&1
[ $? -eq 2 ] || fail "bad creation factor: want exit 2"
# random series edited at random (fixed seeds): pairing ties and the
# assignment's corner cases
/usr/bin/python3 "$PR_SRC/tests/integration/rangediff_random.py" \
	"$PATCHRELAY" "$tmp/random" 1 40 || fail "random series differ from git"
echo "ok: $cases cases match git range-diff"
