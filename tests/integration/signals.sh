#!/bin/sh
# patchrelay run as a daemon: SIGHUP with an invalid config keeps the
# running one, with a valid config reloads it, SIGTERM stops it (exit 0).
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>'
git_repo repo
git_commits repo 1
git_maildir_conf "$tmp" "$tmp/repo" >good.conf
cp good.conf relay.conf

logged() { # PATTERN: wait until the log has it
	wait_for 10 grep -q "$1" log || fail "no '$1' in: $(cat log)"
}

spawn pid "$PATCHRELAY" run -c relay.conf --interval 1 2>log
logged '1 mail(s) sent'

printf '[route "x"]\n\tfrom = nowhere\n' > relay.conf
kill -HUP "$pid"
logged 'does not validate: kept the running config'
kill -0 "$pid" || fail "died on a bad reload"

cp good.conf relay.conf
kill -HUP "$pid"
logged "reloaded 'relay.conf'"

stop "$pid"
[ "$stopped" -eq 0 ] || fail "exit status $stopped after SIGTERM: $(cat log)"
[ "$(ls maildir/new | wc -l)" -eq 1 ] || fail "mails: $(ls maildir/new)"
echo "signals.sh: ok"
