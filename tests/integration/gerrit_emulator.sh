#!/bin/sh
# The Gerrit emulator (tests/emulators/gerrit.py behind a real sshd, started
# by tests/servers/gerrit.sh) checked against Debian's own Gerrit clients
# and plain git/ssh/curl, so that it behaves as Gerrit does and not only as
# patchrelay expects:
#  - git-review installs the commit-msg hook (scp from the server), pushes
#    a change and, after an amend, a second patch set; pygerrit2's
#    GerritRestAPI reads it back (status, revisions, messages) and posts a
#    review; its review() helper sends no Content-Type and gets Gerrit's 400;
#  - a plain `git push ssh://... HEAD:refs/for/master%topic=t` of three
#    commits makes a chain of three changes in one topic, the remote:
#    lines as Gerrit prints them, three patchset-created events on a
#    `gerrit stream-events` session, `gerrit query` rows and stats, the
#    relation chain over REST, refs/changes fetched back by git;
#  - the refusals: missing Change-Id (with Gerrit's hint), unknown branch,
#    no new changes, 401 for a wrong password, 503/429 from the fail knob,
#    a vote on an unknown label, a stream cut by the knob.
set -eu
. "$(dirname "$0")/lib.sh"
GERRIT=$PR_SRC/tests/servers/gerrit.sh

[ "$(id -u)" -eq 0 ] || [ -d /run/sshd ] ||
	skip "sshd needs /run/sshd (run as root)"
command -v git-review > /dev/null || fail "no git-review (apt-get install git-review)"
$PY -c 'import pygerrit2.rest' 2> /dev/null ||
	fail "no pygerrit2 (apt-get install python3-pygerrit2)"

tmpdir
at_exit "sh '$GERRIT' stop '$tmp/gerrit' || :"
cd "$tmp"

sh "$GERRIT" start "$tmp/gerrit" || fail "gerrit.sh start failed"
. "$tmp/gerrit/env"
for v in GERRIT_REST_URL GERRIT_SSH_HOST GERRIT_SSH_PORT GERRIT_SSH_URL \
	GERRIT_KNOWN_HOSTS GERRIT_KEY_alice GERRIT_HTTP_PASSWORD_relay GERRIT_CTL; do
	eval "[ -n \"\${$v:-}\" ]" || fail "DIR/env has no $v"
done
[ "$GERRIT_SSH_URL" = "ssh://relay@127.0.0.1:$GERRIT_SSH_PORT" ] ||
	fail "GERRIT_SSH_URL is $GERRIT_SSH_URL"
grep -q "^\[127.0.0.1\]:$GERRIT_SSH_PORT ssh-ed25519 " "$GERRIT_KNOWN_HOSTS" ||
	fail "known_hosts: $(cat "$GERRIT_KNOWN_HOSTS")"
$GERRIT_SSH_relay gerrit version | grep -qx 'gerrit version 3\.[0-9.]*' ||
	fail "gerrit version"
$GERRIT_CTL create-project name=test-project > /dev/null || fail "create-project"

git_identity 'Alice Owner <alice@example.com>'
export GIT_SSH_COMMAND="$GERRIT_GIT_SSH_alice"

# ---- git-review pushes a change and a new patch set ----
# git-review runs scp by name for the hook: give it the test key and
# known_hosts the way GIT_SSH_COMMAND gives them to git
mkdir bin
cat > bin/scp << EOF
#!/bin/sh
exec /usr/bin/scp -i $GERRIT_KEY_alice -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile=$GERRIT_KNOWN_HOSTS -o StrictHostKeyChecking=yes "\$@"
EOF
chmod +x bin/scp
git clone -q "ssh://alice@127.0.0.1:$GERRIT_SSH_PORT/test-project" gr ||
	fail "clone over ssh"
cd gr
printf '[gerrit]\nhost=127.0.0.1\nport=%s\nproject=test-project.git\ndefaultbranch=master\n' \
	"$GERRIT_SSH_PORT" > .gitreview
git config gitreview.username alice
PATH=$tmp/bin:$PATH git review -s > ../review-s.log 2>&1 ||
	fail "git review -s: $(cat ../review-s.log)"
[ -x .git/hooks/commit-msg ] || fail "git review -s installed no commit-msg hook"
echo one > a.txt
git add .gitreview a.txt
git commit -q -m "a: add a file"
cid=$(git log -1 --format=%B | sed -n 's/^Change-Id: //p')
expr "$cid" : 'I[0-9a-f]\{40\}$' > /dev/null || fail "the hook added no Change-Id: $(git log -1 --format=%B)"
PATH=$tmp/bin:$PATH git review -t grtopic > ../review1.log 2>&1 ||
	fail "git review: $(cat ../review1.log)"
grep -q "remote:   $GERRIT_REST_URL/c/test-project/+/1 a: add a file \[NEW\]" ../review1.log ||
	fail "git review output: $(cat ../review1.log)"
echo two >> a.txt
git commit -q -a --amend --no-edit
ps2=$(git rev-parse HEAD)
PATH=$tmp/bin:$PATH git review -t grtopic > ../review2.log 2>&1 ||
	fail "git review (patch set 2): $(cat ../review2.log)"
grep -q "remote:   $GERRIT_REST_URL/c/test-project/+/1 a: add a file\s*$" ../review2.log ||
	fail "git review output (patch set 2): $(cat ../review2.log)"
cd ..

# ---- pygerrit2 reads it back and reviews ----
$PY - "$GERRIT_REST_URL" "$GERRIT_HTTP_PASSWORD_bob" "$cid" "$ps2" << 'EOF' > pygerrit2.log 2>&1 || fail "pygerrit2: $(cat pygerrit2.log)"
import sys
from pygerrit2.rest import GerritRestAPI, GerritReview
from requests.auth import HTTPBasicAuth
import requests
url, pw, cid, ps2 = sys.argv[1:]
rest = GerritRestAPI(url=url, auth=HTTPBasicAuth("bob", pw))
c = rest.get("/changes/%s?o=ALL_REVISIONS&o=CURRENT_COMMIT&o=MESSAGES"
             "&o=DETAILED_ACCOUNTS" % cid)
assert c["status"] == "NEW", c["status"]
assert c["_number"] == 1 and c["topic"] == "grtopic", c
assert c["current_revision"] == ps2, (c["current_revision"], ps2)
assert len(c["revisions"]) == 2, c["revisions"]
assert c["revisions"][ps2]["_number"] == 2
assert c["revisions"][ps2]["ref"] == "refs/changes/01/1/2"
assert c["revisions"][ps2]["commit"]["subject"] == "a: add a file"
assert c["owner"]["username"] == "alice"
msgs = [m["message"] for m in c["messages"]]
assert msgs == ["Uploaded patch set 1.", "Uploaded patch set 2."], msgs
r = rest.post("/changes/%s/revisions/current/review" % c["id"],
              json={"message": "Looks good", "tag": "autogenerated:ci",
                    "labels": {"Code-Review": 2}})
assert r == {"labels": {"Code-Review": 2}}, r
c = rest.get("/changes/%s?o=MESSAGES&o=LABELS" % c["id"])
last = c["messages"][-1]
assert last["message"] == "Patch Set 2: Code-Review+2\n\nLooks good", last
assert last["tag"] == "autogenerated:ci" and last["author"]["_account_id"] == 1000002
assert c["labels"]["Code-Review"]["approved"]["_account_id"] == 1000002
# pygerrit2 2.0.4's review() posts str(review) with no Content-Type:
# Gerrit's RestApiServlet refuses that
try:
    rest.review(c["id"], "current", GerritReview(message="x"))
    raise SystemExit("review() without a Content-Type was accepted")
except requests.HTTPError as e:
    assert e.response.status_code == 400
    assert e.response.text == "Expected Content-Type: application/json\n"
# a vote on a label the project does not have
try:
    rest.post("/changes/1/revisions/current/review",
              json={"labels": {"Nope": 1}})
    raise SystemExit("unknown label accepted")
except requests.HTTPError as e:
    assert e.response.status_code == 400, e.response.status_code
    assert e.response.headers["content-type"].startswith("text/plain")
    assert e.response.text == 'label "Nope" is not a configured label\n'
print("ok")
EOF

# ---- three commits pushed at once: a chain in one topic ----
spawn spid $GERRIT_SSH_relay gerrit stream-events > events.out 2> events.err
$GERRIT_CTL wait-streams > /dev/null || fail "no stream-events session"
git clone -q "ssh://alice@127.0.0.1:$GERRIT_SSH_PORT/test-project" w ||
	fail "clone"
cd w
cp ../gr/.git/hooks/commit-msg .git/hooks/
for i in 1 2 3; do
	echo "$i" > "f$i"
	git add "f$i"
	git commit -q -m "f$i: add"
done
git push "ssh://alice@127.0.0.1:$GERRIT_SSH_PORT/test-project" \
	HEAD:refs/for/master%topic=t > ../push.log 2>&1 || fail "push: $(cat ../push.log)"
cd ..
sed 's/ *$//' push.log > push.txt
cat > push.want << EOF
remote: Processing changes: refs: 1, new: 3, done
remote:
remote: SUCCESS
remote:
remote:   $GERRIT_REST_URL/c/test-project/+/2 f1: add [NEW]
remote:   $GERRIT_REST_URL/c/test-project/+/3 f2: add [NEW]
remote:   $GERRIT_REST_URL/c/test-project/+/4 f3: add [NEW]
remote:
To ssh://127.0.0.1:$GERRIT_SSH_PORT/test-project
 * [new reference]   HEAD -> refs/for/master%topic=t
EOF
diff -u push.want push.txt || fail "push output differs"
created3() { [ "$(grep -c '"patchset-created"' events.out)" -ge 3 ]; }
wait_for 10 created3 || fail "stream-events: $(cat events.out events.err)"
$PY - "$tmp/w" events.out << 'EOF' || fail "events: $(cat events.out)"
import json, subprocess, sys
evs = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
ps = [e for e in evs if e["type"] == "patchset-created"]
shas = subprocess.run(["git", "-C", sys.argv[1], "rev-list", "--reverse",
                       "HEAD~3..HEAD"], capture_output=True,
                      text=True).stdout.split()
assert [e["change"]["number"] for e in ps] == [2, 3, 4], ps
for e, sha in zip(ps, shas):
    assert e["patchSet"]["revision"] == sha
    assert e["patchSet"]["number"] == 1
    assert e["patchSet"]["ref"] == "refs/changes/%02d/%d/1" % (
        e["change"]["number"], e["change"]["number"])
    assert e["change"]["topic"] == "t" and e["change"]["status"] == "NEW"
    assert e["project"] == "test-project" and e["refName"] == "refs/heads/master"
    assert e["uploader"]["username"] == "alice"
    assert isinstance(e["eventCreatedOn"], int)
assert ps[1]["patchSet"]["parents"] == [shas[0]]
EOF

# gerrit query: one row a change, newest first, then the stats line
$GERRIT_SSH_relay gerrit query --format=JSON --current-patch-set topic:t > query.out ||
	fail "gerrit query"
$PY - query.out << 'EOF' || fail "query: $(cat query.out)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r.get("number") for r in rows[:3]] == [4, 3, 2], rows
assert rows[3] == {"type": "stats", "rowCount": 3,
                   "runTimeMilliseconds": rows[3]["runTimeMilliseconds"],
                   "moreChanges": False}, rows[3]
assert rows[0]["currentPatchSet"]["number"] == 1 and rows[0]["open"] is True
EOF
$GERRIT_SSH_relay gerrit query --format=JSON 'bogus:x' | grep -q '"type":"error","message":"Unsupported operator bogus:x"' ||
	fail "query error"

# REST: the relation chain, the patch, paging
A="relay:$GERRIT_HTTP_PASSWORD_relay"
curl -sf -u "$A" "$GERRIT_REST_URL/a/changes/test-project~3/revisions/current/related" > related.json ||
	fail "related"
$PY -c 'import json,sys; d=json.loads(sys.stdin.read()[5:]); n=[c["_change_number"] for c in d["changes"]]; assert n == [4, 3, 2], n' < related.json ||
	fail "related: $(cat related.json)"
curl -sf -D patch.hdr -u "$A" "$GERRIT_REST_URL/a/changes/3/revisions/1/patch" > patch.b64 || fail "patch"
grep -qi '^X-FYI-Content-Encoding: base64' patch.hdr || fail "patch headers: $(cat patch.hdr)"
base64 -d < patch.b64 | grep -q '^Subject: \[PATCH\] f2: add$' || fail "patch: $(base64 -d < patch.b64)"
curl -sf -u "$A" -H 'Accept: application/json' "$GERRIT_REST_URL/a/changes/?q=topic:t&n=2" > page1.json || fail "page 1"
curl -sf -u "$A" -H 'Accept: application/json' "$GERRIT_REST_URL/a/changes/?q=topic:t&n=2&S=2" > page2.json || fail "page 2"
$PY - page1.json page2.json << 'EOF' || fail "paging: $(cat page1.json page2.json)"
import json, sys
p1, p2 = (json.loads(open(f).read()[5:]) for f in sys.argv[1:])
assert [c["_number"] for c in p1] == [4, 3] and p1[-1]["_more_changes"] is True
assert [c["_number"] for c in p2] == [2] and "_more_changes" not in p2[-1]
EOF

# every change id form names the same change; the commit of a revision
for id in 3 test-project~3 "test-project~master~$(sed -n 2p query.out | $PY -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])')" \
	"$(sed -n 2p query.out | $PY -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])')"; do
	curl -sf -u "$A" -H 'Accept: application/json' "$GERRIT_REST_URL/a/changes/$id" | grep -q '"_number":3,' ||
		fail "change id $id"
done
curl -sf -u "$A" -H 'Accept: application/json' "$GERRIT_REST_URL/a/changes/3/revisions/1/commit" |
	grep -q "\"commit\":\"$(git -C w rev-parse HEAD~1)\",\"parents\":\[{\"commit\":\"$(git -C w rev-parse HEAD~2)\",\"subject\":\"f1: add\"}\]" ||
	fail "revision commit"
curl -sf -u "$A" "$GERRIT_REST_URL/a/config/server/version" | grep -qx '"3\.[0-9.]*"' || fail "server version"

# refs/changes over git-upload-pack
git -C w fetch -q origin refs/changes/03/3/1 || fail "fetch refs/changes/03/3/1"
[ "$(git -C w rev-parse FETCH_HEAD)" = "$(git -C w rev-parse HEAD~1)" ] ||
	fail "refs/changes/03/3/1 is not the second commit"

# gerrit review over ssh, seen on the stream as comment-added
$GERRIT_SSH_relay gerrit review -m '"Build Successful"' --verified +1 --tag autogenerated:patchrelay 3,1 ||
	fail "gerrit review"
wait_for 10 grep -q '"comment-added"' events.out ||
	fail "no comment-added: $(cat events.out)"
grep '"comment-added"' events.out | $PY -c 'import json,sys
e = json.loads(sys.stdin.readline())
assert e["comment"] == "Patch Set 1: Verified+1\n\nBuild Successful", e["comment"]
assert e["approvals"] == [{"type": "Verified", "description": "Verified", "value": "1", "oldValue": "0"}], e["approvals"]
assert e["author"]["username"] == "relay" and e["change"]["number"] == 3' ||
	fail "comment-added: $(grep comment-added events.out)"
if $GERRIT_SSH_relay gerrit review --label Verified=2 --strict-labels 3,1 2> review.err; then
	fail "an out-of-range vote was accepted"
fi
grep -qx 'fatal: one or more approvals failed; review output above' review.err ||
	fail "gerrit review error: $(cat review.err)"

# ---- refusals ----
cd w
git commit -q --allow-empty --no-verify -m "no id"
if git push origin HEAD:refs/for/master > ../noid.log 2>&1; then fail "a commit without Change-Id was taken"; fi
short=$(git rev-parse --short=7 HEAD)
grep -q "^remote: ERROR: commit $short: missing Change-Id in message footer" ../noid.log &&
	grep -q '^remote: Hint: to automatically insert a Change-Id, install the hook:' ../noid.log &&
	grep -q "^ ! \[remote rejected\] HEAD -> refs/for/master (commit $short: missing Change-Id in message footer)" ../noid.log ||
	fail "missing Change-Id: $(cat ../noid.log)"
git reset -q --hard HEAD~1
if git push origin HEAD:refs/for/nope > ../branch.log 2>&1; then fail "unknown branch taken"; fi
grep -q '^ ! \[remote rejected\] HEAD -> refs/for/nope (branch nope not found)' ../branch.log ||
	fail "unknown branch: $(cat ../branch.log)"
if git push origin HEAD:refs/for/master > ../same.log 2>&1; then fail "a push of nothing new was taken"; fi
grep -q '^ ! \[remote rejected\] HEAD -> refs/for/master (no new changes)' ../same.log ||
	fail "no new changes: $(cat ../same.log)"
if git push origin HEAD:refs/heads/master > ../direct.log 2>&1; then fail "alice pushed to a branch"; fi
grep -q '(prohibited by Gerrit: not permitted: update)' ../direct.log ||
	fail "direct push: $(cat ../direct.log)"
cd ..

code=$(curl -s -o bad.txt -w '%{http_code}' -u relay:wrong "$GERRIT_REST_URL/a/changes/?q=status:open")
[ "$code" = 401 ] || fail "a wrong password got $code"
code=$(curl -s -o anon.txt -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d '{}' \
	"$GERRIT_REST_URL/changes/3/revisions/1/review")
[ "$code" = 403 ] && [ "$(cat anon.txt)" = "Authentication required" ] ||
	fail "an anonymous review got $code $(cat anon.txt)"
code=$(curl -s -o nf.txt -w '%{http_code}' -u "$A" "$GERRIT_REST_URL/a/changes/99")
[ "$code" = 404 ] && [ "$(cat nf.txt)" = "Not found: 99" ] || fail "change 99: $code $(cat nf.txt)"
$GERRIT_CTL fail status=503 count=1 > /dev/null
$GERRIT_CTL fail status=429 count=1 retry_after=7 > /dev/null
code=$(curl -s -o /dev/null -w '%{http_code}' -u "$A" "$GERRIT_REST_URL/a/changes/3")
[ "$code" = 503 ] || fail "fail knob: $code, not 503"
code=$(curl -s -D h429 -o /dev/null -w '%{http_code}' -u "$A" "$GERRIT_REST_URL/a/changes/3")
[ "$code" = 429 ] && grep -qi '^Retry-After: 7' h429 || fail "fail knob: $code, not 429 with Retry-After"
code=$(curl -s -o /dev/null -w '%{http_code}' -u "$A" "$GERRIT_REST_URL/a/changes/3")
[ "$code" = 200 ] || fail "after the fail rules: $code"

# stream_ends STATUS: the ssh client of the stream ($spid) ends, with STATUS
# (255: the connection was dropped; 0: the command ended)
stream_ends() {
	wait_for 10 stream_gone || fail "the stream was not cut"
	stop "$spid" 0
	[ "$stopped" = "$1" ] ||
		fail "ssh exited $stopped after the cut, not $1: $(cat events.err)"
}
stream_gone() { ! kill -0 "$spid" 2> /dev/null; }

# dropped-output reaches the stream; a cut after 2 events leaves it 2 more
$GERRIT_CTL dropped-output > /dev/null
$GERRIT_CTL cut-streams after=2 > /dev/null
n0=$(wc -l < events.out)
$GERRIT_CTL patchset change=2 count=3 > /dev/null
stream_ends 255
[ "$(wc -l < events.out)" = $((n0 + 2)) ] || fail "not 2 events before the cut: $(tail -4 events.out)"
grep -q '^{"type":"dropped-output","eventCreatedOn":[0-9]*}$' events.out || fail "no dropped-output"
tail -1 events.out | grep -q '"patchSet":{"number":3,' || fail "the cut came at the wrong event"
# a new session starts at the next event; mode=eof ends it cleanly after
# the one more event it was given
spawn spid $GERRIT_SSH_relay gerrit stream-events > events2.out 2> events.err
$GERRIT_CTL wait-streams > /dev/null || fail "no new stream-events session"
$GERRIT_CTL review change=2 user=bob label=Code-Review-1 message=nit > /dev/null
$GERRIT_CTL cut-streams after=1 mode=eof > /dev/null

$GERRIT_CTL patchset change=3 > /dev/null
stream_ends 0
# the review came before the knob, the patch set is the one more event
[ "$(grep -c . events2.out)" = 2 ] && head -1 events2.out | grep -q '"comment-added"' &&
	tail -1 events2.out | grep -q '"patchset-created"' ||
	fail "the second stream: $(cat events2.out)"

sshd=$(cat "$tmp/gerrit/sshd.pid.run")
rest=$(cat "$tmp/gerrit/rest.pid")
sh "$GERRIT" stop "$tmp/gerrit"
for pid in $sshd $rest; do
	! kill -0 "$pid" 2> /dev/null || fail "process $pid still runs after stop"
done
echo "gerrit_emulator.sh: ok"
