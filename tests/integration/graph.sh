#!/bin/sh
# patchrelay graph on the demo config (valid) and on bad configs (exit 2,
# one message per problem naming the file and the key).
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

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
# Every example is a valid graph once its secrets are in the environment
# (the examples read them with env:NAME); without them the error names
# the variable and the key.
for conf in "$PR_SRC"/examples/*.conf; do
	PATCHRELAY_GITHUB_TOKEN=t PATCHRELAY_GITLAB_TOKEN=t \
		PATCHRELAY_SMTP_PASSWORD=p \
		"$PATCHRELAY" graph -c "$conf" >"$tmp/ex.out" 2>"$tmp/ex.err" ||
		fail "$(basename "$conf"): exit $?: $(cat "$tmp/ex.err")"
	grep -q '^route ' "$tmp/ex.out" ||
		fail "$(basename "$conf"): no route printed"
done
env -u PATCHRELAY_GITLAB_TOKEN PATCHRELAY_SMTP_PASSWORD=p \
	"$PATCHRELAY" graph -c "$PR_SRC/examples/gitlab-project.conf" \
	>/dev/null 2>"$tmp/ex.err" && fail "gitlab example without its token passed"
grep -q "source.mr.token: secret environment variable 'PATCHRELAY_GITLAB_TOKEN' is not set" \
	"$tmp/ex.err" || fail "missing secret not named: $(cat "$tmp/ex.err")"
echo ok
