#!/usr/bin/python3
# Builds the rename and copy suite of similarity_vs_git.sh in the git
# repository of the current directory: one commit per case on the current
# branch, after a base commit tagged "simbase".  argv[1] is the variant:
# "v1", or "v2" (the same cases with some edits changed, for range-diff).
# Everything is fixed by seeds, so both variants are the same each run.
import os, random, subprocess, sys

variant = sys.argv[1]
rnd = random.Random(23)
v2 = variant == 'v2'


def git(*args):
    subprocess.run(['git'] + list(args), check=True)


def write(path, data, mode=None):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    if os.path.islink(path):
        os.unlink(path)
    with open(path, 'wb') as f:
        f.write(data)
    if mode:
        os.chmod(path, mode)


def commit(msg):
    git('add', '-A')
    git('commit', '-q', '--allow-empty', '-m', msg)


def text(n, seed, width=30):
    r = random.Random(seed)
    words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta',
             'theta', 'iota', 'kappa', 'lambda', 'mu', 'nu', 'xi', 'omicron']
    out = []
    for i in range(n):
        k = r.randrange(2, width // 4)
        out.append(('%d ' % i + ' '.join(r.choice(words) for _ in range(k)))
                   .encode())
    return b'\n'.join(out) + b'\n'


def change(data, pct, seed, where='spread'):
    """Change pct% of the lines of data (rounded down)."""
    lines = data.split(b'\n')
    last = lines.pop() if lines[-1] == b'' else None
    n = len(lines) * pct // 100
    r = random.Random(seed)
    if where == 'spread':
        idx = r.sample(range(len(lines)), n)
    elif where == 'head':
        idx = range(n)
    else:
        idx = range(len(lines) - n, len(lines))
    for i in idx:
        lines[i] = b'changed %d %s' % (i, b'x' * r.randrange(1, 20))
    if last is not None:
        lines.append(last)
    return b'\n'.join(lines)


# the base: every file the cases rename, copy or edit
base = {}
for pct in range(0, 101, 10):
    base['ren/r%03d.txt' % pct] = text(40, pct)
for pct in (45, 50, 55, 65, 75):
    base['thr/t%02d.txt' % pct] = text(60, 1000 + pct)
for i in range(6):
    base['many/src%d.c' % i] = text(50, 7) + text(5 + 3 * i, 50 + i)
base['ties/one.txt'] = text(30, 77)
base['ties/two.txt'] = text(30, 77) + b'tail\n'
base['same/a/file.txt'] = text(20, 88)
base['same/b/file.txt'] = text(20, 88)
base['small/s1'] = b'x\n'
base['small/s2'] = b'a\nb\nc\n'
base['small/s3'] = b'one'
base['bin/b1.bin'] = bytes(rnd.randrange(256) for _ in range(3000))
base['bin/b2.bin'] = b'\0' + bytes(rnd.randrange(256) for _ in range(600))
base['crlf/c1.txt'] = text(40, 9).replace(b'\n', b'\r\n')
base['nonl/n1.txt'] = text(30, 10).rstrip(b'\n')
base['mode/m1.sh'] = text(25, 11)
base['copy/orig.c'] = text(45, 12)
base['copy/stays.c'] = text(45, 13)
base['copy/gone.c'] = text(45, 14)
base['rw/rewrite.c'] = text(80, 15)
base['rw/moved.c'] = text(80, 16)
base['rw/typechg'] = text(30, 17)
base['sp/with space.txt'] = text(20, 18)
base['sp/\xe4 umlaut.txt'.encode().decode('utf-8')] = text(20, 19)
base['empty/e1'] = b''
base['long/l1.txt'] = b''.join(b'%03d ' % i + b'y' * 120 + b'\n'
                               for i in range(50))
base['limit/x1.txt'] = text(30, 20)
base['limit/x2.txt'] = text(30, 21)

if variant == 'base':
    for p, d in sorted(base.items()):
        write(p, d)
    os.symlink('ren/r000.txt', 'link1')
    commit('similarity suite: base')
    git('tag', 'simbase')
    sys.exit(0)

# renames with 0% to 100% of the lines changed, in steps of 10%
for pct in range(0, 101, 10):
    src = 'ren/r%03d.txt' % pct
    d = base[src]
    os.unlink(src)
    where = ('spread', 'head', 'tail')[pct // 10 % 3]
    seed = pct + (1 if v2 and pct in (30, 60) else 0)
    write('renamed/n%03d.txt' % pct, change(d, pct, seed, where))
    commit('rename r%03d with %d%% of its lines changed' % (pct, pct))

# around the thresholds (-M30%, the default 50%, 75% for same names)
for pct in (45, 50, 55, 65, 75):
    src = 'thr/t%02d.txt' % pct
    d = base[src]
    os.unlink(src)
    write('thr2/t%02d.txt' % pct, change(d, 100 - pct, 300 + pct))
    write('thr/u%02d.txt' % pct,
          change(d, 100 - pct, 400 + pct + (v2 and pct == 50)))
    commit('threshold %d: same name elsewhere and a new name' % pct)

# many candidates: six similar sources, six destinations
for i in range(6):
    os.unlink('many/src%d.c' % i)
for i in range(6):
    d = text(50, 7) + text(4 + 3 * ((i * 5) % 6), 60 + i + (v2 and i == 2))
    write('many2/dst%d.c' % i, d)
commit('many candidates for each destination')

# ties: two sources equally close to one destination
os.unlink('ties/one.txt')
os.unlink('ties/two.txt')
write('ties2/one.txt', text(30, 77) + b'tai\n')
write('ties2/zzz.txt', text(30, 77) + b'tai\n' + (b'v2\n' if v2 else b''))
commit('ties between sources')

# identical sources: the one with the same file name wins
os.unlink('same/a/file.txt')
os.unlink('same/b/file.txt')
write('same/c/file.txt', text(20, 88))
write('same/d/other.txt', text(20, 88))
commit('exact renames of identical sources')

# small files
os.unlink('small/s1')
write('small2/s1', b'x\ny\n')
os.unlink('small/s2')
write('small2/s2', b'a\nb\nd\n' + (b'e\n' if v2 else b''))
os.unlink('small/s3')
write('small2/s3', b'one\n')
commit('small files renamed with edits')

# binary files: renamed with a change, and unchanged
b1 = bytearray(base['bin/b1.bin'])
b1[1000:1040] = b'\0' * 40
os.unlink('bin/b1.bin')
write('bin2/b1.bin', bytes(b1))
os.rename('bin/b2.bin', 'bin2/b2.dat')
commit('binary files renamed')

# CRLF and no final newline
os.unlink('crlf/c1.txt')
write('crlf2/c1.txt', change(text(40, 9), 20, 5).replace(b'\n', b'\r\n'))
os.unlink('nonl/n1.txt')
write('nonl2/n1.txt', change(text(30, 10), 10, 6).rstrip(b'\n') + b' end')
commit('CRLF and no final newline')

# a rename with a mode change, a symlink renamed and one changed
os.unlink('mode/m1.sh')
write('mode2/m1.sh', change(text(25, 11), 10, 7), 0o755)
os.rename('link1', 'link2')
os.symlink('ren/other', 'link3')
commit('mode change, symlinks')

# copies: from a modified file, from an unmodified one, twice from a
# deleted one (copy, then rename)
write('copy/orig.c', change(base['copy/orig.c'], 10, 8))
write('copy2/from-orig.c', change(base['copy/orig.c'], 20, 9))
write('copy2/from-stays.c', change(base['copy/stays.c'], 5, 10))
os.unlink('copy/gone.c')
write('copy2/gone-a.c', change(base['copy/gone.c'], 10, 11))
write('copy2/gone-b.c', change(base['copy/gone.c'], 15 if v2 else 5, 12))
commit('copies from modified, unmodified and deleted files')

# rewrites: a file rewritten whole, one whose content moved away, a
# file that became a symlink
write('rw/rewrite.c', text(80, 99))
write('rw/moved.c', text(70, 98))
write('rw/elsewhere.c', change(base['rw/moved.c'], 10, 13))
os.unlink('rw/typechg')
os.symlink('moved.c', 'rw/typechg')
commit('rewrites and a type change')

# names git quotes, in rename from/to lines
os.unlink('sp/with space.txt')
write('sp2/with space now.txt', change(base['sp/with space.txt'], 10, 14))
src = 'sp/\xe4 umlaut.txt'
os.unlink(src)
write('sp2/\xf6 umlaut.txt', change(base[src], 10, 15))
commit('quoted names renamed')

# an empty file renamed, long lines
os.makedirs('empty2')
os.rename('empty/e1', 'empty2/e1')
d = base['long/l1.txt']
os.unlink('long/l1.txt')
write('long2/l1.txt', d[:2000] + b'z' * 30 + d[2030:])
commit('empty file and long lines')

# two renames for -l1 to skip
os.unlink('limit/x1.txt')
os.unlink('limit/x2.txt')
write('limit2/y1.txt', change(base['limit/x1.txt'], 10, 16))
write('limit2/y2.txt', change(base['limit/x2.txt'], 10, 17))
commit('two inexact renames')
