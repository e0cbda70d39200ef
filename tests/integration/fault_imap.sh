#!/bin/sh
# The imap source's fault matrix, against a real dovecot behind
# tests/servers/fault_proxy.py --tcp: each case APPENDs a new patch to the
# mailbox; a pass under the fault fails with a clear error that names the
# instance and the server, and the same pass against the healthy server
# then relays exactly what was pending into a maildir sink, each mail
# once.  Cases: connection refused, a server that never answers (the
# timeout), the connection dropped in the greeting and in the middle of a
# message, an answer that is not IMAP, a certificate nobody signed
# (imaps://: refused with the reason, accepted with ca-file), a refused
# login and a mailbox that is not there (IMAP's NO: no 5xx, 429 or
# Retry-After in IMAP); then the daemon backing off until the fault clears.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

start_dovecot bot 'imap secret'
plain="imap://127.0.0.1:$imap_port"
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo repo
series_mails repo s0 1
imap_fill "$plain/" list "$tmp"/s0/*
start_fault_proxy "$plain" --tcp
printf 'imap secret' >pw
printf 'wrong' >badpw
conf() { # conf URL [KEY=VALUE...]: the config, on stdout
	local url=$1
	shift
	conf_section core "state=$tmp/state.db"
	conf_section 'source "list"' type=imap "url=$url" user=bot \
		"password=file:$tmp/pw" starttls=never timeout=2s "$@"
	conf_section 'sink "inbox"' type=maildir "path=$tmp/out"
	conf_section 'route "r"' from=list to=inbox
}
conf "imap://127.0.0.1:$proxy_port/list" >relay.conf
healthy_run s0 relay.conf
want=1

got() { mail_count out; }
case_nr=0
# new_case NAME: a new patch in the mailbox
new_case() {
	case_nr=$((case_nr + 1))
	series_mails repo "$1" 1
	imap_append "$plain/" list "$tmp/$1"/*
	want=$((want + 1))
}
# relayed NAME: the healthy pass relayed what was pending, no mail twice
relayed() {
	[ "$(got)" -eq "$want" ] || fail "$1: $(got) mails relayed, not $want"
	[ -z "$(grep -h '^Subject:' out/new/* | sort | uniq -d)" ] ||
		fail "$1: a mail relayed twice"
	echo "fault_imap.sh: $1: the error said, then $want mails relayed"
}
who="\\[imap:list\\] source 'list': imap 'imap://127.0.0.1:[0-9]+/'"

new_case refused
conf "imap://127.0.0.1:$(free_port)/list" >refused.conf
fault_run refused refused.conf "$who: cannot connect"
healthy_run refused relay.conf
relayed refused

new_case hang
fault 'hang *'
fault_run hang relay.conf "$who: .* timed out"
fault
healthy_run hang relay.conf
relayed hang

new_case drop
fault 'drop,after=10 *'
fault_run drop relay.conf "$who: .* failed"
fault 'drop,at=Subject: *'
fault_run drop2 relay.conf "$who: .* failed"
fault
healthy_run drop relay.conf
relayed drop

new_case garbage
fault 'garbage *'
fault_run garbage relay.conf "$who: .* failed"
fault
healthy_run garbage relay.conf
relayed garbage

new_case tls
tls_cert server
stop "$proxy_pid"
start_fault_proxy "$plain" --tcp --tls-cert "$tmp/server.crt" \
	--tls-key "$tmp/server.key"
conf "imaps://127.0.0.1:$proxy_port/list" >tls.conf
fault_run tls tls.conf \
	"source 'list': imap 'imaps://127.0.0.1:$proxy_port/': the server's certificate is not trusted \(.*\): none of the system's CAs signed it; set ca-file to the CA that did"
conf "imaps://127.0.0.1:$proxy_port/list" "ca-file=$tmp/server.crt" >tls-ok.conf
healthy_run tls tls-ok.conf
relayed tls
stop "$proxy_pid"
start_fault_proxy "$plain" --tcp
conf "imap://127.0.0.1:$proxy_port/list" >relay.conf

new_case nobox
sed 's|/list$|/nosuchbox|' relay.conf >nobox.conf
fault_run nobox nobox.conf "$who: STATUS refused: the server said 'NO .*nosuchbox"
healthy_run nobox relay.conf
relayed nobox

new_case login
# dovecot answers a failed login after 2 s (auth_failure_delay)
sed -e "s|file:$tmp/pw|file:$tmp/badpw|" -e 's|= 2s$|= 20s|' relay.conf \
	>login.conf
fault_run login login.conf "$who: login refused for user 'bot'"
! grep -q 'secret' login.log || fail "login: the password is in the log"
# and penalizes the address for a while: a longer timeout
sed 's|= 2s$|= 20s|' relay.conf >login-ok.conf
healthy_run login login-ok.conf
relayed login

# the daemon (interval 1 s): two passes meet a closed connection; it
# backs off (2 s, then 4 s) and relays once the server answers
new_case daemon
fault 'close,count=2 *'
all_there() { [ "$(got)" -ge "$want" ]; }
daemon_recovers relay.conf all_there ''
relayed "daemon (after $took s)"
echo "fault_imap.sh: ok"
