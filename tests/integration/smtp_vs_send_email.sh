#!/bin/sh
# The smtp sink's From:, To:, Cc: and Subject: compared with what
# `git send-email` (the reference) sends for the same patches, the same
# sender and the same recipients, both through tests/servers/smtpd.py
# (aiosmtpd).  The names are the hard ones: non-ASCII, commas, quotes,
# backslashes, parentheses, several recipients, and names too long for one
# line.  Each address is given to both in its RFC 5322 form
# (`"Doe, Jane" <jane@example.org>`), as a user would type it.
#
# compare.py checks, for every mail:
# - the decoded values, always: each address's display name and addr-spec
#   and the Subject text, unfolded and decoded with Python's
#   email.utils.getaddresses and email.header.decode_header (not
#   email.policy.default: Python 3.11's structured-header parser puts a
#   space between two adjacent encoded words of a display name, against
#   RFC 2047 6.2, so "=?UTF-8?q?Papado?=\n =?UTF-8?q?poulou?=" would read
#   "Papado poulou");
# - the raw bytes of the header where git's form is within RFC 5322's
#   78-column line and RFC 2047's 75-byte encoded word;
# - where it is not, git is arguably wrong: send-email writes a non-ASCII
#   name as ONE encoded word however long (quote_rfc2047, no folding) and
#   a Subject unfolded on one line; patchrelay folds as format-patch does.
#   There the decoded values must still agree, every line of ours must
#   keep to 78 columns and every encoded word to 75 bytes, and a Subject
#   unfolded must be git's byte for byte;
# - the envelope recipients (RCPT TO), in order: To then Cc, deduplicated;
# - the body, starting with the in-body From: line of an author who is
#   not the sender, byte for byte.
#
# A third case takes the names from a route's maintainers step, as the
# maildir and mbox sinks get theirs, and checks that the maildir sink
# writes the smtp sink's To:, Cc: and Subject: bytes.
#
# Known, documented differences (docs/connectors/smtp.md) are not compared
# here: send-email drops an address comment ("Jane (kernel) <j@x>") and
# mangles an unquoted dotted name ("J. R. Dobbs <j@x>" becomes
# "J . R . Dobbs"); the inputs below are quoted so that neither applies.
set -u
. "$(dirname "$0")/lib.sh"
have_aiosmtpd || fail "no python3-aiosmtpd (.ci/packages)"
[ -x "$(git --exec-path)/git-send-email" ] ||
	fail "git send-email is missing (git-email, .ci/packages)"
perl -MMail::Address -e 1 2>/dev/null ||
	fail "git send-email needs Mail::Address (libmailtools-perl, .ci/packages)"
tmpdir
cd "$tmp" || exit 1
# no user or system configuration reaches git send-email
export HOME="$tmp" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C.UTF-8


git_identity 'Ada Lovelace <ada@example.org>' '1796299200 +0000'
git_repo repo
# three subjects: short, long ASCII (format-patch folds it), long non-ASCII;
# three authors, none the sender, so each body starts with an in-body From:
# plain, ASCII with specials, non-ASCII with quotes and a comma
echo 1 >> repo/file
git -C repo commit -q -a -m "net: fix a leak"
echo 2 >> repo/file
GIT_AUTHOR_NAME='Doe, Jane (JD)' GIT_AUTHOR_EMAIL=jd@example.org \
	git -C repo commit -q -a -m "net: a subject that is long enough to be folded by git format-patch at seventy-eight columns"
echo 3 >> repo/file
GIT_AUTHOR_NAME='Jörg "JJ" Müller, Jr.' GIT_AUTHOR_EMAIL=jj@example.org \
	git -C repo commit -q -a -m "net: füge Unterstützung für die Überwachung der Warteschlangenlänge hinzu, ohne Sperre"
git -C repo format-patch -q -o "$tmp/patches" main..topic ||
	fail "format-patch failed"

# run CASE FROM: send the patches to CASE.to and CASE.cc (one address a
# line) from FROM, once with git send-email into CASE-git/ and once
# through patchrelay's smtp sink into CASE-pr/, then compare
run() {
	c=$1 from=$2
	set --
	while IFS= read -r a; do set -- "$@" "--to=$a"; done < "$c.to"
	while IFS= read -r a; do set -- "$@" "--cc=$a"; done < "$c.cc"
	start_smtpd "$c-git"
	(cd repo && git send-email --smtp-server=127.0.0.1 \
		--smtp-server-port="$smtpd_port" --confirm=never \
		--suppress-cc=all --no-validate --quiet --from="$from" "$@" \
		"$tmp"/patches/*.patch) > "$c-git.out" 2>&1 ||
		fail "$c: git send-email failed: $(cat "$c-git.out")"
	stop "$smtpd_pid"
	start_smtpd "$c-pr"
	rm -f "$c.conf" state.db
	gc() { git config -f "$c.conf" --add "$@"; }
	gc core.state "$tmp/state.db"
	gc source.repo.type git
	gc source.repo.url "$tmp/repo"
	gc source.repo.branch topic
	gc source.repo.base main
	gc source.repo.cover-letter never
	gc sink.list.type smtp
	gc sink.list.url "smtp://127.0.0.1:$smtpd_port"
	gc sink.list.starttls never
	gc sink.list.from "$from"
	while IFS= read -r a; do gc sink.list.to "$a"; done < "$c.to"
	while IFS= read -r a; do gc sink.list.cc "$a"; done < "$c.cc"
	gc route.r.from repo
	gc route.r.to list
	"$PATCHRELAY" run -c "$c.conf" --once > "$c-pr.out" 2>&1 ||
		fail "$c: patchrelay run failed: $(cat "$c-pr.out")"
	stop "$smtpd_pid"
	$PY "$tmp/compare.py" "$c" > "$c.cmp" 2>&1 ||
		fail "$c: $(cat "$c.cmp")"
}

cat > compare.py <<'PYEOF'
import email, email.header, email.utils, mailbox, re, sys

case = sys.argv[1]
ENC = re.compile(r"=\?[^?]+\?[qQbB]\?[^?]*\?=")
problems = []

def load(box):
    mails = {}
    for key in mailbox.Maildir(box, create=False).keys():
        raw = open("%s/new/%s" % (box, key), "rb").read()
        raw = raw.replace(b"\r\n", b"\n")
        head, body = raw.split(b"\n\n", 1)
        head = head.decode("ascii")
        n = re.search(r"\[PATCH (\d+)/\d+\]", head).group(1)
        mails[n] = (head, body)
    return mails

def unfold(raw):
    return re.sub(r"\n(?=[ \t])", "", raw)

def text(s):
    return str(email.header.make_header(email.header.decode_header(s)))

def raw_field(head, name):
    m = re.search(r"^%s: .*(?:\n[ \t].*)*" % name, head, re.M | re.I)
    return m.group(0) if m else None

def decoded(raw, name):
    if raw is None:
        return None
    value = unfold(raw).split(":", 1)[1].strip()
    if name == "Subject":
        return text(value)
    return [(text(n), a) for n, a in email.utils.getaddresses([value])]

def well_formed(raw):
    lines = raw.split("\n")
    long = [l for l in lines if len(l) > 78]
    words = [w for w in ENC.findall(raw) if len(w) > 75]
    return long, words

git, pr = load(case + "-git"), load(case + "-pr")
if sorted(git) != sorted(pr) or len(git) != 3:
    sys.exit("mails: git %s, patchrelay %s" % (sorted(git), sorted(pr)))
for n in sorted(git):
    (gh, gbody), (ph, pbody) = git[n], pr[n]
    # the body, in-body From: line first, is git's byte for byte; but git
    # writes a non-ASCII name raw, and a raw '"' is lost by its own
    # mailinfo (git am): patchrelay quotes such a name (mail 3)
    if n == "3":
        want = 'From: Jörg "JJ" Müller, Jr <jj@example.org>\n'.encode()
        if not gbody.startswith(want):
            problems.append("mail 3: git's in-body From changed: %r"
                            % gbody[:80])
        gbody = ('From: "Jörg \\"JJ\\" Müller, Jr" <jj@example.org>\n'
                 .encode() + gbody[len(want):])
    if gbody != pbody:
        problems.append("mail %s body:\n  git: %r\n  pr:  %r"
                        % (n, gbody[:200], pbody[:200]))
    for name in ("From", "To", "Cc", "Subject"):
        graw, praw = raw_field(gh, name), raw_field(ph, name)
        gd, pd = decoded(graw, name), decoded(praw, name)
        if gd != pd:
            problems.append("mail %s %s decoded:\n  git: %r\n  pr:  %r"
                            % (n, name, gd, pd))
            continue
        if graw is None:
            continue
        # address lists: each address on its own, as both join them
        # with ",\n\t" (the first one with the field name before it)
        if name == "Subject":
            gitems, pitems = [graw], [praw]
        else:
            gitems, pitems = graw.split(",\n\t"), praw.split(",\n\t")
        if len(gitems) != len(pitems):
            problems.append("mail %s %s: %d items, git %d"
                            % (n, name, len(pitems), len(gitems)))
            continue
        last = len(gitems) - 1
        for i, (gi, pi) in enumerate(zip(gitems, pitems)):
            # the whole line: the tab before, the comma after
            if i:
                gi, pi = "\t" + gi, "\t" + pi
            if i < last:
                gi, pi = gi + ",", pi + ","
            glong, gwords = well_formed(gi)
            plong, pwords = well_formed(pi)
            if plong or pwords:
                problems.append("mail %s %s: not within the limits: %r %r"
                                % (n, name, plong, pwords))
            if not glong and not gwords:
                if gi != pi:
                    problems.append("mail %s %s raw:\n  git: %r\n  pr:  %r"
                                    % (n, name, gi, pi))
            elif name == "Subject" and unfold(gi) != unfold(pi):
                problems.append("mail %s Subject unfolded:\n  git: %r\n"
                                "  pr:  %r" % (n, unfold(gi), unfold(pi)))
            else:
                print("mail %s %s: git's %r breaks a limit (%s%s); "
                      "decoded values agree" % (n, name, gi[:30],
                      "a line over 78" if glong else "",
                      " an encoded word over 75" if gwords else ""))
genv = open(case + "-git.log").read().split("\n")
penv = open(case + "-pr.log").read().split("\n")
if genv != penv:
    problems.append("envelope:\n  git: %r\n  pr:  %r" % (genv, penv))
if problems:
    sys.exit("\n".join(problems))
print("ok")
PYEOF

# (a) many recipients, each a hard case: in Cc, the x78 line is exactly 78
# columns in git's form (kept on one line) and the x79 one 79 (folded
# before the address); jane@ is in To: already and goes to neither Cc:
# nor, a second time, to the envelope; a name given as an encoded word
# is kept as git keeps it
cat > many.to <<'EOF2'
Jörg Müller <jm@example.org>
"Doe, Jane" <jane@example.org>
"Jane \"JJ\" Doe" <jj@example.org>
"Ada (kernel) Lovelace" <ada.k@example.org>
plain@example.org
EOF2
cat > many.cc <<'EOF2'
"Zoë Ångström-Łukasiewicz van der Berg-Papadopoulou, Ph.D." <zoe@example.org>
"J. R. \"Bob\" Dobbs" <bob@example.org>
"Back\\slash" <bs@example.org>
"A Quite Long Plain ASCII Display Name That Will Not Fit On One Header Line, Jr." <long@example.org>
Ögüt Abcdefghijklmnopqrstuvwxyzabc <x78@example.org>
Ögüt Abcdefghijklmnopqrstuvwxyzabcd <x79@example.org>
jane@example.org
=?UTF-8?q?J=C3=B6rg?= <encoded@example.org>
Ünder_score=eq?q <u@example.org>
netdev@vger.example.org
EOF2
run many 'Pätch Rëlay <relay@example.org>'

# (b) one recipient each, a sender with specials and a long one
echo 'Linus Torvalds <torvalds@example.org>' > one.to
: > one.cc
run one '"Relay, The (bot)" <relay@example.org>'
echo '"Müller-Lüdenscheidt, Hans-Jürgen Maximilian Ölmann-Äbersold" <hj@example.org>' > long.to
echo '<angle@example.org>' > long.cc
run long '"Ein sehr langer Absendername mit Ümlauten, der nicht in eine Zeile passt" <relay@example.org>'

# (c) names that a route's maintainers step gives (the way the maildir and
# mbox sinks get recipients: they have no to/cc of their own), to an smtp
# sink and a maildir sink on one route: both write the same To:, Cc: and
# Subject: bytes, and git send-email, given the same names, writes what
# the smtp sink writes
mkdir ktree
cat > ktree/MAINTAINERS <<'EOF2'
FILE THINGS
M:	Jörg Rödel <joro@example.org>
M:	"Doe, Jane (JD)" <jane@example.org>
M:	张三 <zhang@example.org>
R:	"Zoë Ångström-Łukasiewicz van der Berg-Papadopoulou, Ph.D." <zoe@example.org>
R:	Ögüt Abcdefghijklmnopqrstuvwxyzabcd <x79@example.org>
R:	"J. R. \"Bob\" Dobbs" <bob@example.org>
L:	netdev@vger.example.org
F:	file
EOF2
start_smtpd routed-pr
rm -f routed.conf state.db
rc() { git config -f routed.conf --add "$@"; }
rc core.state "$tmp/state.db"
rc source.repo.type git
rc source.repo.url "$tmp/repo"
rc source.repo.branch topic
rc source.repo.base main
rc source.repo.cover-letter never
rc check.maint.type maintainers
rc check.maint.kernel-tree "$tmp/ktree"
rc sink.list.type smtp
rc sink.list.url "smtp://127.0.0.1:$smtpd_port"
rc sink.list.starttls never
rc sink.list.from 'Pätch Rëlay <relay@example.org>'
rc sink.box.type maildir
rc sink.box.path "$tmp/routed-box"
rc route.r.from repo
rc route.r.step maint
rc route.r.to list
rc route.r.to box
"$PATCHRELAY" run -c routed.conf --once > routed-pr.out 2>&1 ||
	fail "routed: patchrelay run failed: $(cat routed-pr.out)"
stop "$smtpd_pid"
# the maildir sink's mails are the smtp sink's, CRLF aside
$PY - "$tmp/routed-pr" "$tmp/routed-box" > box.cmp 2>&1 <<'PYEOF' || fail "routed: the maildir sink differs from the smtp sink: $(cat box.cmp)"
import mailbox, re, sys
# To, Cc and Subject as written (folded), by patch number: Message-ID,
# threading and Date belong to each sink's delivery, and a maildir sink
# has no `from` (its From: is the author's, with no in-body From line)
def mails(box):
    out = {}
    for key in mailbox.Maildir(box, create=False).keys():
        raw = open("%s/new/%s" % (box, key), "rb").read().decode()
        head, body = raw.replace("\r\n", "\n").split("\n\n", 1)
        n = re.search(r"\[PATCH (\d+)/\d+\]", head).group(1)
        fields = [re.search(r"^%s: .*(?:\n[ \t].*)*" % f, head, re.M)
                  for f in ("To", "Cc", "Subject")]
        out[n] = [m.group(0) if m else None for m in fields]
    return out
a, b = mails(sys.argv[1]), mails(sys.argv[2])
if len(a) != 3 or sorted(a) != sorted(b):
    sys.exit("mails: smtp %s, maildir %s" % (sorted(a), sorted(b)))
for k in a:
    if a[k] != b[k]:
        sys.exit("mail %s:\n smtp:    %r\n maildir: %r" % (k, a[k], b[k]))
PYEOF
# the routed names, decoded, in RFC 5322 form: git send-email's input
$PY - "$tmp/routed-pr" routed <<'PYEOF' || fail "routed: no recipients"
import email.header, email.utils, mailbox, re, sys
box, case = sys.argv[1], sys.argv[2]
key = sorted(mailbox.Maildir(box, create=False).keys())[0]
raw = open("%s/new/%s" % (box, key), "rb").read().decode("ascii")
head = re.sub(r"\r?\n(?=[ \t])", "", raw.replace("\r\n", "\n").split("\n\n", 1)[0])
def field(name):
    m = re.search(r"^%s: (.*)$" % name, head, re.M | re.I)
    return m.group(1) if m else ""
for name, ext in (("To", "to"), ("Cc", "cc")):
    with open("%s.%s" % (case, ext), "w") as f:
        for n, a in email.utils.getaddresses([field(name)]):
            n = str(email.header.make_header(email.header.decode_header(n)))
            if n:
                n = '"%s"' % n.replace("\\", "\\\\").replace('"', '\\"')
                f.write("%s <%s>\n" % (n, a))
            else:
                f.write(a + "\n")
PYEOF
grep -q 'Jörg Rödel' routed.to && grep -q '张三' routed.to ||
	fail "routed: not the MAINTAINERS names: $(cat routed.to)"
set --
while IFS= read -r a; do set -- "$@" "--to=$a"; done < routed.to
while IFS= read -r a; do set -- "$@" "--cc=$a"; done < routed.cc
start_smtpd routed-git
(cd repo && git send-email --smtp-server=127.0.0.1 \
	--smtp-server-port="$smtpd_port" --confirm=never --suppress-cc=all \
	--no-validate --quiet --from='Pätch Rëlay <relay@example.org>' "$@" \
	"$tmp"/patches/*.patch) > routed-git.out 2>&1 ||
	fail "routed: git send-email failed: $(cat routed-git.out)"
stop "$smtpd_pid"
$PY "$tmp/compare.py" routed > routed.cmp 2>&1 || fail "routed: $(cat routed.cmp)"
cat many.cmp one.cmp long.cmp routed.cmp
# git mailinfo reads each in-body From back as the commit's author
for f in many-pr/new/*; do
	tr -d '\r' < "$f" > mail.eml
	git mailinfo msg patch < mail.eml > info || fail "mailinfo $f failed"
	subject=$(sed -n 's/^Subject: //p' info)
	author=$(sed -n 's/^Author: //p' info)
	want=$(git -C repo log --format=%an --grep="^$subject\$" topic)
	[ -n "$want" ] && [ "$author" = "$want" ] ||
		fail "$f: mailinfo read author '$author' for '$subject', not '$want'"
done
echo "smtp_vs_send_email.sh: ok"
