#!/bin/sh
# The gitlab source end to end, against tests/emulators/gitlab.py and
# tests/servers/smtpd.py: an MR of 3 commits on the small tree of
# tests/data/route/tree, `/submit` by its author, `run --once` -> 4 mails
# addressed as `patchrelay route` (get_maintainer) says plus the body's
# Cc:, and a note holding the cover's Message-ID; a second run sends
# nothing; a force-push + /submit -> v2 linking v1; an MR over
# size-limit -> a refusal note and no mail; a stranger's /submit
# -> nothing sent and one note why (once); an idle poll of many open MRs
# -> only conditional requests, all 304; a 429 with Retry-After -> the
# next run sends no request at all.
set -u
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || skip "no python3-aiosmtpd"
tmpdir
cd "$tmp" || exit 1

start_emulator gitlab "$tmp/emu"
B=$emu_url
start_smtpd "$tmp/box"

# notes IID: "author: body" lines of an MR's notes, oldest first, users only
notes() {
	curl -sf "$B/api/v4/projects/kernel%2Fnet/merge_requests/$1/notes?sort=asc&per_page=100" |
		$PY -c 'import json, sys
for n in json.load(sys.stdin):
    if not n["system"]:
        print("%s: %s" % (n["author"]["username"], n["body"].replace("\n", " ")))'
}
mails() { mail_count "$tmp/box"; }

git_identity 'Ada Lovelace <ada@example.org>' '1796299200 +0000'
route_tree tree
route_topic tree
git -C tree format-patch -q -3 -o "$tmp/v1" || fail "format-patch"
git -C tree checkout -q main
git clone -q tree mainline || fail "clone mainline"

emu_ctl POST /_emu/users '{"login":"ada","token":"tok-ada","name":"Ada Lovelace","email":"ada@example.org"}' >/dev/null
emu_ctl POST /_emu/users '{"login":"relay-bot","token":"tok-bot"}' >/dev/null
emu_ctl POST /_emu/users '{"login":"eve","token":"tok-eve"}' >/dev/null
emu_ctl POST /_emu/repos "{\"owner\":\"kernel\",\"repo\":\"net\",\"from\":\"$tmp/tree\",\"branch\":\"main\"}" >/dev/null
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"three small additions\",\"body\":\"Why the three are needed.\\n\\nCc: Extra Person <extra@example.org>\",\"from\":\"$tmp/tree\",\"ref\":\"topic\",\"base\":\"main\"}" >/dev/null

cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "gl"]
	type = gitlab
	api-url = $B/api/v4
	project = kernel/net
	token = env:GL_TOKEN
	cache-dir = $tmp/cache
	close = on-merge
	label-landed = merged
[source "mainline"]
	type = git
	url = $tmp/mainline
	watch = main
[check "size"]
	type = size-limit
	max-files = 5
[check "lint"]
	type = msg-lint
[check "maint"]
	type = maintainers
	kernel-tree = $tmp/tree
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$smtpd_port
	starttls = never
	from = Patch Relay <relay@example.org>
	archive-url = https://lore.example.org/r/%m
[route "r"]
	from = gl
	step = size
	step = lint
	step = maint
	to = list
	feedback = gl
[route "landing"]
	from = mainline
	to = list
CONF
export GL_TOKEN=tok-bot
run() { # NAME: run --once, log in NAME.log
	"$PATCHRELAY" run -c relay.conf --once >"$1.log" 2>&1
}

# -- nothing before a trigger
run pass0 || fail "pass 0: $(cat pass0.log)"
[ "$(mails)" -eq 0 ] || fail "sent before /submit"

# -- /submit by the author: 4 mails, addressed as MAINTAINERS says
emu_ctl POST /_emu/comments '{"owner":"kernel","repo":"net","number":1,"user":"ada","body":"/submit"}' >/dev/null
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
got = set(a.lower() for _, a in email.utils.getaddresses(
    cover.get_all("To", []) + cover.get_all("Cc", [])))
assert got == want, (sorted(got), sorted(want))
body = cover.get_payload(decode=True).decode()
assert "Why the three are needed." in body, body
assert "Cc: Extra" not in body, body
open(sys.argv[3], "w").write(cover["Message-ID"].strip("<>") + "\n")
PYEOF
mid1=$(cat v1.ids)
notes 1 >notes1
grep -q "^relay-bot: .*$mid1" notes1 || fail "no note with the Message-ID: $(cat notes1)"

# -- a second run sends nothing and posts nothing
run pass2 || fail "pass 2: $(cat pass2.log)"
[ "$(mails)" -eq 4 ] || fail "pass 2 sent again"
notes 1 >notes2
cmp -s notes1 notes2 || fail "pass 2 posted: $(cat notes2)"

# -- force-push + /submit: v2, linked to v1
git -C tree checkout -q topic
echo 'int inode3;' >>tree/fs/ext4/inode.c
git -C tree commit -q -a --amend -s -m 'ext4: add inode2 and inode3' -m 'Two inodes.'
git -C tree checkout -q main
emu_ctl POST /_emu/pulls/kernel/net/1/push "{\"from\":\"$tmp/tree\",\"ref\":\"topic\"}" >/dev/null
emu_ctl POST /_emu/comments '{"owner":"kernel","repo":"net","number":1,"user":"ada","body":"/submit"}' >/dev/null
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
PYEOF

# mr STATE IID: the MR's state and labels, "opened merged,..."
mr() {
	curl -sf "$B/api/v4/projects/kernel%2Fnet/merge_requests/$1" |
		$PY -c 'import json, sys
m = json.load(sys.stdin)
print(m["state"], ",".join(m["labels"]))'
}
[ "$(mr 1 | cut -d' ' -f1)" = opened ] || fail "on-merge closed the MR at the send: $(mr 1)"

# -- v2's commits land on mainline (cherry-picked: new ids, same patch-ids):
# the MR is told where, labelled and closed (close = on-merge)
git -C mainline fetch -q "$tmp/tree" topic || fail "fetch topic"
git -C mainline cherry-pick main..FETCH_HEAD >/dev/null || fail "cherry-pick"
tip=$(git -C mainline rev-parse main)
run pass3l || fail "pass 3l: $(cat pass3l.log)"
grep -q '1 landed' pass3l.log || fail "pass 3l: nothing landed: $(cat pass3l.log)"
notes 1 >notes_landed
grep -q "^relay-bot: landed in main as $tip" notes_landed ||
	fail "no landed note: $(cat notes_landed)"
[ "$(mr 1)" = "closed merged" ] || fail "after the landing: $(mr 1)"
[ "$(mails)" -eq 8 ] || fail "the landing sent mail"
run pass3m || fail "pass 3m: $(cat pass3m.log)"
notes 1 >notes_landed2
cmp -s notes_landed notes_landed2 || fail "the landing was told twice"

# -- a junk MR (six new files, over size-limit's max-files): a refusal
# note and no mail
git -C tree checkout -q -b junk main
for i in 1 2 3 4 5 6; do
	echo "int junk$i;" >"tree/drivers/net/junk$i.c"
done
git -C tree add -A
git -C tree commit -q -m 'net: junk files'
git -C tree checkout -q main
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"junk\",\"body\":\"\",\"from\":\"$tmp/tree\",\"ref\":\"junk\",\"base\":\"main\"}" >/dev/null
emu_ctl POST /_emu/comments '{"owner":"kernel","repo":"net","number":2,"user":"ada","body":"/submit"}' >/dev/null
run pass3b || fail "pass 3b: $(cat pass3b.log)"
[ "$(mails)" -eq 8 ] || fail "the junk MR sent mail"
notes 2 >notes_junk
grep -q '^relay-bot: .*a check failed.*size/files.*over the fail limit' notes_junk || fail "no refusal note: $(cat notes_junk)"

# -- a stranger's /submit: nothing sent, one note why, and only once
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"another\",\"body\":\"\",\"from\":\"$tmp/tree\",\"ref\":\"topic\",\"base\":\"main\"}" >/dev/null
emu_ctl POST /_emu/comments '{"owner":"kernel","repo":"net","number":3,"user":"eve","body":"/submit"}' >/dev/null
run pass4 || fail "pass 4: $(cat pass4.log)"
[ "$(mails)" -eq 8 ] || fail "a stranger's /submit sent mail"
run pass5 || fail "pass 5: $(cat pass5.log)"
notes 3 >notes3
[ "$(grep -c '^relay-bot: ' notes3)" -eq 1 ] ||
	fail "want one note to the stranger: $(cat notes3)"
grep -q '^relay-bot: .*eve' notes3 || fail "the note does not name eve: $(cat notes3)"

# -- an idle poll of many open MRs: conditional requests only, all 304
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"bulk\",\"body\":\"\",\"from\":\"$tmp/tree\",\"ref\":\"topic\",\"base\":\"main\",\"count\":30}" >/dev/null
run pass6 || fail "pass 6: $(cat pass6.log)"
emu_ctl POST /_emu/log/clear '{}' >/dev/null
run pass7 || fail "pass 7: $(cat pass7.log)"
emu_ctl GET /_emu/log >idle.json
$PY - idle.json <<'PYEOF' || fail "the idle poll was not all 304"
import json, sys
log = json.load(open(sys.argv[1]))
assert log, "no request at all"
bad = [e for e in log if e["status"] != 304 or not e["if_none_match"]]
assert not bad, bad
PYEOF
[ "$(mails)" -eq 8 ] || fail "the idle poll sent mail"

# -- a 429 with Retry-After: the next run before the deadline asks nothing
emu_ctl POST /_emu/fail '{"match":"merge_requests","status":429,"headers":{"Retry-After":"3600"},"count":1}' >/dev/null
emu_ctl POST /_emu/comments '{"owner":"kernel","repo":"net","number":4,"user":"ada","body":"/submit"}' >/dev/null
run pass8
grep -qi 'rate limited until' pass8.log || fail "pass 8: $(cat pass8.log)"
emu_ctl POST /_emu/log/clear '{}' >/dev/null
run pass9
emu_ctl GET /_emu/log >limited.json
[ "$(cat limited.json)" = "[]" ] || fail "requests while rate limited: $(cat limited.json)"
[ "$(mails)" -eq 8 ] || fail "sent while rate limited"
echo "ok"
