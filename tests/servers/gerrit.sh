#!/bin/sh
# The Gerrit emulator (tests/emulators/gerrit.py) behind a real OpenSSH sshd.
#
#   gerrit.sh start DIR   make keys and config under DIR, start the REST
#                         server and sshd on free loopback ports, wait until
#                         both answer, write DIR/env; prints nothing
#   gerrit.sh stop DIR    stop both, and every ssh session still open
#
# DIR/env holds shell assignments (`. DIR/env`); tests/emulators/README.md
# ("Gerrit") lists them.  sshd is Debian's /usr/sbin/sshd with its own
# sshd_config, host key, pid file and log under DIR; it never reads /etc/ssh.
# Its users (admin, alice, bob, relay) are not system accounts: sshd looks
# them up through libnss_wrapper (Debian package libnss-wrapper) in DIR/passwd,
# all with the current uid, each allowed only its own key, and a ForceCommand
# hands every session to the emulator.  As root, sshd needs its privilege
# separation directory /run/sshd (made if missing; nothing else outside DIR
# is touched).  Exits non-zero with the logs when something does not come up.
set -eu

die() { echo "gerrit.sh: $*" >&2; exit 1; }

PY=/usr/bin/python3
SSHD=/usr/sbin/sshd
NSS_WRAPPER=/usr/lib/x86_64-linux-gnu/libnss_wrapper.so
USERS="admin alice bob relay"
here=$(cd "$(dirname "$0")" && pwd)
EMU=$(cd "$here/../emulators" && pwd)/gerrit.py

free_port() {
	$PY -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ssh_as USER ARGS...: OpenSSH's client as USER against the emulator
ssh_as() {
	u=$1
	shift
	ssh -i "$dir/keys/$u" -o IdentitiesOnly=yes -o BatchMode=yes \
		-o UserKnownHostsFile="$dir/known_hosts" -o StrictHostKeyChecking=yes \
		-o ConnectTimeout=5 -p "$sport" "$u@127.0.0.1" "$@"
}

start() {
	dir=$1
	[ -x "$SSHD" ] || die "no $SSHD (apt-get install openssh-server)"
	if [ ! -e "$NSS_WRAPPER" ]; then
		NSS_WRAPPER=$(ls /usr/lib/*/libnss_wrapper.so 2>/dev/null | head -n 1)
		[ -n "$NSS_WRAPPER" ] || die "no libnss_wrapper.so (apt-get install libnss-wrapper)"
	fi
	command -v ssh-keygen > /dev/null || die "no ssh-keygen (apt-get install openssh-client)"
	command -v git > /dev/null || die "no git"
	if [ ! -d /run/sshd ]; then
		[ "$(id -u)" = 0 ] || die "sshd needs /run/sshd, which only root can make"
		mkdir -p /run/sshd
	fi
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	[ ! -f "$dir/rest.pid" ] || die "$dir already has a running emulator (stop it first)"
	mkdir -p "$dir/keys" "$dir/authorized_keys" "$dir/home"
	rm -f "$dir/ssh_host_ed25519_key" "$dir/ssh_host_ed25519_key.pub"
	ssh-keygen -q -t ed25519 -N '' -C gerrit-emulator -f "$dir/ssh_host_ed25519_key"
	uid=$(id -u) gid=$(id -g)
	{
		getent passwd root || echo "root:x:0:0:root:/root:/bin/sh"
		getent passwd sshd || echo "sshd:x:65534:65534::/run/sshd:/usr/sbin/nologin"
	} > "$dir/passwd"
	{
		getent group root || echo "root:x:0:"
		getent group nogroup || echo "nogroup:x:65534:"
	} > "$dir/group"
	[ "$uid" = 0 ] || echo "$(id -un):x:$uid:$gid::$dir/home:/bin/sh" >> "$dir/passwd"
	[ "$gid" = 0 ] || echo "$(id -gn):x:$gid:" >> "$dir/group"
	for u in $USERS; do
		if [ ! -f "$dir/keys/$u" ]; then
			ssh-keygen -q -t ed25519 -N '' -C "$u@gerrit-emulator" -f "$dir/keys/$u"
		fi
		cp "$dir/keys/$u.pub" "$dir/authorized_keys/$u"
		mkdir -p "$dir/home/$u"
		echo "$u:x:$uid:$gid:$u:$dir/home/$u:/bin/sh" >> "$dir/passwd"
	done

	sport=$(free_port)
	rm -f "$dir/rest.port"
	$PY "$EMU" serve --root "$dir" --ssh-port "$sport" \
		--port-file "$dir/rest.port" > "$dir/rest.log" 2>&1 &
	echo $! > "$dir/rest.pid"
	i=0
	while [ ! -s "$dir/rest.port" ]; do
		i=$((i + 1))
		if [ $i -gt 200 ] || ! kill -0 "$(cat "$dir/rest.pid")" 2>/dev/null; then
			cat "$dir/rest.log" >&2
			rm -f "$dir/rest.pid"
			die "the REST server did not come up"
		fi
		sleep 0.05
	done
	rport=$(cat "$dir/rest.port")

	# sshd wants an absolute path, its own config (-f) and, in the
	# foreground (-D), logs on stderr (-e)
	cat > "$dir/sshd_config" <<CONF
Port $sport
ListenAddress 127.0.0.1
HostKey $dir/ssh_host_ed25519_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys/%u
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitUserEnvironment no
PermitTTY no
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
PrintMotd no
MaxStartups 100:30:200
MaxSessions 50
ClientAliveInterval 0
AcceptEnv GIT_PROTOCOL
ForceCommand $PY $EMU ssh --root $dir
CONF
	env LD_PRELOAD="$NSS_WRAPPER" NSS_WRAPPER_PASSWD="$dir/passwd" \
		NSS_WRAPPER_GROUP="$dir/group" \
		"$SSHD" -D -e -f "$dir/sshd_config" 2> "$dir/sshd.log" &
	echo $! > "$dir/sshd.pid.run"
	echo "[127.0.0.1]:$sport $(cut -d' ' -f1,2 "$dir/ssh_host_ed25519_key.pub")" > "$dir/known_hosts"
	i=0
	until ssh_as admin gerrit version > /dev/null 2> "$dir/ssh-check.log"; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$(cat "$dir/sshd.pid.run")" 2>/dev/null; then
			cat "$dir/sshd.log" "$dir/ssh-check.log" >&2
			stop "$dir"
			die "sshd did not come up on 127.0.0.1:$sport"
		fi
		sleep 0.1
	done
	i=0
	until curl -sf "http://127.0.0.1:$rport/config/server/version" > /dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			cat "$dir/rest.log" >&2
			stop "$dir"
			die "the REST server does not answer on 127.0.0.1:$rport"
		fi
		sleep 0.1
	done

	{
		echo "GERRIT_DIR='$dir'"
		echo "GERRIT_REST_URL='http://127.0.0.1:$rport'"
		echo "GERRIT_SSH_HOST='127.0.0.1'"
		echo "GERRIT_SSH_PORT='$sport'"
		echo "GERRIT_SSH_URL='ssh://relay@127.0.0.1:$sport'"
		echo "GERRIT_KNOWN_HOSTS='$dir/known_hosts'"
		echo "GERRIT_KNOWN_HOSTS_LINE='$(cat "$dir/known_hosts")'"
		echo "GERRIT_USERS='$USERS'"
		for u in $USERS; do
			echo "GERRIT_KEY_$u='$dir/keys/$u'"
			echo "GERRIT_HTTP_PASSWORD_$u='$($PY "$EMU" password --root "$dir" "$u")'"
			echo "GERRIT_SSH_$u='ssh -i $dir/keys/$u -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile=$dir/known_hosts -o StrictHostKeyChecking=yes -p $sport $u@127.0.0.1'"
			echo "GERRIT_GIT_SSH_$u='ssh -i $dir/keys/$u -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile=$dir/known_hosts -o StrictHostKeyChecking=yes'"
		done
		echo "GERRIT_CTL='$PY $EMU ctl --root $dir'"
	} > "$dir/env.tmp"
	mv "$dir/env.tmp" "$dir/env"
}

# wait_gone PID: up to 5 s, then SIGKILL
wait_gone() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null || true
}

stop() {
	dir=$1
	[ -d "$dir" ] || return 0
	if [ -f "$dir/sshd.pid.run" ]; then
		pid=$(cat "$dir/sshd.pid.run")
		kill "$pid" 2>/dev/null || true
		wait_gone "$pid"
		rm -f "$dir/sshd.pid.run"
	fi
	# sessions outlive the listener: end the ones the emulator knows of
	if [ -f "$dir/rest.pid" ] || [ -d "$dir/sessions" ]; then
		$PY "$EMU" ctl --root "$dir" end-sessions > /dev/null 2>&1 || true
	fi
	if [ -f "$dir/rest.pid" ]; then
		pid=$(cat "$dir/rest.pid")
		kill "$pid" 2>/dev/null || true
		wait_gone "$pid"
		rm -f "$dir/rest.pid"
	fi
}

case ${1:-} in
start) [ $# -eq 2 ] || die "usage: gerrit.sh start DIR"; start "$2" ;;
stop) [ $# -eq 2 ] || die "usage: gerrit.sh stop DIR"; stop "$2" ;;
*) die "usage: gerrit.sh start DIR | stop DIR" ;;
esac
