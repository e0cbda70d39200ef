#!/bin/sh
# The smtp sink's fault matrix, against tests/servers/smtpd.py behind
# tests/servers/fault_proxy.py: each case brings a new 2-patch series (a
# maildir source), a pass under the fault fails with a clear error that
# names the instance and the server, and the same pass against the
# healthy server then delivers exactly what was pending, counted at the
# server.  Cases: connection refused, a server that never answers (the
# sink's timeout), the connection dropped in the greeting, the answer to
# the data lost after the server took the mail (one repeat, same
# Message-ID, said so), an answer that is not SMTP, a certificate nobody
# signed (refused; accepted with ca-file), a 4xx answer (retry) and a 5xx
# one (rejected for good, the reason kept); and the daemon retrying with
# backoff until the fault clears.  SMTP has no 429/403/Retry-After.
set -eu
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || skip "no python3-aiosmtpd"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo repo
start_smtpd box
main_port=$smtpd_port
start_fault_proxy "smtp://127.0.0.1:$main_port" --tcp
conf() { # conf URL [KEY=VALUE...]: the config, on stdout
	local url=$1
	shift
	conf_section core "state=$tmp/state.db"
	conf_section 'source "list"' type=maildir "path=$tmp/list"
	conf_section 'sink "out"' type=smtp "url=$url" starttls=never \
		from=relay@example.org to=list@example.org timeout=2s "$@"
	conf_section 'route "r"' from=list to=out
}
conf "smtp://127.0.0.1:$proxy_port" >relay.conf

# the Message-IDs at the server, one a line (with repeats)
taken() {
	grep -h -i '^Message-ID:' box/new/* 2>/dev/null |
		sed 's/^[^<]*<\(.*\)>.*$/\1/' | sort
}
want=0 # mails the server should have
case_nr=0
# new_case NAME: a new series of 2 patches on the list
new_case() {
	case_nr=$((case_nr + 1))
	series_mails repo "$1" 2
	maildir_series list "$1" "$case_nr"
	want=$((want + 2))
}
# at_server NAME: the server has $want mails, each once but the repeats
# known ($repeat), and the healthy pass said nothing failed
at_server() {
	[ "$(taken | wc -l)" -eq "$want" ] ||
		fail "$1: $(taken | wc -l) mails at the server, not $want"
	[ "$(taken | uniq -d)" = "${repeat:-}" ] ||
		fail "$1: repeated at the server: $(taken | uniq -d)"
	echo "fault_smtp.sh: $1: the error said, then $want mails at the server"
}
who="\\[smtp:out\\] will retry message 1/2 <[^>]*>: smtp 'smtp://127.0.0.1:[0-9]+'"

new_case refused
conf "smtp://127.0.0.1:$(free_port)" >refused.conf
fault_run refused refused.conf "$who: cannot connect"
healthy_run refused relay.conf
at_server refused

new_case hang
fault 'hang *'
fault_run hang relay.conf "$who: timed out after 2000 ms"
fault
healthy_run hang relay.conf
at_server hang

new_case drop
fault 'drop,after=10 *'
fault_run drop relay.conf "$who: the connection ended before the server's answer"
fault
healthy_run drop relay.conf
at_server drop

# the 250 for the first mail is lost: the server has it, the sink cannot
# know; the retry sends it again, the same mail
new_case lost250
fault 'drop,at=250_OK_queued *'
fault_run lost250 relay.conf \
	"$who: the connection ended .*the server may have taken it: a retry sends it again, with the same Message-ID"
fault
healthy_run lost250 relay.conf
want=$((want + 1))
repeat=$(sed -n 's/.*will retry message 1\/2 <\([^>]*\)>.*/\1/p' lost250.log)
at_server lost250

new_case garbage
fault 'garbage *'
fault_run garbage relay.conf "$who: the connection ended before the server's answer"
fault
healthy_run garbage relay.conf
at_server garbage

# smtps:// to a server whose certificate nobody signed
new_case tls
stop "$proxy_pid"
tls_cert server
start_fault_proxy "smtp://127.0.0.1:$main_port" --tcp \
	--tls-cert "$tmp/server.crt" --tls-key "$tmp/server.key"
conf "smtps://127.0.0.1:$proxy_port" >tls.conf
fault_run tls tls.conf \
	"sink 'out': message 1/2 <[^>]*>: smtp 'smtps://127.0.0.1:$proxy_port': the server's certificate is not trusted \(.*\): none of the system's CAs signed it; set ca-file to the CA that did"
conf "smtps://127.0.0.1:$proxy_port" "ca-file=$tmp/server.crt" >tls-ok.conf
healthy_run tls tls-ok.conf
at_server tls
stop "$proxy_pid"
start_fault_proxy "smtp://127.0.0.1:$main_port" --tcp
conf "smtp://127.0.0.1:$proxy_port" >relay.conf

# a 4xx answer to the data: retried; a 5xx one: rejected for good
new_case busy
start_smtpd busy --data-reply '451 4.3.0 try again later'
conf "smtp://127.0.0.1:$smtpd_port" >busy.conf
fault_run busy busy.conf "$who: .*\(server answered 451\)"
healthy_run busy relay.conf
at_server busy
new_case refuse
start_smtpd refuse --data-reply '554 5.6.0 content refused'
conf "smtp://127.0.0.1:$smtpd_port" >refuse.conf
# a refusal is a verdict, not a failure of the run
"$PATCHRELAY" run -c refuse.conf --once 2>refuse.log ||
	fail "refuse: $(cat refuse.log)"
grep -Eq "\[smtp:out\] rejected message 1/2 <[^>]*>: smtp 'smtp://127.0.0.1:[0-9]+': Weird server reply \(server answered 554\)" \
	refuse.log || fail "refuse: $(cat refuse.log)"
healthy_run refuse relay.conf
want=$((want - 2)) # refused: not sent again, and the report says so
at_server refuse
"$PATCHRELAY" status --state state.db >st
grep -q "554" st || fail "status does not show the refusal: $(cat st)"

# the daemon (interval 1 s): the first two passes meet a closed
# connection; it backs off (2 s, then 4 s) and delivers once the server
# answers
new_case daemon
fault 'close,count=2 *'
: >proxy.log
spawn relay_pid "$PATCHRELAY" run -c relay.conf --interval 1 2>daemon.log
t0=$(date +%s)
delivered() { [ "$(taken | wc -l)" -ge "$want" ]; }
wait_for 30 delivered ||
	fail "daemon: not delivered: $(cat daemon.log)"
t1=$(date +%s)
stop "$relay_pid"
[ "$(grep -c 'will retry message 1/2' daemon.log)" -eq 2 ] ||
	fail "daemon: not two retries: $(cat daemon.log)"
[ $((t1 - t0)) -ge 5 ] || fail "daemon: retried without backing off ($((t1 - t0)) s)"
at_server "daemon (delivered after $((t1 - t0)) s)"
echo "fault_smtp.sh: ok"
