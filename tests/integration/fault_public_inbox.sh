#!/bin/sh
# The public-inbox source's fault matrix, against a real public-inbox-httpd
# behind tests/servers/fault_proxy.py: each case adds a new 2-patch series
# to the inbox; a pass under the fault fails with a clear error that names
# the instance, and the same pass against the healthy server then relays
# exactly what was pending into a maildir sink, each mail once.  Cases:
# connection refused, a server that never answers (the timeout), the
# connection dropped in the middle of an answer (the feed, a thread), a certificate nobody
# signed (refused with the reason; accepted with ca-file), 500, 503, 429
# with Retry-After, 403 with an exhausted rate limit, a truncated body and
# one that is no format at all; then the daemon, which waits as long as
# Retry-After says and backs off while the server fails.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

pi_one_patch
upstream=http://127.0.0.1:$(cat pi/port)
start_fault_proxy "$upstream"
conf() { # conf URL [KEY=VALUE...]: the config, on stdout
	local url=$1
	shift
	conf_section core "state=$tmp/state.db"
	conf_section 'source "list"' type=public-inbox "url=$url" timeout=2s \
		"$@"
	conf_section 'sink "inbox"' type=maildir "path=$tmp/out"
	conf_section 'route "r"' from=list to=inbox
}
conf "$proxy_url/test/" >relay.conf
healthy_run s0 relay.conf
want=1

got() { mail_count out; }
case_nr=0
# new_case NAME: a new patch in the inbox, a minute later
new_case() {
	case_nr=$((case_nr + 1))
	git_identity 'Ada Demo <ada@example.org>' \
		"$((1796299200 + case_nr * 60)) +0000"
	series_mails repo "$1" 1
	pi_add "$tmp/$1"/*
	want=$((want + 1))
}
# relayed NAME: the healthy pass relayed the pending series, no mail twice
relayed() {
	[ "$(got)" -eq "$want" ] || fail "$1: $(got) mails relayed, not $want"
	[ -z "$(grep -h '^Subject:' out/new/* | sort | uniq -d)" ] ||
		fail "$1: a mail relayed twice"
	echo "fault_public_inbox.sh: $1: the error said, then $want mails relayed"
}
who="\\[public-inbox:list\\]"

new_case refused
conf "http://127.0.0.1:$(free_port)/test/" >refused.conf
fault_run refused refused.conf "$who .*Couldn't connect to server"
healthy_run refused relay.conf
relayed refused

new_case hang
fault 'hang /'
fault_run hang relay.conf "$who .*timed out"
fault
healthy_run hang relay.conf
relayed hang

# a drop in the feed, then one in a thread's mbox
new_case drop
fault 'drop new.atom'
fault_run drop relay.conf "$who .*new.atom"
fault 'drop t.mbox.gz'
fault_run drop2 relay.conf "$who .*t.mbox.gz"
fault
healthy_run drop relay.conf
relayed drop

new_case tls
tls_cert server
stop "$proxy_pid"
start_fault_proxy "$upstream" --tls-cert "$tmp/server.crt" \
	--tls-key "$tmp/server.key"
conf "$proxy_url/test/" >tls.conf
fault_run tls tls.conf \
	"$who .*https://127.0.0.1:$proxy_port/test/new.atom' failed: the server's certificate is not trusted \(.*\): none of the system's CAs signed it; set ca-file to the CA that did"
conf "$proxy_url/test/" "ca-file=$tmp/server.crt" >tls-ok.conf
healthy_run tls tls-ok.conf
relayed tls
stop "$proxy_pid"
start_fault_proxy "$upstream"
conf "$proxy_url/test/" >relay.conf

for f in 500 503 429,retry-after=7 403,reset=+30; do
	new_case "s${f%%,*}"
	fault "$f /"
	case $f in
	*,*) w="HTTP ${f%%,*}: rate limited until [0-9]+" ;;
	*) w="HTTP $f" ;;
	esac
	fault_run "s$f" relay.conf "$who .*new.atom': $w"
	fault
	healthy_run "s$f" relay.conf
	relayed "$f"
done

new_case truncate
fault 'truncate t.mbox.gz'
fault_run truncate relay.conf "$who .*truncated gzip"
fault 'truncate new.atom'
fault_run truncate2 relay.conf "$who .*new.atom"
fault
healthy_run truncate relay.conf
relayed truncate

new_case garbage
fault 'garbage t.mbox.gz'
fault_run garbage relay.conf "$who .*gzip"
fault 'garbage new.atom'
fault_run garbage2 relay.conf "$who .*new.atom"
fault
healthy_run garbage relay.conf
relayed garbage

# the daemon (interval 1 s): it waits as long as Retry-After says (3 s),
# then backs off (4 s) when the feed answers 500, and relays once it
# answers
new_case daemon
fault '429,retry-after=3,count=1 new.atom' '500,count=1 new.atom'
all_there() { [ "$(got)" -ge "$want" ]; }
daemon_recovers relay.conf all_there "$who " 6
grep -Eq "$who rate limited: next poll in [23]s" daemon.log ||
	fail "daemon: Retry-After not heeded: $(cat daemon.log)"
relayed "daemon (after $took s)"
echo "fault_public_inbox.sh: ok"
