#!/bin/sh
# A loopback public-inbox archive (the software behind lore) for
# patchrelay's tests.
#
#   public_inbox.sh start DIR NAME FILE...  make a v2 inbox NAME under DIR,
#                                           import the mails, serve it with
#                                           public-inbox-httpd
#   public_inbox.sh add DIR FILE...         import more mails (served at once)
#   public_inbox.sh stop DIR                stop the server
#
# Each FILE is one mail (.eml), or an mbox (first line "From "), which is
# split with git mailsplit.  After start: DIR/port holds the port, DIR/url
# the inbox's address (http://127.0.0.1:PORT/NAME/), DIR/log the server's
# log.  HOME and PI_CONFIG point into DIR, so nothing outside it is read or
# written.  Exits non-zero when public-inbox is missing or does not come up.
set -eu

die() { echo "public_inbox.sh: $*" >&2; exit 1; }

free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

env_for() { # env_for DIR: the environment public-inbox runs with
	HOME=$1/home
	PI_CONFIG=$1/config
	export HOME PI_CONFIG
}

import() { # import DIR FILE...
	d=$1
	shift
	addr=$(git config -f "$d/config" --get-regexp 'publicinbox\..*\.address' | cut -d' ' -f2)
	for f in "$@"; do
		if head -c 5 "$f" | grep -q '^From '; then
			rm -rf "$d/split"
			mkdir -p "$d/split"
			git mailsplit -o"$d/split" "$f" > /dev/null ||
				die "git mailsplit of $f failed"
			for m in "$d"/split/*; do
				ORIGINAL_RECIPIENT=$addr public-inbox-mda --no-precheck < "$m" ||
					die "public-inbox-mda refused $f"
			done
		else
			ORIGINAL_RECIPIENT=$addr public-inbox-mda --no-precheck < "$f" ||
				die "public-inbox-mda refused $f"
		fi
	done
	public-inbox-index "$d/inbox" > /dev/null 2>&1 || die "public-inbox-index failed"
}

start() { # start DIR NAME FILE...
	dir=$1 name=$2
	shift 2
	for c in public-inbox-init public-inbox-mda public-inbox-index public-inbox-httpd; do
		command -v "$c" > /dev/null || die "$c is missing (apt-get install public-inbox)"
	done
	mkdir -p "$dir/home"
	dir=$(cd "$dir" && pwd)
	env_for "$dir"
	port=$(free_port)
	url=http://127.0.0.1:$port/$name/
	public-inbox-init -V2 "$name" "$dir/inbox" "$url" "$name@example.org" \
		> "$dir/init.log" 2>&1 || die "public-inbox-init failed: $(cat "$dir/init.log")"
	# no spam checker on a test machine
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
	import "$dir" "$@"
	public-inbox-httpd -l "http://127.0.0.1:$port" -W0 > "$dir/log" 2>&1 &
	echo $! > "$dir/pid"
	i=0
	while ! curl -sf -o /dev/null --max-time 2 "${url}new.atom"; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			cat "$dir/log" >&2
			die "public-inbox-httpd did not come up on 127.0.0.1:$port"
		fi
		sleep 0.1
	done
	echo "$port" > "$dir/port"
	echo "$url" > "$dir/url"
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
start)
	[ $# -ge 4 ] || die "usage: public_inbox.sh start DIR NAME FILE..."
	shift
	start "$@"
	;;
add)
	[ $# -ge 3 ] || die "usage: public_inbox.sh add DIR FILE..."
	d=$(cd "$2" && pwd)
	shift 2
	env_for "$d"
	import "$d" "$@"
	;;
stop) [ $# -eq 2 ] || die "usage: public_inbox.sh stop DIR"; stop "$2" ;;
*) die "usage: public_inbox.sh start DIR NAME FILE... | add DIR FILE... | stop DIR" ;;
esac
