#!/bin/sh
# The git connector's fault matrix over ssh: OpenSSH's sshd behind
# tests/servers/fault_proxy.py --tcp.  The source: each case pushes one
# more commit to the served branch (a new version); a pass under the fault
# fails with a clear error naming the instance and the URL, and the same
# pass against the healthy server then relays exactly the new version.
# The sink: a pass under the fault pushes nothing, the healthy pass pushes
# the version once (a post-receive hook counts at the server).  Cases:
# connection refused, a server that never answers (the timeout: libssh2
# alone waits for ever), the connection cut in the key exchange and in
# the pack, an answer that is not ssh, a host key that is not known
# (refused with the reason: ssh's certificate), a user key the server
# refuses; then the daemon backing off until the fault clears.  ssh has
# no 5xx, 429 or Retry-After.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
# a sanitized build: libgit2 1.5.1's own ssh leaks are suppressed (see
# tests/lsan.supp); the full unwind lets the suppression see its frame
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$PR_SRC/tests/lsan.supp"

git_identity 'Ada Demo <ada@example.org>' '@1796299200 +0000'
git_repo work
git clone -q --bare work repo.git
git init -q --bare pushed.git
git -C work push -q "$tmp/pushed.git" main
cat >pushed.git/hooks/post-receive <<EOF
#!/bin/sh
cat >>"$tmp/pushes.log"
EOF
chmod +x pushed.git/hooks/post-receive
: >pushes.log
start_sshd "$tmp/repo.git"
start_fault_proxy "ssh://127.0.0.1:$sshd_port" --tcp
# the host key, known at the proxy's port too
echo "[127.0.0.1]:$proxy_port $(cut -d' ' -f2,3 "$sshd_known_hosts")" \
	>known_hosts
: >empty_hosts
ssh-keygen -q -t ed25519 -N '' -C other -f otherkey
me_at=$(id -un)@127.0.0.1
ssh_opts="known-hosts=$tmp/known_hosts ssh-key=$sshd_key timeout=2s"

# ---- the source ----
mkdir src
src_conf() { # src_conf PORT [KEY=VALUE...]: the source's config, on stdout
	local port=$1
	shift
	git_maildir_conf "$tmp/src" "ssh://$me_at:$port$tmp/repo.git" \
		cover-letter=never $ssh_opts "$@"
}
src_conf "$proxy_port" >src.conf
v=0
new_version() {
	v=$((v + 1))
	git -C work checkout -q topic &&
		echo "line $v" >>work/file &&
		git -C work commit -q -a -m "file: add line $v" &&
		git -C work push -q "$tmp/repo.git" topic ||
		fail "new version $v"
}
relayed() {
	local n
	n=$(ls src/maildir/new | grep -c -- "-v$v\.") || :
	[ "$n" -eq "$v" ] || fail "$1: $n mails of v$v, not $v"
	[ "$(mail_count src/maildir)" -eq $((v * (v + 1) / 2)) ] ||
		fail "$1: $(mail_count src/maildir) mails in all"
	echo "fault_git_ssh.sh: source, $1: the error said, then v$v relayed"
}
who="\\[git:repo\\] source 'repo': fetch refs from 'ssh://$me_at:[0-9]+$tmp/repo.git'"
# src_case NAME FAULT WANT [CONF]: under FAULT the source fails saying WANT
src_case() {
	new_version
	fault "$2"
	fault_run "$1" "${4:-src.conf}" "$who: $3"
	fault
	healthy_run "$1" src.conf
	relayed "$1"
}

new_version
fault_run refused "$(src_conf "$(free_port)" >refused.conf && echo refused.conf)" \
	"$who: .*onnection refused"
healthy_run refused src.conf
relayed refused
src_case hang 'hang *' \
	'nothing came or went for 2 s: the server does not answer'
src_case kex 'drop,after=100 *' 'failed to start SSH session'
src_case pack 'drop,after=3300 *' 'SSH could not read data'
src_case garbage 'garbage *' \
	'failed to start SSH session: Failed getting banner'
src_conf "$proxy_port" | sed "s|$tmp/known_hosts|$tmp/empty_hosts|" >unknown.conf
src_case unknown '' \
	"host key of '127.0.0.1' port [0-9]+ is not in '$tmp/empty_hosts'" \
	unknown.conf
src_conf "$proxy_port" | sed "s|$sshd_key\$|$tmp/otherkey|" >badkey.conf
src_case badkey '' 'the server refused the credentials offered' badkey.conf

# ---- the sink ----
mkdir snk
git -C work branch topic2 main
snk_conf() { # snk_conf PORT: the sink's config, on stdout
	conf_section core "state=$tmp/snk/state.db"
	conf_section 'source "repo"' type=git "url=$tmp/work" branch=topic2 \
		base=main
	conf_section 'sink "up"' type=git \
		"url=ssh://$me_at:$1$tmp/pushed.git" base=main $ssh_opts
	conf_section 'route "r"' from=repo to=up
}
snk_conf "$proxy_port" >snk.conf
w=0
new_patch() {
	w=$((w + 1))
	git -C work checkout -q topic2 && echo "two $w" >>work/two
	git -C work add two && git -C work commit -q -m "two: line $w" ||
		fail "new patch $w"
}
pushed() {
	local ref=refs/heads/patchrelay/topic2/v$w got
	got=$(git -C pushed.git rev-parse -q --verify "$ref^{tree}") ||
		fail "$1: no $ref at the server"
	[ "$got" = "$(git -C work rev-parse 'topic2^{tree}')" ] ||
		fail "$1: $ref holds another tree"
	[ "$(grep -c ' refs/heads/patchrelay/' pushes.log)" -eq "$w" ] &&
		[ -z "$(cut -d' ' -f3 pushes.log | sort | uniq -d)" ] ||
		fail "$1: the pushes: $(cat pushes.log)"
	echo "fault_git_ssh.sh: sink, $1: the error said, then v$w pushed once"
}
whs="\\[git:repo\\] source 'repo': sink 'up': "
snk_case() {
	new_patch
	fault "$2"
	fault_run "$1" snk.conf "$whs$3"
	fault
	healthy_run "$1" snk.conf
	pushed "$1"
}
snk_case sink-hang 'hang *' \
	"fetch from 'ssh://$me_at:[0-9]+$tmp/pushed.git': nothing came or went for 2 s"
snk_case sink-drop 'drop,after=3000 *' 'ssh://.*: SSH could not'
snk_case sink-garbage 'garbage *' 'ssh://.*: .*Failed getting banner'

# the daemon (interval 1 s): two passes meet a closed connection; it
# backs off (2 s, then 4 s) and relays once the server answers
new_version
fault 'close,count=2 *'
all_there() { [ "$(mail_count src/maildir)" -ge $((v * (v + 1) / 2)) ]; }
daemon_recovers src.conf all_there ''
relayed "daemon (after $took s)"
echo "fault_git_ssh.sh: ok"
