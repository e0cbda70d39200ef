#!/bin/sh
# The exec step runs the real checkpatch.pl (from Debian's linux-source) on
# a patch with known checkpatch errors (fail) and on a clean one (pass); a
# hanging command is killed at its timeout and one printing 100 MB is capped,
# neither stopping the next step.
set -u
TARBALL=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | head -n 1)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

G="$T/repo"
git init -q "$G" || fail "git init"
git -C "$G" config user.name "A U Thor"
git -C "$G" config user.email "author@example.org"
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
sed 's/a + 1/a + 2/' "$G/drivers/foo.c" >"$T/x" && cp "$T/x" "$G/drivers/foo.c"
git -C "$G" commit -q -a -s -m "foo: add two instead of one

The caller needs the value plus two." || fail "commit clean"
sed 's/\treturn a + 2;/\treturn a+2 ;   /' "$G/drivers/foo.c" >"$T/x" && cp "$T/x" "$G/drivers/foo.c"
git -C "$G" commit -q -a -s -m "foo: break the style

This adds a trailing space and bad spacing on purpose." || fail "commit bad"
git -C "$G" format-patch -q -2 -o "$T/p" || fail "format-patch"
CLEAN=$(ls "$T"/p/0001-*.patch)
BAD=$(ls "$T"/p/0002-*.patch)

# A hanging command is killed and the next step still runs.
"$PATCHRELAY" check --step "exec:cmd=sleep 60,timeout=500ms" --step msg-lint "$CLEAN" >"$T/hang.out"
rc=$?
cat "$T/hang.out"
[ $rc -eq 1 ] || fail "hang: exit $rc, want 1"
grep -q "^fail exec/timeout: 'sleep' did not finish within 500 ms and was killed" "$T/hang.out" ||
	fail "hang: not reported"
grep -q "^pass msg-lint" "$T/hang.out" || fail "hang: msg-lint did not run after it"

# A command that prints 100 MB is capped (the report says how much was left
# out) and the next step still runs.
printf 'yes | head -c 100000000\nexit 1\n' >"$T/big.sh"
"$PATCHRELAY" check --step "exec:cmd=sh $T/big.sh" --step msg-lint "$CLEAN" >"$T/big.out"
rc=$?
[ $rc -eq 1 ] || fail "big: exit $rc, want 1"
[ "$(wc -c <"$T/big.out")" -lt 4000000 ] || fail "big: the output was not capped"
grep -q "^fail exec/status: 'sh' exited with status 1" "$T/big.out" || fail "big: no status"
grep -q '\[\.\.\. [0-9]* more bytes of output left out \.\.\.\]' "$T/big.out" ||
	fail "big: no count of what was left out"
grep -q "^pass msg-lint" "$T/big.out" || fail "big: msg-lint did not run after it"

if [ -z "$TARBALL" ]; then
	echo "linux-source not installed: skipping the checkpatch.pl part"
	exit 0
fi
(cd "$T" && tar -xJf "$TARBALL" --wildcards '*/scripts/checkpatch.pl' \
	'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch') ||
	fail "extract checkpatch.pl"
CP=$(ls "$T"/linux-source-*/scripts/checkpatch.pl)

# The reference: checkpatch.pl itself on the two files.
perl "$CP" --no-tree -q - <"$CLEAN" >/dev/null || fail "checkpatch itself rejects the clean patch"
perl "$CP" --no-tree -q - <"$BAD" >/dev/null && fail "checkpatch itself accepts the bad patch"

"$PATCHRELAY" check --step "exec:cmd=perl $CP --no-tree -,timeout=60s" "$CLEAN" >"$T/clean.out"
rc=$?
cat "$T/clean.out"
[ $rc -eq 0 ] || fail "clean: exit $rc, want 0"
"$PATCHRELAY" check --step "exec:cmd=perl $CP --no-tree -,timeout=60s" "$BAD" >"$T/bad.out"
rc=$?
cat "$T/bad.out"
[ $rc -eq 1 ] || fail "bad: exit $rc, want 1"
grep -q "^fail exec/status: 'perl' exited with status 1" "$T/bad.out" || fail "bad: no status"
grep -q "ERROR: trailing whitespace" "$T/bad.out" || fail "bad: checkpatch output not in the report"
echo "check_exec_checkpatch: ok"
