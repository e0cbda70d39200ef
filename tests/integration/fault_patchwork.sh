#!/bin/sh
# The patchwork connector's fault matrix, against
# tests/emulators/patchwork.py behind tests/servers/fault_proxy.py: each
# case feeds Patchwork a new patch (the source relays the series it
# completed into a maildir and posts a check back on each patch) and lands
# the patch of the case before (the sink sets it accepted).  A pass under
# the fault fails with a clear error naming the instance, and the same
# pass against the healthy server then relays exactly the new patch,
# and the server has one check on each patch and one state change on each
# landed one, counted in its request log.  Cases: connection refused, a
# server that never answers (the timeout), an answer cut in the middle, a
# certificate nobody signed (refused with the reason; accepted with
# ca-file), 500, 503 with Retry-After, 429, 403, a truncated and a garbage
# body, the check refused (posted by the next pass), the state change
# refused; then the daemon backing off until the fault clears.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
start_patchwork
start_fault_proxy "$emu_url"

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
mkdir tree
echo base >tree/base.c
git_base tree
np=0
# new_patch: the next patch, fed to Patchwork as the list got it
new_patch() {
	np=$((np + 1))
	pw_patch tree "p$np"
}
landed=0
# land: the patch before the newest lands on main, with its Message-Id
land() {
	[ "$np" -ge 2 ] || return 0
	git -C tree am -q --message-id "$tmp/p$((np - 1))"/*.patch ||
		fail "git am p$((np - 1))"
	landed=$((landed + 1))
}
conf() { # conf URL [KEY=VALUE...]: the config, on stdout
	pw_relay_conf "$@" timeout=2s
}
conf "$proxy_url" >relay.conf
# the first look: what Patchwork completed before is not news
healthy_run first relay.conf

# counted NAME: the n patches relayed, each once, a check on each, each
# landed patch accepted once
counted() {
	local got checks states
	got=$(mail_count out)
	checks=$(pw_writes POST | grep -c '/checks/') || :
	states=$(pw_writes PATCH | grep -c '^/api/patches/') || :
	[ "$got" -eq "$np" ] || fail "$1: $got patches relayed, not $np"
	[ -z "$(grep -h '^Subject:' out/new/* | sort | uniq -d)" ] ||
		fail "$1: a patch relayed twice"
	[ "$checks" -eq "$np" ] && [ -z "$(pw_writes POST | uniq -d)" ] ||
		fail "$1: checks posted: $(pw_writes POST)"
	[ "$states" -eq "$landed" ] && [ -z "$(pw_writes PATCH | uniq -d)" ] ||
		fail "$1: state changes: $(pw_writes PATCH), not $landed"
	echo "fault_patchwork.sh: $1: the error said, then $got relayed," \
		"$checks checks, $states accepted at the server"
}
who="\\[patchwork:pwq\\] .*patchwork 'pwq'"
# pw_case NAME FAULT WANT: a new patch and a landing; the pass under
# FAULT fails saying WANT, the healthy one relays and syncs
pw_case() {
	new_patch
	land
	fault "$2"
	fault_run "$1" relay.conf "$3"
	fault
	healthy_run "$1" relay.conf
	counted "$1"
}
new_patch
healthy_run p1 relay.conf
counted p1

new_patch
land
conf "http://127.0.0.1:$(free_port)" >refused.conf
fault_run refused refused.conf "source 'pwq'.*Couldn't connect to server" \
	"sink 'pw'.*Couldn't connect to server"
healthy_run refused relay.conf
counted refused

pw_case hang 'hang /api/' "source 'pwq'.*timed out"
pw_case drop 'drop /api/events/' "source 'pwq'.*transfer closed"
pw_case mbox 'drop /mbox/' "source 'pwq'.*/mbox/.*transfer closed"
pw_case s500 '500 GET /api/' "$who: GET .*: 500"
pw_case s503 '503,retry-after=1 GET /api/' "$who: GET .*: 503: rate limited until"
pw_case s429 '429 GET /api/' "$who: GET .*: 429"
pw_case s403 '403 GET /api/' "$who: GET .*: 403: "
pw_case truncate 'truncate /api/events/' "source 'pwq': patchwork event list: "
pw_case garbage 'garbage /api/events/' "source 'pwq': patchwork event list: "
pw_case state 'hang PATCH /api/patches/' "sink 'pw'.*timed out"
pw_case state500 '500 PATCH /api/patches/' "sink 'pw'.*PATCH .*: 500"

# the check refused: the patch is relayed, the check owed; the next pass
# posts it (once)
new_patch
land
fault '500 POST */checks/'
"$PATCHRELAY" run -c relay.conf --once 2>check.log || :
grep -q "\[patchwork:pwq\] feedback on .*500" check.log ||
	fail "check: $(cat check.log)"
fault
healthy_run check relay.conf
counted check

new_patch
land
tls_cert server
stop "$proxy_pid"
start_fault_proxy "$emu_url" --tls-cert "$tmp/server.crt" \
	--tls-key "$tmp/server.key"
conf "$proxy_url" >tls.conf
fault_run tls tls.conf \
	"source 'pwq'.*the server's certificate is not trusted \(.*\): none of the system's CAs signed it; set ca-file to the CA that did"
conf "$proxy_url" "ca-file=$tmp/server.crt" >tls-ok.conf
healthy_run tls tls-ok.conf
counted tls
stop "$proxy_pid"
start_fault_proxy "$emu_url"
conf "$proxy_url" >relay.conf

# the daemon (interval 1 s): two passes meet a 502; it backs off (2 s,
# then 4 s) and relays once the server answers
new_patch
land
fault '502,count=4 GET /api/'
# relayed, and the checks and the state change posted
all_there() {
	[ "$(mail_count out)" -ge "$np" ] &&
		[ "$(pw_writes POST | grep -c '/checks/')" -ge "$np" ] &&
		[ "$(pw_writes PATCH | grep -c '^/api/patches/')" -ge "$landed" ]
}
daemon_recovers relay.conf all_there 'pwq\] '
counted "daemon (after $took s)"
echo "fault_patchwork.sh: ok"
