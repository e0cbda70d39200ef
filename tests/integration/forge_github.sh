#!/bin/sh
# The github source end to end, against tests/emulators/github.py and
# tests/servers/smtpd.py, on the small tree of tests/data/route/tree (its
# own MAINTAINERS), a route with maintainers, size-limit, mass-edit and
# msg-lint checks, an smtp sink and the github source as feedback:
# (a) a PR of 3 commits, `/submit` by its author, `run --once` -> 4 mails
#     addressed as `patchrelay route` (get_maintainer) says plus the
#     body's Cc:, and a PR comment holding the cover's Message-ID; a
#     second run sends and posts nothing;
# (b) force-push + /submit -> v2 with a range-diff, linking v1;
# (c) a PR shaped like the seed junk patch -> a refusal comment naming
#     size-limit and mass-edit, no mail;
# (d) a stranger's /submit -> nothing sent, one comment why, only once;
# (e) /preview on a PR whose fork was deleted -> mail only to the head
#     commit's author;
# (f) an idle poll of 50 open PRs -> only conditional requests, all 304,
#     each with GitHub's headers (Bearer, Accept, API version, UA);
# (g) a 403 rate-limit answer -> no request before the reset, the pending
#     /submit is sent after it;
# (h) a bad token (401) -> an error naming the source, exit non-zero; with
#     PATCHRELAY_TRACE=http the requests are traced and the token is not.
set -u
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || skip "no python3-aiosmtpd"
tmpdir
cd "$tmp" || exit 1

start_emulator github "$tmp/emu"
B=$emu_url
start_smtpd "$tmp/box"

# comment N USER BODY
comment() {
	emu_ctl POST /_emu/comments "{\"owner\":\"kernel\",\"repo\":\"net\",\"number\":$1,\"user\":\"$2\",\"body\":\"$3\"}" >/dev/null
}
# comments N: "login: body" lines of a PR's comments, oldest first
comments() {
	curl -sf "$B/repos/kernel/net/issues/$1/comments?per_page=100" |
		$PY -c 'import json, sys
for c in json.load(sys.stdin):
    print("%s: %s" % (c["user"]["login"], c["body"].replace("\n", " ")))'
}
mails() { mail_count "$tmp/box"; }

git_identity 'Ada Lovelace <ada@example.org>' '1796299200 +0000'
# files for the junk PR of (c): 30 files with words holding "no"
mkdir -p tree/Documentation/notes
i=0
while [ $i -lt 30 ]; do
	printf 'Unknown note %d\nnothing known\nnot now, nor ever\n' $i \
		>"tree/Documentation/notes/n$i.txt"
	i=$((i + 1))
done
route_tree tree
route_topic tree
git -C tree format-patch -q -3 -o "$tmp/v1" || fail "format-patch"
git -C tree checkout -q main

emu_ctl POST /_emu/users '{"login":"ada","token":"tok-ada","name":"Ada Lovelace","email":"ada@example.org"}' >/dev/null
emu_ctl POST /_emu/users '{"login":"relay-bot","token":"tok-bot"}' >/dev/null
emu_ctl POST /_emu/users '{"login":"eve","token":"tok-eve"}' >/dev/null
emu_ctl POST /_emu/users '{"login":"grace","token":"tok-grace","name":"Grace Hopper","email":"grace@example.org"}' >/dev/null
emu_ctl POST /_emu/users '{"login":"marc","token":"tok-marc"}' >/dev/null
emu_ctl POST /_emu/repos "{\"owner\":\"kernel\",\"repo\":\"net\",\"from\":\"$tmp/tree\",\"branch\":\"main\"}" >/dev/null
# from ada's fork: head.repo is ada/net, refs/pull/1/head only in kernel/net
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"three small additions\",\"body\":\"Why the three are needed.\\r\\n\\r\\nCc: Extra Person <extra@example.org>\",\"from\":\"$tmp/tree\",\"ref\":\"topic\",\"base\":\"main\"}" >/dev/null

cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "gh"]
	type = github
	api-url = $B
	repo = kernel/net
	token = env:GH_TOKEN
	cache-dir = $tmp/cache
[check "size-limit"]
	type = size-limit
	max-files = 20
[check "mass-edit"]
	type = mass-edit
[check "msg-lint"]
	type = msg-lint
[check "maintainers"]
	type = maintainers
	kernel-tree = $tmp/tree
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$smtpd_port
	starttls = never
	from = Patch Relay <relay@example.org>
	archive-url = https://lore.example.org/r/%m
[route "r"]
	from = gh
	step = size-limit
	step = mass-edit
	step = msg-lint
	step = maintainers
	to = list
	feedback = gh
CONF
export GH_TOKEN=tok-bot
run() { # NAME: run --once, log in NAME.log
	"$PATCHRELAY" run -c relay.conf --once >"$1.log" 2>&1
}

# -- nothing before a trigger
run pass0 || fail "pass 0: $(cat pass0.log)"
[ "$(mails)" -eq 0 ] || fail "sent before /submit"

# -- (a) /submit by the author: 4 mails, addressed as MAINTAINERS says
comment 1 ada /submit
run pass1 || fail "pass 1: $(cat pass1.log)"
[ "$(mails)" -eq 4 ] || fail "pass 1: $(mails) mails, want 4: $(cat pass1.log)"
(cd tree && "$PATCHRELAY" route --no-rolestats "$tmp"/v1/*.patch) >route.out ||
	fail "patchrelay route"
$PY - "$tmp/box" route.out v1.ids <<'PYEOF' || fail "v1 mails are wrong"
import email, email.utils, mailbox, re, sys
box = mailbox.Maildir(sys.argv[1], create=False)
mails = [email.message_from_bytes(m.as_bytes()) for m in box]
def num(m):
    return int(re.search(r"\[PATCH (\d)/3\]", m["Subject"]).group(1))
mails.sort(key=num)
subjects = [m["Subject"] for m in mails]
assert subjects == ["[PATCH 0/3] three small additions",
                    "[PATCH 1/3] foo: add foo2", "[PATCH 2/3] net: add dev2",
                    "[PATCH 3/3] ext4: add inode2"], subjects
want = set(l.strip().lower() for l in open(sys.argv[2]) if l.strip())
want = set(a for _, a in email.utils.getaddresses(list(want)))
want.add("extra@example.org")
cover = mails[0]
for m in mails:
    got = set(a.lower() for _, a in email.utils.getaddresses(
        m.get_all("To", []) + m.get_all("Cc", [])))
    assert got == want, (m["Subject"], sorted(got), sorted(want))
    if m is not cover:
        assert m["In-Reply-To"] == cover["Message-ID"], m["In-Reply-To"]
body = cover.get_payload(decode=True).decode()
assert "Why the three are needed." in body, body
assert "Cc: Extra" not in body, body
# the cover links the pull request
assert "/kernel/net/pull/1" in body, body
open(sys.argv[3], "w").write(cover["Message-ID"].strip("<>") + "\n")
PYEOF
mid1=$(cat v1.ids)
comments 1 >comments1
grep -q "^relay-bot: .*$mid1" comments1 || fail "no comment with the Message-ID: $(cat comments1)"
grep -q "^relay-bot: .*sent as v1" comments1 || fail "the comment does not say v1: $(cat comments1)"

# -- a second run sends nothing and posts nothing
run pass2 || fail "pass 2: $(cat pass2.log)"
[ "$(mails)" -eq 4 ] || fail "pass 2 sent again"
comments 1 >comments2
cmp -s comments1 comments2 || fail "pass 2 posted: $(cat comments2)"

# -- (b) force-push + /submit: v2 with a range-diff, linked to v1
git -C tree checkout -q topic
echo 'int inode3;' >>tree/fs/ext4/inode.c
git -C tree commit -q -s -a --amend -m 'ext4: add inode2 and inode3' -m 'Two inodes.'
git -C tree checkout -q main
emu_ctl POST /_emu/pulls/kernel/net/1/push "{\"from\":\"$tmp/tree\",\"ref\":\"topic\"}" >/dev/null
comment 1 ada /submit
run pass3 || fail "pass 3: $(cat pass3.log)"
[ "$(mails)" -eq 8 ] || fail "pass 3: $(mails) mails, want 8: $(cat pass3.log)"
$PY - "$tmp/box" "$mid1" <<'PYEOF' || fail "v2 mails are wrong"
import email, mailbox, sys
box = mailbox.Maildir(sys.argv[1], create=False)
mails = [email.message_from_bytes(m.as_bytes()) for m in box]
v2 = [m for m in mails if "PATCH v2" in m["Subject"]]
assert len(v2) == 4, [m["Subject"] for m in mails]
cover = [m for m in v2 if "0/3" in m["Subject"]][0]
assert cover["Subject"] == "[PATCH v2 0/3] three small additions", cover["Subject"]
body = cover.get_payload(decode=True).decode()
assert sys.argv[2] in body, body
assert "Range-diff against v1:" in body, body
assert "ext4: add inode2 and inode3" in body, body
PYEOF
comments 1 | grep -q '^relay-bot: .*sent as v2' || fail "no v2 comment: $(comments 1)"

# -- (c) a PR shaped like the seed junk patch (/work/shared/seeds/001-*):
# "no" -> "yes" inside words over many files: refused, no mail
git -C tree checkout -q -b junk main
for f in tree/Documentation/notes/*.txt; do
	sed 's/no/yes/g' "$f" >"$f.new" && mv "$f.new" "$f"
done
GIT_AUTHOR_NAME='Marc Schuler' GIT_AUTHOR_EMAIL=marc@example.org \
	git -C tree commit -q -a -m "Fixed bug where 'yes' and 'no' are mixed up"
git -C tree checkout -q main
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"marc\",\"title\":\"Fixed bug where yes and no are mixed up\",\"body\":\"\",\"from\":\"$tmp/tree\",\"ref\":\"junk\",\"base\":\"main\"}" >/dev/null
comment 2 marc /submit
run pass3b || fail "pass 3b: $(cat pass3b.log)"
[ "$(mails)" -eq 8 ] || fail "the junk PR sent mail"
comments 2 >comments_junk
grep -q '^relay-bot: .*size-limit/files.*30 files changed, over the fail limit of 20' comments_junk ||
	fail "the refusal does not name size-limit: $(cat comments_junk)"
grep -q "^relay-bot: .*mass-edit/substitution.*'no' -> 'yes' inside words" comments_junk ||
	fail "the refusal does not name mass-edit: $(cat comments_junk)"
# its commit has no Signed-off-by (the other PRs' commits have theirs)
grep -q '^relay-bot: .*msg-lint/signoff-missing' comments_junk ||
	fail "the refusal does not name signoff-missing: $(cat comments_junk)"
[ "$(grep -c '^relay-bot: ' comments_junk)" -eq 1 ] ||
	fail "want one refusal: $(cat comments_junk)"

# -- (d) a stranger's /submit: nothing sent, one comment why, only once
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"another\",\"body\":\"\",\"from\":\"$tmp/tree\",\"ref\":\"topic\",\"base\":\"main\"}" >/dev/null
comment 3 eve /submit
run pass4 || fail "pass 4: $(cat pass4.log)"
[ "$(mails)" -eq 8 ] || fail "a stranger's /submit sent mail"
comment 3 eve '/submit please'
run pass5 || fail "pass 5: $(cat pass5.log)"
[ "$(mails)" -eq 8 ] || fail "a stranger's second /submit sent mail"
comments 3 >comments3
[ "$(grep -c '^relay-bot: ' comments3)" -eq 1 ] ||
	fail "want one comment to the stranger: $(cat comments3)"
grep -q '^relay-bot: @eve: .*author' comments3 || fail "the comment does not say why to eve: $(cat comments3)"

# -- (e) /preview from a deleted fork: only the head author gets it
git -C tree checkout -q -b grace main
echo 'int dev3;' >>tree/net/core/dev.c
GIT_AUTHOR_NAME='Grace Hopper' GIT_AUTHOR_EMAIL=grace@example.org \
	git -C tree commit -q -a -m 'net: add dev3' -m 'The third dev.' \
	-m 'Signed-off-by: Grace Hopper <grace@example.org>'
git -C tree checkout -q main
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"grace\",\"title\":\"dev3\",\"body\":\"\",\"from\":\"$tmp/tree\",\"ref\":\"grace\",\"base\":\"main\"}" >/dev/null
emu_ctl POST /_emu/pulls/kernel/net/4/delete-fork '{}' >/dev/null
curl -sf "$B/repos/kernel/net/pulls/4" | grep -q '"repo": null' ||
	fail "the emulator still shows grace's fork"
comment 4 grace /preview
: >box.log
run pass5b || fail "pass 5b: $(cat pass5b.log)"
[ "$(mails)" -eq 9 ] || fail "pass 5b: $(mails) mails, want 9: $(cat pass5b.log)"
[ "$(wc -l <box.log)" -eq 1 ] || fail "preview: $(cat box.log)"
set -- $(cat box.log)
[ "$#" -eq 2 ] && [ "$2" = grace@example.org ] ||
	fail "the preview went to $*, want only grace@example.org"

# -- (f) an idle poll of 50 open PRs: conditional requests only, all 304
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"bulk\",\"body\":\"\",\"from\":\"$tmp/tree\",\"ref\":\"topic\",\"base\":\"main\",\"count\":46}" >/dev/null
run pass6 || fail "pass 6: $(cat pass6.log)"
emu_ctl POST /_emu/log/clear '{}' >/dev/null
run pass7 || fail "pass 7: $(cat pass7.log)"
emu_ctl GET /_emu/log >idle.json
$PY - idle.json <<'PYEOF' || fail "the idle poll was not all 304"
import json, sys
log = json.load(open(sys.argv[1]))
# /user, the PR list, and the comments of each of the 50 open PRs
assert len(log) == 52, len(log)
bad = [e for e in log if e["status"] != 304 or not e["if_none_match"]]
assert not bad, bad
assert sum("/comments" in e["path"] for e in log) == 50, log
for e in log:
    assert e["auth_scheme"] == "Bearer", e
    assert e["accept"] == "application/vnd.github+json", e
    assert e["api_version"] == "2022-11-28", e
    assert (e["user_agent"] or "").startswith("patchrelay/"), e
PYEOF
[ "$(mails)" -eq 9 ] || fail "the idle poll sent mail"

# -- (g) a 403 rate-limit answer: nothing asked before the reset, the
# pending /submit sent after it
reset=$(($(date +%s) + 4))
emu_ctl POST /_emu/ratelimit "{\"remaining\":0,\"reset\":$reset}" >/dev/null
comment 5 ada /submit
run pass8
grep -qi 'rate limited until' pass8.log || fail "pass 8: $(cat pass8.log)"
emu_ctl GET /_emu/log | grep -q '"status": 403' || fail "pass 8 met no 403"
emu_ctl POST /_emu/log/clear '{}' >/dev/null
run pass9
emu_ctl GET /_emu/log >limited.json
[ "$(cat limited.json)" = "[]" ] || fail "requests while rate limited: $(cat limited.json)"
[ "$(mails)" -eq 9 ] || fail "sent while rate limited"
while [ "$(date +%s)" -le "$reset" ]; do
	sleep 0.5
done
run pass10 || fail "pass 10 (after the reset): $(cat pass10.log)"
[ "$(mails)" -eq 13 ] || fail "pass 10: $(mails) mails, want 13: $(cat pass10.log)"
comments 5 | grep -q '^relay-bot: .*sent as v1' || fail "no comment on PR 5: $(comments 5)"

# the refusal of (c) and the answer of (d) were not repeated by later runs
[ "$(comments 2 | grep -c '^relay-bot: ')" -eq 1 ] || fail "the refusal was repeated: $(comments 2)"
[ "$(comments 3 | grep -c '^relay-bot: ')" -eq 1 ] || fail "the stranger was told again: $(comments 3)"

# -- (h) a bad token: a clear error naming the source, non-zero exit
sed "s|$tmp/state.db|$tmp/state2.db|" relay.conf >bad.conf
GH_TOKEN=tok-wrong "$PATCHRELAY" run -c bad.conf --once >bad.log 2>&1 &&
	fail "a bad token exited 0: $(cat bad.log)"
grep -q "source 'gh'" bad.log || fail "the error does not name the source: $(cat bad.log)"
grep -q '401' bad.log || fail "the error does not say 401: $(cat bad.log)"
grep -q 'tok-wrong' bad.log && fail "the token is in the error: $(cat bad.log)"
# the same with PATCHRELAY_TRACE=http: the requests are traced, the token not
GH_TOKEN=tok-wrong PATCHRELAY_TRACE=http "$PATCHRELAY" run -c bad.conf --once >trace.log 2>&1 &&
	fail "a bad token exited 0 (traced): $(cat trace.log)"
grep -q '^patchrelay: trace \[github:gh\] > GET /user HTTP/1.1$' trace.log ||
	fail "no request line in the http trace: $(cat trace.log)"
grep -qi '^patchrelay: trace \[github:gh\] > Authorization: <redacted>$' trace.log ||
	fail "no redacted Authorization in the http trace: $(cat trace.log)"
grep -q '^patchrelay: trace \[github:gh\] < HTTP/1.[01] 401' trace.log ||
	fail "no 401 in the http trace: $(cat trace.log)"
grep -q 'tok-wrong' trace.log && fail "the token is in the http trace: $(grep tok-wrong trace.log)"
echo "ok"
