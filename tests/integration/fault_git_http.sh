#!/bin/sh
# The git connector's fault matrix over HTTP: git's own http-backend
# (tests/servers/git_http.py, basic auth) behind
# tests/servers/fault_proxy.py.  The source: each case pushes one more
# commit to the served branch (a new version); a pass under the fault
# fails with a clear error naming the instance and the URL, and the same
# pass against the healthy server then relays exactly the new version.
# The sink: each case commits one more patch; a pass under the fault
# fails and says why, the healthy pass pushes the version, and the server
# (a post-receive hook) has each version's branch updated once: a push
# whose answer was lost after the server took it is not made again.  Cases: connection
# refused, a server that never answers (the timeout: libgit2 alone has
# none), an answer cut in the middle, a certificate nobody signed
# (refused with the reason), 500, 503, 429 with Retry-After, 403, a
# truncated pack and garbage.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

git_identity 'Ada Demo <ada@example.org>' '@1796299200 +0000'
git_repo work
mkdir srv
git clone -q --bare work srv/repo.git
git init -q --bare srv/pushed.git
git -C work push -q "$tmp/srv/pushed.git" main
cat >srv/pushed.git/hooks/post-receive <<EOF
#!/bin/sh
cat >>"$tmp/pushes.log"
EOF
chmod +x srv/pushed.git/hooks/post-receive
: >pushes.log
start_git_http "$tmp/srv" bob 's3cret-pw'
start_fault_proxy "$git_http_url"
printf 's3cret-pw\n' >pw
auth="user=bob password=file:$tmp/pw timeout=2s"

# ---- the source ----
mkdir src
src_conf() { # src_conf URL [KEY=VALUE...]: the source's config, on stdout
	local url=$1
	shift
	git_maildir_conf "$tmp/src" "$url/repo.git" cover-letter=never $auth \
		"$@"
}
src_conf "$proxy_url" >src.conf
v=0
# new_version: one more commit on the served branch topic
new_version() {
	v=$((v + 1))
	echo "line $v" >>work/file
	git -C work commit -q -a -m "file: add line $v" &&
		git -C work push -q "$tmp/srv/repo.git" topic ||
		fail "new version $v"
}
# relayed NAME: the healthy pass relayed version $v whole, nothing twice
relayed() {
	local n
	n=$(ls src/maildir/new | grep -c -- "-v$v\.") || :
	[ "$n" -eq "$v" ] || fail "$1: $n mails of v$v, not $v"
	[ "$(mail_count src/maildir)" -eq $((v * (v + 1) / 2)) ] ||
		fail "$1: $(mail_count src/maildir) mails in all"
	echo "fault_git_http.sh: source, $1: the error said, then v$v relayed"
}
who="\\[git:repo\\] source 'repo': fetch refs from 'http://127.0.0.1:[0-9]+/repo.git'"
# src_case NAME FAULT WANT: the source under FAULT fails saying WANT
src_case() {
	new_version
	fault "$2"
	fault_run "$1" src.conf "$who: $3"
	! grep -q s3cret "$tmp/$1.log" || fail "$1: the password is in the log"
	fault
	healthy_run "$1" src.conf
	relayed "$1"
}

new_version
src_conf "http://127.0.0.1:$(free_port)" >refused.conf
fault_run refused refused.conf "$who: .*onnection refused"
healthy_run refused src.conf
relayed refused
src_case hang 'hang /' \
	'nothing came or went for 2 s: the server does not answer'
src_case drop 'drop git-upload-pack' \
	'http parser error: stream ended at an unexpected time'
src_case s500 '500 info/refs' 'unexpected http status code: 500'
src_case s503 '503,retry-after=7 info/refs' 'unexpected http status code: 503'
src_case s429 '429,retry-after=7 /' 'unexpected http status code: 429'
src_case s403 '403 /' 'unexpected http status code: 403'
src_case truncate 'truncate POST' 'early EOF'
src_case garbage 'garbage info/refs' "invalid content-type: 'application/json'"

new_version
tls_cert server
stop "$proxy_pid"
start_fault_proxy "$git_http_url" --tls-cert "$tmp/server.crt" \
	--tls-key "$tmp/server.key"
src_conf "$proxy_url" >tls.conf
fault_run tls tls.conf \
	"\\[git:repo\\] source 'repo': fetch refs from 'https://127.0.0.1:$proxy_port/repo.git': the server's certificate is not trusted: none of the system's CAs signed it, or it does not name the host; set ca-file to the CA that did"
src_conf "$proxy_url" "ca-file=$tmp/server.crt" >tls-ok.conf
healthy_run tls tls-ok.conf
relayed tls
stop "$proxy_pid"
start_fault_proxy "$git_http_url"
src_conf "$proxy_url" >src.conf

# ---- the sink ----
mkdir snk
git -C work checkout -q -b topic2 main
snk_conf() { # snk_conf URL: the sink's config, on stdout
	conf_section core "state=$tmp/snk/state.db"
	conf_section 'source "repo"' type=git "url=$tmp/work" branch=topic2 \
		base=main
	conf_section 'sink "up"' type=git "url=$1/pushed.git" base=main \
		user=bob "password=file:$tmp/pw" timeout=2s
	conf_section 'route "r"' from=repo to=up
}
snk_conf "$proxy_url" >snk.conf
w=0
# new_patch: one more commit on topic2 (its next version)
new_patch() {
	w=$((w + 1))
	echo "two $w" >>work/two
	git -C work add two && git -C work commit -q -m "two: line $w" ||
		fail "new patch $w"
}
# pushed NAME: the server took v$w once, and every version so far once
pushed() {
	local ref=refs/heads/patchrelay/topic2/v$w got
	got=$(git -C srv/pushed.git rev-parse -q --verify "$ref^{tree}") ||
		fail "$1: no $ref at the server"
	[ "$got" = "$(git -C work rev-parse 'topic2^{tree}')" ] ||
		fail "$1: $ref holds another tree"
	[ "$(grep -c ' refs/heads/patchrelay/' pushes.log)" -eq "$w" ] &&
		[ -z "$(cut -d' ' -f3 pushes.log | sort | uniq -d)" ] ||
		fail "$1: the pushes: $(cat pushes.log)"
	echo "fault_git_http.sh: sink, $1: the error said, then v$w pushed once"
}
whs="sink 'up': "
# snk_case NAME FAULT WANT: the sink under FAULT pushes nothing, says WANT
snk_case() {
	new_patch
	fault "$2"
	fault_run "$1" snk.conf "$whs$3"
	fault
	healthy_run "$1" snk.conf
	pushed "$1"
}

new_patch
snk_conf "http://127.0.0.1:$(free_port)" >refused.conf
fault_run sink-refused refused.conf "${whs}http://127.0.0.1:[0-9]+/pushed.git: .*onnection refused"
healthy_run sink-refused snk.conf
pushed refused
snk_case sink-hang 'hang git-receive-pack' \
	"push to 'http://127.0.0.1:[0-9]+/pushed.git': nothing came or went for 2 s"
snk_case sink-drop 'drop POST /pushed.git/git-receive-pack' "push to 'http://127.0.0.1:[0-9]+/pushed.git': "
snk_case sink-500 '500 POST /pushed.git/git-receive-pack' "push to .*: unexpected http status code: 500"
snk_case sink-fetch-503 '503 upload-pack' "http://127.0.0.1:[0-9]+/pushed.git: unexpected http status code: 503"
new_patch
stop "$proxy_pid"
start_fault_proxy "$git_http_url" --tls-cert "$tmp/server.crt" \
	--tls-key "$tmp/server.key"
snk_conf "$proxy_url" >snk-tls.conf
fault_run sink-tls snk-tls.conf "${whs}https://127.0.0.1:$proxy_port/pushed.git: the server's certificate is not trusted: none of the system's CAs signed it"
snk_conf "$proxy_url" | sed "s|^\(\ttimeout = 2s\)\$|\1\n\tca-file = $tmp/server.crt|" >snk-tls-ok.conf
healthy_run sink-tls snk-tls-ok.conf
pushed tls
echo "fault_git_http.sh: ok"
