#!/bin/sh
# What the forge emulators learnt for the sinks and the reply relay, with
# real git and curl: git push over HTTP takes a user's token (any user
# name, the token as password) and refuses none or a wrong one with 401
# and a challenge; a push moves the pull requests of the pushed branch;
# GitHub opens a PR from a branch and refuses a second one, a missing
# head or base, and one with no commits, with its 422 shapes; a review
# comment must be on a line of the diff and carries GitHub's diff_hunk; a
# review lists with its state; GitLab opens a merge request, answers 409
# for a second one and 422 for a missing branch, and takes a DiffNote
# only at a position of the diff.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp" || exit 1
export GIT_TERMINAL_PROMPT=0

git_identity 'A <a@example.org>'
git init -q -b main src
printf 'one\n' >src/a.txt
git -C src add a.txt && git -C src commit -q -m base

start() { # FORGE -> $B
	start_emulator "$1" "$tmp/$1"
	B=$emu_url
	emu_ctl POST /_emu/users '{"login":"bot","token":"tok-bot"}' >/dev/null
	emu_ctl POST /_emu/users '{"login":"grace","token":"tok-grace"}' >/dev/null
	emu_ctl POST /_emu/repos "{\"owner\":\"o\",\"repo\":\"r\",\"from\":\"$tmp/src\"}" >/dev/null
}
# req METHOD URL TOKEN-HEADER [JSON]: the status; the body in resp
req() {
	if [ $# -gt 3 ]; then
		curl -s -o resp -w '%{http_code}' -X "$1" -H "$3" \
			-H 'User-Agent: t' -H 'Content-Type: application/json' \
			-d "$4" "$2"
	else
		curl -s -o resp -w '%{http_code}' -X "$1" -H "$3" \
			-H 'User-Agent: t' "$2"
	fi
}
jget() { $PY -c "import json,sys; print(eval('json.load(open(\"resp\"))' + sys.argv[1]))" "$1"; }
push() { # TOKEN BRANCH: push src's HEAD as BRANCH
	git -C src push -q "http://x-access-token:$1@${B#http://}/git/o/r.git" \
		"HEAD:refs/heads/$2" 2>"$tmp/push.err"
}

# ---- GitHub
start github
gh="Authorization: Bearer tok-bot"
git -C src push -q "$B/git/o/r.git" HEAD:refs/heads/x 2>push.err &&
	fail "a push without a token was taken"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$B/git/o/r.git/info/refs?service=git-receive-pack")" = 401 ] ||
	fail "no 401 for a push without a token"
push wrong x && fail "a push with a wrong token was taken"
git -C src checkout -q -b topic
echo two >>src/a.txt
git -C src commit -q -am two
push tok-bot topic || fail "push with the token: $(cat push.err)"
[ "$(git ls-remote "$B/git/o/r.git" refs/heads/topic | cut -f1)" = \
	"$(git -C src rev-parse HEAD)" ] || fail "the pushed branch"
[ "$(req POST "$B/repos/o/r/pulls" "$gh" '{"title":"T","head":"topic","base":"main","body":"B"}')" = 201 ] ||
	fail "create PR: $(cat resp)"
[ "$(jget '["number"]') $(jget '["head"]["ref"]')" = "1 topic" ] ||
	fail "PR: $(cat resp)"
[ "$(req POST "$B/repos/o/r/pulls" "$gh" '{"title":"T","head":"o:topic","base":"main"}')" = 422 ] ||
	fail "a second PR: $(cat resp)"
grep -q 'A pull request already exists for o:topic.' resp || fail "$(cat resp)"
[ "$(req POST "$B/repos/o/r/pulls" "$gh" '{"title":"T","head":"nope","base":"main"}')" = 422 ] ||
	fail "missing head"
grep -q '"field": "head"' resp || fail "$(cat resp)"
[ "$(req POST "$B/repos/o/r/pulls" "$gh" '{"head":"topic","base":"main"}')" = 422 ] ||
	fail "no title"
git -C src push -q "http://x-access-token:tok-bot@${B#http://}/git/o/r.git" main:refs/heads/empty
[ "$(req POST "$B/repos/o/r/pulls" "$gh" '{"title":"T","head":"empty","base":"main"}')" = 422 ] ||
	fail "no commits: $(cat resp)"
grep -q 'No commits between main and empty' resp || fail "$(cat resp)"
# a push moves the PR
echo three >>src/a.txt
git -C src commit -q -am three
push tok-bot topic || fail "second push"
[ "$(req GET "$B/repos/o/r/pulls/1" "$gh")" = 200 ] || fail "get PR"
[ "$(jget '["head"]["sha"]')" = "$(git -C src rev-parse HEAD)" ] ||
	fail "the PR did not follow the push"
head=$(git -C src rev-parse HEAD)
# review comments: on a line of the diff only
[ "$(req POST "$B/repos/o/r/pulls/1/comments" 'Authorization: Bearer tok-grace' \
	"{\"body\":\"hm\",\"path\":\"a.txt\",\"line\":3,\"commit_id\":\"$head\"}")" = 201 ] ||
	fail "review comment: $(cat resp)"
[ "$(jget '["diff_hunk"]')" = "$(printf '@@ -1 +1,3 @@\n one\n+two\n+three')" ] ||
	fail "diff_hunk: $(cat resp)"
grep -q '#discussion_r' resp || fail "html_url: $(cat resp)"
[ "$(req POST "$B/repos/o/r/pulls/1/comments" 'Authorization: Bearer tok-grace' \
	'{"body":"hm","path":"a.txt","line":9}')" = 422 ] ||
	fail "a line not in the diff: $(cat resp)"
[ "$(req POST "$B/repos/o/r/pulls/1/reviews" 'Authorization: Bearer tok-grace' \
	'{"event":"REQUEST_CHANGES","body":"no"}')" = 200 ] || fail "review"
[ "$(req POST "$B/repos/o/r/pulls/1/reviews" 'Authorization: Bearer tok-grace' \
	'{"event":"COMMENT"}')" = 422 ] || fail "an empty COMMENT review"
[ "$(req GET "$B/repos/o/r/pulls/1/reviews" "$gh")" = 200 ] || fail "reviews"
[ "$(jget '[0]["state"]') $(jget '[0]["user"]["login"]')" = \
	"CHANGES_REQUESTED grace" ] || fail "reviews: $(cat resp)"

# ---- GitLab
git -C src checkout -q main
start gitlab
gl="PRIVATE-TOKEN: tok-bot"
A=$B/api/v4/projects/o%2Fr
git -C src checkout -q topic
push tok-bot topic || fail "gitlab push: $(cat push.err)"
[ "$(req POST "$A/merge_requests" "$gl" '{"title":"T","source_branch":"topic","target_branch":"main"}')" = 201 ] ||
	fail "create MR: $(cat resp)"
[ "$(jget '["iid"]')" = 1 ] || fail "MR: $(cat resp)"
[ "$(req POST "$A/merge_requests" "$gl" '{"title":"T","source_branch":"topic","target_branch":"main"}')" = 409 ] ||
	fail "a second MR: $(cat resp)"
grep -q 'Another open merge request already exists for this source branch: !1' resp ||
	fail "$(cat resp)"
[ "$(req POST "$A/merge_requests" "$gl" '{"title":"T","source_branch":"nope","target_branch":"main"}')" = 422 ] ||
	fail "missing branch: $(cat resp)"
[ "$(req POST "$A/merge_requests" "$gl" '{"source_branch":"topic"}')" = 400 ] ||
	fail "missing fields"
base=$(git -C src rev-parse main)
[ "$(req POST "$A/merge_requests/1/discussions" 'PRIVATE-TOKEN: tok-grace' \
	"{\"body\":\"hm\",\"position\":{\"position_type\":\"text\",\"base_sha\":\"$base\",\"start_sha\":\"$base\",\"head_sha\":\"$head\",\"new_path\":\"a.txt\",\"new_line\":2}}")" = 201 ] ||
	fail "DiffNote: $(cat resp)"
[ "$(jget '["notes"][0]["type"]')" = DiffNote ] || fail "$(cat resp)"
[ "$(req POST "$A/merge_requests/1/discussions" 'PRIVATE-TOKEN: tok-grace' \
	"{\"body\":\"hm\",\"position\":{\"position_type\":\"text\",\"head_sha\":\"$head\",\"new_path\":\"a.txt\",\"new_line\":7}}")" = 400 ] ||
	fail "a position outside the diff: $(cat resp)"
[ "$(req GET "$A/merge_requests/1/notes?sort=asc" "$gl")" = 200 ] || fail "notes"
[ "$(jget '[0]["position"]["new_line"]')" = 2 ] || fail "notes: $(cat resp)"
exit 0
