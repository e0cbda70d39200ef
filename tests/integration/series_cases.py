#!/usr/bin/python3
"""Compare a reading of one series case with tests/data/pwseries/expected.

usage: series_cases.py EXPECTED CASE MBOX KIND JSON
KIND is "poll" (`patchrelay poll --json`) or "parse" (`patchrelay parse
--json`).  Prints nothing and exits 0 when the reading groups the mails as
the expectations say; else prints the differences and exits 1.  A series
line ending in "superseded" is a posting a later one completed: parse
lists it (superseded), a poll does not emit it.

A version's own patches are those no earlier version of its series holds:
a version filled from the one before it (a partial re-roll or resend)
borrows the others, which Patchwork does not have in that series.
"""

import json
import mailbox
import sys


def expected(path, name):
    """(counts, [(group, version, total, complete, cover, [patch...])])"""
    counts, series, on = None, [], False
    for line in open(path, encoding='utf-8'):
        w = line.split()
        if not w or w[0].startswith('#'):
            continue
        if w[0] == 'case':
            on = w[1] == name
            if on:
                counts = [int(x) for x in w[2:5]]
            continue
        if not on or w[0] != 'series':
            continue
        cover, patches, gone = None, [], False
        for x in w[5:]:
            if x.startswith('c='):
                cover = int(x[2:])
            elif x.startswith('p='):
                patches = [int(n) for n in x[2:].split(',')]
            elif x == 'superseded':
                gone = True
        series.append((w[1], int(w[2]), int(w[3]), w[4] == 'yes', cover,
                       patches, gone))
    if counts is None:
        sys.exit('no case %s in %s' % (name, path))
    return counts, series


def message_ids(path):
    ids = []
    for m in mailbox.mbox(path, create=False):
        ids.append(m['Message-ID'].strip().strip('<>'))
    return ids


def versions_of(kind, data):
    """[(key, version dict)] in the order the reading lists them."""
    if kind == 'poll':
        out = []
        for key, s in data['series'].items():
            for v in s['versions']:
                v = dict(v, patches=[p['message_id'] for p in v['patches']])
                out.append((key, v))
        return out
    return [(v['key'], v) for v in data['series']]


def actual(kind, data):
    seen, out = {}, []
    for key, v in versions_of(kind, data):
        had = seen.setdefault(key, set())
        own = [p for p in v['patches'] if p not in had]
        complete = v['complete']
        if len(own) != len(v['patches']):
            complete = len(own) >= v['total']
        had.update(v['patches'])
        out.append((key, v['version'], v['total'], complete, v['cover'],
                    own, v.get('superseded', False)))
    return out


def main():
    exp_path, name, mbox, kind, got_path = sys.argv[1:6]
    counts, want = expected(exp_path, name)
    ids = message_ids(mbox)
    data = json.load(open(got_path, encoding='utf-8'))
    got = actual(kind, data)
    problems = []

    def shape(v):
        return (v[1], v[2], v[3], v[4], tuple(v[5]))

    want_ids = []
    for g, version, total, complete, cover, patches, gone in want:
        if gone and kind == 'poll':
            continue  # a mail source does not emit it
        want_ids.append((g, version, total, complete,
                         ids[cover - 1] if cover else None,
                         [ids[n - 1] for n in patches], gone))
    # the counts are the expectations' own check
    nr_covers = sum(1 for w in want if w[4])
    nr_patches = sum(len(w[5]) for w in want)
    if [nr_covers, nr_patches] != counts[:2]:
        problems.append('expected: %d covers and %d patches in the series, '
                        'not %s' % (nr_covers, nr_patches, counts[:2]))
    left = [shape(v) for v in got]
    for w in want_ids:
        if shape(w) in left:
            left.remove(shape(w))
        else:
            problems.append('missing: v%d of %d%s, cover %s, patches %s' %
                            (w[1], w[2], '' if w[3] else ' incomplete',
                             w[4], w[5]))
    for v in left:
        problems.append('extra: v%d of %d%s, cover %s, patches %s' %
                        (v[0], v[1], '' if v[2] else ' incomplete', v[3],
                         list(v[4])))
    if kind == 'parse':
        gone = {shape(v) for v in got if v[6]}
        want_gone = {shape(w) for w in want_ids if w[6]}
        if gone != want_gone:
            problems.append('superseded: %s, not %s' %
                            (sorted(gone), sorted(want_gone)))
    if not problems:
        key_of = {shape(v): v[0] for v in got}
        for i, a in enumerate(want_ids):
            for b in want_ids[i + 1:]:
                same = key_of[shape(a)] == key_of[shape(b)]
                if same != (a[0] == b[0]):
                    problems.append(
                        'series %s and %s: patchrelay %s' %
                        (a[5] or a[4], b[5] or b[4],
                         'joins them' if same else 'keeps them apart'))
    if kind == 'poll' and len(data['comments']) != counts[2]:
        problems.append('%d comments, not %d' % (len(data['comments']),
                                                 counts[2]))
    for p in problems:
        print('  %s' % p)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
