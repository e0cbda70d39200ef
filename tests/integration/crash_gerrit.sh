#!/bin/sh
# kill -9 of `patchrelay run --once` at random points while the gerrit
# sink pushes and the gerrit source mails, against the Gerrit emulator
# behind a real sshd and aiosmtpd: 20 rounds of new work, a kill, then a
# pass to its end.  Each round a series of two patches lands in ml/ (the
# sink "gs" pushes it to project sink: two new changes) and change 1 of
# project kernel gets a new patch set (the source "gr" mails it, and
# posts a review with Verified +1 back).  Counted at the servers after
# each round: every series pushed is two changes of one patch set each
# (a push repeated after a kill would be a second patch set, or "no new
# changes"), one patchset-created event each; every patch set of change 1
# mailed, a repeat only of the same Message-ID (the SMTP window: a kill
# between the server's 250 and the store's record) and at most one a
# kill; one review by relay on each patch set mailed.  Prints the counts.
set -u
. "$(dirname "$0")/lib.sh"
NAME=crash_gerrit.sh
. "$PR_SRC/tests/integration/gerrit_lib.sh"

ctl create-project name=sink from="$tmp/tree" >/dev/null
clone alice work
commit work drivers/net/foo/foo.c 'foo: crash'
push alice work HEAD:refs/for/master >push.out
grep -q '/c/kernel/+/1 foo: crash \[NEW\]' push.out ||
	fail "no change 1: $(cat push.out)"
git clone -q tree mail || fail "clone"
mkdir ml
{
	conf_section core "state=$tmp/state.db"
	conf_section 'source "gr"' type=gerrit "ssh-url=$GERRIT_SSH_URL" \
		"ssh-key=$GERRIT_KEY_relay" "known-hosts=$GERRIT_KNOWN_HOSTS" \
		"rest-url=$GERRIT_REST_URL" user=relay password=env:GR_PW \
		project=kernel trigger=auto series=change max-commits=0 \
		verified-label=Verified "cache-dir=$tmp/cache"
	conf_section 'source "ml"' type=mbox "path=$tmp/ml"
	conf_section 'sink "list"' type=smtp \
		"url=smtp://127.0.0.1:$(cat smtp.port)" starttls=never \
		'from=Patch Relay <relay@example.org>' to=list@example.org
	conf_section 'sink "gs"' type=gerrit "ssh-url=$GERRIT_SSH_URL" \
		"ssh-key=$GERRIT_KEY_relay" "known-hosts=$GERRIT_KNOWN_HOSTS" \
		"rest-url=$GERRIT_REST_URL" user=relay password=env:GR_PW \
		project=sink branch=master "cache-dir=$tmp/cache-gs"
	conf_section 'route "in"' from=gr to=list feedback=gr
	conf_section 'route "out"' from=ml to=gs
} >relay.conf
export GR_PW="$GERRIT_HTTP_PASSWORD_relay"

# next R: round R's work: a series of two patches in ml/, a patch set
next() {
	git -C mail checkout -q -b "r$1" master || fail "round $1: branch"
	for f in net/core/dev.c fs/ext4/inode.c; do
		echo "int r$1_$(basename $f .c);" >>"mail/$f"
		git -C mail commit -q -s -a -m "$(basename $f .c): round $1" \
			-m "Round $1." || fail "round $1: commit"
	done
	git -C mail format-patch -q --cover-letter --thread -2 --stdout \
		>"ml/r$1.mbox" || fail "round $1: format-patch"
	ctl patchset change=1 user=alice >/dev/null
}
# check R: the counts at the servers after round R's pass
check() {
	$GERRIT_CTL state >state.json || fail "round $1: state"
	$PY - state.json "$1" "$tmp/box" "$kills" >counts <<'PYEOF' ||
import collections, email, json, mailbox, sys
d = json.load(open(sys.argv[1]))
r, kills = int(sys.argv[2]), int(sys.argv[4])
changes = d["changes"]
changes = changes.values() if isinstance(changes, dict) else changes
sink = [c for c in changes if c["project"] == "sink"]
# each series pushed once: two changes of one patch set each
assert len(sink) == 2 * (r + 1), ("sink changes", len(sink), 2 * (r + 1))
assert all(len(c["patch_sets"]) == 1 for c in sink), \
    [(c["number"], len(c["patch_sets"])) for c in sink]
events = [json.loads(l)["event"] for l in open(sys.argv[1].replace(
    "state.json", "emu/events.jsonl"))]
created = collections.Counter(
    e["change"]["number"] for e in events
    if e["type"] == "patchset-created" and e["change"]["project"] == "sink")
assert sorted(created.values()) == [1] * len(sink), created
# change 1: every patch set mailed, a repeat only of the same Message-ID
kernel = [c for c in changes if c["project"] == "kernel"][0]
pss = len(kernel["patch_sets"])
box = mailbox.Maildir(sys.argv[3], create=False)
mails = [email.message_from_bytes(m.as_bytes()) for m in box]
ids = collections.Counter(m["Message-ID"] for m in mails)
subjects = collections.Counter(m["Subject"] for m in mails)
per_subject = collections.defaultdict(set)
for m in mails:
    per_subject[m["Subject"]].add(m["Message-ID"])
# patch set 1 is older than the first pass: patch sets 2.. are v1..
assert len(subjects) == pss - 1, ("versions mailed", sorted(subjects), pss)
assert all(len(v) == 1 for v in per_subject.values()), per_subject
repeats = len(mails) - len(ids)
assert repeats <= kills, ("repeats", repeats, kills)
# one review by relay on each patch set mailed
reviews = collections.Counter(m["ps"] for m in kernel["messages"]
                              if m["author"] == "relay")
assert reviews == {ps: 1 for ps in range(2, pss + 1)}, reviews
print("%d changes pushed (%d patch sets), %d versions mailed in %d mails "
      "(%d repeated), %d reviews" % (len(sink), sum(created.values()),
                                     pss - 1, len(mails), repeats,
                                     sum(reviews.values())))
PYEOF
		fail "round $1: the counts: $(cat counts)"
}
crash_rounds 20 relay.conf next check
echo "$NAME: $kills kills during a pass, $cut of them while a sink was at work; at the servers: $(cat counts)"
echo "$NAME: ok"
