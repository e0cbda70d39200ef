#!/bin/sh
# A catch-up read in parts (connectors/mailsrc.h, pr_mailsrc_parts): with
# PATCHRELAY_MAIL_PART=2, a part of two new mails, every series of three
# patches is split across a part boundary.  Polled from the public-inbox
# source (a real public-inbox-httpd), the imap source (a real dovecot), the
# maildir source and the mbox source (a file a mail), the parts give the
# same series, each once and complete, as the catch-up read whole, and the
# ack once; public-inbox fetched some threads again (proof that the parts
# were parts).  Then a relay into a maildir, in parts, killed with -9 at
# random points of its catch-up and run again until it is done: the mails
# of the relay that was not killed, each once.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
cd "$tmp"

pi_one_patch
# six series of three patches, a minute apart, then an ack of s2's second
for i in 1 2 3 4 5 6; do
	git_identity "Dev $i <dev$i@example.org>" "$((1796299200 + i * 60)) +0000"
	series_mails repo "s$i" 3
done
mid=$(sed -n 's/^Message-I[Dd]: *<\(.*\)>.*/\1/p' "$tmp"/s2/0002-*)
root=$(sed -n 's/^Message-I[Dd]: *<\(.*\)>.*/\1/p' "$tmp"/s2/0001-*)
cat >ack.eml <<EOF
From: Carol Acker <carol@example.org>
Date: $(date -u -R -d @1796299800)
Subject: Re: [PATCH 2/3] s2: change 2 of s2
Message-ID: <ack-s2@example.org>
In-Reply-To: <$mid>
References: <$root> <$mid>

Acked-by: Carol Acker <carol@example.org>
EOF
conf_section 'source "list"' type=public-inbox "url=$(cat pi/url)" \
	timeout=20s max-pages=0 >pi.conf
"$PATCHRELAY" poll -c pi.conf list --json >base.json 2>base.err ||
	fail "the first poll: $(cat base.err)"
cursor=$(poll_cursor base.json)
[ -n "$cursor" ] || fail "the first poll gave no cursor: $(cat base.json)"
pi_add "$tmp"/s[1-6]/* ack.eml

# poll NAME CONF PART: the catch-up from $cursor in parts of PART mails
# (0: the default), into NAME.json, its requests into NAME.err
poll() {
	if [ "$3" -gt 0 ]; then
		PATCHRELAY_MAIL_PART=$3 PATCHRELAY_TRACE=http "$PATCHRELAY" \
			poll -c "$2" list --json --cursor "$cursor" >"$1.json" \
			2>"$1.err"
	else
		PATCHRELAY_TRACE=http "$PATCHRELAY" poll -c "$2" list --json \
			--cursor "$cursor" >"$1.json" 2>"$1.err"
	fi || fail "poll $1: $(tail -5 "$1.err")"
}
# same WHOLE PARTS: the same series and versions, each series once and
# complete, the ack once (in a comment event)
same() {
	$PY - "$1.json" "$2.json" <<'EOF' || fail "$2 differs from $1"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for d in a, b:
    ser = sorted(e["series"] for e in d["events"] if e["kind"] == "series")
    assert len(ser) == 6 and len(set(ser)) == 6, ser
    for k in ser:
        v = d["series"][k]["versions"]
        assert len(v) == 1 and v[0]["complete"] and len(v[0]["patches"]) == 3, v
    acks = [c for c in d["events"] if c["kind"] == "comment"
            and c["from"] == "carol@example.org"]
    assert len(acks) == 1, acks
    assert acks[0]["trailers"] == ["Acked-by: Carol Acker <carol@example.org>"], acks
assert a["series"] == b["series"], (a["series"], b["series"])
EOF
}

poll whole pi.conf 0
poll parts pi.conf 2
same whole parts
w=$(grep -c 't.mbox.gz HTTP' whole.err) p=$(grep -c 't.mbox.gz HTTP' parts.err)
[ "$p" -gt "$w" ] || fail "in parts of 2, $p thread fetches, whole $w: no parts?"
echo "mail_parts.sh: public-inbox: whole and in parts of 2 agree ($w and $p thread fetches)"

# the imap source, from the beginning: the same with parts of 2
start_dovecot bot secret
imap_fill "imap://127.0.0.1:$imap_port/" list "$tmp"/s0/* "$tmp"/s[1-6]/* ack.eml
printf 'secret' >pw
conf_section 'source "list"' type=imap \
	"url=imap://127.0.0.1:$imap_port/list" user=bot "password=file:$tmp/pw" \
	starttls=never timeout=20s >imap.conf
poll() {
	PATCHRELAY_MAIL_PART=$3 "$PATCHRELAY" poll -c "$2" list --json \
		>"$1.json" 2>"$1.err" || fail "poll $1: $(tail -5 "$1.err")"
}
poll iwhole imap.conf 1000
poll iparts imap.conf 2
$PY - iwhole.json iparts.json <<'EOF' || fail "imap in parts differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for d in a, b:
    ser = sorted(e["series"] for e in d["events"] if e["kind"] == "series")
    assert len(ser) == 7 and len(set(ser)) == 7, ser
    acks = [c for c in d["events"] if c["kind"] == "comment"]
    assert len(acks) == 1 and acks[0]["trailers"] == [
        "Acked-by: Carol Acker <carol@example.org>"], acks
assert a["series"] == b["series"], (a["series"], b["series"])
EOF
echo "mail_parts.sh: imap: whole and in parts of 2 agree"

# the maildir source, the same (each series its own second)
for i in 0 1 2 3 4 5 6; do
	maildir_series md "s$i" "$i"
done
cp ack.eml md/new/ && touch -d @1796300100 md/new/ack.eml
conf_section 'source "list"' type=maildir "path=$tmp/md" >md.conf
poll mwhole md.conf 1000
poll mparts md.conf 2
$PY - iwhole.json mwhole.json mparts.json <<'EOF' || fail "maildir in parts differs"
import json, sys
a, b, c = (json.load(open(f)) for f in sys.argv[1:])
for d in b, c:
    assert sorted(e["series"] for e in d["events"] if e["kind"] == "series") == \
        sorted(e["series"] for e in a["events"] if e["kind"] == "series")
    acks = [c for c in d["events"] if c["kind"] == "comment"]
    assert len(acks) == 1, acks
assert b["series"] == c["series"], (b["series"], c["series"])
EOF
echo "mail_parts.sh: maildir: whole and in parts of 2 agree"

# the mbox source, a file a mail (a part is whole files), the same
mkdir mb
for f in "$tmp"/s[0-6]/* ack.eml; do
	n=${f%/*}
	{ echo 'From patchrelay Mon Sep 17 00:00:00 2001' && cat "$f"; } \
		>"mb/${n##*/}-${f##*/}"
done
mv mb/*-ack.eml mb/z-ack.eml
conf_section 'source "list"' type=mbox "path=$tmp/mb" >mb.conf
poll bwhole mb.conf 1000
poll bparts mb.conf 2
$PY - bwhole.json bparts.json <<'EOF' || fail "mbox in parts differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for d in a, b:
    ser = [e["series"] for e in d["events"] if e["kind"] == "series"]
    assert len(ser) == 7 and len(set(ser)) == 7, ser
    acks = [c for c in d["events"] if c["kind"] == "comment"]
    assert len(acks) == 1, acks
assert a["series"] == b["series"], (a["series"], b["series"])
EOF
echo "mail_parts.sh: mbox: whole and in parts of 2 agree"

# the relay in parts of 2, not killed, and killed at random points of its
# catch-up
for c in ref relay; do
	{
		conf_section core "state=$tmp/$c.db"
		cat imap.conf
		conf_section 'sink "inbox"' type=maildir "path=$tmp/$c"
		conf_section 'route "r"' from=list to=inbox
	} >$c.conf
done
t0=$(date +%s%3N)
PATCHRELAY_MAIL_PART=2 "$PATCHRELAY" run -c ref.conf --once 2>ref.log ||
	fail "the relay: $(cat ref.log)"
span=$(($(date +%s%3N) - t0))
subjects() { grep -h '^Subject:' "$1"/new/* "$1"/cur/* 2>/dev/null | sort; }
subjects ref >ref.subjects
[ "$(wc -l <ref.subjects)" -ge 19 ] || fail "the relay sent: $(cat ref.subjects)"
# each pass killed after a tenth to a half of what the whole relay took,
# until one gets to its end
PATCHRELAY_MAIL_PART=2
export PATCHRELAY_MAIL_PART
seed=${PR_CRASH_SEED:-$$}
echo "mail_parts.sh: crash seed $seed"
r=1 kills=0
while [ "$r" -le 30 ]; do
	delay=$(awk -v s="$seed" -v r="$r" -v span="$span" \
		'BEGIN { srand(s * 100 + r); printf "%.3f", (0.1 + rand() * 0.4) * span / 1000 }')
	"$PATCHRELAY" run -c relay.conf --once 2>"kill$r.log" &
	pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null || :
	rc=0
	wait "$pid" 2>/dev/null || rc=$?
	[ "$rc" -eq 137 ] || break
	kills=$((kills + 1))
	r=$((r + 1))
done
[ "$kills" -ge 2 ] || fail "only $kills kills hit a running pass"
"$PATCHRELAY" run -c relay.conf --once 2>last.log ||
	fail "the pass after the kills: $(cat last.log)"
subjects relay >relay.subjects
diff ref.subjects relay.subjects >relay.diff ||
	fail "killed, the relay sent other mails: $(cat relay.diff)"
echo "mail_parts.sh: killed $kills times in parts of 2: $(wc -l <ref.subjects) mails, each once"
