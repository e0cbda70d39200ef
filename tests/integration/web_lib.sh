# What the web server's tests share (web_hooks.sh, web_page.sh,
# web_service.sh), sourced after each sets `me`:
#
#	me=web_hooks.sh
#	. "$PR_SRC/tests/integration/web_lib.sh"
#
# the GitHub and GitLab emulators, the SMTP server, a tree with topic
# branches, pull and merge requests on it, a config with both sources
# taking hooks, and the daemon with its web server on a free port.
set -u
PY=/usr/bin/python3
HOOKS="$PY $PR_SRC/tests/emulators/hooks.py"
GH_SECRET=gh-hook-s3cret
GL_SECRET=gl-hook-s3cret

fail() {
	echo "$me: FAIL: $*" >&2
	exit 1
}

$PY -c 'import aiosmtpd' 2>/dev/null || {
	echo "$me: no python3-aiosmtpd: skipped"
	exit 77
}
tmp=$(mktemp -d) || exit 1
pids=
daemon=
cleanup() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null
	for p in $pids; do kill "$p" 2>/dev/null; done
	if [ -n "${KEEP:-}" ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$tmp" || exit 1

# wait_for SECONDS COMMAND...: COMMAND every 0.1 s until it succeeds
wait_for() {
	n=$(($1 * 10))
	shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# start NAME COMMAND...: a server writing its port to NAME.port
start() {
	name=$1
	shift
	"$@" --port-file "$name.port" 2>"$name.err" &
	pids="$pids $!"
	wait_for 15 test -s "$name.port" || fail "$name did not start: $(cat "$name.err")"
}

start github $PY "$PR_SRC/tests/emulators/github.py" --root "$tmp/gh"
start gitlab $PY "$PR_SRC/tests/emulators/gitlab.py" --root "$tmp/gl"
start smtp $PY "$PR_SRC/tests/servers/smtpd.py" --maildir "$tmp/box" --log box.log
GH=http://127.0.0.1:$(cat github.port)
GL=http://127.0.0.1:$(cat gitlab.port)

# ctl BASE METHOD PATH JSON: an emulator's control API
ctl() {
	curl -sf -X "$2" -H 'Content-Type: application/json' -d "$4" "$1$3" \
		>/dev/null || fail "emulator $2 $3 failed"
}
# comment BASE N USER BODY
comment() {
	ctl "$1" POST /_emu/comments "{\"owner\":\"kernel\",\"repo\":\"net\",\"number\":$2,\"user\":\"$3\",\"body\":\"$4\"}"
}
# requests BASE: the emulator's requests since its log was cleared
requests() {
	curl -sf "$1/_emu/log" | $PY -c 'import json, sys
for r in json.load(sys.stdin):
    print(r["method"], r["path"])'
}
clear_log() {
	ctl "$1" POST /_emu/log/clear '{}'
}
mails() { find "$tmp/box/new" "$tmp/box/cur" -type f 2>/dev/null | wc -l; }
mails_at_least() { [ "$(mails)" -ge "$1" ]; }

export GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME='Ada Lovelace' GIT_COMMITTER_EMAIL=ada@example.org
export GIT_AUTHOR_DATE='1796299200 +0000' GIT_COMMITTER_DATE='1796299200 +0000'
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp
cp -r "$PR_SRC/tests/data/route/tree" tree
git -C tree init -q -b main
git -C tree add -A
git -C tree commit -q -m base
# branch NAME FILE LINE SUBJECT: one signed-off commit on main
branch() {
	git -C tree checkout -q -b "$1" main
	echo "$3" >>"tree/$2"
	git -C tree commit -q -s -a -m "$4" -m "Why: $1."
	git -C tree checkout -q main
}

for base in "$GH" "$GL"; do
	ctl "$base" POST /_emu/users '{"login":"ada","token":"tok-ada","name":"Ada Lovelace","email":"ada@example.org"}'
	ctl "$base" POST /_emu/users '{"login":"relay-bot","token":"tok-bot"}'
	ctl "$base" POST /_emu/repos "{\"owner\":\"kernel\",\"repo\":\"net\",\"from\":\"$tmp/tree\",\"branch\":\"main\"}"
done

# pull BASE BRANCH TITLE: a pull (merge) request of ada's from BRANCH
pull() {
	ctl "$1" POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"$3\",\"body\":\"Why it is needed.\",\"from\":\"$tmp/tree\",\"ref\":\"$2\",\"base\":\"main\"}"
}

echo "$GL_SECRET" >gl.secret
# config EXTRA: relay.conf, both sources taking hooks, polled every 10 min
config() {
	cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
	http = 127.0.0.1:0
[defaults]
	interval = 10m
[source "gh"]
	type = github
	api-url = $GH
	repo = kernel/net
	token = env:FORGE_TOKEN
	cache-dir = $tmp/cache-gh
	webhook-secret = env:GH_HOOK_SECRET
[source "gl"]
	type = gitlab
	api-url = $GL/api/v4
	project = kernel/net
	token = env:FORGE_TOKEN
	cache-dir = $tmp/cache-gl
	webhook-secret = file:$tmp/gl.secret
[check "maintainers"]
	type = maintainers
	kernel-tree = $tmp/tree
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$(cat smtp.port)
	starttls = never
	from = Patch Relay <relay@example.org>
	archive-url = https://lore.example.org/r/%m
[route "gh-list"]
	from = gh
	step = maintainers
	to = list
	feedback = gh
[route "gl-list"]
	from = gl
	step = maintainers
	to = list
	feedback = gl
$1
CONF
}
export FORGE_TOKEN=tok-bot GH_HOOK_SECRET=$GH_SECRET

# metric NAME: its value on /metrics (labels written as on the page)
metric() {
	curl -sf "$W/metrics" | awk -v n="$1" '$1 == n { print $2 }'
}
passes_at_least() {
	v=$(metric patchrelay_passes_total)
	[ -n "$v" ] && [ "${v%%.*}" -ge "$1" ]
}

# up: the daemon listens, or is gone
up() {
	grep -q 'listening on http' daemon.log 2>/dev/null ||
		! kill -0 "$daemon" 2>/dev/null
}

# start_daemon [ARGS]: run -c relay.conf ARGS in the background, its log in
# daemon.log; W its web server's URL; returns once the first pass is done
start_daemon() {
	"$PATCHRELAY" run -c relay.conf "$@" 2>daemon.log &
	daemon=$!
	wait_for 15 up
	grep -q 'listening on http' daemon.log ||
		fail "no web server: $(cat daemon.log)"
	W=$(sed -n 's/.*listening on \(http:[^ "]*\)\/.*/\1/p' daemon.log | head -n 1)
	[ -n "$W" ] || fail "no address in: $(cat daemon.log)"
	wait_for 30 passes_at_least 1 || fail "no first pass: $(cat daemon.log)"
}

# now: seconds since the epoch, with nanoseconds
now() { date +%s.%N; }
# elapsed T0: seconds since T0
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# within LIMIT SECONDS: true when SECONDS <= LIMIT
within() { awk -v l="$1" -v s="$2" 'BEGIN { exit !(s <= l) }'; }
