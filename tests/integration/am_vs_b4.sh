#!/bin/sh
# patchrelay am compared with the reference, b4 am (Debian bookworm's b4
# 0.12), on the same mailboxes: series made by git format-patch and
# replies giving trailers.  The cases, one mailbox each:
# - v1: cover letter and 3 patches (non-ASCII and quoted authors, a patch
#   with its own trailer block); replies to the cover and to patches,
#   a non-ASCII reviewer, quoted trailers, someone else's trailer, a reply
#   to a reply, duplicates (also in another case), the same person from
#   another mailbox (+extension, subdomain, same name), Fixes:, Link: and
#   Cc: lines;
# - v2: a full re-roll threaded into v1 (--in-reply-to), one patch
#   unchanged (b4 carries its v1 trailers over), replies to v2;
# - v2s: the same v2 as a thread of its own;
# - partial: v2 of patch 2 alone, in reply to v1's 2/3;
# - lone: one patch, no cover, no n/N, no trailer block, encoded subject;
# - quirks: where b4 0.12 errs (see below).
#
# b4 runs fully offline: --offline-mode, --no-stdin, -m MBOX (the local
# mailbox, no lore lookup), -C (no cache), HOME a temporary directory with
# a minimal git config (no user configuration is read) and
# b4.attestation-policy=off (no DKIM lookups).  -t applies trailers sent
# to the cover letter to every patch: b4 0.12 does so only when asked,
# patchrelay always does (docs/commands/am.md).
#
# For every patch of both outputs, git mailinfo's Author, Email and
# Subject, its message (trailer block included) and its patch must be
# byte for byte the same; then git am of both onto the base must give the
# same trees and the same commit messages.
#
# Normalised, and only that (each difference documented in
# docs/commands/am.md):
# - the mbox framing and headers other than From, Date and Subject (b4
#   writes its own "From git@z" line, Message-Id, and "[PATCH v2 n/N]"):
#   only what git mailinfo reads is compared;
# - the Date: header's spelling: Python's email package rewrites
#   "Thu, 3 Dec" as "Thu, 03 Dec"; patchrelay keeps the sender's.  The
#   author date git am records from each (git log %ad) must be the same.
# - where b4 0.12 errs, or patchrelay differs on purpose, the trailers b4
#   adds that patchrelay does not are removed from b4's output by name
#   (compare's SUMMARY TRAILER pairs; the test fails if b4 stops adding
#   them), and everything else is compared as strictly: the partial
#   re-roll case and the "where b4 0.12 errs" case at the end.
set -u
. "$(dirname "$0")/lib.sh"
command -v b4 >/dev/null 2>&1 ||
	skip "b4 is not installed (.ci/packages)"
tmpdir
export HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C.UTF-8
export XDG_CONFIG_HOME="$tmp/home/.config" XDG_CACHE_HOME="$tmp/home/.cache"
export XDG_DATA_HOME="$tmp/home/.local/share"
mkdir -p "$HOME" || exit 1
cat >"$HOME/.gitconfig" <<'EOF'
[user]
	name = Main Tainer
	email = maint@example.org
[b4]
	attestation-policy = off
EOF
git_identity 'A U Thor <author@example.org>' '1796287200 +0000'

git init -q "$tmp/repo" || fail "git init"
cd "$tmp/repo" || exit 1
printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n' >f
git add f && git commit -qm base || fail "base commit"
git tag base


# series BRANCH TAG LINE-SUFFIX: three commits changing lines 1, 5 and 9
# (so each can be re-rolled alone); the second by a non-ASCII author, the
# third with a quoted name and a trailer block of its own
series() {
	git checkout -q -b "$1" base || fail "branch $1"
	sed -i "1s/.*/one$3/" f
	git commit -qam "f: change line one" -m "Line one must change$3." \
		-m "Signed-off-by: A U Thor <author@example.org>" || fail "commit 1"
	sed -i "5s/.*/five$3/" f
	GIT_AUTHOR_NAME='Zoë Ñandú' GIT_AUTHOR_EMAIL=zoe@example.org \
		git commit -qam "f: change line five" -m "Line five, résumé$3." \
		-m "Signed-off-by: Zoë Ñandú <zoe@example.org>" || fail "commit 2"
	sed -i "9s/.*/nine$3/" f
	GIT_AUTHOR_NAME='Doe, John' GIT_AUTHOR_EMAIL=jdoe@example.org \
		git commit -qam "f: change line nine" -m "Line nine$3." \
		-m "Reported-by: Rep Orter <rep@example.org>
Signed-off-by: Doe, John <jdoe@example.org>" || fail "commit 3"
	git tag "$2"
}

# reply N FROM TO-ID REFS SUBJECT BODY: a reply mail with In-Reply-To
# TO-ID and References REFS
reply() {
	printf 'From reply Mon Sep 17 00:00:00 2001\nFrom: %s\nSubject: Re: %s\nDate: Thu, 3 Dec 2026 12:%02d:00 +0000\nMessage-Id: <reply%s@example.org>\nIn-Reply-To: <%s>\nReferences: %s\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n\n%s\n\n' \
		"$2" "$5" "$1" "$1" "$3" "$4" "$6"
}

# run_b4 NAME MBOX [ARGS]: b4 am offline into $tmp/NAME.b4
run_b4() {
	n=$1 m=$2
	shift 2
	rm -rf "$tmp/b4out"
	mkdir "$tmp/b4out" || exit 1
	b4 --offline-mode --no-stdin -q am -m "$m" -C -t --no-cover \
		-o "$tmp/b4out" -n "$n" "$@" </dev/null >"$tmp/$n.b4.log" 2>&1 ||
		fail "$n: b4 am failed: $(cat "$tmp/$n.b4.log")"
	mv "$tmp/b4out/$n.mbx" "$tmp/$n.b4" || fail "$n: b4 wrote no mbox"
}

# split MBOX DIR: each message through git mailinfo, DIR/NNNN.{info,msg,patch}
split() {
	rm -rf "$2"
	mkdir -p "$2/m" || exit 1
	git mailsplit -o"$2/m" "$1" >/dev/null || fail "mailsplit $1"
	for f in "$2"/m/*; do
		b=$(basename "$f")
		git mailinfo --encoding=UTF-8 "$2/$b.msg" "$2/$b.patch" <"$f" |
			grep -E '^(Author|Email|Subject):' >"$2/$b.info" ||
			fail "mailinfo $f"
	done
	rm -rf "$2/m"
}

# apply MBOX BRANCH: git am onto base as BRANCH
apply() {
	git checkout -q --detach base || fail "checkout base"
	git am -q "$1" || fail "git am $1"
	git branch -f "$2" HEAD || exit 1
}

# compare NAME MBOX [SUMMARY TRAILER]...: both tools on MBOX, compared;
# for each SUMMARY TRAILER pair, the line TRAILER is first removed from
# b4's patch of that summary (a documented difference), and must be there
compare() {
	run_b4 "$1" "$2"
	shift 2
	while [ $# -ge 2 ]; do
		awk -v s="$1" -v t="$2" '/^From git@z /{ins = 0}
			/^Subject: / && index($0, "] " s) {ins = 1}
			!(ins && $0 == t) {print}' "$tmp/$n.b4" >"$tmp/$n.b4.n" &&
			! cmp -s "$tmp/$n.b4" "$tmp/$n.b4.n" ||
			fail "$n: b4 no longer gives '$2' to '$1'"
		mv "$tmp/$n.b4.n" "$tmp/$n.b4"
		shift 2
	done
	"$PATCHRELAY" am "$m" >"$tmp/$n.pr" 2>"$tmp/$n.pr.err" ||
		fail "$n: patchrelay am exit $?: $(cat "$tmp/$n.pr.err")"
	split "$tmp/$n.b4" "$tmp/$n.b4.d"
	split "$tmp/$n.pr" "$tmp/$n.pr.d"
	diff -ru "$tmp/$n.b4.d" "$tmp/$n.pr.d" >"$tmp/$n.diff" || {
		cat "$tmp/$n.diff" >&2
		fail "$n: b4 (-) and patchrelay (+) differ"
	}
	apply "$tmp/$n.b4" "$n-b4"
	apply "$tmp/$n.pr" "$n-pr"
	[ "$(git rev-parse "$n-b4^{tree}")" = "$(git rev-parse "$n-pr^{tree}")" ] ||
		fail "$n: trees after git am differ"
	git log --format='%an <%ae> %ad%n%B' base.."$n-b4" >"$tmp/$n.log.b4"
	git log --format='%an <%ae> %ad%n%B' base.."$n-pr" >"$tmp/$n.log.pr"
	diff -u "$tmp/$n.log.b4" "$tmp/$n.log.pr" ||
		fail "$n: commit messages after git am differ"
	echo "$n: b4 and patchrelay agree ($(ls "$tmp/$n.pr.d" | grep -c info) patches)"
}

# --- v1: cover letter and three patches -----------------------------------
series v1 t-v1 ' v1'
git format-patch -q --cover-letter --thread -o "$tmp/v1" base..v1 ||
	fail "format-patch v1"
for f in "$tmp/v1"/*.patch; do
	sed -i 's/\.git\.author@example\.org>/.v1@example.org>/; s/\.git\.zoe@example\.org>/.v1z@example.org>/; s/\.git\.jdoe@example\.org>/.v1j@example.org>/' "$f"
done
c1=$(message_id "$tmp/v1/0000-cover-letter.patch")
p11=$(message_id "$tmp/v1/0001-f-change-line-one.patch")
p12=$(message_id "$tmp/v1/0002-f-change-line-five.patch")
p13=$(message_id "$tmp/v1/0003-f-change-line-nine.patch")
[ -n "$c1" ] && [ -n "$p11" ] && [ -n "$p12" ] && [ -n "$p13" ] ||
	fail "no Message-Ids in format-patch output"

{
	cat "$tmp/v1"/*.patch
	# to the cover letter: every patch (b4 -t)
	reply 1 'Rev One <rev@example.org>' "$c1" "<$c1>" '[PATCH 0/3] series' \
		'For the series:

Reviewed-by: Rev One <rev@example.org>'
	# to patch 2, a non-ASCII reviewer
	reply 2 'Jürgen Groß <jg@example.org>' "$p12" "<$c1> <$p12>" \
		'[PATCH 2/3] f: change line five' 'Looks fine.

Acked-by: Jürgen Groß <jg@example.org>'
	# the cover's trailer again to patch 1: not added twice
	reply 3 'Rev One <rev@example.org>' "$p11" "<$c1> <$p11>" \
		'[PATCH 1/3] f: change line one' 'Reviewed-by: Rev One <rev@example.org>'
	# quoted only: does not count
	reply 4 'Quo Ted <quoted@example.org>' "$p13" "<$c1> <$p13>" \
		'[PATCH 3/3] f: change line nine' '> Tested-by: Quo Ted <quoted@example.org>
I agree with the above.'
	# someone else's trailer, name and address both differ: dropped
	reply 5 'Lis Ter <lister@example.org>' "$p11" "<$c1> <$p11>" \
		'[PATCH 1/3] f: change line one' 'Acked-by: Other Person <other@example.org>'
	# a reply to a reply: counts for the patch the thread started from
	reply 6 'Tes Ter <tester@example.org>' reply2@example.org \
		"<$c1> <$p12> <reply2@example.org>" \
		'[PATCH 2/3] f: change line five' '> Looks fine.

Tested-by: Tes Ter <tester@example.org>'
	# the cover's trailer again in other case: the same trailer
	reply 12 'Rev One <rev@example.org>' "$p12" "<$c1> <$p12>" \
		'[PATCH 2/3] f: change line five' 'reviewed-by: rev one <REV@example.org>'
	# a trailer the patch already has (its own Reported-by): not added
	reply 7 'Rep Orter <rep@example.org>' "$p13" "<$c1> <$p13>" \
		'[PATCH 3/3] f: change line nine' 'Reported-by: Rep Orter <rep@example.org>
Tested-by: Rep Orter <rep@example.org>'
	# the same person from another mailbox: b4 matches the address with
	# its +extension removed, a domain one label deeper, or the name;
	# patchrelay not the name (a deliberate difference, removed from b4's
	# output below)
	reply 8 'Rev One <rev+lkml@example.org>' "$p13" "<$c1> <$p13>" \
		'[PATCH 3/3] f: change line nine' 'Acked-by: Rev One <rev@example.org>'
	reply 9 'Sub Dom <sd@mail.example.org>' "$p11" "<$c1> <$p11>" \
		'[PATCH 1/3] f: change line one' 'Tested-by: Sub Dom <sd@example.org>'
	reply 10 'Same Name <other@elsewhere.example>' "$p12" "<$c1> <$p12>" \
		'[PATCH 2/3] f: change line five' 'Reviewed-by: Same Name <same@example.org>'
	# utility trailers: a Fixes: is taken, a URL and a Cc: are not, even
	# when they name the sender or no address at all
	reply 11 'Rev One <rev@example.org>' "$p13" "<$c1> <$p13>" \
		'[PATCH 3/3] f: change line nine' 'Fixes: 0123456789ab ("f: add line nine")
Link: https://lore.kernel.org/r/bug@example.org
Link: https://bugzilla.kernel.org/show_bug.cgi?id=1
Closes: https://bugzilla.kernel.org/show_bug.cgi?id=1
Cc: stable@vger.kernel.org
Cc: Rev One <rev@example.org>'
} >"$tmp/v1.mbox"
compare v1 "$tmp/v1.mbox" \
	'f: change line five' 'Reviewed-by: Same Name <same@example.org>'

# --- v2, a full re-roll threaded into v1 ----------------------------------
# Patch 3 is the same change as in v1 (same patch-id): b4 carries v1's
# trailers for it over to v2.
git checkout -q v1 -- f 2>/dev/null
series v2 t-v2 ' v2'
git checkout -q v2 || exit 1
sed -i '9s/.*/nine v1/' f
git commit -q --amend -a --no-edit || fail "v2 patch 3"
git tag -f t-v2 >/dev/null
git format-patch -q -v2 --cover-letter --thread --in-reply-to="$c1" \
	-o "$tmp/v2" base..v2 || fail "format-patch v2"
c2=$(message_id "$tmp/v2/v2-0000-cover-letter.patch")
p21=$(message_id "$tmp/v2/v2-0001-f-change-line-one.patch")
{
	cat "$tmp/v1.mbox" "$tmp/v2"/*.patch
	reply 21 'Rev Two <rev2@example.org>' "$c2" "<$c1> <$c2>" \
		'[PATCH v2 0/3] series' 'Reviewed-by: Rev Two <rev2@example.org>'
	reply 22 'Ack Two <ack2@example.org>' "$p21" "<$c1> <$c2> <$p21>" \
		'[PATCH v2 1/3] f: change line one' 'Acked-by: Ack Two <ack2@example.org>'
} >"$tmp/v2.mbox"
compare v2 "$tmp/v2.mbox"

# --- the same v2 sent as a thread of its own (no --in-reply-to) -----------
git format-patch -q -v2 --cover-letter --thread -o "$tmp/v2s" base..v2 ||
	fail "format-patch v2, unthreaded"
grep -q "^In-Reply-To: <$c1>" "$tmp"/v2s/*.patch && fail "v2s is threaded"
c2s=$(message_id "$tmp/v2s/v2-0000-cover-letter.patch")
{
	cat "$tmp/v1.mbox" "$tmp/v2s"/*.patch
	reply 25 'Rev Two <rev2@example.org>' "$c2s" "<$c2s>" \
		'[PATCH v2 0/3] series' 'Reviewed-by: Rev Two <rev2@example.org>'
} >"$tmp/v2s.mbox"
compare v2s "$tmp/v2s.mbox"

# --- a partial re-roll: v2 of patch 2 alone, in reply to v1's 2/3 ---------
git checkout -q -b pr1 t-v1~1 || exit 1
sed -i '5s/.*/five v1, fixed/' f
git commit -q --amend -a --no-edit || fail "partial patch 2"
git format-patch -q -1 -v2 --start-number 2 --thread --in-reply-to="$p12" \
	-o "$tmp/pr" HEAD || fail "format-patch partial"
sed -i 's/^Subject: \[PATCH v2[^]]*\]/Subject: [PATCH v2 2\/3]/' "$tmp"/pr/*.patch
grep -q '^Subject: \[PATCH v2 2/3\]' "$tmp"/pr/*.patch || fail "partial subject"
pp2=$(message_id "$tmp"/pr/*.patch)
{
	cat "$tmp/v1.mbox" "$tmp"/pr/*.patch
	reply 31 'Tes Ter <tester@example.org>' "$pp2" "<$c1> <$p12> <$pp2>" \
		'[PATCH v2 2/3] f: change line five' 'Tested-by: Tes Ter <tester@example.org>'
} >"$tmp/partial.mbox"
# b4 takes v1's cover letter as the re-roll's and gives its trailers to
# every patch, the re-rolled one too; patchrelay gives them only to the
# patches reused from v1: a review of v1's series did not see v2's 2/3
compare partial "$tmp/partial.mbox" 'f: change line five' \
	'Reviewed-by: Rev One <rev@example.org>'

# --- a lone patch: no cover, no n/N, no trailer block, non-ASCII subject --
git checkout -q -b lone base || exit 1
sed -i '3s/.*/three, café/' f
git commit -qam "f: café on line three" -m "No sign-off here, and a note:
it spans two lines." || fail "lone commit"
git format-patch -q -1 --thread -o "$tmp/lone" HEAD || fail "format-patch lone"
grep -q '^Subject: .*=?UTF-8?' "$tmp"/lone/*.patch || fail "lone: subject not encoded"
pl=$(message_id "$tmp"/lone/*.patch)
[ -n "$pl" ] || fail "lone: no Message-Id"
{
	cat "$tmp"/lone/*.patch
	# encoded: b4 0.12 fails on a raw UTF-8 Subject: (Python's mailbox
	# gives it a Header object where it wants a str); patchrelay reads both
	reply 51 'Tes Ter <tester@example.org>' "$pl" "<$pl>" \
		'=?UTF-8?q?=5BPATCH=5D_f=3A_caf=C3=A9_on_line_three?=' 'Tested-by: Tes Ter <tester@example.org> # on arm64
Acked-by: Tes Ter <tester@example.org>'
} >"$tmp/lone.mbox"
compare lone "$tmp/lone.mbox"

# --- where b4 0.12 errs ---------------------------------------------------
# Given to both; b4's extra trailers are removed (compare's pairs) and the
# rest must agree.  patchrelay is right here, b4 is not:
# - a sender whose name holds a comma passes b4's name check whatever the
#   trailer says (it looks for the name's parts in the name itself);
# - a reply to a reply gives b4 the parent reply's trailers unchecked, so
#   "Acked-by: Other Person" that reply 5 could not give gets through when
#   someone answers reply 5 with a trailer of their own.
# A trailer indented in the reply ("  Reviewed-by:") counts for b4, not for
# patchrelay (an indented line is pasted or quoted text), nor does a
# Fixes: that names no commit; those are deliberate differences, removed
# the same way.
{
	cat "$tmp/v1.mbox"
	reply 41 '"Doe, Jane" <jane@example.org>' "$p11" "<$c1> <$p11>" \
		'[PATCH 1/3] f: change line one' 'Acked-by: Some One Else <else@example.org>'
	reply 42 'Tes Ter <tester@example.org>' reply5@example.org \
		"<$c1> <$p11> <reply5@example.org>" \
		'[PATCH 1/3] f: change line one' 'Tested-by: Tes Ter <tester@example.org>'
	reply 43 'Ind Ent <ind@example.org>' "$p13" "<$c1> <$p13>" \
		'[PATCH 3/3] f: change line nine' 'Looks fine:
  Reviewed-by: Ind Ent <ind@example.org>'
	reply 44 'Rev One <rev@example.org>' "$p12" "<$c1> <$p12>" \
		'[PATCH 2/3] f: change line five' 'Fixes: the race on line five'
} >"$tmp/quirks.mbox"
compare quirks "$tmp/quirks.mbox" \
	'f: change line five' 'Reviewed-by: Same Name <same@example.org>' \
	'f: change line one' 'Acked-by: Some One Else <else@example.org>' \
	'f: change line one' 'Acked-by: Other Person <other@example.org>' \
	'f: change line nine' 'Reviewed-by: Ind Ent <ind@example.org>' \
	'f: change line five' 'Fixes: the race on line five'
# and patchrelay did take what it should from these replies
grep -qx 'Tested-by: Tes Ter <tester@example.org>' "$tmp/quirks.pr.d/0001.msg" ||
	fail "quirks: reply 42's own trailer is missing"

echo "ok"
