#!/bin/sh
# kill -9 of `patchrelay run --once` at random points while the git sink
# pushes each new version of a branch to a real git server (git's
# http-backend behind tests/servers/git_http.py), 20 rounds of a new
# commit, a kill, then a pass to its end.  Counted at the server (a
# post-receive hook): every version's branch is there with the version's
# tree, updated exactly once; a kill after the server took a push makes
# no second push, since the sink sees the branch there; no scratch
# repository of a killed pass is left.  Prints the counts.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"
# the sink's scratch repositories in $tmp, to see that none is left
TMPDIR=$tmp
export TMPDIR

git_identity 'Ada Demo <ada@example.org>' '@1796299200 +0000'
git_repo work
mkdir srv
git init -q --bare srv/pushed.git
git -C work push -q "$tmp/srv/pushed.git" main
cat >srv/pushed.git/hooks/post-receive <<EOF
#!/bin/sh
cat >>"$tmp/pushes.log"
EOF
chmod +x srv/pushed.git/hooks/post-receive
: >pushes.log
start_git_http "$tmp/srv" bob 's3cret-pw'
printf 's3cret-pw\n' >pw
{
	conf_section core "state=$tmp/state.db"
	conf_section 'source "repo"' type=git "url=$tmp/work" branch=topic \
		base=main
	conf_section 'sink "up"' type=git "url=$git_http_url/pushed.git" \
		base=main user=bob "password=file:$tmp/pw"
	conf_section 'route "r"' from=repo to=up
} >relay.conf

next() {
	echo "line $1" >>work/file
	git -C work commit -q -a -m "file: add line $1" || fail "commit $1"
}
check() {
	local v=$(($1 + 1)) ref got
	ref=refs/heads/patchrelay/topic/v$v
	got=$(git -C srv/pushed.git rev-parse -q --verify "$ref^{tree}") ||
		fail "round $1: no $ref at the server"
	[ "$got" = "$(git -C work rev-parse 'topic^{tree}')" ] ||
		fail "round $1: $ref holds another tree"
	[ "$(wc -l <pushes.log)" -eq "$v" ] &&
		[ -z "$(cut -d' ' -f3 pushes.log | sort | uniq -d)" ] ||
		fail "round $1: the pushes: $(cat pushes.log)"
}
crash_rounds 20 relay.conf next check

echo "crash_git.sh: $kills kills during a pass, $cut of them while the sink" \
	"was at work; at the server $(wc -l <pushes.log) branch updates for" \
	"21 versions, $(cut -d' ' -f3 pushes.log | sort -u | wc -l) branches," \
	"0 pushed twice"
[ -z "$(ls -d patchrelay-git-* 2>/dev/null)" ] ||
	fail "scratch repositories left: $(ls -d patchrelay-git-*)"
"$PATCHRELAY" status --state state.db >st
[ "$(grep -c ' 1/1 ' st)" -eq 21 ] || fail "status: $(cat st)"
echo "crash_git.sh: ok"
