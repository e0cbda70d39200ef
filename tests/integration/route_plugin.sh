#!/bin/sh
# The maintainers plugin through `patchrelay check -c FILE --route R` and
# `patchrelay run --once`, on the small tree of tests/data/route/tree with
# its own MAINTAINERS: recipients and their reasons (the same addresses, in
# the same order, as `patchrelay route`, which is get_maintainer.pl's
# answer), to/cc splits, opt-out fail and drop, max-lists and
# max-recipients warn and fail, include-/exclude-subsystem on routes and on
# the plugin, K: keywords.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Sub Mitter <sub@example.org>' '1796299200 +0000'
route_tree tree

# one patch per case, as git format-patch writes it
patch() { # NAME FILE LINE SUBJECT
	git -C tree checkout -q -B "$1" main
	echo "$3" >>"tree/$2"
	git -C tree commit -q -a -m "$4"
	git -C tree format-patch -q -1 --stdout >"$1.patch"
}
patch foo drivers/net/foo/foo.c 'int foo2;' 'foo: add foo2'
patch ext4 fs/ext4/inode.c 'int inode2;' 'ext4: add inode2'
patch kw fs/ext4/inode.c 'int foo_magic;' 'ext4: a foo_magic counter'
patch net net/core/dev.c 'int dev2;' 'net: add dev2'
git -C tree checkout -q main

conf() { # extra lines of the check section, then of the route section
	cat >"$tmp/c.conf" <<CONF
[source "in"]
	type = mbox
	path = $tmp/in.mbox
[sink "out"]
	type = maildir
	path = $tmp/md
[check "maint"]
	type = maintainers
	kernel-tree = $tmp/tree
$1
[route "r"]
	from = in
	step = maint
	to = out
$2
CONF
}

check() { # PATCH: runs check, output in $tmp/out, status in $rc
	rc=0
	"$PATCHRELAY" check -c "$tmp/c.conf" --route r "$tmp/$1.patch" \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
}

has() { grep -qF -- "$1" "$tmp/out" || fail "$2: no '$1' in: $(cat "$tmp/out" "$tmp/err")"; }
hasnt() { ! grep -qF -- "$1" "$tmp/out" || fail "$2: '$1' in: $(cat "$tmp/out")"; }

# recipients and reasons; the addresses are get_maintainer.pl's, in order
conf "" ""
check foo
[ "$rc" = 0 ] || fail "foo: status $rc: $(cat out err)"
cat >want <<'EOF'
    To: Foo Person <foo@example.org> (maintainer:FOO NETWORK DRIVER)
    To: Real Name <real@example.org> (maintainer:FOO NETWORK DRIVER)
    To: Net Maint <net@example.org> (maintainer:NETWORKING DRIVERS)
    Cc: Rev Iewer <rev@example.org> (reviewer:NETWORKING DRIVERS)
    Cc: foo-list@example.org (list:FOO NETWORK DRIVER)
    Cc: netdev@example.org (list:NETWORKING DRIVERS)
    Cc: linux-kernel@example.org (list:THE REST)
EOF
grep '^    [TC][oc]: ' out >got
diff want got || fail "foo: recipients differ"
has 'pass maint/recipients: 3 in To:, 4 in Cc: from MAINTAINERS' foo
(cd tree && "$PATCHRELAY" route --no-rolestats ../foo.patch) >route.out
sed 's/^    [TC][oc]: //; s/ ([a-z]*:[^)]*)$//' got >got.addr
diff route.out got.addr || fail "foo: not the addresses of patchrelay route"

# to = none: everybody in Cc; cc = lists: only the lists
conf "	to = none" ""
check foo
has 'Cc: Foo Person <foo@example.org> (maintainer:FOO NETWORK DRIVER)' to-none
hasnt 'To: ' to-none
conf "	cc = lists" ""
check foo
has 'To: Net Maint <net@example.org>' cc-lists
has 'Cc: netdev@example.org (list:NETWORKING DRIVERS)' cc-lists
hasnt 'Rev Iewer' cc-lists
conf "	cc = bogus" ""
check foo
[ "$rc" = 2 ] || fail "cc = bogus: status $rc, want 2"
grep -q "cc 'bogus' is not one of" err || fail "cc = bogus: $(cat err)"

# K: on the patch content: ext4 with foo_magic reaches FOO NETWORK DRIVER
conf "" ""
check kw
has 'Cc: foo-list@example.org (list:FOO NETWORK DRIVER)' keyword
has 'To: Fs Maint <fs@example.org> (maintainer:EXT4 FILE SYSTEM)' keyword
check ext4
hasnt 'foo-list' no-keyword

# opt-out, fail: a list by address; the message names the section
conf "	opt-out = netdev@example.org" ""
check foo
[ "$rc" = 1 ] || fail "opt-out fail: status $rc, want 1"
has "fail maint/opt-out: netdev@example.org (list of NETWORKING DRIVERS) takes no bridged submissions: send this series by mail instead (git format-patch, then git send-email --to='netdev@example.org')" opt-out
check ext4
[ "$rc" = 0 ] || fail "opt-out: ext4 does not reach netdev, status $rc"

# opt-out, drop: by name, from a file with comments
cat >optout <<'EOF'
# people who asked not to get bridged mail
Net Maint   # asked on 2026-01-01

EOF
conf "	opt-out-file = $tmp/optout
	opt-out-action = drop" ""
check foo
[ "$rc" = 0 ] || fail "opt-out drop: status $rc: $(cat out err)"
has 'warn maint/opt-out: dropped Net Maint <net@example.org> (maintainer of NETWORKING DRIVERS): opted out of bridged submissions' drop
hasnt 'To: Net Maint' drop
has 'To: Foo Person' drop
conf "	opt-out-file = $tmp/missing" ""
check foo
[ "$rc" != 0 ] && [ "$rc" != 1 ] || fail "missing opt-out-file: status $rc"
grep -q "opt-out-file '$tmp/missing' is missing" err || fail "missing opt-out-file: $(cat err)"

# max-lists and max-recipients: warn, then fail
conf "	max-lists = 2" ""
check foo
[ "$rc" = 0 ] || fail "max-lists warn: status $rc"
has 'warn maint/max-lists: 3 mailing lists would be mailed, over max-lists = 2' max-lists
conf "	max-lists = 3" ""
check foo
hasnt 'max-lists' max-lists-3
conf "	max-recipients = 6
	cap-action = fail" ""
check foo
[ "$rc" = 1 ] || fail "max-recipients fail: status $rc"
has 'fail maint/max-recipients: 7 recipients would be mailed, over max-recipients = 6' max-recipients

# route filters: the series is not taken, and check says why (status 0)
conf "" "	include-subsystem = EXT4 FILE SYSTEM"
check foo
[ "$rc" = 0 ] || fail "include-subsystem: status $rc"
has 'route r does not take this series: it touches FOO NETWORK DRIVER, NETWORKING DRIVERS, THE REST (none is in include-subsystem)' include
hasnt 'maint/' include
check ext4
has 'To: Fs Maint <fs@example.org>' include-ext4
conf "" "	exclude-subsystem = networking [general]"
check net
has 'route r does not take this series: it touches NETWORKING [GENERAL], THE REST (NETWORKING [GENERAL] is in exclude-subsystem)' exclude
check foo
has 'To: Net Maint' exclude-foo

# the same filter on the plugin is a verdict the submitter sees
conf "	include-subsystem = EXT4 FILE SYSTEM" ""
check foo
[ "$rc" = 1 ] || fail "plugin include-subsystem: status $rc"
has 'fail maint/include-subsystem: the series touches none of the sections this bridge takes (it touches: FOO NETWORK DRIVER, NETWORKING DRIVERS, THE REST)' plugin-include

# a filter without a maintainers step is a configuration error
cat >c.conf <<CONF
[source "in"]
	type = mbox
	path = $tmp/in.mbox
[sink "out"]
	type = maildir
	path = $tmp/md
[route "r"]
	from = in
	to = out
	include-subsystem = EXT4 FILE SYSTEM
CONF
check foo
[ "$rc" = 2 ] || fail "filter without maintainers: status $rc"
grep -q "need a step of type maintainers" err || fail "no step: $(cat err)"

# run --once: two routes from one git source; only the one whose
# include-subsystem the branch touches delivers into its maildir
git -C tree checkout -q -b topic main
echo 'int foo3;' >>tree/drivers/net/foo/foo.c
git -C tree commit -q -a -m 'foo: add foo3'
git -C tree checkout -q main
{
	git_source_conf "$tmp/state.db" "$tmp/tree"
	cat <<CONF
[sink "net"]
	type = maildir
	path = $tmp/md-net
[sink "fs"]
	type = maildir
	path = $tmp/md-fs
[check "maint"]
	type = maintainers
	kernel-tree = $tmp/tree
[route "to-net"]
	from = repo
	step = maint
	to = net
	include-subsystem = NETWORKING DRIVERS
[route "to-fs"]
	from = repo
	step = maint
	to = fs
	include-subsystem = EXT4 FILE SYSTEM
CONF
} >run.conf
# the run loop does not close() instances yet (the daemon piece adds it),
# so the plugin's loaded MAINTAINERS is still held at exit
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	"$PATCHRELAY" run -c run.conf --once 2>run.log || fail "run: $(cat run.log)"
[ "$(ls md-net/new | wc -l)" = 1 ] || fail "run: to-net delivered $(ls md-net/new | wc -l): $(cat run.log)"
[ ! -d md-fs/new ] || [ "$(ls md-fs/new | wc -l)" = 0 ] || fail "run: to-fs delivered"
grep -q ' 0 refused' run.log || fail "run: a skip is not a refusal: $(cat run.log)"

echo "ok: route_plugin"
