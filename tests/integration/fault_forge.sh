# The fault matrix of a forge source (github or gitlab: $forge), sourced by
# fault_github.sh and fault_gitlab.sh after lib.sh.  Against the forge's
# emulator (tests/emulators/$forge.py) behind tests/servers/fault_proxy.py:
# each case opens a new pull request of one commit (trigger = auto); a pass
# under the fault fails with a clear error naming the instance, and the
# same pass against the healthy server then relays exactly what was
# pending into a maildir sink and posts one report comment per request.
tmpdir
cd "$tmp"

start_emulator "$forge" "$tmp/emu"
start_fault_proxy "$emu_url"
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo tree
git -C tree checkout -q main
emu_ctl POST /_emu/users '{"login":"ada","token":"tok-ada","name":"Ada Demo","email":"ada@example.org"}' >/dev/null
emu_ctl POST /_emu/users '{"login":"relay-bot","token":"tok-bot"}' >/dev/null
emu_ctl POST /_emu/repos "{\"owner\":\"kernel\",\"repo\":\"net\",\"from\":\"$tmp/tree\",\"branch\":\"main\"}" >/dev/null
export FORGE_TOKEN=tok-bot
if [ "$forge" = github ]; then
	api= repo=repo list=/pulls comment='POST */issues/*/comments'
else
	api=/api/v4 repo=project list=/merge_requests comment='POST */notes'
fi
conf() { # conf URL [KEY=VALUE...]: the config, on stdout
	local url=$1
	shift
	conf_section core "state=$tmp/state.db"
	conf_section "source \"fg\"" "type=$forge" "api-url=$url$api" \
		"$repo=kernel/net" token=env:FORGE_TOKEN trigger=auto \
		"cache-dir=$tmp/cache" timeout=2s "$@"
	conf_section 'sink "inbox"' type=maildir "path=$tmp/out"
	conf_section 'route "r"' from=fg to=inbox feedback=fg
}
conf "$proxy_url" >relay.conf

want=0
# new_case NAME: a new pull request of one commit, from branch NAME
new_case() {
	git -C tree checkout -q -b "$1" main &&
		echo "$1" >"tree/$1.c" && git -C tree add "$1.c" &&
		git -C tree commit -q -m "$1: add it" || fail "$1: commit"
	emu_ctl POST /_emu/pulls "{\"owner\":\"kernel\",\"repo\":\"net\",\"user\":\"ada\",\"title\":\"$1\",\"from\":\"$tmp/tree\",\"ref\":\"$1\",\"base\":\"main\"}" >/dev/null
	want=$((want + 1))
}
# reports: "N" for each report comment of relay-bot, N the request
reports() {
	emu_ctl GET /_emu/state | $PY -c 'import json, sys
for repo in json.load(sys.stdin)["pulls"].values():
    for pr in repo.values():
        for c in pr["comments"]:
            if c["user"] == "relay-bot":
                print(pr["number"])' | sort
}
# relayed NAME: the healthy pass relayed what was pending, each once, and
# each request got one report
relayed() {
	local n
	n=$(mail_count out)
	[ "$n" -eq "$want" ] || fail "$1: $n mails relayed, not $want"
	[ -z "$(grep -h '^Subject:' out/new/* | sort | uniq -d)" ] ||
		fail "$1: a mail relayed twice"
	[ "$(reports | wc -l)" -eq "$want" ] && [ -z "$(reports | uniq -d)" ] ||
		fail "$1: reports on requests $(reports | tr '\n' ' '), not one on each of $want"
	echo "$me: $1: the error said, then $want requests relayed, one report on each"
}
# wait_until EPOCH: sleep until the clock passed EPOCH
wait_until() {
	while [ "$(date +%s)" -le "$1" ]; do
		sleep 0.2
	done
}
who="\\[$forge:fg\\] source 'fg'"

new_case refused
conf "http://127.0.0.1:$(free_port)" >refused.conf
fault_run refused refused.conf "$who: .*Couldn't connect to server"
healthy_run refused relay.conf
relayed refused

new_case hang
fault 'hang /'
fault_run hang relay.conf "$who: .*timed out"
fault
healthy_run hang relay.conf
relayed hang

new_case drop
fault "drop $list"
fault_run drop relay.conf "$who: .*transfer closed"
fault
healthy_run drop relay.conf
relayed drop

new_case tls
tls_cert server
stop "$proxy_pid"
start_fault_proxy "$emu_url" --tls-cert "$tmp/server.crt" \
	--tls-key "$tmp/server.key"
conf "$proxy_url" >tls.conf
fault_run tls tls.conf \
	"$who: .*'https://127.0.0.1:$proxy_port[^']*' failed: the server's certificate is not trusted \(.*\): none of the system's CAs signed it; set ca-file to the CA that did"
stop "$proxy_pid"
start_fault_proxy "$emu_url"
conf "$proxy_url" >relay.conf
healthy_run tls relay.conf
relayed tls

for f in 500 502 503; do
	new_case "s$f"
	fault "$f GET /"
	fault_run "s$f" relay.conf "$who: .*HTTP status $f"
	fault
	healthy_run "s$f" relay.conf
	relayed "$f"
done

# told to wait: the next pass asks nothing before the time, then relays
for f in 429,retry-after=2 403,reset=+2; do
	new_case "s${f%%,*}"
	fault "$f GET /"
	until=$(($(date +%s) + 2))
	fault_run "s${f%%,*}" relay.conf "$who: .*rate limited until"
	fault
	: >proxy.log
	"$PATCHRELAY" run -c relay.conf --once 2>"s${f%%,*}.early.log" || :
	[ ! -s proxy.log ] || fail "$f: asked before the time: $(cat proxy.log)"
	wait_until "$until"
	healthy_run "s$f" relay.conf
	relayed "$f"
done

for f in truncate garbage; do
	new_case "$f"
	fault "$f $list"
	fault_run "$f" relay.conf "$who: .*$list"
	fault
	healthy_run "$f" relay.conf
	relayed "$f"
done

# the request's commits, fetched over git's smart HTTP from the forge
for f in 500 drop; do
	new_case "git$f"
	fault "$f /git/"
	fault_run "git$f" relay.conf "$who: .*fetch .*127.0.0.1:$proxy_port/git/"
	fault
	healthy_run "git$f" relay.conf
	relayed "git $f"
done

# the report comment refused: the mail is relayed, the report owed; the
# next pass posts it (once)
new_case report
fault "500 $comment"
rc=0
"$PATCHRELAY" run -c relay.conf --once 2>report.log || rc=$?
# --once says the report is owed: exit 3, and the pass line counts it
[ "$rc" -eq 3 ] || fail "report: exit $rc, not 3: $(cat report.log)"
grep -q ', 1 report(s) owed' report.log || fail "report: $(cat report.log)"
grep -Eq "\[$forge:fg\] feedback on 'kernel/net#[0-9]+': POST .*500" \
	report.log || fail "report: $(cat report.log)"
grep -q "fault 500: POST" proxy.log || fail "report: no comment was refused"
[ "$(mail_count out)" -eq "$want" ] || fail "report: the mail waits"
fault
healthy_run report relay.conf
relayed report

# the daemon (interval 1 s): two passes meet a 502; it backs off (2 s,
# then 4 s) and relays once the server answers
new_case daemon
fault '502,count=2 GET /'
all_there() { [ "$(mail_count out)" -ge "$want" ]; }
daemon_recovers relay.conf all_there ''
relayed "daemon (after $took s)"
echo "$me: ok"
