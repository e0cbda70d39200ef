#!/bin/sh
# Review trailers follow a series to a mail sink, as b4 sends a series on
# with the reviews it got: a GitHub pull request (tests/emulators/github.py)
# mailed to a list (aiosmtpd; the list a real public-inbox-httpd):
# (a) v1 of the PR (3 patches) is mailed, and the mails reach the list;
# (b) on the list, Rob's Reviewed-by to patch 1 and Ann's Acked-by to
#     patch 2; on GitHub, Grace's line comment with a Tested-by on patch
#     3's line; each crosses once;
# (c) v2 of the PR (patch 2 changed, 1 and 3 the same changes) is mailed
#     with the trailers as `patchrelay am` would apply them: Reviewed-by
#     in patch 1 and Tested-by in patch 3, each in the trailer block after
#     the Signed-off-by, once; the changed patch 2 has no Acked-by; the
#     cover letter gets none; v1's mails stay as sent; git am of the v2
#     mail keeps the trailer in the commit.
. "$(dirname "$0")/relay_lib.sh"

relay_tree
# the list holds no series yet: one mail of another thread
printf 'From: Someone <someone@example.org>\nTo: list@example.org\nSubject: hello\nDate: Thu, 3 Dec 2026 10:00:00 +0000\nMessage-ID: <hello@example.org>\n\nHello list.\n' >hello.eml
relay_pi hello.eml
relay_emulator github
relay_smtpd
relay_conf github repo trigger=auto
emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"three small additions\",\"body\":\"Why the three are needed.\",\"from\":\"$tmp/tree\",\"ref\":\"topic\",\"base\":\"main\"}" >/dev/null

# the mail of [PATCH vN i/3] aiosmtpd took (none: empty)
mail_of() {
	grep -l "^Subject: \[PATCH $1\]" box/new/* 2>/dev/null | head -n 1
}
mid_of() { tr -d '\r' <"$1" | sed -n 's/^Message-Id: <\(.*\)>$/\1/Ip' | head -n 1; }
# trailers FILE: the body's lines from the first Signed-off-by to "---"
trailers() {
	tr -d '\r' <"$1" | sed -n '/^Signed-off-by:/,/^---$/p' | grep -v '^---$'
}

# ---- (a) v1 mailed
run_once
[ "$(mails)" = 4 ] || fail "v1: $(mails) mails: $(tail run.log)"
c1=$(mid_of "$(mail_of '0/3')")
m1=$(mid_of "$(mail_of '1/3')")
m2=$(mid_of "$(mail_of '2/3')")
[ -n "$c1" ] && [ -n "$m1" ] && [ -n "$m2" ] || fail "v1's mails"
list_add box/new/*

# ---- (b) trailers on both sides
reply r1.eml 'Rob Reviewer <rob@example.org>' 'Re: [PATCH 1/3] a: add two' \
	"$m1" "<$c1> <$m1>" 'Reviewed-by: Rob Reviewer <rob@example.org>'
reply r2.eml 'Ann Acker <ann@example.org>' 'Re: [PATCH 2/3] b: add y' \
	"$m2" "<$c1> <$m2>" 'Acked-by: Ann Acker <ann@example.org>'
list_add r1.eml r2.eml
head=$(git -C tree rev-parse topic)
api POST /repos/kernel/net/pulls/1/comments tok-grace \
	"{\"body\":\"Works here.\\n\\nTested-by: Grace Hopper <grace@example.org>\",\"path\":\"a.txt\",\"line\":3,\"commit_id\":\"$head\"}" >/dev/null
run_once
[ "$(mails)" = 5 ] || fail "Grace's comment: $(mails) mails: $(tail run.log)"
run_once
[ "$(mails)" = 5 ] || fail "a second pass mailed: $(mails)"

# ---- (c) v2: the trailers of the unchanged patches go with it
emu_ctl POST /_emu/pulls/kernel/net/1/push "{\"from\":\"$tmp/tree\",\"ref\":\"topic2\"}" >/dev/null
run_once
[ "$(mails)" = 9 ] || fail "v2: $(mails) mails: $(tail run.log)"
v21=$(mail_of 'v2 1/3') && v22=$(mail_of 'v2 2/3') && v23=$(mail_of 'v2 3/3') &&
	v20=$(mail_of 'v2 0/3') && [ -n "$v21" ] && [ -n "$v23" ] ||
	fail "v2's mails"
trailers "$v21" >t1
trailers "$v22" >t2
trailers "$v23" >t3
printf 'Signed-off-by: Ada Lovelace <ada@example.org>\nReviewed-by: Rob Reviewer <rob@example.org>\n' >want1
printf 'Signed-off-by: Ada Lovelace <ada@example.org>\n' >want2
printf 'Signed-off-by: Ada Lovelace <ada@example.org>\nTested-by: Grace Hopper <grace@example.org>\n' >want3
cmp -s want1 t1 || fail "v2 1/3: $(cat t1)"
cmp -s want2 t2 || fail "v2 2/3: $(cat t2)"
cmp -s want3 t3 || fail "v2 3/3: $(cat t3)"
grep -q 'Reviewed-by\|Tested-by\|Acked-by' "$v20" && fail "the cover got trailers"
# v1's mails were sent before any review: none has a trailer added
for f in "$(mail_of '1/3')" "$(mail_of '3/3')"; do
	grep -q 'Reviewed-by\|Tested-by' "$f" && fail "v1 changed: $f"
done
# the patch mails are still what git am takes: the trailers in the commit
git clone -q tree am
(cd am && git checkout -q main && tr -d "\r" <"$tmp/$v21" >p1.eml &&
	git am -q p1.eml) || fail "git am of v2 1/3"
git -C am log -1 --format=%B | grep -q '^Reviewed-by: Rob Reviewer' ||
	fail "git am lost the trailer"
exit 0
