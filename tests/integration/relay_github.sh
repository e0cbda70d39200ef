#!/bin/sh
# Both directions between a mailing list (a real public-inbox-httpd) and
# GitHub (tests/emulators/github.py), with aiosmtpd as the list's SMTP:
# (a) a 3-patch series on the list becomes a pull request whose commits,
#     through git format-patch, have the same patch-ids and authors, and
#     are the very commits `git am` makes of the mails (same committer and
#     date: same ids); the description has the archive link; a second run
#     changes nothing;
# (b) a list reply with a Reviewed-by to patch 2 becomes one PR comment
#     naming the author, the archive link and the trailer;
# (c) a line comment on the PR (b.txt line 2) becomes one reply mail
#     threaded under patch 2 (In-Reply-To, References), quoted with the
#     file and line, From: the relay on behalf of grace;
# (d) the relayed mail fed back into the list and five more passes: no new
#     comment, no new mail (the PR comment is read back by a source with
#     another token: only the store knows it is patchrelay's);
# (e) v2 on the list force-pushes the branch, updates the title and body
#     and comments the range-diff; the Acked-by given to patch 1 (unchanged
#     in v2) on the list and the Tested-by given on its line on GitHub are
#     in v2's first commit, the Reviewed-by of the changed patch 2 is not;
# (f) patchrelay lookup answers from the cover's Message-ID, the PR URL,
#     kernel/net#1, patch 2's Message-ID and the branch with the same ids,
#     text and --json; an unknown id exits 1;
# (g) v2 applied with git am on the main branch a git source watches:
#     landed, the PR closed once with a comment saying where.
. "$(dirname "$0")/relay_lib.sh"

relay_tree
relay_pi v1/*.patch
relay_emulator github
relay_smtpd
cover=$(message_id v1/0000-cover-letter.patch)
p1=$(message_id v1/0001-a-add-two.patch)
p2=$(message_id v1/0002-b-add-y.patch)

relay_conf github repo

pulls() { # number title head: one line a PR
	api GET '/repos/kernel/net/pulls?state=all' tok-grace |
		$PY -c 'import json, sys
for p in json.load(sys.stdin):
    print(p["number"], p["state"], p["head"]["ref"], p["head"]["sha"])'
}
comments() { # the PR's comments, one JSON object a line
	api GET /repos/kernel/net/issues/1/comments tok-grace |
		$PY -c 'import json, sys
for c in json.load(sys.stdin):
    print(json.dumps({"user": c["user"]["login"], "body": c["body"]}))'
}
# patch-ids of an mbox, in order
ids() { git patch-id --stable <"$1" | cut -d' ' -f1; }

# ---- (a) the series becomes a pull request
run_once
pulls >pulls1
[ "$(wc -l <pulls1)" = 1 ] || fail "not one PR: $(cat pulls1) $(cat run.log)"
read -r num state ref head <pulls1
[ "$num $state" = "1 open" ] || fail "PR: $(cat pulls1)"
case $ref in patchrelay/cover.*-example.org-????????) ;;
*) fail "branch name: $ref" ;; esac
git -C tree fetch -q "$B/git/kernel/net.git" refs/pull/1/head ||
	fail "fetch of the PR"
git -C tree format-patch -q --stdout main..FETCH_HEAD >pr.mbox
cat v1/000[1-3]*.patch >sent.mbox
ids sent.mbox >want.ids
ids pr.mbox >got.ids
[ "$(wc -l <want.ids)" = 3 ] || fail "patch-ids of the mails"
cmp want.ids got.ids || fail "patch-ids differ: $(cat got.ids)"
git -C tree log --format='%an <%ae> %ad' --date=raw main..FETCH_HEAD >got.authors
[ "$(sort -u got.authors)" = "Ada Lovelace <ada@example.org> 1796299200 +0200" ] ||
	fail "authors: $(cat got.authors)"
[ "$(git -C tree log -1 --format='%cn <%ce>' FETCH_HEAD)" = \
	"Patch Relay <relay@example.org>" ] || fail "committer"
# what git am makes of the mails, with the same committer and date
git clone -q tree am
(cd am && GIT_COMMITTER_NAME='Patch Relay' \
	GIT_COMMITTER_EMAIL=relay@example.org \
	GIT_COMMITTER_DATE='@1796400000 +0000' \
	git am -q ../v1/000[1-3]*.patch) || fail "git am"
[ "$(git -C am rev-parse HEAD)" = "$head" ] ||
	fail "not git am's commits: $head vs $(git -C am rev-parse HEAD)"
api GET /repos/kernel/net/pulls/1 tok-grace >pr1.json
$PY - "$PI_URL" "$cover" pr1.json <<'PY' || fail "PR title/body: $(cat pr1.json)"
import json, sys
url, cover, path = sys.argv[1:]
p = json.load(open(path))
assert p["title"] == "three small additions", p["title"]
assert p["base"]["ref"] == "main"
b = p["body"]
assert b.startswith("Why the three are needed."), b
assert "Archive: %s%s/" % (url, cover) in b, b
assert "\n-- \n" not in b, b
PY
run_once
pulls >pulls2
cmp pulls1 pulls2 || fail "a second run changed the PRs"
[ -z "$(comments)" ] || fail "comments after v1: $(comments)"
[ "$(mails)" = 0 ] || fail "mails after v1"

# ---- (b) a list reply with a Reviewed-by -> one PR comment
reply r2.eml 'Rob Reviewer <rob@example.org>' 'Re: [PATCH 2/3] b: add y' \
	"$p2" "<$cover> <$p2>" 'On Thu, Ada Lovelace wrote:
> Why y.

Looks right to me.

Reviewed-by: Rob Reviewer <rob@example.org>'
reply r1.eml 'Ann Acker <ann@example.org>' 'Re: [PATCH 1/3] a: add two' \
	"$p1" "<$cover> <$p1>" 'Acked-by: Ann Acker <ann@example.org>'
list_add r2.eml r1.eml
r2=$(message_id r2.eml)
run_once
comments >c1
[ "$(wc -l <c1)" = 2 ] || fail "not two comments: $(cat c1) $(cat run.log)"
$PY - "$PI_URL" "$r2" c1 <<'PY' || fail "the relayed comment: $(cat c1)"
import json, sys
url, r2, path = sys.argv[1:]
c = [json.loads(l) for l in open(path)]
rob = [x for x in c if "Rob Reviewer" in x["body"]]
assert len(rob) == 1, c
b = rob[0]["body"]
assert rob[0]["user"] == "relay-bot", rob
assert "rob@example.org" in b and "[PATCH 2/3] b: add y" in b, b
assert "%s%s/" % (url, r2) in b, b
assert "`Reviewed-by: Rob Reviewer <rob@example.org>`" in b, b
assert "Looks right to me." in b, b
PY
[ "$(mails)" = 0 ] || fail "a mail for a list reply"

# ---- (c) a line comment on the PR -> one reply mail under patch 2
api POST /repos/kernel/net/pulls/1/comments tok-grace \
	"{\"body\":\"Why yy would be better here.\",\"path\":\"b.txt\",\"line\":2,\"commit_id\":\"$head\"}" >lc.json
run_once
[ "$(mails)" = 1 ] || fail "not one mail: $(mails) $(cat run.log)"
m=$(find box/new box/cur -type f | head -1)
$PY - "$m" "$cover" "$p2" <<'PY' || fail "the reply mail: $(cat "$m")"
import email, email.policy, sys
path, cover, p2 = sys.argv[1:]
m = email.message_from_binary_file(open(path, "rb"), policy=email.policy.default)
assert m["In-Reply-To"] == "<%s>" % p2, m["In-Reply-To"]
refs = m["References"].split()
assert refs[-1] == "<%s>" % p2 and "<%s>" % cover in refs, refs
assert m["Subject"] == "Re: [PATCH 2/3] b: add y", m["Subject"]
assert m["From"] == "grace <relay@example.org>", m["From"]
assert m["To"] == "list@example.org", m["To"]
b = m.get_content()
assert "on b.txt line 2" in b, b
assert "\n> +y\n" in b and "> diff --git a/b.txt b/b.txt" in b, b
assert "Why yy would be better here." in b, b
assert "#discussion_r" in b, b
PY
[ "$(comments | wc -l)" = 2 ] || fail "the line comment came back: $(comments)"

# ---- (d) the relayed mail on the list, five more passes: nothing new
list_add "$m"
for i in 1 2 3 4 5; do
	run_once
done
[ "$(mails)" = 1 ] || fail "mails after five passes: $(mails)"
comments >c2
cmp c1 c2 || fail "comments after five passes: $(cat c2)"
pulls >pulls3
cmp pulls1 pulls3 || fail "PRs after five passes: $(cat pulls3)"

# ---- (e) v2: force-push, new title/body, a range-diff; trailers follow
api POST /repos/kernel/net/pulls/1/comments tok-grace \
	"{\"body\":\"Works here.\\n\\nTested-by: Grace Hopper <grace@example.org>\",\"path\":\"a.txt\",\"line\":2,\"commit_id\":\"$head\"}" >lc2.json
run_once
[ "$(mails)" = 2 ] || fail "the second line comment: $(mails)"
list_add v2/*.patch
run_once
pulls >pulls4
[ "$(wc -l <pulls4)" = 1 ] || fail "v2 made another PR: $(cat pulls4)"
read -r num state ref2 head2 <pulls4
[ "$num $state $ref2" = "1 open $ref" ] || fail "v2's PR: $(cat pulls4)"
[ "$head2" != "$head" ] || fail "v2 not pushed: $(cat run.log)"
comments >c3
tail -1 c3 | grep -q 'Range-diff against v1' ||
	fail "no range-diff comment: $(tail -1 c3)"
tail -1 c3 | grep -q 'b: add yy' || fail "range-diff: $(tail -1 c3)"
api GET /repos/kernel/net/pulls/1 tok-grace >pr2.json
grep -q 'Why the three are needed, v2.' pr2.json || fail "v2's body"
git -C tree fetch -q "$B/git/kernel/net.git" refs/pull/1/head
git -C tree format-patch -q --stdout main..FETCH_HEAD >pr2.mbox
cat v2/v2-000[1-3]*.patch >sent2.mbox
ids sent2.mbox >want2.ids
ids pr2.mbox >got2.ids
cmp want2.ids got2.ids || fail "v2 patch-ids differ"
git -C tree log --reverse --format='%B%x00' main..FETCH_HEAD >msgs
$PY - msgs <<'PY' || fail "trailers of v2: $(cat msgs)"
import sys
m = open(sys.argv[1]).read().split("\0")
first, second = m[0], m[1]
assert first.rstrip().endswith(
    "Signed-off-by: Ada Lovelace <ada@example.org>\n"
    "Acked-by: Ann Acker <ann@example.org>\n"
    "Tested-by: Grace Hopper <grace@example.org>"), first
assert "Reviewed-by" not in second, second
PY
[ "$(mails)" = 2 ] || fail "v2 sent mail: $(mails)"

# ---- (f) lookup from any id
url=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["html_url"])' pr1.json)
"$PATCHRELAY" lookup -c relay.conf "<$cover>" >l1 || fail "lookup cover"
for want in "series netdev $cover (2 versions)" "github       kernel/net#1" \
	"github-url   $url" "branch       $ref" "message-id   $p2"; do
	grep -qF "$want" l1 || fail "lookup lacks '$want': $(cat l1)"
done
for id in "$url" kernel/net#1 "$p2" "$ref" "$PI_URL$p1/"; do
	"$PATCHRELAY" lookup -c relay.conf "$id" >l2 || fail "lookup $id"
	cmp l1 l2 || fail "lookup $id differs: $(cat l2)"
done
"$PATCHRELAY" lookup -c relay.conf --json kernel/net#1 >l.json ||
	fail "lookup --json"
$PY - l.json "$url" <<'PY' || fail "lookup --json: $(cat l.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["series"]) == 1, d
s = d["series"][0]
kinds = {(i["kind"], i["value"]) for i in s["ids"]}
assert ("github", "kernel/net#1") in kinds and \
    ("github-url", sys.argv[2]) in kinds, kinds
assert sum(1 for k, v in kinds if k == "message-id") >= 8, kinds
assert any(k == "relayed" for k, v in kinds), kinds
PY
"$PATCHRELAY" lookup -c relay.conf nobody@example.org >/dev/null 2>&1
[ $? = 1 ] || fail "an unknown id does not exit 1"

# ---- (g) v2 lands on main (git am of the mails): the PR is closed
landing_conf "$tmp/tree" github >>relay.conf
run_once
(cd tree && git am -q ../v2/v2-000[1-3]*.patch) || fail "git am of v2"
tip=$(git -C tree rev-parse main)
run_once
grep -q "v2 of '$cover' landed in main as $tip" run.log ||
	fail "not landed: $(tail run.log)"
pulls >pulls3
[ "$(cut -d' ' -f1-2 pulls3)" = "1 closed" ] || fail "PR not closed: $(cat pulls3)"
comments >c3
[ "$(grep -c "This series was landed: landed in main as $tip; patchrelay closes this pull request" c3)" = 1 ] ||
	fail "no closing comment: $(cat c3)"
# once: more passes say nothing more
run_once
run_once
comments >c4
cmp -s c3 c4 || fail "more comments: $(cat c4)"
exit 0
