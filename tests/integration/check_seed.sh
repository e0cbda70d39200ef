#!/bin/sh
# patchrelay check on the junk seed (must fail size-limit and mass-edit with
# their figures), on a normal patch from git format-patch (must pass, with
# the figures git itself gives), on a synthetic mass rename (fails; allowed
# by allow-submitters) and on bad usage (exit 2).
set -u
. "$(dirname "$0")/lib.sh"
SEED=$(seed_patch)
tmpdir

if [ -f "$SEED" ]; then
	"$PATCHRELAY" check --step size-limit --step mass-edit "$SEED" >"$tmp/seed.out"
	rc=$?
	cat "$tmp/seed.out"
	[ $rc -eq 1 ] || fail "seed: exit $rc, want 1"
	grep -q "^fail size-limit/files: 46,294 files changed, over the fail limit of 1,000" "$tmp/seed.out" ||
		fail "seed: no size-limit files figure"
	grep -q "^fail size-limit/lines: 1,430,124 lines changed" "$tmp/seed.out" ||
		fail "seed: no size-limit lines figure"
	grep -q "^fail mass-edit/substitution: 'no' -> 'yes' inside words on [0-9,]* of [0-9,]* changed lines, 10 files" "$tmp/seed.out" ||
		fail "seed: no mass-edit substitution"
else
	echo "seed patch not found, skipping the seed part"
fi

# A normal patch, made by git itself.
git_identity 'A U Thor <author@example.org>'
G="$tmp/repo"
git init -q "$G" || fail "git init"
printf 'int a;\nint b;\nint c;\n' >"$G/a.c"
printf 'one\ntwo\n' >"$G/b.txt"
git -C "$G" add . && git -C "$G" commit -q -m init || fail "commit"
printf 'int a;\nint b = 2;\nint c;\nint d;\n' >"$G/a.c"
printf 'one\n' >"$G/b.txt"
git -C "$G" commit -q -a -s -m "foo: make b two and drop two

Change b and add d, for the test." || fail "commit 2"
git -C "$G" format-patch -q -1 -o "$tmp/out" || fail "format-patch"
P=$(ls "$tmp"/out/*.patch)
"$PATCHRELAY" check "$P" >"$tmp/ok.out"
rc=$?
cat "$tmp/ok.out"
[ $rc -eq 0 ] || fail "normal patch: exit $rc, want 0"
# Our figures must be git's own (diff --shortstat).
set -- $(git -C "$G" diff --numstat HEAD~1 HEAD | awk '{f++; a+=$1; d+=$2} END {print f, a, d}')
grep -q "^pass size-limit: $1 files, +$2 -$3 lines, 1 patches" "$tmp/ok.out" ||
	fail "normal patch: figures differ from git's ($1 files, +$2 -$3)"
grep -q "^pass mass-edit: no mechanical mass edit found" "$tmp/ok.out" ||
	fail "normal patch: mass-edit did not pass"

# A clean series of two well-formed commits passes every step.
printf 'int e;\n' >>"$G/a.c"
git -C "$G" commit -q -a -s -m "foo: add e

The test needs a third commit, so add one more variable to the file." || fail "commit 2b"
git -C "$G" format-patch -q -2 -o "$tmp/series" || fail "format-patch series"
"$PATCHRELAY" check --step size-limit --step mass-edit --step msg-lint "$tmp"/series/*.patch >"$tmp/series.out"
rc=$?
cat "$tmp/series.out"
[ $rc -eq 0 ] || fail "clean series: exit $rc, want 0"
grep -q "^pass msg-lint: 2 patch(es), every message rule passes" "$tmp/series.out" ||
	fail "clean series: msg-lint did not pass"
if [ -f "$SEED" ]; then
	"$PATCHRELAY" check --step msg-lint --format markdown "$SEED" >"$tmp/seed.md" 2>/dev/null
	[ $? -eq 1 ] || fail "seed msg-lint: want exit 1"
	grep -q '^- \*\*fail\*\* `msg-lint/signoff-missing` patch 1' "$tmp/seed.md" ||
		fail "seed msg-lint markdown: no signoff-missing"
	"$PATCHRELAY" check --step msg-lint:signoff-missing=off,subject-prefix=off,body-empty=off "$SEED" >/dev/null
	[ $? -eq 0 ] || fail "rules turned off: want exit 0"
fi

# A synthetic mass rename over 30 files.
i=0
while [ $i -lt 30 ]; do
	printf 'old_name(1);\nx = old_name(2);\nkeep;\ny = old_name(3) + old_name(4);\n' >"$G/f$i.c"
	i=$((i + 1))
done
git -C "$G" add . && git -C "$G" commit -q -m "add files" || fail "commit 3"
for f in "$G"/f*.c; do
	sed 's/old_name/new_name/g' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
done
git -C "$G" commit -q -a -s -m "all: rename old_name to new_name" || fail "commit 4"
git -C "$G" format-patch -q -1 -o "$tmp/mass" || fail "format-patch 2"
M=$(ls "$tmp"/mass/*.patch)
"$PATCHRELAY" check --step mass-edit "$M" >"$tmp/mass.out"
rc=$?
cat "$tmp/mass.out"
[ $rc -eq 1 ] || fail "mass rename: exit $rc, want 1"
grep -q "'old' -> 'new' inside words on 90 of 90 changed lines, 30 files" "$tmp/mass.out" ||
	fail "mass rename: substitution not reported"
"$PATCHRELAY" check --step "mass-edit:allow-submitters=author@example.org" "$M" >"$tmp/allow.out"
rc=$?
cat "$tmp/allow.out"
[ $rc -eq 0 ] || fail "allowed mass rename: exit $rc, want 0"
grep -q "allowed by allow-submitters" "$tmp/allow.out" || fail "allow: no message"
"$PATCHRELAY" check --step "mass-edit:severity=warn" "$M" >/dev/null ||
	fail "severity=warn: should exit 0"

# JSON is valid and carries the verdict.
"$PATCHRELAY" check --format json "$M" >"$tmp/mass.json"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["verdict"]=="fail" and d["entries"][-1]["step"]=="mass-edit" else 1)' "$tmp/mass.json" ||
	fail "json: bad output"

# Bad usage and bad input.
"$PATCHRELAY" check --step nosuch "$P" 2>/dev/null
[ $? -eq 2 ] || fail "unknown step: want exit 2"
"$PATCHRELAY" check --step "size-limit:max-files=x" "$P" 2>/dev/null
[ $? -eq 2 ] || fail "bad option value: want exit 2"
"$PATCHRELAY" check 2>/dev/null
[ $? -eq 2 ] || fail "no file: want exit 2"
"$PATCHRELAY" check "$tmp/nonexistent" 2>/dev/null
[ $? -eq 2 ] || fail "missing file: want exit 2"
"$PATCHRELAY" check --step size-limit:max-files=1 "$P" >/dev/null
[ $? -eq 1 ] || fail "max-files=1 on 2 files: want exit 1"
# A folded long subject is read whole: its length is git mailinfo's.
printf 'int f;\n' >>"$G/a.c"
git -C "$G" commit -q -a -s -m "foo: a subject line that is long enough that git format-patch will fold it in two

Body text for the long subject." || fail "commit 5"
git -C "$G" format-patch -q -1 -o "$tmp/long" || fail "format-patch 3"
L=$(ls "$tmp"/long/*.patch)
git mailinfo "$tmp/msg" "$tmp/patch" <"$L" >"$tmp/info" || fail "git mailinfo"
want=$(sed -n 's/^Subject: //p' "$tmp/info" | tr -d '\n' | wc -c)
"$PATCHRELAY" check --step msg-lint "$L" >"$tmp/long.out"
cat "$tmp/long.out"
grep -q "subject-length patch 1: subject has $want characters, over 75" "$tmp/long.out" ||
	fail "long subject: length differs from git mailinfo's ($want)"
echo "check_seed: ok"
