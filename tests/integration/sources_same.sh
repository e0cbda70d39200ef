#!/bin/sh
# The same list traffic (tests/data/sources/list) read through the maildir
# source, the imap source (APPENDed into a real dovecot) and the
# public-inbox source (imported into a real public-inbox, read over
# public-inbox-httpd) gives the same `patchrelay poll --json` output, the
# one of tests/data/sources/expected.json.  Then the faults: a wrong IMAP
# password, a recreated mailbox (a new UIDVALIDITY), and an archive that
# answers 404 or 500 or sends a truncated gzip.  dovecot and public-inbox
# missing is a failure, not a skip: CI installs them (.ci/packages).
set -eu
tmp=$(mktemp -d)
servers="$PR_SRC/tests/servers"
cleanup() {
	sh "$servers/dovecot.sh" stop "$tmp/dovecot" 2>/dev/null || true
	sh "$servers/public_inbox.sh" stop "$tmp/pi" 2>/dev/null || true
	[ -f "$tmp/proxy.pid" ] && kill "$(cat "$tmp/proxy.pid")" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"
py=/usr/bin/python3
list="$PR_SRC/tests/data/sources/list"
expected="$PR_SRC/tests/data/sources/expected.json"

fail() { echo "sources_same.sh: $*" >&2; exit 1; }

# what a poll printed, without the source name and the cursor
strip() {
	$py -c 'import json,sys
d = json.load(open(sys.argv[1]))
del d["cursor"], d["source"]
print(json.dumps(d, indent=1, sort_keys=True))' "$1"
}

cursor() { $py -c 'import json,sys; print(json.load(open(sys.argv[1]))["cursor"] or "")' "$1"; }

# poll NAME CONF [ARGS...]: poll source "list" into NAME.json, NAME.err
poll() {
	n=$1 c=$2
	shift 2
	"$PATCHRELAY" poll -c "$c" list --json "$@" > "$n.json" 2> "$n.err" ||
		fail "poll $n failed: $(cat "$n.err")"
}

# (a) maildir
mkdir -p md/new md/cur md/tmp
for f in "$list"/*.eml; do
	n=$(basename "$f")
	cp "$f" "md/new/$n"
	s=${n%%-*}
	touch -d "@$((1796300000 + ${s#0}))" "md/new/$n"
done
cat > md.conf <<CONF
[source "list"]
	type = maildir
	path = $tmp/md
	trusted = maint@example.org
CONF
poll md md.conf
strip md.json > md.got
diff -u "$expected" md.got || fail "the maildir source differs from expected.json"
md_cursor=$(cursor md.json)
late="$PR_SRC/tests/data/sources/late/16-c-2.eml"
cp "$late" md/new/
touch -d "@1796300016" md/new/16-c-2.eml
poll md_late md.conf --cursor "$md_cursor"
strip md_late.json > md_late.got
# the late patch completes c-1: emitted again, complete, and nothing else
$py -c 'import json,sys
d = json.load(open(sys.argv[1]))
ev = [(e["kind"], e["series"], e["patches"]) for e in d["events"]]
assert ev == [("series", "c-1@example.org", ["c-1@example.org", "c-2@example.org"])], ev
assert d["series"]["c-1@example.org"]["versions"][0]["complete"], d' md_late.json ||
	fail "the late patch through maildir: $(cat md_late.json)"

# (b) imap: the list APPENDed, in file order, into mailbox "list"
sh "$servers/dovecot.sh" start "$tmp/dovecot" bot 'imap secret' ||
	fail "dovecot did not start"
port=$(cat dovecot/port)
tport=$(cat dovecot/tls-port)
imap="imap://127.0.0.1:$port"
icurl() { curl -sS --max-time 20 -u 'bot:imap secret' "$@"; }
fill_imap() {
	icurl "$imap/" -X 'CREATE list' > /dev/null || fail "CREATE list failed"
	for f in "$list"/*.eml; do
		sed 's/$/\r/' "$f" > crlf.eml
		icurl -T crlf.eml "$imap/list" || fail "APPEND of $f failed"
	done
}
fill_imap
printf 'imap secret' > pw
cat > imap.conf <<CONF
[source "list"]
	type = imap
	url = imaps://127.0.0.1:$tport/list
	ca-file = $tmp/dovecot/cert.pem
	user = bot
	password = file:$tmp/pw
	timeout = 20s
	trusted = maint@example.org
CONF
poll imap imap.conf
strip imap.json > imap.got
diff -u md.got imap.got || fail "the imap source differs from the maildir source"
c1=$(cursor imap.json)
case $c1 in "mailsrc1 epoch="[0-9]*" low=00000000000000000015 high=00000000000000000015 "*) ;;
*) fail "the imap cursor is not UIDVALIDITY and UID: $c1" ;; esac

# nothing new: nothing emitted
poll imap2 imap.conf --cursor "$c1"
$py -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["events"] == [] and d["cursor"] is None, d' imap2.json ||
	fail "an imap poll with nothing new emitted something"

# the late patch APPENDed: the same as through the maildir
sed 's/$/\r/' "$late" > crlf.eml
icurl -T crlf.eml "$imap/list" || fail "APPEND of the late patch failed"
poll imap_late imap.conf --cursor "$c1"
strip imap_late.json > imap_late.got
diff -u md_late.got imap_late.got || fail "the late patch: imap differs from maildir"

# a search filter: only the mails from Bob
sed 's/^\ttimeout = 20s$/\ttimeout = 20s\n\tsearch = FROM "bob@example.org"/' imap.conf > search.conf
grep -q 'search = FROM' search.conf || fail "no search line in search.conf"
poll search search.conf
$py -c 'import json,sys
d = json.load(open(sys.argv[1]))
ev = [(e["kind"], e["series"]) for e in d["events"]]
assert ev == [("series", "b-1@example.org")], ev' search.json ||
	fail "the search filter was not applied: $(cat search.json)"
grep -q '^From: .*bob@example.org' "$list/07-b-1.eml" ||
	fail "07-b-1.eml is not from bob@example.org"

# a wrong password: a clear error naming the source and the server
printf 'Xyzzy-bad' > badpw
sed "s|file:$tmp/pw|file:$tmp/badpw|" imap.conf > bad.conf
if "$PATCHRELAY" poll -c bad.conf list > bad.out 2> bad.err; then
	fail "a wrong imap password did not fail"
fi
grep -q "source 'list': imap 'imaps://127.0.0.1:$tport/': login refused for user 'bot'" bad.err ||
	fail "unclear wrong-password error: $(cat bad.err)"
grep -q Xyzzy bad.err && fail "the password is in the error: $(cat bad.err)"

# the mailbox recreated: a new UIDVALIDITY, read again from the beginning
v1=$(icurl "$imap/" -X 'STATUS list (UIDVALIDITY)')
icurl "$imap/" -X 'DELETE list' > /dev/null || fail "DELETE list failed"
# dovecot derives UIDVALIDITY from the clock: make sure it moves
sleep 1
fill_imap
v2=$(icurl "$imap/" -X 'STATUS list (UIDVALIDITY)')
[ "$v1" != "$v2" ] || fail "the recreated mailbox kept its UIDVALIDITY: $v2"
poll again imap.conf --cursor "$c1"
grep -q "UIDVALIDITY is [0-9]*, the cursor has '[0-9]*': the UIDs were renumbered, reading the mailbox again from the beginning" again.err ||
	fail "no log line for the new UIDVALIDITY: $(cat again.err)"
strip again.json > again.got
diff -u md.got again.got || fail "after the new UIDVALIDITY the poll differs from a first one"
case $(cursor again.json) in "mailsrc1 epoch=$(echo "$v2" | tr -dc 0-9) "*) ;;
*) fail "the cursor does not hold the new UIDVALIDITY: $(cursor again.json) ($v2)" ;; esac

sh "$servers/dovecot.sh" stop "$tmp/dovecot"

# (c) public-inbox, read through a proxy that fails on demand
sh "$servers/public_inbox.sh" start "$tmp/pi" test "$list"/*.eml ||
	fail "public-inbox did not start"
: > faults
$py "$servers/fault_proxy.py" --upstream "http://127.0.0.1:$(cat pi/port)" \
	--port-file proxy.port --fault-file faults 2> proxy.log &
echo $! > proxy.pid
i=0
while [ ! -s proxy.port ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "the fault proxy did not start: $(cat proxy.log)"
	sleep 0.1
done
inbox="http://127.0.0.1:$(cat proxy.port)/test/"
cat > pi.conf <<CONF
[source "list"]
	type = public-inbox
	url = $inbox
	timeout = 20s
	trusted = maint@example.org
CONF
# must_fail NAME WHAT LOG-LINE: the poll fails, the log names the url
must_fail() {
	n=$1 what=$2 line=$3
	shift 3
	if "$PATCHRELAY" poll -c pi.conf list --json "$@" > "$n.json" 2> "$n.err"; then
		fail "$what did not fail the poll: $(cat "$n.json")"
	fi
	grep -qF "$line" "$n.err" || fail "$what: no log line '$line': $(cat "$n.err")"
	grep -q "error: source 'list'" "$n.err" || fail "$what: no error naming the source: $(cat "$n.err")"
	grep -q '"kind"' "$n.json" && fail "$what: events emitted before the failure"
	return 0
}
echo "500 new.atom" > faults
must_fail f500 "the feed answering 500" "GET ${inbox}new.atom answered HTTP 500"
echo "404 /a1-0@example.org/t.mbox.gz" > faults
must_fail f404 "a thread answering 404" "GET ${inbox}a1-0@example.org/t.mbox.gz answered HTTP 404"
echo "truncate t.mbox.gz" > faults
must_fail ftrunc "a truncated gzip" "public-inbox '${inbox}a1-0@example.org/t.mbox.gz': truncated gzip"
: > faults
poll pi pi.conf
strip pi.json > pi.got
diff -u md.got pi.got || fail "the public-inbox source differs from the maildir source"
pi_cursor=$(cursor pi.json)

# the late patch, its thread truncated once: the failed poll emits nothing
# and stores nothing, the next one from the same cursor emits it once
sh "$servers/public_inbox.sh" add "$tmp/pi" "$late" || fail "adding the late patch failed"
echo "truncate t.mbox.gz" > faults
must_fail flate "a truncated gzip of the late thread" "c-2@example.org/t.mbox.gz': truncated gzip" --cursor "$pi_cursor"
: > faults
poll pi_late pi.conf --cursor "$pi_cursor"
strip pi_late.json > pi_late.got
diff -u md_late.got pi_late.got || fail "the late patch: public-inbox differs from maildir"
poll pi_none pi.conf --cursor "$(cursor pi_late.json)"
$py -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["events"] == [] and d["cursor"] is None, d' pi_none.json ||
	fail "a public-inbox poll with nothing new emitted something"

# a Message-ID with '/', '%', '#' and '+': the thread url the source asks
# for is the one public-inbox itself links to in new.atom
sed -e 's/^Date: .*/Date: Tue, 10 Nov 2026 10:20:00 +0000/' \
	-e 's/^Subject: .*/Subject: [PATCH] mm: odd id/' \
	-e 's|^Message-ID: .*|Message-ID: <odd/id+x%y#z@example.org>|' \
	"$list/15-c-1.eml" > odd.eml
sh "$servers/public_inbox.sh" add "$tmp/pi" odd.eml || fail "adding odd.eml failed"
poll pi_odd pi.conf --cursor "$(cursor pi_late.json)"
$py -c 'import json,sys
d = json.load(open(sys.argv[1]))
ev = [(e["kind"], e["series"], e["patches"]) for e in d["events"]]
assert ev == [("series", "odd/id+x%y#z@example.org", ["odd/id+x%y#z@example.org"])], ev' pi_odd.json ||
	fail "the odd Message-ID: $(cat pi_odd.json)"
href=$(curl -sS "${inbox}new.atom" | grep -o 'href="[^"]*odd[^"]*"' | head -1 | sed 's/^href="//; s/"$//')
[ -n "$href" ] || fail "no href for the odd Message-ID in new.atom"
want="GET /test/${href#"$inbox"}t.mbox.gz "
grep -qF "\"$want" proxy.log || fail "the source did not ask for '$want': $(grep odd proxy.log)"
echo "sources_same.sh: ok"
