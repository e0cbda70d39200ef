#!/usr/bin/python3
# Regenerate the similarity score vectors: NAME.a (source) and NAME.b
# (destination) pairs, and expected.txt with the "similarity index" git
# prints for the rename NAME.a -> NAME.b under -M1% (git 2.39).
# Run from this directory: /usr/bin/python3 make.py
import os, random, subprocess, tempfile

r = random.Random(23)
def lines(n, fmt='line %d\n'):
    return ''.join(fmt % i for i in range(n)).encode()
def edit(b, every, repl=b'changed\n'):
    out = b.split(b'\n')
    for i in range(0, len(out), every):
        if out[i]:
            out[i] = repl.rstrip(b'\n')
    return b'\n'.join(out)
def rnd(n, alphabet=b'abcdefghij \n'):
    return bytes(r.choice(alphabet) for _ in range(n))

base = lines(100)
long = b''.join((b'%03d ' % i) + b'x' * 150 + b'\n' for i in range(40))
binary = bytes(r.randrange(256) for _ in range(3000))
cases = {
    'same': (base, base + b'one more\n'),
    'edit10': (base, edit(base, 10)),
    'edit3': (base, edit(base, 3)),
    'edit2': (base, edit(base, 2)),
    'append': (base, base + lines(40, 'extra %d\n')),
    'shrink': (base, base[:len(base) * 2 // 3]),
    'crlf': (base.replace(b'\n', b'\r\n'), edit(base, 7).replace(b'\n', b'\r\n')),
    'crlf-vs-lf': (base.replace(b'\n', b'\r\n'), base),
    'cr-only': (base.replace(b'\n', b'\r'), edit(base, 5).replace(b'\n', b'\r')),
    'nonl': (base.rstrip(b'\n'), edit(base, 9).rstrip(b'\n')),
    'nonl-last': (b'abc\ndef\nghi', b'abc\ndef\nghij'),
    'small': (b'a\nb\nc\n', b'a\nb\nd\n'),
    'tiny': (b'x\n', b'x\ny\n'),
    'long-lines': (long, long.replace(b'005 ', b'500 ').replace(b'017 ', b'710 ')),
    'long-edit': (long, long[:3000] + b'y' * 40 + long[3040:]),
    'binary': (binary, binary[:1000] + b'\0' * 50 + binary[1050:]),
    'binary-crlf': (b'\0' + base.replace(b'\n', b'\r\n'), b'\0' + edit(base, 6).replace(b'\n', b'\r\n')),
    'random': (rnd(5000), rnd(2000) + rnd(3000)),
    'random-close': (rnd(4000), None),
    'dup-lines': (b'same\n' * 50 + lines(20), b'same\n' * 70 + lines(10)),
    'half': (lines(60), lines(60)[:len(lines(60)) // 2] + lines(30, 'new %d\n')),
}
a = cases['random-close'][0]
cases['random-close'] = (a, a[:2000] + rnd(100) + a[2100:])

with tempfile.TemporaryDirectory() as t:
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM='1', HOME=t,
               GIT_AUTHOR_NAME='a', GIT_AUTHOR_EMAIL='a@x',
               GIT_COMMITTER_NAME='a', GIT_COMMITTER_EMAIL='a@x')
    def git(*args):
        return subprocess.run(['git', '-C', t] + list(args), env=env,
                              check=True, capture_output=True).stdout
    git('init', '-q')
    out = []
    for name, (src, dst) in sorted(cases.items()):
        open(name + '.a', 'wb').write(src)
        open(name + '.b', 'wb').write(dst)
        for f in os.listdir(t):
            if f != '.git':
                os.unlink(os.path.join(t, f))
        open(os.path.join(t, 'src'), 'wb').write(src)
        git('add', '-A')
        git('commit', '-qm', 'a', '--allow-empty')
        os.unlink(os.path.join(t, 'src'))
        open(os.path.join(t, 'dst'), 'wb').write(dst)
        git('add', '-A')
        git('commit', '-qm', 'b')
        s = git('show', '-M1%', '--summary', '--format=', 'HEAD').decode()
        pct = 0
        for l in s.splitlines():
            if l.startswith(' rename '):
                pct = int(l.rsplit('(', 1)[1].rstrip('%)'))
        out.append('%s %d\n' % (name, pct))
    open('expected.txt', 'w').write(''.join(out))
