#!/bin/sh
# A source that reads old mail again (here: the stored cursor is lost) sees
# v1 and v2 of a series once more.  Each is found as the version it was:
# no mail is sent twice, no v3 is recorded, and a real v3 posted later is
# still new.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
list="$PR_SRC/tests/data/sources/list"

maildir_fill box new "$list"/0[1-6]-*.eml

cat > relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "list"]
	type = maildir
	path = $tmp/box
	wait = 1s
[sink "out"]
	type = maildir
	path = $tmp/out
[route "r"]
	from = list
	to = out
CONF

versions() {
	sqlite3 state.db "SELECT group_concat(number, ' ') FROM
		(SELECT number FROM versions ORDER BY number)"
}

"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "pass 1: $(cat log1)"
grep -q '2 version(s) seen, 2 new, 6 mail(s) sent' log1 ||
	fail "pass 1: $(cat log1)"
[ "$(ls out/new | wc -l)" -eq 6 ] || fail "pass 1 mails: $(ls out/new)"
[ "$(versions)" = "1 2" ] || fail "pass 1 versions: $(versions)"
ls out/new | sort > sent1

# the cursor is lost: the source reads v1 and v2 again
sqlite3 state.db "DELETE FROM cursors"
"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "pass 2: $(cat log2)"
grep -q '2 version(s) seen, 0 new, 0 mail(s) sent' log2 ||
	fail "pass 2: $(cat log2)"
[ "$(versions)" = "1 2" ] || fail "pass 2 made a version: $(versions)"
ls out/new | sort > sent2
cmp sent1 sent2 || fail "pass 2 sent mail: $(diff sent1 sent2)"
"$PATCHRELAY" status -c relay.conf > st || fail "status: $(cat st)"
grep -Eq '^list:a1-0@example.org +2 +out +v1 +3/3' st || fail "status: $(cat st)"
grep -Eq '^list:a1-0@example.org +2 +out +v2 +3/3' st || fail "status: $(cat st)"

# a real v3 (v2's cover and patches with another diff) is still new
for f in 04-a2-cover 05-a2-1 06-a2-2; do
	sed -e 's/a2-\([0-9]\)@example.org/a3-\1@example.org/g' \
		-e 's/PATCH v2/PATCH v3/' \
		-e 's/^In-Reply-To: <a1-0@example.org>/In-Reply-To: <a2-0@example.org>/' \
		-e 's/^References: <a1-0@example.org>$/References: <a1-0@example.org> <a2-0@example.org>/' \
		"$list/$f.eml" > "box/new/a3-${f#*-a2-}.eml"
done
# change a diff line of patch 2 so the fingerprint differs
sed -i 's/^+\(.*\)two\(.*\)$/+\1three\2/' box/new/a3-2.eml
touch -d "@$((1796300000 + 10))" box/new/a3-*.eml
"$PATCHRELAY" run -c relay.conf --once 2>log3 || fail "pass 3: $(cat log3)"
grep -q '1 new, 3 mail(s) sent' log3 || fail "pass 3: $(cat log3)"
[ "$(versions)" = "1 2 3" ] || fail "pass 3 versions: $(versions)"
echo "run_reread.sh: ok"
