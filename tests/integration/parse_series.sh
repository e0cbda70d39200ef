#!/bin/sh
# patchrelay parse --json "series": a v1 with a cover letter made by git
# format-patch --cover-letter --thread, a v2 threaded into v1 with
# --in-reply-to and a b4-style "Link to v1:" line, a v3 renamed and sent
# in a thread of its own that only b4's change-id ties to the others, a
# review reply and a partial re-roll of one patch.  The ids checked are
# the ones git wrote.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

git_identity 'A U Thor <author@example.org>'
git_alone
mkdir "$tmp/repo"
printf 'one\n' >"$tmp/repo/f"
printf 'two\n' >"$tmp/repo/g"
git_base "$tmp/repo"
cd "$tmp/repo" || exit 1
git tag base
# format VERSION DIR [git format-patch options]: ids made unique per version
format() {
	v=$1 d=$2
	shift 2
	git format-patch -q --cover-letter --thread -v"$v" -o "$d" "$@" \
		base..HEAD || fail "format-patch v$v"
	for f in "$d"/*.patch; do
		sed "s/\.git\.author@example\.org>/.v$v@example.org>/g" "$f" \
			>"$f.new" && mv "$f.new" "$f" || fail "rewrite ids"
	done
}
# blurb FILE TEXT: the cover's blurb, b4's change-id under its end
blurb() {
	$PY - "$1" "$2" <<'PYEOF' || fail "blurb"
import sys
p, text = sys.argv[1], sys.argv[2].replace('\\n', '\n')
s = open(p, encoding='utf-8').read()
s = s.replace('*** BLURB HERE ***', text)
s = s.rstrip('\n') + '\n\n---\nbase-commit: 0000\nchange-id: 20261203-demo-5e1f\n\nBest regards,\n'
open(p, 'w', encoding='utf-8').write(s)
PYEOF
}

git checkout -q -b work
printf 'one 1\n' >f && git commit -qam "f: change one" || fail "commit 1"
printf 'two 1\n' >g && git commit -qam "g: change two" || fail "commit 2"
format 1 "$tmp/v1"
blurb "$tmp/v1/v1-0000-cover-letter.patch" 'The first try.'
c1=$(message_id "$tmp/v1/v1-0000-cover-letter.patch")
a1=$(message_id "$tmp/v1/v1-0001-f-change-one.patch")
b1=$(message_id "$tmp/v1/v1-0002-g-change-two.patch")

git commit -q --amend -m "g: change two, better" || fail "amend"
format 2 "$tmp/v2" --in-reply-to="$c1"
blurb "$tmp/v2/v2-0000-cover-letter.patch" \
	"Changes in v2:\\n- better\\n- Link to v1: https://lore.kernel.org/r/$c1"
c2=$(message_id "$tmp/v2/v2-0000-cover-letter.patch")
a2=$(message_id "$tmp/v2/v2-0001-f-change-one.patch")
b2=$(message_id "$tmp/v2/v2-0002-g-change-two-better.patch")

printf 'two 3\n' >g && git commit -q -a --amend -m "g: change two, best" ||
	fail "amend v3"
format 3 "$tmp/v3" --subject-prefix="PATCH net"
blurb "$tmp/v3/v3-0000-cover-letter.patch" 'Renamed.'
sed -i 's/^\(Subject: .*\)\*\*\* SUBJECT HERE \*\*\*/\1 renamed series/' \
	"$tmp/v3/v3-0000-cover-letter.patch"
c3=$(message_id "$tmp/v3/v3-0000-cover-letter.patch")
p3=$(ls "$tmp"/v3/v3-000[1-9]-*.patch)
ids3=$(for f in $p3; do message_id "$f"; done | tr '\n' ' ')

# a review reply to v1's first patch
cat >"$tmp/reply" <<REOF
From reviewer Mon Sep 17 00:00:00 2001
From: Rev Iewer <rev@example.org>
Subject: Re: [PATCH v1 1/2] f: change one
Message-Id: <reply-1@example.org>
In-Reply-To: <$a1>
References: <$c1> <$a1>

Reviewed-by: Rev Iewer <rev@example.org>
REOF

# the mbox in arrival order: v3 first, the reply, v2, then v1
cat "$tmp"/v3/*.patch "$tmp/reply" "$tmp"/v2/*.patch "$tmp"/v1/*.patch \
	>"$tmp/all.mbox"
"$PATCHRELAY" parse --json "$tmp/all.mbox" >"$tmp/out.json" ||
	fail "parse --json"
$PY - "$tmp/out.json" "$c1" "$a1" "$b1" "$c2" "$a2" "$b2" "$c3" "$ids3" \
	<<'PYEOF' || fail "series list"
import json, sys
out = json.load(open(sys.argv[1]))
c1, a1, b1, c2, a2, b2, c3, ids3 = sys.argv[2:10]
ser = out['series']
assert len(out['messages']) == 10, len(out['messages'])
assert len(ser) == 3, json.dumps(ser, indent=1)
for s in ser:
    assert s['key'] == '20261203-demo-5e1f', s
    assert s['complete'] and not s['partial_reroll'], s
    assert s['total'] == 2, s
want = [
    (1, c1, [a1, b1], None),
    (2, c2, [a2, b2], c1),
    (3, c3, ids3.split(), c2),
]
for s, (v, c, p, sup) in zip(ser, want):
    assert s['version'] == v, (s, v)
    assert s['cover'] == c, (s, c)
    assert s['patches'] == p, (s, p)
    assert s['supersedes'] == sup, (s, sup)
PYEOF

# a partial re-roll: v4 re-sends only 2/2 of v3, answering it
f2=$(echo $p3 | cut -d' ' -f2)
b3=$(message_id "$f2")
a3=$(echo $ids3 | cut -d' ' -f1)
sed -e "s/^Message-Id: <.*>/Message-Id: <v4-2@example.org>/I" \
	-e "s/^In-Reply-To: <.*>/In-Reply-To: <$b3>/I" \
	-e "s/^References: <.*>/References: <$c3> <$b3>/I" \
	-e "s/PATCH net v3 2\/2/PATCH net v4 2\/2/" "$f2" >"$tmp/v4.patch" ||
	fail "v4"
cat "$tmp/all.mbox" "$tmp/v4.patch" >"$tmp/all4.mbox"
"$PATCHRELAY" parse --json "$tmp/all4.mbox" >"$tmp/out4.json" ||
	fail "parse --json v4"
$PY - "$tmp/out4.json" "$a3" "$c3" <<'PYEOF' || fail "partial re-roll"
import json, sys
ser = json.load(open(sys.argv[1]))['series']
a3, c3 = sys.argv[2:4]
assert len(ser) == 4, json.dumps(ser, indent=1)
v4 = ser[3]
assert v4['version'] == 4 and v4['complete'] and v4['partial_reroll'], v4
assert v4['cover'] is None, v4
assert v4['patches'] == [a3, 'v4-2@example.org'], v4
assert v4['supersedes'] == c3, v4
PYEOF
exit 0
