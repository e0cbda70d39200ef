#!/bin/sh
# mass-edit's max-sections against scripts/get_maintainer.pl: a synthetic
# patch over a sample of the real files of Debian's linux-source tree (the
# seed's own tree-wide change touched 46,294 of them; its diffstat keeps
# only some 60), and the seed patch itself.  The reference is the sections
# get_maintainer.pl --sections --no-keywords prints, each once, THE REST
# left out; the depth tie is made stable as in route_vs_get_maintainer.sh.
set -u
. "$(dirname "$0")/lib.sh"
# the kernel tree, extracted once for all route tests: sets C and L
kernel_tree
tmpdir
/usr/bin/perl -pe 'if (!$done && s/sort \{\$hash\{\$b\} <=> \$hash\{\$a\}\}/sort {\$hash{\$b} <=> \$hash{\$a} || \$a <=> \$b}/) { $done = 1 }' \
	"$L/scripts/get_maintainer.pl" >"$tmp/gm.pl"

# every 200th file of the tree, in byte order: ~400 files, ~120 sections
(cd "$L" && find . -type f ! -name .pr-extracted) | sed 's|^\./||' |
	LC_ALL=C sort | awk 'NR % 200 == 0' >"$tmp/files"
n=$(wc -l <"$tmp/files")
[ "$n" -ge 300 ] || fail "only $n files sampled"
{
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: A U Thor <author@example.org>\nDate: Thu, 3 Dec 2026 12:00:00 +0000\n'
	printf 'Subject: [PATCH] tree: fix yes and no\n\nSigned-off-by: A U Thor <author@example.org>\n---\n'
	while read -r f; do
		printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-no\n+yes\n' \
			"$f" "$f" "$f" "$f"
	done <"$tmp/files"
	printf -- '-- \n2.39.5\n'
} >"$tmp/tree.patch"

# the reference: distinct sections in get_maintainer.pl's order
ref() {
	(cd "$L" && HOME="$tmp" /usr/bin/perl "$tmp/gm.pl" --no-git --no-git-fallback \
		--no-keywords --sections "$1") 2>/dev/null |
		grep -v '^[A-Z]:' | grep -v '^$' | awk '!seen[$0]++' |
		grep -vx 'THE REST' >"$2"
}
# "files of N MAINTAINERS sections (over max-sections = M): A, B, C, D, E
# and K more" (no "and" part for five or fewer), from a reference list
want() {
	awk -v max="$2" '{ s[NR] = $0 }
	END {
		printf "files of %d MAINTAINERS sections (over max-sections = %d): ", NR, max
		for (i = 1; i <= 5 && i <= NR; i++)
			printf "%s%s", (i > 1 ? ", " : ""), s[i]
		if (NR > 5)
			printf " and %d more", NR - 5
		printf "\n"
	}' "$1"
}
check() { # PATCH MAX -> $tmp/out, exit status in $rc
	"$PATCHRELAY" check --step "mass-edit:kernel-tree=$L,max-sections=$2" \
		"$1" >"$tmp/out" 2>&1
	rc=$?
}

ref "$tmp/tree.patch" "$tmp/tree.ref"
k=$(wc -l <"$tmp/tree.ref")
echo "tree sample: $n files, $k sections besides THE REST"
[ "$k" -ge 50 ] && [ "$k" -lt 1000 ] || fail "reference names $k sections"

# one under the count fails, naming the count and the first five
check "$tmp/tree.patch" $((k - 1))
cat "$tmp/out"
[ $rc -eq 1 ] || fail "tree: exit $rc at max-sections = $((k - 1)), want 1"
w=$(want "$tmp/tree.ref" $((k - 1)))
grep -qF "fail mass-edit/sections: the series touches $w; " "$tmp/out" ||
	fail "tree: want '$w'"
# the count itself passes: the rule counts exactly
check "$tmp/tree.patch" "$k"
grep -q "mass-edit/sections" "$tmp/out" && fail "tree: sections at max-sections = $k"
# the default (100, bench/mass-sections) refuses it; severity=warn only
# warns
[ "$k" -gt 100 ] || fail "tree: only $k sections, under the default"
"$PATCHRELAY" check --step "mass-edit:kernel-tree=$L" "$tmp/tree.patch" \
	>"$tmp/out" 2>&1
grep -q "^fail mass-edit/sections: the series touches files of $k MAINTAINERS sections (over max-sections = 100)" "$tmp/out" ||
	fail "tree: default limit"
"$PATCHRELAY" check --step "mass-edit:kernel-tree=$L,severity=warn" \
	"$tmp/tree.patch" >"$tmp/out" 2>&1
grep -q "^warn mass-edit/sections: " "$tmp/out" || fail "tree: severity=warn"
# without a MAINTAINERS the rule is off
"$PATCHRELAY" check --step mass-edit "$tmp/tree.patch" >"$tmp/out" 2>&1
grep -q "mass-edit/sections" "$tmp/out" && fail "tree: sections without MAINTAINERS"
# allow-submitters lets a known maintainer's tree-wide series through
"$PATCHRELAY" check --step \
	"mass-edit:kernel-tree=$L,allow-submitters=author@example.org" \
	"$tmp/tree.patch" >"$tmp/out" 2>&1
[ $? -eq 0 ] || fail "tree: allow-submitters still fails"
grep -q "^pass mass-edit/allowed: change across subsystems by 'author@example.org'" "$tmp/out" ||
	fail "tree: allow-submitters"

# the seed: its diffstat's paths (some git shortened with "..." are left
# out), against the same paths given to get_maintainer.pl
SEED=$(seed_patch)
if [ -f "$SEED" ]; then
	sed -n 's/^ \([^ ]*\) *|.*/\1/p' "$SEED" | grep -v '^\.\.\.' |
		while read -r f; do
			printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n' "$f" "$f" "$f" "$f"
		done >"$tmp/seed.diff"
	ref "$tmp/seed.diff" "$tmp/seed.ref"
	s=$(wc -l <"$tmp/seed.ref")
	echo "seed: $s sections besides THE REST"
	[ "$s" -ge 5 ] || fail "seed reference names $s sections"
	check "$SEED" $((s - 1))
	cat "$tmp/out"
	[ $rc -eq 1 ] || fail "seed: exit $rc, want 1"
	w=$(want "$tmp/seed.ref" $((s - 1)))
	grep -qF "fail mass-edit/sections: the series touches $w; " "$tmp/out" ||
		fail "seed: want '$w'"
	check "$SEED" "$s"
	grep -q "mass-edit/sections" "$tmp/out" && fail "seed: sections at max-sections = $s"
fi
echo "ok"
