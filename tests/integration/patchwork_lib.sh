# Sourced by the patchwork tests: tests/emulators/patchwork.py started in
# $tmp (the caller's temporary directory, its cleanup kills $emu), and
# its control API.  The caller defines fail() and PY.

$PY "$PR_SRC/tests/emulators/patchwork.py" --root "$tmp/emu" \
	--port-file "$tmp/emu.port" 2>"$tmp/emu.err" &
emu=$!
n=0
while [ ! -s "$tmp/emu.port" ]; do
	n=$((n + 1))
	[ "$n" -gt 150 ] && fail "emulator did not start: $(cat "$tmp/emu.err")"
	sleep 0.1
done
B=http://127.0.0.1:$(cat "$tmp/emu.port")

# ctl PATH JSON: the emulator's control API
ctl() {
	curl -sf -X POST -H 'Content-Type: application/json' -d "$2" \
		"$B/_emu$1" >/dev/null || fail "emulator $1 failed"
}

# feed FILE...: the mails of mbox files, as the list got them
feed() {
	$PY -c 'import json, sys
print(json.dumps({"mbox": "".join(open(f).read() for f in sys.argv[1:])}))' \
		"$@" >"$tmp/feed.json"
	curl -sf -X POST -H 'Content-Type: application/json' \
		-d @"$tmp/feed.json" "$B/_emu/mail" >/dev/null ||
		fail "feeding $* failed"
}
