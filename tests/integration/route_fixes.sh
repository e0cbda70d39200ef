#!/bin/sh
# patchrelay route against scripts/get_maintainer.pl on patches whose Fixes:
# tags name commits of a git repository, byte for byte: the script's
# default --fixes adds the fixed commit's signers ("blamed_fixes") even
# under --no-git.  The repository is made here: the kernel tree's
# MAINTAINERS, .mailmap and .get_maintainer.ignore, and commits by several
# authors with Signed-off-by / Reviewed-by / Acked-by chains that exercise
# the script's rules (mailmap, deduplication by name and address, the chief
# penguin, the ignore list, at most five signers, body lines only, a tag,
# an abbreviated id shared by a blob).  The one change made to
# get_maintainer.pl: ties are sorted (section order as in
# route_vs_get_maintainer.sh, and signers with equal counts as strings)
# instead of Perl's random hash order.
set -eu
. "$(dirname "$0")/lib.sh"
# the kernel tree, extracted once for all route tests: sets C and L
kernel_tree
tmpdir
T=$tmp

GM="$T/get_maintainer.pl"
/usr/bin/perl -pe '
	if (!$d1 && s/sort \{\$hash\{\$b\} <=> \$hash\{\$a\}\}/sort {\$hash{\$b} <=> \$hash{\$a} || \$a <=> \$b}/) { $d1 = 1 }
	elsif ($d1 && !$d2 && s/sort \{\$hash\{\$b\} <=> \$hash\{\$a\}\}/sort {\$hash{\$b} <=> \$hash{\$a} || \$a cmp \$b}/) { $d2 = 1 }' \
	"$L/scripts/get_maintainer.pl" >"$GM"
[ "$(diff "$L/scripts/get_maintainer.pl" "$GM" | grep -c '^[<>]')" = 4 ] ||
	fail "could not patch get_maintainer.pl's tie orders"

# a kernel tree as the script checks one (top_of_kernel_tree), in git
R="$T/tree"
mkdir -p "$R" "$T/p"
for f in COPYING CREDITS Kbuild Makefile README; do : >"$R/$f"; done
for d in Documentation arch include drivers fs init ipc kernel lib scripts; do
	mkdir -p "$R/$d"
	: >"$R/$d/.keep"
done
cp "$L/MAINTAINERS" "$L/.mailmap" "$L/.get_maintainer.ignore" "$R/"
git_alone
export XDG_CACHE_HOME="$T/cache"
git_identity 'Tree Keeper <keeper@example.org>'
git_base "$R"

echo 0 >"$T/n"
# commit AUTHOR MESSAGE-FILE: a commit touching one file, verbatim message
# (run in $(...): the count lives in a file)
commit() {
	n=$(($(cat "$T/n") + 1))
	echo "$n" >"$T/n"
	echo "$n" >"$R/drivers/file$n.c"
	git -C "$R" add "drivers/file$n.c"
	git -C "$R" commit -q --cleanup=verbatim --author="$1" -F "$2"
	git -C "$R" rev-parse HEAD
}
msg() { printf "$@" >"$T/msg"; }

msg 'e1000: first change\n\nA body line.\n\nSigned-off-by: Alice Dev <alice@example.org>\nReviewed-by: Bob Review <bob@example.com>\nAcked-by: Carol Ack <carol@example.net>\n'
c_plain=$(commit "Alice Dev <alice@example.org>" "$T/msg")
# a maintainer of the patched file signs: its entry takes the role
msg 'e1000: maintainer signs\n\nSigned-off-by: Sam Sub <sam@example.org>\nSigned-off-by: Jesse Brandeburg <jesse.brandeburg@intel.com>\nSigned-off-by: Tony Nguyen <anthony.l.nguyen@intel.com>\n'
c_maint=$(commit "Sam Sub <sam@example.org>" "$T/msg")
# .mailmap rewrites an old address; the chief penguin and the ignore list
# are left out
msg 'bpf: mapped\n\nSigned-off-by: Alexei Starovoitov <ast@plumgrid.com>\nSigned-off-by: Linus Torvalds <torvalds@linux-foundation.org>\nAcked-by: Christoph Hellwig <hch@lst.de>\nReviewed-by: Al Viro <viro@zenIV.linux.org.uk>\n'
c_map=$(commit "Alexei Starovoitov <ast@plumgrid.com>" "$T/msg")
# seven signers, one twice: at most five, the double one first
msg 'many: signers\n\nSigned-off-by: S One <one@example.org>\nSigned-off-by: S Two <two@example.org>\nReviewed-by: S Three <three@example.org>\nAcked-by: S Four <four@example.org>\nSigned-off-by: S Five <five@example.org>\nSigned-off-by: S Six <six@example.org>\nSigned-off-by: S Seven <seven@example.org>\nReviewed-by: S Six <six@example.org>\n'
c_many=$(commit "S One <one@example.org>" "$T/msg")
# the author's name known with another address: the signer takes it
msg 'dedup: by name\n\nSigned-off-by: Dana Dup <dana@work.example>\nSigned-off-by: <lonely@example.org>\nCc: Not A Signer <cc@example.org>\nsigned-off-by: Lower Case <lower@example.org>\nSigned-off-by: No Address\n'
c_dedup=$(commit "Dana Dup <dana@home.example>" "$T/msg")
# subject paragraph is not %%b; leading blanks and CRs; blank lines
msg '\n\nSigned-off-by: In Subject <subject@example.org>\nsecond subject line\n\n  \n\n    Signed-off-by: Indented <indented@example.org>\n\tAcked-by: Tabbed \xc3\x9cml\xc3\xa4ut <umlaut@example.org>\r\nReviewed-by: Colon: Name <colon@example.org>\n'
c_body=$(commit "Body Writer <body@example.org>" "$T/msg")
# no signature at all: nothing, and the author is not even remembered
msg 'nosig: nothing\n\nJust text by someone <text@example.org>.\n'
c_nosig=$(commit "Unsigned Author <unsigned@example.org>" "$T/msg")
git -C "$R" tag -a -m "a tag" v-plain "$c_plain"
tag=$(git -C "$R" rev-parse v-plain)
blob=$(git -C "$R" rev-parse HEAD:MAINTAINERS)

# an abbreviated id shared by a new blob and a new commit: git log takes
# the commit
$PY - "$R" "$T/amb" <<'EOF'
import hashlib, subprocess, sys
repo, out = sys.argv[1], sys.argv[2]
def git(*a, data=None):
    return subprocess.run(['git', '-C', repo] + list(a), input=data,
                          capture_output=True, check=True).stdout.decode().strip()
tree = git('rev-parse', 'HEAD^{tree}')
head = git('rev-parse', 'HEAD')
def oid(kind, data):
    return hashlib.sha1(b'%s %d\0' % (kind, len(data)) + data).hexdigest()
blobs = {}
for i in range(40000):
    d = b'blob %d\n' % i
    blobs.setdefault(oid(b'blob', d)[:6], d)
for j in range(10000000):
    body = ('tree %s\nparent %s\nauthor Amb Author <amb@example.org> 1 +0000\n'
            'committer Amb Author <amb@example.org> 1 +0000\n\namb %d\n\n'
            'Signed-off-by: Amb Signer <amb.signer@example.org>\n'
            % (tree, head, j)).encode()
    h = oid(b'commit', body)
    if h[:6] in blobs:
        git('hash-object', '-w', '-t', 'commit', '--stdin', data=body)
        git('hash-object', '-w', '--stdin', data=blobs[h[:6]])
        open(out, 'w').write(h[:6] + '\n')
        break
EOF
amb=$(cat "$T/amb")
[ "$(git -C "$R" rev-parse --disambiguate="$amb" | wc -l)" -ge 2 ] ||
	fail "no ambiguous prefix made"

short() { echo "$1" | cut -c1-12; }
upper() { echo "$1" | cut -c1-10 | tr a-f A-F; }
# patch NAME FILE FIXES...: a format-patch mail with those Fixes: lines
patch() {
	name=$1 file=$2
	shift 2
	{
		echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
		echo "From: Sub Mitter <submitter@example.org>"
		echo "Subject: [PATCH] fix: $name"
		echo
		echo "Fix what the commits below broke."
		echo
		for f in "$@"; do echo "Fixes: $f (\"the change\")"; done
		echo "Signed-off-by: Sub Mitter <submitter@example.org>"
		echo "---"
		echo "diff --git a/$file b/$file"
		echo "--- a/$file"
		echo "+++ b/$file"
		echo "@@ -1,3 +1,3 @@"
		echo " a"
		echo "-b"
		echo "+c"
		echo " d"
	} >"$T/p/$name.patch"
}
E1000=drivers/net/ethernet/intel/e1000/e1000_main.c
patch plain "$E1000" "$(short "$c_plain")"
patch maint "$E1000" "$(short "$c_maint")"
patch map kernel/bpf/core.c "$(short "$c_map")"
patch many fs/ext4/inode.c "$c_many"
patch dedup mm/memory.c "$(short "$c_dedup")"
patch body "$E1000" "$(short "$c_body")"
patch nosig "$E1000" "$(short "$c_nosig")"
patch tag "$E1000" "$(short "$tag")"
patch upper "$E1000" "$(upper "$c_plain")"
patch six "$E1000" "$(echo "$c_map" | cut -c1-6)"
patch amb "$E1000" "$amb"
patch blob "$E1000" "$(short "$blob")"
patch unknown "$E1000" "0123456789ab"
patch several "$E1000" "$(short "$c_plain")" "$(short "$c_maint")" \
	"$(short "$c_plain")" "$(short "$c_many")"
patch nofix lib/string.c

# one comparison: FLAGS PATCH... in tree DIR
compare() {
	dir=$1 flags=$2
	shift 2
	(cd "$dir" && /usr/bin/perl "$GM" --no-git --no-git-fallback $flags "$@") \
		>"$T/want" 2>"$T/want.err" || fail "get_maintainer.pl $flags $*: $(cat "$T/want.err")"
	(cd "$dir" && "$PATCHRELAY" route $flags "$@") >"$T/got" 2>"$T/got.err" ||
		fail "route $flags $*: $(cat "$T/got.err")"
	if ! cmp -s "$T/want" "$T/got"; then
		diff "$T/want" "$T/got" | head -n 20
		fail "route $flags $* differs from get_maintainer.pl"
	fi
	runs=$((runs + 1))
}

runs=0
for p in "$T"/p/*.patch; do
	for f in "" --no-rolestats; do
		compare "$R" "$f" "$p"
	done
done
for p in plain maint many; do
	for f in --no-fixes "--no-m --no-r" "--no-l --no-rolestats"; do
		compare "$R" "$f" "$T/p/$p.patch"
	done
done
compare "$R" "" "$T/p/plain.patch" "$T/p/maint.patch" "$T/p/many.patch"
compare "$R" "--separator=, --no-rolestats" "$T/p/several.patch"
# --kernel-tree from elsewhere reads the same repository
(cd "$R" && "$PATCHRELAY" route "$T/p/maint.patch") >"$T/a"
"$PATCHRELAY" route --kernel-tree "$R" "$T/p/maint.patch" >"$T/b"
cmp "$T/a" "$T/b" || fail "--kernel-tree gives another answer"

# the answers name what they should (guards against both sides losing it)
(cd "$R" && "$PATCHRELAY" route "$T/p/maint.patch") >"$T/out"
grep -qx 'Jesse Brandeburg <jesse.brandeburg@intel.com> (supporter:INTEL ETHERNET DRIVERS,blamed_fixes:1/1=100%)' "$T/out" ||
	fail "maint: no blamed_fixes role on the maintainer"
grep -qx 'Sam Sub <sam@example.org> (blamed_fixes:1/1=100%)' "$T/out" ||
	fail "maint: no signer"
(cd "$R" && "$PATCHRELAY" route "$T/p/many.patch") >"$T/out"
[ "$(grep -c blamed_fixes "$T/out")" = 5 ] || fail "many: not five signers"
grep -q '^S Six <six@example.org> (blamed_fixes:2/1=100%)' "$T/out" ||
	fail "many: the double signer is not counted twice"
(cd "$R" && "$PATCHRELAY" route "$T/p/amb.patch") | grep -q amb.signer ||
	fail "amb: the commit of a shared prefix was not taken"
(cd "$R" && "$PATCHRELAY" route --no-fixes "$T/p/plain.patch") >"$T/out"
! grep -q blamed_fixes "$T/out" || fail "--no-fixes added signers"

# the maintainers plugin Cc:s the signers, unless cc leaves "fixes" out
"$PATCHRELAY" check --step "maintainers:kernel-tree=$R" "$T/p/maint.patch" >"$T/out" ||
	fail "plugin: check failed"
grep -q '^    Cc: Sam Sub <sam@example.org> (blamed_fixes)$' "$T/out" ||
	fail "plugin: no blamed_fixes Cc"
grep -q '^    To: Jesse Brandeburg <jesse.brandeburg@intel.com> (maintainer:INTEL ETHERNET DRIVERS)$' "$T/out" ||
	fail "plugin: the maintainer who signed is not in To:"
"$PATCHRELAY" check --step "maintainers:kernel-tree=$R,cc=lists" "$T/p/maint.patch" >"$T/out" ||
	fail "plugin: check with cc=lists failed"
! grep -q sam@example.org "$T/out" || fail "plugin: cc=lists still mails fixes"

# the same tree without its repository: nothing is added, as the script
rm -rf "$T/plain-tree"
cp -r "$R" "$T/plain-tree"
rm -rf "$T/plain-tree/.git"
for p in plain maint several; do
	compare "$T/plain-tree" "" "$T/p/$p.patch"
done
(cd "$T/plain-tree" && "$PATCHRELAY" route "$T/p/maint.patch") >"$T/out"
! grep -q blamed_fixes "$T/out" || fail "no repository: signers added"

echo "ok: $runs runs identical to get_maintainer.pl on Fixes: tags"
