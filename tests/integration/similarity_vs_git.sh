#!/bin/sh
# Rename and copy detection against git: a generated suite of cases
# (tests/integration/similarity_gen.py: renames with 0 to 100% of their
# lines changed, the thresholds, many candidates, ties, identical sources,
# small, binary, CRLF and unterminated files, mode changes and symlinks,
# copies from modified, unmodified and deleted files, rewrites, quoted
# names, empty files, the rename limit) formatted by git format-patch and
# by patchrelay format with the same options, compared byte for byte; and
# git range-diff against patchrelay range-diff on two versions of it.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir
T=$tmp
fail=0
git_identity 'A U Thor <author@example.org>' '2026-12-03 12:00:00 +0100' \
	'C O Mitter <c@example.org>'
git_alone
gen="$PY $PR_SRC/tests/integration/similarity_gen.py"

git init -q -b main "$T/repo" && cd "$T/repo" || exit 1
$gen base || exit 1
$gen v1 || exit 1
git checkout -q -b v2 simbase && $gen v2 || exit 1
git checkout -q main

cases=0
check() { # $1: name, then format-patch's options and range
	name=$1
	shift
	rm -rf "$T/git" "$T/pr"
	if ! git format-patch -o "$T/git" "$@" >/dev/null 2>"$T/git.err"; then
		echo "FAIL $name: git format-patch failed"
		fail=1
		return
	fi
	if ! "$PATCHRELAY" format -o "$T/pr" "$@" >/dev/null 2>"$T/pr.err"; then
		echo "FAIL $name: patchrelay format failed:"
		cat "$T/pr.err"
		fail=1
		return
	fi
	bad=0
	for f in "$T/git"/*; do
		b=$(basename "$f")
		if ! cmp -s "$f" "$T/pr/$b"; then
			echo "FAIL $name: $b differs"
			diff -u "$f" "$T/pr/$b" | head -30
			bad=1
		fi
	done
	[ "$(ls "$T/git" | wc -l)" = "$(ls "$T/pr" | wc -l)" ] || bad=1
	cases=$((cases + 1))
	if [ $bad = 0 ]; then echo "ok $name"; else fail=1; fi
}

check "defaults" simbase
check "-M" -M simbase
check "-M30%" -M30% simbase
check "-M90%" -M90% simbase
check "-M100% (exact only)" -M100% simbase
check "-C" -C simbase
check "-C20%" -C20% simbase
check "-C -C" -C -C simbase
check "--find-copies-harder -C" --find-copies-harder -C simbase
check "-B" -B simbase
check "-B20%/70%" -B20%/70% simbase
check "-B -M" -B -M simbase
check "-B -C" -B -C simbase
check "--no-renames" --no-renames simbase
check "-l1" -l1 simbase
check "-l1 -C -C" -l1 -C -C simbase
check "--no-binary" --no-binary simbase
check "cover letter" --cover-letter simbase
check "cover letter -C -M40%" --cover-letter -C -M40% simbase
check "cover letter -B" --cover-letter -B simbase
check "--base with renames" --base=simbase -3

# diff.renames and diff.renameLimit from the config
git config diff.renames copies
check "diff.renames=copies" simbase
check "diff.renames=copies and -C" -C simbase
git config diff.renames false
check "diff.renames=false" simbase
check "diff.renames=false and -M" -M simbase
git config --unset diff.renames
git config diff.renameLimit 1
check "diff.renameLimit=1" simbase
git config --unset diff.renameLimit
GIT_CONFIG_PARAMETERS="'diff.renames=copies'"
export GIT_CONFIG_PARAMETERS
check "git -c diff.renames=copies" simbase
unset GIT_CONFIG_PARAMETERS

# the suite's renames must have shown what they test
cat "$T/git"/*.patch >"$T/all"
for want in 'similarity index 100%' 'similarity index 9[0-9]%' \
	'similarity index 5[0-9]%' 'rename from "sp/\\303\\244 umlaut.txt"' \
	'Bin 3000 -> 3000 bytes'; do
	git format-patch --stdout simbase | grep -q "$want" ||
		{ echo "FAIL: the suite shows no '$want'"; fail=1; }
done
git format-patch --stdout -C simbase | grep -q '^copy from ' ||
	{ echo "FAIL: -C finds no copy"; fail=1; }
git format-patch --stdout -B simbase | grep -q '^dissimilarity index ' ||
	{ echo "FAIL: -B finds no rewrite"; fail=1; }

# range-diff: git log -p inside finds renames as diff.renames says
for f in 60 100; do
	git range-diff --no-color --creation-factor=$f simbase..main \
		simbase..v2 >"$T/rd.git"
	"$PATCHRELAY" range-diff --creation-factor $f simbase..main \
		simbase..v2 >"$T/rd.pr"
	cases=$((cases + 1))
	if cmp -s "$T/rd.git" "$T/rd.pr" && grep -q ' ! ' "$T/rd.git"; then
		echo "ok range-diff, creation factor $f"
	else
		echo "FAIL range-diff, creation factor $f"
		diff -u "$T/rd.git" "$T/rd.pr" | head -40
		fail=1
	fi
done
echo "$cases cases"
exit $fail
