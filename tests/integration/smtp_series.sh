#!/bin/sh
# A 5-patch series with a cover letter, from a git source through the smtp
# sink to tests/servers/smtpd.py: exactly 6 mails, threaded to the cover,
# To/Cc from the sink's to/cc, the foreign author in an in-body From line,
# RFC 2047 names, and `git am` of the mails on the base gives back the
# same commits.  Then the server stops after the third mail: the next pass
# sends only the other 3 and no Message-ID arrives twice.  Then a route
# whose max-recipients is too low sends nothing and says why.
set -u
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || skip "no python3-aiosmtpd"
tmpdir
cd "$tmp" || exit 1

git_identity 'Ada Lovelace <ada@example.org>' '1796299200 +0000'
mkdir -p repo/net
echo base >repo/net/file
git_base repo
git -C repo checkout -q -b topic
i=1
while [ "$i" -le 5 ]; do
	echo "line $i" >>repo/net/file
	if [ "$i" -eq 2 ]; then
		# a foreign author with a non-ASCII name
		GIT_AUTHOR_NAME='Jörg Fremd' GIT_AUTHOR_EMAIL=jf@other.org \
			git -C repo commit -q -a -m "net: change $i" \
			-m "Body of change $i." -m "Signed-off-by: Jörg Fremd <jf@other.org>"
	else
		git -C repo commit -q -a -m "net: change $i" -m "Body of change $i."
	fi
	i=$((i + 1))
done
git -C repo config branch.topic.description \
	"net: five small changes

Why the five changes are needed."

start_smtpd box
{
	git_source_conf "$tmp/state.db" "$tmp/repo"
	cat <<CONF
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$smtpd_port
	starttls = never
	from = Pätch Relay <relay@example.org>
	to = netdev@example.org
	cc = Rëviewer Person <reviewer@example.org>
	cc = NETDEV@example.org
	cc = second@example.org
	archive-url = https://lore.example.org/r/%m
[route "r"]
	from = repo
	to = list
CONF
} >relay.conf
"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "pass 1: $(cat log1)"
grep -q '6 mail(s) sent' log1 || fail "pass 1: $(cat log1)"

# the mails as they arrived, checked and put in thread order
$PY - "$tmp/box" "$tmp/am.mbox" <<'PYEOF' || fail "mails are wrong"
import email, email.header, mailbox, re, sys
box = mailbox.Maildir(sys.argv[1], create=False)
def num(r):
    m = email.message_from_bytes(r)
    return int(re.search(r"\[PATCH (\d)/5\]", m["Subject"]).group(1))
raw = sorted((m.as_bytes() for m in box), key=num)
assert len(raw) == 6, len(raw)
mails = [email.message_from_bytes(r) for r in raw]
assert mails[0]["Subject"] == "[PATCH 0/5] net: five small changes", mails[0]["Subject"]
ids = [m["Message-ID"] for m in mails]
assert len(set(ids)) == 6, ids
root = ids[0]
for i, m in enumerate(mails):
    # RFC 2047 sender name, fixed recipients, case-insensitive dedup
    assert m["From"] == "=?UTF-8?q?P=C3=A4tch=20Relay?= <relay@example.org>", m["From"]
    assert m["To"] == "netdev@example.org", m["To"]
    cc = " ".join(m["Cc"].split())
    assert cc == "=?UTF-8?q?R=C3=ABviewer=20Person?= <reviewer@example.org>, second@example.org", cc
    name = str(email.header.make_header(email.header.decode_header(m["Cc"].split(",")[0])))
    assert name.startswith("Rëviewer Person"), name
    assert m["X-Mailer"] == "git-send-email 2.39.5"
    assert len(m.get_all("Subject")) == 1
    if i:
        assert m["In-Reply-To"] == root and m["References"] == root, (i, m["In-Reply-To"])
        assert m["Subject"].startswith("[PATCH %d/5] net: change %d" % (i, i))
    else:
        assert m["In-Reply-To"] is None
body0 = mails[0].get_payload(decode=True).decode()
assert body0.startswith("Why the five changes are needed.\n\nAda Lovelace (4):\n"), body0
assert "Jörg Fremd (1):\n  net: change 2\n" in body0, body0
assert " net/file | 5 +++++\n 1 file changed, 5 insertions(+)\n" in body0, body0
assert "BLURB" not in body0 and "SUBJECT HERE" not in body0
# in-body From for every author who is not the sender, raw as git writes it
b2 = mails[2].get_payload(decode=True).decode()
assert b2.startswith("From: Jörg Fremd <jf@other.org>\n\nBody of change 2."), b2
b1 = mails[1].get_payload(decode=True).decode()
assert b1.startswith("From: Ada Lovelace <ada@example.org>\n\nBody of change 1."), b1
with open(sys.argv[2], "wb") as f:
    for r in raw[1:]:
        f.write(b"From patchrelay Mon Sep 17 00:00:00 2001\n")
        f.write(r.replace(b"\r\n", b"\n"))
        if not r.endswith(b"\n"):
            f.write(b"\n")
PYEOF
# the envelope: every header recipient, once
n=$(grep -c '^relay@example.org netdev@example.org reviewer@example.org second@example.org$' box.log)
[ "$n" -eq 6 ] || fail "envelopes: $(cat box.log)"

# git am on the base gives the same commits
git clone -q -b main repo am 2>/dev/null || fail "clone"
git -C am am -q "$tmp/am.mbox" >am.out 2>&1 || fail "git am: $(cat am.out)"
[ "$(git -C am rev-parse 'HEAD^{tree}')" = "$(git -C repo rev-parse 'topic^{tree}')" ] ||
	fail "git am: another tree"
git -C repo log --format='%an <%ae>%n%B' main..topic >want.log
git -C am log --format='%an <%ae>%n%B' origin/main..HEAD >got.log
cmp want.log got.log || fail "git am: other authors or messages: $(diff want.log got.log)"

# a second pass sends nothing
"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "pass 2: $(cat log2)"
grep -q '0 mail(s) sent' log2 || fail "pass 2: $(cat log2)"
[ "$(ls box/new | wc -l)" -eq 6 ] || fail "pass 2 sent mail"
stop "$smtpd_pid"

# the server goes away after the third mail, comes back on the same port
old=$smtpd_port
start_smtpd box2 --drop-after 3
sed -e "s|$tmp/state.db|$tmp/state2.db|" -e "s|:$old\$|:$smtpd_port|" \
	relay.conf >relay2.conf
# mails left pending make the exit status non-zero
"$PATCHRELAY" run -c relay2.conf --once 2>log3 && fail "pass 3: no mail pending"
grep -q '3 pending' log3 || fail "pass 3: $(cat log3)"
stop "$smtpd_pid" 0 # it went away by itself
[ "$(ls box2/new | wc -l)" -eq 3 ] || fail "before the drop: $(ls box2/new | wc -l) mails"
grep -q '3 mail(s) sent' log3 || fail "pass 3: $(cat log3)"
start_smtpd box2 --port "$smtpd_port"
"$PATCHRELAY" run -c relay2.conf --once 2>log4 || fail "pass 4: $(cat log4)"
grep -q '3 mail(s) sent' log4 || fail "pass 4 did not send the other 3: $(cat log4)"
$PY - "$tmp/box2" "$tmp/box" <<'PYEOF' || fail "resumed series is wrong"
import email, mailbox, sys
got = [email.message_from_bytes(m.as_bytes()) for m in mailbox.Maildir(sys.argv[1], create=False)]
ids = sorted(m["Message-ID"] for m in got)
assert len(ids) == 6 and len(set(ids)) == 6, ids
# the ids depend only on what is delivered, not on the state file
first = sorted(email.message_from_bytes(m.as_bytes())["Message-ID"]
               for m in mailbox.Maildir(sys.argv[2], create=False))
assert ids == first, (ids, first)
PYEOF

# a route over its max-recipients refuses: nothing sent, the reason logged
sed -e "s|$tmp/state.db|$tmp/state3.db|" relay.conf >relay3.conf
printf '\tmax-recipients = 2\n' >>relay3.conf
before=$(ls box2/new | wc -l)
"$PATCHRELAY" run -c relay3.conf --once 2>log5 || fail "pass 5: $(cat log5)"
grep -q 'max-recipients' log5 || fail "no reason: $(cat log5)"
grep -q '1 refused' log5 || fail "not counted as refused: $(cat log5)"
[ "$(ls box2/new | wc -l)" -eq "$before" ] || fail "a refused series was sent"
echo "smtp_series.sh: ok"
