#!/bin/sh
# patchrelay route against scripts/get_maintainer.pl --no-git
# --no-git-fallback, byte for byte, over a generated corpus of patches across
# the kernel tree of Debian's linux-source.  The one change made to
# get_maintainer.pl: sections that match a file at the same depth are sorted
# by line number instead of Perl's random hash order.  Reference answers are
# cached in $C/route-cache keyed by script, MAINTAINERS, flags and
# patch, so that only the first run pays for Perl.
set -eu
. "$(dirname "$0")/lib.sh"
# the kernel tree, extracted once for all route tests: sets C and L
kernel_tree
tmpdir
# the cache is shared (by the builds, and by runs at the same time): what
# a run makes for itself stays in $tmp, and each answer is written whole
cache="$C/route-cache"
corpus="$tmp/corpus"
gm="$tmp/get_maintainer.pl"
mkdir -p "$cache" "$tmp/home"
# route's compiled MAINTAINERS index: written by the first runs (in
# parallel), mapped by the others
export XDG_CACHE_HOME="$tmp/xdg"

# the tie made stable, in get_maintainers() only (its first sort by depth)
/usr/bin/perl -pe 'if (!$done && s/sort \{\$hash\{\$b\} <=> \$hash\{\$a\}\}/sort {\$hash{\$b} <=> \$hash{\$a} || \$a <=> \$b}/) { $done = 1 }' \
	"$L/scripts/get_maintainer.pl" >"$gm"
[ "$(diff "$L/scripts/get_maintainer.pl" "$gm" | grep -c '^[<>]')" = 2 ] ||
	fail "could not patch get_maintainer.pl's tie order"

$PY "$PR_SRC/tests/data/maintainers/gen_corpus.py" "$L" "$corpus"
count=$(ls "$corpus" | wc -l)
[ "$count" -ge 250 ] || fail "corpus has $count patches, want >= 250"

# one job: FLAGSET PATCH -> compares, prints DIFF lines on failure
cat >"$tmp/one.sh" <<'JOB'
set -u
flags=$(echo "$1" | tr '_' ' ')
[ "$flags" = "default" ] && flags=""
p="$2"
key=$( { echo "$flags"; cat "$GM" "$L/MAINTAINERS" "$p"; } | sha256sum | cut -c1-40)
ref="$CACHE/$key"
if [ ! -f "$ref" ]; then
	(cd "$L" && HOME="$TMPH" /usr/bin/perl "$GM" --no-git --no-git-fallback $flags "$p") >"$ref.$$" 2>/dev/null || true
	mv "$ref.$$" "$ref"
fi
out="$TMPD/$(basename "$p").$1"
(cd "$L" && "$PATCHRELAY" route $flags "$p") >"$out" 2>/dev/null || true
if ! cmp -s "$ref" "$out"; then
	echo "DIFF [$flags] $p"
	diff "$ref" "$out" | head -n 10
fi
JOB

GM="$gm" CACHE="$cache" TMPH="$tmp/home" TMPD="$tmp"
export GM CACHE TMPH TMPD L PATCHRELAY
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -gt 4 ] && jobs=4

{
	for p in "$corpus"/*.patch; do
		for f in default --no-rolestats --no-rolestats_--no-l; do
			echo "$f $p"
		done
	done
	# the other flags, on part of the corpus
	for p in "$corpus"/single-00[0-4].patch "$corpus"/kw-00[0-4].patch "$corpus"/yaml-*.patch; do
		for f in --subsystem_--status --no-keywords --separator=,_--no-r; do
			echo "$f $p"
		done
	done
} >"$tmp/jobs"

xargs -P "$jobs" -L 1 sh "$tmp/one.sh" <"$tmp/jobs" >"$tmp/result"
runs=$(wc -l <"$tmp/jobs")
if [ -s "$tmp/result" ]; then
	cat "$tmp/result"
	echo "FAIL: $(grep -c '^DIFF' "$tmp/result") of $runs runs differ"
	exit 1
fi

# several patches in one call, as get_maintainer.pl takes them
set -- "$corpus"/single-00*.patch
key=$( { echo multi; cat "$gm" "$L/MAINTAINERS" "$@"; } | sha256sum | cut -c1-40)
if [ ! -f "$cache/$key" ]; then
	(cd "$L" && HOME="$tmp/home" /usr/bin/perl "$gm" --no-git --no-git-fallback "$@") >"$cache/$key.$$" 2>/dev/null
	mv "$cache/$key.$$" "$cache/$key"
fi
(cd "$L" && "$PATCHRELAY" route "$@") >"$tmp/several"
if ! cmp -s "$cache/$key" "$tmp/several"; then
	diff "$cache/$key" "$tmp/several" | head -n 20
	echo "FAIL: several patches in one call differ"
	exit 1
fi

# --maintainers FILE from elsewhere gives the same as --kernel-tree
(cd "$L" && "$PATCHRELAY" route "$corpus/single-000.patch") >"$tmp/a"
"$PATCHRELAY" route --kernel-tree "$L" "$corpus/single-000.patch" >"$tmp/b"
cmp "$tmp/a" "$tmp/b"
[ -s "$tmp/a" ]

# the index was written, and an answer without it, or from a damaged one,
# is the same
idx=$(ls "$XDG_CACHE_HOME"/patchrelay/maintainers-*.idx)
[ "$(echo "$idx" | wc -l)" = 1 ] || fail "not one index: $idx"
(cd "$L" && "$PATCHRELAY" route --no-cache "$corpus/single-000.patch") >"$tmp/c"
cmp "$tmp/a" "$tmp/c" || fail "--no-cache answers otherwise"
ino=$(stat -c %i "$idx")
printf 'XXXX' | dd of="$idx" bs=1 seek=4096 conv=notrunc 2>/dev/null
(cd "$L" && "$PATCHRELAY" route "$corpus/single-000.patch") >"$tmp/c"
cmp "$tmp/a" "$tmp/c" || fail "a damaged index changed the answer"
[ "$(stat -c %i "$idx")" != "$ino" ] || fail "a damaged index was not written again"

echo "ok: $runs runs over $count patches identical to get_maintainer.pl"
