#!/bin/sh
# patchrelay demo: delivers the series into ./patchrelay-demo/maildir as
# git format-patch writes it, a second run sends nothing, and even with the
# state file lost the maildir gets no second copy.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

"$PATCHRELAY" demo > out1 || fail "first run failed: $(cat out1)"
grep -q 'version 1 (new)' out1 || fail "first run: $(cat out1)"
grep -q 'delivered 3 mail(s), 0 already there, 0 pending' out1 ||
	fail "first run: $(cat out1)"
new=patchrelay-demo/maildir/new
[ "$(ls "$new" | wc -l)" -eq 3 ] || fail "not 3 mails: $(ls "$new")"

# the mails are what git format-patch writes for the same range
git -C patchrelay-demo/repo format-patch -q -o "$tmp/ref" main..topic
i=0
for ref in "$tmp"/ref/*.patch; do
	got=$(ls "$new"/patchrelay.*-v1.$i)
	cmp "$ref" "$got" || fail "mail $i differs from git format-patch"
	i=$((i + 1))
done
[ "$i" -eq 3 ] || fail "git format-patch wrote $i patches"

"$PATCHRELAY" demo > out2 || fail "second run failed"
grep -q 'version 1 (unchanged)' out2 || fail "second run: $(cat out2)"
grep -q 'delivered 0 mail(s), 3 already there' out2 ||
	fail "second run: $(cat out2)"
[ "$(ls "$new" | wc -l)" -eq 3 ] || fail "second run wrote mail"

"$PATCHRELAY" status > st || fail "status failed"
grep -Eq '^demo:topic +1 +inbox +v1 +3/3 ' st || fail "status: $(cat st)"

# lose the state: the delivery key does not depend on it
rm -f patchrelay-demo/state.db*
"$PATCHRELAY" demo > out3 || fail "third run failed"
grep -q 'version 1 (new)' out3 || fail "third run: $(cat out3)"
[ "$(ls "$new" | wc -l)" -eq 3 ] || fail "third run wrote a second copy"
echo "demo.sh: ok"
