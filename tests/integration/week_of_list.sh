#!/bin/sh
# A week of a mailing list (week_of_list.py writes it: many series and
# versions, threaded and not, replies interleaved, b4 change-ids, an
# unlabeled revision, a resend, a partial re-roll, a series resent whole
# after one of its patches was lost, an orphaned patch, two
# submitters at the same minute) assembles into the same series whichever
# source reads it: the mbox source (the week as one file), the maildir
# source (one file per mail, its mtime its Date), the imap source (APPENDed
# into a real dovecot) and the public-inbox source (imported into a real
# public-inbox, read over public-inbox-httpd).  The mbox source's reading
# is compared with what the generator says each posting is and how they
# join (tests/integration/series_cases.py); the other three must print the
# same `patchrelay poll --json`.  Then the week arrives a day at a time,
# appended to one mbox polled after each day: nothing is emitted twice
# (a version again only when it got more mails), every reply once, and
# what was emitted is what the one-shot reading gives; and a day at a time
# into a maildir (one file a mail, its mtime its Date): every mail, none
# twice, no version mixing two series.
set -eu
tmp=$(mktemp -d)
servers="$PR_SRC/tests/servers"
[ -n "${KEEP:-}" ] && echo "$tmp"
cleanup() {
	sh "$servers/dovecot.sh" stop "$tmp/dovecot" 2>/dev/null || true
	sh "$servers/public_inbox.sh" stop "$tmp/pi" 2>/dev/null || true
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"
py=/usr/bin/python3
here="$PR_SRC/tests/integration"

fail() { echo "week_of_list.sh: $*" >&2; exit 1; }

# what a poll printed, without the source name and the cursor
strip() {
	$py -c 'import json,sys
d = json.load(open(sys.argv[1]))
del d["cursor"], d["source"]
print(json.dumps(d, indent=1, sort_keys=True))' "$1"
}

poll() { # poll NAME CONF [ARGS...]
	n=$1 c=$2
	shift 2
	"$PATCHRELAY" poll -c "$c" list --json "$@" >"$n.json" 2>"$n.err" ||
		fail "poll $n failed: $(cat "$n.err")"
}

mkdir days
$py "$here/week_of_list.py" week.mbox expected days || fail "generator"
nr=$(grep -c '^From ' week.mbox)
[ "$nr" -gt 50 ] || fail "only $nr mails in the week"

# (a) the mbox source: the whole week in one file
mkdir mb
cp week.mbox mb/
printf '[source "list"]\n\ttype = mbox\n\tpath = %s/mb\n' "$tmp" >mb.conf
poll mb mb.conf
$py "$here/series_cases.py" expected week week.mbox poll mb.json ||
	fail "the mbox source does not group the week as expected"
strip mb.json >mb.got
# the assembler alone lists the superseded posting the sources leave out
"$PATCHRELAY" parse --json week.mbox >parse.json 2>parse.err ||
	fail "parse: $(cat parse.err)"
$py "$here/series_cases.py" expected week week.mbox parse parse.json ||
	fail "patchrelay parse does not group the week as expected"

# (b) the maildir source: one file per mail, its mtime its Date
mkdir -p md/new md/cur md/tmp
git mailsplit -omd/new week.mbox >/dev/null || fail "mailsplit"
for f in md/new/*; do
	touch -d "$(sed -n 's/^Date: //p' "$f" | head -n 1)" "$f"
done
printf '[source "list"]\n\ttype = maildir\n\tpath = %s/md\n' "$tmp" >md.conf
poll md md.conf
strip md.json >md.got
diff -u mb.got md.got >md.diff || fail "maildir differs: $(head -50 md.diff)"

# (c) imap: the mails APPENDed in order into mailbox "list"
sh "$servers/dovecot.sh" start "$tmp/dovecot" bot 'imap secret' ||
	fail "dovecot did not start"
imap="imap://127.0.0.1:$(cat dovecot/port)"
icurl() { curl -sS --max-time 20 -u 'bot:imap secret' "$@"; }
icurl "$imap/" -X 'CREATE list' >/dev/null || fail "CREATE list failed"
for f in md/new/*; do
	sed 's/$/\r/' "$f" >crlf.eml
	icurl -T crlf.eml "$imap/list" || fail "APPEND of $f failed"
done
printf 'imap secret' >pw
cat >imap.conf <<CONF
[source "list"]
	type = imap
	url = imaps://127.0.0.1:$(cat dovecot/tls-port)/list
	ca-file = $tmp/dovecot/ca.pem
	user = bot
	password = file:$tmp/pw
	timeout = 20s
CONF
poll imap imap.conf
strip imap.json >imap.got
diff -u mb.got imap.got >imap.diff || fail "imap differs: $(head -50 imap.diff)"
sh "$servers/dovecot.sh" stop "$tmp/dovecot"

# (d) public-inbox, every page of the feed
sh "$servers/public_inbox.sh" start "$tmp/pi" week md/new/* ||
	fail "public-inbox did not start"
cat >pi.conf <<CONF
[source "list"]
	type = public-inbox
	url = $(cat pi/url)
	timeout = 20s
	max-pages = 0
CONF
poll pi pi.conf
strip pi.json >pi.got
diff -u mb.got pi.got >pi.diff ||
	fail "public-inbox differs: $(head -50 pi.diff)"
sh "$servers/public_inbox.sh" stop "$tmp/pi"

# (e) a day at a time, appended to one mbox, each poll from the cursor the
# one before printed; (f) the same into a maildir, one file per mail, its
# mtime its Date (the keys of later versions differ: see below)
mkdir -p grow growmd/new growmd/cur growmd/tmp
printf '[source "list"]\n\ttype = mbox\n\tpath = %s/grow\n' "$tmp" >grow.conf
printf '[source "list"]\n\ttype = maildir\n\tpath = %s/growmd\n' "$tmp" >growmd.conf
# add SRC DAY: the mails of day DAY into the source SRC
add() {
	if [ "$1" = mbox ]; then
		cat "days/day-$2.mbox" >>grow/list.mbox
		# the mtime moves on even within one second
		touch -d "@$((1800000000 + $2))" grow/list.mbox
		return
	fi
	rm -rf split && mkdir split
	git mailsplit -osplit "days/day-$2.mbox" >/dev/null || fail "mailsplit"
	for f in split/*; do
		touch -d "$(sed -n 's/^Date: //p' "$f" | head -n 1)" "$f"
		mv "$f" "growmd/new/d$2-${f##*/}"
	done
}
for src in mbox maildir; do
	conf=grow.conf
	[ "$src" = maildir ] && conf=growmd.conf
	cursor=
	for day in 0 1 2 3 4 5 6; do
		add "$src" "$day"
		if [ -n "$cursor" ]; then
			poll "$src-day$day" "$conf" --cursor "$cursor"
		else
			poll "$src-day$day" "$conf"
		fi
		c=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["cursor"] or "")' "$src-day$day.json")
		[ -n "$c" ] || fail "$src: day $day: no cursor"
		cursor=$c
	done
	poll "$src-idle" "$conf" --cursor "$cursor"
	$py - "$src" mb.json "$src"-day0.json "$src"-day1.json "$src"-day2.json \
		"$src"-day3.json "$src"-day4.json "$src"-day5.json \
		"$src"-day6.json "$src"-idle.json <<'PYEOF' ||
import json, sys
src = sys.argv[1]
whole = json.load(open(sys.argv[2]))
days = [json.load(open(p)) for p in sys.argv[3:-1]]
idle = json.load(open(sys.argv[-1]))
assert idle['events'] == [] and idle['cursor'] is None, idle['events']

def mails(v):
    return set([v['cover']] if v['cover'] else []) | \
        set(p['message_id'] for p in v['patches'])

got, seen, comments = {}, set(), 0
for d in days:
    comments += len(d['comments'])
    for key, s in d['series'].items():
        vs = got.setdefault(key, [])
        for v in s['versions']:
            sig = (key, v['version'], tuple(sorted(mails(v))))
            assert sig not in seen, 'emitted twice: %s' % (sig,)
            seen.add(sig)
            for i, w in enumerate(vs):
                if w['version'] == v['version'] and mails(w) <= mails(v):
                    vs[i] = v
                    break
            else:
                vs.append(v)
want = {k: s['versions'] for k, s in whole['series'].items()}
for vs in list(want.values()) + list(got.values()):
    for v in vs:
        for p in v['patches']:
            p['trailers'] = []
assert comments == len(whole['comments']), (comments, len(whole['comments']))
if src == 'maildir':
    # A poll reads the mails since the cursor: a later version in a
    # thread of its own gets a key of its own, and a partial re-roll is
    # not filled from a version an earlier poll read.  Still every mail
    # arrives, none twice (above), and no version mixes two series.
    def own(vs):
        return set().union(*[mails(v) for v in vs]) if vs else set()
    every = own([v for vs in want.values() for v in vs])
    assert own([v for vs in got.values() for v in vs]) == every
    for k, vs in got.items():
        for v in vs:
            assert any(mails(v) <= own(w) for w in want.values()), (k, v)
else:
    assert got == want, json.dumps({'got': got, 'want': want}, indent=1)
PYEOF
		fail "$src: the week a day at a time differs"
done
echo "week_of_list.sh: $nr mails, $(grep -c '^series' expected) versions: ok"
