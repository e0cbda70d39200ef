#!/bin/sh
# The reply relay between a mailing list (a real public-inbox-httpd, with
# aiosmtpd as its SMTP) and Gerrit (tests/emulators/gerrit.py behind a
# real sshd), both ways, for a series that went to Gerrit through the
# gerrit sink and for one that came from it through the gerrit source:
# (a) a 3-patch series on the list becomes 3 changes;
# (b) a list reply with a Reviewed-by to patch 2 becomes one review
#     message on patch 2's change (the author, the archive link, the
#     trailer), a reply to the cover one on the first change; none comes
#     back (the source reads Gerrit as another account than the sink's:
#     only the store knows the messages are patchrelay's);
# (c) bob's inline comment on b.txt line 2 of patch 2's change becomes
#     one reply mail under patch 2, quoted with the file and line; his
#     review message on change 1 one reply under patch 1;
# (d) the relayed mails fed back into the list and five more passes: no
#     new message on Gerrit, no new mail;
# (e) a series from Gerrit (alice's change, /submit) mailed to the list
#     and opened as a pull request: a list reply to it becomes a review
#     message on the patch set it answers (not the newer one);
# (f) that change abandoned in Gerrit: the gerrit source says the series
#     was withdrawn, and its pull request is closed once, saying why;
# (g) the list series applied on main (a git source's watch): landed, the
#     gerrit sink abandons its three changes, saying where it landed.
. "$(dirname "$0")/relay_lib.sh"
[ -x /usr/sbin/sshd ] || skip "no openssh-server"
ls /usr/lib/*/libnss_wrapper.so >/dev/null 2>&1 || skip "no libnss-wrapper"
[ -d /run/sshd ] || [ "$(id -u)" = 0 ] || skip "no /run/sshd"

relay_tree
relay_pi v1/*.patch
relay_smtpd
relay_emulator github
at_exit "sh '$servers/gerrit.sh' stop '$tmp/gerrit' >/dev/null 2>&1"
sh "$servers/gerrit.sh" start "$tmp/gerrit" >emu.out 2>&1 ||
	fail "the Gerrit emulator did not start: $(cat emu.out)"
. "$tmp/gerrit/env"
$GERRIT_CTL create-project name=kernel from="$tmp/tree" branch=main \
	>/dev/null || fail "create-project"
export GR_SINK_PW="$GERRIT_HTTP_PASSWORD_relay"
export GR_SRC_PW="$GERRIT_HTTP_PASSWORD_admin"
cover=$(message_id v1/0000-cover-letter.patch)
p1=$(message_id v1/0001-a-add-two.patch)
p2=$(message_id v1/0002-b-add-y.patch)

{
	conf_section core "state=$tmp/state.db"
	conf_section 'source "netdev"' type=public-inbox "url=$PI_URL" wait=0s
	conf_section 'sink "netdev"' type=smtp \
		"url=smtp://127.0.0.1:$SMTP_PORT" starttls=never \
		'from=Patch Relay <relay@example.org>' to=list@example.org
	# the source reads as admin: relay's messages are not its own
	conf_section 'source "gr"' type=gerrit "rest-url=$GERRIT_REST_URL" \
		user=admin password=env:GR_SRC_PW project=kernel trigger=comment \
		mirror-reviews=true "cache-dir=$tmp/cache" \
		"ssh-url=ssh://admin@127.0.0.1:$GERRIT_SSH_PORT" \
		"ssh-key=$GERRIT_KEY_admin" \
		"known-hosts=$GERRIT_KNOWN_HOSTS"
	conf_section 'sink "gr"' type=gerrit "rest-url=$GERRIT_REST_URL" \
		user=relay password=env:GR_SINK_PW project=kernel branch=main \
		"ssh-url=$GERRIT_SSH_URL" "ssh-key=$GERRIT_KEY_relay" \
		"known-hosts=$GERRIT_KNOWN_HOSTS" "cache-dir=$tmp/cache-sink"
	conf_section 'route "list-to-gr"' from=netdev to=gr bridge=true
	conf_section 'route "gr-to-list"' from=gr to=netdev bridge=true
	# Gerrit's series also mirrored into pull requests (for CI)
	conf_section 'sink "github"' type=github "api-url=$API" \
		repo=kernel/net token=env:GH_TOKEN base=main
	conf_section 'route "gr-to-gh"' from=gr to=github
} >relay.conf

# gerrit USER METHOD PATH [JSON]: the REST API as USER, the guard cut
gerrit() {
	pw=$(eval echo "\$GERRIT_HTTP_PASSWORD_$1")
	if [ $# -gt 3 ]; then
		curl -sf -u "$1:$pw" -X "$2" -H 'Content-Type: application/json' \
			-d "$4" "$GERRIT_REST_URL/a$3"
	else
		curl -sf -u "$1:$pw" -X "$2" "$GERRIT_REST_URL/a$3"
	fi | tail -c +5
}
# changes: "number|subject" of the project's changes, oldest first
changes() {
	gerrit admin GET '/changes/?q=project:kernel' | $PY -c 'import json, sys
for c in sorted(json.load(sys.stdin), key=lambda c: c["_number"]):
    print("%d|%s" % (c["_number"], c["subject"]))'
}
# relayed N: the messages of change N tagged patchrelay:relay:, one a line
relayed() {
	gerrit admin GET "/changes/$1?o=MESSAGES&o=DETAILED_ACCOUNTS" |
		$PY -c 'import json, sys
for m in json.load(sys.stdin).get("messages", []):
    if m.get("tag", "").startswith("patchrelay:relay:"):
        print(json.dumps({"user": m["author"]["username"], "id": m["id"],
                          "ps": m.get("_revision_number"),
                          "message": m["message"]}))'
}
all_relayed() { for n in $(changes | cut -d'|' -f1); do relayed "$n"; done; }

# ---- (a) the series becomes 3 changes
run_once
changes >ch1
[ "$(wc -l <ch1)" = 3 ] || fail "not 3 changes: $(cat ch1) $(tail run.log)"
n1=$(grep '|a: add two$' ch1 | cut -d'|' -f1)
n2=$(grep '|b: add y$' ch1 | cut -d'|' -f1)
n3=$(grep '|a: add three$' ch1 | cut -d'|' -f1)
[ -n "$n1" ] && [ -n "$n2" ] && [ -n "$n3" ] || fail "changes: $(cat ch1)"

# ---- (b) list replies -> review messages on the right changes
reply r2.eml 'Rob Reviewer <rob@example.org>' 'Re: [PATCH 2/3] b: add y' \
	"$p2" "<$cover> <$p2>" 'On Thu, Ada Lovelace wrote:
> Why y.

Looks right to me.

Reviewed-by: Rob Reviewer <rob@example.org>'
reply r0.eml 'Tess Tester <tess@example.org>' \
	'Re: [PATCH 0/3] three small additions' "$cover" "<$cover>" \
	'Ran it on my board.

Tested-by: Tess Tester <tess@example.org>'
list_add r2.eml r0.eml
r2=$(message_id r2.eml)
r0=$(message_id r0.eml)
run_once
relayed "$n2" >m2
relayed "$n1" >m1
relayed "$n3" >m3
[ "$(wc -l <m2)" = 1 ] || fail "change $n2: $(cat m2) $(tail run.log)"
[ "$(wc -l <m1)" = 1 ] || fail "change $n1: $(cat m1) $(tail run.log)"
[ -s m3 ] && fail "change $n3 got a reply: $(cat m3)"
$PY - "$r2" "$r0" m2 m1 <<'PY' || fail "the relayed messages: $(cat m2 m1)"
import json, sys
r2, r0, f2, f1 = sys.argv[1:]
m2 = json.loads(open(f2).read())
m1 = json.loads(open(f1).read())
assert m2["user"] == "relay", m2
t = m2["message"]
assert 'Rob Reviewer <rob@example.org> replied on the list to ' \
    '"[PATCH 2/3] b: add y"' in t, t
assert r2 in t, t
assert "Looks right to me." in t, t
assert "Trailers given:\n  Reviewed-by: Rob Reviewer <rob@example.org>" in t, t
t = m1["message"]
assert "Tess Tester <tess@example.org> replied on the list to " \
    '"[PATCH 0/3] three small additions"' in t, t
assert r0 in t and "Tested-by: Tess Tester <tess@example.org>" in t, t
PY
[ "$(mails)" = 0 ] || fail "a relayed message came back as mail"
# the store knows the posted messages by their ids
"$PATCHRELAY" lookup -c relay.conf "<$cover>" >l1 || fail "lookup"
for id in $($PY -c 'import json, sys
for f in sys.argv[1:]:
    print(json.loads(open(f).read())["id"])' m2 m1); do
	grep -q "^  relayed  *$id  $r2 to gr\$\|^  relayed  *$id  $r0 to gr\$" l1 ||
		fail "lookup lacks the posted $id: $(cat l1)"
done
grep -q "^  gerrit-change:gr .*/c/kernel/+/$n2\$" l1 ||
	fail "lookup lacks change $n2: $(cat l1)"

# ---- (c) an inline comment and a review message -> reply mails
gerrit bob POST "/changes/kernel~$n2/revisions/current/review" \
	'{"comments":{"b.txt":[{"line":2,"message":"Why y and not z?"}]}}' \
	>/dev/null || fail "bob's inline comment"
gerrit bob POST "/changes/kernel~$n1/revisions/current/review" \
	'{"message":"Please say why two."}' >/dev/null ||
	fail "bob's review message"
run_once
[ "$(mails)" = 2 ] || fail "want 2 mails: $(mails) $(tail run.log)"
line=$(grep -l '^Subject: Re: \[PATCH 2/3\] b: add y' box/new/*) ||
	fail "no reply under patch 2"
msg=$(grep -l '^Subject: Re: \[PATCH 1/3\] a: add two' box/new/*) ||
	fail "no reply under patch 1"
$PY - "$line" "$msg" "$p2" "$p1" "$cover" <<'PY' || fail "the reply mails"
import email, email.utils, sys
line, msg, p2, p1, cover = sys.argv[1:]
r = email.message_from_bytes(open(line, "rb").read())
assert r["In-Reply-To"] == "<%s>" % p2, r["In-Reply-To"]
assert r["References"].split() == ["<%s>" % cover, "<%s>" % p2], r["References"]
assert email.utils.parseaddr(r["From"]) == ("Bob Reviewer", "relay@example.org"), r["From"]
b = r.get_payload(decode=True).decode().replace("\r\n", "\n")
assert "wrote on gerrit, on b.txt line 2:" in b, b
assert "> +y\n" in b and "Why y and not z?" in b, b
assert "/comment/" in b, b
r = email.message_from_bytes(open(msg, "rb").read())
assert r["In-Reply-To"] == "<%s>" % p1, r["In-Reply-To"]
b = r.get_payload(decode=True).decode().replace("\r\n", "\n")
assert "Please say why two." in b and "line" not in b.split("\n")[0], b
PY

# ---- (d) the relayed mails on the list, five more passes: nothing moves
all_relayed >before
list_add box/new/*
for i in 1 2 3 4 5; do run_once; done
all_relayed >after
cmp -s before after || fail "Gerrit got more: $(cat after)"
[ "$(mails)" = 2 ] || fail "more mails: $(mails)"

# ---- (e) a series from Gerrit: a list reply goes to its patch set
git clone -q tree work
git -C work checkout -q -b c main
echo four >>work/a.txt
git -C work commit -q -am 'a: add four' -m 'Four.' \
	-m 'Change-Id: I4444444444444444444444444444444444444444'
(cd work && GIT_SSH_COMMAND=$GERRIT_GIT_SSH_alice \
	git push -q "ssh://alice@127.0.0.1:$GERRIT_SSH_PORT/kernel" \
	HEAD:refs/for/main%topic=four >/dev/null 2>&1) || fail "alice's push"
n4=$(changes | grep '|a: add four$' | cut -d'|' -f1)
gerrit alice POST "/changes/kernel~$n4/revisions/current/review" \
	'{"message":"/submit"}' >/dev/null || fail "alice's /submit"
run_once
four=$(grep -l '^Subject: \[PATCH\] a: add four' box/new/*) ||
	fail "the Gerrit series was not mailed: $(tail run.log)"
# aiosmtpd keeps the CRLF line ends of SMTP
m4=$(tr -d '\r' <"$four" | sed -n 's/^Message-Id: <\(.*\)>$/\1/Ip' | head -n 1)
list_add "$four"
reply r4.eml 'Rob Reviewer <rob@example.org>' 'Re: [PATCH] a: add four' \
	"$m4" "<$m4>" 'Acked-by: Rob Reviewer <rob@example.org>'
# alice uploads patch set 2 before the reply crosses: it answers 1
$GERRIT_CTL patchset change="$n4" user=alice >/dev/null || fail "patch set 2"
list_add r4.eml
run_once
relayed "$n4" >m4
[ "$(wc -l <m4)" = 1 ] || fail "change $n4: $(cat m4) $(tail run.log)"
grep -q 'Acked-by: Rob Reviewer' m4 || fail "change $n4: $(cat m4)"
grep -q '"ps": 1,' m4 || fail "not on patch set 1: $(cat m4)"
for i in 1 2; do run_once; done
relayed "$n4" >m4b
cmp -s m4 m4b || fail "change $n4 got more: $(cat m4b)"
# ---- (f) the change abandoned in Gerrit: its pull request is closed
pulls() {
	curl -sf -H 'Authorization: Bearer tok-grace' -H 'User-Agent: test' \
		"$API/repos/kernel/net/pulls?state=all" | $PY -c 'import json, sys
for p in json.load(sys.stdin):
    print(p["number"], p["state"])'
}
[ "$(pulls)" = "1 open" ] || fail "no PR of change $n4: $(pulls)"
$GERRIT_CTL abandon change="$n4" user=alice >/dev/null || fail "abandon"
run_once
[ "$(pulls)" = "1 closed" ] || fail "PR not closed: $(pulls) $(tail run.log)"
curl -sf -H 'Authorization: Bearer tok-grace' -H 'User-Agent: test' \
	"$API/repos/kernel/net/issues/1/comments" >c1.json
$PY - "$n4" c1.json <<'PY' || fail "closing comment: $(cat c1.json)"
import json, sys
n, path = sys.argv[1:]
c = [x["body"] for x in json.load(open(path))]
want = ("This series was withdrawn: %s abandoned in Gerrit; patchrelay "
        "closes this pull request." % n)
assert sum(1 for b in c if want in b) == 1, c
PY
run_once
run_once
curl -sf -H 'Authorization: Bearer tok-grace' -H 'User-Agent: test' \
	"$API/repos/kernel/net/issues/1/comments" >c2.json
cmp -s c1.json c2.json || fail "more comments: $(cat c2.json)"
# ---- (g) the list series lands on main: the sink abandons its changes
landing_conf "$tmp/tree" gr >>relay.conf
run_once
(cd tree && git am -q ../v1/000[1-3]*.patch) || fail "git am of v1"
run_once
for n in "$n1" "$n2" "$n3"; do
	gerrit admin GET "/changes/$n?o=MESSAGES" | $PY -c 'import json, sys
c = json.load(sys.stdin)
assert c["status"] == "ABANDONED", c["status"]
m = [x["message"] for x in c["messages"] if "patchrelay abandons" in x["message"]]
assert len(m) == 1 and "This series was landed: landed in main as" in m[0], m' ||
		fail "change $n not abandoned once: $(tail run.log)"
done
run_once
[ "$(gerrit admin GET "/changes/$n1?o=MESSAGES" | grep -c 'patchrelay abandons')" = 1 ] ||
	fail "abandoned twice"
echo "relay_gerrit.sh: ok"
