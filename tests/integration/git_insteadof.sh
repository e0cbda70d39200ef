#!/bin/sh
# url.<base>.insteadOf and pushInsteadOf from the user's git config (a
# real ~/.gitconfig in a temp HOME) applied to the git source's and the
# git sink's url as git applies them: the longest matching prefix wins;
# the sink fetches from the insteadOf URL and pushes to the pushInsteadOf
# one; an ssh URL made by a rewrite is checked against known_hosts with the
# rewritten host and port.  libgit2 1.5's loss per ssh connection (its
# known_hosts list and two strings, 56 bytes here) stays in the transfer's
# child process: under valgrind the relay's own process frees everything
# after a fetch over ssh.  Without the config the same url fails, so the
# rewrite is what made it work.  git itself reads the same config for the
# same urls, and must find what patchrelay found.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
export GIT_CONFIG_NOSYSTEM=1
mkdir "$tmp/t"
export TMPDIR="$tmp/t"

git_identity 'Ada Demo <ada@example.org>' '@1796299200 +0000'
git_repo work
git_commits work 2
git clone -q --bare work up.git
git clone -q --bare --single-branch -b main work sink.git
mkdir pushed
git clone -q --bare --single-branch -b main work pushed/sink.git

# the config: "la" is a shorter prefix of the same urls, and leads nowhere
mkdir home
cat > home/.gitconfig <<CONF
[url "file://$tmp/nowhere/"]
	insteadOf = la
[url "file://$tmp/"]
	insteadOf = lab:
[url "file://$tmp/pushed/"]
	pushInsteadOf = lab:
CONF
# git reads it so too (the test's premise)
HOME="$tmp/home" git ls-remote lab:up.git > git-ls 2>&1 ||
	fail "git ls-remote lab:up.git failed: $(cat git-ls)"

mkdir run
{
	git_maildir_conf "$tmp/run" lab:up.git cover-letter=never
	conf_section 'sink "push"' type=git url=lab:sink.git base=main \
		'committer=Patch Relay <relay@example.org>'
	conf_section 'route "p"' from=repo to=push
} > run.conf
HOME="$tmp/home" "$PATCHRELAY" run -c run.conf --once > run/out 2> run/log ||
	fail "run with insteadOf failed: $(cat run/log)"
[ "$(ls run/maildir/new | wc -l)" = 2 ] || fail "run: not 2 mails: $(cat run/log)"
# pushInsteadOf: the branch is in pushed/sink.git, not in sink.git
branch=$(git --git-dir=pushed/sink.git for-each-ref --format='%(refname)' \
	refs/heads/patchrelay/)
[ -n "$branch" ] || fail "nothing pushed to pushed/sink.git: $(cat run/log)"
[ -z "$(git --git-dir=sink.git for-each-ref refs/heads/patchrelay/)" ] ||
	fail "pushed to the insteadOf url, not the pushInsteadOf one"
[ "$(git --git-dir=pushed/sink.git rev-list --count main.."$branch")" = 2 ] ||
	fail "the pushed branch is not the 2 patches"

# without the config the same url is not found
mkdir bare bare-home
git_maildir_conf "$tmp/bare" lab:up.git cover-letter=never > bare.conf
rc=0
HOME="$tmp/bare-home" "$PATCHRELAY" run -c bare.conf --once > bare/out \
	2> bare/log || rc=$?
[ "$rc" -ne 0 ] || fail "lab:up.git worked without insteadOf: $(cat bare/log)"
grep -qF "source 'repo': fetch refs from 'lab:up.git'" bare/log ||
	fail "without insteadOf: unclear error: $(cat bare/log)"

# an ssh url made by insteadOf: known_hosts is read for the rewritten
# host and port (an unknown port would be refused), the key is offered
start_sshd "$tmp/up.git"
cat >> home/.gitconfig <<CONF
[url "ssh://$(id -un)@127.0.0.1:$sshd_port$tmp/"]
	insteadOf = sshlab:
CONF
mkdir ssh
git_maildir_conf "$tmp/ssh" sshlab:up.git cover-letter=never \
	"known-hosts=$sshd_known_hosts" "ssh-key=$sshd_key" > ssh.conf
HOME="$tmp/home" "$PATCHRELAY" run -c ssh.conf --once > ssh/out 2> ssh/log ||
	fail "ssh through insteadOf failed: $(cat ssh/log)"
[ "$(ls ssh/maildir/new | wc -l)" = 2 ] || fail "ssh: not 2 mails: $(cat ssh/log)"
for f in run/maildir/new/*; do
	grep -v '^Date: ' "$f" > want
	grep -v '^Date: ' "ssh/maildir/new/${f##*/}" > got
	diff -u want got || fail "ssh: ${f##*/} differs"
done

# libgit2's ssh leak: in the fetch's child, not in the relay (gitnet.h)
case "${PR_SANITIZE:-none}" in
none | '') command -v valgrind > /dev/null || fail "no valgrind (.ci/packages)" ;;
*) echo "git_insteadof.sh: ok (the valgrind part skipped: sanitized build)"
	exit 0 ;;
esac
mkdir vg
HOME="$tmp/home" valgrind --trace-children=yes --leak-check=full \
	--log-file="$tmp/vg/%p" "$PATCHRELAY" poll -c ssh.conf repo --json \
	> vg.json 2> vg.err || fail "poll under valgrind failed: $(cat vg.err)"
grep -q '"kind"' vg.json || fail "poll under valgrind found nothing"
# the relay: the log whose process made another one (the child)
relay= child=
for f in vg/*; do
	pp=$(sed -n 's/^==[0-9]*== Parent PID: //p' "$f")
	[ -f "vg/$pp" ] && relay=vg/$pp child=$f
done
[ -n "$relay" ] || fail "no transfer child under valgrind: $(ls vg)"
grep -q 'All heap blocks were freed' "$relay" ||
	fail "the relay's process lost memory: $(cat "$relay")"
grep -q 'git_remote_connect' "$child" ||
	fail "libgit2 no longer loses memory in the child? $(cat "$child")"
echo "git_insteadof.sh: ok"
