# Writes a corpus of synthetic patches over a kernel tree for
# tests/integration/route_vs_get_maintainer.sh and bench/route.
# usage: /usr/bin/python3 gen_corpus.py TREE OUTDIR
# Deterministic (fixed seed) so that cached reference answers stay valid.
import os
import random
import re
import sys

tree, outdir = sys.argv[1], sys.argv[2]
rng = random.Random(7)
os.makedirs(outdir, exist_ok=True)

files = []
for root, dirs, names in os.walk(tree):
    dirs[:] = sorted(d for d in dirs if not d.startswith('.'))
    for n in sorted(names):
        files.append(os.path.relpath(os.path.join(root, n), tree))

def head(path, n=3):
    try:
        with open(os.path.join(tree, path), 'rb') as f:
            lines = f.read().split(b'\n')[:n]
    except OSError:
        lines = [b'']
    return [l.decode('latin-1') for l in lines]

def hunk(path, plus=None):
    old = head(path)
    new = list(old) if plus is None else list(plus)
    if plus is None:
        new[-1] = new[-1] + ' /* changed */'
    out = ['@@ -1,%d +1,%d @@' % (len(old), len(new))]
    out += ['-' + l for l in old] + ['+' + l for l in new]
    return out

def patch(name, paths, subject, body='', plus=None, extra=None):
    lines = ['From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001',
             'From: Test Author <author@example.org>',
             'Subject: [PATCH] ' + subject, '']
    if body:
        lines.append(body)
    lines += ['', 'Signed-off-by: Test Author <author@example.org>', '---']
    for p in paths:
        lines += ['diff --git a/%s b/%s' % (p, p), '--- a/' + p, '+++ b/' + p]
        lines += hunk(p, plus)
    if extra:
        lines += extra
    lines += ['-- ', '2.39.5', '']
    with open(os.path.join(outdir, name + '.patch'), 'w', encoding='latin-1') as f:
        f.write('\n'.join(lines))

top = sorted({p.split('/')[0] for p in files if '/' in p})
n = 0
# single files in every top-level directory
for d in top:
    cand = [p for p in files if p.startswith(d + '/')]
    for p in rng.sample(cand, min(4, len(cand))):
        patch('single-%03d' % n, [p], d + ': fix')
        n += 1
# single files anywhere, top-level files too
for p in rng.sample(files, 100):
    patch('any-%03d' % n, [p], 'fix')
    n += 1
# multi-file patches, mostly within one subtree
for i in range(40):
    if i % 2:
        d = os.path.dirname(rng.choice(files))
        cand = [p for p in files if p.startswith(d + '/')] or files
    else:
        cand = files
    patch('multi-%03d' % i, sorted(rng.sample(cand, min(len(cand), rng.randint(2, 12)))), 'multi')
# tree-wide patches
for i in range(2):
    patch('treewide-%d' % i, sorted(rng.sample(files, 520 + 40 * i)), 'treewide: cleanup')
# K: keywords: words of the simpler K: patterns, in added lines and in the log
kw = []
with open(os.path.join(tree, 'MAINTAINERS'), encoding='latin-1') as f:
    for line in f:
        m = re.match(r'^K:\s*(.*)', line)
        if m:
            w = re.sub(r'\\b|\^|\$|\\s\*|\\', '', m.group(1)).strip()
            if re.fullmatch(r'[A-Za-z0-9_]+', w):
                kw.append(w)
for i, w in enumerate(rng.sample(kw, min(30, len(kw)))):
    p = rng.choice(files)
    patch('kw-%03d' % i, [p], 'use ' + w, plus=['\t%s(x);' % w])
    if i % 3 == 0:
        patch('kwlog-%03d' % i, [p], 'mention', body='This touches %s.' % w)
# MAINTAINERS itself, and together with a driver
patch('maint-0', ['MAINTAINERS'], 'MAINTAINERS: update')
patch('maint-1', ['MAINTAINERS', rng.choice(files)], 'MAINTAINERS: add')
# device tree bindings: get_maintainer.pl also mails the addresses in them
yaml = [p for p in files if p.endswith('.yaml')]
for i, p in enumerate(rng.sample(yaml, 8)):
    patch('yaml-%d' % i, [p], 'dt-bindings: fix')
# new and deleted files, renames and mode changes
a, b = rng.sample([p for p in files if p.startswith('drivers/')], 2)
with open(os.path.join(outdir, 'special-0.patch'), 'w') as f:
    f.write('Subject: [PATCH] special\n---\n'
            'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n'
            'diff --git a/%s b/%s\ndeleted file mode 100644\n--- a/%s\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n'
            % (a + '.new', a + '.new', a + '.new', b, b, b))
c, d = rng.sample(files, 2)
with open(os.path.join(outdir, 'special-1.patch'), 'w') as f:
    f.write('Subject: [PATCH] rename\n---\n'
            'diff --git a/%s b/%s\nsimilarity index 100%%\nrename from %s\nrename to %s\n'
            ' mode change 100644 => 100755 %s\n' % (c, d, c, d, c))
