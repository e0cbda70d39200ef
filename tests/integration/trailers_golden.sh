#!/bin/sh
# The golden trailer files must still be what git makes of each message:
# re-run git interpret-trailers --parse on tests/data/trailers/*.msg and
# compare with the committed *.expected (regenerate with regen.sh).
set -u
. "$(dirname "$0")/lib.sh"
dir="$PR_SRC/tests/data/trailers"
tmpdir
export HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
n=0
fail=0
for m in "$dir"/*.msg; do
	name=$(basename "$m" .msg)
	git interpret-trailers --parse <"$m" >"$tmp/$name.out" || fail=1
	if ! cmp -s "$tmp/$name.out" "$dir/$name.expected"; then
		echo "trailers_golden: $name.expected differs from git" >&2
		diff "$dir/$name.expected" "$tmp/$name.out" >&2
		fail=1
	fi
	n=$((n + 1))
done
if [ "$n" -lt 30 ]; then
	echo "trailers_golden: only $n messages" >&2
	exit 1
fi
exit $fail
