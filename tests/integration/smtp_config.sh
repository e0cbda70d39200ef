#!/bin/sh
# The smtp sink in a config: patchrelay graph shows its options with the
# defaults filled in and the password as <redacted>, never its value.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir
printf 'hunter2-secret\n' >"$tmp/pw"
cat >"$tmp/p.conf" <<EOC
[source "gh"]
	type = mbox
	path = $tmp
[sink "list"]
	type = smtp
	url = smtps://127.0.0.1:465
	from = bot@example.org
	password = file:$tmp/pw
	rate = 30
[route "r"]
	from = gh
	to = list
EOC
"$PATCHRELAY" graph -c "$tmp/p.conf" >"$tmp/out" 2>&1 || fail "graph: exit $?"
grep -q '^sink list (smtp)$' "$tmp/out" || fail "no smtp sink in the graph"
grep -q '^    password = <redacted>$' "$tmp/out" || fail "password not redacted"
grep -q '^    starttls = required$' "$tmp/out" || fail "starttls default"
grep -q '^    rate = 30$' "$tmp/out" || fail "rate"
grep -q hunter2 "$tmp/out" && fail "the password's value was printed"
# password from the environment, same rule
sed "s|file:$tmp/pw|env:PR_TEST_SMTP_PW|" "$tmp/p.conf" >"$tmp/e.conf"
PR_TEST_SMTP_PW=hunter2-env "$PATCHRELAY" graph -c "$tmp/e.conf" \
	>"$tmp/out" 2>&1 || fail "graph env: exit $?"
grep -q hunter2 "$tmp/out" && fail "the password's value was printed (env)"
grep -q '^    password = <redacted>$' "$tmp/out" || fail "env: not redacted"
# a bad starttls value is a config error naming the key
sed 's|rate = 30|starttls = maybe|' "$tmp/p.conf" >"$tmp/b.conf"
"$PATCHRELAY" graph -c "$tmp/b.conf" >"$tmp/out" 2>&1 && fail "bad starttls accepted"
grep -q starttls "$tmp/out" || fail "bad starttls: message does not name the key"
# a cc that is no address, or whose name decodes to CR LF, is a config
# error when run opens the sink (exit 2), naming the file, sink and option
git config -f "$tmp/p.conf" core.state "$tmp/state.db"
for cc in 'not an address' '=?UTF-8?q?x=0D=0ABcc:_v@example.org?= <e@example.org>'; do
	git config -f "$tmp/p.conf" --replace-all sink.list.cc "$cc"
	rc=0
	"$PATCHRELAY" run --once -c "$tmp/p.conf" >"$tmp/out" 2>&1 || rc=$?
	[ "$rc" -eq 2 ] || fail "cc '$cc': exit $rc: $(cat "$tmp/out")"
	grep -q "p.conf: sink 'list': option 'cc': address" "$tmp/out" ||
		fail "cc '$cc': unclear error: $(cat "$tmp/out")"
done
echo "ok"
