# What the web server's tests share (web_hooks.sh, web_page.sh,
# web_service.sh) on top of lib.sh, sourced first by each:
#
#	. "$(dirname "$0")/web_lib.sh"
#
# the GitHub and GitLab emulators, the SMTP server, a tree with topic
# branches, pull and merge requests on it, a config with both sources
# taking hooks, and the daemon with its web server on a free port.
. "$(dirname "$0")/lib.sh"
HOOKS="$PY $PR_SRC/tests/emulators/hooks.py"
GH_SECRET=gh-hook-s3cret
GL_SECRET=gl-hook-s3cret

have_aiosmtpd || skip "no python3-aiosmtpd"
tmpdir
cd "$tmp" || exit 1

start_emulator github "$tmp/gh"
GH=$emu_url
start_emulator gitlab "$tmp/gl"
GL=$emu_url
start_smtpd "$tmp/box"

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
mails() { mail_count "$tmp/box"; }
mails_at_least() { [ "$(mails)" -ge "$1" ]; }

git_identity 'Ada Lovelace <ada@example.org>' '1796299200 +0000'
git_alone
route_tree tree
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
	url = smtp://127.0.0.1:$smtpd_port
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
	spawn daemon "$PATCHRELAY" run -c relay.conf "$@" 2>daemon.log
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
