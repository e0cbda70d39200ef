# Sourced by the gerrit_*.sh tests (set NAME first), and by tests that
# source lib.sh first (its tmpdir and at_exit are used then): a temporary directory
# ($tmp, the working directory), the Gerrit emulator behind a real sshd
# (tests/servers/gerrit.sh; its env is sourced: GERRIT_*), aiosmtpd into
# $tmp/box when SMTP=1, a project "kernel" made from the small tree of
# tests/data/route/tree (its own MAINTAINERS) plus the pre-images of the
# seed junk patch's files, and helpers.  Exits 77 when a server cannot run.
PY=/usr/bin/python3
fail() {
	echo "$NAME: $*" >&2
	exit 1
}
skip() {
	echo "$NAME: $*: skipped"
	exit 77
}
$PY -c 'import aiosmtpd' 2>/dev/null || skip "no python3-aiosmtpd"
[ -x /usr/sbin/sshd ] || skip "no openssh-server"
ls /usr/lib/*/libnss_wrapper.so >/dev/null 2>&1 || skip "no libnss-wrapper"
[ -d /run/sshd ] || [ "$(id -u)" = 0 ] || skip "no /run/sshd"
# libgit2 1.5's ssh transport leaks what it loads on every connection;
# every fetch and push runs in a child process that ends with _exit()
# (connectors/gitnet.h), so a sanitized relay needs no suppression: a
# leak LeakSanitizer finds is the relay's own
smtp=
daemon=
servers_stop() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
	[ -n "$smtp" ] && kill "$smtp" 2>/dev/null
	sh "$PR_SRC/tests/servers/gerrit.sh" stop "$tmp/emu" >/dev/null 2>&1
	# a session may still be writing its log as sshd goes
	sleep 0.2
}
cleanup() {
	servers_stop
	if [ -n "${KEEP:-}" ]; then echo "kept $tmp" >&2; else
		rm -rf "$tmp" 2>/dev/null || { sleep 1; rm -rf "$tmp"; }
	fi
}
# after lib.sh (the fault and crash tests): its $tmp, spawn and at_exit
if command -v at_exit >/dev/null 2>&1; then
	tmpdir
	at_exit servers_stop
else
	tmp=$(mktemp -d) || exit 1
	trap cleanup EXIT
fi
cd "$tmp" || exit 1

sh "$PR_SRC/tests/servers/gerrit.sh" start "$tmp/emu" >emu.out 2>&1 ||
	fail "the emulator did not start: $(cat emu.out)"
. "$tmp/emu/env"
ctl() { $GERRIT_CTL "$@" || fail "knob $* failed"; }

wait_file() { # FILE ERRFILE WHAT
	n=0
	while [ ! -s "$1" ]; do
		n=$((n + 1))
		[ "$n" -gt 150 ] && fail "$3 did not start: $(cat "$2")"
		sleep 0.1
	done
}
if [ "${SMTP:-1}" = 1 ]; then
	$PY "$PR_SRC/tests/servers/smtpd.py" --maildir "$tmp/box" \
		--log box.log --port-file smtp.port 2>smtp.err &
	smtp=$!
	wait_file smtp.port smtp.err smtpd
fi
mails() { find "$tmp/box/new" "$tmp/box/cur" -type f 2>/dev/null | wc -l; }

export GIT_AUTHOR_NAME='Alice Owner' GIT_AUTHOR_EMAIL=alice@example.com
export GIT_COMMITTER_NAME='Alice Owner' GIT_COMMITTER_EMAIL=alice@example.com
export GIT_AUTHOR_DATE='@1796299200 +0000' GIT_COMMITTER_DATE='@1796299200 +0000'
SEED=/work/shared/seeds/001-commit-8042783592c5-fixed-bug-where-yes-and-no-are-mixed-up.patch
[ -f "$SEED" ] || SEED="$PR_SRC/../shared/seeds/001-commit-8042783592c5-fixed-bug-where-yes-and-no-are-mixed-up.patch"

# The seed's files as they were before it: each file holds the old side of
# its hunks, at their line numbers, so that the seed applies with git apply.
seed_preimages() { # DIR
	$PY - "$SEED" "$1" <<'PYEOF'
import os, re, sys
lines = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\n")
files, cur, i = {}, None, 0
while i < len(lines):
    l = lines[i]
    if l.startswith("diff --git "):
        cur = l.split(" b/", 1)[1]
        files[cur] = []
    elif l.startswith("@@ ") and cur:
        start = int(re.match(r"@@ -(\d+)", l).group(1))
        old = []
        i += 1
        while i < len(lines) and lines[i][:1] in (" ", "-", "+", "\\"):
            if lines[i][:1] in (" ", "-"):
                old.append(lines[i][1:])
            i += 1
        files[cur].append((start, old))
        continue
    i += 1
for f, hunks in files.items():
    out = []
    for start, old in hunks:
        out.extend([""] * (start - 1 - len(out)))
        out.extend(old)
    p = os.path.join(sys.argv[2], f)
    os.makedirs(os.path.dirname(p) or ".", exist_ok=True)
    open(p, "w", encoding="utf-8", errors="surrogateescape").write("\n".join(out) + "\n")
PYEOF
}

cp -r "$PR_SRC/tests/data/route/tree" tree
if [ -f "$SEED" ]; then
	seed_preimages tree || fail "seed pre-images"
fi
git -C tree init -q -b master
git -C tree add -A
git -C tree commit -q -m base
ctl create-project name=kernel from="$tmp/tree" >/dev/null

# clone USER DIR: a clone of kernel over ssh as USER
clone() {
	GIT_SSH_COMMAND=$(eval echo "\$GERRIT_GIT_SSH_$1") \
		git clone -q "ssh://$1@127.0.0.1:$GERRIT_SSH_PORT/kernel" "$2" ||
		fail "clone as $1"
}
# push USER DIR REFSPEC: git push over ssh, Gerrit's answer on stdout
push() {
	(cd "$2" && GIT_SSH_COMMAND=$(eval echo "\$GERRIT_GIT_SSH_$1") \
		git push origin "$3" 2>&1) || fail "push $3 as $1"
}
# commit DIR FILE SUBJECT: a commit with a Change-Id, as Gerrit's hook adds
commit() {
	echo "int $(echo "$3" | tr -c 'a-z0-9\n' _);" >>"$1/$2"
	cid=I$(printf '%s' "$1 $2 $3" | sha1sum | cut -c1-40)
	git -C "$1" commit -q -s -a -m "$3" -m "Why: $3." -m "Change-Id: $cid" ||
		fail "commit $3"
}
# source_keys: the keys of a [source] section reading the emulator as
# relay (its key, the known hosts, project kernel, the cache in $tmp/cache,
# the HTTP password in $GR_PW), for a config's here-document
source_keys() {
	cat <<KEYS
	type = gerrit
	ssh-url = $GERRIT_SSH_URL
	ssh-key = $GERRIT_KEY_relay
	known-hosts = $GERRIT_KNOWN_HOSTS
	rest-url = $GERRIT_REST_URL
	user = relay
	password = env:GR_PW
	project = kernel
	cache-dir = $tmp/cache
KEYS
}
# change_conf CORE SOURCE: relay.conf, each change of project kernel a
# series (source "gr", trigger auto) mailed to list@example.org through
# aiosmtpd (sink "list", route "r"); CORE and SOURCE: more lines (tab,
# key = value) of [core] and [source "gr"]
change_conf() {
	cat >relay.conf <<CONF
[core]
	state = $tmp/state.db
$1
[source "gr"]
$(source_keys)
	trigger = auto
	series = change
	max-commits = 0
$2
[sink "list"]
	type = smtp
	url = smtp://127.0.0.1:$(cat smtp.port)
	starttls = never
	from = Patch Relay <relay@example.org>
	to = list@example.org
[route "r"]
	from = gr
	to = list
CONF
}
# rest PATH: an authenticated GET as relay, the JSON (guard cut) on stdout
rest() {
	curl -sf -u "relay:$GERRIT_HTTP_PASSWORD_relay" "$GERRIT_REST_URL/a$1" |
		tail -c +5
}
# messages N: "user|tag|labels|message" lines of change N, oldest first
messages() {
	rest "/changes/$1?o=MESSAGES&o=DETAILED_ACCOUNTS" | $PY -c 'import json, sys
c = json.load(sys.stdin)
for m in c.get("messages", []):
    print("%s|%s|%s" % (m.get("author", {}).get("username", ""),
        m.get("tag", ""), m["message"].replace("\n", " ")))'
}
# vote N LABEL: relay's vote on LABEL of change N ("" when none)
vote() {
	rest "/changes/$1?o=DETAILED_LABELS" | $PY -c 'import json, sys
c = json.load(sys.stdin)
for v in c.get("labels", {}).get(sys.argv[1], {}).get("all", []):
    if v.get("_account_id") == 1000003 and v.get("value"):
        print(v["value"])' "$2"
}
