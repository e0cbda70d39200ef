#!/bin/sh
# One report, every place that shows it (a route's report-to): a branch of
# two patches read by a git source goes, through an exec check, to a
# GitHub PR, a GitLab MR, Gerrit changes and the list (aiosmtpd), and the
# check's report shows
# (a) as a GitHub commit status and a GitLab commit status on the head of
#     the PR and the MR, a Gerrit review with a Verified +1 and a message
#     on each change, and one reply to the cover letter on the list;
# (b) once Patchwork has the list's mails, as a Patchwork check on each
#     patch, when the version is read again; nothing else is posted again;
# (c) read again once more: nothing new anywhere;
# (d) the check now fails: each place shows it once more (a failure
#     status, a failed status, Verified -1 with the finding, a fail check
#     per patch, a second reply); read again: nothing new;
# (e) a series from a pull request (a github source) gets the status on
#     the PR's head, under the default context patchrelay/ROUTE.
# The emulators log what they were asked: the counts are of their writes.
# First, `patchrelay graph` refuses a report-to that cannot show a report.
set -u
NAME=report_fanout.sh
SMTP=1
. "$PR_SRC/tests/integration/gerrit_lib.sh"

emus=
trap 'for p in $emus; do kill "$p" 2>/dev/null; done; cleanup' EXIT
# emulator NAME VAR: tests/emulators/NAME.py under emu-NAME/, its URL in VAR
emulator() {
	$PY "$PR_SRC/tests/emulators/$1.py" --root "$tmp/emu-$1" \
		--port-file "$tmp/$1.port" >/dev/null 2>>"$tmp/$1.err" &
	emus="$emus $!"
	wait_file "$tmp/$1.port" "$tmp/$1.err" "the $1 emulator"
	eval "$2=http://127.0.0.1:$(cat "$tmp/$1.port")"
}
ctl_post() { # URL PATH JSON
	curl -sf -X POST -H 'Content-Type: application/json' -d "$3" "$1$2" \
		>/dev/null || fail "POST $1$2 failed"
}
emulator github GH
emulator gitlab GL
emulator patchwork PW
for u in "$GH" "$GL"; do
	ctl_post "$u" /_emu/users '{"login":"relay-bot","token":"tok-bot"}'
	ctl_post "$u" /_emu/repos "{\"owner\":\"kernel\",\"repo\":\"net\",\"from\":\"$tmp/tree\",\"branch\":\"master\"}"
done
ctl_post "$PW" /_emu/projects '{"link_name":"netdev","list_id":"netdev.example.org","maintainers":["ci"]}'
ctl_post "$PW" /_emu/users '{"login":"ci","token":"ci-token","email":"ci@example.org"}'
export GH_TOKEN=tok-bot PW_TOKEN=ci-token GR_PW="$GERRIT_HTTP_PASSWORD_relay"

# the branch: two patches on master
git clone -q tree work || fail "clone"
git -C work checkout -q -b topic
for f in drivers/net/foo/foo.c net/core/dev.c; do
	b=$(basename $f .c)
	echo "int r_$b;" >>"work/$f"
	git -C work commit -q -s -a -m "$b: add r" -m "Because of $b." ||
		fail "commit $b"
done

# the check: it fails once broken/ is there
cat >gate.sh <<'SH'
cat >/dev/null
if test -e "$(dirname "$0")/broken"; then echo "gate: it broke"; exit 1; fi
SH
cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "work"]
	type = git
	url = $tmp/work
	branch = topic
	base = master
[check "gate"]
	type = exec
	command = sh
	command = $tmp/gate.sh
[sink "gh"]
	type = github
	api-url = $GH
	repo = kernel/net
	token = env:GH_TOKEN
	base = master
[sink "gl"]
	type = gitlab
	api-url = $GL/api/v4
	project = kernel/net
	token = env:GH_TOKEN
	base = master
[sink "gr"]
	type = gerrit
	ssh-url = $GERRIT_SSH_URL
	ssh-key = $GERRIT_KEY_relay
	known-hosts = $GERRIT_KNOWN_HOSTS
	rest-url = $GERRIT_REST_URL
	user = relay
	password = env:GR_PW
	project = kernel
	branch = master
	verified-label = Verified
	cache-dir = $tmp/cache
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$(cat smtp.port)
	starttls = never
	from = Patch Relay <relay@example.org>
	to = netdev@example.org
[sink "pw"]
	type = patchwork
	api-url = $PW/api/
	project = netdev
	token = env:PW_TOKEN
[route "ci"]
	from = work
	step = gate
	to = gh
	to = gl
	to = gr
	to = list
	report-to = gh
	report-to = gl
	report-to = gr
	report-to = pw
	report-to = list
	report-context = kbuild/boot
CONF
# a sink that cannot show a report (a maildir names no sender) is refused
{ cat relay.conf; printf '[sink "box"]\n\ttype = maildir\n\tpath = %s/mdir\n[route "bad"]\n\tfrom = work\n\tto = box\n\treport-to = box\n\treport-to = nowhere\n' "$tmp"; } >bad.conf
"$PATCHRELAY" graph -c bad.conf >bad.log 2>&1 && fail "bad.conf taken"
grep -q "route.bad.report-to: connector 'maildir' of 'box' cannot show a report" bad.log ||
	fail "bad.conf: $(cat bad.log)"
grep -q "route.bad.report-to: unknown source or sink 'nowhere'" bad.log ||
	fail "bad.conf: $(cat bad.log)"
"$PATCHRELAY" graph -c relay.conf >graph.log 2>&1 || fail "graph: $(cat graph.log)"
grep -q '^    report-to = pw$' graph.log || fail "graph: $(cat graph.log)"

run() { # NAME
	GIT_COMMITTER_DATE='@1796400000 +0000' \
		"$PATCHRELAY" run -c relay.conf --once >"$1.log" 2>&1 ||
		fail "$1: $(cat "$1.log")"
}
# the source reads the branch again (its cursor lost): the same version
reread() {
	sqlite3 state.db "DELETE FROM cursors" || fail "sqlite3"
}
# writes URL REGEX: the API writes (2xx POSTs) of the emulator at URL
# whose path matches REGEX
writes() {
	curl -sf "$1/_emu/log" | $PY -c 'import json, re, sys
print(sum(1 for r in json.load(sys.stdin) if r["method"] == "POST"
          and 200 <= r["status"] < 300 and re.search(sys.argv[1], r["path"])))' "$2"
}
# gh_statuses [SHA]: "state|context|description" of the statuses of SHA
# (default: the head of the first PR), newest first
gh_statuses() {
	sha=${1:-$(curl -sf -H 'User-Agent: t' "$GH/repos/kernel/net/pulls?state=all" |
		$PY -c 'import json, sys; print(json.load(sys.stdin)[-1]["head"]["sha"])')} ||
		fail "no pull request"
	curl -sf -H 'User-Agent: t' "$GH/repos/kernel/net/commits/$sha/statuses" |
		$PY -c 'import json, sys
for s in json.load(sys.stdin):
    print("%s|%s|%s" % (s["state"], s["context"], s["description"]))'
}
gl_statuses() {
	sha=$(curl -sf "$GL/api/v4/projects/kernel%2Fnet/merge_requests" |
		$PY -c 'import json, sys; print(json.load(sys.stdin)[0]["sha"])') ||
		fail "no merge request"
	curl -sf "$GL/api/v4/projects/kernel%2Fnet/repository/commits/$sha/statuses?all=true" |
		$PY -c 'import json, sys
for s in json.load(sys.stdin):
    print("%s|%s|%s" % (s["status"], s["name"], s["description"]))'
}
changes() {
	rest "/changes/?q=project:kernel" | $PY -c 'import json, sys
for c in sorted(json.load(sys.stdin), key=lambda c: c["_number"]):
    print(c["_number"])'
}
# reviews N: the messages of change N that patchrelay's reports made
reviews() { messages "$1" | grep '^relay|autogenerated:patchrelay|.*kbuild/boot: '; }
# pw_checks: "patch-name|state|context" of every check, oldest first
pw_checks() {
	curl -sf "$PW/api/patches/?project=netdev" | $PY -c 'import json, sys, urllib.request
for p in sorted(json.load(sys.stdin), key=lambda p: p["id"]):
    for c in json.load(urllib.request.urlopen(p["checks"])):
        print("%s|%s|%s" % (p["name"], c["state"], c["context"]))'
}
# replies: the list's mails that answer the cover letter with a report
replies() { grep -l '^kbuild/boot: ' "$tmp"/box/new/* 2>/dev/null | wc -l; }

# -- (a) pass 1: sent everywhere, the report shown everywhere but Patchwork
run pass1
gh_statuses >gh1
[ "$(cat gh1)" = "success|kbuild/boot|passed" ] ||
	fail "github status: $(cat gh1) $(cat pass1.log)"
gl_statuses >gl1
[ "$(cat gl1)" = "success|kbuild/boot|passed" ] ||
	fail "gitlab status: $(cat gl1) $(cat pass1.log)"
changes >ch
[ "$(wc -l <ch)" -eq 2 ] || fail "want 2 changes: $(cat ch) $(cat pass1.log)"
for n in $(cat ch); do
	[ "$(vote "$n" Verified)" = 1 ] || fail "change $n: no Verified +1"
	[ "$(reviews "$n" | wc -l)" -eq 1 ] || fail "change $n: $(messages "$n")"
	reviews "$n" | grep -q 'kbuild/boot: PASS' || fail "change $n: $(messages "$n")"
done
[ "$(mails)" -eq 4 ] || fail "want 3 mails and a reply: $(ls box/new)"
[ "$(replies)" -eq 1 ] || fail "want one reply"
reply=$(grep -l '^kbuild/boot: ' box/new/*)
cover=$(grep -l '^Subject: \[PATCH 0/2\]' box/new/*)
mid=$(tr -d "\r" <"$cover" | sed -n 's/^Message-I[Dd]: <\(.*\)>$/\1/p' | head -n 1)
grep -q "^In-Reply-To: <$mid>" "$reply" ||
	fail "the reply answers no cover: $(cat "$reply")"
grep -q '^Subject: Re: \[PATCH 0/2\]' "$reply" || fail "reply subject: $(cat "$reply")"
grep -q '^To: netdev@example.org' "$reply" || fail "reply To: $(cat "$reply")"
[ "$(writes "$PW" /checks/)" -eq 0 ] || fail "patchwork checked what it lacks"

# -- (b) Patchwork gets the list's mails; the version is read again
$PY - "$tmp/box/new" >list.mbox <<'PYEOF' || fail "list.mbox"
import os, sys
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    m = open(os.path.join(d, f)).read()
    if "\nkbuild/boot: " in m:
        continue
    print("From list@example.org Thu Jan  1 00:00:00 1970")
    print("List-Id: <netdev.example.org>")
    print(m.rstrip("\n") + "\n")
PYEOF
$PY -c 'import json, sys; print(json.dumps({"mbox": open(sys.argv[1]).read()}))' \
	list.mbox >feed.json
curl -sf -X POST -H 'Content-Type: application/json' -d @feed.json \
	"$PW/_emu/mail" >/dev/null || fail "feeding patchwork"
gh_w=$(writes "$GH" /statuses/)
gl_w=$(writes "$GL" /statuses/)
reread
run pass2
pw_checks | sort >pw2
[ "$(cat pw2)" = "[1/2] foo: add r|success|kbuild-boot
[2/2] dev: add r|success|kbuild-boot" ] ||
	fail "patchwork checks: $(cat pw2) $(cat pass2.log)"
[ "$(writes "$GH" /statuses/)" = "$gh_w" ] || fail "github posted again"
[ "$(writes "$GL" /statuses/)" = "$gl_w" ] || fail "gitlab posted again"
for n in $(cat ch); do
	[ "$(reviews "$n" | wc -l)" -eq 1 ] || fail "gerrit again: $(messages "$n")"
done
[ "$(replies)" -eq 1 ] || fail "a second reply"

# -- (c) read again: nothing new anywhere
reread
run pass3
[ "$(writes "$GH" /statuses/)" = "$gh_w" ] || fail "github posted again (3)"
[ "$(writes "$GL" /statuses/)" = "$gl_w" ] || fail "gitlab posted again (3)"
[ "$(writes "$PW" /checks/)" -eq 2 ] || fail "patchwork posted again (3)"
for n in $(cat ch); do
	[ "$(reviews "$n" | wc -l)" -eq 1 ] || fail "gerrit again (3)"
done
[ "$(replies)" -eq 1 ] || fail "a second reply (3)"

# -- (d) the check fails now: shown once more everywhere, then no more
: >broken
reread
run pass4
gh_statuses >gh4
broke="gate: 'sh' exited with status 1: gate: it broke"
[ "$(head -n 1 gh4)" = "failure|kbuild/boot|$broke" ] ||
	fail "github failure: $(cat gh4) $(cat pass4.log)"
[ "$(wc -l <gh4)" -eq 2 ] || fail "github statuses: $(cat gh4)"
gl_statuses >gl4
[ "$(tail -n 1 gl4)" = "failed|kbuild/boot|$broke" ] ||
	fail "gitlab failed: $(cat gl4)"
for n in $(cat ch); do
	[ "$(vote "$n" Verified)" = -1 ] || fail "change $n: no Verified -1"
	reviews "$n" | tail -n 1 | grep -q 'kbuild/boot: FAIL.*gate: it broke' ||
		fail "change $n: $(messages "$n")"
done
pw_checks >pw4
[ "$(grep -c '|fail|kbuild-boot$' pw4)" -eq 2 ] || fail "patchwork fail: $(cat pw4)"
[ "$(replies)" -eq 2 ] || fail "want a second reply"
reread
run pass5
[ "$(gh_statuses | wc -l)" -eq 2 ] || fail "github posted again (5)"
[ "$(gl_statuses | wc -l)" -eq 2 ] || fail "gitlab posted again (5)"
[ "$(writes "$PW" /checks/)" -eq 4 ] || fail "patchwork posted again (5)"
for n in $(cat ch); do
	[ "$(reviews "$n" | wc -l)" -eq 2 ] || fail "gerrit again (5)"
done
[ "$(replies)" -eq 2 ] || fail "a third reply"

# -- (e) a series that came from a pull request: the status goes on its head
git -C work checkout -q -b own master
echo 'int own;' >>work/fs/ext4/inode.c
git -C work commit -q -s -a -m 'ext4: add own' || fail "commit own"
ctl_post "$GH" /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"relay-bot\",\"title\":\"own\",\"body\":\"\",\"from\":\"$tmp/work\",\"ref\":\"own\",\"base\":\"master\"}"
own=$(git -C work rev-parse own)
cat >own.conf <<CONF
[core]
	state = $tmp/own.db
[source "pr"]
	type = github
	api-url = $GH
	repo = kernel/net
	token = env:GH_TOKEN
	trigger = auto
	cache-dir = $tmp/cache
[check "gate"]
	type = exec
	command = sh
	command = $tmp/gate.sh
[sink "box"]
	type = maildir
	path = $tmp/mdir
[route "from-pr"]
	from = pr
	step = gate
	to = box
	report-to = pr
CONF
rm -f broken
"$PATCHRELAY" run -c own.conf --once >own.log 2>&1 || fail "own: $(cat own.log)"
gh_statuses "$own" >own1
[ "$(cat own1)" = "success|patchrelay/from-pr|passed" ] ||
	fail "own PR status: $(cat own1) $(cat own.log)"
exit 0
