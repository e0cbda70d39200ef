#!/bin/sh
# The gerrit sink end to end: series read from mbox files (as mailed by
# git format-patch --cover-letter --thread) pushed to the emulator's
# refs/for/master over ssh (libgit2's transport, the host key checked):
# (a) v1 of 3 patches -> 3 new changes in one topic, each commit with the
#     mail's author, a Link: to the archive and a Change-Id;
# (b) v2 with a patch inserted in the middle -> the same 3 changes get a
#     second patch set (the same Change-Ids, paired as range-diff pairs
#     them) and one change is added, in the same topic; the Change-Ids
#     and change URLs are in the store's identity map;
# (c) a second pass pushes nothing; with bridge = true, a list reply to
#     a v1 patch becomes a review message on that change's patch set 1;
# (d) a patch whose own Change-Id line is malformed is refused by Gerrit
#     ("multiple Change-Id lines"): the delivery is rejected for good with
#     Gerrit's reason and never pushed again;
# (e) an unknown host key fails the push, naming the host, and the
#     version stays pending; with the right known_hosts it goes.
set -u
NAME=gerrit_sink.sh
SMTP=0
. "$PR_SRC/tests/integration/gerrit_lib.sh"

git clone -q tree mail || fail "clone"
git -C mail checkout -q -b s
export GIT_AUTHOR_NAME='Bea Mailer' GIT_AUTHOR_EMAIL=bea@example.org
for f in drivers/net/foo/foo.c net/core/dev.c fs/ext4/inode.c; do
	b=$(basename $f .c)
	echo "int y_$b;" >>"mail/$f"
	git -C mail commit -q -s -a -m "$b: add y" -m "Because of $b." ||
		fail "commit $b"
done
mkdir ml
git -C mail format-patch -q --cover-letter --thread -3 --stdout >ml/v1.mbox ||
	fail "format-patch v1"
mid1=$(grep -i -m1 '^Message-ID:' ml/v1.mbox | sed 's/.*<\(.*\)>.*/\1/')

conf() { # FILE KNOWN_HOSTS
	cat >"$1" <<CONF
[core]
	state = $tmp/state.db
[source "ml"]
	type = mbox
	path = $tmp/ml
[sink "gr"]
	type = gerrit
	ssh-url = $GERRIT_SSH_URL
	ssh-key = $GERRIT_KEY_relay
	known-hosts = $2
	rest-url = $GERRIT_REST_URL
	user = relay
	password = env:GR_PW
	project = kernel
	branch = master
	cache-dir = $tmp/cache
	archive-url = https://lore.example.org/r/%m
[route "in"]
	from = ml
	to = gr
CONF
}
conf relay.conf "$GERRIT_KNOWN_HOSTS"
export GR_PW="$GERRIT_HTTP_PASSWORD_relay"
run() { # NAME [CONF]
	"$PATCHRELAY" run -c "${2:-relay.conf}" --once >"$1.log" 2>&1
}
# changes: "number topic patchsets author change-id has-link" lines
changes() {
	rest "/changes/?q=project:kernel+status:open&o=ALL_REVISIONS&o=ALL_COMMITS" |
		$PY -c 'import json, re, sys
for c in sorted(json.load(sys.stdin), key=lambda c: c["_number"]):
    r = c["revisions"][c["current_revision"]]
    m = r["commit"]["message"]
    print(c["_number"], c.get("topic"), len(c["revisions"]),
          r["commit"]["author"]["email"], c["change_id"],
          "link" if re.search(r"^Link: https://lore.example.org/r/", m, re.M) else "nolink",
          c["subject"].replace(" ", "_"))'
}

# -- (a) v1: three changes in one topic
run pass1 || fail "pass 1: $(cat pass1.log)"
changes >c1
[ "$(wc -l <c1)" -eq 3 ] || fail "want 3 changes: $(cat c1) $(cat pass1.log)"
[ "$(cut -d' ' -f2 c1 | sort -u | wc -l)" -eq 1 ] || fail "not one topic: $(cat c1)"
grep -q 'None' c1 && fail "a change has no topic: $(cat c1)"
[ "$(grep -c ' 1 bea@example.org I[0-9a-f]* link ' c1)" -eq 3 ] ||
	fail "author, Change-Id or Link missing: $(cat c1)"
topic=$(head -n 1 c1 | cut -d' ' -f2)

# -- (b) v2 with one patch inserted in the middle
git -C mail checkout -q -b s2 s~1
echo 'int z;' >>mail/net/core/dev.c
git -C mail commit -q -s -a -m 'dev: add z' -m 'Inserted in v2.' || fail "commit z"
git -C mail cherry-pick s >/dev/null || fail "cherry-pick"
# format-patch names a patch's mail "COMMIT.TIME.git.EMAIL", TIME the
# second it runs: made in the same second as v1, the unchanged patches'
# v2 mails would carry v1's very Message-IDs (mails already seen), and
# their commits (Link: to the same mail) would be the ones Gerrit has.
sleep 1
git -C mail format-patch -q -v2 --cover-letter --thread --in-reply-to="$mid1" \
	-4 --stdout >ml/v2.mbox || fail "format-patch v2"
run pass2 || fail "pass 2: $(cat pass2.log)"
changes >c2
[ "$(wc -l <c2)" -eq 4 ] || fail "want 4 changes: $(cat c2) $(cat pass2.log)"
[ "$(cut -d' ' -f2 c2 | sort -u)" = "$topic" ] || fail "v2 left the topic: $(cat c2)"
for subj in foo:_add_y dev:_add_y inode:_add_y; do
	old=$(grep " $subj\$" c1 | cut -d' ' -f1,5)
	new=$(grep " $subj\$" c2 | cut -d' ' -f1,5)
	[ "$old" = "$new" ] || fail "$subj: change or Change-Id moved: $old -> $new"
	grep " $subj\$" c2 | grep -q "^[0-9]* $topic 2 " ||
		fail "$subj: no second patch set: $(cat c2)"
done
grep " dev:_add_z\$" c2 | grep -q "^[0-9]* $topic 1 bea@example.org" ||
	fail "the inserted patch is no new change: $(cat c2)"
sqlite3 state.db "select kind, value from identities" >ids
[ "$(grep -c '^gerrit-ids:gr:v[12]|' ids)" -eq 2 ] || fail "no Change-Ids kept: $(cat ids)"
[ "$(grep -c '^gerrit-change:gr|.*/c/kernel/+/' ids)" -eq 4 ] ||
	fail "the change URLs are not kept: $(cat ids)"

# -- (c) a second pass pushes nothing
run pass3 || fail "pass 3: $(cat pass3.log)"
changes >c3
cmp -s c2 c3 || fail "pass 3 pushed: $(cat c3)"
grep -q pushed pass3.log && fail "pass 3 pushed: $(cat pass3.log)"

# -- (c2) with bridge = true, a list reply to v1's foo patch goes on patch
# set 1 of its change (the one it answers), not on the current one
foo1=$(grep -i '^Message-ID:' ml/v1.mbox | sed -n '2s/.*<\(.*\)>.*/\1/p')
cat >ml/reply.mbox <<MBOX
From rob@example.org Thu Dec  3 10:00:00 2026
From: Rob Reviewer <rob@example.org>
To: list@example.org
Subject: Re: [PATCH 1/3] foo: add y
Date: Thu, 3 Dec 2026 10:00:00 +0000
Message-ID: <reply-foo@example.org>
In-Reply-To: <$foo1>
References: <$mid1> <$foo1>

Why y?

Reviewed-by: Rob Reviewer <rob@example.org>
MBOX
sed 's/^\[route "in"\]$/&\n\tbridge = true/' relay.conf >bridge.conf
run pass3b bridge.conf || fail "pass 3b: $(cat pass3b.log)"
nfoo=$(grep ' foo:_add_y$' c2 | cut -d' ' -f1)
rest "/changes/$nfoo?o=MESSAGES" | $PY -c 'import json, sys
m = [x for x in json.load(sys.stdin)["messages"]
     if x.get("tag", "").startswith("patchrelay:relay:")]
assert len(m) == 1, m
assert m[0]["_revision_number"] == 1, m[0]
assert "Why y?" in m[0]["message"], m[0]' ||
	fail "the reply is not on patch set 1 of $nfoo: $(cat pass3b.log)"

# -- (d) Gerrit's refusal is final, with its reason
git -C mail checkout -q -b bad master
echo 'int bad;' >>mail/fs/ext4/inode.c
git -C mail commit -q -s -a -m 'ext4: bad id' -m 'Change-Id: I1234' ||
	fail "commit bad"
git -C mail format-patch -q -1 --stdout >ml/bad.mbox || fail "format-patch bad"
run pass4 || true
grep -q "rejected message 1/1: Gerrit refused the push: .*multiple Change-Id lines" pass4.log ||
	fail "no rejection with Gerrit's reason: $(cat pass4.log)"
run pass5 || true
grep -q pushed pass5.log && fail "a rejected version was pushed again"
"$PATCHRELAY" status -c relay.conf >status.out 2>&1
grep -q 'rejected' status.out || fail "status does not show the rejection: $(cat status.out)"

# -- (e) an unknown host key: an error, the version kept for later
git -C mail checkout -q -b late master
echo 'int late;' >>mail/drivers/net/foo/foo.c
git -C mail commit -q -s -a -m 'foo: late' || fail "commit late"
git -C mail format-patch -q -1 --stdout >ml/late.mbox || fail "format-patch late"
: >no_hosts
conf unknown.conf "$tmp/no_hosts"
run pass6 unknown.conf && fail "an unknown host key was taken: $(cat pass6.log)"
grep -q "host key of '127.0.0.1' port $GERRIT_SSH_PORT is not in '$tmp/no_hosts'" pass6.log ||
	fail "unknown host key: $(cat pass6.log)"
changes | grep -q ' foo:_late$' && fail "pushed despite the host key"
run pass7 || fail "pass 7: $(cat pass7.log)"
changes | grep -q ' foo:_late$' || fail "the late version was lost: $(cat pass7.log)"
exit 0
