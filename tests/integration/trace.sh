#!/bin/sh
# PATCHRELAY_TRACE against real servers: an smtp sink logging in over
# STARTTLS to tests/servers/smtpd.py (AUTH) and an imap source logging in
# over STARTTLS to dovecot each write the conversation to stderr, and
# neither the password nor its base64 forms (AUTH PLAIN, AUTH LOGIN)
# appear in it; without PATCHRELAY_TRACE nothing of it is written.
set -u
PY=/usr/bin/python3
fail() {
	echo "trace.sh: $*" >&2
	exit 1
}
$PY -c 'import aiosmtpd' 2>/dev/null || fail "no python3-aiosmtpd"
tmp=$(mktemp -d) || exit 1
servers="$PR_SRC/tests/servers"
smtp=
cleanup() {
	[ -n "$smtp" ] && kill "$smtp" 2>/dev/null
	sh "$servers/dovecot.sh" stop "$tmp/dovecot" 2>/dev/null || true
	if [ -n "${KEEP:-}" ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
cd "$tmp" || exit 1

pw='tr4ce s3cret'
# the forms a password takes on the wire: raw, AUTH LOGIN, AUTH PLAIN
b64() { printf '%s' "$1" | base64 -w0; }
secrets="$pw
$(b64 "$pw")
$(printf '\0bot\0%s' "$pw" | base64 -w0)
$(printf 'bot\0bot\0%s' "$pw" | base64 -w0)"
# no_secret FILE: none of the password's forms is in FILE
no_secret() {
	echo "$secrets" | while IFS= read -r s; do
		[ -n "$s" ] || continue
		if grep -qF -- "$s" "$1"; then
			echo "the password ('$s') is in $1" >&2
			exit 1
		fi
	done
}

# dovecot first: it makes the certificate the smtp server uses too
sh "$servers/dovecot.sh" start "$tmp/dovecot" bot "$pw" ||
	fail "dovecot did not start"
port=$(cat dovecot/port)
printf '%s' "$pw" >pw

# -- smtp: a one-patch series from a git source, AUTH after STARTTLS
export GIT_AUTHOR_NAME='Ada Demo' GIT_AUTHOR_EMAIL=ada@example.org
export GIT_COMMITTER_NAME='Ada Demo' GIT_COMMITTER_EMAIL=ada@example.org
git init -q -b main repo
echo base >repo/file
git -C repo add file
git -C repo commit -q -m base
git -C repo checkout -q -b topic
echo more >>repo/file
git -C repo commit -q -a -m "file: one more line" -m "Signed-off-by: Ada Demo <ada@example.org>"
$PY "$servers/smtpd.py" --maildir "$tmp/box" --log box.log \
	--port-file smtp.port --cert dovecot/cert.pem --key dovecot/key.pem \
	--require-tls --user bot --password "$pw" 2>smtp.err &
smtp=$!
n=0
while [ ! -s smtp.port ]; do
	n=$((n + 1))
	[ "$n" -gt 100 ] && fail "smtpd did not start: $(cat smtp.err)"
	sleep 0.1
done
sconf() { # FILE STATE
	cat >"$1" <<CONF
[core]
	state = $tmp/$2
[source "repo"]
	type = git
	url = $tmp/repo
	branch = topic
	base = main
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$(cat smtp.port)
	ca-file = $tmp/dovecot/cert.pem
	user = bot
	password = file:$tmp/pw
	from = Patch Relay <relay@example.org>
	to = netdev@example.org
[route "r"]
	from = repo
	to = list
CONF
}
sconf smtp.conf state.db
PATCHRELAY_TRACE=smtp "$PATCHRELAY" run -c smtp.conf --once 2>smtp.log ||
	fail "smtp run failed: $(cat smtp.log)"
[ "$(ls box/new | wc -l)" -eq 1 ] || fail "the mail was not delivered: $(cat smtp.log)"
t='patchrelay: trace \[smtp:list\]'
for want in "> EHLO " "> STARTTLS" "> AUTH [A-Z-]*" "> MAIL FROM:<relay@example.org>" \
	"> RCPT TO:<netdev@example.org>" "> DATA" "< 250" "= [0-9]* bytes of body sent"; do
	grep -q "^$t $want" smtp.log || fail "no '$want' in the smtp trace: $(cat smtp.log)"
done
no_secret smtp.log || fail "smtp trace: $(grep trace smtp.log)"
# the lines libcurl sent during AUTH are redacted
grep "^$t > " smtp.log | grep -v -e ' > EHLO ' -e ' > STARTTLS' -e ' > AUTH [A-Z-]*\( <redacted>\)\{0,1\}$' \
	-e ' > MAIL FROM:' -e ' > RCPT TO:' -e ' > DATA$' -e ' > QUIT$' -e ' > <redacted>$' >odd.txt
[ -s odd.txt ] && fail "smtp trace sent lines not known to be harmless: $(cat odd.txt)"
# without PATCHRELAY_TRACE, no trace line
sconf smtp2.conf state2.db
rm -rf box
"$PATCHRELAY" run -c smtp2.conf --once 2>plain.log || fail "second smtp run failed: $(cat plain.log)"
grep -q 'trace' plain.log && fail "a trace without PATCHRELAY_TRACE: $(cat plain.log)"

# -- imap: a poll over STARTTLS, the login redacted
icurl() { curl -sS --max-time 20 -u "bot:$pw" "$@"; }
icurl "imap://127.0.0.1:$port/" -X 'CREATE list' >/dev/null || fail "CREATE list failed"
for f in "$PR_SRC"/tests/data/sources/list/*.eml; do
	sed 's/$/\r/' "$f" >crlf.eml
	icurl -T crlf.eml "imap://127.0.0.1:$port/list" || fail "APPEND of $f failed"
done
cat >imap.conf <<CONF
[source "list"]
	type = imap
	url = imap://127.0.0.1:$port/list
	ca-file = $tmp/dovecot/cert.pem
	user = bot
	password = file:$tmp/pw
CONF
PATCHRELAY_TRACE=imap "$PATCHRELAY" poll -c imap.conf list --json >imap.json 2>imap.log ||
	fail "imap poll failed: $(cat imap.log)"
grep -q '"kind"' imap.json || fail "the imap poll read nothing: $(cat imap.json)"
t='patchrelay: trace \[imap:list\]'
for want in "> [A-Z0-9]* CAPABILITY" "> [A-Z0-9]* STARTTLS" \
	"> [A-Z0-9]* \(LOGIN\|AUTHENTICATE [A-Z-]*\)\( <redacted>\)\{0,1\}$" \
	"> [A-Z0-9]* UID SEARCH" "< \* OK"; do
	grep -q "^$t $want" imap.log || fail "no '$want' in the imap trace: $(cat imap.log)"
done
no_secret imap.log || fail "imap trace: $(grep trace imap.log)"
echo "trace.sh: ok"
