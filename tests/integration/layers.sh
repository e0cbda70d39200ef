#!/bin/sh
# The house's layering, checked on the source tree: core/ is in parts,
# lowest first as core/meson.build's core_parts lists them; a core file may
# include headers of its own part and of the parts below it, never of a
# higher part and never anything outside core/.  Connectors and plugins sit
# beside each other above core and never include cli/; web/ sits beside
# them and includes none of their headers either.  The check is run
# once on a copy with a planted upward include, to show it can fail.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

# parts ROOT: the names in core_parts, lowest first, one a line
parts() {
	sed -n "s/^core_parts *= *\[\(.*\)\].*/\1/p" "$1/core/meson.build" |
		tr -d "' " | tr ',' '\n'
}

# check ROOT: prints one line per include that points the wrong way
check() {
	root=$1
	parts "$root" >"$tmp/parts"
	[ -s "$tmp/parts" ] || { echo "$root/core/meson.build: no core_parts"; return; }
	for d in "$root"/core/*/; do
		p=$(basename "$d")
		grep -qx "$p" "$tmp/parts" ||
			echo "core/$p/: not a part listed in core_parts"
	done
	i=0
	while read -r part; do
		i=$((i + 1))
		for f in "$root/core/$part"/*.[ch]; do
			[ -e "$f" ] || continue
			grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
			while IFS= read -r line; do
				n=${line%%:*}
				inc=$(printf '%s\n' "$line" | sed 's/.*include[[:space:]]*"//; s/".*//')
				top=${inc%%/*}
				[ "$top" = "$inc" ] && {
					echo "core/$part/$(basename "$f"):$n: \"$inc\" is not part/name.h"
					continue
				}
				j=$(grep -nx "$top" "$tmp/parts" | cut -d: -f1)
				if [ -z "$j" ]; then
					echo "core/$part/$(basename "$f"):$n: \"$inc\" is outside core/"
				elif [ "$j" -gt "$i" ]; then
					echo "core/$part/$(basename "$f"):$n: \"$inc\": $part may not include the higher part $top"
				fi
			done
		done
	done <"$tmp/parts"
	for f in "$root"/connectors/*.[ch] "$root"/plugins/*.[ch] "$root"/web/*.[ch]; do
		[ -e "$f" ] || continue
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(\.\./\)*cli/' "$f" |
			sed "s|^|${f#"$root"/}:|; s|\$|: cli/ is above connectors, plugins and web|"
	done
	# web/ sits beside connectors/ and plugins/: none of their headers
	for f in "$root"/web/*.[ch]; do
		[ -e "$f" ] || continue
		for h in "$root"/connectors/*.h "$root"/plugins/*.h; do
			[ -e "$h" ] || continue
			grep -n "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"\\(\\.\\./\\)*\\(connectors/\\|plugins/\\)\\{0,1\\}$(basename "$h")\"" "$f" |
				sed "s|^|${f#"$root"/}:|; s|\$|: web/ may not include $(basename "$h")|"
		done
	done
}

check "$PR_SRC" >"$tmp/out"
[ -s "$tmp/out" ] && fail "layering: $(cat "$tmp/out")"
n=$(parts "$PR_SRC" | wc -l)
[ "$n" -ge 3 ] || fail "core_parts lists $n parts"

# the check can fail: a base file that includes the engine is caught,
# with the file, the line and both parts named
mkdir -p "$tmp/copy" || exit 1
cp -r "$PR_SRC/core" "$tmp/copy/" || fail "copy core"
mkdir "$tmp/copy/connectors" "$tmp/copy/plugins"
lowest=$(parts "$PR_SRC" | head -n 1)
highest=$(parts "$PR_SRC" | tail -n 1)
hdr=$(cd "$PR_SRC/core/$highest" && ls *.h | head -n 1)
printf '#include "%s/%s"\n' "$highest" "$hdr" >"$tmp/copy/core/$lowest/planted.c"
echo '#include "cli/commands.h"' >"$tmp/copy/plugins/planted.c"
mkdir "$tmp/copy/web"
cp "$PR_SRC"/connectors/connectors.h "$tmp/copy/connectors/"
echo '#include "connectors.h"' >"$tmp/copy/web/planted.c"
check "$tmp/copy" >"$tmp/out2"
grep -q "^core/$lowest/planted.c:1: \"$highest/$hdr\": $lowest may not include the higher part $highest\$" "$tmp/out2" ||
	fail "planted upward include not caught: $(cat "$tmp/out2")"
grep -q '^plugins/planted.c:1:.*cli/ is above' "$tmp/out2" ||
	fail "planted cli include not caught: $(cat "$tmp/out2")"
grep -q '^web/planted.c:1:.*web/ may not include connectors.h' "$tmp/out2" ||
	fail "planted connector include in web/ not caught: $(cat "$tmp/out2")"
[ "$(wc -l <"$tmp/out2")" -eq 3 ] || fail "extra findings: $(cat "$tmp/out2")"
echo "ok: core parts $(parts "$PR_SRC" | tr '\n' ' ')layered"
