#!/bin/sh
# The real-world-shaped mails of tests/data/mailinfo/real/ (Outlook QP
# with CRLF, Gmail alternatives, format=flowed, legacy charsets, attached
# patches, folded encoded words, scissors, PGP, list footers...) against
# git mailinfo, through parse_vs_mailinfo.sh: every one must agree, and
# git must parse every one (no skips).
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
out=$tmp/out
n=$(ls "$PR_SRC"/tests/data/mailinfo/real | wc -l)
[ "$n" -ge 30 ] || { echo "FAIL only $n mails in the corpus"; exit 1; }
rc=0
PR_EXTRA_MAIL=$(ls -d "$PR_SRC"/tests/data/mailinfo/real/*) \
	sh "$PR_SRC/tests/integration/parse_vs_mailinfo.sh" >"$out" 2>&1 || rc=$?
cat "$out"
if grep -q "^skip .*/mailinfo/real/" "$out"; then
	echo "FAIL git mailinfo refused a corpus mail"
	rc=1
fi
[ $rc = 0 ] && echo "ok $n real-world mails agree with git mailinfo"
exit $rc
