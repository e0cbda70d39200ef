#!/bin/sh
# The maildir source's cursor loses no mail: a file that arrives in the
# second of the newest file read (its high mark) with a name that sorts
# before it, a file delivered late with an mtime a little before the high
# mark, a file dated ahead of the clock, and files moved from new/ to cur/
# (read once, not again); a first pass over 500 files of one second, then
# one more file of that second.
# Every mail is a lone [PATCH], emitted when read; the mtimes are set with
# touch -d, so nothing depends on the clock.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
git_alone
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo repo
series_mails repo one 1
template=$(echo "$tmp"/one/*)
t=1796300000

# put NAME SECONDS [SUB]: a lone patch <NAME@example.org> as the file
# md/SUB/NAME (new/ unless SUB), its mtime t + SECONDS
put() {
	local f="md/${3:-new}/$1"
	sed -e "s/^Message-I[Dd]: .*/Message-ID: <$1@example.org>/" \
		-e "s/^Subject: .*/Subject: [PATCH] $1: change/" "$template" >"$f"
	touch -d "@$((t + $2))" "$f"
}
mkdir -p md/new md/cur md/tmp
conf_section 'source "list"' type=maildir "path=$tmp/md" >relay.conf

# poll NAME [CURSOR]: poll from CURSOR; the Message-IDs emitted in
# NAME.got, the new cursor in $cursor (unchanged when none)
poll() {
	if [ -n "${2:-}" ]; then
		"$PATCHRELAY" poll -c relay.conf list --json --cursor "$2" \
			>"$1.json" 2>"$1.err" || fail "poll $1: $(cat "$1.err")"
	else
		"$PATCHRELAY" poll -c relay.conf list --json >"$1.json" \
			2>"$1.err" || fail "poll $1: $(cat "$1.err")"
	fi
	$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
for e in d["events"]:
    print(" ".join(e["patches"]))' "$1.json" | sort >"$1.got"
	c=$(poll_cursor "$1.json")
	[ -z "$c" ] || cursor=$c
}
# want NAME ID...: poll NAME emitted exactly these mails
want() {
	local n=$1
	shift
	printf '%s\n' "$@" | sed '/^$/d; s/$/@example.org/' | sort >"$n.want"
	diff -u "$n.want" "$n.got" || fail "$n: not the mails that were new"
	echo "$me: $n: ok"
}

put m-b 0
poll first
want first m-b
# the same second, a name before m-b's: read (it was lost before)
put m-a 0
poll same-second "$cursor"
want same-second m-a
poll nothing "$cursor"
want nothing
# a reader moves both into cur/ and flags them: not read again
mv md/new/m-a md/cur/m-a:2,S
mv md/new/m-b md/cur/m-b:2,RS
poll moved "$cursor"
want moved
# delivered late: 30 seconds before the high mark, and one after it
put m-0 -30
put m-c 1
poll late "$cursor"
want late m-0 m-c
poll again "$cursor"
want again
# dated ahead of the clock (the year 2100): read, and named, not the high
# mark, so a file with the right date after it is still read
put m-future $((4102444800 - t))
poll future "$cursor"
want future m-future
put m-d 2
poll after-future "$cursor"
want after-future m-d
poll again2 "$cursor"
want again2

# a first pass over 500 files of one second, then one more of it
rm -f md/new/* md/cur/*
i=0
while [ "$i" -lt 500 ]; do
	put "n-$i" 100
	i=$((i + 1))
done
poll many
[ "$(wc -l <many.got)" -eq 500 ] || fail "many: $(wc -l <many.got) mails, not 500"
put n-00 100
poll many-one "$cursor"
want many-one n-00
poll many-none "$cursor"
want many-none
