#!/bin/sh
# `patchrelay parse --json` loses no byte: on mails whose fields are not
# UTF-8 (an 8-bit patch to a latin-1 file as git format-patch writes it, with
# --attach too, binary bytes in a base64 part, raw 8-bit and invalid UTF-8
# author and subject, 8-bit Message-IDs) each field rebuilt from the JSON
# (KEY_base64 when present, else KEY) equals git mailinfo's bytes, the
# Message-IDs equal the header's, and a field that is UTF-8 has no
# KEY_base64 beside it.
set -eu
. "$(dirname "$0")/lib.sh"
tmpdir
git_alone
git_identity 'C O Mitter <c@example.org>' '1700000000 +0000'

repo=$tmp/repo
git init -q "$repo"
cd "$repo"
printf 'caf\351\nna\357ve\n' >latin1.txt
git add latin1.txt
GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=a@example.org \
	git commit -q -m initial
printf 'th\351\nna\357ve\n\377\376\n' >latin1.txt
# an author name that is not UTF-8: format-patch writes it as a UTF-8 word
GIT_AUTHOR_NAME=$(printf 'Ren\351 L') GIT_AUTHOR_EMAIL=r@example.org \
	git commit -q -am "$(printf 'latin1: caf\351 becomes th\351')" 2>/dev/null
git format-patch -q -o "$tmp/m" -1
git format-patch -q --attach -o "$tmp/m/attach" -1
cd "$tmp"

# raw 8-bit headers without a charset, an 8-bit Message-ID and References
printf 'From: J\366rg <j@example.org>\nSubject: [PATCH] raw \351 subject\n' >m/raw.eml
printf 'Date: Wed, 3 Jan 2024 00:00:00 +0000\nMessage-ID: <id\377@x>\n' >>m/raw.eml
printf 'References: <ok@x> <r\376@x>\n\nbody \351\n---\n' >>m/raw.eml
printf 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-\351\n+\352\n' >>m/raw.eml

# a base64 part whose patch holds NUL and 0xff bytes
{
	printf 'From: B <b@example.org>\nSubject: [PATCH] bytes\n'
	printf 'Message-ID: <bin@x>\nMIME-Version: 1.0\n'
	printf 'Content-Type: text/plain; charset=utf-8\n'
	printf 'Content-Transfer-Encoding: base64\n\n'
	printf 'log\n---\ndiff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-\001\n+\000\377\000\n' |
		$PY -c 'import base64,sys; sys.stdout.write(base64.encodebytes(sys.stdin.buffer.read()).decode())'
} >m/bin.eml

n=0
for f in m/*.patch m/attach/*.patch m/*.eml; do
	n=$((n + 1))
	git mailinfo "$tmp/msg" "$tmp/patch" <"$f" >"$tmp/info"
	"$PATCHRELAY" parse --json "$f" >"$tmp/out.json"
	$PY - "$f" <<'PY'
import base64, json, re, sys
path = sys.argv[1]
def field(obj, key):
    if key + '_base64' in obj:
        b = base64.b64decode(obj[key + '_base64'])
        try:
            b.decode('utf-8')
            if b'\0' not in b and obj[key].encode('utf-8') == b:
                raise SystemExit('%s: %s_base64 beside UTF-8 text' % (path, key))
        except UnicodeDecodeError:
            pass
        return b
    return obj[key].encode('utf-8')
m = json.load(open('out.json'))['messages']
assert len(m) == 1, path
m = m[0]
info = {}
for line in open('info', 'rb').read().split(b'\n'):
    if b': ' in line:
        k, v = line.split(b': ', 1)
        info[k] = v
bad = []
want = {'Author': field(m['from'], 'name'), 'Email': field(m['from'], 'email'),
        'Subject': field(m, 'subject'), 'Date': field(m, 'date')}
for k, got in want.items():
    if info.get(k.encode(), b'') != got:
        bad.append('%s: want %r got %r' % (k, info.get(k.encode()), got))
for name, key in (('msg', 'body'), ('patch', 'diff')):
    w = open(name, 'rb').read()
    if w != field(m, key):
        bad.append('%s: want %r got %r' % (name, w[:200], field(m, key)[:200]))
raw = open(path, 'rb').read().split(b'\n\n', 1)[0]
mid = re.search(rb'^Message-I[dD]: <([^>]*)>', raw, re.M)
if mid and mid.group(1) != field(m, 'message_id'):
    bad.append('message_id: want %r got %r' % (mid.group(1), field(m, 'message_id')))
refs = re.search(rb'^References: (.*)$', raw, re.M)
if refs:
    want = re.findall(rb'<([^>]*)>', refs.group(1))
    got = [r.encode('utf-8') for r in m['references']]
    for i, b in enumerate(m.get('references_base64', [])):
        if b is not None:
            got[i] = base64.b64decode(b)
    if want != got:
        bad.append('references: want %r got %r' % (want, got))
for b in bad:
    print('FAIL %s %s' % (path, b))
sys.exit(1 if bad else 0)
PY
done
# the cases above must have needed the base64 forms
for k in diff_base64 subject_base64 name_base64 message_id_base64 \
	references_base64 body_base64; do
	"$PATCHRELAY" parse --json m/*.patch m/*.eml | grep -q "\"$k\"" ||
		{ echo "FAIL: no $k in any message"; exit 1; }
done
echo "ok: $n mails round-trip"
