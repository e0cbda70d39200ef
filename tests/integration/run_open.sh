#!/bin/sh
# patchrelay run opens every instance before the first pass: an instance
# whose open() refuses its options is a config error (exit status 2) that
# names the file, the instance and the key, and nothing is polled.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'A <a@example.org>'
git_repo repo

cat > relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "repo"]
	type = git
	url = $tmp/repo
	branch = main
	base = main
[sink "mail"]
	type = smtp
	url = http://127.0.0.1:25
	from = relay@example.org
[route "r"]
	from = repo
	to = mail
CONF

rc=0
"$PATCHRELAY" run -c relay.conf --once 2>log || rc=$?
[ "$rc" -eq 2 ] || fail "open failure: exit status $rc: $(cat log)"
grep -q "relay.conf: sink 'mail': option 'url': must start with smtp://" log ||
	fail "message: $(cat log)"
[ "$(grep -c "sink 'mail'" log)" -eq 1 ] || fail "instance named twice: $(cat log)"
grep -q 'pass:' log && fail "a pass ran: $(cat log)"

# the same graph with a good url opens and runs
sed -i 's|http://127.0.0.1:25|smtp://127.0.0.1:25|' relay.conf
"$PATCHRELAY" run -c relay.conf --once --dry-run >out 2>log2 ||
	fail "good config: $(cat log2)"
grep -q 'pass:' log2 || fail "no pass: $(cat log2)"

# a bad --interval is a usage error
for bad in 0 10x -3 99999999999999999999; do
	rc=0
	"$PATCHRELAY" run -c relay.conf --once --dry-run --interval "$bad" \
		>/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 2 ] || fail "--interval $bad: exit status $rc"
done
exit 0
