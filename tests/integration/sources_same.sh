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
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
list="$PR_SRC/tests/data/sources/list"
expected="$PR_SRC/tests/data/sources/expected.json"

# poll NAME CONF [ARGS...]: poll source "list" into NAME.json, NAME.err
poll() {
	n=$1 c=$2
	shift 2
	"$PATCHRELAY" poll -c "$c" list --json "$@" > "$n.json" 2> "$n.err" ||
		fail "poll $n failed: $(cat "$n.err")"
}

# (a) maildir
maildir_fill md new "$list"/*.eml
cat > md.conf <<CONF
[source "list"]
	type = maildir
	path = $tmp/md
	trusted = maint@example.org
CONF
poll md md.conf
poll_strip md.json > md.got
diff -u "$expected" md.got || fail "the maildir source differs from expected.json"
md_cursor=$(poll_cursor md.json)
late="$PR_SRC/tests/data/sources/late/16-c-2.eml"
cp "$late" md/new/
touch -d "@1796300016" md/new/16-c-2.eml
poll md_late md.conf --cursor "$md_cursor"
poll_strip md_late.json > md_late.got
# the late patch completes c-1: emitted again, complete, and nothing else
$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
ev = [(e["kind"], e["series"], e["patches"]) for e in d["events"]]
assert ev == [("series", "c-1@example.org", ["c-1@example.org", "c-2@example.org"])], ev
assert d["series"]["c-1@example.org"]["versions"][0]["complete"], d' md_late.json ||
	fail "the late patch through maildir: $(cat md_late.json)"

# (b) imap: the list APPENDed, in file order, into mailbox "list"
start_dovecot bot 'imap secret'
imap="imap://127.0.0.1:$imap_port"
fill_imap() { imap_fill "$imap/" list "$list"/*.eml; }
fill_imap
printf 'imap secret' > pw
cat > imap.conf <<CONF
[source "list"]
	type = imap
	url = imaps://127.0.0.1:$imap_tls_port/list
	ca-file = $tmp/dovecot/ca.pem
	user = bot
	password = file:$tmp/pw
	timeout = 20s
	trusted = maint@example.org
CONF
poll imap imap.conf
poll_strip imap.json > imap.got
diff -u md.got imap.got || fail "the imap source differs from the maildir source"
c1=$(poll_cursor imap.json)
case $c1 in "mailsrc1 epoch="[0-9]*" low=00000000000000000015 high=00000000000000000015 "*) ;;
*) fail "the imap cursor is not UIDVALIDITY and UID: $c1" ;; esac

# nothing new: nothing emitted
poll imap2 imap.conf --cursor "$c1"
$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["events"] == [] and d["cursor"] is None, d' imap2.json ||
	fail "an imap poll with nothing new emitted something"

# the late patch APPENDed: the same as through the maildir
imap_append "$imap/" list "$late"
poll imap_late imap.conf --cursor "$c1"
poll_strip imap_late.json > imap_late.got
diff -u md_late.got imap_late.got || fail "the late patch: imap differs from maildir"

# a search filter: only the mails from Bob
sed 's/^\ttimeout = 20s$/\ttimeout = 20s\n\tsearch = FROM "bob@example.org"/' imap.conf > search.conf
grep -q 'search = FROM' search.conf || fail "no search line in search.conf"
poll search search.conf
$PY -c 'import json,sys
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
grep -q "source 'list': imap 'imaps://127.0.0.1:$imap_tls_port/': login refused for user 'bot'" bad.err ||
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
poll_strip again.json > again.got
diff -u md.got again.got || fail "after the new UIDVALIDITY the poll differs from a first one"
case $(poll_cursor again.json) in "mailsrc1 epoch=$(echo "$v2" | tr -dc 0-9) "*) ;;
*) fail "the cursor does not hold the new UIDVALIDITY: $(poll_cursor again.json) ($v2)" ;; esac

stop_dovecot

# (c) public-inbox, read through a proxy that fails on demand
start_public_inbox test "$list"/*.eml
start_fault_proxy "http://127.0.0.1:$(cat pi/port)"
inbox="$proxy_url/test/"
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
poll_strip pi.json > pi.got
diff -u md.got pi.got || fail "the public-inbox source differs from the maildir source"
pi_cursor=$(poll_cursor pi.json)

# the late patch, its thread truncated once: the failed poll emits nothing
# and stores nothing, the next one from the same cursor emits it once
pi_add "$late"
echo "truncate t.mbox.gz" > faults
must_fail flate "a truncated gzip of the late thread" "c-2@example.org/t.mbox.gz': truncated gzip" --cursor "$pi_cursor"
: > faults
poll pi_late pi.conf --cursor "$pi_cursor"
poll_strip pi_late.json > pi_late.got
diff -u md_late.got pi_late.got || fail "the late patch: public-inbox differs from maildir"
poll pi_none pi.conf --cursor "$(poll_cursor pi_late.json)"
$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["events"] == [] and d["cursor"] is None, d' pi_none.json ||
	fail "a public-inbox poll with nothing new emitted something"

# a Message-ID with '/', '%', '#' and '+': the thread url the source asks
# for is the one public-inbox itself links to in new.atom
sed -e 's/^Date: .*/Date: Tue, 10 Nov 2026 10:20:00 +0000/' \
	-e 's/^Subject: .*/Subject: [PATCH] mm: odd id/' \
	-e 's|^Message-ID: .*|Message-ID: <odd/id+x%y#z@example.org>|' \
	"$list/15-c-1.eml" > odd.eml
pi_add odd.eml
poll pi_odd pi.conf --cursor "$(poll_cursor pi_late.json)"
$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
ev = [(e["kind"], e["series"], e["patches"]) for e in d["events"]]
assert ev == [("series", "odd/id+x%y#z@example.org", ["odd/id+x%y#z@example.org"])], ev' pi_odd.json ||
	fail "the odd Message-ID: $(cat pi_odd.json)"
href=$(curl -sS "${inbox}new.atom" | grep -o 'href="[^"]*odd[^"]*"' | head -1 | sed 's/^href="//; s/"$//')
[ -n "$href" ] || fail "no href for the odd Message-ID in new.atom"
want="GET /test/${href#"$inbox"}t.mbox.gz "
grep -qF "\"$want" proxy.log || fail "the source did not ask for '$want': $(grep odd proxy.log)"
echo "sources_same.sh: ok"
