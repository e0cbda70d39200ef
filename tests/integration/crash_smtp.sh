#!/bin/sh
# kill -9 of `patchrelay run --once` at random points while it relays
# 5-patch series from a maildir source to the smtp sink, a real SMTP
# server (tests/servers/smtpd.py) counting what it takes: 20 rounds of a
# new series, a kill, then a pass to the end.  At the server nothing is
# lost; a Message-ID arrives twice only when a kill fell between the
# server's 250 and the store's record of it, at most once per kill, and
# then the next pass said it may have happened.  Prints the counts.
set -eu
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || skip "no python3-aiosmtpd"
tmpdir
cd "$tmp"

k=5
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo repo
start_smtpd box
{
	conf_section core "state=$tmp/state.db"
	conf_section 'source "list"' type=maildir "path=$tmp/list"
	conf_section 'sink "smtp"' type=smtp \
		"url=smtp://127.0.0.1:$smtpd_port" starttls=never \
		from=relay@example.org to=list@example.org
	conf_section 'route "r"' from=list to=smtp
} >relay.conf

# the Message-IDs the server took, one a line (with repeats)
taken() {
	grep -h -i '^Message-ID:' box/new/* 2>/dev/null |
		sed 's/^[^<]*<\(.*\)>.*$/\1/' | sort
}
next() {
	series_mails repo "s$1" "$k"
	maildir_series list "s$1" "$1"
}
repeats=0
check() {
	local n want dups d
	n=$(taken | wc -l)
	want=$(($(($1 + 1)) * k + repeats))
	dups=$(taken | uniq -d)
	# each new repeat: its Message-ID twice, once per kill, announced
	for d in $dups; do
		[ "$(taken | grep -cxF "$d")" -eq 2 ] ||
			fail "round $1: <$d> arrived more than twice"
		grep -q "<$d>: the last attempt was cut short" crash/*.log ||
			fail "round $1: <$d> arrived twice, unannounced"
	done
	[ "$(echo "$dups" | grep -c .)" -le "$kills" ] ||
		fail "round $1: more repeats than kills"
	if [ "$n" -gt "$want" ]; then
		[ "$n" -eq $((want + 1)) ] ||
			fail "round $1: $n mails at the server, not $want (+1)"
		repeats=$((repeats + 1))
	fi
	[ "$n" -ge "$want" ] || fail "round $1: $n mails at the server, not $want"
}
crash_rounds 20 relay.conf next check

total=$(taken | wc -l)
echo "crash_smtp.sh: $kills kills during a pass, $cut of them while the sink" \
	"was at work; at the server $total" \
	"mails for $((21 * k)) sent, $(taken | uniq | wc -l) distinct," \
	"$repeats repeated after a kill (each announced)"
"$PATCHRELAY" status --state state.db >st
[ "$(grep -c " $k/$k " st)" -eq 21 ] || fail "status: $(cat st)"
echo "crash_smtp.sh: ok"
