# Sourced by the relay_*.sh tests (the forge sinks and the reply relay),
# after lib.sh, which it sources: a real public-inbox archive of a
# 3-patch series and its v2, a forge emulator, aiosmtpd.  The caller's
# cwd becomes $tmp.
#
#   relay_tree            tree/ (main: a.txt, b.txt) and its topic of 3
#                         patches by Ada, mailed as v1/*.patch (cover and
#                         base-commit) and v2/*.patch (patch 2 changed,
#                         threaded into v1's cover)
#   relay_pi FILE...      start public-inbox-httpd on the mails: $PI_URL
#   list_add FILE...      more mails on the list, arriving now
#   relay_emulator FORGE  start tests/emulators/FORGE.py: $B (its root),
#                         $API (the api-url), users ada, relay-bot (the
#                         sink's token tok-sink), relay-src (the source's
#                         token tok-src), grace (tok-grace); repo kernel/net
#                         from tree's main
#   relay_smtpd           aiosmtpd into box/: $SMTP_PORT
#   relay_conf TYPE KEY [KEY=VALUE...]  relay.conf: the list and the forge
#                         bridged both ways
#   api METHOD PATH TOKEN [JSON]  the emulator's REST API as a user
#   reply FILE FROM SUBJECT IN-REPLY-TO REFERENCES BODY  a reply mail
#   mails                 how many mails aiosmtpd took
#   run_once              one `patchrelay run --once` of relay.conf, the
#                         committer pinned: its log appended to run.log
set -u
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || skip "no python3-aiosmtpd"
command -v public-inbox-httpd >/dev/null ||
	fail "public-inbox is missing (apt-get install public-inbox)"
tmpdir
cd "$tmp" || exit 1
export GH_TOKEN=tok-sink GH_SRC_TOKEN=tok-src

relay_tree() {
	(
		git_identity 'Ada Lovelace <ada@example.org>' '1796299200 +0200'
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
		git_identity 'Ada Lovelace <ada@example.org>' '1796385600 +0200'
		git checkout -q -b topic2 topic~2
		echo yy >>b.txt
		git commit -q -s -am 'b: add yy' -m 'Why yy, not y.'
		git cherry-pick topic >/dev/null || exit 1
		git format-patch -q -v2 --cover-letter --base=main --thread \
			--in-reply-to="<$(message_id ../v1/0000-cover-letter.patch)>" \
			-o ../v2 main..topic2 || exit 1
		sed -i 's/\*\*\* SUBJECT HERE \*\*\*/three small additions/;
			s/\*\*\* BLURB HERE \*\*\*/Why the three are needed, v2./' \
			../v2/v2-0000-cover-letter.patch
		git checkout -q main
	) || fail "making the series failed"
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
	start_public_inbox list $(received "$@")
	PI_URL=$(cat "$tmp/pi/url")
}

# more mails on the list, arriving now (a second after the last ones)
list_add() {
	sleep 1
	pi_add $(received "$@")
}

relay_emulator() {
	start_emulator "$1" "$tmp/emu"
	B=$emu_url
	API=$B
	[ "$1" = gitlab ] && API=$B/api/v4
	emu_ctl POST /_emu/users '{"login":"ada","token":"tok-ada","name":"Ada Lovelace","email":"ada@example.org"}' >/dev/null
	emu_ctl POST /_emu/users '{"login":"relay-bot","token":"tok-sink"}' >/dev/null
	emu_ctl POST /_emu/users '{"login":"relay-src","token":"tok-src"}' >/dev/null
	emu_ctl POST /_emu/users '{"login":"grace","token":"tok-grace","name":"Grace Hopper","email":"grace@example.org"}' >/dev/null
	emu_ctl POST /_emu/repos "{\"owner\":\"kernel\",\"repo\":\"net\",\"from\":\"$tmp/tree\",\"branch\":\"main\"}" >/dev/null
}

relay_smtpd() {
	start_smtpd "$tmp/box"
	SMTP_PORT=$smtpd_port
}

# relay_conf TYPE KEY [KEY=VALUE...]: relay.conf bridging the list (the
# public-inbox source and the smtp sink "netdev") and the forge TYPE (its
# source and sink "TYPE", the repository option KEY = kernel/net; the
# source's other KEY=VALUE lines given) both ways
relay_conf() {
	local type=$1 key=$2
	shift 2
	{
		conf_section core "state=$tmp/state.db"
		conf_section 'source "netdev"' type=public-inbox "url=$PI_URL" \
			wait=0s
		conf_section 'sink "netdev"' type=smtp \
			"url=smtp://127.0.0.1:$SMTP_PORT" starttls=never \
			'from=Patch Relay <relay@example.org>' to=list@example.org
		conf_section "source \"$type\"" "type=$type" "api-url=$API" \
			"$key=kernel/net" token=env:GH_SRC_TOKEN \
			mirror-reviews=true "cache-dir=$tmp/cache" "$@"
		conf_section "sink \"$type\"" "type=$type" "api-url=$API" \
			"$key=kernel/net" token=env:GH_TOKEN base=main
		conf_section "route \"list-to-$type\"" from=netdev "to=$type" \
			bridge=true
		conf_section "route \"$type-to-list\"" "from=$type" to=netdev \
			bridge=true
	} >relay.conf
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

mails() { mail_count "$tmp/box"; }

run_once() {
	GIT_COMMITTER_NAME='Patch Relay' GIT_COMMITTER_EMAIL=relay@example.org \
		GIT_COMMITTER_DATE='@1796400000 +0000' \
		"$PATCHRELAY" run --once -c relay.conf >>run.log 2>&1 ||
		fail "run --once failed: $(tail -20 run.log)"
}
