#!/bin/sh
# The maildir source: the list traffic of tests/data/sources/list gives the
# series, versions and trailers of tests/data/sources/expected.json; each
# patch's subject is the one git mailinfo reads; a poll from the cursor of
# an earlier one emits only what is new (messages moved to cur/ included),
# a poll with nothing new emits nothing; an incomplete version waits for
# its missing patch; a mail that does not parse is skipped with a log line.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
list="$PR_SRC/tests/data/sources/list"

conf() { # conf FILE MAILDIR WAIT
	conf_section 'source "list"' type=maildir "path=$2" "wait=$3" \
		trusted=maint@example.org >"$1"
}

# 1. the whole list at once
maildir_fill all new "$list"/*.eml
conf all.conf "$tmp/all" 1h
"$PATCHRELAY" poll -c all.conf list --json > all.json 2> all.err ||
	fail "poll failed: $(cat all.err)"
poll_strip all.json > all.got
diff -u "$PR_SRC/tests/data/sources/expected.json" all.got ||
	fail "the whole list differs from expected.json"
grep -q "series 'c-1@example.org' v1 emitted incomplete (1 of 2 patches)" all.err ||
	fail "no log line for the incomplete series: $(cat all.err)"

# each patch's subject is git mailinfo's
$PY - all.json "$list" <<'PY' > subjects.txt
import json, sys
d = json.load(open(sys.argv[1]))
for key, s in sorted(d["series"].items()):
    for v in s["versions"]:
        for p in v["patches"]:
            print(p["message_id"], p["subject"])
PY
[ "$(wc -l < subjects.txt)" -eq 8 ] || fail "expected 8 patches: $(cat subjects.txt)"
while read -r mid subject; do
	f=$(grep -l "^Message-ID: <$mid>" "$list"/*.eml)
	want=$(git mailinfo msg patch < "$f" | sed -n 's/^Subject: //p')
	[ "$want" = "$subject" ] ||
		fail "$mid: subject '$subject', git mailinfo says '$want'"
done < subjects.txt

# 2. the same list in two polls: the second emits only what is new
maildir_fill inc new "$list"/0[1-3]-*.eml
conf inc.conf "$tmp/inc" 1h
"$PATCHRELAY" poll -c inc.conf list --json > p1.json
c1=$(poll_cursor p1.json)
[ -n "$c1" ] || fail "the first poll gave no cursor"
# the reader moved the first three to cur/: they are still the same mails
for f in inc/new/*; do mv "$f" "inc/cur/$(basename "$f"):2,S"; done
maildir_fill inc cur "$list"/0[4-9]-*.eml "$list"/1[0-5]-*.eml
"$PATCHRELAY" poll -c inc.conf list --json --cursor "$c1" > p2.json 2> p2.err ||
	fail "second poll failed: $(cat p2.err)"
c2=$(poll_cursor p2.json)
$PY - p1.json p2.json all.json <<'PY' || fail "the two polls differ from one"
import json, sys
p1, p2, one = (json.load(open(f)) for f in sys.argv[1:4])
kinds = lambda d: [(e["kind"], e["series"], e["version"]) for e in d["events"]]
assert kinds(p1) == [("series", "a1-0@example.org", 1)], kinds(p1)
# v2 threaded into v1 keeps v1's key though v1 is no longer read
assert kinds(p2)[0] == ("version", "a1-0@example.org", 2), kinds(p2)
# together they are the events of the single poll, none twice
assert kinds(p1) + kinds(p2)[:3] == [k for k in kinds(one) if k[0] != "comment"][:4], (kinds(p1), kinds(p2))
assert [e for e in p2["comments"]] == one["comments"], p2["comments"]
PY
# 3. nothing new: no event, no cursor
"$PATCHRELAY" poll -c inc.conf list --json --cursor "$c2" > p3.json
$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["events"] == [] and d["cursor"] is None, d' p3.json ||
	fail "a poll with nothing new emitted something"

# 4. an incomplete version waits, then is emitted once complete
maildir_fill wait new "$list"/1[0-5]-*.eml
conf wait.conf "$tmp/wait" 3650d
"$PATCHRELAY" poll -c wait.conf list --json > w1.json
grep -q '"c-1@example.org"' w1.json && fail "the incomplete series did not wait"
cw=$(poll_cursor w1.json)
case $cw in *"low=00000000001796300015.15-c-1.eml "*) ;;
*) fail "the cursor does not hold the waiting mail: $cw" ;; esac
cp "$PR_SRC/tests/data/sources/late/16-c-2.eml" wait/new/
touch -d "@1796300016" wait/new/16-c-2.eml
printf 'this is not a mail\n' > wait/new/17-junk
touch -d "@1796300017" wait/new/17-junk
"$PATCHRELAY" poll -c wait.conf list --json --cursor "$cw" > w2.json 2> w2.err ||
	fail "poll after the missing patch failed: $(cat w2.err)"
$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
ev = [(e["kind"], e["series"], e["patches"]) for e in d["events"] if e["kind"] != "comment"]
assert ev == [("series", "c-1@example.org", ["c-1@example.org", "c-2@example.org"])], ev
v = d["series"]["c-1@example.org"]["versions"]
assert len(v) == 1 and v[0]["complete"] and v[0]["total"] == 2, v
assert d["comments"] == [], d["comments"]' w2.json || fail "the completed series: $(cat w2.json)"
grep -q "message at '.*17-junk' skipped" w2.err || fail "no log line for the junk mail: $(cat w2.err)"

# 5. errors name the source
conf gone.conf "$tmp/nowhere" 1h
if "$PATCHRELAY" poll -c gone.conf list > gone.out 2> gone.err; then
	fail "a missing maildir did not fail"
fi
grep -q "source 'list'.*maildir '$tmp/nowhere'" gone.err || fail "unclear error: $(cat gone.err)"
if "$PATCHRELAY" poll -c all.conf list --cursor 'bogus' > bad.out 2> bad.err; then
	fail "a bad cursor was accepted"
fi
grep -q "cursor 'bogus'" bad.err || fail "unclear cursor error: $(cat bad.err)"
echo "sources_maildir.sh: ok"
