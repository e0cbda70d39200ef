#!/bin/sh
# Golden test: `patchrelay parse --json` against `git mailsplit` +
# `git mailinfo`, byte for byte (each field rebuilt from the JSON: KEY_base64
# where there is one, else KEY), on every mail of tests/data/mail/ and on mails that
# `git format-patch` writes in a generated repository (and on the files
# listed in $PR_EXTRA_MAIL, to check a real-world corpus by hand).
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir

# a repository with non-ASCII names and long subjects
repo=$tmp/repo
git init -q "$repo"
cd "$repo"
git config user.name 'Jörg Ünïcödé Müller'
git config user.email 'joerg@example.org'
printf 'one\n' > a.txt
git add a.txt
git commit -q -m 'initial'
printf 'two\n' >> a.txt
git commit -q -am 'a.txt: add a second line with a rather long subject that has to be folded by format-patch because it is long' -m 'Body with ünïcödé.' -m 'Signed-off-by: Jörg <joerg@example.org>'
GIT_AUTHOR_NAME='Zoë "quoted" O'"'"'Brien' git mv a.txt b.txt
git commit -q -m 'rename: Ünicode in subject ☃' -m 'Moves a.txt.'
printf 'bin\0ary' > bin.dat
git add bin.dat
git commit -q -m 'add a binary file'
git format-patch -q --cover-letter -o "$tmp/fp" HEAD~3 >/dev/null
# MIME forms git writes itself: attached and inline patches, QP bodies
git format-patch -q --attach -o "$tmp/fp/attach" HEAD~3 >/dev/null
git format-patch -q --inline -o "$tmp/fp/inline" HEAD~3 >/dev/null
git -c format.encodeEmailHeaders=true format-patch -q --stdout HEAD~3 > "$tmp/fp/all.mbox.patch"
cd "$tmp"

fail=0
for f in "$PR_SRC"/tests/data/mail/* "$tmp"/fp/*.patch "$tmp"/fp/attach/* "$tmp"/fp/inline/* \
	${PR_EXTRA_MAIL:-}; do
	rm -rf split
	mkdir split
	if ! awk 'NF { print; exit }' "$f" | grep -q '^From '; then
		# a single mail: git am runs mailsplit -b, which drops CRs too
		git mailsplit -b -osplit "$f" >/dev/null
	else
		case "$f" in
		*mboxrd*) git mailsplit --mboxrd -osplit "$f" >/dev/null ;;
		*) git mailsplit -osplit "$f" >/dev/null ;;
		esac
	fi
	case "$f" in
	*mboxrd*) "$PATCHRELAY" parse --json --mboxrd "$f" > out.json ;;
	*) "$PATCHRELAY" parse --json "$f" > out.json ;;
	esac
	n=0
	for m in split/*; do
		n=$((n + 1))
		if ! git mailinfo "msg$n" "patch$n" < "$m" > "info$n" 2>/dev/null; then
			echo "skip $f message $n: git mailinfo fails"
			echo skip > "info$n"
		fi
	done
	/usr/bin/python3 - "$f" "$n" <<'PY' || fail=1
import base64, json, sys
path, n = sys.argv[1], int(sys.argv[2])
def field(obj, key):
    # the exact bytes: KEY_base64 when the JSON has it, else KEY as UTF-8
    if key + '_base64' in obj:
        return base64.b64decode(obj[key + '_base64'])
    return obj[key].encode('utf-8')
msgs = json.load(open('out.json'))['messages']
bad = 0
if len(msgs) != n:
    print('%s: %d messages, git has %d' % (path, len(msgs), n))
    sys.exit(1)
for i, m in enumerate(msgs, 1):
    info = open('info%d' % i, 'rb').read()
    if info == b'skip\n':
        continue
    want = {}
    for line in info.split(b'\n'):
        if b': ' in line:
            k, v = line.split(b': ', 1)
            want[k.decode()] = v
    got = {'Author': field(m['from'], 'name'),
           'Email': field(m['from'], 'email'),
           'Subject': field(m, 'subject')}
    for k in got:
        if want.get(k, b'') != got[k]:
            print('%s #%d %s: want %r got %r' % (path, i, k, want.get(k, b''), got[k]))
            bad = 1
    if 'Date' in want and want['Date'] != field(m, 'date'):
        print('%s #%d Date: want %r got %r' % (path, i, want['Date'], field(m, 'date')))
        bad = 1
    for name, key in (('msg', 'body'), ('patch', 'diff')):
        w = open('%s%d' % (name, i), 'rb').read()
        g = field(m, key)
        if w != g:
            print('%s #%d %s differs:\n want %r\n  got %r' % (path, i, name, w[:300], g[:300]))
            bad = 1
sys.exit(bad)
PY
done
exit $fail
