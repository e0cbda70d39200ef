# Sourced by the relay_*.sh tests (the forge sinks and the reply relay):
# a real public-inbox archive of a 3-patch series and its v2, a forge
# emulator, aiosmtpd.  Set NAME (the test's name) before sourcing; the
# caller's cwd becomes $tmp.
#
#   relay_tree            tree/ (main: a.txt, b.txt) and its topic of 3
#                         patches by Ada, mailed as v1/*.patch (cover and
#                         base-commit) and v2/*.patch (patch 2 changed,
#                         threaded into v1's cover)
#   relay_pi FILE...      start public-inbox-httpd on the mails: $PI_URL
#   pi_add FILE...        more mails on the list, arriving now
#   relay_emulator FORGE  start tests/emulators/FORGE.py: $B (its root),
#                         $API (the api-url), users ada, relay-bot (the
#                         sink's token tok-sink), relay-src (the source's
#                         token tok-src), grace (tok-grace); repo kernel/net
#                         from tree's main
#   relay_smtpd           aiosmtpd into box/: $SMTP_PORT
#   ctl METHOD PATH [JSON]  the emulator's control API
#   api METHOD PATH TOKEN [JSON]  its REST API as a user, body on stdout
#   reply FILE FROM SUBJECT IN-REPLY-TO REFERENCES BODY  a reply mail
#   mid FILE              a mail's Message-ID, without brackets
#   mails                 how many mails aiosmtpd took
#   run_once              one `patchrelay run --once` of relay.conf, the
#                         committer pinned: its log appended to run.log
set -u
PY=/usr/bin/python3
servers="$PR_SRC/tests/servers"
fail() {
	echo "$NAME: $*" >&2
	exit 1
}
$PY -c 'import aiosmtpd' 2>/dev/null || {
	echo "$NAME: no python3-aiosmtpd: skipped"
	exit 77
}
command -v public-inbox-httpd >/dev/null ||
	fail "public-inbox is missing (apt-get install public-inbox)"
tmp=$(mktemp -d) || exit 1
emu=
smtp=
cleanup() {
	[ -n "$emu" ] && kill "$emu" 2>/dev/null
	[ -n "$smtp" ] && kill "$smtp" 2>/dev/null
	sh "$servers/public_inbox.sh" stop "$tmp/pi" 2>/dev/null
	if [ -n "${KEEP:-}" ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
cd "$tmp" || exit 1
export GH_TOKEN=tok-sink GH_SRC_TOKEN=tok-src

wait_port() { # FILE ERRFILE WHAT
	n=0
	while [ ! -s "$1" ]; do
		n=$((n + 1))
		[ "$n" -gt 150 ] && fail "$3 did not start: $(cat "$2")"
		sleep 0.1
	done
}

relay_tree() {
	(
		export GIT_AUTHOR_NAME='Ada Lovelace'
		export GIT_AUTHOR_EMAIL=ada@example.org
		export GIT_COMMITTER_NAME='Ada Lovelace'
		export GIT_COMMITTER_EMAIL=ada@example.org
		export GIT_AUTHOR_DATE='1796299200 +0200'
		export GIT_COMMITTER_DATE='1796299200 +0200'
		git init -q -b main tree && cd tree || exit 1
		printf 'one\n' >a.txt
		printf 'x\n' >b.txt
		git add . && git commit -q -m base
		git checkout -q -b topic
		echo two >>a.txt
		git commit -q -s -am 'a: add two' -m 'Two is needed.'
		echo y >>b.txt
		git commit -q -s -am 'b: add y' -m 'Why y.'
		echo three >>a.txt
		git commit -q -s -am 'a: add three' -m 'Three too.'
		git format-patch -q --cover-letter --base=main --thread \
			-o ../v1 main..topic || exit 1
		sed -i 's/\*\*\* SUBJECT HERE \*\*\*/three small additions/;
			s/\*\*\* BLURB HERE \*\*\*/Why the three are needed./' \
			../v1/0000-cover-letter.patch
		# v2: patch 2 says yy, the others stay; sent under v1's cover
		# (a second later: format-patch's Message-IDs hold the time)
		sleep 1
		export GIT_AUTHOR_DATE='1796385600 +0200'
		export GIT_COMMITTER_DATE='1796385600 +0200'
		git checkout -q -b topic2 topic~2
		echo yy >>b.txt
		git commit -q -s -am 'b: add yy' -m 'Why yy, not y.'
		git cherry-pick topic >/dev/null || exit 1
		git format-patch -q -v2 --cover-letter --base=main --thread \
			--in-reply-to="<$(mid ../v1/0000-cover-letter.patch)>" \
			-o ../v2 main..topic2 || exit 1
		sed -i 's/\*\*\* SUBJECT HERE \*\*\*/three small additions/;
			s/\*\*\* BLURB HERE \*\*\*/Why the three are needed, v2./' \
			../v2/v2-0000-cover-letter.patch
		git checkout -q main
	) || fail "making the series failed"
}

mid() {
	grep -im1 '^Message-Id:' "$1" | sed 's/.*<\(.*\)>.*/\1/'
}

# Copies of mails as the list's server passes them on: a Received: line
# with the time of arrival (what the archive orders them by), in arrived/
received() {
	mkdir -p "$tmp/arrived"
	now=$(date -R)
	for f in "$@"; do
		out="$tmp/arrived/$(basename "$f").$(date +%s%N)"
		if head -1 "$f" | grep -q '^From '; then
			{ head -1 "$f"; echo "Received: by list.example.org; $now"
			  tail -n +2 "$f"; } >"$out"
		else
			{ echo "Received: by list.example.org; $now"; cat "$f"; } >"$out"
		fi
		echo "$out"
	done
}

relay_pi() {
	sh "$servers/public_inbox.sh" start "$tmp/pi" list $(received "$@") ||
		fail "public-inbox did not start"
	PI_URL=$(cat "$tmp/pi/url")
}

# more mails on the list, arriving now (a second after the last ones)
pi_add() {
	sleep 1
	sh "$servers/public_inbox.sh" add "$tmp/pi" $(received "$@") ||
		fail "adding $* to the archive failed"
}

relay_emulator() {
	$PY "$PR_SRC/tests/emulators/$1.py" --root "$tmp/emu" \
		--port-file emu.port 2>emu.err &
	emu=$!
	wait_port emu.port emu.err "$1 emulator"
	B=http://127.0.0.1:$(cat emu.port)
	API=$B
	[ "$1" = gitlab ] && API=$B/api/v4
	ctl POST /_emu/users '{"login":"ada","token":"tok-ada","name":"Ada Lovelace","email":"ada@example.org"}' >/dev/null
	ctl POST /_emu/users '{"login":"relay-bot","token":"tok-sink"}' >/dev/null
	ctl POST /_emu/users '{"login":"relay-src","token":"tok-src"}' >/dev/null
	ctl POST /_emu/users '{"login":"grace","token":"tok-grace","name":"Grace Hopper","email":"grace@example.org"}' >/dev/null
	ctl POST /_emu/repos "{\"owner\":\"kernel\",\"repo\":\"net\",\"from\":\"$tmp/tree\",\"branch\":\"main\"}" >/dev/null
}

relay_smtpd() {
	$PY "$servers/smtpd.py" --maildir "$tmp/box" --log box.log \
		--port-file smtp.port 2>smtp.err &
	smtp=$!
	wait_port smtp.port smtp.err smtpd
	SMTP_PORT=$(cat smtp.port)
}

ctl() {
	if [ $# -gt 2 ]; then
		curl -sf -X "$1" -H 'Content-Type: application/json' -d "$3" \
			"$B$2"
	else
		curl -sf -X "$1" "$B$2"
	fi || fail "emulator $1 $2 failed"
}

api() { # METHOD PATH TOKEN [JSON]
	if [ "${API%/api/v4}" != "$API" ]; then
		auth="PRIVATE-TOKEN: $3"
	else
		auth="Authorization: Bearer $3"
	fi
	if [ $# -gt 3 ]; then
		curl -sf -X "$1" -H "$auth" -H 'User-Agent: test' \
			-H 'Content-Type: application/json' -d "$4" "$API$2"
	else
		curl -sf -X "$1" -H "$auth" -H 'User-Agent: test' "$API$2"
	fi || fail "$1 $2 failed"
}

reply() { # FILE FROM SUBJECT IN-REPLY-TO REFERENCES BODY
	n=$(date +%s%N)
	printf 'From: %s\nTo: list@example.org\nSubject: %s\nDate: Thu, 3 Dec 2026 13:00:00 +0000\nMessage-ID: <reply.%s@example.org>\nIn-Reply-To: <%s>\nReferences: %s\n\n%s\n' \
		"$2" "$3" "$n" "$4" "$5" "$6" >"$1"
}

mails() { find "$tmp/box/new" "$tmp/box/cur" -type f 2>/dev/null | wc -l; }

run_once() {
	GIT_COMMITTER_NAME='Patch Relay' GIT_COMMITTER_EMAIL=relay@example.org \
		GIT_COMMITTER_DATE='@1796400000 +0000' \
		"$PATCHRELAY" run --once -c relay.conf >>run.log 2>&1 ||
		fail "run --once failed: $(tail -20 run.log)"
}
