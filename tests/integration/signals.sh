#!/bin/sh
# patchrelay run as a daemon: SIGHUP with an invalid config keeps the
# running one, with a valid config reloads it, SIGTERM stops it (exit 0).
set -eu
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"

fail() { echo "signals.sh: $*" >&2; exit 1; }

export GIT_AUTHOR_NAME='Ada Demo' GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME='Ada Demo' GIT_COMMITTER_EMAIL=ada@example.org
git init -q -b main repo
echo base > repo/file
git -C repo add file
git -C repo commit -q -m base
git -C repo checkout -q -b topic
echo more >> repo/file
git -C repo commit -q -a -m "file: more"

cat > good.conf <<CONF
[core]
	state = $tmp/state.db
[source "repo"]
	type = git
	url = $tmp/repo
	branch = topic
	base = main
[sink "inbox"]
	type = maildir
	path = $tmp/maildir
[route "r"]
	from = repo
	to = inbox
CONF
cp good.conf relay.conf

wait_for() { # pattern
	t=0
	while ! grep -q "$1" log; do
		t=$((t + 1))
		[ "$t" -lt 100 ] || fail "no '$1' in: $(cat log)"
		sleep 0.1
	done
}

"$PATCHRELAY" run -c relay.conf --interval 1 2>log &
pid=$!
wait_for '1 mail(s) sent'

printf '[route "x"]\n\tfrom = nowhere\n' > relay.conf
kill -HUP "$pid"
wait_for 'does not validate: kept the running config'
kill -0 "$pid" || fail "died on a bad reload"

cp good.conf relay.conf
kill -HUP "$pid"
wait_for "reloaded 'relay.conf'"

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM: $(cat log)"
[ "$(ls maildir/new | wc -l)" -eq 1 ] || fail "mails: $(ls maildir/new)"
echo "signals.sh: ok"
