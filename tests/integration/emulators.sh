#!/bin/sh
# Smoke test of tests/emulators/github.py with curl and git: list and
# paginate PRs, ETag 304 (free against the limit), rate limit 403 then
# reset, secondary 429 with retry-after, 401, 404, 422, close and labels,
# and a clone/fetch of refs/pull/N/head over smart HTTP.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

# a local repository: main with one commit, topic with one more
src=$tmp/src
git init -q -b main "$src" || fail "git init"
git -C "$src" config user.name "Alice A"
git -C "$src" config user.email alice@example.org
echo one >"$src/f"
git -C "$src" add f && git -C "$src" commit -qm init || fail "commit"
git -C "$src" checkout -qb topic
echo two >>"$src/f"
git -C "$src" commit -qam "f: add two" || fail "commit 2"
git -C "$src" checkout -q main

start_emulator github "$tmp/root"
B=$emu_url

# req METHOD PATH [DATA] [curl args...]: body in $tmp/body, headers in
# $tmp/hdr, status printed
req() {
	m=$1
	p=$2
	shift 2
	d=
	if [ $# -gt 0 ]; then
		d=$1
		shift
	fi
	rm -f "$tmp/body"
	: >"$tmp/body"
	if [ -n "$d" ]; then
		curl -s -o "$tmp/body" -D "$tmp/hdr" -w '%{http_code}' -X "$m" \
			-H 'Content-Type: application/json' -d "$d" "$@" "$B$p"
	else
		curl -s -o "$tmp/body" -D "$tmp/hdr" -w '%{http_code}' -X "$m" \
			"$@" "$B$p"
	fi
}
hdr() {
	grep -i "^$1:" "$tmp/hdr" | sed 's/^[^:]*: *//; s/\r$//'
}
jq_() {
	$PY -c "import json; d=json.load(open('$tmp/body')); v=($1)
print(' '.join(map(str, v)) if isinstance(v, tuple) else v)"
}
AUTH='Authorization: Bearer tok-bot'

s=$(req POST /_emu/users '{"login":"alice","token":"tok-alice","name":"Alice A","email":"alice@example.org"}')
[ "$s" = 201 ] || fail "create user: $s"
s=$(req POST /_emu/users '{"login":"bot","token":"tok-bot"}')
[ "$s" = 201 ] || fail "create bot: $s"
s=$(req POST /_emu/repos "{\"owner\":\"org\",\"repo\":\"proj\",\"from\":\"$src\",\"branch\":\"main\"}")
[ "$s" = 201 ] || fail "create repo: $s"
s=$(req POST /_emu/pulls "{\"owner\":\"org\",\"repo\":\"proj\",\"user\":\"alice\",\"title\":\"f: two\",\"body\":\"Cc: c@example.org\",\"from\":\"$src\",\"ref\":\"topic\",\"base\":\"main\"}")
[ "$s" = 201 ] || fail "create pull: $s"
[ "$(jq_ 'd["number"]')" = 1 ] || fail "first PR is not number 1"

# the PR as the API has it
s=$(req GET /repos/org/proj/pulls/1 '' -H "$AUTH")
[ "$s" = 200 ] || fail "get pull: $s"
head=$(git -C "$src" rev-parse topic)
main=$(git -C "$src" rev-parse main)
[ "$(jq_ 'd["head"]["sha"]')" = "$head" ] || fail "head.sha"
[ "$(jq_ 'd["base"]["sha"]')" = "$main" ] || fail "base.sha"
[ "$(jq_ 'd["user"]["login"]')" = alice ] || fail "user.login"
[ "$(jq_ 'd["head"]["ref"]')" = topic ] || fail "head.ref"
[ "$(jq_ 'd["commits"], d["additions"], d["changed_files"]')" = "1 1 1" ] ||
	fail "commits/additions/changed_files"
clone=$(jq_ 'd["head"]["repo"]["clone_url"]')
[ "$clone" = "$B/git/alice/proj.git" ] || fail "head.repo.clone_url: $clone"

# commits match git
s=$(req GET /repos/org/proj/pulls/1/commits '' -H "$AUTH")
[ "$s" = 200 ] || fail "commits: $s"
[ "$(jq_ 'd[0]["sha"], d[0]["commit"]["message"], d[0]["commit"]["author"]["email"]')" = \
	"$head f: add two alice@example.org" ] || { cat "$tmp/body"; fail "commit fields"; }

# the diff media type equals git diff
s=$(req GET /repos/org/proj/pulls/1 '' -H 'Accept: application/vnd.github.diff')
[ "$s" = 200 ] || fail "diff: $s"
git -C "$src" diff main topic >"$tmp/want.diff"
cmp -s "$tmp/body" "$tmp/want.diff" || fail "diff differs from git diff"

# git over smart HTTP: clone, fetch refs/pull/1/head, the fork's branch
git clone -q "$B/git/org/proj.git" "$tmp/clone" || fail "git clone"
git -C "$tmp/clone" fetch -q origin pull/1/head || fail "fetch pull/1/head"
[ "$(git -C "$tmp/clone" rev-parse FETCH_HEAD)" = "$head" ] ||
	fail "refs/pull/1/head is not the PR head"
[ "$(git ls-remote "$clone" refs/heads/topic | cut -f1)" = "$head" ] ||
	fail "fork branch"
git -C "$tmp/clone" push -q origin HEAD:refs/heads/x 2>/dev/null &&
	fail "a push was accepted"

# force-push: a new head, refs/pull/1/head follows
git -C "$src" checkout -q topic
echo three >>"$src/f"
git -C "$src" commit -q --amend -am "f: add two and three"
git -C "$src" checkout -q main
head2=$(git -C "$src" rev-parse topic)
s=$(req POST /_emu/pulls/org/proj/1/push "{\"from\":\"$src\",\"ref\":\"topic\"}")
[ "$s" = 200 ] || fail "push: $s"
git -C "$tmp/clone" fetch -q origin pull/1/head || fail "fetch after push"
[ "$(git -C "$tmp/clone" rev-parse FETCH_HEAD)" = "$head2" ] ||
	fail "refs/pull/1/head after the push"

# 120 more PRs; pagination with per_page=50: Link next/last, 3 pages
s=$(req POST /_emu/pulls "{\"owner\":\"org\",\"repo\":\"proj\",\"user\":\"alice\",\"title\":\"bulk\",\"from\":\"$src\",\"ref\":\"topic\",\"count\":120}")
[ "$s" = 201 ] || fail "bulk pulls: $s"
n=0
url="/repos/org/proj/pulls?per_page=50"
pages=0
while [ -n "$url" ]; do
	s=$(req GET "$url" '' -H "$AUTH")
	[ "$s" = 200 ] || fail "list page: $s"
	n=$((n + $(jq_ 'len(d)')))
	pages=$((pages + 1))
	[ $pages -eq 1 ] && {
		hdr link | grep -q 'rel="last"' || fail "no rel=last"
		hdr link | grep -q 'page=3' || fail "last is not page 3"
		[ "$(jq_ 'd[0]["number"]')" = 121 ] || fail "not newest first"
	}
	url=$(hdr link | tr ',' '\n' | grep 'rel="next"' |
		sed 's/.*<\(.*\)>.*/\1/; s|^http://[^/]*||')
done
[ $n -eq 121 ] || fail "paginated list has $n PRs, not 121"
[ $pages -eq 3 ] || fail "$pages pages, not 3"
s=$(req GET "/repos/org/proj/pulls?per_page=200" '' -H "$AUTH")
[ "$(jq_ 'len(d)')" = 100 ] || fail "per_page not capped at 100"
s=$(req GET "/repos/org/proj/pulls?state=bogus" '' -H "$AUTH")
[ "$s" = 422 ] || fail "bad state: $s"

# ETag: 304 with If-None-Match, and it does not count
s=$(req GET /repos/org/proj/pulls/1 '' -H "$AUTH")
etag=$(hdr etag)
[ -n "$etag" ] || fail "no etag"
r1=$(hdr x-ratelimit-remaining)
s=$(req GET /repos/org/proj/pulls/1 '' -H "$AUTH" -H "If-None-Match: $etag")
[ "$s" = 304 ] || fail "conditional GET: $s"
[ ! -s "$tmp/body" ] || fail "304 with a body"
[ "$(hdr x-ratelimit-remaining)" = "$r1" ] || fail "304 counted"
s=$(req GET /repos/org/proj/pulls/1 '' -H "$AUTH")
[ "$(hdr x-ratelimit-remaining)" = $((r1 - 1)) ] || fail "200 not counted"

# comments: through the API by the token's user; 422 without a body
s=$(req POST /repos/org/proj/issues/1/comments '{"body":"looks good"}' -H "$AUTH")
[ "$s" = 201 ] || fail "comment: $s"
[ "$(jq_ 'd["user"]["login"]')" = bot ] || fail "commenter"
s=$(req POST /repos/org/proj/issues/1/comments '{}' -H "$AUTH")
[ "$s" = 422 ] || fail "comment without body: $s"
[ "$(jq_ 'd["message"], d["errors"][0]["code"]')" = \
	"Validation Failed missing_field" ] || fail "422 body"
s=$(req POST /_emu/comments '{"owner":"org","repo":"proj","number":1,"user":"alice","body":"v2 please"}')
[ "$s" = 201 ] || fail "control comment: $s"
s=$(req GET /repos/org/proj/issues/1/comments '' -H "$AUTH")
[ "$(jq_ '[c["user"]["login"] for c in d]')" = "['bot', 'alice']" ] ||
	fail "comment list"
# an ETag changes once the PR changes
s=$(req GET /repos/org/proj/pulls/1 '' -H "$AUTH" -H "If-None-Match: $etag")
[ "$s" = 200 ] || fail "stale etag: $s"

# labels and close
s=$(req POST /repos/org/proj/issues/1/labels '{"labels":["accepted","v2"]}' -H "$AUTH")
[ "$s" = 200 ] || fail "labels: $s"
s=$(req DELETE /repos/org/proj/issues/1/labels/v2 '' -H "$AUTH")
[ "$(jq_ '[x["name"] for x in d]')" = "['accepted']" ] || fail "label remove"
s=$(req DELETE /repos/org/proj/issues/1/labels/nope '' -H "$AUTH")
[ "$s" = 404 ] || fail "remove absent label: $s"
s=$(req PATCH /repos/org/proj/pulls/1 '{"state":"closed"}' -H "$AUTH")
[ "$s" = 200 ] || fail "close: $s"
[ "$(jq_ 'd["state"]')" = closed ] || fail "not closed"
s=$(req GET "/repos/org/proj/pulls?state=closed" '' -H "$AUTH")
[ "$(jq_ '[p["number"] for p in d]')" = "[1]" ] || fail "closed list"

# 401, 404
s=$(req GET /user '' -H 'Authorization: token wrong')
[ "$s" = 401 ] || fail "bad token: $s"
[ "$(jq_ 'd["message"]')" = "Bad credentials" ] || fail "401 body"
s=$(req POST /repos/org/proj/issues/1/comments '{"body":"x"}')
[ "$s" = 401 ] || fail "anonymous write: $s"
s=$(req GET /user '' -H 'Authorization: token tok-alice')
[ "$(jq_ 'd["login"], d["email"]')" = "alice alice@example.org" ] ||
	fail "/user"
s=$(req GET /repos/org/nope/pulls '' -H "$AUTH")
[ "$s" = 404 ] || fail "unknown repo: $s"
[ "$(jq_ 'd["message"]')" = "Not Found" ] || fail "404 body"
s=$(req GET /repos/org/proj/pulls/999 '' -H "$AUTH")
[ "$s" = 404 ] || fail "unknown pull: $s"

# primary limit: 403 with remaining 0, then back after reset
now=$(date +%s)
s=$(req POST /_emu/ratelimit "{\"remaining\":0,\"reset\":$((now + 2))}")
[ "$s" = 200 ] || fail "ratelimit knob: $s"
s=$(req GET /repos/org/proj/pulls/1 '' -H "$AUTH")
[ "$s" = 403 ] || fail "exhausted: $s"
[ "$(hdr x-ratelimit-remaining)" = 0 ] || fail "remaining not 0"
jq_ 'd["message"]' | grep -q '^API rate limit exceeded' || fail "403 body"
sleep 3
s=$(req GET /repos/org/proj/pulls/1 '' -H "$AUTH")
[ "$s" = 200 ] || fail "after reset: $s"
[ "$(hdr x-ratelimit-remaining)" = 4999 ] || fail "remaining after reset"

# secondary limit: 429 with retry-after, once; then normal
s=$(req POST /_emu/fail '{"match":"/pulls$","status":429,"headers":{"retry-after":"1"}}')
[ "$s" = 201 ] || fail "fail knob: $s"
s=$(req GET /repos/org/proj/pulls '' -H "$AUTH")
[ "$s" = 429 ] || fail "secondary: $s"
[ "$(hdr retry-after)" = 1 ] || fail "retry-after"
jq_ 'd["message"]' | grep -q 'secondary rate limit' || fail "429 body"
s=$(req GET /repos/org/proj/pulls '' -H "$AUTH")
[ "$s" = 200 ] || fail "after the secondary limit: $s"
# a slow answer: delay_ms without status
s=$(req POST /_emu/fail '{"match":"/pulls/1$","delay_ms":3000}')
s=$(req GET /repos/org/proj/pulls/1 '' -H "$AUTH" --max-time 1)
[ "$s" = 000 ] || fail "delay did not time out: $s"
# a failing git fetch
s=$(req POST /_emu/fail '{"match":"^/git/","status":500,"body":{}}')
git -C "$tmp/clone" fetch -q origin 2>/dev/null && fail "fetch did not fail"

# the log has the conditional GET
s=$(req GET /_emu/log)
[ "$(jq_ 'sum(1 for e in d if e["status"] == 304 and e["if_none_match"])')" = 1 ] ||
	fail "log does not show the 304"
stop "$emu_pid"

# ---- GitLab ----
start_emulator gitlab "$tmp/groot"
B=$emu_url
A=/api/v4/projects/grp%2Fproj
TOK='PRIVATE-TOKEN: tok-bot'
s=$(req POST /_emu/users '{"login":"alice","token":"tok-alice","name":"Alice A","email":"alice@example.org"}')
[ "$s" = 201 ] || fail "gitlab: create user: $s"
s=$(req POST /_emu/users '{"login":"bot","token":"tok-bot"}')
s=$(req POST /_emu/repos "{\"owner\":\"grp\",\"repo\":\"proj\",\"from\":\"$src\",\"branch\":\"main\"}")
[ "$s" = 201 ] || fail "gitlab: create project: $s"
s=$(req POST /_emu/pulls "{\"owner\":\"grp\",\"repo\":\"proj\",\"user\":\"alice\",\"title\":\"mr\",\"from\":\"$src\",\"ref\":\"topic\",\"count\":45}")
[ "$s" = 201 ] || fail "gitlab: create MRs: $s"
s=$(req GET "$A/merge_requests/1" '' -H "$TOK")
[ "$s" = 200 ] || fail "gitlab: get MR: $s"
[ "$(jq_ 'd["iid"], d["sha"], d["state"], d["author"]["username"], d["source_branch"], d["target_branch"]')" = \
	"1 $head2 opened alice topic main" ] || fail "gitlab: MR fields"
[ "$(jq_ 'd["diff_refs"]["start_sha"]')" = "$main" ] || fail "diff_refs"
pidn=$(jq_ 'd["project_id"]')
etag=$(hdr etag)
s=$(req GET "$A/merge_requests/1" '' -H "$TOK" -H "If-None-Match: $etag")
[ "$s" = 304 ] || fail "gitlab: conditional GET: $s"
# numeric project id works the same
s=$(req GET "/api/v4/projects/$pidn/merge_requests/1" '' -H "$TOK")
[ "$s" = 200 ] || fail "gitlab: numeric project id: $s"
# pagination through x-next-page, default per_page 20
n=0
page=1
pages=0
while [ -n "$page" ]; do
	s=$(req GET "$A/merge_requests?page=$page" '' -H "$TOK")
	[ "$s" = 200 ] || fail "gitlab: list: $s"
	[ "$(hdr x-total)" = 45 ] || fail "x-total"
	[ "$(hdr x-total-pages)" = 3 ] || fail "x-total-pages"
	n=$((n + $(jq_ 'len(d)')))
	pages=$((pages + 1))
	page=$(hdr x-next-page)
done
[ $n -eq 45 ] && [ $pages -eq 3 ] || fail "gitlab: $n MRs in $pages pages"
# notes: by the token's user; 400 without a body; close adds a system note
s=$(req POST "$A/merge_requests/1/notes" '{"body":"hello"}' -H "$TOK")
[ "$s" = 201 ] || fail "gitlab: note: $s"
[ "$(jq_ 'd["author"]["username"], d["system"]')" = "bot False" ] ||
	fail "gitlab: note fields"
s=$(req POST "$A/merge_requests/1/notes" '{}' -H "$TOK")
[ "$s" = 400 ] || fail "gitlab: note without body: $s"
s=$(req PUT "$A/merge_requests/1" '{"state_event":"close","add_labels":"a,b"}' -H "$TOK")
[ "$s" = 200 ] || fail "gitlab: close: $s"
[ "$(jq_ 'd["state"], d["labels"]')" = "closed ['a', 'b']" ] ||
	fail "gitlab: closed state/labels"
s=$(req PUT "$A/merge_requests/1" '{"state_event":"shut"}' -H "$TOK")
[ "$s" = 400 ] || fail "gitlab: bad state_event: $s"
s=$(req GET "$A/merge_requests/1/notes?sort=asc" '' -H "$TOK")
[ "$(jq_ '[(n["body"], n["system"]) for n in d]')" = \
	"[('hello', False), ('closed', True)]" ] || fail "gitlab: notes list"
# commits
s=$(req GET "$A/merge_requests/1/commits" '' -H "$TOK")
[ "$(jq_ 'd[0]["id"], d[0]["title"]')" = "$head2 f: add two and three" ] ||
	fail "gitlab: commits"
# 401, 404
s=$(req GET /api/v4/user '' -H 'PRIVATE-TOKEN: wrong')
[ "$s" = 401 ] || fail "gitlab: bad token: $s"
[ "$(jq_ 'd["message"]')" = "401 Unauthorized" ] || fail "gitlab: 401 body"
s=$(req GET /api/v4/projects/grp%2Fnope/merge_requests '' -H "$TOK")
[ "$s" = 404 ] || fail "gitlab: unknown project: $s"
s=$(req GET "$A/merge_requests/999" '' -H "$TOK")
[ "$s" = 404 ] || fail "gitlab: unknown MR: $s"
# rate limit: 429 with Retry-After when exhausted
now=$(date +%s)
s=$(req POST /_emu/ratelimit "{\"remaining\":0,\"reset\":$((now + 30))}")
s=$(req GET "$A/merge_requests/1" '' -H "$TOK")
[ "$s" = 429 ] || fail "gitlab: exhausted: $s"
[ -n "$(hdr retry-after)" ] || fail "gitlab: no Retry-After"
[ "$(hdr ratelimit-remaining)" = 0 ] || fail "gitlab: RateLimit-Remaining"
s=$(req POST /_emu/ratelimit '{"remaining":100}')
s=$(req GET "$A/merge_requests/1" '' -H "$TOK")
[ "$s" = 200 ] || fail "gitlab: after the limit came back: $s"
[ "$(hdr ratelimit-remaining)" = 99 ] || fail "gitlab: remaining not counted"
# secondary: a one-off 429 with Retry-After and GitLab's body
s=$(req POST /_emu/fail '{"match":"/notes","status":429,"headers":{"Retry-After":"2"}}')
s=$(req GET "$A/merge_requests/1/notes" '' -H "$TOK")
[ "$s" = 429 ] || fail "gitlab: secondary: $s"
[ "$(hdr retry-after)" = 2 ] || fail "gitlab: secondary Retry-After"
jq_ 'd["message"]["error"]' | grep -q 'too many times' ||
	fail "gitlab: 429 body"
s=$(req GET "$A/merge_requests/1/notes" '' -H "$TOK")
[ "$s" = 200 ] || fail "gitlab: after the secondary limit: $s"
# git: refs/merge-requests/N/head over smart HTTP
git clone -q "$B/git/grp/proj.git" "$tmp/gclone" || fail "gitlab: clone"
git -C "$tmp/gclone" fetch -q origin merge-requests/1/head ||
	fail "gitlab: fetch merge-requests/1/head"
[ "$(git -C "$tmp/gclone" rev-parse FETCH_HEAD)" = "$head2" ] ||
	fail "gitlab: refs/merge-requests/1/head"
echo ok
