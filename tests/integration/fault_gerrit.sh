#!/bin/sh
# The gerrit connector's fault matrix: the Gerrit emulator (a real sshd in
# front) with tests/servers/fault_proxy.py before its REST API (HTTP) and
# before its sshd (--tcp).  Two routes: the source "gr" (stream-events
# over ssh, the catch-up over REST, patch sets fetched over ssh) mails
# each change of project kernel to aiosmtpd and posts a review with
# Verified +1 back; the sink "gs" pushes each mbox series of ml/ to
# project sink over ssh.  Each case adds a change to kernel and a series
# to ml/; a pass under the fault fails with a clear error naming the
# instance, and the same pass against the healthy servers then delivers
# exactly what was pending: counted at aiosmtpd (each change mailed once),
# at the emulator (one review and one Verified +1 by relay on each change,
# each pushed series one change with one patch set).
# REST: connection refused, no answer (the timeout), an answer cut in the
# middle, 500, 503 with Retry-After and 429 with Retry-After (kept across
# runs: the next asks nothing before the time), 401, a cut and
# a garbage list, the ")]}'" line missing (taken: the JSON is whole), a
# certificate nobody signed (refused with the reason, taken with ca-file),
# the review refused (posted by the next pass).  ssh (the stream, the
# fetch and the push): connection refused, no answer, closed at once, an
# answer that is not ssh, the connection cut in the key exchange, a push
# Gerrit stored whose answer was lost (no second patch set after), and a
# push Gerrit took and never answered (the sink's timeout).
# Then the daemon backing off until a 502 clears.
set -u
. "$(dirname "$0")/lib.sh"
NAME=fault_gerrit.sh
. "$PR_SRC/tests/integration/gerrit_lib.sh"

ctl create-project name=sink from="$tmp/tree" >/dev/null
start_fault_proxy "$GERRIT_REST_URL"
rest_pid=$proxy_pid rest_url=$proxy_url rest_port=$proxy_port
proxy_tag=.ssh
start_fault_proxy "ssh://127.0.0.1:$GERRIT_SSH_PORT" --tcp
proxy_tag=
ssh_port=$proxy_port
echo "[127.0.0.1]:$ssh_port $(cut -d' ' -f2,3 "$GERRIT_KNOWN_HOSTS")" \
	>known_hosts
ssh_fault() {
	proxy_tag=.ssh
	fault "$@"
	proxy_tag=
}

# conf REST_URL SSH_PORT [KEY=VALUE...]: the config (the keys go to both
# gerrit instances), on stdout
conf() {
	local url=$1 port=$2
	shift 2
	conf_section core "state=$tmp/state.db"
	conf_section 'source "gr"' type=gerrit \
		"ssh-url=ssh://relay@127.0.0.1:$port" "ssh-key=$GERRIT_KEY_relay" \
		"known-hosts=$tmp/known_hosts" "rest-url=$url" user=relay \
		password=env:GR_PW project=kernel trigger=auto series=change \
		max-commits=0 verified-label=Verified "cache-dir=$tmp/cache" \
		timeout=3s "$@"
	conf_section 'source "ml"' type=mbox "path=$tmp/ml"
	conf_section 'sink "list"' type=smtp \
		"url=smtp://127.0.0.1:$(cat smtp.port)" starttls=never \
		'from=Patch Relay <relay@example.org>' to=list@example.org
	conf_section 'sink "gs"' type=gerrit \
		"ssh-url=ssh://relay@127.0.0.1:$port" "ssh-key=$GERRIT_KEY_relay" \
		"known-hosts=$tmp/known_hosts" "rest-url=$url" user=relay \
		password=env:GR_PW project=sink branch=master \
		"cache-dir=$tmp/cache-gs" timeout=3s "$@"
	conf_section 'route "in"' from=gr to=list feedback=gr
	conf_section 'route "out"' from=ml to=gs
}
export GR_PW="$GERRIT_HTTP_PASSWORD_relay"
conf "$rest_url" "$ssh_port" >relay.conf

clone alice work
git clone -q tree mail || fail "clone"
mkdir ml
n=0 ns=0
# new_case NAME [both]: a change on kernel (alice's); with both, a series
# in ml/ too (the REST cases leave the sink alone: it uses ssh only)
new_case() {
	git -C work checkout -q -b "$1" origin/master || fail "$1: branch"
	commit work drivers/net/foo/foo.c "foo: $1"
	push alice work HEAD:refs/for/master >"$1.push" ||
		fail "$1: push: $(cat "$1.push")"
	n=$((n + 1))
	[ "${2:-}" = both ] || return 0
	git -C mail checkout -q -b "$1" master || fail "$1: mail branch"
	echo "int $1;" >>mail/net/core/dev.c
	git -C mail commit -q -s -a -m "dev: $1" -m "Because of $1." ||
		fail "$1: commit"
	git -C mail format-patch -q -1 --stdout >"ml/$1.mbox" ||
		fail "$1: format-patch"
	ns=$((ns + 1))
}
# counted NAME: what the servers have: each change of kernel mailed once,
# with one review and Verified +1 by relay; each series of ml/ one change
# of sink with one patch set
counted() {
	local got
	got=$(mails)
	[ "$got" -eq "$n" ] || fail "$1: $got mails, not $n"
	[ -z "$(grep -h '^Subject:' box/new/* | sort | uniq -d)" ] ||
		fail "$1: a change mailed twice"
	rest "/changes/?q=project:kernel&o=MESSAGES&o=DETAILED_ACCOUNTS&o=DETAILED_LABELS" |
		$PY -c 'import json, sys
for c in json.load(sys.stdin):
    msgs = [m for m in c.get("messages", [])
            if m.get("author", {}).get("username") == "relay"]
    votes = [v.get("value") for v in c["labels"]["Verified"].get("all", [])
             if v.get("_account_id") == 1000003 and v.get("value")]
    print(c["_number"], len(msgs), votes)' | sort -n >reviews.now
	[ "$(wc -l <reviews.now)" -eq "$n" ] &&
		[ "$(grep -c '^[0-9]* 1 \[1\]$' reviews.now)" -eq "$n" ] ||
		fail "$1: reviews, not one with Verified +1 on each change: $(cat reviews.now)"
	rest "/changes/?q=project:sink&o=ALL_REVISIONS" | $PY -c 'import json, sys
for c in json.load(sys.stdin):
    print(c["_number"], len(c["revisions"]), c["subject"])' >pushed.now
	[ "$(wc -l <pushed.now)" -eq "$ns" ] &&
		[ "$(awk '$2 != 1' pushed.now | wc -l)" -eq 0 ] ||
		fail "$1: pushed, not one change of one patch set a series: $(cat pushed.now)"
	echo "$NAME: $1: $got changes mailed, $n reviews with Verified +1, $ns series pushed once"
}
src="\\[gerrit:gr\\] source 'gr'"
# the push's side: the sink, or the fetch of its base (the mbox source
# reads the target branch from Gerrit before it builds the series)
snk="(sink 'gs'|source 'ml': fetch [^ ]* from 'ssh://relay@127\\.0\\.0\\.1:[0-9]+/sink')"
# rest_case NAME FAULT WANT...: FAULT at the REST proxy
rest_case() {
	local name=$1 f=$2
	shift 2
	new_case "$name"
	fault "$f"
	fault_run "$name" relay.conf "$@"
	fault
	healthy_run "$name" relay.conf
	counted "$name"
}
# ssh_case NAME FAULT WANT...: FAULT at the ssh proxy
ssh_case() {
	local name=$1 f=$2
	shift 2
	new_case "$name" both
	ssh_fault "$f"
	fault_run "$name" relay.conf "$@"
	ssh_fault
	healthy_run "$name" relay.conf
	counted "$name"
}

new_case first both
healthy_run first relay.conf
counted first

# ---- REST ----
new_case refused
conf "http://127.0.0.1:$(free_port)" "$ssh_port" >refused.conf
fault_run refused refused.conf "$src: .*Couldn't connect to server"
healthy_run refused relay.conf
counted refused

rest_case hang 'hang /a/' "$src: .*timed out"
rest_case drop 'drop /a/changes/' "$src: .*transfer closed"
rest_case s500 '500 /a/changes/' "$src: GET '$rest_url/a/changes/[^']*': HTTP status 500"
# told to wait: the next pass, a new process, asks the REST API nothing
# before the time (the source's cursor keeps it), the one after it
# delivers
limited_case() {
	local name=$1 f=$2 until
	shift 2
	new_case "$name"
	fault "$f"
	fault_run "$name" relay.conf "$@"
	fault
	until=$(sed -n 's/.*rate limited until \([0-9]*\) (GET .*/\1/p' \
		"$name.log" | head -n 1)
	: >proxy.log
	"$PATCHRELAY" run -c relay.conf --once 2>"$name.early.log" || :
	grep -q "$src: rate limited until $until (as Gerrit said in an earlier pass)" \
		"$name.early.log" || fail "$name: not held: $(cat "$name.early.log")"
	[ ! -s proxy.log ] || fail "$name: asked before the time: $(cat proxy.log)"
	while [ "$(date +%s)" -lt "$until" ]; do
		sleep 0.2
	done
	healthy_run "$name" relay.conf
	counted "$name"
}
limited_case s503 '503,retry-after=2 /a/changes/' "$src: rate limited until [0-9]+ \(GET .*: 503"
limited_case s429 '429,retry-after=2 /a/changes/' "$src: rate limited until [0-9]+ \(GET .*: 429"
rest_case s401 '401 /a/' "$src: GET .*refused \(401.*check the user and HTTP password"
rest_case truncate 'truncate /a/changes/' "$src: .*gerrit"
rest_case garbage 'garbage /a/changes/' "$src: .*gerrit"

# the ")]}'" line missing: the JSON after it is whole, and taken
new_case noprefix
fault 'skip,bytes=5 /a/changes/'
healthy_run noprefix relay.conf
fault
grep -q 'fault skip' proxy.log || fail "noprefix: no answer was cut"
counted noprefix

# the review refused: the change is mailed, the review owed; the next
# pass posts it, once
for f in 500 drop; do
	new_case "review$f"
	fault "$f POST */review"
	"$PATCHRELAY" run -c relay.conf --once 2>"review$f.log" || :
	grep -Eq "\[gerrit:gr\] feedback on .*(500|transfer closed)" "review$f.log" ||
		fail "review $f: $(cat "review$f.log")"
	[ "$(mails)" -eq "$n" ] || fail "review $f: the mail waits"
	fault
	healthy_run "review$f" relay.conf
	counted "review $f"
done

new_case tls
tls_cert server
stop "$rest_pid"
start_fault_proxy "$GERRIT_REST_URL" --tls-cert "$tmp/server.crt" \
	--tls-key "$tmp/server.key"
conf "$proxy_url" "$ssh_port" >tls.conf
fault_run tls tls.conf \
	"$src: .*'https://127.0.0.1:$proxy_port[^']*' failed: the server's certificate is not trusted \(.*\): none of the system's CAs signed it; set ca-file to the CA that did"
conf "$proxy_url" "$ssh_port" "ca-file=$tmp/server.crt" >tls-ok.conf
healthy_run tls tls-ok.conf
counted tls
stop "$proxy_pid"
start_fault_proxy "$GERRIT_REST_URL"
rest_pid=$proxy_pid rest_url=$proxy_url
conf "$rest_url" "$ssh_port" >relay.conf

# ---- ssh: the stream, the fetch and the push ----
new_case sshrefused both
conf "$rest_url" "$(free_port)" >sshrefused.conf
fault_run sshrefused sshrefused.conf "$src: .*" "$snk: .*"
healthy_run sshrefused relay.conf
counted "ssh refused"

ssh_case sshhang hang "$src: .*[Tt]imed out" "$snk: .*(timed out|does not answer)"
ssh_case sshclose close "$src: .*" "$snk: .*"
ssh_case sshgarbage garbage "$src: .*" "$snk: .*"
ssh_case sshkex 'drop,after=600' "$src: .*" "$snk: .*"

# the push stored by Gerrit, its answer lost: the next pass pushes again
# and Gerrit has it already; no second patch set
new_case lostanswer both
ctl drop-push count=1 >/dev/null
fault_run lostanswer relay.conf "$snk: .*"
healthy_run lostanswer relay.conf
counted "lost answer"

# a push whose pack Gerrit took and that never hears back: the sink's
# timeout ends it (the transfer's child is killed), nothing is stored, and
# the next pass pushes the series once
new_case stalledpush both
ctl stall-push count=1 >/dev/null
fault_run stalledpush relay.conf \
	"sink 'gs': push to 'ssh://relay@127\\.0\\.0\\.1:[0-9]+/sink': nothing came or went for 3 s: the server does not answer"
healthy_run stalledpush relay.conf
counted "stalled push"

# ---- the daemon (interval 1 s): two passes meet a 502; it backs off
# (2 s, then 4 s) and delivers once the server answers
new_case daemon both
fault '502,count=2 /a/changes/'
# mailed, reviewed and pushed
all_there() {
	[ "$(mails)" -ge "$n" ] &&
		[ "$(messages "$(sed -n 's,.*/c/kernel/+/\([0-9]*\) .*,\1,p' daemon.push)" |
			grep -c '^relay|')" -ge 1 ] &&
		rest "/changes/?q=project:sink" | grep -q '"dev: daemon"'
}
daemon_recovers relay.conf all_there 'gr\] '
counted "daemon (after $took s)"
echo "$NAME: ok"
