#!/bin/sh
# A loopback dovecot IMAP server for patchrelay's tests.
#
#   dovecot.sh start DIR USER PASSWORD   write DIR/dovecot.conf, start dovecot,
#                                        wait until it answers; prints nothing
#   dovecot.sh stop DIR                  stop it and wait until it is gone
#
# After start: DIR/port holds the plaintext IMAP port (it offers STARTTLS),
# DIR/tls-port the implicit TLS (imaps) port, DIR/ca.pem a test CA made
# now (CA:TRUE, its key thrown away) to give as ca-file, DIR/cert.pem the
# server's certificate that CA signed (CN 127.0.0.1, subjectAltName
# 127.0.0.1 and 127.0.0.2, not itself a CA), DIR/mail/ the
# user's maildir (INBOX is DIR/mail itself, other mailboxes DIR/mail/.NAME)
# and DIR/log dovecot's log.
#
# Both ports listen on 127.0.0.1 and 127.0.0.2.  dovecot refuses logins
# without TLS (disable_plaintext_auth, LOGINDISABLED) except from its own
# address: so a client on 127.0.0.1 may log in in plain text, and one
# connecting to 127.0.0.2 (from 127.0.0.1, the kernel's source address on
# lo) must STARTTLS first.  DIR/tls-host holds that second address.
#
# dovecot runs as the current user; everything it writes is under DIR.
# Exits non-zero, with dovecot's log, when dovecot is missing or does not
# come up.
set -eu

die() { echo "dovecot.sh: $*" >&2; exit 1; }

# a free loopback port: bind to port 0 and read what the kernel chose
free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

answers() { # answers PORT: 0 once something accepts on 127.0.0.1:PORT
	/usr/bin/python3 -c 'import socket,sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)
sys.exit(0 if s.recv(64).startswith(b"* OK") else 1)' "$1" 2>/dev/null
}

start() {
	dir=$1 user=$2 pass=$3
	command -v dovecot > /dev/null || die "dovecot is not installed (apt-get install dovecot-imapd dovecot-core)"
	command -v openssl > /dev/null || die "openssl is not installed"
	mkdir -p "$dir/mail" "$dir/base" "$dir/state"
	dir=$(cd "$dir" && pwd)
	# dovecot's login processes refuse to run as root and its mail
	# processes refuse UID 0: as root (CI) use the users the package
	# made, and let them reach DIR
	if [ "$(id -u)" = 0 ]; then
		iuser=dovecot luser=dovenull muser=dovecot
		d=$dir
		while [ "$d" != / ]; do
			chmod o+x "$d"
			d=$(dirname "$d")
		done
		mkdir -p "$dir/home"
		chown -R "$muser" "$dir/mail" "$dir/home"
	else
		iuser=$(id -un) luser=$iuser muser=$iuser
	fi
	port=$(free_port)
	tport=$(free_port)
	[ "$port" != "$tport" ] || tport=$(free_port)
	# a CA and a server certificate it signs: the client verifies a
	# chain, as against a real server, not a pinned self-signed leaf
	printf 'basicConstraints=critical,CA:FALSE\nsubjectAltName=IP:127.0.0.1,IP:127.0.0.2\nextendedKeyUsage=serverAuth\n' \
		> "$dir/server.ext"
	{ openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
		-subj '/CN=patchrelay test CA' \
		-addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,cRLSign \
		-keyout "$dir/ca-key.pem" -out "$dir/ca.pem" &&
	openssl req -new -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
		-keyout "$dir/key.pem" -out "$dir/server.csr" &&
	openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" \
		-CAkey "$dir/ca-key.pem" -CAcreateserial -days 2 \
		-extfile "$dir/server.ext" -out "$dir/cert.pem"
	} > "$dir/openssl.log" 2>&1 ||
		die "openssl could not make the certificates: $(cat "$dir/openssl.log")"
	rm -f "$dir/ca-key.pem"
	printf '%s:{PLAIN}%s:::::\n' "$user" "$pass" > "$dir/passwd"
	cat > "$dir/dovecot.conf" <<CONF
protocols = imap
listen = 127.0.0.1, 127.0.0.2
base_dir = $dir/base
state_dir = $dir/state
log_path = $dir/log
info_log_path = $dir/log
default_internal_user = $iuser
default_login_user = $luser
auth_mechanisms = plain login
# plain text logins only from dovecot's own address (see above)
disable_plaintext_auth = yes
ssl = yes
ssl_cert = <$dir/cert.pem
ssl_key = <$dir/key.pem
ssl_min_protocol = TLSv1.2
mail_location = maildir:$dir/mail
# the mail user may be a system user (CI runs as root)
first_valid_uid = 1
passdb {
  driver = passwd-file
  args = scheme=PLAIN $dir/passwd
}
userdb {
  driver = static
  args = uid=$(id -u "$muser") gid=$(id -g "$muser") home=$dir/home
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1, 127.0.0.2
    port = $port
  }
  inet_listener imaps {
    address = 127.0.0.1, 127.0.0.2
    port = $tport
    ssl = yes
  }
  chroot =
}
service anvil {
  chroot =
}
service stats {
  unix_listener stats-writer {
    mode = 0666
  }
}
CONF
	dovecot -F -c "$dir/dovecot.conf" > "$dir/stdout" 2>&1 &
	echo $! > "$dir/pid"
	i=0
	while ! answers "$port"; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			cat "$dir/stdout" "$dir/log" >&2 2>/dev/null || true
			die "dovecot did not come up on 127.0.0.1:$port"
		fi
		sleep 0.1
	done
	echo "$port" > "$dir/port"
	echo "$tport" > "$dir/tls-port"
	echo 127.0.0.2 > "$dir/tls-host"
}

stop() {
	dir=$1
	[ -f "$dir/pid" ] || return 0
	pid=$(cat "$dir/pid")
	kill "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$dir/pid"
}

case ${1:-} in
start) [ $# -eq 4 ] || die "usage: dovecot.sh start DIR USER PASSWORD"; start "$2" "$3" "$4" ;;
stop) [ $# -eq 2 ] || die "usage: dovecot.sh stop DIR"; stop "$2" ;;
*) die "usage: dovecot.sh start DIR USER PASSWORD | stop DIR" ;;
esac
