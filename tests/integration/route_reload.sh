#!/bin/sh
# The maintainers plugin in a running daemon (`patchrelay run`, not --once)
# follows its tree: a maildir source routed through the plugin on the small
# tree of tests/data/route/tree; a first series gets the recipients of the
# tree's MAINTAINERS; MAINTAINERS and then .mailmap change while the daemon
# runs, and the next series gets the new answer of get_maintainer.pl on the
# changed tree, with no restart (To: its maintainers, Cc: the rest, in its
# order).  Then SIGHUP reloads a changed config (cc = lists) and the next
# series follows that.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

# get_maintainer.pl: from the extracted kernel tree of the route tests when
# there is one, else just that script out of the tarball, cached
C=${PR_CACHE:-$PR_BUILD}
mkdir -p "$C"
gm="$C/linux-source/scripts/get_maintainer.pl"
if [ ! -f "$C/linux-source/.pr-extracted" ]; then
	gm="$C/route-reload/get_maintainer.pl"
	if [ ! -f "$gm" ]; then
		tarball=$(linux_tarball)
		[ -n "$tarball" ] || skip "no /usr/src/linux-source-*.tar.xz"
		top=$(basename "$tarball" .tar.xz)
		mkdir -p "$C/route-reload"
		tar -xJf "$tarball" -O "$top/scripts/get_maintainer.pl" >"$gm.tmp"
		mv "$gm.tmp" "$gm"
	fi
fi
mkdir home

git_identity 'Sub Mitter <sub@example.org>' '1796299200 +0000'
route_tree tree

# a patch mail as git format-patch writes it, with its own Message-ID
patch() { # NAME FILE LINE SUBJECT
	git -C tree checkout -q -B "$1" main
	echo "$3" >>"tree/$2"
	git -C tree commit -q -a -m "$4"
	git -C tree format-patch -q -1 --stdout \
		--add-header="Message-ID: <$1@example.org>" >"$1.patch"
	git -C tree checkout -q main
}
patch one drivers/net/foo/foo.c 'int one;' 'foo: add one'
patch two drivers/net/foo/foo.c 'int two;' 'foo: add two'
patch three drivers/net/foo/foo.c 'int three;' 'foo: add three'
patch four drivers/net/foo/foo.c 'int four;' 'foo: add four'

# get_maintainer.pl's answer on the tree as it is now, with the roles:
# the maintainers (whatever S: calls them) as To: lines, the reviewers and
# lists as Cc: lines, each in its order
want() { # PATCH
	(cd tree && HOME="$tmp/home" /usr/bin/perl "$gm" --no-tree --no-git \
		--no-git-fallback "$tmp/$1.patch") >"$1.gm" 2>"$1.gm.err" ||
		fail "get_maintainer.pl $1: $(cat "$1.gm.err")"
	grep -v '(reviewer:\|list[:)]' "$1.gm" | sed 's/^\(.*\) ([^()]*)$/To: \1/'
	grep '(reviewer:\|list[:)]' "$1.gm" | sed 's/^\(.*\) ([^()]*)$/Cc: \1/'
}

# the To: and Cc: of the one mail delivered for a patch, one address a
# line (unfolded, split at the commas)
got() { # PATCH
	f=$(grep -l "^Subject: \[PATCH\] foo: add $1\$" out/new/*)
	[ "$(echo "$f" | wc -l)" = 1 ] || fail "$1: delivered as '$f'"
	/usr/bin/python3 - "$f" <<'PY'
import email, email.utils, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"))
for h in ("To", "Cc"):
    for name, addr in email.utils.getaddresses(m.get_all(h, [])):
        print("%s: %s" % (h, "%s <%s>" % (name, addr) if name else addr))
PY
}

mkdir -p in/new in/cur in/tmp
cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
[source "list"]
	type = maildir
	path = $tmp/in
	wait = 0s
[sink "out"]
	type = maildir
	path = $tmp/out
[check "maint"]
	type = maintainers
	kernel-tree = $tmp/tree
[route "r"]
	from = list
	step = maint
	to = out
CONF

mails() { ls out/new 2>/dev/null | wc -l; }
has_mails() { [ "$(mails)" -ge "$1" ]; }
send() { # PATCH N: drop it into the source, wait for the Nth delivery
	cp "$1.patch" "in/tmp/$1"
	mv "in/tmp/$1" "in/new/$1"
	# generous: a pass under ASan on a loaded machine can take long
	wait_for 60 has_mails "$2" ||
		fail "not $2 mail(s) delivered: $(cat log)"
}
check() { # PATCH WANT-FILE
	got "$1" >"$1.got"
	diff -u "$2" "$1.got" || fail "$1: recipients differ from $2: $(cat log)"
}

spawn pid "$PATCHRELAY" run -c relay.conf --interval 1 2>log

# 1. the tree as committed
send one 1
want one >one.want
grep -q 'To: Foo Person <foo@example.org>' one.want ||
	fail "get_maintainer.pl on the test tree: $(cat one.gm)"
check one one.want

# 2. MAINTAINERS changes under the running daemon: a new section for the
# foo driver, and the driver's list moves
/usr/bin/perl -0pi -e 's/(L:\tfoo-list\@example.org) \(moderated for non-subscribers\)/L:\tfoo-new\@example.org/; s/(NETWORKING DRIVERS\n)/FOO OFFLOAD\nM:\tOff Loader <offload\@example.org>\nR:\tSecond Look <second\@example.org>\nL:\toffload\@example.org\nS:\tMaintained\nF:\tdrivers\/net\/foo\/foo.c\n\n$1/' tree/MAINTAINERS
grep -q 'FOO OFFLOAD' tree/MAINTAINERS || fail "MAINTAINERS edit did not apply"
send two 2
want two >two.want
grep -q 'Off Loader' two.want || fail "get_maintainer.pl: $(cat two.gm)"
grep -q 'foo-list' two.want && fail "get_maintainer.pl still has foo-list"
check two two.want
grep -q "maintainers.*'$tmp/tree/MAINTAINERS' changed: reloaded" log ||
	fail "no reload line for MAINTAINERS: $(cat log)"

# 3. .mailmap changes: Off Loader has a new address
echo 'Off Loader <loader@example.org> <offload@example.org>' >>tree/.mailmap
send three 3
want three >three.want
grep -q 'loader@example.org' three.want || fail "get_maintainer.pl: $(cat three.gm)"
check three three.want
grep -q "'$tmp/tree/.mailmap' changed: reloaded" log ||
	fail "no reload line for .mailmap: $(cat log)"

# 4. SIGHUP: the config changes (only the lists in Cc:)
/usr/bin/perl -pi -e 's/^(\tkernel-tree = .*)$/$1\n\tcc = lists/' relay.conf
kill -HUP "$pid"
wait_for 60 grep -q "reloaded 'relay.conf'" log ||
	fail "no config reload: $(cat log)"
send four 4
want four | grep -v 'Second Look\|Rev Iewer' >four.want
check four four.want

stop "$pid"
[ "$stopped" -eq 0 ] || fail "exit status $stopped after SIGTERM: $(cat log)"
[ "$(mails)" -eq 4 ] || fail "$(mails) mails delivered, want 4"
echo "route_reload.sh: ok"
