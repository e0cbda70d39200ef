#!/bin/sh
# The git source with a remote url: a repository served by the real
# `git daemon` on loopback (git://) and the same one as file://, each
# against the local case (url = the path) on the same repository.  A branch
# is v1; a force push is v2 with the range-diff git format-patch writes;
# commits landing on the watched branch are the landed event; every mail
# is the local case's, byte for byte; a rewritten watched branch is taken
# anew as locally.  The daemon stopped is a clear error of that source
# (naming it and the URL) while the other source keeps going; after a
# restart the next pass sends what was pushed meanwhile, once.  A missing
# branch is named; a password in the URL is refused.  base as a
# lightweight tag, an annotated tag, a revision (topic~2) and a name that
# is both a tag and a branch resolve as git rev-parse resolves them in the
# local case (the tag first; the branch once the tag is gone), with the
# local case's mails; an unknown tag is named.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
DAEMON=/usr/lib/git-core/git-daemon
daemon_pid=
stop_daemon() {
	[ -z "$daemon_pid" ] || stop "$daemon_pid"
	daemon_pid=
}

[ -x "$DAEMON" ] || fail "no $DAEMON (Debian package git)"
port=$(free_port)
start_daemon() {
	spawn daemon_pid "$DAEMON" --export-all --base-path="$tmp/srv" \
		--reuseaddr --listen=127.0.0.1 --port="$port" "$tmp/srv" \
		2>>daemon.log
	# ready when it answers (a bounded wait, not a timing assertion)
	wait_for 10 git ls-remote "git://127.0.0.1:$port/repo.git" \
		>/dev/null 2>&1 || fail "git daemon did not start: $(cat daemon.log)"
}

git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
commit() { git -C work commit -q -a -m "$1" -m "Signed-off-by: Ada Demo <ada@example.org>"; }
mkdir work
printf 'one\ntwo\nthree\nfour\nfive\n' > work/file
printf 'alpha\n' > work/other
git_base work
git -C work checkout -q -b topic
sed -i 's/two/TWO/' work/file
commit "file: shout two"
sed -i 's/four/FOUR/' work/file
commit "file: shout four"
echo beta >> work/other
commit "other: add beta"
git -C work tag v1
mkdir srv
git clone -q --bare work srv/repo.git
push() { git -C work push -q -f "$tmp/srv/repo.git" "$@"; }
start_daemon

# one config per way in; the same source name, so the same Message-IDs
conf() { # NAME URL
	git_maildir_conf "$tmp/$1" "$2" watch=main cover-letter=always >"$1.conf"
	mkdir "$1"
}
conf local "$tmp/srv/repo.git"
conf daemon "git://127.0.0.1:$port/repo.git"
conf file "file://$tmp/srv/repo.git"

pass() { # NAME LOG: one pass of each config
	for c in local daemon file; do
		"$PATCHRELAY" run -c $c.conf --once 2>$c/$1 ||
			fail "$c, $1: $(cat $c/$1)"
	done
}
# every mail of a remote case is the local case's (the cover letter's
# Date is the time of the pass and is left out)
same() {
	for c in daemon file; do
		[ "$(ls $c/maildir/new | wc -l)" -eq "$1" ] ||
			fail "$c: not $1 mails: $(ls $c/maildir/new)"
		for f in local/maildir/new/*; do
			g=$c/maildir/new/${f##*/}
			[ -f "$g" ] || fail "$c: no ${f##*/}: $(ls $c/maildir/new)"
			grep -v '^Date: ' "$f" >want
			grep -v '^Date: ' "$g" >got
			diff -u want got || fail "$c: ${f##*/} differs from the local case's"
		done
	done
}

pass log1
[ "$(ls local/maildir/new | wc -l)" -eq 4 ] || fail "local v1: $(ls local/maildir/new)"
same 4
for c in daemon file; do
	grep -q '4 mail(s) sent' $c/log1 || fail "$c v1: $(cat $c/log1)"
	[ -d $c/git-cache/repo.git/objects ] ||
		fail "$c: no cache repository under the state directory"
done
# patchrelay poll stores nothing but reads through the same cache: the
# events it prints are the local case's
"$PATCHRELAY" poll -c local.conf repo --json >local/poll.json ||
	fail "poll local"
for c in daemon file; do
	"$PATCHRELAY" poll -c $c.conf repo --json >$c/poll.json 2>$c/poll.log ||
		fail "poll $c: $(cat $c/poll.log)"
	cmp -s local/poll.json $c/poll.json ||
		fail "poll $c: $(diff local/poll.json $c/poll.json)"
done
grep -q '"subject": "file: shout four"' local/poll.json ||
	fail "poll: no patches: $(cat local/poll.json)"
v1cover=$(grep -l '^Subject: \[PATCH 0/3\]' daemon/maildir/new/*) ||
	fail "v1: no cover letter"
v1id=$(message_id "$v1cover")

# v2 is a force push: the second patch changes, a fourth one is added
git -C work reset -q --hard main
sed -i 's/two/TWO/' work/file
commit "file: shout two"
sed -i 's/four/Four!/' work/file
commit "file: shout four, politely"
echo beta >> work/other
commit "other: add beta"
echo five >> work/other
commit "other: add five"
push topic
pass log2
same 9
v2cover=$(grep -l '^Subject: \[PATCH v2 0/4\]' daemon/maildir/new/*) ||
	fail "v2: no '[PATCH v2 0/4]' cover letter"
grep -q "$v1id" "$v2cover" || fail "v2 cover does not link to v1's cover"
git -C work format-patch -q --cover-letter -v2 --range-diff=main..v1 \
	-o "$tmp/ref" main..topic
block() { sed -n '/^Range-diff against v1:$/,/^-- $/p' "$1" | sed '$d' |
	sed '/^base-commit:/,$d' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
block "$tmp"/ref/v2-0000-cover-letter.patch >want
block "$v2cover" >got
[ -s want ] || fail "git wrote no range-diff block"
diff -u want got || fail "range-diff block differs from git format-patch's"

# the series lands on main: cherry-picked, pushed
git -C work checkout -q main
git -C work cherry-pick main..topic >/dev/null
push main
last=$(git -C work rev-parse main)
pass log3
for c in local daemon file; do
	grep -q "v2 of 'topic' landed in main as $last" $c/log3 ||
		fail "$c: not landed: $(cat $c/log3)"
	grep -q ', 1 landed' $c/log3 || fail "$c pass 3: $(cat $c/log3)"
done
same 9

# the daemon stops: a clear error of that source; the file:// one goes on
stop_daemon
git -C work checkout -q topic
echo six >> work/other
commit "other: add six"
push topic
rc=0
"$PATCHRELAY" run -c daemon.conf --once 2>daemon/log4 || rc=$?
[ "$rc" -eq 3 ] || fail "daemon stopped: exit status $rc: $(cat daemon/log4)"
grep -q "\[git:repo\] source 'repo': fetch refs from 'git://127.0.0.1:$port/repo.git': " \
	daemon/log4 || fail "daemon stopped: no clear error: $(cat daemon/log4)"
grep -q '1 failing source(s)' daemon/log4 || fail "not counted: $(cat daemon/log4)"
[ "$(ls daemon/maildir/new | wc -l)" -eq 9 ] || fail "daemon stopped: mail written"
"$PATCHRELAY" status -c daemon.conf >daemon/st4 || fail "status: $(cat daemon/st4)"
"$PATCHRELAY" run -c local.conf --once 2>local/log4 || fail "local: $(cat local/log4)"
"$PATCHRELAY" run -c file.conf --once 2>file/log4 || fail "file: $(cat file/log4)"

# back up: v3 (main now holds v2, so one patch and its cover) once, and
# a further pass sends nothing
start_daemon
"$PATCHRELAY" run -c daemon.conf --once 2>daemon/log5 || fail "restart: $(cat daemon/log5)"
grep -q '2 mail(s) sent' daemon/log5 || fail "restart: $(cat daemon/log5)"
same 11
grep -q '^Subject: \[PATCH v3 1/1\] other: add six$' daemon/maildir/new/* ||
	fail "no v3 patch"
"$PATCHRELAY" run -c daemon.conf --once 2>daemon/log6 || fail "pass 6: $(cat daemon/log6)"
grep -q '0 mail(s) sent' daemon/log6 || fail "pass 6 sent again: $(cat daemon/log6)"
[ "$(grep -h '^Message-ID:' daemon/maildir/new/* | sort -u | wc -l)" -eq 11 ] ||
	fail "a Message-ID twice"

# main force-pushed to a rewritten history: taken anew with a warning, as
# the local case does (the cache still has the old tip to tell), and no
# landed event
git -C work checkout -q main
git -C work reset -q --hard main~2
echo rewritten > work/new
git -C work add new
git -C work commit -q -m rewritten
push main
for c in local daemon file; do
	"$PATCHRELAY" run -c $c.conf --once 2>$c/log7 || fail "$c pass 7: $(cat $c/log7)"
	grep -q "watch 'main': .* is not below .*: taken from here" $c/log7 ||
		fail "$c: rewritten main not seen: $(cat $c/log7)"
	grep -q ', 0 landed' $c/log7 || fail "$c pass 7: $(cat $c/log7)"
done

# a source with only watch fetches only that branch
mkdir watch
{
	conf_section core "state=$tmp/watch/state.db"
	conf_section 'source "main"' type=git "url=file://$tmp/srv/repo.git" \
		watch=main
	conf_section 'sink "inbox"' type=maildir "path=$tmp/watch/maildir"
	conf_section 'route "w"' from=main to=inbox
} >watch.conf
"$PATCHRELAY" run -c watch.conf --once 2>watch/log || fail "watch only: $(cat watch/log)"
grep -q '0 failing source(s)' watch/log || fail "watch only: $(cat watch/log)"
[ "$(sqlite3 watch/state.db "SELECT cursor FROM cursors")" = \
	"watch=$(git -C srv/repo.git rev-parse main)" ] || fail "watch only cursor"
[ "$(git --git-dir=watch/git-cache/main.git for-each-ref --format='%(refname)')" = \
	refs/heads/main ] || fail "watch only: fetched more than main"

# a short name is resolved against the remote's refs as git rev-parse
# resolves it locally (gitrevisions(7): refs/tags/ before refs/heads/):
# base as a lightweight tag, as an annotated tag, as a revision below a
# branch, and as a name that is both a tag and a branch, each the local
# case's series and mails
mkdir tw
printf 'one\ntwo\n' > tw/file
git_base tw
git -C tw tag lw
git -C tw tag -a -m 'annotated base' ann
git -C tw checkout -q -b topic
sed -i 's/one/ONE/' tw/file
git -C tw commit -q -a -m "file: shout one" -m "Signed-off-by: Ada Demo <ada@example.org>"
sed -i 's/two/TWO/' tw/file
git -C tw commit -q -a -m "file: shout two" -m "Signed-off-by: Ada Demo <ada@example.org>"
# 'both': a tag on the base and a branch one commit below topic
git -C tw tag both main
git -C tw branch both topic~1
git clone -q --bare tw srv/tags.git
# what git itself makes of the names, in the served repository
want_both=$(git -C srv/tags.git rev-parse -q --verify 'both^{commit}' 2>/dev/null)
[ "$want_both" = "$(git -C srv/tags.git rev-parse main)" ] ||
	fail "git does not take the tag for 'both'"
[ "$(git -C srv/tags.git cat-file -t ann)" = tag ] || fail "ann is not annotated"
tconf() {
	{
		echo "[core]"
		echo "	state = $tmp/t-$1/state.db"
		for b in lw ann rev both; do
			base=$b
			[ $b = rev ] && base='topic~2'
			cat <<CONF
[source "$b"]
	type = git
	url = $2
	branch = topic
	base = $base
[route "$b"]
	from = $b
	to = inbox
CONF
		done
		echo '[sink "inbox"]'
		echo '	type = maildir'
		echo "	path = $tmp/t-$1/maildir"
	} > t-$1.conf
	mkdir -p t-$1
}
tconf local "$tmp/srv/tags.git"
tconf daemon "git://127.0.0.1:$port/tags.git"
tconf file "file://$tmp/srv/tags.git"
tpass() { # N: one pass of each; the local case sends N mails in all
	for c in local daemon file; do
		"$PATCHRELAY" run -c t-$c.conf --once 2>t-$c/log$1 ||
			fail "tags $c: $(cat t-$c/log$1)"
		grep -q '0 failing source(s)' t-$c/log$1 ||
			fail "tags $c: $(cat t-$c/log$1)"
	done
}
tsame() { # N: every config holds the N mails of the local case
	for c in local daemon file; do
		[ "$(ls t-$c/maildir/new | wc -l)" -eq "$1" ] ||
			fail "tags $c: not $1 mails: $(ls t-$c/maildir/new)"
	done
	for c in daemon file; do
		for f in t-local/maildir/new/*; do
			g=t-$c/maildir/new/${f##*/}
			[ -f "$g" ] || fail "tags $c: no ${f##*/}"
			grep -v '^Date: ' "$f" >want
			grep -v '^Date: ' "$g" >got
			diff -u want got ||
				fail "tags $c: ${f##*/} differs from the local case's"
		done
	done
}
tpass 1
# lw, ann and rev: a cover letter and two patches each; both: the tag's
# two patches too, where the branch would give one
tsame 12
for c in local daemon file; do
	n=$(grep -l '^Subject: \[PATCH [12]/2\] file: shout' t-$c/maildir/new/* | wc -l)
	[ "$n" -eq 8 ] || fail "tags $c: $n patch mails of 2, not 8"
done
# the cache holds each ref under its own name, the annotated tag as a tag
[ "$(git --git-dir=t-file/git-cache/ann.git cat-file -t refs/tags/ann)" = tag ] ||
	fail "the annotated tag is not fetched as a tag"
[ "$(git --git-dir=t-daemon/git-cache/lw.git for-each-ref --format='%(refname)' | sort | tr '\n' ' ')" = \
	'refs/heads/topic refs/tags/lw ' ] || fail "lw cache: wrong refs"
[ "$(git --git-dir=t-daemon/git-cache/rev.git for-each-ref --format='%(refname)')" = \
	refs/heads/topic ] || fail "rev cache: wrong refs"
# the tag 'both' goes from the remote: the branch is what git takes now,
# in the served repository and through each cache (the one fetched before
# is dropped), so 'both' is a new version of one patch, the same mails
git -C srv/tags.git tag -d both >/dev/null
[ "$(git -C srv/tags.git rev-parse both)" = "$(git -C srv/tags.git rev-parse topic~1)" ] ||
	fail "git does not take the branch for 'both'"
tpass 2
tsame 13
for c in local daemon file; do
	grep -q '^Subject: \[PATCH v2\] file: shout two$' t-$c/maildir/new/* ||
		fail "tags $c: 'both' as the branch is not v2 of one patch"
done
[ "$(git --git-dir=t-file/git-cache/both.git for-each-ref --format='%(refname)' | sort | tr '\n' ' ')" = \
	'refs/heads/both refs/heads/topic ' ] || fail "both cache: the tag is left"

# a missing branch is named; a password in the URL is never shown
sed -e 's/branch = topic/branch = nosuch/' -e 's/watch = main/watch = nosuch/' \
	daemon.conf >missing.conf
rc=0
"$PATCHRELAY" run -c missing.conf --once 2>missing.log || rc=$?
[ "$rc" -eq 3 ] || fail "missing branch: exit status $rc"
grep -q "source 'repo': fetch refs from 'git://127.0.0.1:$port/repo.git': the remote has no 'nosuch' (no tag, branch or other ref of that name)" \
	missing.log || fail "missing branch: $(cat missing.log)"
# an unknown tag as base over file:// the same; nothing is sent
sed -e 's/base = main/base = v9.9~1/' file.conf >notag.conf
n=$(ls file/maildir/new | wc -l)
rc=0
"$PATCHRELAY" run -c notag.conf --once 2>notag.log || rc=$?
[ "$rc" -eq 3 ] || fail "unknown tag: exit status $rc: $(cat notag.log)"
grep -q "source 'repo': fetch refs from 'file://$tmp/srv/repo.git': the remote has no 'v9.9' (no tag, branch or other ref of that name)" \
	notag.log || fail "unknown tag: $(cat notag.log)"
[ "$(ls file/maildir/new | wc -l)" -eq "$n" ] || fail "unknown tag: mail sent"
stop_daemon
# a password in the URL is refused before anything runs (it belongs in
# the password option, a secret), and is not echoed
sed "s|url = .*|url = http://bob:s3cret-pw@127.0.0.1:$port/repo.git|" \
	daemon.conf >pw.conf
rc=0
"$PATCHRELAY" run -c pw.conf --once 2>pw.log || rc=$?
[ "$rc" -eq 2 ] || fail "password url: exit status $rc: $(cat pw.log)"
grep -q "source 'repo': option 'url': a password in the URL is refused" pw.log ||
	fail "password url: $(cat pw.log)"
grep -q 's3cret' pw.log && fail "the password was logged: $(cat pw.log)"
echo "run_git_remote.sh: ok"
