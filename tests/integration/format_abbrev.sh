#!/bin/sh
# Index-line abbreviation against git format-patch: git picks the length
# from the number of packed objects (7 digits below 2^14 = 16384, 8 from
# there on), respects a numeric core.abbrev and lengthens an ambiguous
# prefix.  patchrelay range-diff's id column follows the same rule.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
fail=0

git_identity 'A U Thor <author@example.org>' '2026-12-03 12:00:00 +0100' \
	'C O Mitter <c@example.org>'
git_alone

# fast-import a pack of $2 blobs, a tree and a commit on refs/heads/$1
blobs() {
	/usr/bin/python3 - "$1" "$2" <<'PY' | git fast-import --quiet
import sys
ref, n = sys.argv[1], int(sys.argv[2])
o = sys.stdout
for i in range(n):
    s = "%s blob %d\n" % (ref, i)
    o.write("blob\nmark :%d\ndata %d\n%s" % (i + 1, len(s), s))
o.write("commit refs/heads/%s\nmark :%d\n"
        "committer C O Mitter <c@example.org> 1700000000 +0000\n"
        "data 5\nbulk\nM 100644 :1 bulk-%s\n\n" % (ref, n + 1, ref))
PY
}

# format-patch and patchrelay format agree byte for byte
check() {
	name=$1
	shift
	rm -rf "$tmp/git" "$tmp/pr"
	git format-patch -q -o "$tmp/git" "$@"
	"$PATCHRELAY" format -o "$tmp/pr" "$@" >/dev/null
	if diff -r "$tmp/git" "$tmp/pr" >"$tmp/diff"; then
		echo "ok $name"
	else
		echo "FAIL $name"
		head -20 "$tmp/diff"
		fail=1
	fi
}

# the longest index id git wrote, but the full ids of binary patches
widest() {
	sed -n 's/^index \([0-9a-f]*\)\.\.\([0-9a-f]*\).*/\1\n\2/p' \
		"$tmp"/git/*.patch | awk 'length($0) != 40 &&
		length($0) > m { m = length($0) } END { print m }'
}

R="$tmp/repo"
git init -q -b main "$R"
cd "$R"
# 16381 blobs + tree + commit: 16383 packed objects, one short of 2^14
blobs main 16381
git reset -q --hard main
for i in 1 2 3 4 5 6; do
	seq 1 $((i * 7)) >"f$i.txt"
	git add -A
	git commit -q -m "f$i: add"
done
printf '\000bin\001' >blob.bin
echo more >>f1.txt
git add -A
git commit -q -m "a binary and an edit"
git rm -q f2.txt
git commit -q -m "f2: delete"

[ "$(git rev-parse --short HEAD | wc -c)" = 8 ] ||
	{ echo "FAIL setup: git does not use 7 digits at 16383 objects"; fail=1; }
check "16383 packed objects: 7 digits" -8
[ "$(widest)" = 7 ] || { echo "FAIL 7 digits expected"; fail=1; }

# one more pack (fast-import unpacks fewer than 100 objects): from 2^14
# packed objects on git uses 8 digits, and loose
# objects do not count
blobs more 200
[ "$(git rev-parse --short HEAD | wc -c)" = 9 ] ||
	{ echo "FAIL setup: git does not use 8 digits at 16585 objects"; fail=1; }
check "16585 packed objects: 8 digits" -8
check "8 digits, cover letter and base" --cover-letter --base=HEAD~8 -8
[ "$(widest)" = 8 ] || { echo "FAIL 8 digits expected"; fail=1; }

# a numeric core.abbrev wins over the count
git config core.abbrev 12
check "core.abbrev 12" -8
[ "$(widest)" = 12 ] || { echo "FAIL 12 digits expected"; fail=1; }

# with 4 digits among 16,000 objects some prefixes are shared: git
# lengthens those ids
git config core.abbrev 4
check "core.abbrev 4, ambiguous prefixes lengthened" -8
w=$(widest)
[ "$w" -gt 4 ] || { echo "FAIL no ambiguous id lengthened ($w)"; fail=1; }
git config core.abbrev auto
check "core.abbrev auto" -3
git config core.abbrev no
check "core.abbrev no" -3
git config core.abbrev 3
if "$PATCHRELAY" format -o "$tmp/bad" -1 >/dev/null 2>&1; then
	echo "FAIL core.abbrev 3 accepted (git refuses it)"
	fail=1
fi
git config --unset core.abbrev

# config files as git finds them: GIT_CONFIG_SYSTEM names the system file
# unless GIT_CONFIG_NOSYSTEM; GIT_CONFIG_GLOBAL replaces ~/.gitconfig (and
# the XDG file); the repository's own config wins over both
printf '[core]\n\tabbrev = 9\n' >"$tmp/system.cfg"
printf '[core]\n\tabbrev = 10\n' >"$tmp/global.cfg"
printf '[core]\n\tabbrev = 11\n' >"$tmp/.gitconfig"
mkdir -p "$tmp/xdg/git"
printf '[core]\n\tabbrev = 13\n' >"$tmp/xdg/git/config"
export GIT_CONFIG_SYSTEM="$tmp/system.cfg"
check "GIT_CONFIG_NOSYSTEM: no system file" -3
[ "$(widest)" = 11 ] || { echo "FAIL 11 digits (~/.gitconfig) expected"; fail=1; }
unset GIT_CONFIG_NOSYSTEM
mv "$tmp/.gitconfig" "$tmp/.gitconfig.off"
check "GIT_CONFIG_SYSTEM: core.abbrev 9" -3
[ "$(widest)" = 9 ] || { echo "FAIL 9 digits expected"; fail=1; }
export XDG_CONFIG_HOME="$tmp/xdg"
check "XDG config over the system file: core.abbrev 13" -3
[ "$(widest)" = 13 ] || { echo "FAIL 13 digits expected"; fail=1; }
mv "$tmp/.gitconfig.off" "$tmp/.gitconfig"
check "~/.gitconfig over the XDG file: core.abbrev 11" -3
[ "$(widest)" = 11 ] || { echo "FAIL 11 digits expected"; fail=1; }
export GIT_CONFIG_GLOBAL="$tmp/global.cfg"
check "GIT_CONFIG_GLOBAL instead of ~/.gitconfig: core.abbrev 10" -3
[ "$(widest)" = 10 ] || { echo "FAIL 10 digits expected"; fail=1; }
git config core.abbrev 12
check "the repository's config wins: core.abbrev 12" -3
[ "$(widest)" = 12 ] || { echo "FAIL 12 digits expected"; fail=1; }
git config --unset core.abbrev
unset GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM XDG_CONFIG_HOME
export GIT_CONFIG_NOSYSTEM=1
rm -rf "$tmp/.gitconfig" "$tmp/xdg"

# the command-line config git reads after every file: GIT_CONFIG_COUNT
# pairs, then GIT_CONFIG_PARAMETERS (what `git -c` passes on); each wins
# over the repository's config, the later over the earlier
git config core.abbrev 12
export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=core.abbrev GIT_CONFIG_VALUE_0=9
export GIT_CONFIG_KEY_1=Core.Abbrev GIT_CONFIG_VALUE_1=10
check "GIT_CONFIG_COUNT over the repository's config: core.abbrev 10" -3
[ "$(widest)" = 10 ] || { echo "FAIL 10 digits expected"; fail=1; }
export GIT_CONFIG_PARAMETERS="'core.abbrev'='11' 'core.abbrev=13'"
check "GIT_CONFIG_PARAMETERS over GIT_CONFIG_COUNT: core.abbrev 13" -3
[ "$(widest)" = 13 ] || { echo "FAIL 13 digits expected"; fail=1; }
export GIT_CONFIG_PARAMETERS="'core.abbrev'='AUTO'"
check "GIT_CONFIG_PARAMETERS core.abbrev AUTO: 8 digits" -3
[ "$(widest)" = 8 ] || { echo "FAIL 8 digits expected"; fail=1; }
export GIT_CONFIG_PARAMETERS="'core.abbrev'='off'"
check "GIT_CONFIG_PARAMETERS core.abbrev off: full ids" -3
export GIT_CONFIG_PARAMETERS="'core.abbrev'='0xa'"
check "GIT_CONFIG_PARAMETERS core.abbrev 0xa: 10 digits" -3
[ "$(widest)" = 10 ] || { echo "FAIL 10 digits expected"; fail=1; }
unset GIT_CONFIG_PARAMETERS
# what git refuses, patchrelay refuses: a bogus count, a missing key, a
# malformed parameter list, a key with no value
refuse() { # NAME VAR=VALUE...
	name=$1
	shift
	if env "$@" git format-patch -q -o "$tmp/bad" -1 2>/dev/null; then
		echo "FAIL setup: git accepts $name"
		fail=1
	elif env "$@" "$PATCHRELAY" format -o "$tmp/bad" -1 >/dev/null 2>"$tmp/err"; then
		echo "FAIL $name accepted (git refuses it)"
		fail=1
	else
		echo "ok $name refused: $(cat "$tmp/err")"
	fi
}
refuse "GIT_CONFIG_COUNT 2x" GIT_CONFIG_COUNT=2x
refuse "GIT_CONFIG_COUNT -1" GIT_CONFIG_COUNT=-1
refuse "GIT_CONFIG_COUNT 3 with 2 keys" GIT_CONFIG_COUNT=3
refuse "GIT_CONFIG_PARAMETERS unquoted" GIT_CONFIG_PARAMETERS=core.abbrev=9
refuse "GIT_CONFIG_PARAMETERS with a leading space" \
	GIT_CONFIG_PARAMETERS=" 'core.abbrev=9'"
refuse "GIT_CONFIG_PARAMETERS key without value" \
	GIT_CONFIG_PARAMETERS="'core.abbrev'"
refuse "GIT_CONFIG_PARAMETERS invalid key" GIT_CONFIG_PARAMETERS="'core.9x=1'"
unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0 GIT_CONFIG_KEY_1 \
	GIT_CONFIG_VALUE_1
# and through git itself: `git -c` runs an alias with the parameters it
# quoted (a value with a quote and a '!' in it among them)
rm -rf "$tmp/git" "$tmp/pr"
git -c core.abbrev=9 format-patch -q -o "$tmp/git" -3
git -c core.abbrev=11 -c "x.y=it's!" -c core.abbrev=9 \
	-c alias.prformat="!\"$PATCHRELAY\" format -o \"$tmp/pr\"" prformat -3 \
	>/dev/null
if diff -r "$tmp/git" "$tmp/pr" >"$tmp/diff" && [ "$(widest)" = 9 ]; then
	echo "ok git -c core.abbrev=9 through an alias"
else
	echo "FAIL git -c core.abbrev=9 through an alias"
	head -20 "$tmp/diff"
	fail=1
fi
git config --unset core.abbrev

# alternates count: a --shared clone (no pack of its own) gets 8 digits
git clone -q --shared "$R" "$tmp/shared" 2>/dev/null
cd "$tmp/shared"
git checkout -q -b topic origin/main
echo clone >>f1.txt
git commit -q -am "f1: in the clone"
check "objects of alternates: 8 digits" -1
[ "$(widest)" = 8 ] || { echo "FAIL 8 digits expected"; fail=1; }

# a multi-pack index: git 2.39 counts its entries plus those of the packs
# it opened through it (format-patch has read the pack here): 10,002
# objects give 7 digits, 8 once the index is written
M="$tmp/midx"
git init -q -b main "$M"
cd "$M"
blobs main 10000
git reset -q --hard main
echo y >y.txt
git add y.txt
git commit -q -m "y: add"
check "10,002 packed objects: 7 digits" -1
[ "$(widest)" = 7 ] || { echo "FAIL 7 digits expected"; fail=1; }
git multi-pack-index write
check "10,002 objects under a multi-pack index: 8 digits" -1
[ "$(widest)" = 8 ] || { echo "FAIL 8 digits expected"; fail=1; }
# core.multiPackIndex=false: git reads no multi-pack index, the packs only
git config core.multiPackIndex false
check "core.multiPackIndex false: 7 digits again" -1
[ "$(widest)" = 7 ] || { echo "FAIL 7 digits expected"; fail=1; }
git config --unset core.multiPackIndex
GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.multiPackIndex GIT_CONFIG_VALUE_0=off \
	check "GIT_CONFIG_COUNT core.multiPackIndex off: 7 digits" -1
[ "$(widest)" = 7 ] || { echo "FAIL 7 digits expected"; fail=1; }
git config core.multiPackIndex false
GIT_CONFIG_PARAMETERS="'core.multipackindex'" \
	check "-c core.multiPackIndex (true) over the file's false: 8 digits" -1
[ "$(widest)" = 8 ] || { echo "FAIL 8 digits expected"; fail=1; }
git config --unset core.multiPackIndex

# several packs under one multi-pack index: git counts the index's entries
# plus only the packs it opened through it before its first abbreviation
# (approximate_object_count() after find_pack_entry() installed them):
# those holding the commits it walked and the first patch's trees and
# blobs.  Two packs of 5,002 objects under an index of 10,004: a patch
# reading one pack gives 15,006 objects (7 digits), one reading both
# 20,008 (8 digits); counting every pack would give 8 digits throughout
M="$tmp/midx2"
git init -q -b main "$M"
cd "$M"
blobs main 5000
git reset -q --hard main
blobs side 5000
echo y >y.txt
git add y.txt
git commit -q -m "y: add"
git multi-pack-index write
[ "$(ls .git/objects/pack/*.idx | wc -l)" = 2 ] ||
	{ echo "FAIL setup: not two packs"; fail=1; }
# y is loose; its parent, the commit of the main pack, is read
check "two packs under a multi-pack index, one read: 7 digits" -1
[ "$(widest)" = 7 ] || { echo "FAIL 7 digits expected"; fail=1; }
# blobs of both packs (git add writes no loose copy of a packed blob)
echo "side blob 7" >z.txt
echo "main blob 7" >w.txt
git add z.txt w.txt
git commit -q -m "z: blobs of both packs"
check "two packs under a multi-pack index, both read: 8 digits" -1
[ "$(widest)" = 8 ] || { echo "FAIL 8 digits expected"; fail=1; }
# the first patch decides, as git counts once: y (one pack) then z
check "the first patch's packs decide for the series: 7 digits" -2
[ "$(widest)" = 7 ] || { echo "FAIL 7 digits expected"; fail=1; }
# a pack outside the index always counts: a third one of 1,202 objects
# makes 16,208 for y first (7 digits), 21,210 for z (8)
blobs third 1200
[ "$(ls .git/objects/pack/*.idx | wc -l)" = 3 ] ||
	{ echo "FAIL setup: not three packs"; fail=1; }
check "a pack outside the multi-pack index counts: 7 digits" -2
[ "$(widest)" = 7 ] || { echo "FAIL 7 digits expected"; fail=1; }
check "a pack outside the index, both inside read: 8 digits" -1
[ "$(widest)" = 8 ] || { echo "FAIL 8 digits expected"; fail=1; }
# the index rewritten over all three: 11,206 + the main pack's 5,002
git multi-pack-index write
check "three packs under the index, one read: 7 digits" -2
[ "$(widest)" = 7 ] || { echo "FAIL 7 digits expected"; fail=1; }
# and with the cover letter and --base of the same series
check "three packs under the index, cover letter: 8 digits" --cover-letter --base=HEAD~2 -2
[ "$(widest)" = 8 ] || { echo "FAIL 8 digits expected"; fail=1; }
cd "$R"

# range-diff: the id column uses the same length
git checkout -q -b v2 HEAD~3
echo changed >>f1.txt
git commit -q -am "f1: change"
git commit -q --allow-empty -m "empty one"
git range-diff --no-color main~5..main HEAD~2..HEAD >"$tmp/rd.git"
"$PATCHRELAY" range-diff main~5..main HEAD~2..HEAD >"$tmp/rd.pr" || true
if cmp -s "$tmp/rd.git" "$tmp/rd.pr"; then
	echo "ok range-diff, 8-digit ids"
else
	echo "FAIL range-diff, 8-digit ids"
	diff "$tmp/rd.git" "$tmp/rd.pr" | head -20
	fail=1
fi
git config core.abbrev 4
git range-diff --no-color main~5..main HEAD~2..HEAD >"$tmp/rd.git"
"$PATCHRELAY" range-diff main~5..main HEAD~2..HEAD >"$tmp/rd.pr" || true
if cmp -s "$tmp/rd.git" "$tmp/rd.pr"; then
	echo "ok range-diff, core.abbrev 4"
else
	echo "FAIL range-diff, core.abbrev 4"
	diff "$tmp/rd.git" "$tmp/rd.pr" | head -20
	fail=1
fi

exit $fail
