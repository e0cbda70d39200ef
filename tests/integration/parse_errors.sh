#!/bin/sh
# `patchrelay parse` on bad input: exit 2 naming the file and the place; a
# mailbox with some bad messages still yields the good ones, with a warning.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

"$PATCHRELAY" parse --json "$tmp/missing" > "$tmp/out" 2> "$tmp/err"
[ $? -eq 2 ] || fail "missing file: want exit 2"
grep -q "missing" "$tmp/err" || fail "missing file not named: $(cat "$tmp/err")"

printf '\nnot a mail at all\n' > "$tmp/junk.eml"
"$PATCHRELAY" parse --json "$tmp/junk.eml" > "$tmp/out" 2> "$tmp/err"
[ $? -eq 2 ] || fail "junk: want exit 2"
grep -q "junk.eml" "$tmp/err" || fail "junk not named"
grep -q "line 1" "$tmp/err" || fail "junk: no place: $(cat "$tmp/err")"

: > "$tmp/empty.mbox"
"$PATCHRELAY" parse --json "$tmp/empty.mbox" > /dev/null 2>&1
[ $? -eq 2 ] || fail "empty file: want exit 2"

cat > "$tmp/mixed.mbox" <<'MBOX'
From a Mon Sep 17 00:00:00 2001
From: Good One <g1@example.com>
Subject: [PATCH] good one

body
From b Mon Sep 17 00:00:00 2001

no headers in this one
From c Mon Sep 17 00:00:00 2001
From: Good Two <g2@example.com>
Subject: good two

body
MBOX
"$PATCHRELAY" parse --json "$tmp/mixed.mbox" > "$tmp/out" 2> "$tmp/err"
[ $? -eq 0 ] || fail "mixed: want exit 0"
grep -q "message 2 line 6" "$tmp/err" || fail "mixed: no warning: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/out" <<'PY' || fail "mixed: wrong messages"
import json, sys
m = json.load(open(sys.argv[1]))['messages']
assert [x['subject'] for x in m] == ['good one', 'good two'], m
assert m[0]['from'] == {'name': 'Good One', 'email': 'g1@example.com'}
PY

# a maildir: cur/ and new/ in name order
mkdir -p "$tmp/md/cur" "$tmp/md/new" "$tmp/md/tmp"
printf 'From: B <b@example.com>\nSubject: second\n\nb\n' > "$tmp/md/new/2"
printf 'From: A <a@example.com>\nSubject: first\n\na\n' > "$tmp/md/cur/1"
"$PATCHRELAY" parse --json "$tmp/md" > "$tmp/out" 2> "$tmp/err" ||
	fail "maildir: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/out" <<'PY' || fail "maildir: wrong messages"
import json, sys
m = json.load(open(sys.argv[1]))['messages']
assert [x['subject'] for x in m] == ['first', 'second'], m
PY

"$PATCHRELAY" parse --bogus-option x > /dev/null 2>&1
[ $? -eq 2 ] || fail "bad option: want exit 2"
echo ok
