#!/bin/sh
# The git source's watch: commits that land on the watched branch are
# matched by git patch-id to the versions patchrelay sent.  A series sent
# from a branch, then two of its three commits cherry-picked onto main: not
# landed; the third too: `patchrelay status` (table and --json) says v1
# landed on main as the commit of its last patch, the pass logs it once,
# and a later pass (or a lost cursor) does not land it again.  A rewritten
# watched branch is taken anew with a warning.  Commits on main before the
# first pass are not news.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '@1796299200 +0000'
mkdir repo
printf 'a\nb\nc\n' > repo/file
git_base repo
git -C repo checkout -q -b topic
for i in 1 2 3; do
	echo "line $i" >> repo/file$i
	git -C repo add file$i
	git -C repo commit -q -m "file$i: add it"
done
git -C repo checkout -q main
# on main before patchrelay looks: not news
echo early > repo/early
git -C repo add early
git -C repo commit -q -m early

git_maildir_conf "$tmp" "$tmp/repo" watch=main cover-letter=never >relay.conf

"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "pass 1: $(cat log1)"
grep -q '3 mail(s) sent.*, 0 landed' log1 || fail "pass 1: $(cat log1)"
[ "$(ls maildir/new | wc -l)" -eq 3 ] || fail "pass 1 mails"

# two of the three land (other commit ids, same patches)
git -C repo cherry-pick topic~2 topic~1 >/dev/null
"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "pass 2: $(cat log2)"
grep -q ', 0 landed' log2 || fail "pass 2 landed: $(cat log2)"
"$PATCHRELAY" status -c relay.conf > st2
grep -q '^LANDED' st2 && fail "status says landed: $(cat st2)"

# the third lands, by a merge of a branch that holds it
git -C repo checkout -q -b side main~2
git -C repo cherry-pick topic >/dev/null
git -C repo checkout -q main
git -C repo merge -q --no-edit side
last=$(git -C repo rev-parse side)
"$PATCHRELAY" run -c relay.conf --once 2>log3 || fail "pass 3: $(cat log3)"
grep -q "v1 of 'topic' landed in main as $last" log3 ||
	fail "pass 3 log: $(cat log3)"
grep -q ', 1 landed' log3 || fail "pass 3: $(cat log3)"
"$PATCHRELAY" status -c relay.conf > st3 || fail "status: $(cat st3)"
grep -Eq "^repo:topic +v1 +main +$last\$" st3 || fail "status: $(cat st3)"
"$PATCHRELAY" status -c relay.conf --json > st3.json
$PY - st3.json "$last" <<'PYEOF' || fail "status --json: $(cat st3.json)"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["landed"] == [{"origin": "repo", "key": "topic", "version": 1,
                        "branch": "main", "commit": sys.argv[2]}], j["landed"]
PYEOF
# git says the same: each sent patch has its patch-id on main
for f in maildir/new/*; do git patch-id --stable < "$f" | cut -d' ' -f1; done |
	sort > sent.ids
git -C repo log -p --no-merges main | git patch-id --stable | cut -d' ' -f1 |
	sort > main.ids
[ -z "$(comm -23 sent.ids main.ids)" ] || fail "a sent patch is not on main"

# nothing new, then a lost cursor: not landed again
"$PATCHRELAY" run -c relay.conf --once 2>log4 || fail "pass 4: $(cat log4)"
grep -q ', 0 landed' log4 || fail "pass 4: $(cat log4)"
sqlite3 state.db "UPDATE cursors SET cursor = 'branch=' ||
	substr(cursor, 8, 40) || ' watch=' || '$(git -C repo rev-parse main~3)'"
"$PATCHRELAY" run -c relay.conf --once 2>log5 || fail "pass 5: $(cat log5)"
grep -q ', 0 landed' log5 || fail "pass 5 landed again: $(cat log5)"
grep -q 'landed in' log5 && fail "pass 5: $(cat log5)"

# main rewritten under patchrelay: taken anew, no event
git -C repo reset -q --hard main~3
echo other > repo/other
git -C repo add other
git -C repo commit -q -m other
"$PATCHRELAY" run -c relay.conf --once 2>log6 || fail "pass 6: $(cat log6)"
grep -q "watch 'main': .* is not below .*: taken from here" log6 ||
	fail "pass 6: $(cat log6)"
# a source with only watch: landed events only, nothing fails
{
	conf_section core "state=$tmp/state.db"
	conf_section 'source "main"' type=git "url=$tmp/repo" watch=main
	conf_section 'sink "inbox"' type=maildir "path=$tmp/maildir"
	conf_section 'route "w"' from=main to=inbox
} >watch.conf
"$PATCHRELAY" run -c watch.conf --once 2>log7 || fail "watch only: $(cat log7)"
grep -q '0 failing source(s)' log7 || fail "watch only: $(cat log7)"
[ "$(sqlite3 state.db "SELECT cursor FROM cursors WHERE source = 'main/w'")" = \
	"watch=$(git -C repo rev-parse main)" ] || fail "watch only cursor"
echo "run_landed.sh: ok"
