#!/bin/sh
# Paging is linear and goes over one kept-alive connection, counted at the
# emulators (tests/emulators/, their request log names each request's
# connection):
# (a) a patchwork catch-up of S series (every event and series page, 50 a
#     page): ceil(S/50) pages of series-completed and of
#     patch-state-changed events, then each series' detail and mbox, no
#     request twice, all on one connection;
# (b) a github and a gitlab first poll of P pull requests (100 a page),
#     one of them with C comments: /user (and GitLab's project),
#     ceil(P/100) list pages, one comment page per PR and ceil(C/100) - 1
#     more for that one, no request twice, one connection;
# (c) the same passes when the server closes each connection after 7
#     answers (no "Connection: close" said), and when it keeps it but
#     drops the next request unanswered (the close racing the request):
#     the same requests, each once, on ceil(N/7) connections, the same
#     events, no error.
set -u
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp" || exit 1

# ctl PATH JSON: a POST to the emulator's control API
ctl() { emu_ctl POST "/_emu$1" "$2" >/dev/null; }

# check_log WHAT N PER: the emulator's log holds N requests, none twice,
# on ceil(N/PER) connections (PER 0: one), each of them at most PER
check_log() {
	emu_ctl GET /_emu/log >log.json
	$PY - log.json "$2" "$3" <<'PYEOF' || fail "$1: $(cat check.out)"
import collections, json, sys
log = json.load(open(sys.argv[1]))
n, per = int(sys.argv[2]), int(sys.argv[3])
paths = collections.Counter((r["method"], r["path"]) for r in log)
conns = collections.Counter(r["conn"] for r in log)
want = 1 if not per else (n + per - 1) // per
out = open("check.out", "w")
if len(log) != n:
    out.write("%d requests, not %d" % (len(log), n))
elif max(paths.values()) > 1:
    out.write("asked twice: %s" % [p for p, k in paths.items() if k > 1])
elif len(conns) != want or (per and max(conns.values()) > per):
    out.write("%d connections, not %d" % (len(conns), want))
elif any(r["status"] != 200 for r in log):
    out.write("not 200: %s" % [r for r in log if r["status"] != 200])
else:
    sys.exit(0)
sys.exit(1)
PYEOF
}

# closing NAME N CMD...: CMD again (its output in NAME.ka, NAME.drop)
# with the server closing after 7 answers and dropping the 8th request;
# the same output as NAME.out, the same N requests, ceil(N/7) connections
closing() {
	local name=$1 n=$2 dropped
	shift 2
	ctl /log/clear '{}'
	ctl /keepalive '{"max":7}'
	"$@" >"$name.ka" 2>"$name.ka.err" ||
		fail "$name, closed after 7: $(cat "$name.ka.err")"
	cmp -s "$name.out" "$name.ka" || fail "$name, closed after 7: other events"
	check_log "$name, closed after 7" "$n" 7
	ctl /log/clear '{}'
	ctl /keepalive '{"max":7,"drop":true}'
	dropped=$(emu_ctl GET /_emu/connections | $PY -c \
		'import json, sys; print(json.load(sys.stdin)["dropped"])')
	"$@" >"$name.drop" 2>"$name.drop.err" ||
		fail "$name, dropped: $(cat "$name.drop.err")"
	cmp -s "$name.out" "$name.drop" || fail "$name, dropped: other events"
	check_log "$name, dropped after 7" "$n" 7
	# every connection but the last dropped a request, and it was resent
	emu_ctl GET /_emu/connections | $PY -c 'import json, sys
d = json.load(sys.stdin)["dropped"] - int(sys.argv[1])
want = (int(sys.argv[2]) + 6) // 7 - 1
sys.exit(d != want and "%d dropped, not %d" % (d, want))' "$dropped" "$n" ||
		fail "$name: not every connection dropped a request"
	grep -i 'error\|warn' "$name.ka.err" "$name.drop.err" &&
		fail "$name: a closed connection was reported"
	ctl /keepalive '{"max":0}'
}

# ---- (a) patchwork ----
s=120
start_emulator patchwork "$tmp/pw"
ctl /persist '{"on":false}'
ctl /projects '{"link_name":"netdev","maintainers":["ci"]}'
ctl /max-per-page '{"max":50}'
ctl /bulk "{\"project\":\"netdev\",\"count\":$s,\"mail\":true,\"state_changes\":true}"
cat >pw.conf <<CONF
[source "pw"]
	type = patchwork
	api-url = $emu_url/api/
	project = netdev
CONF
pw_poll() {
	"$PATCHRELAY" poll -c pw.conf pw \
		--cursor 'pw1 since=1970-01-01T00:00:00 seen='
}
pw_poll >pw.out 2>pw.err || fail "patchwork poll: $(cat pw.err)"
[ "$(grep -c '^series ' pw.out)" -eq $s ] ||
	fail "patchwork: $(grep -c '^series ' pw.out) series, not $s"
pages=$(((s + 49) / 50))
n=$((2 * pages + 2 * s))
check_log "patchwork catch-up" $n 0
# the event pages are 1..pages of each category, once
for cat in series-completed patch-state-changed; do
	got=$($PY -c 'import json, re, sys
print(sorted(int((re.search(r"[?&]page=(\d+)", r["path"]) or [0, 1])[1])
      for r in json.load(open("log.json")) if sys.argv[1] in r["path"]))' \
		"$cat")
	[ "$got" = "$($PY -c "print(list(range(1, $pages + 1)))")" ] ||
		fail "patchwork: $cat pages $got"
done
closing pw $n pw_poll
stop "$emu_pid"

# ---- (b) github, gitlab ----
p=150
c=250
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
mkdir tree
echo base >tree/base.c
git_base tree
git -C tree checkout -q -b topic
echo x >tree/x.c
git -C tree add x.c
git -C tree commit -q -m 'x: add it'
git -C tree checkout -q main
for forge in github gitlab; do
	start_emulator $forge "$tmp/$forge"
	# the constant: /user, and GitLab's project (its clone URL)
	api=$emu_url key=repo k=1
	[ $forge = gitlab ] && api=$emu_url/api/v4 key=project k=2
	ctl /persist '{"on":false}'
	ctl /users '{"login":"ada","token":"tok-ada"}'
	ctl /users '{"login":"bot","token":"tok-bot"}'
	ctl /repos "{\"owner\":\"kernel\",\"repo\":\"net\",\"from\":\"$tmp/tree\"}"
	ctl /pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"from\":\"$tmp/tree\",\"ref\":\"topic\",\"count\":$p}"
	ctl /comments "{\"owner\":\"kernel\",\"repo\":\"net\",\"number\":1,\"user\":\"ada\",\"body\":\"fine\",\"count\":$c}"
	ctl /log/clear '{}'
	cat >$forge.conf <<CONF
[source "f"]
	type = $forge
	api-url = $api
	$key = kernel/net
	token = env:FORGE_TOKEN
	cache-dir = $tmp/cache
CONF
	eval "${forge}_poll() { \"\$PATCHRELAY\" poll -c $forge.conf f; }"
	export FORGE_TOKEN=tok-bot
	${forge}_poll >$forge.out 2>$forge.err ||
		fail "$forge poll: $(cat $forge.err)"
	n=$((k + (p + 99) / 100 + p + (c + 99) / 100 - 1))
	check_log "$forge first poll" $n 0
	closing $forge $n ${forge}_poll
	stop "$emu_pid"
done
exit 0
