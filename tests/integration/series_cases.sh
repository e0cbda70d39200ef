#!/bin/sh
# Patchwork's series cases (tests/data/pwseries: our own mboxes with the
# structure of patchwork/tests/data/series/*.mbox, and what
# patchwork/tests/unit/test_series.py expects of each) read three ways:
# the mbox source (the file in a folder, `patchrelay poll --json`), the
# maildir source (the mails split into new/, the same mtime, in mbox
# order) and the assembler alone (`patchrelay parse --json`, what `am`
# uses).  Each reading must group the mails into the series Patchwork makes
# (patchrelay's versions), and join them into patchrelay series as the
# expectations' groups say.  A table of the results is printed.
set -u
tmp=$(mktemp -d) || exit 1
[ -n "${KEEP:-}" ] && echo "$tmp"
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
py=/usr/bin/python3
data="$PR_SRC/tests/data/pwseries"
check="$PR_SRC/tests/integration/series_cases.py"
cd "$tmp" || exit 1

fail() { echo "series_cases.sh: $*" >&2; exit 1; }

cases=$(sed -n 's/^case \([^ ]*\) .*/\1/p' "$data/expected")
[ "$(echo "$cases" | wc -l)" -eq 27 ] || fail "not 27 cases: $cases"
bad=0
for c in $cases; do
	mbox="$data/$c.mbox"
	[ -f "$mbox" ] || fail "no $mbox"
	mkdir -p "mb/$c" "md/$c/new" "md/$c/cur" "md/$c/tmp"
	cp "$mbox" "mb/$c/$c.mbox"
	git mailsplit -o"md/$c/new" "$mbox" >/dev/null || fail "$c: mailsplit"
	touch -d '@1700000000' "md/$c/new/"*
	cat >"$c.conf" <<CONF
[source "mbox"]
	type = mbox
	path = $tmp/mb/$c
[source "maildir"]
	type = maildir
	path = $tmp/md/$c
CONF
	line="$c"
	for how in mbox maildir parse; do
		if [ $how = parse ]; then
			"$PATCHRELAY" parse --json "$mbox" >"$c.$how.json" \
				2>"$c.$how.err"
			kind=parse
		else
			"$PATCHRELAY" poll -c "$c.conf" $how --json \
				>"$c.$how.json" 2>"$c.$how.err"
			kind=poll
		fi
		rc=$?
		if [ $rc -ne 0 ]; then
			res="failed ($rc): $(head -c 300 "$c.$how.err")"
		elif $py "$check" "$data/expected" "$c" "$mbox" $kind \
			"$c.$how.json" >"$c.$how.diff" 2>&1; then
			res=ok
		else
			res="differs:
$(cat "$c.$how.diff")"
		fi
		[ "$res" = ok ] || bad=$((bad + 1))
		line="$line
	$how: $res"
	done
	echo "$line"
done
[ $bad -eq 0 ] || fail "$bad reading(s) differ from Patchwork's expectations"
echo "series_cases.sh: ok"
