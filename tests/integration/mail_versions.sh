#!/bin/sh
# A new version of a series in a later poll than the one before it
# (connectors/mailsrc_key.c), for the maildir and the mbox sources, with
# the state and a maildir sink of `patchrelay run --once`, one poll a
# step:
#   1. v1 of series A (cover letter and 2 patches) and a lone patch L;
#   2. A's v2 in a thread of its own, as git send-email sends it; L's v2
#      under another subject with a "v1: URL" link to L; Bob's
#      "[PATCH v2 0/2]" under A's subject; and Ada's lone "[PATCH] g: add
#      a fixup" in reply to A's v1 cover letter;
#   3. A's v3 threaded into v2 (--in-reply-to v2's cover letter);
#   4. A's v4 in a thread of its own, the same code with a reworded
#      commit message.
# A has four versions (v2 to v4 sent as such, with a range-diff), L two,
# the fixup is a series of its own (not a v2 of A, as it was before), and
# Bob's series is a series of its own, first seen at v2 and kept as v2
# (sent as such, without a range-diff or a link to a v1 never seen): what
# one poll of all the mails makes of them (checked with `patchrelay poll
# --json`).
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_alone
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
mkdir repo
echo base >repo/f.c
echo base >repo/g.c
git_base repo
git -C repo checkout -q -b a
for l in b c; do
	echo "$l" >>repo/f.c
	git -C repo commit -q -a -m "f: add $l" || fail "commit $l"
done
# fp NAME ARGS...: git format-patch of a..main into NAME/, a cover letter's
# subject "f: two lines"; a second apart, so the Message-IDs differ
fp() {
	local d=$1
	shift
	sleep 1
	git -C repo format-patch -q --thread -o "$tmp/$d" "$@" ||
		fail "format-patch $d"
	sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/f: two lines/' \
		-e 's/\*\*\* BLURB HERE \*\*\*/Two lines for f./' "$tmp/$d"/*
}
mid() { sed -n 's/^Message-I[Dd]: *<\(.*\)>.*/\1/p' "$1"; }
fp a1 --cover-letter main..a
echo d >>repo/f.c
git -C repo commit -q -a --amend -m 'f: add c and d' || fail amend
fp a2 --cover-letter -v2 main..a
echo e >>repo/f.c
git -C repo commit -q -a --amend -m 'f: add c, d and e' || fail amend
fp a3 --cover-letter -v3 --in-reply-to="$(mid a2/v2-0000-*)" main..a
git -C repo commit -q --amend -m 'f: add c, d and e' -m 'All three at once.'
fp a4 --cover-letter -v4 main..a
git -C repo checkout -q -b l main
echo fix >>repo/g.c
git -C repo commit -q -a -m 'g: fix it' || fail "commit l"
fp l1 main..l
echo better >>repo/g.c
git -C repo commit -q -a --amend -m 'g: fix it properly' || fail amend
fp l2 -v2 main..l
# the link under the ---, as b4 and many others write it
sed -i "s|^---\$|---\\nv1: https://lore.kernel.org/r/$(mid l1/0001-*)\\n|" \
	l2/*
# Bob's "v2" of a series of his own under A's subject, other patches
git_identity 'Bob Other <bob@example.org>' '1796299200 +0000'
git -C repo checkout -q -b bob main
for l in b c; do
	echo "bob $l" >>repo/f.c
	git -C repo commit -q -a -m "f: add $l" || fail "commit bob $l"
done
fp b2 --cover-letter -v2 main..bob
# Ada's fixup, answering A's v1
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git -C repo checkout -q -b fx main
echo fixup >>repo/g.c
git -C repo commit -q -a -m 'g: add a fixup' || fail "commit fx"
fp fx --in-reply-to="$(mid a1/0000-*)" main..fx

# step N SOURCE DIR...: the mails of DIR... into the source's folder
# (maildir: a file a mail, mtime in the step's minute; mbox: one file a
# directory), then one run
step() {
	local n=$1 src=$2 d f i=0
	shift 2
	for d in "$@"; do
		for f in "$d"/*; do
			i=$((i + 1))
			if [ "$src" = maildir ]; then
				sed 1d "$f" >"$src/in/new/$n-$d-$i"
				touch -d "@$((1796300000 + n * 60 + i))" \
					"$src/in/new/$n-$d-$i"
			else
				cat "$f" >>"$src/in/$d.mbox"
			fi
		done
	done
	"$PATCHRELAY" run -c "$src/relay.conf" --once >"$src/run$n.out" \
		2>&1 || fail "$src: run $n: $(cat "$src/run$n.out")"
}

for src in maildir mbox; do
	mkdir -p "$src/in/new" "$src/in/cur" "$src/in/tmp"
	{
		conf_section core "state=$tmp/$src/state.db"
		conf_section 'source "list"' "type=$src" "path=$tmp/$src/in" \
			wait=0s
		conf_section 'sink "out"' type=maildir "path=$tmp/$src/out"
		conf_section 'route "r"' from=list to=out
	} >"$src/relay.conf"
	step 1 "$src" a1 l1
	step 2 "$src" a2 l2 b2 fx
	step 3 "$src" a3
	step 4 "$src" a4
	"$PATCHRELAY" status -c "$src/relay.conf" --json >"$src/status.json" ||
		fail "$src: status"
	# the series (by their first mail) and their versions
	$PY - "$src/status.json" "$(mid a1/0000-*)" "$(mid l1/0001-*)" \
		"$(mid b2/v2-0000-*)" "$(mid fx/0001-*)" >"$src/series" <<'EOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
names = dict(zip(sys.argv[2:], "ALBF"))
got = {}
for x in d["deliveries"]:
    got.setdefault(names.get(x["key"], x["key"]), set()).add(x["version"])
for k in sorted(got):
    print(k, " ".join(str(v) for v in sorted(got[k])))
EOF
		fail "$src: status: $(cat "$src/status.json")"
	printf 'A 1 2 3 4\nB 2\nF 1\nL 1 2\n' >want
	diff want "$src/series" >"$src/series.diff" ||
		fail "$src: the series and versions differ: $(cat "$src/series.diff")"
	grep -h '^Subject: ' "$src"/out/new/* | sort >"$src/subjects"
	for s in '[PATCH v2 0/2] f: two lines' '[PATCH v3 0/2] f: two lines' \
		'[PATCH v2] g: fix it properly'; do
		grep -qxF "Subject: $s" "$src/subjects" ||
			fail "$src: no '$s' sent: $(cat "$src/subjects")"
	done
	for v in v2 v3 v4; do
		f=$(grep -l "^Subject: \[PATCH $v 0/2\]" "$src"/out/new/* |
			xargs grep -l '^From: Ada')
		grep -q '^Range-diff against v' "$f" ||
			fail "$src: the $v cover letter has no range-diff"
	done
	f=$(grep -l '^Subject: \[PATCH v2 0/2\]' "$src"/out/new/* |
		xargs grep -l '^From: Bob') ||
		fail "$src: Bob's series was not sent as v2: $(cat "$src/subjects")"
	grep -q '^Range-diff\|^Link to v1' "$f" &&
		fail "$src: Bob's v2 refers to a v1: $(cat "$f")"
	echo "ok $src: v2 to v4 of A and v2 of L in later polls join them"
done

# one poll of every mail groups them the same way
mkdir -p one/new one/cur one/tmp
i=0
for f in a1/* l1/* a2/* l2/* b2/* fx/* a3/* a4/*; do
	i=$((i + 1))
	sed 1d "$f" >"one/new/$i"
	touch -d "@$((1796300000 + i))" "one/new/$i"
done
conf_section 'source "list"' type=maildir "path=$tmp/one" wait=0s >one.conf
"$PATCHRELAY" poll -c one.conf list --json >one.json 2>one.err ||
	fail "poll: $(cat one.err)"
$PY - one.json >one.series <<'EOF' || fail "poll: $(cat one.json)"
import json, sys
got = {}
for e in json.load(open(sys.argv[1]))["events"]:
    got.setdefault(e["series"], []).append(e["version"])
print(sorted(len(v) for v in got.values()))
EOF
[ "$(cat one.series)" = "[1, 1, 2, 4]" ] ||
	fail "one poll: series of $(cat one.series) versions, not [1, 1, 2, 4]"
echo "ok one poll makes the same four series"
