#!/bin/sh
# The daemon as a systemd service:
# (a) systemd-analyze verify accepts docs/patchrelay.service (its
#     ExecStart pointed at this build, its man pages installed);
# (b) sd_notify through $NOTIFY_SOCKET (a socket of the test's, a path
#     and then an abstract one): READY=1 once the web server answers,
#     RELOADING=1 and READY=1 around a SIGHUP, STOPPING=1 at the end;
# (c) the reload takes the new hook secret: the old one is then 401, the
#     new one 202; a new core.http is logged and not taken.
. "$(dirname "$0")/web_lib.sh"

# -- (a)
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p unit man/man1 man/man5
	sed "s|^ExecStart=/usr/bin/patchrelay |ExecStart=$PATCHRELAY |" \
		"$PR_SRC/docs/patchrelay.service" >unit/patchrelay.service
	grep -q "^ExecStart=$PATCHRELAY run" unit/patchrelay.service ||
		fail "no ExecStart to point at the build"
	cp "$PR_SRC/docs/man/patchrelay.1" man/man1/
	cp "$PR_SRC/docs/man/patchrelay.conf.5" man/man5/
	MANPATH=$tmp/man systemd-analyze verify unit/patchrelay.service \
		>verify.out 2>&1 || fail "systemd-analyze verify: $(cat verify.out)"
	[ ! -s verify.out ] || fail "systemd-analyze verify said: $(cat verify.out)"
	# and it is a unit that checks: a typo is caught
	sed 's/^ProtectSystem=strict/ProtectSystem=stict/' unit/patchrelay.service \
		>unit/bad.service
	MANPATH=$tmp/man systemd-analyze verify unit/bad.service >bad.out 2>&1
	grep -qi 'protect.system' bad.out || fail "a bad unit passes: $(cat bad.out)"
	echo "systemd-analyze verify: ok"
else
	echo "$me: no systemd-analyze: (a) skipped"
fi

# -- (b) a listener of our own on the notify socket
cat >notify.py <<'PYEOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
addr = sys.argv[1]
s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
with open(sys.argv[2], "a", buffering=1) as out:
    out.write("listening\n")
    while True:
        data = s.recv(4096).decode()
        out.write(data + "\n")
PYEOF
branch topic1 drivers/net/foo/foo.c 'int foo2;' 'foo: add foo2'
pull "$GH" topic1 'foo: the second foo'
# the GitHub source's secret in a file, which a reload reads again
gh_config() {
	config ''
	sed "s|webhook-secret = env:GH_HOOK_SECRET|webhook-secret = file:$tmp/gh.secret|" \
		relay.conf >relay.new && mv relay.new relay.conf
	echo "$GH_SECRET" >gh.secret
}
gh_config
# notified LINE: the listener has written LINE
notified() { grep -qx "$1" notify.log; }
ready_twice() { [ "$(grep -cx READY=1 notify.log)" -ge 2 ]; }

for sock in "$tmp/notify.sock" "@patchrelay-test-$$"; do
	: >notify.log
	spawn listener $PY notify.py "$sock" notify.log
	wait_for 10 notified listening || fail "no notify listener"
	NOTIFY_SOCKET=$sock
	export NOTIFY_SOCKET
	start_daemon
	unset NOTIFY_SOCKET
	wait_for 10 notified READY=1 || fail "no READY=1 ($sock): $(cat daemon.log)"
	# ready means the server answers
	curl -sf "$W/healthz" >/dev/null || fail "READY=1 before /healthz answers"

	# -- (c) a reload with a new hook secret
	echo new-secret >gh.secret
	kill -HUP "$daemon"
	wait_for 10 ready_twice ||
		fail "no READY=1 after the reload: $(cat notify.log)"
	notified RELOADING=1 || fail "no RELOADING=1: $(cat notify.log)"
	grep -q "reloaded 'relay.conf'" daemon.log || fail "not reloaded: $(cat daemon.log)"
	out=$($HOOKS send --forge github --url "$W/hooks/gh" --secret "$GH_SECRET")
	[ "$out" = "401 bad signature" ] || fail "the old secret after the reload: $out"
	out=$($HOOKS send --forge github --url "$W/hooks/gh" --secret new-secret)
	[ "$out" = "202 polling 'gh'" ] || fail "the new secret after the reload: $out"

	# a new listen address is not taken
	sed 's/http = 127.0.0.1:0/http = 127.0.0.1:1/' relay.conf >relay.new &&
		mv relay.new relay.conf
	kill -HUP "$daemon"
	wait_for 10 grep -q "core.http changed: still on '127.0.0.1:0'" daemon.log ||
		fail "a new core.http is not told: $(cat daemon.log)"
	curl -sf "$W/healthz" >/dev/null || fail "the server went with the reload"
	gh_config

	stop "$daemon"
	[ "$stopped" -eq 0 ] || fail "the daemon's exit: $stopped"
	wait_for 10 notified STOPPING=1 || fail "no STOPPING=1: $(cat notify.log)"
	stop "$listener"
	echo "sd_notify through $sock: ok"
done
echo "ok: the service"
