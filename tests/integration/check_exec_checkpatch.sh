#!/bin/sh
# The exec step runs the real checkpatch.pl (from Debian's linux-source) on
# a patch with known checkpatch errors (fail) and on a clean one (pass); a
# hanging command is killed at its timeout and one printing 100 MB is capped,
# neither stopping the next step.
set -u
. "$(dirname "$0")/lib.sh"
TARBALL=$(linux_tarball)
tmpdir

git_identity 'A U Thor <author@example.org>'
G="$tmp/repo"
git init -q "$G" || fail "git init"
mkdir -p "$G/drivers"
cat >"$G/drivers/foo.c" <<'C'
// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>

static int foo_value(int a)
{
	return a + 1;
}
C
git -C "$G" add . && git -C "$G" commit -q -m "init" || fail "commit"
sed 's/a + 1/a + 2/' "$G/drivers/foo.c" >"$tmp/x" && cp "$tmp/x" "$G/drivers/foo.c"
git -C "$G" commit -q -a -s -m "foo: add two instead of one

The caller needs the value plus two." || fail "commit clean"
sed 's/\treturn a + 2;/\treturn a+2 ;   /' "$G/drivers/foo.c" >"$tmp/x" && cp "$tmp/x" "$G/drivers/foo.c"
git -C "$G" commit -q -a -s -m "foo: break the style

This adds a trailing space and bad spacing on purpose." || fail "commit bad"
git -C "$G" format-patch -q -2 -o "$tmp/p" || fail "format-patch"
CLEAN=$(ls "$tmp"/p/0001-*.patch)
BAD=$(ls "$tmp"/p/0002-*.patch)

# A hanging command is killed and the next step still runs.
"$PATCHRELAY" check --step "exec:cmd=sleep 60,timeout=500ms" --step msg-lint "$CLEAN" >"$tmp/hang.out"
rc=$?
cat "$tmp/hang.out"
[ $rc -eq 1 ] || fail "hang: exit $rc, want 1"
grep -q "^fail exec/timeout: 'sleep' did not finish within 500 ms and was killed" "$tmp/hang.out" ||
	fail "hang: not reported"
grep -q "^pass msg-lint" "$tmp/hang.out" || fail "hang: msg-lint did not run after it"

# A command that prints 100 MB is capped (the report says how much was left
# out) and the next step still runs.
printf 'yes | head -c 100000000\nexit 1\n' >"$tmp/big.sh"
"$PATCHRELAY" check --step "exec:cmd=sh $tmp/big.sh" --step msg-lint "$CLEAN" >"$tmp/big.out"
rc=$?
[ $rc -eq 1 ] || fail "big: exit $rc, want 1"
[ "$(wc -c <"$tmp/big.out")" -lt 4000000 ] || fail "big: the output was not capped"
grep -q "^fail exec/status: 'sh' exited with status 1" "$tmp/big.out" || fail "big: no status"
grep -q '\[\.\.\. [0-9]* more bytes of output left out \.\.\.\]' "$tmp/big.out" ||
	fail "big: no count of what was left out"
grep -q "^pass msg-lint" "$tmp/big.out" || fail "big: msg-lint did not run after it"

if [ -z "$TARBALL" ]; then
	echo "linux-source not installed: skipping the checkpatch.pl part"
	exit 0
fi
(cd "$tmp" && tar -xJf "$TARBALL" --wildcards '*/scripts/checkpatch.pl' \
	'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch') ||
	fail "extract checkpatch.pl"
CP=$(ls "$tmp"/linux-source-*/scripts/checkpatch.pl)

# The reference: checkpatch.pl itself on the two files.
perl "$CP" --no-tree -q - <"$CLEAN" >/dev/null || fail "checkpatch itself rejects the clean patch"
perl "$CP" --no-tree -q - <"$BAD" >/dev/null && fail "checkpatch itself accepts the bad patch"

"$PATCHRELAY" check --step "exec:cmd=perl $CP --no-tree -,timeout=60s" "$CLEAN" >"$tmp/clean.out"
rc=$?
cat "$tmp/clean.out"
[ $rc -eq 0 ] || fail "clean: exit $rc, want 0"
"$PATCHRELAY" check --step "exec:cmd=perl $CP --no-tree -,timeout=60s" "$BAD" >"$tmp/bad.out"
rc=$?
cat "$tmp/bad.out"
[ $rc -eq 1 ] || fail "bad: exit $rc, want 1"
grep -q "^fail exec/status: 'perl' exited with status 1" "$tmp/bad.out" || fail "bad: no status"
grep -q "ERROR: trailing whitespace" "$tmp/bad.out" || fail "bad: checkpatch output not in the report"
echo "check_exec_checkpatch: ok"
