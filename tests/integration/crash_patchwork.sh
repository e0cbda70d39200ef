#!/bin/sh
# kill -9 of `patchrelay run --once` at random points while the patchwork
# connector works against tests/emulators/patchwork.py: each of 20 rounds
# feeds Patchwork a new patch (the source relays it, its check goes back)
# and lands the one before on main (the sink sets it accepted); then a
# kill, then a pass to its end.  Counted at the server (its request log):
# each patch relayed once, one check on each, one state change on each
# landed patch; a kill after the server took a write makes no second one,
# since the connector reads what Patchwork has before it writes.  Prints
# the counts.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
start_patchwork
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
mkdir tree
echo base >tree/base.c
git_base tree
pw_relay_conf "$emu_url" >relay.conf
# the first look: what Patchwork completed before is not news
"$PATCHRELAY" run -c relay.conf --once 2>first.log ||
	fail "first look: $(cat first.log)"

next() {
	pw_patch tree "p$1"
	if [ "$1" -gt 0 ]; then
		git -C tree am -q --message-id "$tmp/p$(($1 - 1))"/*.patch ||
			fail "git am p$(($1 - 1))"
	fi
}
check() {
	local n=$(($1 + 1)) checks states
	checks=$(pw_writes POST | grep -c '/checks/') || :
	states=$(pw_writes PATCH | grep -c '^/api/patches/') || :
	[ "$(mail_count out)" -eq "$n" ] &&
		[ -z "$(grep -h '^Subject:' out/new/* | sort | uniq -d)" ] ||
		fail "round $1: $(mail_count out) patches relayed, not $n"
	[ "$checks" -eq "$n" ] && [ -z "$(pw_writes POST | uniq -d)" ] ||
		fail "round $1: checks posted: $(pw_writes POST)"
	[ "$states" -eq "$1" ] && [ -z "$(pw_writes PATCH | uniq -d)" ] ||
		fail "round $1: state changes: $(pw_writes PATCH), not $1"
}
crash_rounds 20 relay.conf next check

# where the kills fell, by what the killed pass had logged
before=0 relayed=0 checked=0
for r in $(seq 1 20); do
	if grep -q 'set accepted' "crash/$r.kill.log"; then
		:
	elif grep -q 'check(s) posted' "crash/$r.kill.log"; then
		checked=$((checked + 1))
	elif grep -q 'patch(es)' "crash/$r.kill.log"; then
		relayed=$((relayed + 1))
	else
		before=$((before + 1))
	fi
done
echo "crash_patchwork.sh: $kills kills during a pass: $before before the" \
	"relay, $relayed between the relay and the check, $checked between the" \
	"check and the landing; at the server $(mail_count out) patches relayed of" \
	"21, $(pw_writes POST | grep -c /checks/) checks posted (one each)," \
	"$(pw_writes PATCH | grep -c /patches/) patches accepted of 20," \
	"nothing written twice"
echo "crash_patchwork.sh: ok"
