#!/bin/sh
# The github sink's refusals and endings, against public-inbox-httpd and
# tests/emulators/github.py:
# (a) a series whose patch 2 changes a file the repository does not have
#     is rejected with a report naming the patch and git's reason
#     (`patchrelay status`, the log); nothing is pushed (no branch on the
#     remote) and no pull request is opened, also on the next pass;
# (b) a series that applies is opened as PR #1; once its commits land on
#     the branch a git source watches (git am on upstream's main), the
#     route from that source to the sink closes PR #1 with a comment
#     saying where it landed, once.
. "$(dirname "$0")/relay_lib.sh"

relay_tree
# a second submitter tree: main plus a file the repository lacks, then a
# series touching it in patch 2
(
	git_identity 'Bob Builder <bob@example.org>' '1796299300 +0000'
	git clone -q tree bob && cd bob || exit 1
	printf 'local\n' >missing.txt
	git add missing.txt && git commit -q -m 'a local file'
	git checkout -q -b fix
	echo four >>a.txt
	git commit -q -s -am 'a: add four' -m 'Four.'
	echo more >>missing.txt
	git commit -q -s -am 'missing: add more' -m 'More.'
	echo z >>b.txt
	git commit -q -s -am 'b: add z' -m 'Zed.'
	git format-patch -q --cover-letter --thread -o ../bad HEAD~3..fix
	sed -i 's/\*\*\* SUBJECT HERE \*\*\*/a series that does not apply/' \
		../bad/0000-cover-letter.patch
) || fail "making the bad series failed"
relay_pi bad/*.patch
relay_emulator github
git clone -q --bare tree upstream.git

cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "netdev"]
	type = public-inbox
	url = $PI_URL
	wait = 0s
[source "upstream"]
	type = git
	url = $tmp/upstream.git
	watch = main
[sink "gh"]
	type = github
	api-url = $API
	repo = kernel/net
	token = env:GH_TOKEN
	base = main
[route "list-to-gh"]
	from = netdev
	to = gh
[route "landed"]
	from = upstream
	to = gh
CONF

prs() {
	api GET '/repos/kernel/net/pulls?state=all' tok-grace |
		$PY -c 'import json, sys
for p in json.load(sys.stdin):
    print(p["number"], p["state"], p["title"])'
}
branches() { git ls-remote "$B/git/kernel/net.git" 'refs/heads/patchrelay/*'; }

# ---- (a) does not apply: a report, nothing pushed
run_once
grep -Eq "rejected message 1/1: patch 2/3 'missing: add more' does not apply on [0-9a-f]{40}: .*'missing.txt'" run.log ||
	fail "no report naming patch 2: $(cat run.log)"
"$PATCHRELAY" status -c relay.conf >st || fail "status: $(cat st)"
grep -q "rejected:1 .*patch 2/3 'missing: add more' does not apply" st ||
	fail "status: $(cat st)"
[ -z "$(branches)" ] || fail "a branch was pushed: $(branches)"
[ -z "$(prs)" ] || fail "a PR was opened: $(prs)"
run_once
[ -z "$(branches)" ] && [ -z "$(prs)" ] || fail "the next pass pushed"

# ---- (b) a series that applies, then lands: its PR is closed
list_add v1/*.patch
run_once
[ "$(prs)" = "1 open three small additions" ] || fail "PR: $(prs) $(cat run.log)"
git clone -q upstream.git up
(cd up && git am -q ../v1/000[1-3]*.patch && git push -q origin main) ||
	fail "landing the series"
run_once
[ "$(prs)" = "1 closed three small additions" ] ||
	fail "not closed: $(prs) $(tail -5 run.log)"
landed=$(git -C up rev-parse HEAD)
api GET /repos/kernel/net/issues/1/comments tok-grace >c.json
$PY - c.json "$landed" <<'PY' || fail "the closing comment: $(cat c.json)"
import json, sys
c = json.load(open(sys.argv[1]))
assert len(c) == 1, c
assert c[0]["body"] == ("This series was landed: landed in main as %s; "
                        "patchrelay closes this pull request.\n"
                        % sys.argv[2]), c[0]["body"]
PY
run_once
api GET /repos/kernel/net/issues/1/comments tok-grace >c2.json
cmp c.json c2.json || fail "told twice"
exit 0
