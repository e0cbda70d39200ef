# The setup the integration tests share, sourced first by each of them:
#
#	. "$(dirname "$0")/lib.sh"
#
# Plain functions in POSIX sh (meson runs the tests with sh, which is dash
# on Debian), each under a one-line comment.  Their own variables are
# `local` or start with pr_, so that a test's names stay its own.
#
# meson passes PATCHRELAY (the front binary), PR_SRC and PR_BUILD.  By hand
# from the worktree, `sh tests/integration/run.sh` finds them itself, the
# build directory being build/ unless PR_BUILD says otherwise.  PR_CACHE
# (default PR_BUILD) holds what is costly to make again, such as the
# extracted kernel tree; tests/run shares one between its two builds.
# KEEP=1 keeps the test's temporary directory and names it.

PR_SRC=${PR_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
PR_BUILD=${PR_BUILD:-$PR_SRC/build}
PATCHRELAY=${PATCHRELAY:-$PR_BUILD/cli/patchrelay}
case $PATCHRELAY in
/*) ;;
*) PATCHRELAY=$PWD/$PATCHRELAY ;;
esac
export PR_SRC PR_BUILD PATCHRELAY
# Debian's python, which has the python3-* packages the servers need
PY=/usr/bin/python3
servers=$PR_SRC/tests/servers
me=$(basename "$0")
pr_pids=
pr_at_exit=

# ---- failing and skipping ----------------------------------------------

# fail MESSAGE: the test failed; say why and stop
fail() {
	echo "$me: FAIL: $*" >&2
	exit 1
}

# skip MESSAGE: the test cannot run here; say why and stop (meson's SKIP)
skip() {
	echo "$me: skipped: $*"
	exit 77
}

# have_aiosmtpd: whether tests/servers/smtpd.py can run (python3-aiosmtpd)
have_aiosmtpd() {
	$PY -c 'import aiosmtpd' 2>/dev/null
}

# ---- the temporary directory, processes, cleanup -------------------------

# tmpdir: make $tmp, removed at exit (after the processes of spawn are
# stopped and the commands of at_exit run); an interrupt exits too
tmpdir() {
	tmp=$(mktemp -d) || exit 1
	trap pr_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# at_exit COMMAND: run the shell command COMMAND at exit, before $tmp goes
at_exit() {
	pr_at_exit="$pr_at_exit
$1"
}

# pr_cleanup: the EXIT trap of tmpdir
pr_cleanup() {
	for pr_p in $pr_pids; do
		kill "$pr_p" 2>/dev/null || :
	done
	eval "$pr_at_exit" || :
	if [ -n "${KEEP:-}" ]; then
		echo "$me: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}

# spawn VAR COMMAND...: run COMMAND in the background, its pid in VAR; it
# is killed at exit unless stop waited for it
spawn() {
	local var=$1
	shift
	"$@" &
	eval "$var=\$!"
	pr_pids="$pr_pids $!"
}

# stop PID [SIGNAL]: send SIGNAL (TERM; 0 sends none) to a process of spawn
# and wait for it to end; its exit status is in $stopped
stop() {
	local p
	kill -"${2:-TERM}" "$1" 2>/dev/null || :
	stopped=0
	wait "$1" 2>/dev/null || stopped=$?
	pr_pids=$(for p in $pr_pids; do [ "$p" = "$1" ] || printf ' %s' "$p"; done)
}

# wait_for SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds;
# false after SECONDS (the caller fails, saying what did not come)
wait_for() {
	# not `local n`: dash's locals are seen by the COMMAND it calls
	local pr_n=$(($1 * 10))
	shift
	until "$@"; do
		pr_n=$((pr_n - 1))
		[ "$pr_n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# ---- git -----------------------------------------------------------------

# git_identity 'NAME <EMAIL>' [DATE ['COMMITTER <EMAIL>']]: who makes the
# next commits (the author, and the committer unless one is given), and
# when, as GIT_* variables
git_identity() {
	local c=${3:-$1}
	GIT_AUTHOR_NAME=${1% <*}
	GIT_AUTHOR_EMAIL=${1##*<}
	GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
	GIT_COMMITTER_NAME=${c% <*}
	GIT_COMMITTER_EMAIL=${c##*<}
	GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL%>}
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME \
		GIT_COMMITTER_EMAIL
	if [ -n "${2:-}" ]; then
		GIT_AUTHOR_DATE=$2
		GIT_COMMITTER_DATE=$2
		export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
	fi
}

# git_alone: git (and what it runs) reads no system or user config, HOME
# being $tmp
git_alone() {
	GIT_CONFIG_NOSYSTEM=1
	HOME=$tmp
	export GIT_CONFIG_NOSYSTEM HOME
}

# git_base DIR: DIR and what it holds become a repository whose branch
# main has it all in one commit, "base"
git_base() {
	git init -q -b main "$1" && git -C "$1" add -A &&
		git -C "$1" commit -q -m base || fail "git_base $1"
}

# git_repo DIR: a repository whose main holds "file" (one line, "base"),
# with a branch topic checked out on it
git_repo() {
	mkdir -p "$1" && echo base >"$1/file" && git_base "$1" &&
		git -C "$1" checkout -q -b topic || fail "git_repo $1"
}

# git_commits DIR N: N commits on the branch checked out in DIR, the Ith
# adding the line "line I" to DIR/file, "file: add line I"
git_commits() {
	local i=1
	while [ "$i" -le "$2" ]; do
		echo "line $i" >>"$1/file"
		git -C "$1" commit -q -a -m "file: add line $i" ||
			fail "git_commits $1: commit $i"
		i=$((i + 1))
	done
}

# series_mails DIR NAME K: a branch NAME (from main) of K commits in the
# git_repo DIR, the Ith adding the line "NAME I" to DIR/NAME.c, "NAME:
# change I of NAME"; its patches as git format-patch --thread writes them, without
# their mbox From line, in $tmp/NAME/ (no cover letter: a cover's
# Message-ID holds only the time, the same for two series of one second)
series_mails() {
	local i=1
	git -C "$1" checkout -q -b "$2" main || fail "series_mails: branch $2"
	while [ "$i" -le "$3" ]; do
		echo "$2 $i" >>"$1/$2.c"
		git -C "$1" add "$2.c" &&
			git -C "$1" commit -q -m "$2: change $i of $2" ||
			fail "series_mails $2: commit $i"
		i=$((i + 1))
	done
	git -C "$1" format-patch -q --thread -o "$tmp/$2.mbox" main.."$2" ||
		fail "series_mails $2: format-patch"
	mkdir -p "$tmp/$2"
	for i in "$tmp/$2.mbox"/*; do
		sed 1d "$i" >"$tmp/$2/${i##*/}"
	done
	rm -r "$tmp/$2.mbox"
}

# route_tree DIR: the small kernel-like tree of tests/data/route/tree (its
# own MAINTAINERS) copied into DIR, with what DIR held, as git_base makes it
route_tree() {
	mkdir -p "$1" && cp -r "$PR_SRC/tests/data/route/tree/." "$1/" ||
		fail "route_tree $1"
	git_base "$1"
}

# route_topic DIR: a branch topic in a route_tree, checked out, of three
# signed-off commits: to drivers/net/foo, net/core and fs/ext4
route_topic() {
	git -C "$1" checkout -q -b topic &&
		echo 'int foo2;' >>"$1/drivers/net/foo/foo.c" &&
		git -C "$1" commit -q -s -a -m 'foo: add foo2' -m 'The second foo.' &&
		echo 'int dev2;' >>"$1/net/core/dev.c" &&
		git -C "$1" commit -q -s -a -m 'net: add dev2' -m 'The second dev.' &&
		echo 'int inode2;' >>"$1/fs/ext4/inode.c" &&
		git -C "$1" commit -q -s -a -m 'ext4: add inode2' \
			-m 'The second inode.' || fail "route_topic $1"
}

# ---- configs and mails ---------------------------------------------------

# conf_section HEADER [KEY=VALUE...]: a section of a patchrelay config on
# stdout, e.g. conf_section 'sink "inbox"' type=maildir path=/x
conf_section() {
	local kv
	printf '[%s]\n' "$1"
	shift
	for kv in "$@"; do
		printf '\t%s = %s\n' "${kv%%=*}" "${kv#*=}"
	done
}

# git_source_conf STATE URL [KEY=VALUE...]: on stdout, the start of a
# config: its state file STATE, and source "repo", branch topic (on main)
# of the git repository URL, with the KEY=VALUE lines besides
git_source_conf() {
	local state=$1 url=$2
	shift 2
	conf_section core "state=$state"
	conf_section 'source "repo"' type=git "url=$url" branch=topic \
		base=main "$@"
}

# git_maildir_conf DIR URL [KEY=VALUE...]: on stdout, a config whose route
# "r" takes what git_source_conf reads of URL (with the KEY=VALUE lines)
# into the maildir DIR/maildir, sink "inbox"; its state is DIR/state.db
git_maildir_conf() {
	local dir=$1
	shift
	git_source_conf "$dir/state.db" "$@"
	conf_section 'sink "inbox"' type=maildir "path=$dir/maildir"
	conf_section 'route "r"' from=repo to=inbox
}

# body MAIL: the body of a mail, everything after its header block
body() {
	sed '1,/^$/d' "$1"
}

# message_id MAIL: the Message-ID of a mail, without its <>
message_id() {
	sed -n 's/^Message-Id: <\(.*\)>$/\1/Ip' "$1" | head -n 1
}

# bodies_match REFDIR PREFIX: each mail git format-patch wrote into REFDIR
# (its *.patch, in order) has the body of the mail PREFIX<N> (a glob),
# N = 0, 1, ... as the mails of a version are named; says which differs
bodies_match() {
	local i=0 ref got
	for ref in "$1"/*.patch; do
		got=$(echo $2$i)
		body "$ref" >"$tmp/want.body"
		body "$got" >"$tmp/got.body"
		if ! cmp "$tmp/want.body" "$tmp/got.body"; then
			echo "$me: mail $i ($got): body differs from $ref" >&2
			return 1
		fi
		i=$((i + 1))
	done
}

# ---- servers on loopback -------------------------------------------------

# start_smtpd BOX [ARGS...]: tests/servers/smtpd.py delivering into the
# maildir BOX (the envelopes in BOX.log, its stderr in BOX.err) with
# smtpd.py's ARGS; its pid in $smtpd_pid, its port in $smtpd_port
start_smtpd() {
	local box=$1
	shift
	rm -f "$box.port"
	spawn smtpd_pid $PY "$servers/smtpd.py" --maildir "$box" \
		--log "$box.log" --port-file "$box.port" "$@" 2>>"$box.err"
	wait_for 15 test -s "$box.port" ||
		fail "smtpd did not start: $(cat "$box.err")"
	smtpd_port=$(cat "$box.port")
}

# start_emulator NAME ROOT: tests/emulators/NAME.py (github, gitlab) with
# its state under ROOT; its pid in $emu_pid, its base URL in $emu_url
start_emulator() {
	rm -f "$tmp/$1.port"
	spawn emu_pid $PY "$PR_SRC/tests/emulators/$1.py" --root "$2" \
		--port-file "$tmp/$1.port" 2>>"$tmp/$1.err"
	wait_for 15 test -s "$tmp/$1.port" ||
		fail "the $1 emulator did not start: $(cat "$tmp/$1.err")"
	emu_url=http://127.0.0.1:$(cat "$tmp/$1.port")
}

# start_git_http ROOT USER PASSWORD: tests/servers/git_http.py serving the
# repositories under ROOT through git's http-backend, with basic auth for
# USER; its pid in $git_http_pid, its base URL in $git_http_url
start_git_http() {
	rm -f "$tmp/git_http.port"
	spawn git_http_pid $PY "$servers/git_http.py" --root "$1" \
		--port-file "$tmp/git_http.port" --user "$2" --password "$3" \
		2>>"$tmp/git_http.log"
	wait_for 10 test -s "$tmp/git_http.port" ||
		fail "git_http.py did not start: $(cat "$tmp/git_http.log")"
	git_http_url=http://127.0.0.1:$(cat "$tmp/git_http.port")
}

# start_sshd REPO: OpenSSH's sshd on 127.0.0.1 for git over ssh as the
# current user, with a throwaway host key and user key in $tmp/sshd; ready
# once git ls-remote of the repository REPO gets through.  $sshd_port,
# $sshd_key (the user's key), $sshd_known_hosts (the host key, as
# [127.0.0.1]:PORT); skips the test where sshd cannot run (not root and
# no /run/sshd)
start_sshd() {
	local d="$tmp/sshd" sshd=/usr/sbin/sshd
	[ -x "$sshd" ] || fail "no $sshd (Debian package openssh-server)"
	[ "$(id -u)" -eq 0 ] || [ -d /run/sshd ] ||
		skip "sshd needs /run/sshd (run as root)"
	mkdir -p /run/sshd "$d"
	ssh-keygen -q -t ed25519 -N '' -C host -f "$d/hostkey"
	ssh-keygen -q -t ed25519 -N '' -C user -f "$d/userkey"
	cp "$d/userkey.pub" "$d/authorized_keys"
	sshd_port=$(free_port)
	cat >"$d/sshd_config" <<CONF
Port $sshd_port
ListenAddress 127.0.0.1
HostKey $d/hostkey
AuthorizedKeysFile $d/authorized_keys
PidFile $d/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
CONF
	spawn sshd_pid "$sshd" -D -e -f "$d/sshd_config" 2>"$d/sshd.log"
	sshd_key=$d/userkey
	sshd_known_hosts=$d/known_hosts
	echo "[127.0.0.1]:$sshd_port $(cut -d' ' -f1,2 "$d/hostkey.pub")" \
		>"$sshd_known_hosts"
	wait_for 10 env GIT_SSH_COMMAND="ssh -i $sshd_key -o UserKnownHostsFile=$sshd_known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes" \
		git ls-remote "ssh://$(id -un)@127.0.0.1:$sshd_port$1" \
		>/dev/null 2>&1 || fail "sshd did not start: $(cat "$d/sshd.log")"
}

# start_dovecot USER PASSWORD: tests/servers/dovecot.sh in $tmp/dovecot,
# stopped at exit; $imap_port (plain, STARTTLS offered), $imap_tls_port
# (imaps), $imap_host (the address that wants STARTTLS before a login)
start_dovecot() {
	at_exit 'stop_dovecot 2>/dev/null'
	sh "$servers/dovecot.sh" start "$tmp/dovecot" "$1" "$2" ||
		fail "dovecot did not start"
	imap_auth="$1:$2"
	imap_port=$(cat "$tmp/dovecot/port")
	imap_tls_port=$(cat "$tmp/dovecot/tls-port")
	imap_host=$(cat "$tmp/dovecot/tls-host")
}

# stop_dovecot: stop the dovecot of start_dovecot
stop_dovecot() {
	sh "$servers/dovecot.sh" stop "$tmp/dovecot"
}

# icurl ARGS...: curl as the user of start_dovecot
icurl() {
	curl -sS --max-time 20 -u "$imap_auth" "$@"
}

# imap_fill URL MAILBOX FILE...: create MAILBOX on the IMAP server URL
# (imap://host:port/) and imap_append the mails to it
imap_fill() {
	icurl "$1" -X "CREATE $2" >/dev/null || fail "CREATE $2 failed"
	imap_append "$@"
}

# imap_append URL MAILBOX FILE...: APPEND each mail file to MAILBOX, in order
imap_append() {
	local url=$1 box=$2 f
	shift 2
	for f in "$@"; do
		sed 's/$/\r/' "$f" >"$tmp/crlf.eml"
		icurl -T "$tmp/crlf.eml" "$url$box" || fail "APPEND of $f failed"
	done
}

# start_public_inbox NAME FILE...: tests/servers/public_inbox.sh serving
# the inbox NAME (the mails FILE...) from $tmp/pi, stopped at exit
start_public_inbox() {
	at_exit "sh '$servers/public_inbox.sh' stop '$tmp/pi' 2>/dev/null"
	sh "$servers/public_inbox.sh" start "$tmp/pi" "$@" ||
		fail "public-inbox did not start"
}

# pi_add FILE...: import more mails into the inbox of start_public_inbox
pi_add() {
	sh "$servers/public_inbox.sh" add "$tmp/pi" "$@" ||
		fail "adding $* to public-inbox failed"
}

# pi_one_patch: the repository "repo" (Ada's, 1796299200), a one-patch
# series s0 made in it, and a public-inbox "test" serving that patch;
# public-inbox missing is a failure (CI installs it)
pi_one_patch() {
	command -v public-inbox-httpd >/dev/null ||
		fail "no public-inbox (.ci/packages)"
	git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
	git_repo repo
	series_mails repo s0 1
	start_public_inbox test "$tmp"/s0/*
}

# start_fault_proxy UPSTREAM [ARGS...]: tests/servers/fault_proxy.py in
# front of the URL UPSTREAM (with ARGS: --tcp, --tls-cert C --tls-key K),
# its faults read from $tmp/faults (see fault), the requests it saw logged
# in $tmp/proxy.log; its port in $proxy_port, its base URL in $proxy_url
# (http://, or https:// with a certificate).  A second proxy beside the
# first: set proxy_tag (say ".ssh") around this and fault; its files are
# $tmp/faults$proxy_tag, $tmp/proxy$proxy_tag.log
start_fault_proxy() {
	local up=$1 scheme=http t=${proxy_tag:-}
	shift
	: >"$tmp/faults$t"
	rm -f "$tmp/proxy$t.port"
	case " $* " in
	*" --tls-cert "*) scheme=https ;;
	esac
	spawn proxy_pid $PY "$servers/fault_proxy.py" --upstream "$up" \
		--port-file "$tmp/proxy$t.port" --fault-file "$tmp/faults$t" \
		"$@" 2>>"$tmp/proxy$t.log"
	wait_for 10 test -s "$tmp/proxy$t.port" ||
		fail "the fault proxy did not start: $(cat "$tmp/proxy$t.log")"
	proxy_port=$(cat "$tmp/proxy$t.port")
	proxy_url=$scheme://127.0.0.1:$proxy_port
}

# fault [LINE...]: the faults of the proxy of start_fault_proxy from now
# on, one "MODE[,OPTION...] SUBSTRING" a line (fault_proxy.py says which);
# none: no fault
fault() {
	local l
	for l in "$@"; do
		printf '%s\n' "$l"
	done >"$tmp/faults.new"
	mv "$tmp/faults.new" "$tmp/faults${proxy_tag:-}"
}

# tls_cert NAME: a self-signed certificate for 127.0.0.1 that nobody's CA
# signed, in $tmp/NAME.crt (key $tmp/NAME.key); the address is a DNS name
# too, for the mbed TLS of Debian's libgit2, which reads no IP name
tls_cert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1,DNS:127.0.0.1 -days 2 \
		-keyout "$tmp/$1.key" -out "$tmp/$1.crt" 2>/dev/null ||
		fail "openssl could not make a certificate"
}

# emu_ctl METHOD PATH [JSON]: a call to the control API of the emulator
# of start_emulator (or to its API), the answer's body on stdout
emu_ctl() {
	if [ $# -gt 2 ]; then
		curl -sf -X "$1" -H 'Content-Type: application/json' -d "$3" \
			"$emu_url$2"
	else
		curl -sf -X "$1" "$emu_url$2"
	fi || fail "emulator $1 $2 failed"
}

# pw_ctl PATH JSON: a POST to the control API (/_emu PATH) of the
# patchwork emulator of start_emulator
pw_ctl() {
	emu_ctl POST "/_emu$1" "$2" >/dev/null
}

# pw_netdev: the patchwork emulator (emu_url) with the project netdev
# (list netdev.example.org) kept by ci (token ci-token), and a git
# repository tree whose main holds base.c, committed by Ada Demo
pw_netdev() {
	start_emulator patchwork "$tmp/emu"
	pw_ctl /projects '{"link_name":"netdev","list_id":"netdev.example.org","maintainers":["ci"]}'
	pw_ctl /users '{"login":"ci","token":"ci-token","email":"ci@example.org"}'
	git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
	mkdir "$tmp/tree"
	echo base >"$tmp/tree/base.c"
	git_base "$tmp/tree"
}

# pw_feed FILE...: the mails of the mbox files, to the patchwork emulator
# as its list got them
pw_feed() {
	$PY -c 'import json, sys
print(json.dumps({"mbox": "".join(open(f).read() for f in sys.argv[1:])}))' \
		"$@" >"$tmp/feed.json"
	curl -sf -X POST -H 'Content-Type: application/json' \
		-d @"$tmp/feed.json" "$emu_url/_emu/mail" >/dev/null ||
		fail "feeding $* failed"
}

# landing_conf DIR SINK: config sections of a git source "tree" watching
# main of the repository DIR, and a route "landings" from it to SINK (so
# that a series found landed is told to SINK)
landing_conf() {
	conf_section 'source "tree"' type=git "url=$1" watch=main
	conf_section 'route "landings"' from=tree "to=$2"
}

# pw_series NAME VERSION FILES...: in $tmp/tree (pw_netdev's), branch
# NAME of one commit per file off main, mailed by format-patch (a cover
# letter "series NAME", threaded, vVERSION, List-Id netdev) into
# $tmp/NAME-VERSION/
pw_series() {
	local name=$1 v=$2 vv=
	shift 2
	git -C "$tmp/tree" checkout -q -B "$name" main
	for f in "$@"; do
		echo "$name $v $f" >"$tmp/tree/$f"
		git -C "$tmp/tree" add "$f"
		git -C "$tmp/tree" commit -q -m "$f: add it ($name)"
	done
	[ "$v" -gt 1 ] && vv=-v$v
	git -C "$tmp/tree" format-patch -q --cover-letter --thread $vv \
		-o "$tmp/$name-$v" --add-header 'List-Id: <netdev.example.org>' \
		main.."$name"
	sed -i "s/\*\*\* SUBJECT HERE \*\*\*/series $name/" \
		"$tmp/$name-$v"/*0000-*
	# a cover's Message-ID is made of the time and the sender alone
	sed -i "s/<cover\./<cover.$name-$v./g" "$tmp/$name-$v"/*.patch
	git -C "$tmp/tree" checkout -q main
}

# start_patchwork: the patchwork emulator (start_emulator), its project
# netdev (list netdev.example.org) kept by kuba, whose token good-token is
# exported as PW_TOKEN
start_patchwork() {
	start_emulator patchwork "$tmp/emu"
	pw_ctl /projects '{"link_name":"netdev","list_id":"netdev.example.org","maintainers":["kuba"]}'
	pw_ctl /users '{"login":"kuba","token":"good-token","email":"kuba@example.org"}'
	PW_TOKEN=good-token
	export PW_TOKEN
}

# pw_patch DIR NAME: a branch NAME (from main) of the repository DIR whose
# one commit adds NAME.c ("NAME: add it"), as git format-patch --thread
# writes it with the list's List-Id, in $tmp/NAME/, fed to the patchwork
# emulator; main stays checked out
pw_patch() {
	git -C "$1" checkout -q -B "$2" main &&
		echo "$2" >"$1/$2.c" && git -C "$1" add "$2.c" &&
		git -C "$1" commit -q -m "$2: add it" &&
		git -C "$1" format-patch -q --thread -1 -o "$tmp/$2" \
			--add-header 'List-Id: <netdev.example.org>' "$2" &&
		git -C "$1" checkout -q main || fail "pw_patch $2"
	pw_feed "$tmp/$2"/*.patch
}

# pw_writes METHOD: the path of each METHOD request the patchwork
# emulator answered with a 2xx, sorted
pw_writes() {
	emu_ctl GET /_emu/log | $PY -c 'import json, sys
for r in json.load(sys.stdin):
    if r["method"] == sys.argv[1] and 200 <= r["status"] < 300:
        print(r["path"])' "$1" | sort
}

# pw_relay_conf URL [KEY=VALUE...]: on stdout, a config (state
# $tmp/state.db) of both sides of patchwork at URL (project netdev,
# $PW_TOKEN, the KEY=VALUE lines besides): source "pwq" relays the series
# Patchwork completed to the maildir $tmp/out, its size check going back
# as checks; the landings on main of the repository $tmp/tree go to sink
# "pw"
pw_relay_conf() {
	local url=$1
	shift
	conf_section core "state=$tmp/state.db"
	conf_section 'source "pwq"' type=patchwork "api-url=$url/api/" \
		project=netdev token=env:PW_TOKEN "$@"
	conf_section 'sink "inbox"' type=maildir "path=$tmp/out"
	conf_section 'check "size"' type=size-limit max-files=10
	conf_section 'route "ci"' from=pwq step=size to=inbox feedback=pwq
	conf_section 'source "tree"' type=git "url=$tmp/tree" watch=main
	conf_section 'sink "pw"' type=patchwork "api-url=$url/api/" \
		project=netdev token=env:PW_TOKEN "$@"
	conf_section 'route "sync"' from=tree to=pw
}

# mail_count BOX: how many mails the maildir BOX holds, in new/ and cur/
mail_count() {
	find "$1/new" "$1/cur" -type f 2>/dev/null | wc -l
}

# free_port: a loopback port nobody listens on now
free_port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---- faults and crashes --------------------------------------------------

# fault_run NAME CONF WANT...: under the faults set, `patchrelay run -c
# CONF --once` fails (exit status 3) and its log, $tmp/NAME.log, matches
# each WANT (grep -E)
fault_run() {
	local name=$1 conf=$2 rc=0 w
	shift 2
	"$PATCHRELAY" run -c "$conf" --once 2>"$tmp/$name.log" || rc=$?
	[ "$rc" -eq 3 ] ||
		fail "$name: exit status $rc, not 3: $(cat "$tmp/$name.log")"
	for w in "$@"; do
		grep -Eq -- "$w" "$tmp/$name.log" ||
			fail "$name: no '$w' in the log: $(cat "$tmp/$name.log")"
	done
}

# healthy_run NAME CONF: `patchrelay run -c CONF --once` succeeds (its log
# in $tmp/NAME.ok.log)
healthy_run() {
	"$PATCHRELAY" run -c "$2" --once 2>"$tmp/$1.ok.log" ||
		fail "$1: the pass without the fault: $(cat "$tmp/$1.ok.log")"
}


# daemon_recovers CONF DONE WHO [SECONDS]: `patchrelay run -c CONF
# --interval 1` (its log $tmp/daemon.log) under faults that fail its first
# two polls: the shell command DONE comes true within 40 s, the log says
# WHO (a grep pattern, may be empty) "recovered after 2 failure(s)", and
# it took SECONDS (default 5: a backoff of 2 s, then 4 s) or more, the
# seconds in $took; the daemon is stopped
daemon_recovers() {
	local pr_t0
	spawn relay_pid "$PATCHRELAY" run -c "$1" --interval 1 \
		2>"$tmp/daemon.log"
	pr_t0=$(date +%s)
	wait_for 40 $2 || fail "daemon: not delivered: $(cat "$tmp/daemon.log")"
	took=$(($(date +%s) - pr_t0))
	stop "$relay_pid"
	grep -q "$3recovered after 2 failure(s)" "$tmp/daemon.log" ||
		fail "daemon: no recovery: $(cat "$tmp/daemon.log")"
	[ "$took" -ge "${4:-5}" ] || fail "daemon: delivered after $took s"
}

# crash_rounds N CONF NEXT CHECK: round 0, then N rounds of kill -9: the
# shell command NEXT R makes round R's work; `patchrelay run -c CONF
# --once` is killed (SIGKILL) after a random delay within 80% of the
# longest pass so far (its log $tmp/crash/R.kill.log); a pass runs to its
# end ($tmp/crash/R.log); CHECK R counts at the real server.  Round 0 is
# not killed: it times a first pass.  The delays follow PR_CRASH_SEED (default: the
# shell's pid), which is printed; $kills counts the kills that hit a
# running pass, $cut those after which a pass said an attempt was cut short
# (the kill fell while the sink was at work).
crash_rounds() {
	local pr_n=$1 pr_conf=$2 pr_next=$3 pr_check=$4 pr_r=0 pr_t0 pr_span=0 \
		pr_delay pr_seed pr_pid pr_rc
	pr_seed=${PR_CRASH_SEED:-$$}
	echo "$me: crash seed $pr_seed"
	mkdir -p "$tmp/crash"
	kills=0
	cut=0
	while [ "$pr_r" -le "$pr_n" ]; do
		$pr_next "$pr_r"
		if [ "$pr_r" -gt 0 ]; then
			pr_delay=$(awk -v s="$pr_seed" -v r="$pr_r" -v span="$pr_span" \
				'BEGIN { srand(s * 1000 + r); printf "%.3f", rand() * span / 1250 }')
			"$PATCHRELAY" run -c "$pr_conf" --once \
				2>"$tmp/crash/$pr_r.kill.log" &
			pr_pid=$!
			sleep "$pr_delay"
			kill -9 "$pr_pid" 2>/dev/null || :
			pr_rc=0
			{ wait "$pr_pid"; } 2>/dev/null || pr_rc=$?
			[ "$pr_rc" -ne 137 ] || kills=$((kills + 1))
		fi
		pr_t0=$(date +%s%3N)
		"$PATCHRELAY" run -c "$pr_conf" --once 2>"$tmp/crash/$pr_r.log" ||
			fail "round $pr_r: the pass after the kill: $(cat "$tmp/crash/$pr_r.log")"
		pr_t0=$(($(date +%s%3N) - pr_t0))
		[ "$pr_t0" -le "$pr_span" ] || pr_span=$pr_t0
		! grep -q 'was cut short' "$tmp/crash/$pr_r.log" || cut=$((cut + 1))
		$pr_check "$pr_r"
		pr_r=$((pr_r + 1))
	done
}

# ---- mail sources --------------------------------------------------------

# maildir_fill DIR SUB FILE...: copy the mails into the maildir DIR (into
# SUB, new or cur), each file's mtime one second past 1796300000 per the
# number its name starts with, so the files sort as they are numbered
maildir_fill() {
	local d=$1 sub=$2 f n s dst
	shift 2
	mkdir -p "$d/new" "$d/cur" "$d/tmp"
	for f in "$@"; do
		n=$(basename "$f")
		s=${n%%-*}
		dst="$d/$sub/$n"
		[ "$sub" = cur ] && dst="$dst:2,S"
		cp "$f" "$dst"
		touch -d "@$((1796300000 + ${s#0}))" "$dst"
	done
}

# maildir_series DIR NAME SECOND: the mails of series_mails NAME into the
# maildir DIR, new/, with the mtime 1796300000 + SECOND (the maildir source
# orders mail by mtime, then name: give each series its own second)
maildir_series() {
	mkdir -p "$1/new" "$1/cur" "$1/tmp"
	for pr_f in "$tmp/$2"/*; do
		cp "$pr_f" "$1/new/" &&
			touch -d "@$((1796300000 + $3))" "$1/new/${pr_f##*/}" ||
			fail "maildir_series $2"
	done
}

# mbox_series DIR NAME: the mails of series_mails NAME as one mbox file,
# DIR/NAME.mbox (the mbox source reads each file as one version)
mbox_series() {
	mkdir -p "$1"
	for pr_f in "$tmp/$2"/*; do
		echo 'From patchrelay Mon Sep 17 00:00:00 2001'
		cat "$pr_f"
	done >"$1/$2.mbox" || fail "mbox_series $2"
}

# poll_strip FILE: what `patchrelay poll --json` printed into FILE, without
# the source's name and the cursor
poll_strip() {
	$PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
del d["cursor"], d["source"]
print(json.dumps(d, indent=1, sort_keys=True))' "$1"
}

# poll_cursor FILE: the cursor a `patchrelay poll --json` printed, or ""
poll_cursor() {
	$PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["cursor"] or "")' "$1"
}

# ---- patches -------------------------------------------------------------

# seed_patch: the junk seed of /work/shared/seeds (a tree-wide "no" ->
# "yes" of 46,294 files), or nothing where it is not
seed_patch() {
	local d f=001-commit-8042783592c5-fixed-bug-where-yes-and-no-are-mixed-up.patch
	for d in "$PR_SRC/../shared/seeds" /work/shared/seeds; do
		if [ -f "$d/$f" ]; then
			echo "$d/$f"
			return
		fi
	done
}

# ---- the kernel tree -----------------------------------------------------

# linux_tarball: Debian's linux-source tarball, or nothing
linux_tarball() {
	ls /usr/src/linux-source-*.tar.xz 2>/dev/null | head -n 1
}

# kernel_tree: sets C (the cache, $PR_CACHE) and L (the kernel tree of
# Debian's linux-source, extracted there once), or skips the test when
# linux-source is not installed.  The extraction holds a lock: two tests
# may start at once on a fresh cache, and each would remove the other's
# half-made tree.
kernel_tree() {
	C=${PR_CACHE:-$PR_BUILD}
	mkdir -p "$C"
	L="$C/linux-source"
	(
		flock 9
		if [ ! -f "$L/.pr-extracted" ]; then
			tarball=$(linux_tarball)
			[ -n "$tarball" ] ||
				skip "no /usr/src/linux-source-*.tar.xz"
			rm -rf "$L"
			mkdir -p "$L"
			tar -xJf "$tarball" -C "$L" --strip-components=1
			touch "$L/.pr-extracted"
		fi
	) 9>"$C/linux-source.lock" || exit $?
}

# kernel_git: kernel_tree, and G, a bare git repository of it (one commit)
# made once in the cache under a lock, for kernel-ci's worktrees.  `add
# -f`: Debian's top .gitignore ignores everything at the top level.
kernel_git() {
	kernel_tree
	G="$C/linux.git"
	(
		flock 9
		if [ ! -f "$G/pr-made" ]; then
			rm -rf "$G"
			git init -q --bare "$G" &&
				git --git-dir="$G" config gc.auto 0 &&
				git --git-dir="$G" --work-tree="$L" add -A -f -- . \
					':!.pr-extracted' &&
				GIT_AUTHOR_NAME=linux-source \
				GIT_AUTHOR_EMAIL=root@localhost \
				GIT_COMMITTER_NAME=linux-source \
				GIT_COMMITTER_EMAIL=root@localhost \
				GIT_AUTHOR_DATE=2000-01-01T00:00:00Z \
				GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
				git --git-dir="$G" --work-tree="$L" commit -q \
				-m "Debian's linux-source" &&
				touch "$G/pr-made"
		fi
	) 9>"$C/linux.git.lock" || fail "no git repository of the kernel tree"
}
