#!/bin/sh
# The patchwork source's series go through the stream assembler as every
# mail source's do: a v2 fetched from Patchwork after its v1 is version 2
# of the series with v1's key, whether it is sent apart (a new thread, the
# same name) or threaded into v1 under another name; and the same mails
# read from an mbox of the list give the same series keys and versions.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp" || exit 1
pw_netdev
# mails NAME VERSION SUBJECT [IN-REPLY-TO]: a series of two commits
mails() {
	name=$1 v=$2 subj=$3 irt=${4:-}
	git -C tree checkout -q -B "$name" main
	for f in "${name}1.c" "${name}2.c"; do
		echo "$name $v $f" >"tree/$f"
		git -C tree add "$f"
		git -C tree commit -q -m "$f: add it ($name)"
	done
	set -- --cover-letter --thread -v"$v" -o "$tmp/$name-$v" \
		--add-header 'List-Id: <netdev.example.org>'
	[ -n "$irt" ] && set -- "$@" --in-reply-to="$irt"
	git -C tree format-patch -q "$@" main.."$name"
	sed -i "s/\*\*\* SUBJECT HERE \*\*\*/$subj/" "$tmp/$name-$v"/*0000-*
	# a cover's Message-ID is made of the time and the sender alone (an
	# id made unique before, as the one answered, stays)
	sed -i "s/<cover\.\([0-9]\)/<cover.$name-$v.\1/g" "$tmp/$name-$v"/*.patch
	git -C tree checkout -q main
}
msgid() { sed -n 's/^Message-I[dD]: <\(.*\)>$/\1/p' "$1" | head -n 1; }

cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "pwq"]
	type = patchwork
	api-url = $emu_url/api/
	project = netdev
	token = env:PW_TOKEN
	since = 1970-01-01T00:00:00
[sink "inbox"]
	type = maildir
	path = $tmp/maildir
[route "r"]
	from = pwq
	to = inbox
CONF
export PW_TOKEN=ci-token
# keys CONF OUT: "KEY VERSIONS" of each series the state knows, sorted
keys() {
	"$PATCHRELAY" status -c "$1" --json >"$2.json" || fail "status $1"
	$PY - "$2.json" >"$2" <<'PYEOF' || fail "status: $(cat "$2.json")"
import json, sys
v = {}
for r in json.load(open(sys.argv[1]))["deliveries"]:
    v[r["key"]] = max(v.get(r["key"], 0), r["versions"])
for k in sorted(v):
    print(k, v[k])
PYEOF
}

# x v1, then x v2 in a thread of its own; y v1, then y v2 answering y
# v1's cover letter under another name
mails x 1 'x: two files'
mails y 1 'y: two files'
pw_feed "$tmp"/x-1/*.patch "$tmp"/y-1/*.patch
"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "pass 1: $(cat log1)"
grep -q '2 version(s) seen, 2 new' log1 || fail "pass 1: $(cat log1)"
x1=$(msgid "$tmp"/x-1/*0000-*)
y1=$(msgid "$tmp"/y-1/*0000-*)
keys relay.conf k1
printf '%s 1\n%s 1\n' "$x1" "$y1" | sort >want1
cmp -s k1 want1 || fail "pass 1 keys: $(cat k1) want $(cat want1)"

mails x 2 'x: two files'
mails y 2 'y: the two files, reworked' "<$y1>"
pw_feed "$tmp"/x-2/*.patch "$tmp"/y-2/*.patch
"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "pass 2: $(cat log2)"
grep -q '2 version(s) seen, 2 new' log2 || fail "pass 2: $(cat log2)"
keys relay.conf k2
printf '%s 2\n%s 2\n' "$x1" "$y1" | sort >want2
cmp -s k2 want2 || fail "v2 not version 2 of v1's series: $(cat k2) want $(cat want2)"
grep -lq '^Subject: \[PATCH v2 2/2\] y2.c: add it (y)' maildir/new/* ||
	fail "y v2 not sent as v2"

# the same mails as an mbox of the list: the same keys and versions
mkdir list
cat "$tmp"/x-1/*.patch "$tmp"/y-1/*.patch "$tmp"/x-2/*.patch \
	"$tmp"/y-2/*.patch >list/netdev.mbox
cat >list.conf <<CONF
[core]
	state = $tmp/list.db
[source "folder"]
	type = mbox
	path = $tmp/list
[sink "inbox"]
	type = maildir
	path = $tmp/maildir-list
[route "r"]
	from = folder
	to = inbox
CONF
"$PATCHRELAY" run -c list.conf --once 2>log3 || fail "list: $(cat log3)"
keys list.conf k3
cmp -s k3 k2 || fail "list and Patchwork differ: $(cat k3) vs $(cat k2)"
echo "patchwork_assemble.sh: ok"
