#!/bin/sh
# patchrelay run polls each source on its own schedule: a failing source
# backs off (1s, 2s, 4s, 8s...) without slowing the working ones, its
# complaints are rate-limited (the first failure at error, then "still
# failing" at the 2nd, 4th... failure in a row), and one line says when it
# recovers.  A source's `interval` beats [defaults] interval.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
mkrepo() { # DIR: topic one patch above main
	git_repo "$1"
	git_commits "$1" 1
}
mkrepo repo

cat > relay.conf <<CONF
[core]
	state = $tmp/state.db
	log-level = debug
[defaults]
	interval = 1s
[source "later"]
	type = git
	url = $tmp/later
	branch = topic
	base = main
[source "repo"]
	type = git
	url = $tmp/repo
	branch = topic
	base = main
[source "slow"]
	type = git
	url = $tmp/repo
	branch = topic
	base = main
	interval = 5s
[sink "inbox"]
	type = maildir
	path = $tmp/maildir
[route "a"]
	from = later
	to = inbox
[route "b"]
	from = repo
	to = inbox
[route "c"]
	from = slow
	to = inbox
CONF

polls() { grep -c "\[git:$1\] poll for route" log || true; }
three_polls() { [ "$(polls later)" -ge 3 ]; }
recovered() { grep -q 'recovered after' log; }

start=$(date +%s)
spawn pid "$PATCHRELAY" run -c relay.conf --interval 30 2>log
# failures at about 0s, 2s and 6s; the next poll is due at about 14s
wait_for 12 three_polls || fail "no third poll of 'later' in: $(cat log)"
# built aside and moved in whole: a poll between mkrepo's steps would see
# a repository without 'main' and fail a fourth time
mkrepo later.new
mv later.new later
wait_for 16 recovered || fail "no recovery in: $(cat log)"
stop "$pid"
end=$(date +%s)
[ "$stopped" -eq 0 ] || fail "exit status $stopped: $(cat log)"

# the failing source: 3 failures, then the poll that worked
[ "$(polls later)" -eq 4 ] || fail "'later' polled $(polls later) times: $(cat log)"
[ "$(grep -c "error: \[git:later\]" log)" -eq 1 ] ||
	fail "first failure not logged once at error: $(cat log)"
[ "$(grep -c "\[git:later\] still failing (2 times): source 'later'" log)" -eq 1 ] ||
	fail "no rate-limited complaint: $(cat log)"
grep -q "still failing (3 times)" log && fail "complained at every failure: $(cat log)"
[ "$(grep -c "\[git:later\] recovered after 3 failure(s)" log)" -eq 1 ] ||
	fail "no recovery line: $(cat log)"

# the working source kept its 1s interval through the other's backoff;
# the slow one its 5s
elapsed=$((end - start))
n=$(polls repo)
[ "$n" -ge $((elapsed * 2 / 3)) ] && [ "$n" -le $((elapsed + 1)) ] ||
	fail "'repo' polled $n times in ${elapsed}s: $(cat log)"
n=$(polls slow)
[ "$n" -ge $((elapsed / 5)) ] && [ "$n" -le $((elapsed / 5 + 1)) ] ||
	fail "'slow' polled $n times in ${elapsed}s: $(cat log)"

# every route delivered its one patch exactly once
[ "$(ls maildir/new | wc -l)" -eq 3 ] || fail "mails: $(ls maildir/new)"

# a bad interval is a config error naming the key
printf '[source "repo"]\n\tinterval = 10ms\n' >> relay.conf
rc=0
"$PATCHRELAY" run -c relay.conf --once 2>bad || rc=$?
[ "$rc" -eq 2 ] || fail "interval = 10ms: exit status $rc"
grep -q "relay.conf: source.repo.interval: '10ms' is under" bad ||
	fail "interval = 10ms: $(cat bad)"
echo "run_intervals.sh: ok"
