#!/bin/sh
# patchrelay help lists every registered type, prints each one's option
# table, and every option key of every type is documented in
# patchrelay.conf(5) or docs/connectors/*.md / docs/plugins/*.md.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

"$PATCHRELAY" help >"$tmp/list" || fail "help: exit $?"
# type names: the indented lines under "connectors:" and "plugins:"
awk '/^connectors:/{k="connector";next} /^plugins:/{k="plugin";next}
	/^   [a-z]/{print k, $1}' "$tmp/list" >"$tmp/types"
grep -qx 'connector mbox' "$tmp/types" || fail "mbox not listed"
grep -qx 'plugin size-limit' "$tmp/types" || fail "size-limit not listed"

cat "$PR_SRC/docs/man/patchrelay.conf.5" >"$tmp/docs"
for f in "$PR_SRC"/docs/connectors/*.md "$PR_SRC"/docs/plugins/*.md; do
	[ -f "$f" ] && cat "$f" >>"$tmp/docs"
done
# man source writes '-' as '\-' at times: compare without backslashes
tr -d '\\' <"$tmp/docs" >"$tmp/docs.plain"

checked=0
while read -r kind type; do
	"$PATCHRELAY" help "$kind" "$type" >"$tmp/help" ||
		fail "help $kind $type: exit $?"
	grep -q "^$kind $type:" "$tmp/help" || fail "help $kind $type: header"
	grep -q "^   type " "$tmp/help" || fail "help $kind $type: no type key"
	grep -qw -- "$type" "$tmp/docs.plain" ||
		fail "type '$type' not documented"
	# keys: the first column of the table after its KEY header
	awk '/^   KEY /{t=1;next} t&&/^   [a-z]/{print $1}' "$tmp/help" \
		>"$tmp/keys"
	[ -s "$tmp/keys" ] || fail "help $kind $type: no keys"
	while read -r key; do
		grep -qE -- "(^|[^a-z-])$key([^a-z-]|\$)" "$tmp/docs.plain" ||
			fail "$kind $type: key '$key' not documented"
		checked=$((checked + 1))
	done <"$tmp/keys"
done <"$tmp/types"
[ $checked -gt 5 ] || fail "only $checked keys checked"

# the table's columns: key, type, default, help
"$PATCHRELAY" help connector git >"$tmp/help" || fail "help connector git"
grep -Eq '^   cover-letter +enum +auto +auto: .*\[auto, always, never\]$' \
	"$tmp/help" || fail "git cover-letter row: $(cat "$tmp/help")"
grep -Eq '^   url +string +- +.*\(required\)$' "$tmp/help" ||
	fail "git url row"
"$PATCHRELAY" help plugin size-limit >"$tmp/help" || fail "help size-limit"
grep -Eq '^   max-bytes +size +- ' "$tmp/help" || fail "max-bytes row"

"$PATCHRELAY" help connector nosuch >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown type: want exit 2"
echo "ok: $checked keys documented"
