#!/bin/sh
# The git source over ssh and https, against real servers on loopback:
# OpenSSH's sshd with a throwaway host key and user key.  With the host key
# in `known-hosts` (plain or hashed) and the user key as `ssh-key` the
# series arrives (the same mails as the local case, the Date: aside); a
# host missing from known_hosts, a different host key, an unreadable file
# and a refused user key are each a clear error of the source, and nothing
# is sent.  The git sink pushes over ssh with the same options (and not
# to a host it does not know).  Over HTTP with basic auth (git's
# git-http-backend behind tests/servers/git_http.py) user and password get
# through, and a wrong or missing password is said so.  An https server
# with a self-signed certificate is refused by the TLS check before any
# request.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
# a sanitized build: libgit2 1.5.1's own ssh leaks are suppressed (see
# tests/lsan.supp); the full unwind lets the suppression see its frame
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$PR_SRC/tests/lsan.supp"

git_identity 'Ada Demo <ada@example.org>' '@1796299200 +0000'
git_repo work
git_commits work 2
git clone -q --bare work repo.git

start_sshd "$tmp/repo.git"
port=$sshd_port
cp "$sshd_key" userkey
cp "$sshd_known_hosts" known_hosts
ssh-keygen -q -t ed25519 -N '' -C other -f otherkey
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 otherkey.pub)" > wrong_hosts
: > empty_hosts

url="ssh://$(id -un)@127.0.0.1:$port$tmp/repo.git"
conf() { # NAME URL KNOWN-HOSTS SSH-KEY
	mkdir "$1"
	git_maildir_conf "$tmp/$1" "$2" cover-letter=never "known-hosts=$3" \
		"ssh-key=$4" >"$1.conf"
}
conf local "$tmp/repo.git" "$tmp/known_hosts" "$tmp/userkey"
conf ssh "$url" "$tmp/known_hosts" "$tmp/userkey"
"$PATCHRELAY" run -c local.conf --once 2>local/log || fail "local: $(cat local/log)"
"$PATCHRELAY" run -c ssh.conf --once 2>ssh/log || fail "ssh: $(cat ssh/log)"
grep -q '2 mail(s) sent' ssh/log || fail "ssh: $(cat ssh/log)"
# the Date: is the time of the delivery
for f in local/maildir/new/*; do
	grep -v '^Date: ' "$f" >want
	grep -v '^Date: ' "ssh/maildir/new/${f##*/}" >got
	diff -u want got || fail "ssh: ${f##*/} differs"
done

# known_hosts with hashed names (ssh-keygen -H) is read as ssh reads it
cp known_hosts hashed_hosts
ssh-keygen -q -H -f hashed_hosts >/dev/null 2>&1
grep -q '^|1|' hashed_hosts || fail "ssh-keygen -H hashed nothing"
conf hashed "$url" "$tmp/hashed_hosts" "$tmp/userkey"
"$PATCHRELAY" run -c hashed.conf --once 2>hashed/log || fail "hashed: $(cat hashed/log)"
grep -q '2 mail(s) sent' hashed/log || fail "hashed: $(cat hashed/log)"

refused() { # NAME KNOWN-HOSTS SSH-KEY MESSAGE
	conf "$1" "$url" "$2" "$3"
	rc=0
	"$PATCHRELAY" run -c "$1.conf" --once 2>"$1/log" || rc=$?
	[ "$rc" -eq 3 ] || fail "$1: exit status $rc: $(cat "$1/log")"
	grep -qF "source 'repo': fetch refs from '$url': $4" "$1/log" ||
		fail "$1: not '$4': $(cat "$1/log")"
	[ ! -d "$1/maildir/new" ] || [ -z "$(ls "$1/maildir/new")" ] ||
		fail "$1: mail written"
}
refused unknown "$tmp/empty_hosts" "$tmp/userkey" \
	"host key of '127.0.0.1' port $port is not in '$tmp/empty_hosts'"
refused wrong "$tmp/wrong_hosts" "$tmp/userkey" \
	"host key of '127.0.0.1' port $port does not match the one in '$tmp/wrong_hosts'"
refused nofile "$tmp/no-such-file" "$tmp/userkey" \
	"host key of '127.0.0.1': cannot read '$tmp/no-such-file'"
refused badkey "$tmp/known_hosts" "$tmp/otherkey" \
	"the server refused the credentials offered"

# the git sink pushes over ssh with the same options; a host it does not
# know gets no push
git init -q --bare pushed.git
sink() { # NAME KNOWN-HOSTS
	mkdir "$1"
	cat > "$1.conf" <<CONF
[core]
	state = $tmp/$1/state.db
[source "repo"]
	type = git
	url = $tmp/repo.git
	branch = topic
	base = main
[sink "up"]
	type = git
	url = ssh://$(id -un)@127.0.0.1:$port$tmp/pushed.git
	base = main
	known-hosts = $2
	ssh-key = $tmp/userkey
[route "r"]
	from = repo
	to = up
CONF
}
git -C repo.git push -q "$tmp/pushed.git" main
sink push-unknown "$tmp/empty_hosts"
rc=0
"$PATCHRELAY" run -c push-unknown.conf --once 2>push-unknown/log || rc=$?
grep -qF "host key of '127.0.0.1' port $port is not in '$tmp/empty_hosts'" \
	push-unknown/log || fail "push to an unknown host: $(cat push-unknown/log)"
[ -z "$(git -C pushed.git for-each-ref refs/heads/patchrelay)" ] ||
	fail "pushed to an unknown host"
sink push "$tmp/known_hosts"
"$PATCHRELAY" run -c push.conf --once 2>push/log || fail "push: $(cat push/log)"
git -C repo.git log -p main..topic | git patch-id --stable | cut -d' ' -f1 >want.ids
git -C pushed.git log -p main..patchrelay/topic/v1 | git patch-id --stable |
	cut -d' ' -f1 >got.ids
[ -s want.ids ] && cmp -s want.ids got.ids ||
	fail "pushed over ssh: patch-ids differ: $(cat push/log)"

# HTTP basic auth in front of git's own git-http-backend: user and the
# password secret get through; a wrong password and none at all are each
# said so, and the password is never in a message
start_git_http "$tmp" bob 's3cret-pw'
hurl="$git_http_url/repo.git"
printf 's3cret-pw\n' >pw.good
printf 'wrong-pw\n' >pw.bad
http_conf() { # NAME PASSWORD-FILE (none: no credentials)
	mkdir "$1"
	if [ "$2" = none ]; then
		git_maildir_conf "$tmp/$1" "$hurl" cover-letter=never
	else
		git_maildir_conf "$tmp/$1" "$hurl" cover-letter=never user=bob \
			"password=file:$2"
	fi >"$1.conf"
}
http_conf http "$tmp/pw.good"
"$PATCHRELAY" run -c http.conf --once 2>http/log || fail "http: $(cat http/log)"
grep -q '2 mail(s) sent' http/log || fail "http: $(cat http/log)"
for f in local/maildir/new/*; do
	grep -v '^Date: ' "$f" >want
	grep -v '^Date: ' "http/maildir/new/${f##*/}" >got
	diff -u want got || fail "http: ${f##*/} differs"
done
for c in http-bad:"$tmp/pw.bad":"the server refused the credentials offered" \
	http-none:none:"the server asks for credentials and none are configured"; do
	name=${c%%:*} rest=${c#*:}
	http_conf "$name" "${rest%%:*}"
	rc=0
	"$PATCHRELAY" run -c "$name.conf" --once 2>"$name/log" || rc=$?
	[ "$rc" -eq 3 ] || fail "$name: exit status $rc: $(cat "$name/log")"
	grep -qF "fetch refs from '$hurl': ${rest#*:}" "$name/log" ||
		fail "$name: $(cat "$name/log")"
done
grep -q 's3cret' http/log http-bad/log http-none/log &&
	fail "a password was logged"
stop "$git_http_pid"

# https with a certificate nobody signed: the TLS check refuses it (the
# server would answer 501 to a client that did not check)
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -days 2 \
	-keyout tls.key -out tls.crt 2>/dev/null
hport=$(free_port)
cat >https.py <<'PYEOF'
import http.server, ssl, sys
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain("tls.crt", "tls.key")
srv = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])),
                             http.server.BaseHTTPRequestHandler)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
open("https.ready", "w").close()
srv.serve_forever()
PYEOF
spawn https_pid $PY https.py "$hport" 2>https.log
wait_for 10 test -f https.ready ||
	fail "https server did not start: $(cat https.log)"
conf tls "https://127.0.0.1:$hport/repo.git" "$tmp/known_hosts" "$tmp/userkey"
rc=0
"$PATCHRELAY" run -c tls.conf --once 2>tls/log || rc=$?
[ "$rc" -eq 3 ] || fail "tls: exit status $rc: $(cat tls/log)"
grep -q "source 'repo': fetch refs from 'https://127.0.0.1:$hport/repo.git': .*certificate" \
	tls/log || fail "tls: not a certificate error: $(cat tls/log)"
grep -q 'http status' tls/log && fail "tls: the request was sent: $(cat tls/log)"
echo "run_git_auth.sh: ok"
