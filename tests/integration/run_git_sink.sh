#!/bin/sh
# The git sink: a version is applied on its base with libgit2, a commit per
# patch, and pushed as the branch patchrelay/{key}/v{n} of a bare
# repository (a local path, or a file:// URL pushed to by libgit2).  The pushed commits are the series' patches (git patch-id of
# git format-patch), with the same authors, dates and messages; the
# committer is the configured one.  A second pass pushes nothing, a changed
# branch is pushed as v2 beside v1, a dry run pushes nothing, a version
# that does not apply is rejected (status shows it, no branch is made), and
# a bad branch template is a config error.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

# the scratch repositories of a URL push go here, to be counted
mkdir "$tmp/t"
export TMPDIR="$tmp/t"

git_identity 'Ada Demo <ada@example.org>' '@1796299200 +0000'
export GIT_AUTHOR_DATE='@1796299200 +0100'
mkdir repo
printf 'one\ntwo\nthree\n' > repo/file
git_base repo
git -C repo checkout -q -b topic
echo four >> repo/file
git -C repo commit -q -a -m 'file: add four' -m 'A body line,
and a second one.' -m 'Signed-off-by: Ada Demo <ada@example.org>'
printf 'new\n' > repo/new.c
git -C repo add new.c
GIT_AUTHOR_NAME='Bo Other' GIT_AUTHOR_EMAIL=bo@example.org \
GIT_AUTHOR_DATE='@1796300000 -0500' \
	git -C repo commit -q -m 'new.c: add it'
git -C repo rm -q file
git -C repo commit -q -m 'file: remove it'

git clone -q --bare --single-branch -b main repo sink.git
# not a local clone: it has none of topic's objects
git clone -q --no-local --bare --single-branch -b main repo remote.git
# a repository where the series cannot apply: another history
git init -q -b main other
printf 'something else\n' > other/file
git -C other add file
git -C other commit -q -m 'other base'
git clone -q --bare other other.git

{
	git_source_conf "$tmp/state.db" "$tmp/repo" cover-letter=never
	cat <<CONF
[sink "push"]
	type = git
	url = $tmp/sink.git
	committer = Patch Relay <relay@example.org>
[sink "remote"]
	type = git
	url = file://$tmp/remote.git
	branch = review/{origin}/{key}-v{n}
	base = main
[sink "other"]
	type = git
	url = $tmp/other.git
	base = main
[route "r"]
	from = repo
	to = push
	to = remote
	to = other
CONF
} >relay.conf

# what a range is, as patch-ids and as author/date/message
ids() { git -C "$1" format-patch --stdout "$2" | git patch-id --stable | cut -d' ' -f1; }
meta() { git -C "$1" log --reverse --format='%an <%ae> %ad%n%B' --date=raw "$2"; }

"$PATCHRELAY" run -c relay.conf --once --dry-run >dry.out 2>dry.log ||
	fail "dry run: $(cat dry.log)"
git -C sink.git rev-parse -q --verify refs/heads/patchrelay/topic/v1 >/dev/null &&
	fail "a dry run pushed"
grep -q "dry run: v1 of 'topic' not pushed to 'push'" dry.log ||
	fail "dry run log: $(cat dry.log)"

"$PATCHRELAY" run -c relay.conf --once 2>log1 || fail "pass 1: $(cat log1)"
git -C sink.git rev-parse -q --verify refs/heads/patchrelay/topic/v1 >/dev/null ||
	fail "no branch: $(git -C sink.git branch -a) $(cat log1)"
ids repo main..topic > want.ids
ids sink.git main..patchrelay/topic/v1 > got.ids
[ "$(wc -l < want.ids)" -eq 3 ] || fail "reference ids: $(cat want.ids)"
cmp want.ids got.ids || fail "patch-ids differ: $(diff want.ids got.ids)"
meta repo main..topic > want.meta
meta sink.git main..patchrelay/topic/v1 > got.meta
cmp want.meta got.meta || fail "authors or messages differ: $(diff want.meta got.meta)"
# the commits sit on main of the sink, committed by the configured committer
[ "$(git -C sink.git rev-parse patchrelay/topic/v1~3)" = "$(git -C sink.git rev-parse main)" ] ||
	fail "not on main"
[ "$(git -C sink.git log --format='%cn <%ce>' main..patchrelay/topic/v1 | sort -u)" = \
	"Patch Relay <relay@example.org>" ] || fail "committer"
git -C sink.git fsck --no-dangling --strict --no-progress 2>fsck.err || fail "fsck: $(cat fsck.err)"
tip1=$(git -C sink.git rev-parse patchrelay/topic/v1)

# pushed over a URL (libgit2 push, through a scratch repository): the same
# commits (same dates, same committer as git picks it), under the template
ids remote.git main..review/repo/topic-v1 > remote.ids
cmp want.ids remote.ids || fail "remote patch-ids differ"
meta remote.git main..review/repo/topic-v1 > remote.meta
cmp want.meta remote.meta || fail "remote messages differ"
[ "$(git -C remote.git log -1 --format='%cn <%ce> %cd' --date=raw review/repo/topic-v1)" = \
	"Ada Demo <ada@example.org> 1796299200 +0000" ] || fail "remote committer"
[ -z "$(ls "$TMPDIR")" ] || fail "scratch left behind: $(ls "$TMPDIR")"

# the other repository cannot take it: rejected, no branch there
grep -q "\[other\] rejected message 1/1: patch 1/3 'file: add four' does not apply" log1 ||
	fail "no rejection: $(cat log1)"
[ -z "$(git -C other.git for-each-ref refs/heads/patchrelay)" ] ||
	fail "a branch in other.git"
"$PATCHRELAY" status -c relay.conf > st || fail "status: $(cat st)"
grep -Eq '^repo:topic +1 +push +v1 +1/1 ' st || fail "status: $(cat st)"
grep -Eq '^repo:topic +1 +remote +v1 +1/1 ' st || fail "status: $(cat st)"
grep -Eq '^repo:topic +1 +other +v1 +0/1 +rejected:1 ' st || fail "status: $(cat st)"

# nothing new: nothing pushed again
git -C sink.git update-ref refs/heads/patchrelay/topic/v1 main
"$PATCHRELAY" run -c relay.conf --once 2>log2 || fail "pass 2: $(cat log2)"
[ "$(git -C sink.git rev-parse patchrelay/topic/v1)" = "$(git -C sink.git rev-parse main)" ] ||
	fail "pass 2 pushed again: $(cat log2)"
git -C sink.git update-ref refs/heads/patchrelay/topic/v1 "$tip1"

# a changed branch is v2, pushed beside v1
git -C repo reset -q --hard topic~1
printf 'new\nand more\n' > repo/new.c
git -C repo commit -q -a --amend -m 'new.c: add it, with more'
"$PATCHRELAY" run -c relay.conf --once 2>log3 || fail "pass 3: $(cat log3)"
ids repo main..topic > want2.ids
ids sink.git main..patchrelay/topic/v2 > got2.ids
cmp want2.ids got2.ids || fail "v2 patch-ids differ"
[ "$(git -C sink.git rev-parse patchrelay/topic/v1)" = "$tip1" ] || fail "v1 moved"

# a template git cannot take is refused before anything runs
sed 's|committer = .*|branch = pr/{nope}|' relay.conf > bad.conf
set +e
"$PATCHRELAY" run -c bad.conf --once 2>bad.err
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad template: exit $rc: $(cat bad.err)"
grep -q "sink 'push': option 'branch': unknown placeholder" bad.err ||
	fail "bad template: $(cat bad.err)"
echo "run_git_sink.sh: ok"
