#!/bin/sh
# Valgrind (memcheck) over the mail paths of issue 2: `patchrelay parse
# --json`, `patchrelay am` and `patchrelay format` on the repository's mail
# test data (tests/data/mail, tests/data/mailinfo/real, the fuzz corpora)
# and on a series git format-patch writes, and the fuzz replayers of the
# mail, mbox, diff, trailer, am and address parsers over their corpora.
# Any memcheck error or definite leak fails; the outputs are checked too,
# so that a run that did nothing cannot pass.  Skipped (77) in a sanitized
# build: valgrind and ASan do not mix.  PR_SANITIZE is meson's b_sanitize
# (tests' meson.build).
set -u
. "$(dirname "$0")/lib.sh"
case "${PR_SANITIZE:-none}" in
none | '') ;;
*) skip "sanitized build (b_sanitize=$PR_SANITIZE)" ;;
esac
command -v valgrind >/dev/null ||
	skip "valgrind is not installed (.ci/packages lists it)"
tmpdir
fail=0
# to fd 3, the test's stderr: the commands' output goes to files
exec 3>&2
bad() {
	echo "FAIL $*" >&3
	fail=1
}

# vg NAME CMD...: run CMD under memcheck, its log in $tmp/NAME.vg; the front
# exec()s patchrelay-full, which --trace-children follows.  Prints the
# command's exit status; 99 means memcheck found something.
n=0
vg() {
	name=$1
	shift
	n=$((n + 1))
	valgrind -q --trace-children=yes --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite \
		--suppressions="$PR_SRC/tests/valgrind.supp" \
		--log-file="$tmp/$name.vg" "$@"
	rc=$?
	if [ $rc = 99 ] || [ -s "$tmp/$name.vg" ]; then
		bad "$name: valgrind reports errors:"
		cat "$tmp/$name.vg" >&3
	fi
	return $rc
}

D=$PR_SRC/tests/data
mails=$(ls -d "$D"/mail/* "$D"/mailinfo/real/* | grep -v mboxrd)
want=$(for f in $mails; do
	if awk 'NF { print; exit }' "$f" | grep -q '^From '; then
		grep -c '^From ' "$f"
	else
		echo 1
	fi
done | awk '{ s += $1 } END { print s }')

# parse: every mail of the corpus, in one process
# shellcheck disable=SC2086 # the names have no blanks
vg parse "$PATCHRELAY" parse --json $mails >"$tmp/parse.json" ||
	bad "parse exits $rc"
/usr/bin/python3 - "$tmp/parse.json" "$want" <<'PY' || bad "parse output"
import json, sys
msgs = json.load(open(sys.argv[1]))['messages']
if len(msgs) != int(sys.argv[2]):
    sys.exit('%d messages, want %s' % (len(msgs), sys.argv[2]))
if not all(m['from']['email'] for m in msgs if m['kind'] == 'patch'):
    sys.exit('a patch without an author')
PY
vg parse-mboxrd "$PATCHRELAY" parse --json --mboxrd "$D/mail/mboxrd.mbox" \
	>"$tmp/mboxrd.json" || bad "parse --mboxrd exits $rc"
grep -q '"body": "From the start\\n>From twice' "$tmp/mboxrd.json" ||
	bad "parse --mboxrd: >From lines not unescaped"
# bad input: the fuzz corpora (crashes found once) are errors, not crashes
for f in "$PR_SRC"/tests/fuzz/corpus/mail/* "$PR_SRC"/tests/fuzz/corpus/mbox/*; do
	vg "corpus-${f##*/}" "$PATCHRELAY" parse --json "$f" >/dev/null 2>&1
	[ $rc -le 2 ] || bad "parse $f exits $rc"
done

# a series as git format-patch writes it: rename, mode change, deletion,
# binary, missing final newline, non-ASCII author and subject
git_identity 'A U Thor <author@example.org>' '2026-12-03 12:00:00 +0100' \
	'C O Mitter <c@example.org>'
git_alone
R=$tmp/repo
git init -q -b main "$R" && cd "$R" || exit 1
seq 1 30 >a.txt
printf 'rename me\nplease\n' >old.txt
printf 'gone\n' >gone.txt
printf 'run\n' >run.sh
git add -A && git commit -qm base && git tag base || exit 1
sed -i 's/^12$/twelve/' a.txt
git commit -qam "a.txt: spell twelve" -m "Signed-off-by: A U Thor <author@example.org>"
git mv old.txt new.txt && chmod +x run.sh && git rm -q gone.txt
printf '\000\001binary\377' >blob.bin
printf 'no newline' >nonl.txt
git add -A && git commit -qm "tree: rename, chmod, delete, add a binary"
echo ü >>a.txt
GIT_AUTHOR_NAME="Jöhn Dœ" git commit -qam "Ärger: an ümlaut in a.txt"
cd "$tmp" || exit 1
for o in "" "--cover-letter -v 2 --base base --signature sig"; do
	rm -rf fp pr
	# shellcheck disable=SC2086
	git -C "$R" format-patch -q $o -o "$tmp/fp" base..main
	# shellcheck disable=SC2086
	vg "format${o:+-cover}" "$PATCHRELAY" format -C "$R" $o -o "$tmp/pr" \
		base..main >/dev/null || bad "format $o exits $rc"
	diff -r fp pr >/dev/null || bad "format $o: not git format-patch's bytes"
done

# am: the series threaded as send-email sends it, two replies giving
# trailers, and then the whole corpus
git -C "$R" format-patch -q --thread --cover-letter -o "$tmp/series" base..main
cover=$(message_id "$tmp"/series/0000-*.patch)
p1=$(message_id "$tmp"/series/0001-*.patch)
[ -n "$cover" ] && [ -n "$p1" ] || bad "no Message-IDs in git's output"
printf 'From: R One <r1@example.org>\nSubject: Re: [PATCH 0/3] x\nMessage-ID: <r1@example.org>\nIn-Reply-To: <%s>\n\nLooks good.\n\nReviewed-by: R One <r1@example.org>\n' \
	"$cover" >"$tmp/series/r1.eml"
printf 'From: T Two <t2@example.org>\nSubject: Re: [PATCH 1/3] a.txt\nMessage-ID: <t2@example.org>\nIn-Reply-To: <%s>\n\n> quoted\nTested-by: T Two <t2@example.org>\n' \
	"$p1" >"$tmp/series/t2.eml"
vg am "$PATCHRELAY" am "$tmp"/series/* >"$tmp/am.mbox" || bad "am exits $rc"
# shellcheck disable=SC2086
vg am-corpus "$PATCHRELAY" am $mails >/dev/null 2>&1
[ $rc -le 1 ] || bad "am over the corpus exits $rc"
git -C "$R" checkout -q -b applied base &&
	git -C "$R" am -q "$tmp/am.mbox" || bad "git am refuses patchrelay am's mbox"
[ "$(git -C "$R" log --format=%b -1 applied~2 | grep -c -e '^Reviewed-by: R One' -e '^Tested-by: T Two')" = 2 ] ||
	bad "am: patch 1 lacks the reply trailers"

# the parsers' fuzz replayers over their corpora and the mail corpus
for t in mail mbox diff trailer am address; do
	r=$PR_BUILD/tests/fuzz/replay_$t
	[ -x "$r" ] || {
		bad "no $r"
		continue
	}
	extra=
	[ $t = mail ] && extra=$mails
	# shellcheck disable=SC2086
	vg "replay-$t" "$r" "$PR_SRC/tests/fuzz/corpus/$t" $extra >/dev/null ||
		bad "replay_$t exits $rc"
done

[ $fail = 0 ] && echo "ok $n runs under valgrind, no errors, no definite leaks"
exit $fail
