#!/bin/sh
# patchrelay run --dry-run: the mails go to stdout (one after another, as
# git format-patch --stdout separates them) or to --dry-run-dir, byte for
# byte what the real run then delivers (bodies as git format-patch writes
# them); nothing reaches the sinks, and a later real run delivers every mail.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo repo
git_commits repo 3
# the usual relay, and a second sink on the route: an mbox
git_maildir_conf "$tmp" "$tmp/repo" cover-letter=never >relay.conf
git config -f relay.conf 'sink.arch ive.type' mbox
git config -f relay.conf 'sink.arch ive.path' "$tmp/archive.mbox"
git config -f relay.conf --add route.r.to 'arch ive'

# stdout: each sink's mails in turn
"$PATCHRELAY" run -c relay.conf --dry-run >out.mbox 2>log1 ||
	fail "dry run: $(cat log1)"
[ ! -e maildir/new ] || [ -z "$(ls maildir/new)" ] ||
	fail "dry run wrote to the maildir"
[ ! -s archive.mbox ] || fail "dry run wrote to the mbox"
grep -q "dry run: 3 mail(s) of 'topic' v1 to 'inbox'" log1 ||
	fail "no dry run log line: $(cat log1)"

# a second dry run sees the same (no cursor moved), into a directory
mkdir dry
"$PATCHRELAY" run -c relay.conf --dry-run --dry-run-dir dry >out2 2>log2 ||
	fail "dry run dir: $(cat log2)"
[ ! -s out2 ] || fail "dry run with a dir wrote to stdout"
[ "$(ls dry | wc -l)" -eq 6 ] || fail "not 6 files: $(ls dry)"
[ "$(ls dry/inbox.*-v1.* | wc -l)" -eq 3 ] || fail "inbox files: $(ls dry)"
[ "$(ls dry/arch_ive.*-v1.* | wc -l)" -eq 3 ] ||
	fail "mbox sink files: $(ls dry)"
git -C repo format-patch -q -o "$tmp/ref" main..topic
bodies_match "$tmp/ref" 'dry/inbox.*-v1.' || fail "dir mail: body differs"
bodies_match "$tmp/ref" 'dry/arch_ive.*-v1.' ||
	fail "dir mail (mbox): body differs"
# stdout held the same mails, separated by a blank line
: >ref.out
for f in dry/inbox.*-v1.0 dry/inbox.*-v1.1 dry/inbox.*-v1.2 \
	dry/arch_ive.*-v1.0 dry/arch_ive.*-v1.1 dry/arch_ive.*-v1.2; do
	[ -s ref.out ] && echo >>ref.out
	cat "$f" >>ref.out
done
cmp ref.out out.mbox || fail "dry run stdout differs from the dir's mails"

# the real run delivers all of it, with the keys the dry run showed
"$PATCHRELAY" run -c relay.conf --once 2>log3 || fail "real run: $(cat log3)"
grep -q '6 mail(s) sent' log3 || fail "real run: $(cat log3)"
[ "$(ls maildir/new | wc -l)" -eq 3 ] || fail "maildir: $(ls maildir/new)"
for i in 0 1 2; do
	cmp dry/inbox.*-v1.$i maildir/new/patchrelay.*-v1.$i ||
		fail "mail $i differs from the dry run's"
done
[ "$(grep -c '^From ' archive.mbox)" -eq 3 ] || fail "mbox: not 3 mails"

# after the real run, a dry run has nothing to show
"$PATCHRELAY" run -c relay.conf --dry-run >out4 2>log4 ||
	fail "dry run after: $(cat log4)"
[ ! -s out4 ] || fail "dry run after the real run printed mails"

rc=0
"$PATCHRELAY" run -c relay.conf --dry-run-dir x 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "--dry-run-dir without --dry-run: exit status $rc"
exit 0
