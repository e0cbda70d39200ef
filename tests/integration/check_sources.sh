#!/bin/sh
# patchrelay check on its other sources: commits of a git range (-C), the
# steps of a route from a config file (-c, --route) and an mbox of several
# patches, each of which must get its own entries.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

git_identity 'A U Thor <author@example.org>'
G="$tmp/repo"
git init -q "$G" || fail "git init"
printf 'int a;\n' >"$G/a.c"
git -C "$G" add . && git -C "$G" commit -q -m init || fail "commit"
for i in 1 2 3; do
	printf 'int b%s;\n' "$i" >>"$G/a.c"
	git -C "$G" commit -q -a -s -m "foo: add b$i

Add b$i, for the test." || fail "commit $i"
done
printf 'int z;\n' >>"$G/a.c"
git -C "$G" commit -q -a -m "wip." || fail "commit wip"

# A clean range passes with -C.
"$PATCHRELAY" check --step msg-lint --step size-limit -C "$G" HEAD~4..HEAD~1 >"$tmp/clean.out"
rc=$?
cat "$tmp/clean.out"
[ $rc -eq 0 ] || fail "clean range: exit $rc, want 0"
grep -q "^pass msg-lint: 3 patch(es), every message rule passes" "$tmp/clean.out" ||
	fail "clean range: msg-lint did not see 3 patches pass"
# Per patch summed, as git log --numstat gives them.
set -- $(git -C "$G" log --format= --numstat HEAD~4..HEAD~1 | awk '{f++; a+=$1; d+=$2} END {print f, a, d}')
grep -q "^pass size-limit: $1 files, +$2 -$3 lines, 3 patches" "$tmp/clean.out" ||
	fail "clean range: figures differ from git's"

# A bad commit message fails with -C, and the entries name it.
"$PATCHRELAY" check --step msg-lint -C "$G" -1 >"$tmp/bad.out"
rc=$?
cat "$tmp/bad.out"
[ $rc -eq 1 ] || fail "bad commit: exit $rc, want 1"
grep -q "^fail msg-lint/signoff-missing patch 1:" "$tmp/bad.out" || fail "bad commit: no signoff-missing"
grep -q "^warn msg-lint/subject-trailing-period patch 1:" "$tmp/bad.out" || fail "bad commit: no trailing period"
"$PATCHRELAY" check --step msg-lint -C "$G" 2>/dev/null
[ $? -eq 2 ] || fail "-C without REVRANGE: want exit 2"
"$PATCHRELAY" check --step msg-lint -C "$tmp/nonexistent" -1 2>"$tmp/norepo.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 1 ] || fail "-C on no repository: exit $rc, want an error"

# The route of the example config runs its steps, by instance name.
"$PATCHRELAY" check -c "$PR_SRC/examples/kernel-checks.conf" -C "$G" HEAD~4..HEAD~1 >"$tmp/route.out"
rc=$?
cat "$tmp/route.out"
[ $rc -eq 0 ] || fail "route: exit $rc, want 0"
[ "$(cut -d' ' -f1,2 "$tmp/route.out" | tr '\n' ' ')" = "pass lint: pass size: pass mass: verdict: pass " ] ||
	fail "route: steps not lint, size, mass in order"
"$PATCHRELAY" check -c "$PR_SRC/examples/kernel-checks.conf" --route kernel -C "$G" -1 >"$tmp/route2.out"
[ $? -eq 1 ] || fail "route on the bad commit: want exit 1"
grep -q "^fail lint/signoff-missing patch 1:" "$tmp/route2.out" || fail "route: lint did not fail"
# The configured options are used: max-files = 1 fails two files.
sed -e 's/max-files = 100/max-files = 1/' "$PR_SRC/examples/kernel-checks.conf" >"$tmp/one.conf"
printf 'x\n' >"$G/b.c"
git -C "$G" add b.c && git -C "$G" commit -q -s -m "foo: add b.c

Add b.c, for the test." -- b.c || fail "commit b.c"
"$PATCHRELAY" check -c "$tmp/one.conf" -C "$G" HEAD~5..HEAD~4 >"$tmp/opt.out"
grep -q "^pass size: 1 files" "$tmp/opt.out" || fail "option: one file passes max-files=1"
"$PATCHRELAY" check -c "$tmp/one.conf" -C "$G" HEAD~2..HEAD >"$tmp/opt2.out"
[ $? -eq 1 ] || fail "option: max-files=1 on two files: want exit 1"
grep -q "^fail size/files: 2 files changed, over the fail limit of 1" "$tmp/opt2.out" ||
	fail "option: max-files=1 not applied"
# Several routes and no --route: an error listing them.
cat "$PR_SRC/examples/kernel-checks.conf" >"$tmp/two.conf"
printf '[route "second"]\n\tfrom = topic\n\tstep = size\n\tto = inbox\n' >>"$tmp/two.conf"
"$PATCHRELAY" check -c "$tmp/two.conf" -C "$G" -1 >/dev/null 2>"$tmp/two.err"
[ $? -eq 2 ] || fail "two routes: want exit 2"
grep -q "several routes (kernel, second)" "$tmp/two.err" || fail "two routes: routes not listed"
"$PATCHRELAY" check -c "$tmp/two.conf" --route nope -C "$G" -1 >/dev/null 2>"$tmp/nope.err"
[ $? -eq 2 ] || fail "unknown route: want exit 2"
grep -q "no route 'nope'" "$tmp/nope.err" || fail "unknown route: not named"
"$PATCHRELAY" check -c "$tmp/two.conf" --route second -C "$G" -1 >"$tmp/second.out"
[ "$(cut -d' ' -f2 "$tmp/second.out" | head -1)" = "size:" ] || fail "--route second: not its steps"

# An mbox of 3 patches (with its cover letter) gives per-patch entries.
git -C "$G" format-patch -q --cover-letter --stdout HEAD~5..HEAD~2 >"$tmp/s.mbox" || fail "format-patch"
[ "$(grep -c '^From [0-9a-f]\{40\} ' "$tmp/s.mbox")" -eq 4 ] || fail "mbox: want 4 messages"
"$PATCHRELAY" check --step msg-lint:signoff-missing=off --step size-limit "$tmp/s.mbox" >"$tmp/mbox.out"
rc=$?
cat "$tmp/mbox.out"
[ $rc -eq 0 ] || fail "mbox: exit $rc, want 0"
grep -q "^pass msg-lint: 3 patch(es)" "$tmp/mbox.out" || fail "mbox: not 3 patches"
grep -q "^pass size-limit: .* 3 patches" "$tmp/mbox.out" || fail "mbox: size-limit not 3 patches"
# The same series with its sign-offs taken out fails once per patch.
git -C "$G" format-patch -q --stdout HEAD~5..HEAD~2 |
	sed -e '/^Signed-off-by:/d' >"$tmp/nosob.mbox"
"$PATCHRELAY" check --step msg-lint "$tmp/nosob.mbox" >"$tmp/nosob.out"
[ $? -eq 1 ] || fail "mbox without sign-offs: want exit 1"
for n in 1 2 3; do
	grep -q "^fail msg-lint/signoff-missing patch $n:" "$tmp/nosob.out" ||
		fail "mbox: no entry for patch $n"
done
[ "$(grep -c '^fail' "$tmp/nosob.out")" -eq 3 ] || fail "mbox: want exactly 3 fails"

# size-limit's largest-file limits, against git's own per-file figure.
printf '1\n2\n3\n4\n5\n6\n' >"$G/big.txt"
printf 'x\ny\n' >>"$G/b.c"
git -C "$G" add big.txt && git -C "$G" commit -q -a -s -m "foo: add big.txt

Six lines in one file, two in another." || fail "commit big"
big=$(git -C "$G" log -1 --format= --numstat | awk '{n=$1+$2; if (n>m) m=n} END {print m}')
[ "$big" -eq 6 ] || fail "file-lines: git says $big, want 6"
"$PATCHRELAY" check --step size-limit:max-file-lines=5 -C "$G" -1 >"$tmp/fl.out"
[ $? -eq 1 ] || fail "max-file-lines=5: want exit 1"
grep -q "^fail size-limit/file-lines: $big lines changed in one file (big.txt, patch 1), over the fail limit of 5" "$tmp/fl.out" ||
	fail "max-file-lines: no figure"
"$PATCHRELAY" check --step size-limit:max-file-lines=$big,warn-file-lines=3 -C "$G" -1 >"$tmp/fl2.out"
[ $? -eq 0 ] || fail "max-file-lines=$big: want exit 0"
grep -q "^warn size-limit/file-lines: $big lines changed in one file (big.txt, patch 1), over the warn limit of 3" "$tmp/fl2.out" ||
	fail "warn-file-lines: no warning"
printf '\tmax-file-lines = 5\n' >"$tmp/fl.line"
sed -e "/max-files = 100/r $tmp/fl.line" "$PR_SRC/examples/kernel-checks.conf" >"$tmp/fl.conf"
"$PATCHRELAY" check -c "$tmp/fl.conf" -C "$G" -1 >"$tmp/fl3.out"
grep -q "^fail size/file-lines: $big lines" "$tmp/fl3.out" || fail "max-file-lines from the config not applied"
exit 0
