#!/bin/sh
# The patchwork connector against tests/emulators/patchwork.py, fed the
# mails a list got:
# - state sync: a 3-patch series is in Patchwork; 2 of its patches land
#   on the watched branch with git am (one with --message-id, one with
#   its commit message edited); `run --once` sets both accepted with
#   commit_ref, the third stays new; a second pass (and one with a lost
#   cursor) writes nothing;
# - a token without maintainer rights: a clear error naming the
#   instance, nothing lost: the same pass with a good token sets them;
# - a v2 from the list source: every v1 patch superseded, v2 new;
# - checks: one per step per patch, a failing step gives fail with its
#   reason, a re-run (even with a new state file) posts nothing;
# - an on-landed state the instance lacks: a config error listing its
#   states; a binary last file found by the hash Patchwork gives its mail;
# - patch-id (a whitespace fix) and subject (a reworked patch, only when
#   `match` lists it); status lists each series' Patchwork patches.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp" || exit 1
start_emulator patchwork "$tmp/emu"
B=$emu_url

# patches: "name state commit_ref" of the project's patches, by id
patches() {
	curl -sf "$B/api/patches/?project=netdev&per_page=250" | $PY -c '
import json, sys
for p in json.load(sys.stdin):
    print("%s|%s|%s" % (p["name"], p["state"], p["commit_ref"]))'
}
# writes: the PATCH and POST requests the emulator logged
writes() {
	curl -sf "$B/_emu/log" | $PY -c '
import json, sys
print(sum(1 for r in json.load(sys.stdin) if r["method"] in ("PATCH", "POST")))'
}
clear_log() { pw_ctl /log/clear '{}'; }

pw_ctl /projects '{"link_name":"netdev","list_id":"netdev.example.org","maintainers":["kuba"]}'
pw_ctl /users '{"login":"kuba","token":"good-token","email":"kuba@example.org"}'
pw_ctl /users '{"login":"bob","token":"weak-token","email":"bob@example.org"}'

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000' \
	'Kuba Maint <kuba@example.org>'
mkdir tree
printf 'one\ntwo\nthree\n' >tree/a.c
seq 1 20 >tree/old.c
git_base tree
git -C tree checkout -q -b topic
printf 'one\ntwo\nthree\nfour\n' >tree/a.c
git -C tree commit -q -a -m 'a: add four' -m 'Signed-off-by: Ada Demo <ada@example.org>'
git -C tree mv old.c new.c
seq 1 21 >tree/new.c
git -C tree commit -q -a -m 'old: rename to new' -m 'Signed-off-by: Ada Demo <ada@example.org>'
$PY -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 2)' \
	>tree/blob.bin
printf 'five\n' >>tree/a.c
git -C tree add -A
git -C tree commit -q -m 'blob: add a binary' -m 'Signed-off-by: Ada Demo <ada@example.org>'
git -C tree format-patch -q --cover-letter --thread -o "$tmp/v1" \
	--add-header 'List-Id: <netdev.example.org>' main..topic
sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/net: three changes/' \
	-e 's/\*\*\* BLURB HERE \*\*\*/Three changes./' v1/0000-*
cat v1/*.patch >v1.mbox
pw_feed v1.mbox
[ "$(patches | grep -c '|new|None$')" -eq 3 ] || fail "v1 not in: $(patches)"

# Patchwork's hash of each mail is what patchrelay computes from the
# commit: the emulator hashes the mails as hasher.py does
for c in $(git -C tree rev-list --reverse main..topic); do
	git -C tree diff --src-prefix=a/ --dst-prefix=b/ -U3 --no-color \
		"$c~" "$c" >/dev/null
done

echo good-token >token.good
echo weak-token >token.weak
cp token.weak token
cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "tree"]
	type = git
	url = $tmp/tree
	watch = main
[sink "pw"]
	type = patchwork
	api-url = $B/api/
	project = netdev
	token = file:$tmp/token
[route "sync"]
	from = tree
	to = pw
CONF
"$PATCHRELAY" run -c relay.conf --once 2>log0 || fail "pass 0: $(cat log0)"

# two of the three land: 1 with its Message-Id, 2 with an edited message
git -C tree checkout -q main
git -C tree am -q --message-id "$tmp"/v1/0001-*.patch ||
	fail "git am 1"
git -C tree am -q "$tmp"/v1/0002-*.patch || fail "git am 2"
git -C tree commit -q --amend -m 'old.c: move it to new.c' \
	-m 'Reworded by the maintainer.'
c1=$(git -C tree rev-parse main~)
c2=$(git -C tree rev-parse main)

# a token without maintainer rights: a clear error, nothing changes
clear_log
"$PATCHRELAY" run -c relay.conf --once 2>log1 && fail "weak token passed"
grep -q "sink 'pw'" log1 || fail "error names no instance: $(cat log1)"
grep -q 'You do not have permission to perform this action' log1 ||
	fail "no Patchwork detail: $(cat log1)"
[ "$(patches | grep -c '|new|None$')" -eq 3 ] || fail "changed: $(patches)"

# the same pass with a good token: both accepted with their commits
cp token.good token
clear_log
"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "pass 2: $(cat log2)"
patches >st2
grep -q "^\[1/3\] a: add four|accepted|$c1\$" st2 || fail "patch 1: $(cat st2)"
grep -q "^\[2/3\] old: rename to new|accepted|$c2\$" st2 ||
	fail "patch 2: $(cat st2)"
grep -q '^\[3/3\] blob: add a binary|new|None$' st2 || fail "patch 3: $(cat st2)"
grep -q "matched patch [0-9]* by msgid: accepted" log2 ||
	fail "msgid match not logged: $(cat log2)"
grep -q "matched patch [0-9]* by hash: accepted" log2 ||
	fail "hash match not logged: $(cat log2)"
grep -q "2 commit(s) landed on main: 2 matched, 2 set accepted, 0 unmatched" \
	log2 || fail "summary: $(cat log2)"
[ "$(writes)" -eq 2 ] || fail "pass 2 writes: $(writes)"

# a second pass writes nothing; nor does a lost cursor
clear_log
"$PATCHRELAY" run -c relay.conf --once 2>log3 || fail "pass 3: $(cat log3)"
[ "$(writes)" -eq 0 ] || fail "pass 3 wrote"
sqlite3 state.db "UPDATE cursors SET cursor = 'watch=' ||
	'$(git -C tree rev-parse main~2)'"
"$PATCHRELAY" run -c relay.conf --once 2>log4 || fail "pass 4: $(cat log4)"
[ "$(writes)" -eq 0 ] || fail "pass 4 wrote: $(cat log4)"
grep -q 'by msgid: already accepted' log4 || fail "pass 4: $(cat log4)"
[ "$(patches | grep -c '|accepted|')" -eq 2 ] || fail "after pass 4: $(patches)"
# the store knows how each commit matched
sqlite3 state.db "SELECT key, value FROM notes WHERE key LIKE 'landed:%'" \
	>notes.txt
grep -q "landed:$c1|.*\"how\":\"msgid\"" notes.txt || fail "notes: $(cat notes.txt)"
grep -q "landed:$c2|.*\"how\":\"hash\"" notes.txt || fail "notes: $(cat notes.txt)"

# an on-landed state the instance does not have: a config error that
# lists the instance's states (read from its 400)
pw_ctl /states '{"states":["new","under-review","accepted","rejected","rfc","not-applicable","changes-requested","awaiting-upstream","superseded","deferred","needs-review-ack"]}'
git -C tree am -q "$tmp"/v1/0003-*.patch || fail "git am 3"
c3=$(git -C tree rev-parse main)
sed 's/^\[sink "pw"\]$/&\n\ton-landed = mainline/' relay.conf >bad.conf
clear_log
"$PATCHRELAY" run -c bad.conf --once 2>log5 && fail "bad state passed"
grep -q "option 'on-landed': the instance at '$B/api/' has no state 'mainline'; its states: new, under-review, .*, deferred, needs-review-ack" \
	log5 || fail "bad state: $(cat log5)"
# the binary last file: found by the hash Patchwork gives the mail
"$PATCHRELAY" run -c relay.conf --once 2>log6 || fail "pass 6: $(cat log6)"
patches >st6
grep -q "^\[3/3\] blob: add a binary|accepted|$c3\$" st6 ||
	fail "patch 3: $(cat st6) $(cat log6)"
grep -q 'by hash: accepted' log6 || fail "pass 6: $(cat log6)"

# ---- a v2 from the list: v1 superseded; checks from a route ----
git -C tree checkout -q -b topic2 main
for i in 1 2 3; do
	printf 'line %s\n' "$i" >"tree/b$i.c"
	git -C tree add "b$i.c"
	git -C tree commit -q -m "b$i: add it" \
		-m 'Signed-off-by: Ada Demo <ada@example.org>'
done
series() { # VERSION DIR: the mbox DIR.mbox of topic2 as vVERSION
	v=
	[ "$1" -gt 1 ] && v=-v$1
	git -C tree format-patch -q --cover-letter --thread $v \
		-o "$tmp/$2" --add-header 'List-Id: <netdev.example.org>' \
		main..topic2
	# format-patch names the cover "cover.TIME.git.EMAIL" (TIME when it
	# runs): two versions made in one second would share the cover's id
	sed -i -e "s/<cover\\./<cover-v$1./" "$tmp/$2"/*.patch
	sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/b: three files/' \
		-e 's/\*\*\* BLURB HERE \*\*\*/Three new files./' \
		"$tmp/$2"/*0000-*
	cat "$tmp/$2"/*.patch >"$2.mbox"
}
series 1 b1
pw_feed b1.mbox
mkdir list
cp b1.mbox list/01-b1.mbox
cat >list.conf <<CONF
[core]
	state = $tmp/list.db
[source "list"]
	type = mbox
	path = $tmp/list
[sink "pw"]
	type = patchwork
	api-url = $B/api/
	project = netdev
	token = file:$tmp/token
	report-url = https://ci.example.org/{msgid}/{step}
[check "size"]
	type = size-limit
	max-files = 10
[check "todo"]
	type = exec
	command = sh
	command = -c
	command = ! grep -q '^+.*TODO'
	per-patch = true
# the route with steps first: the engine tells a version's report once,
# by the first route that records (or delivers) it
[route "checks"]
	from = list
	step = size
	step = todo
	to = pw
	feedback = pw
[route "supersede"]
	from = list
	to = pw
CONF
"$PATCHRELAY" run -c list.conf --once 2>log7 || fail "list v1: $(cat log7)"
[ "$(patches | grep -c '^\[[123]/3\] b[123]: add it|new|None$')" -eq 3 ] ||
	fail "b v1: $(patches)"

# v2: patch 2 gains a TODO (the todo step fails on it)
git -C tree checkout -q topic2~1
printf 'line 2\nTODO: more\n' >tree/b2.c
git -C tree commit -q -a --amend --no-edit
git -C tree cherry-pick topic2 >/dev/null || fail "cherry-pick"
git -C tree branch -q -f topic2 HEAD
git -C tree checkout -q topic2
# new commits all through (format-patch's Message-IDs are made of them)
GIT_COMMITTER_DATE='1796299300 +0000' git -C tree rebase -q --force-rebase \
	main topic2 || fail "rebase"
series 2 b2
pw_feed b2.mbox
cp b2.mbox list/02-b2.mbox
clear_log
"$PATCHRELAY" run -c list.conf --once 2>log8 || fail "list v2: $(cat log8)"
patches >st8
[ "$(grep -c '^\[[123]/3\] b[123]: add it|superseded|None$' st8)" -eq 3 ] ||
	fail "v1 not superseded: $(cat st8) $(cat log8)"
[ "$(grep -c '^\[v2,[123]/3\] b[123]: add it|new|None$' st8)" -eq 3 ] ||
	fail "v2 not new: $(cat st8)"
# the sink put each version's Patchwork ids in the identity map: lookup
# answers from a patch's API URL, its old web page, its series' page, with
# the series' two versions (v2, in a thread of its own, is of v1's series)
curl -sf "$B/api/patches/?project=netdev&per_page=250" | $PY -c '
import json, sys
p = [p for p in json.load(sys.stdin) if p["name"].startswith("[v2,2/3]")][0]
print(p["id"], p["series"][0]["id"])' >v2.ids || fail "v2's ids"
read -r pid sid <v2.ids
"$PATCHRELAY" lookup -c list.conf "$B/api/patches/$pid/" >lk1 ||
	fail "lookup by patch: $(cat lk1)"
grep -q "^series list .* (2 versions)" lk1 || fail "lookup: $(cat lk1)"
[ "$(grep -c "^  patchwork-patch  *$B/api/patches/[0-9]*/\$" lk1)" -eq 6 ] ||
	fail "lookup: patches: $(cat lk1)"
grep -q "^  patchwork-patch  *$B/api/patches/$pid/\$" lk1 ||
	fail "lookup: patch: $(cat lk1)"
grep -q "^  patchwork-series  *$B/api/series/$sid/\$" lk1 ||
	fail "lookup: series: $(cat lk1)"
grep -q "^  patchwork-url  *$B/project/netdev/patch/" lk1 ||
	fail "lookup: web pages: $(cat lk1)"
for id in "$B/patch/$pid/" "$B/project/netdev/list/?series=$sid"; do
	"$PATCHRELAY" lookup -c list.conf "$id" >lk2 || fail "lookup $id"
	cmp -s lk1 lk2 || fail "lookup $id: $(cat lk2)"
done
# checks: one per step per patch of v2; the TODO patch fails with why
checks() { # NAME-PREFIX: "context|state|description|target" lines
	id=$(curl -sf "$B/api/patches/?project=netdev&per_page=250" | $PY -c '
import json, sys
print([p["id"] for p in json.load(sys.stdin)
       if p["name"].startswith(sys.argv[1])][0])' "$1")
	curl -sf "$B/api/patches/$id/checks/?per_page=250" | $PY -c '
import json, sys
for c in json.load(sys.stdin):
    print("%s|%s|%s|%s" % (c["context"], c["state"], c["description"],
                           c["target_url"]))'
}
checks '[v2,1/3]' >c1
checks '[v2,2/3]' >c2
checks '[v2,3/3]' >c3
grep -q '^patchrelay-size|success|' c1 || fail "size check 1: $(cat c1)"
grep -q '^patchrelay-todo|success|.*|https://ci.example.org/.*%40.*/todo$' c1 ||
	fail "todo check 1: $(cat c1)"
grep -q "^patchrelay-todo|fail|'sh' exited with status 1|" c2 ||
	fail "todo check 2: $(cat c2)"
[ "$(cat c1 c2 c3 | wc -l)" -eq 6 ] || fail "checks: $(cat c1 c2 c3)"
grep -q "6 check(s) posted" log8 || fail "log8: $(cat log8)"

# the route again, even from a new state file: no new check, no write
clear_log
"$PATCHRELAY" run -c list.conf --once 2>log9 || fail "again: $(cat log9)"
[ "$(writes)" -eq 0 ] || fail "re-run wrote: $(cat log9)"
rm -f list.db*
"$PATCHRELAY" run -c list.conf --once 2>log10 || fail "new state: $(cat log10)"
[ "$(writes)" -eq 0 ] || fail "new state file wrote: $(cat log10)"
grep -q '0 check(s) posted, 6 unchanged' log10 || fail "log10: $(cat log10)"

# status shows each series' Patchwork patches, their states and links
"$PATCHRELAY" status -c list.conf >st10 || fail "status: $(cat st10)"
[ "$(grep -c '^list:.* v2 .* pw .* new  *http://127.0.0.1:[0-9]*/project/netdev/patch/' st10)" -eq 3 ] ||
	fail "status: $(cat st10)"
grep -q '^PATCHWORK ' st10 || fail "status header: $(cat st10)"
"$PATCHRELAY" status -c list.conf --json >st10.json || fail "status --json"
$PY - st10.json <<'PYEOF' || fail "status --json: $(cat st10.json)"
import json, sys
pw = json.load(open(sys.argv[1]))["patchwork"]
assert [p["version"] for p in pw] == [1, 1, 1, 2, 2, 2], pw
assert [p["state"] for p in pw] == ["superseded"] * 3 + ["new"] * 3, pw
assert all(p["instance"] == "pw" and p["id"] > 0 for p in pw), pw
PYEOF

# a v2 whose v1 patchrelay never saw: found by submitter and name
git -C tree checkout -q -b topic3 main
echo c >tree/c.c
git -C tree add c.c
git -C tree commit -q -m 'c: add it'
git -C tree format-patch -q --thread -o "$tmp/pc1" \
	--add-header 'List-Id: <netdev.example.org>' main..topic3
pw_feed "$tmp"/pc1/0001-*.patch
echo cc >tree/c.c
git -C tree commit -q -a --amend -m 'c: add it'
git -C tree format-patch -q --thread -v2 -o "$tmp/pc2" \
	--add-header 'List-Id: <netdev.example.org>' main..topic3
pw_feed "$tmp"/pc2/v2-0001-*.patch
cp "$tmp"/pc2/v2-0001-*.patch list/03-c2.mbox
"$PATCHRELAY" run -c list.conf --once 2>log11 || fail "c v2: $(cat log11)"
patches >st11
grep -q '^c: add it|superseded|None$' st11 ||
	fail "c v1: $(cat st11) $(cat log11)"
grep -q '^\[v2\] c: add it|new|None$' st11 || fail "c v2: $(cat st11)"

# ---- patch-id and subject ----
# d1 lands with its whitespace fixed (git am --whitespace=fix): another
# hash, the same patch-id; d2 is reworked by the maintainer: only its
# subject and author are left, which count only when `match` lists subject
git -C tree checkout -q -b topic4 main
printf 'int d1 = 1;   \nint d1b;\n' >tree/d1.c
git -C tree add d1.c
git -C tree commit -q -m 'd1: add it' -m 'Signed-off-by: Ada Demo <ada@example.org>'
printf 'int d2 = 2;\n' >tree/d2.c
git -C tree add d2.c
git -C tree commit -q -m 'd2: add it' -m 'Signed-off-by: Ada Demo <ada@example.org>'
git -C tree format-patch -q --thread --cover-letter -o "$tmp/d" \
	--add-header 'List-Id: <netdev.example.org>' main..topic4
sed -i 's/<cover\./<cover.d./g' "$tmp"/d/*.patch
pw_feed "$tmp"/d/*.patch
git -C tree checkout -q main
git -C tree am -q --whitespace=fix "$tmp"/d/0001-*.patch 2>/dev/null ||
	fail "git am d1"
git -C tree am -q "$tmp"/d/0002-*.patch || fail "git am d2"
printf 'int d2 = 22; /* reworked */\nint d2b;\n' >tree/d2.c
git -C tree commit -q -a --amend --no-edit
d1=$(git -C tree rev-parse main~)
d2=$(git -C tree rev-parse main)
clear_log
"$PATCHRELAY" run -c relay.conf --once 2>log12 || fail "pass 12: $(cat log12)"
patches >st12
grep -q "^\[1/2\] d1: add it|accepted|$d1\$" st12 ||
	fail "d1: $(cat st12) $(cat log12)"
grep -q 'by patch-id: accepted' log12 || fail "pass 12: $(cat log12)"
grep -q '^\[2/2\] d2: add it|new|None$' st12 || fail "d2 matched: $(cat st12)"
grep -q "'d2: add it' on main: no patch matched" log12 ||
	fail "d2 not logged: $(cat log12)"
# with subject listed, and the commits offered again
sed 's/^\[sink "pw"\]$/&\n\tmatch = msgid, hash\n\tmatch = patch-id subject/' \
	relay.conf >subject.conf
sqlite3 state.db "UPDATE cursors SET cursor = 'watch=$(git -C tree rev-parse main~2)'"
"$PATCHRELAY" run -c subject.conf --once 2>log13 || fail "pass 13: $(cat log13)"
grep -q "^\[2/2\] d2: add it|accepted|$d2\$" <<EOT ||
$(patches)
EOT
	fail "d2 by subject: $(patches) $(cat log13)"
grep -q 'by subject: accepted' log13 || fail "pass 13: $(cat log13)"
grep -q 'by patch-id: already accepted' log13 || fail "pass 13: $(cat log13)"

echo "patchwork_sync.sh: ok"
