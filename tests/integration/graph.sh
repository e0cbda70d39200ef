#!/bin/sh
# patchrelay graph on the demo config (valid) and on bad configs (exit 2,
# one message per problem naming the file and the key).  What the
# instances' open() refuses when `run` starts (an smtp cc that is not an
# address, a password in a git url) graph reports too, with run's
# message; every example passes with nothing written anywhere.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir

cd "$PR_SRC" || fail "no source tree"
"$PATCHRELAY" graph -c examples/demo.conf >"$tmp/out" 2>"$tmp/err" ||
	fail "demo.conf: exit $? $(cat "$tmp/err")"
grep -qx 'route demo: demo -> size -> inbox' "$tmp/out" ||
	fail "demo route not printed: $(cat "$tmp/out")"
grep -qx 'source demo (git)' "$tmp/out" || fail "demo source not printed"
grep -qx '    max-bytes = 2097152' "$tmp/out" || fail "size not parsed"

"$PATCHRELAY" graph -c examples/demo.conf --dot >"$tmp/dot" ||
	fail "--dot failed"
head -n 1 "$tmp/dot" | grep -qx 'digraph patchrelay {' || fail "not DOT"
grep -q '"check:size" -> "sink:inbox"' "$tmp/dot" || fail "DOT edge missing"
if command -v dot >/dev/null 2>&1; then
	dot -Tsvg "$tmp/dot" >/dev/null || fail "graphviz refuses the DOT"
fi

cd "$PR_SRC/tests/data/config" || fail "no test data"
"$PATCHRELAY" graph -c bad-route.conf >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "bad-route.conf: exit $rc, want 2"
[ ! -s "$tmp/out" ] || fail "bad config printed a graph"
grep -qx "patchrelay: error: bad-route.conf: route.net-gh-to-list.to: unknown sink 'netdv'" \
	"$tmp/err" || fail "bad-route message: $(cat "$tmp/err")"

"$PATCHRELAY" graph -c bad-many.conf >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "bad-many.conf: exit $rc, want 2"
for want in \
	"bad-many.conf: source.gh.colour: unknown key for type 'mbox'" \
	"bad-many.conf: check.size.max-bytes: bad size '2Q'" \
	"bad-many.conf: sink.out.path: missing required key" \
	"bad-many.conf: route.r.to: source 'gh' used as a sink"; do
	grep -qxF "patchrelay: error: $want" "$tmp/err" ||
		fail "missing message '$want' in: $(cat "$tmp/err")"
done
n=$(grep -c '^patchrelay: error: bad-many.conf: ' "$tmp/err")
[ "$n" -eq 4 ] || fail "want 4 problems, got $n: $(cat "$tmp/err")"

"$PATCHRELAY" graph -c "$tmp/none.conf" >/dev/null 2>&1
[ $? -eq 2 ] || fail "missing file: want exit 2"
"$PATCHRELAY" graph >/dev/null 2>&1
[ $? -eq 2 ] || fail "no -c: want exit 2"

# a secret is read but never printed
printf 'hunter2\n' >"$tmp/pw"
cat >"$tmp/s.conf" <<EOC
[sink "m"]
	type = maildir
	path = x
	password = file:$tmp/pw
EOC
"$PATCHRELAY" graph -c "$tmp/s.conf" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "unknown key password: want exit 2"
grep -q hunter2 "$tmp/out" "$tmp/err" && fail "secret leaked"
# values as git reads them: includes, quoting, escapes, multi-valued keys
mkdir "$tmp/g"
cat >"$tmp/g/inc.conf" <<'EOC'
[route "r"]
	include-path = "drivers/net/ ; not a comment"
	include-path = net/\tab
EOC
cat >"$tmp/g/main.conf" <<'EOC'
[include]
	path = inc.conf
[source "s"]
	type = git
	url = "/srv/a repo" # comment
	branch = top\
ic
[sink "m"]
	type = maildir
	path = out
[route "r"]
	from = s
	to = m
	include-path = "Documentation/"
EOC
"$PATCHRELAY" graph -c "$tmp/g/main.conf" >"$tmp/out" 2>"$tmp/err" ||
	fail "git-syntax config: $(cat "$tmp/err")"
git config -f "$tmp/g/main.conf" --includes --get-all route.r.include-path |
	sed 's/^/    include-path = /' >"$tmp/want"
grep '^    include-path = ' "$tmp/out" >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" ||
	fail "include-path differs from git config: $(diff "$tmp/want" "$tmp/got")"
for key in url branch; do
	want=$(git config -f "$tmp/g/main.conf" --get "source.s.$key")
	grep -qxF "    $key = $want" "$tmp/out" ||
		fail "source.s.$key: git says '$want', got: $(cat "$tmp/out")"
done
# An example's missing secret is named with the variable and the key.
env -u PATCHRELAY_GITLAB_TOKEN PATCHRELAY_SMTP_PASSWORD=p \
	"$PATCHRELAY" graph -c "$PR_SRC/examples/gitlab-project.conf" \
	>/dev/null 2>"$tmp/ex.err" && fail "gitlab example without its token passed"
grep -q "source.mr.token: secret environment variable 'PATCHRELAY_GITLAB_TOKEN' is not set" \
	"$tmp/ex.err" || fail "missing secret not named: $(cat "$tmp/ex.err")"
# What run refuses when it opens the instances, graph refuses with the
# same message and exit 2, without running anything: a bad smtp cc, a
# password in a git source's url.  Both at once are two problems.
mkdir "$tmp/open" "$tmp/open/st"
{
	git_source_conf "$tmp/open/st/state.db" "$tmp/open/repo"
	cat <<EOC
[sink "mail"]
	type = smtp
	url = smtp://127.0.0.1:9
	from = Relay <relay@example.org>
	cc = Net List <netdev@example.org>
[route "r"]
	from = repo
	to = mail
EOC
} >"$tmp/open/base.conf"
"$PATCHRELAY" graph -c "$tmp/open/base.conf" >/dev/null 2>"$tmp/err" ||
	fail "open checks: the valid base config fails: $(cat "$tmp/err")"
sed 's|cc = .*|cc = not an address|' "$tmp/open/base.conf" >"$tmp/open/cc.conf"
sed "s|url = $tmp/open/repo|url = http://bob:s3cret-pw@127.0.0.1:9/repo.git|" \
	"$tmp/open/base.conf" >"$tmp/open/pw.conf"
sed 's|cc = .*|cc = not an address|' "$tmp/open/pw.conf" >"$tmp/open/both.conf"
same_as_run() { # NAME MESSAGE: graph and run refuse NAME.conf saying it
	c=$tmp/open/$1.conf
	rc=0
	"$PATCHRELAY" run --once -c "$c" >/dev/null 2>"$tmp/open/$1.run" || rc=$?
	[ $rc -eq 2 ] || fail "$1: run exit $rc, want 2: $(cat "$tmp/open/$1.run")"
	grep -qxF "patchrelay: error: $c: $2" "$tmp/open/$1.run" ||
		fail "$1: run says: $(cat "$tmp/open/$1.run")"
	rc=0
	"$PATCHRELAY" graph -c "$c" >"$tmp/out" 2>"$tmp/open/$1.graph" || rc=$?
	[ $rc -eq 2 ] || fail "$1: graph exit $rc, want 2: $(cat "$tmp/open/$1.graph")"
	[ ! -s "$tmp/out" ] || fail "$1: graph printed a graph"
	grep -qxF "$(cat "$tmp/open/$1.run")" "$tmp/open/$1.graph" ||
		fail "$1: graph does not give run's message: $(cat "$tmp/open/$1.graph")"
	grep -q s3cret "$tmp/open/$1.run" "$tmp/open/$1.graph" &&
		fail "$1: the password was shown"
}
same_as_run cc "sink 'mail': option 'cc': address 'not an address': not a bare address (byte 0x20 at 3)"
same_as_run pw "source 'repo': option 'url': a password in the URL is refused (use 'user' and 'password')"
"$PATCHRELAY" graph -c "$tmp/open/both.conf" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "both: graph exit, want 2"
for want in "$(cat "$tmp/open/cc.run")" "$(cat "$tmp/open/pw.run")" \
	"patchrelay: error: 2 problems in config '$tmp/open/both.conf'"; do
	grep -qxF "$(echo "$want" | sed "s|/open/[a-z]*\.conf|/open/both.conf|")" \
		"$tmp/err" || fail "both: no '$want' in: $(cat "$tmp/err")"
done
[ "$(find "$tmp/open/st" | wc -l)" -eq 1 ] || fail "a state file was made"

# Every example passes with the instances opened as run opens them, once
# its secrets are in the environment and the kernel tree it names
# (/srv/linux) is there: the copies name a small one.  Nothing is written
# anywhere: not beside the configs, in the working directory, HOME or
# TMPDIR, nor the state and cache directories the examples name; where
# strace runs here, no file is opened for writing, no directory made, no
# socket opened and no process started but patchrelay's own.
mkdir "$tmp/ex" "$tmp/ex/linux" "$tmp/ex/cwd" "$tmp/ex/home" "$tmp/ex/tmpdir"
printf 'NETWORKING DRIVERS\nM:\tJakub Kicinski <kuba@kernel.org>\nL:\tnetdev@vger.kernel.org\nS:\tMaintained\nF:\tdrivers/net/\n' \
	>"$tmp/ex/linux/MAINTAINERS"
for conf in "$PR_SRC"/examples/*.conf; do
	sed "s|/srv/linux|$tmp/ex/linux|g" "$conf" >"$tmp/ex/${conf##*/}"
done
absent=
for d in /var/lib/patchrelay /var/cache/patchrelay; do
	[ -e "$d" ] || absent="$absent $d"
done
(cd "$tmp/ex" && find . | sort) >"$tmp/ex.before"
strace_ok=false
strace -f -qq -o /dev/null true 2>/dev/null && strace_ok=true
for conf in "$tmp"/ex/*.conf; do
	name=${conf##*/}
	(cd "$tmp/ex/cwd" &&
		HOME=$tmp/ex/home TMPDIR=$tmp/ex/tmpdir PATCHRELAY_GITHUB_TOKEN=t \
		PATCHRELAY_GERRIT_PASSWORD=p PATCHRELAY_GERRIT_READER_PASSWORD=p \
		PATCHRELAY_GITLAB_TOKEN=t PATCHRELAY_SMTP_PASSWORD=p \
		PATCHRELAY_PATCHWORK_TOKEN=t \
		"$PATCHRELAY" graph -c "$conf") >"$tmp/ex.out" 2>"$tmp/ex.err" ||
		fail "$name: exit $?: $(cat "$tmp/ex.err")"
	grep -q '^route ' "$tmp/ex.out" || fail "$name: no route printed"
	$strace_ok || continue
	# LeakSanitizer cannot run under a tracer: no leak check here
	(cd "$tmp/ex/cwd" &&
		HOME=$tmp/ex/home TMPDIR=$tmp/ex/tmpdir PATCHRELAY_GITHUB_TOKEN=t \
		PATCHRELAY_GERRIT_PASSWORD=p PATCHRELAY_GERRIT_READER_PASSWORD=p \
		PATCHRELAY_GITLAB_TOKEN=t PATCHRELAY_SMTP_PASSWORD=p \
		PATCHRELAY_PATCHWORK_TOKEN=t \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -o "$tmp/ex.trace" -e trace=%file,%network,%process \
		"$PATCHRELAY" graph -c "$conf") >/dev/null 2>"$tmp/ex.err" ||
		fail "$name under strace: $(cat "$tmp/ex.err")"
	grep -E 'O_WRONLY|O_RDWR|O_CREAT|mkdir|[^a-z]connect\(|socket\(|[^a-z](creat|rename|renameat2?|unlink|unlinkat|symlink|link|linkat)\(|fork\(' \
		"$tmp/ex.trace" && fail "$name: graph writes, connects or forks (above)"
	grep 'execve(' "$tmp/ex.trace" | grep -v 'execve("[^"]*/patchrelay\(-full\)\?"' &&
		fail "$name: graph starts a process (above)"
	grep -q 'execve(' "$tmp/ex.trace" || fail "$name: strace saw nothing"
done
(cd "$tmp/ex" && find . | sort) >"$tmp/ex.after"
cmp -s "$tmp/ex.before" "$tmp/ex.after" ||
	fail "graph wrote files: $(diff "$tmp/ex.before" "$tmp/ex.after")"
for d in $absent; do
	[ -e "$d" ] && fail "graph made $d"
done
# the kernel tree missing is run's refusal, and so graph's
sed "s|$tmp/ex/linux|$tmp/ex/nolinux|g" "$tmp/ex/github-netdev.conf" >"$tmp/nolinux.conf"
PATCHRELAY_GITHUB_TOKEN=t PATCHRELAY_SMTP_PASSWORD=p \
	"$PATCHRELAY" graph -c "$tmp/nolinux.conf" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "no kernel tree: want exit 2"
grep -qF "patchrelay: error: $tmp/nolinux.conf: check 'maint': maintainers file '$tmp/ex/nolinux/MAINTAINERS': cannot open" \
	"$tmp/err" || fail "no kernel tree: $(cat "$tmp/err")"
# run refuses it alike; under ASan a leak of what the failed open()
# allocated fails here (run closes the failed instance too)
rc=0
(cd "$tmp/ex/cwd" && PATCHRELAY_GITHUB_TOKEN=t PATCHRELAY_SMTP_PASSWORD=p \
	"$PATCHRELAY" run --once -c "$tmp/nolinux.conf") >/dev/null 2>"$tmp/err" || rc=$?
[ $rc -eq 2 ] || fail "no kernel tree: run exit $rc: $(cat "$tmp/err")"
grep -qF "patchrelay: error: $tmp/nolinux.conf: check 'mass': maintainers file '$tmp/ex/nolinux/MAINTAINERS': cannot open" \
	"$tmp/err" || fail "no kernel tree, run: $(cat "$tmp/err")"
echo ok
