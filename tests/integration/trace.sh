#!/bin/sh
# PATCHRELAY_TRACE against real servers: an smtp sink logging in over
# STARTTLS to tests/servers/smtpd.py (AUTH) and an imap source logging in
# over STARTTLS to dovecot each write the conversation to stderr, and
# neither the password nor its base64 forms (AUTH PLAIN, AUTH LOGIN)
# appear in it; without PATCHRELAY_TRACE nothing of it is written.
set -u
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || fail "no python3-aiosmtpd"
tmpdir
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
start_dovecot bot "$pw"
port=$imap_port
printf '%s' "$pw" >pw

# -- smtp: a one-patch series from a git source, AUTH after STARTTLS
git_identity 'Ada Demo <ada@example.org>'
git_repo repo
echo more >>repo/file
git -C repo commit -q -a -m "file: one more line" -m "Signed-off-by: Ada Demo <ada@example.org>"
start_smtpd "$tmp/box" --cert dovecot/cert.pem --key dovecot/key.pem \
	--require-tls --user bot --password "$pw"
sconf() { # FILE STATE
	{
		git_source_conf "$tmp/$2" "$tmp/repo"
		cat <<CONF
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$smtpd_port
	ca-file = $tmp/dovecot/ca.pem
	user = bot
	password = file:$tmp/pw
	from = Patch Relay <relay@example.org>
	to = netdev@example.org
[route "r"]
	from = repo
	to = list
CONF
	} >"$1"
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
imap_fill "imap://127.0.0.1:$port/" list "$PR_SRC"/tests/data/sources/list/*.eml
cat >imap.conf <<CONF
[source "list"]
	type = imap
	url = imap://127.0.0.1:$port/list
	ca-file = $tmp/dovecot/ca.pem
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
