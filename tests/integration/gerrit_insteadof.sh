#!/bin/sh
# url.<base>.insteadOf and pushInsteadOf from the user's git config (a real
# ~/.gitconfig in a temp HOME) applied to the gerrit sink's git URL
# (ssh-url/PROJECT) as git applies them (git_insteadof.sh does the same for
# the git sink): the longest matching prefix wins; the sink reads its
# target branch from the insteadOf URL and pushes to the pushInsteadOf
# one, an ssh URL whose host key is checked for the rewritten host and
# port.  Here ssh-url names a host that does not exist, the insteadOf
# rewrite leads to the emulator's project "kernel" and pushInsteadOf to
# its project "elsewhere": the changes land in "elsewhere".  Without the
# config the same sink fails, naming itself and the URL.  libgit2 1.5's
# loss per ssh connection stays in the transfers' child processes: under
# valgrind the relay's own process loses nothing after a push.
set -u
NAME=gerrit_insteadof.sh
SMTP=0
. "$PR_SRC/tests/integration/gerrit_lib.sh"
export GIT_CONFIG_NOSYSTEM=1

ctl create-project name=elsewhere from="$tmp/tree" >/dev/null
far=ssh://relay@gerrit.invalid:29418
near=ssh://relay@127.0.0.1:$GERRIT_SSH_PORT
# "ssh://relay@gerrit.invalid" is a shorter prefix of the same URL, and
# leads nowhere
mkdir home bare-home
cat >home/.gitconfig <<CONF
[url "ssh://relay@127.0.0.1:1/"]
	insteadOf = ssh://relay@gerrit.invalid
[url "$near/"]
	insteadOf = $far/
[url "$near/elsewhere"]
	pushInsteadOf = $far/kernel
CONF
# git reads it so too (the test's premise)
git init -q premise && git -C premise remote add g "$far/kernel" ||
	fail "premise repository"
[ "$(HOME="$tmp/home" git -C premise remote get-url g)" = "$near/kernel" ] &&
	[ "$(HOME="$tmp/home" git -C premise remote get-url --push g)" = "$near/elsewhere" ] ||
	fail "git rewrites $far/kernel otherwise"
HOME="$tmp/home" GIT_SSH_COMMAND="$GERRIT_GIT_SSH_relay" \
	git ls-remote "$far/kernel" >git-ls 2>&1 ||
	fail "git ls-remote $far/kernel failed: $(cat git-ls)"

git clone -q tree mail || fail "clone"
mkdir ml
# series NAME: one patch as a mail in ml/
series() {
	git -C mail checkout -q -b "$1" master || fail "$1: branch"
	echo "int $1;" >>mail/net/core/dev.c
	git -C mail commit -q -s -a -m "dev: $1" -m "Because of $1." ||
		fail "$1: commit"
	git -C mail format-patch -q -1 --stdout >"ml/$1.mbox" ||
		fail "$1: format-patch"
}
# the sink: source_keys' account and project, ssh-url the far one
{
	cat <<CONF
[core]
	state = $tmp/state.db
[source "ml"]
	type = mbox
	path = $tmp/ml
[sink "gs"]
CONF
	source_keys | sed "s|ssh-url = .*|ssh-url = $far|"
	cat <<CONF
	branch = master
	timeout = 10s
[route "out"]
	from = ml
	to = gs
CONF
} >relay.conf
export GR_PW="$GERRIT_HTTP_PASSWORD_relay"
# subjects PROJECT: the subjects of the project's changes
subjects() {
	rest "/changes/?q=project:$1" | $PY -c 'import json, sys
for c in json.load(sys.stdin):
    print(c["subject"])' | sort
}

# without the config: the host does not exist, the sink says so
series plain
HOME="$tmp/bare-home" "$PATCHRELAY" run -c relay.conf --once >bare.log 2>&1 &&
	fail "pushed without insteadOf: $(cat bare.log)"
grep -Eq "sink 'gs': fetch [^ ]* from '$far/kernel'" bare.log ||
	fail "without insteadOf: unclear error: $(cat bare.log)"
[ -z "$(subjects kernel)$(subjects elsewhere)" ] ||
	fail "without insteadOf: something was pushed"

# with it: fetched from kernel (insteadOf), pushed to elsewhere
HOME="$tmp/home" "$PATCHRELAY" run -c relay.conf --once >run.log 2>&1 ||
	fail "run with insteadOf failed: $(cat run.log)"
[ "$(subjects elsewhere)" = "dev: plain" ] ||
	fail "not pushed to the pushInsteadOf URL: $(subjects elsewhere) $(cat run.log)"
[ -z "$(subjects kernel)" ] || fail "pushed to the insteadOf URL"

# libgit2's ssh leak: in the transfers' children, not in the relay
case "${PR_SANITIZE:-none}" in
none | '') command -v valgrind >/dev/null || fail "no valgrind (.ci/packages)" ;;
*)
	echo "$NAME: ok (the valgrind part skipped: sanitized build)"
	exit 0
	;;
esac
series vg
mkdir vg
HOME="$tmp/home" valgrind --trace-children=yes --leak-check=full \
	--log-file="$tmp/vg/%p" "$PATCHRELAY" run -c relay.conf --once \
	>vg.log 2>&1 || fail "run under valgrind failed: $(cat vg.log)"
[ "$(subjects elsewhere | grep -c '^dev: vg$')" -eq 1 ] ||
	fail "not pushed under valgrind: $(subjects elsewhere) $(cat vg.log)"
# the relay: the log whose process made the others (the fetch, the push)
relay=
for f in vg/*; do
	pp=$(sed -n 's/^==[0-9]*== Parent PID: //p' "$f")
	[ -f "vg/$pp" ] && relay=vg/$pp
done
[ -n "$relay" ] || fail "no transfer child under valgrind: $(ls vg)"
[ "$(grep -l "Parent PID: ${relay#vg/}\$" vg/* | wc -l)" -ge 2 ] ||
	fail "not two transfer children (fetch and push): $(ls vg)"
grep -Eq 'definitely lost: [1-9]|indirectly lost: [1-9]' "$relay" &&
	fail "the relay's process lost memory: $(cat "$relay")"
grep -Eq 'All heap blocks were freed|definitely lost: 0 bytes' "$relay" ||
	fail "no leak summary for the relay: $(cat "$relay")"
grep -l 'git_remote_connect' vg/* >/dev/null ||
	fail "libgit2 no longer loses memory in the children?"
echo "$NAME: ok"
