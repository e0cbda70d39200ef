#!/bin/sh
# Two 2-patch series of one submitter, with the same Date ("refused" and
# "hang", as fault_smtp.sh once made them), relayed from a mail source to
# the smtp sink, a real SMTP server (tests/servers/smtpd.py) counting what
# it takes: each patch arrives once, under its own series' thread, none
# lost, mixed into the other series or sent twice.  Through the maildir,
# mbox and imap (a real dovecot) sources; without cover letters and with
# format-patch's (both "*** SUBJECT HERE ***"); the two series read in one
# pass, and one pass each (the second re-reads the first's last mail).
set -eu
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || skip "no python3-aiosmtpd"
tmpdir
cd "$tmp"
git_alone
git_identity 'Ada Demo <ada@example.org>' '1796299200 +0000'
git_repo repo
start_dovecot bot 'imap secret'
printf 'imap secret' >pw
imap_url="imap://127.0.0.1:$imap_port/"

# make NAME COVER: the mails of a 2-patch series NAME in $tmp/NAME-COVER/,
# with format-patch's cover letter when COVER is "cover"
make() {
	local i=1 c=
	[ "$2" = cover ] && c=--cover-letter
	git -C repo checkout -q -B "$1" main
	while [ "$i" -le 2 ]; do
		echo "$1 $i" >>"repo/$1.c"
		git -C repo add "$1.c" &&
			git -C repo commit -q -m "$1: change $i of $1" ||
			fail "make $1: commit $i"
		i=$((i + 1))
	done
	git -C repo format-patch -q --thread $c -o "$tmp/$1-$2.fp" main.."$1" ||
		fail "make $1: format-patch"
	mkdir -p "$1-$2"
	# format-patch names a cover letter by the second it ran in: the
	# two series' would be one Message-ID when made in the same second
	for i in "$1-$2.fp"/*; do
		sed "1d; s/<cover\./<cover.$1./" "$i" >"$1-$2/$1-${i##*/}"
	done
}
for s in refused hang; do
	make "$s" plain
	make "$s" cover
done

# deliver SRC DIR NAME NR: the mails of NAME into case DIR's source
deliver() {
	case $1 in
	maildir) maildir_series "$2/list" "$3" "$4" ;;
	mbox) mbox_series "$2/list" "$3" ;;
	imap) imap_append "$imap_url" "$(basename "$2")" "$tmp/$3"/* ;;
	esac
}

# taken BOX: how many mails the server took in BOX
taken() {
	find "$1/new" "$1/cur" -type f | wc -l
}

# check BOX COVER: the server took two threads (a thread: a mail's first
# References id, else its own Message-ID), each of one series, its 1/2
# and 2/2 once and, when COVER is "cover", its cover letter once
check() {
	$PY - "$@" <<'EOF'
import email, os, re, sys
box, cover = sys.argv[1], sys.argv[2] == "cover"
threads = {}
for sub in ("new", "cur"):
    for f in sorted(os.listdir(os.path.join(box, sub))):
        with open(os.path.join(box, sub, f), "rb") as fp:
            m = email.message_from_binary_file(fp)
        refs = (m.get("References") or m["Message-ID"]).split()
        s = re.match(r"\[PATCH (\d)/2\] (?:(\w+): change (\d) of (\w+))?",
                     str(m["Subject"]))
        if not s:
            sys.exit("%s: a mail not of the two series: %s" % (box, m["Subject"]))
        name = "cover" if s.group(1) == "0" else "%s %s/2" % (s.group(2), s.group(1))
        threads.setdefault(refs[0], []).append(name)
want = set()
for t in threads.values():
    names = sorted(t)
    series = {n.split()[0] for n in names if n != "cover"}
    ok = len(series) == 1
    if ok:
        s = series.pop()
        want.add(s)
        ok = names == sorted(["%s 1/2" % s, "%s 2/2" % s] + ["cover"] * cover)
    if not ok:
        sys.exit("%s: a thread of %s" % (box, ", ".join(names)))
if want != {"refused", "hang"}:
    sys.exit("%s: the threads at the server: %s" % (box, list(threads.values())))
EOF
}

bad=
for src in maildir mbox imap; do
	for cover in plain cover; do
		for way in once apart; do
			d=$tmp/$src-$cover-$way
			mkdir -p "$d"
			[ "$src" = imap ] &&
				icurl "$imap_url" -X "CREATE $src-$cover-$way" >/dev/null
			start_smtpd "$d/box"
			{
				conf_section core "state=$d/state.db"
				case $src in
				imap) conf_section 'source "list"' type=imap \
					"url=$imap_url$src-$cover-$way" user=bot \
					"password=file:$tmp/pw" starttls=never ;;
				*) conf_section 'source "list"' "type=$src" \
					"path=$d/list" ;;
				esac
				conf_section 'sink "out"' type=smtp \
					"url=smtp://127.0.0.1:$smtpd_port" \
					starttls=never from=relay@example.org \
					to=list@example.org
				conf_section 'route "r"' from=list to=out
			} >"$d/relay.conf"
			deliver "$src" "$d" "refused-$cover" 1
			if [ "$way" = apart ]; then
				healthy_run "$src-$cover-$way.1" "$d/relay.conf"
				[ "$(taken "$d/box")" -gt 0 ] ||
					fail "$src-$cover-$way: the first pass sent nothing"
			fi
			deliver "$src" "$d" "hang-$cover" 2
			healthy_run "$src-$cover-$way" "$d/relay.conf"
			stop "$smtpd_pid"
			if (check "$d/box" "$cover"); then
				echo "$me: $src, $cover, $way: each patch once, in its own series"
			else
				bad="$bad $src-$cover-$way"
			fi
		done
	done
done
[ -z "$bad" ] || fail "wrong at the server:$bad"
