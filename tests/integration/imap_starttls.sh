#!/bin/sh
# The imap source over imap:// with STARTTLS, against a real dovecot
# (tests/servers/dovecot.sh): on its second address dovecot announces
# LOGINDISABLED until STARTTLS, so a poll there that logs in at all went
# through TLS.  starttls = required (and the default) with the CA file
# reads the same series as imaps:// and as tests/data/sources/expected.json;
# a certificate that does not verify (no ca-file, a CA that did not sign
# it, a host name it does not name; dovecot's is signed by a test CA made
# at start) is refused with an error naming the source and the server,
# over STARTTLS (also under `optional`) and over imaps://, and `patchrelay run`
# then records nothing; `never` against a server that wants TLS first is a
# clear error, not "wrong password"; a server without STARTTLS is refused
# before the password is sent.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
list="$PR_SRC/tests/data/sources/list"
expected="$PR_SRC/tests/data/sources/expected.json"

start_dovecot bot 'imap secret'
port=$imap_port
host=$imap_host
# filled in plain text from dovecot's own address, where it allows that
plain="imap://127.0.0.1:$port"
imap_fill "$plain/" list "$list"/*.eml
# the second address really wants TLS before a login
if icurl "imap://$host:$port/" > /dev/null 2>&1; then
	fail "dovecot let a plain text login in on $host"
fi

printf 'imap secret' > pw
# conf NAME URL [KEY = VALUE...]: a config with source "list"
conf() {
	n=$1 u=$2
	shift 2
	{
		echo '[source "list"]'
		echo '	type = imap'
		echo "	url = $u"
		echo '	user = bot'
		echo "	password = file:$tmp/pw"
		echo '	timeout = 20s'
		echo '	trusted = maint@example.org'
		for kv in "$@"; do echo "	$kv"; done
	} > "$n.conf"
}
# poll NAME: poll NAME.conf into NAME.json, NAME.err; must succeed
poll() {
	"$PATCHRELAY" poll -c "$1.conf" list --json > "$1.json" 2> "$1.err" ||
		fail "poll $1 failed: $(cat "$1.err")"
	poll_strip "$1.json" > "$1.got"
}
# refused NAME TEXT: the poll of NAME.conf fails; its error holds TEXT
refused() {
	if "$PATCHRELAY" poll -c "$1.conf" list --json > "$1.json" 2> "$1.err"; then
		fail "poll $1 did not fail: $(cat "$1.json")"
	fi
	grep -qF "$2" "$1.err" || fail "poll $1: no '$2' in: $(cat "$1.err")"
	grep -q '"kind"' "$1.json" && fail "poll $1: emitted events"
	grep -q 'imap secret' "$1.err" && fail "poll $1: the password is in the log"
	return 0
}

# (a) STARTTLS with the CA file: the same as imaps:// and as expected.json
conf imaps "imaps://127.0.0.1:$imap_tls_port/list" "ca-file = $tmp/dovecot/ca.pem"
poll imaps
diff -u "$expected" imaps.got || fail "imaps:// differs from expected.json"
conf req "imap://$host:$port/list" "ca-file = $tmp/dovecot/ca.pem" \
	'starttls = required'
poll req
diff -u imaps.got req.got || fail "imap:// with STARTTLS differs from imaps://"
# required is the default
conf dflt "imap://$host:$port/list" "ca-file = $tmp/dovecot/ca.pem"
poll dflt
diff -u imaps.got dflt.got || fail "the default starttls differs from required"
# optional takes STARTTLS when offered (the login on $host proves it)
conf opt "imap://$host:$port/list" "ca-file = $tmp/dovecot/ca.pem" \
	'starttls = optional'
poll opt
diff -u imaps.got opt.got || fail "starttls = optional differs"
# never goes plain: fine where dovecot allows that
conf never_ok "imap://127.0.0.1:$port/list" 'starttls = never'
poll never_ok
diff -u imaps.got never_ok.got || fail "starttls = never in plain text differs"

# (b) certificates that do not verify (dovecot's is signed by a test CA,
# tests/servers/dovecot.sh, so this is a chain to verify, as in real use)
url="imap://$host:$port/"
conf noca "imap://$host:$port/list"
refused noca "source 'list': imap '$url': the server's certificate is not trusted (SSL certificate problem: unable to get local issuer certificate): none of the system's CAs signed it; set ca-file to the CA that did"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.2 \
	-addext subjectAltName=IP:127.0.0.2 -keyout other-key.pem \
	-out other.pem > openssl.log 2>&1 || fail "openssl: $(cat openssl.log)"
conf otherca "imap://$host:$port/list" "ca-file = $tmp/other.pem"
refused otherca "source 'list': imap '$url': the server's certificate is not trusted (SSL certificate problem: unable to get local issuer certificate): no CA of ca-file '$tmp/other.pem' signed it, or it does not name the host"
# optional does not fall back to plain text on a bad certificate
conf optbad "imap://$host:$port/list" "ca-file = $tmp/other.pem" \
	'starttls = optional'
refused optbad "the server's certificate is not trusted"
# the right CA, a name the certificate does not hold
if getent hosts localhost > /dev/null; then
	conf badname "imap://localhost:$port/list" \
		"ca-file = $tmp/dovecot/ca.pem"
	refused badname "imap 'imap://localhost:$port/': the server's certificate is not trusted (SSL: no alternative certificate subject name matches target host name 'localhost')"
	conf sbadname "imaps://localhost:$imap_tls_port/list" \
		"ca-file = $tmp/dovecot/ca.pem"
	refused sbadname "source 'list': imap 'imaps://localhost:$imap_tls_port/': the server's certificate is not trusted (SSL: no alternative certificate subject name matches target host name 'localhost')"
fi
# imaps:// the same: no ca-file, and a CA that did not sign it
surl="imaps://127.0.0.1:$imap_tls_port/"
conf snoca "${surl}list"
refused snoca "source 'list': imap '$surl': the server's certificate is not trusted (SSL certificate problem: unable to get local issuer certificate): none of the system's CAs signed it; set ca-file to the CA that did"
conf sother "${surl}list" "ca-file = $tmp/other.pem"
refused sother "source 'list': imap '$surl': the server's certificate is not trusted"

# (c) patchrelay run with the untrusted certificate records nothing
mkdir -p out/new out/cur out/tmp
run_conf() { # run_conf NAME SOURCE-CONF: NAME.run.conf with a route
	{
		echo '[core]'
		echo "	state = $tmp/state.db"
		cat "$2"
		echo '[sink "out"]'
		echo '	type = maildir'
		echo "	path = $tmp/out"
		echo '[route "r"]'
		echo '	from = list'
		echo '	to = out'
	} > "$1.run.conf"
}
run_conf bad noca.conf
rc=0
"$PATCHRELAY" run -c bad.run.conf --once > run.out 2> run.err || rc=$?
[ "$rc" -eq 3 ] || fail "run with an untrusted certificate: exit $rc: $(cat run.err)"
grep -qF "source 'list': imap '$url': the server's certificate is not trusted" run.err ||
	fail "run: unclear error: $(cat run.err)"
[ -z "$(ls out/new)" ] || fail "run with an untrusted certificate sent mail"
$PY -c 'import sqlite3,sys
db = sqlite3.connect(sys.argv[1])
n = [db.execute("SELECT COUNT(*) FROM " + t).fetchone()[0]
     for t in ("cursors", "series", "versions", "deliveries")]
assert n == [0, 0, 0, 0], n' state.db ||
	fail "run with an untrusted certificate recorded something"
# the same with the CA file then sends what the list holds
run_conf good req.conf
"$PATCHRELAY" run -c good.run.conf --once > run2.out 2> run2.err ||
	fail "run over STARTTLS failed: $(cat run2.err)"
[ -n "$(ls out/new)" ] || fail "run over STARTTLS sent nothing: $(cat run2.err)"

# (d) never, where dovecot wants TLS before the login
conf never "imap://$host:$port/list" 'starttls = never'
refused never "source 'list': imap '$url': the server refuses to log in without TLS (it announces LOGINDISABLED) and starttls is 'never'; set starttls = required or use imaps://"
grep -q 'wrong user or password' never.err && fail "never: blamed the password: $(cat never.err)"
# and a wrong password over STARTTLS is still called that
printf 'Xyzzy-bad' > badpw
sed "s|file:$tmp/pw|file:$tmp/badpw|" req.conf > badpw.conf
refused badpw "imap '$url': login refused for user 'bot' (wrong user or password?)"

# (e) a server that does not offer STARTTLS: required stops before the
# login; the fake server records every line it got
cat >fake.py <<'PYEOF'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
log = open(sys.argv[2], "w")
while True:
    c, _ = s.accept()
    c.sendall(b"* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] no tls here\r\n")
    f = c.makefile("rb")
    for line in f:
        log.write(line.decode(errors="replace")); log.flush()
        tag = line.split(b" ")[0]
        if b"CAPABILITY" in line.upper():
            c.sendall(b"* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n" + tag + b" OK done\r\n")
        elif b"LOGOUT" in line.upper():
            c.sendall(b"* BYE\r\n" + tag + b" OK bye\r\n"); break
        else:
            c.sendall(tag + b" NO not here\r\n")
    c.close()
PYEOF
spawn fake_pid $PY fake.py fake.port fake.log >fake.out 2>&1
wait_for 10 test -s fake.port ||
	fail "the fake server did not start: $(cat fake.out)"
conf nostls "imap://127.0.0.1:$(cat fake.port)/list" "ca-file = $tmp/dovecot/ca.pem"
refused nostls "imap 'imap://127.0.0.1:$(cat fake.port)/': the server does not offer STARTTLS (STARTTLS not available.) and starttls is 'required'"
grep -qi 'AUTHENTICATE\|LOGIN' fake.log && fail "credentials went to a server without TLS: $(cat fake.log)"
grep -q CAPABILITY fake.log || fail "the fake server saw nothing: $(cat fake.log)"
# optional there goes on in plain text, and says so (the fake refuses
# the login itself)
conf noopt "imap://127.0.0.1:$(cat fake.port)/list" 'starttls = optional'
refused noopt "login refused for user 'bot'"
grep -qF "warning: [imap:list] imap 'imap://127.0.0.1:$(cat fake.port)/': the server does not offer STARTTLS: logging in without TLS, the password in plain text (starttls = optional)" noopt.err ||
	fail "optional without STARTTLS: no warning: $(cat noopt.err)"
grep -qi 'AUTHENTICATE\|LOGIN' fake.log || fail "optional did not log in: $(cat fake.log)"
# where STARTTLS was taken, no such warning
grep -q 'plain text' opt.err && fail "optional with STARTTLS warned: $(cat opt.err)"
echo "imap_starttls.sh: ok"
