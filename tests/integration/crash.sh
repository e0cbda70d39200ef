#!/bin/sh
# kill -9 of `patchrelay run` at random points while it delivers a series
# into a maildir, restarted 20 times: in the end every mail is delivered
# exactly once and is what git format-patch writes (headers as
# git send-email rewrites them).
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
n=40
git_repo repo
git_commits repo "$n"
git_maildir_conf "$tmp" "$tmp/repo" cover-letter=never >relay.conf

seed=${PR_CRASH_SEED:-$$}
echo "crash.sh: seed $seed"
# delays in seconds, adapted below so that kills land mid-delivery
delays=$($PY -c "import random; random.seed($seed); print(' '.join(str(random.random()) for _ in range(200)))")
window=0.002
killed=0
mid=0
rounds=0
# at least 20 restarts; more (up to 200) while fewer than 5 cut a delivery,
# since on a loaded machine the adaptive window can overshoot
for r in $delays; do
	if [ "$rounds" -ge 20 ] && [ "$mid" -ge 5 ]; then
		break
	fi
	rounds=$((rounds + 1))
	before=$(ls maildir/new 2>/dev/null | wc -l)
	"$PATCHRELAY" run -c relay.conf --once 2>/dev/null &
	pid=$!
	sleep "$($PY -c "print($r * $window)")"
	if kill -9 "$pid" 2>/dev/null; then
		killed=$((killed + 1))
	fi
	wait "$pid" 2>/dev/null || true
	after=$(ls maildir/new 2>/dev/null | wc -l)
	if [ "$after" -lt "$n" ] && [ "$after" -gt 0 ]; then
		mid=$((mid + 1))
	fi
	# aim at a few mails per restart
	if [ "$after" -ge "$n" ]; then
		# a finished delivery: exactly once so far; while too few kills
		# have cut one, start a fresh delivery
		[ "$after" -eq "$n" ] || fail "$after mails, not $n"
		if [ "$mid" -lt 5 ]; then
			rm -rf maildir "$tmp"/state.db*
			window=0.002
		fi
	elif [ "$before" -eq "$after" ]; then
		window=$($PY -c "print(min($window * 1.5, 2.0))")
	elif [ $((after - before)) -gt 4 ]; then
		window=$($PY -c "print(max($window / 2, 0.005))")
	fi
done
echo "crash.sh: $killed kills, $mid with a delivery cut"
[ "$mid" -ge 5 ] || fail "too few kills in the middle of the delivery"

"$PATCHRELAY" run -c relay.conf --once 2>log || fail "last pass: $(cat log)"
[ "$(ls maildir/new | wc -l)" -eq "$n" ] ||
	fail "$(ls maildir/new | wc -l) mails, not $n"
[ "$(ls maildir/tmp | wc -l)" -eq 0 ] || fail "left in tmp/: $(ls maildir/tmp)"
git -C repo format-patch -q -o "$tmp/ref" main..topic
# as git send-email sends it: headers rewritten, the body as is
bodies_match "$tmp/ref" 'maildir/new/patchrelay.*-v1.' || fail "a mail differs"
"$PATCHRELAY" status --state state.db > st
grep -Eq "^repo:topic +1 +inbox +v1 +$n/$n " st || fail "status: $(cat st)"
echo "crash.sh: ok"
