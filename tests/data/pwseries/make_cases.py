#!/usr/bin/python3
"""Write the series cases of Patchwork's test suite as our own mboxes.

Patchwork's patchwork/tests/data/series/*.mbox hold real mails; each case
here is a new mbox with the same structure (subject prefixes, numbering,
versions, the shape of Message-ID, In-Reply-To and References, submitters
and the dates that make the case what it is) and our own names, ids and
patches.  Run it from this folder to write CASE.mbox for every case;
`expected` (written by hand from patchwork/tests/unit/test_series.py) says
how each groups.

A case is a list of mails in mbox order: (name, subject, seconds after the
case's first date, In-Reply-To names, References names, options).  Names
are local to the case and become Message-IDs through the case's id shape.
"""

import datetime
import email.header
import os

SAM = ('Sam Sender', 'sam@example.org')
SAM_BODY = ('Sam Sender', 'sam@example.net')  # an in-body From: that differs


# the v1 thread most cases start with: a cover and two patches
V1 = [
    ('c1', '[PATCH 0/2] A sample series', 0, [], [], {}),
    ('p1', '[PATCH 1/2] test: Add some lorem ipsum', 1, ['c1'], ['c1'], {}),
    ('p2', '[PATCH 2/2] test: Convert to Markdown', 2, ['c1'], ['c1'], {}),
]
ID1 = {'c1': (1473632524, 8585, 1), 'p1': (1473632524, 8585, 2),
       'p2': (1473632524, 8585, 3)}

CASES = {}


def case(name, mails, ids, tz=1, sender=SAM, inbody=SAM_BODY, list_id=None,
         start=(2021, 9, 11, 23, 22, 2)):
    CASES[name] = dict(mails=mails, ids=ids, tz=tz, sender=sender,
                       inbody=inbody, list_id=list_id, start=start)


def se_ids(table):
    """Names to send-email ids from (time, pid, n) triples."""
    return {k: '%d-%d-%d-git-send-email-sam@example.org' %
            (v[0] + 157766400, v[1] + 1111, v[2])
            for k, v in table.items()}


case('base-single-patch',
     [('p1', '[PATCH] test: Add some lorem ipsum', 1, [], [], {})],
     se_ids({'p1': (1473632524, 8585, 2)}))
case('base-cover-letter', V1, se_ids(ID1))
case('base-no-cover-letter', [
    ('p1', '[PATCH 1/2] test: Add some lorem ipsum', 0, [], [], {}),
    ('p2', '[PATCH 2/2] test: Convert to Markdown', 1, ['p1'], ['p1'], {}),
], se_ids({'p1': (1473633236, 10676, 1), 'p2': (1473633236, 10676, 2)}),
    start=(2021, 9, 11, 23, 33, 55))
case('base-deep-threaded', [
    V1[0], V1[1],
    ('p2', '[PATCH 2/2] test: Convert to Markdown', 2, ['c1'], ['p1'], {}),
], se_ids(ID1))
case('base-out-of-order', [V1[2], V1[1], V1[0]], se_ids(ID1))
case('base-different-versions', [
    ('c', '[PATCH net-next v3 0/4] net: dsa: Multi-CPU ground work (v3)',
     0, [], [], {}),
    ('p1', '[PATCH 1/4] net: dsa: Remove master_netdev and use', 1,
     ['c'], ['c'], {}),
    ('p2', '[PATCH 2/4] net: dsa: Relocate master ethtool operations', 2,
     ['c'], ['c'], {}),
    ('p3', '[PATCH 3/4] net: dsa: Associate slave network device with CPU port',
     3, ['c'], ['c'], {}),
    ('p4', '[PATCH 4/4] net: dsa: Introduce dsa_get_cpu_port()', 4,
     ['c'], ['c'], {}),
], {k: '20210613191725.31337-%d-flo@example.com' % n
    for n, k in enumerate(['c', 'p1', 'p2', 'p3', 'p4'], 1)},
    tz=-7, sender=('Flo Fixer', 'flo@example.com'), inbody=None,
    list_id='<netdev.vger.kernel.org>', start=(2021, 6, 13, 12, 17, 21))
# two In-Reply-To and two References headers: the first pair names patch 1
MR = {'c': 'cover.1621747901.git.vk@example.org'}
for k, sha in [('p1', 'b9f67b2b'), ('p2', 'ed9beaec'), ('p3', 'dcb98727'),
               ('p4', '0381fc50')]:
    MR[k] = '%s%s.1621747901.git.vk@example.org' % (sha, '0' * 32)
case('bugs-multiple-references', [
    ('c', '[PATCH V2 0/4] PM / OPP: Minor cleanups', 0, [], [], {}),
    ('p1', '[PATCH V2 1/4] PM / OPP: Reorganize _generic_set_opp_regulator()',
     29, ['c'], ['c'], {}),
    ('p2', '[PATCH V2 2/4] PM / OPP: Don\'t create copy of regulators', 30,
     ['p1', 'c'], ['p1', 'c'], {'twice': True}),
    ('p3', '[PATCH V2 3/4] PM / OPP: opp-microvolt is not optional if regulators',
     31, ['p1', 'c'], ['p1', 'c'], {'twice': True}),
    ('p4', '[PATCH V2 4/4] PM / OPP: Don\'t create debugfs "supply-0" directory',
     32, ['p1', 'c'], ['p1', 'c'], {'twice': True}),
], MR, tz=5.5, sender=('Vik Kay', 'vk@example.org'), inbody=None,
    list_id='<linux-kernel.vger.kernel.org>', start=(2021, 5, 23, 9, 31, 41))
NR = [
    ('a1', '[net,v2,1/2] net: ieee802154: remove explicit set skb->sk', 0,
     [], [], {}),
    ('a2', '[net,v2,2/2] net: ieee802154: fix net_device reference release too',
     514, [], [], {}),
]
case('base-no-references', NR,
     {'a1': '1621747265-17019-1-git-send-email-lz@example.com',
      'a2': '1621747779-18456-1-git-send-email-lz@example.com'},
     tz=8, sender=('Lee Zed', 'lz@example.com'), inbody=None,
     list_id='<netdev.vger.kernel.org>', start=(2021, 5, 23, 13, 21, 5))
case('base-no-references-no-cover', [
    ('c', '[PATCH 0/2] powerpc/dlpar: Correct display of hot-add/hot-remove CPUs',
     0, [], [], {}),
    ('p1', '[PATCH 1/2] powerpc/numa: Update CPU topology when VPHN enabled',
     18, [], [], {}),
    ('p2', '[Patch 2/2]: powerpc/hotplug/mm: Fix hot-add memory node assoc',
     33, [], [], {}),
], {'c': '7a0f2b6e-5105-4997-9080-a967aef2d26d@example.com',
    'p1': '4e1bec0a-c3d2-40bd-9956-e6e402be334c@example.com',
    'p2': '3cb44d02-b2ff-4197-8bdf-ec6d588d6dab@example.com'},
    tz=-5, sender=('Mo Bee', 'mb@example.com'), inbody=None,
    list_id='<linux-kernel.vger.kernel.org>', start=(2021, 5, 23, 10, 15, 11))
case('bugs-multiple-content-types', [
    ('p', '[PATCH -next] bpf: Use PTR_ERR_OR_ZERO in xsk_map_inc()', 0,
     [], [], {'ctype': 'text/plain; charset="UTF-8"'}),
    ('r', 'Re: [PATCH -next] bpf: Use PTR_ERR_OR_ZERO in xsk_map_inc()',
     28294, ['p'], ['p'],
     {'reply': True, 'from': ('Bj\u00f6rn Reviewer', 'br@example.com'),
      'ctype': 'text/plain; charset=utf-8; format=flowed'}),
], {'p': '20210820013652.147041-1-yh@example.com',
    'r': '93fafdab-8fb3-4f2b-8f36-0cf297db3cd9@example.com'},
    tz=0, sender=('Yu Hai', 'yh@example.com'), inbody=None,
    list_id='<netdev.vger.kernel.org>', start=(2021, 8, 20, 1, 36, 52))

# revisions
V2C = [
    ('c2', '[PATCH v2 0/2] A sample series', 271, [], [], {'rev': 2}),
    ('q1', '[PATCH v2 1/2] test: Add some lorem ipsum', 272, ['c2'], ['c2'],
     {'rev': 2}),
    ('q2', '[PATCH v2 2/2] test: Convert to Markdown', 273, ['c2'], ['c2'],
     {'rev': 2}),
]
case('revision-basic', V1 + V2C, se_ids(dict(ID1, c2=(1473632795, 9971, 1),
                                            q1=(1473632795, 9971, 2),
                                            q2=(1473632795, 9971, 3))))
case('revision-threaded-to-single-patch', [
    ('p1', '[PATCH] test: Add some lorem ipsum', 1, [], [], {}),
    ('q1', '[PATCH v2] test: Add some lorem ipsum', 532, ['p1'], ['p1'],
     {'rev': 2}),
], se_ids({'p1': (1473632524, 8585, 2), 'q1': (1473633055, 10316, 2)}))
T2 = {'c2': (1473633055, 10316, 1), 'q1': (1473633055, 10316, 2),
      'q2': (1473633055, 10316, 3)}
case('revision-threaded-to-cover', V1 + [
    ('c2', '[PATCH v2 0/2] A sample series', 531, ['c1'], ['c1'], {'rev': 2}),
    ('q1', '[PATCH v2 1/2] test: Add some lorem ipsum', 532, ['c2'],
     ['c1', 'c2'], {'rev': 2}),
    ('q2', '[PATCH v2 2/2] test: Convert to Markdown', 533, ['c2'],
     ['c1', 'c2'], {'rev': 2}),
], se_ids(dict(ID1, **T2)))
T3 = {'c2': (1473633142, 10432, 1), 'q1': (1473633142, 10432, 2),
      'q2': (1473633142, 10432, 3)}
case('revision-threaded-to-patch', V1 + [
    ('c2', '[PATCH v2 0/2] A sample series', 618, ['p2'], ['p2'], {'rev': 2}),
    ('q2', '[PATCH v2 2/2] test: Convert to Markdown', 620, ['c2'],
     ['p2', 'c2'], {'rev': 2}),
    ('q1', '[PATCH v2 1/2] test: Add some lorem ipsum', 619, ['c2'],
     ['p2', 'c2'], {'rev': 2}),
], se_ids(dict(ID1, **T3)))
case('revision-out-of-order', V1 + [
    ('q2', '[PATCH v2 2/2] test: Convert to Markdown', 620, ['c2'],
     ['p2', 'c2'], {'rev': 2}),
    ('q1', '[PATCH v2 1/2] test: Add some lorem ipsum', 619, ['c2'],
     ['p2', 'c2'], {'rev': 2}),
    ('c2', '[PATCH v2 0/2] A sample series', 618, ['p2'], ['p2'], {'rev': 2}),
], se_ids(dict(ID1, **T3)))
case('revision-no-cover-letter', V1 + [
    ('q1', '[PATCH v2 1/2] test: Add some lorem ipsum', 713, [], [],
     {'rev': 2}),
    ('q2', '[PATCH v2 2/2] test: Convert to Markdown', 714, ['q1'], ['q1'],
     {'rev': 2}),
], se_ids(dict(ID1, q1=(1473633236, 10676, 1), q2=(1473633236, 10676, 2))))
case('revision-unlabeled', V1 + [
    ('c2', '[PATCH 0/2] A sample series', 677, [], [], {'rev': 2}),
    ('q2', '[PATCH 2/2] test: Convert to Markdown', 679, ['c2'], ['c2'],
     {'rev': 2}),
    ('q1', '[PATCH 1/2] test: Add some lorem ipsum', 678, ['c2'], ['c2'],
     {'rev': 2}),
], se_ids(dict(ID1, c2=(1473633201, 10585, 1), q1=(1473633201, 10585, 2),
               q2=(1473633201, 10585, 3))))
case('revision-unlabeled-noreferences', NR + [
    ('b1', NR[0][1], 3600, [], [], {'rev': 2}),
    ('b2', NR[1][1], 4114, [], [], {'rev': 2}),
], {'a1': '1621747265-17019-1-git-send-email-lz@example.com',
    'a2': '1621747779-18456-1-git-send-email-lz@example.com',
    'b1': '1621747265-17091-1-git-send-email-lz@example.com',
    'b2': '1621747779-18465-1-git-send-email-lz@example.com'},
    tz=8, sender=('Lee Zed', 'lz@example.com'), inbody=None,
    list_id='<netdev.vger.kernel.org>', start=(2021, 5, 23, 13, 21, 5))
case('bugs-unnumbered', V1[:2] + [
    ('o', 'This is an orphaned patch!', 2, ['c1'], ['c1'], {}),
], se_ids(dict(ID1, o=ID1['p2'])))
NC = [
    ('a1', '[PATCH 1/2] test: Add some lorem ipsum', 1, [], [], {}),
    ('a2', '[PATCH 2/2] test: Convert to Markdown', 2, ['a1'], ['a1'], {}),
]
case('bugs-nocover-noversion', NC + [
    ('b1', '[PATCH 1/2] test: Add some lorem ipsum', 532, ['a1'], ['a1'],
     {'rev': 2}),
    ('b2', '[PATCH 2/2] test: Convert to Markdown', 533, ['b1'], ['b1'],
     {'rev': 2}),
], se_ids({'a1': (1473632524, 8585, 2), 'a2': (1473632524, 8585, 3),
           'b1': (1473633055, 10316, 2), 'b2': (1473633055, 10316, 3)}))
case('bugs-nocover', NC + [
    ('b1', '[PATCH v2 1/2] test: Add some lorem ipsum', 532, ['a1'], ['a1'],
     {'rev': 2}),
    ('b2', '[PATCH v2 2/2] test: Convert to Markdown', 533, ['b1'], ['b1'],
     {'rev': 2}),
], se_ids({'a1': (1473632524, 8585, 2), 'a2': (1473632524, 8585, 3),
           'b1': (1473633055, 10316, 2), 'b2': (1473633055, 10316, 3)}))
# the same patch three times, the From: a bare address, a folded List-Id
case('bugs-spamming', [
    ('s1', '[PATCH v2 1/4] Rework tagging infrastructure', 149, [], [], {}),
    ('s2', '[PATCH v2 1/4] Rework tagging infrastructure', 248, [], [], {}),
    ('s3', '[PATCH v2 1/4] Rework tagging infrastructure', 0, [], [], {}),
], {'s1': '20210917170156.23280-1-vk@example.com',
    's2': '20210917170335.23838-1-vk@example.com',
    's3': '20210917165927.22598-1-vk@example.com'},
    tz=2, sender=(None, 'vk@example.com'), inbody=('Vera Kay', 'vk@example.com'),
    list_id='Patchwork development <patchwork.lists.example.org>\n'
    ' <mailto:patchwork-request@lists.example.org?subject=unsubscribe>',
    start=(2021, 9, 17, 18, 59, 24))
case('bugs-mixed-versions', [
    ('a1', '[PATCH 1/2] test: Add some lorem ipsum', 1, [], [], {}),
    ('b2', '[PATCH v2 2/2] test: Convert to Markdown', 7 * 86400 + 533,
     ['b1'], ['b1'], {'rev': 2}),
], se_ids({'a1': (1473632524, 8585, 2), 'b1': (1473633055, 10316, 2),
           'b2': (1473633055, 10316, 3)}))
case('base-incomplete', V1[:2], se_ids(ID1))
case('base-extra-patches', V1 + [
    ('p3', '[PATCH 3/2] test: Remove Markdown formatting', 3, ['c1'], ['c1'],
     {}),
], se_ids(dict(ID1, p3=(1473632524, 8585, 4))))
HG = {'c': 'patchbomb.1611389785@hgbox', 'p1': '2fa3be89e4e1992e9382.1611389786@hgbox',
      'p2': 'b3e2d8cce78c04dbf6f2.1611389787@hgbox'}
case('mercurial-cover-letter', [
    ('c', '[PATCH 0 of 2] Sample Mercurial patches', 0, [], [], {}),
    ('p1', '[PATCH 1 of 2] contrib: fix check-commit to not reject commits',
     1, ['c'], ['c'], {}),
    ('p2', '[PATCH 2 of 2] tests: work around FreeBSD\'s unzip having slightly',
     2, ['c'], ['c'], {}),
], HG, sender=('Andy Hg', 'andy@example.me'), inbody=None,
    start=(2021, 1, 23, 9, 16, 25))
case('mercurial-no-cover-letter', [
    ('p1', '[PATCH 1 of 2] contrib: fix check-commit to not reject commits',
     0, [], [], {}),
    ('p2', '[PATCH 2 of 2] tests: work around FreeBSD\'s unzip having slightly',
     1, ['p1'], ['p1'], {}),
], {'p1': '2fa3be89e4e1992e9382.1611389899@hgbox',
    'p2': 'b3e2d8cce78c04dbf6f2.1611389900@hgbox'},
    sender=('Andy Hg', 'andy@example.me'), inbody=None,
    start=(2021, 1, 23, 9, 18, 19))


def addr(who):
    name, mail = who
    if not name:
        return mail
    if any(ord(ch) > 127 for ch in name):
        name = email.header.Header(name, 'utf-8').encode()
    return '%s <%s>' % (name, mail)


def title_of(subject):
    s = subject
    if s.lower().startswith('re: '):
        s = s[4:]
    while s.startswith('['):
        s = s[s.index(']') + 1:].lstrip(':').strip()
    return s


def patch_text(case_name, subject, rev):
    """Our own little patch: one line added to a file named after it."""
    title = title_of(subject)
    slug = ''.join(ch if ch.isalnum() else '-' for ch in title.lower())
    slug = '-'.join(w for w in slug.split('-') if w)[:40] or 'patch'
    line = 'Text for "%s" (%s, take %d).' % (title, case_name, rev)
    return ('---\n'
            ' notes/%s | 1 +\n'
            ' 1 file changed, 1 insertion(+)\n'
            '\n'
            'diff --git a/notes/%s b/notes/%s\n'
            'index 0000000..1111111 100644\n'
            '--- a/notes/%s\n'
            '+++ b/notes/%s\n'
            '@@ -1 +1,2 @@\n'
            ' Notes\n'
            '+%s\n'
            '-- \n'
            '2.39.5\n' % (slug, slug, slug, slug, slug, line))


def write(name, c):
    tz = datetime.timezone(datetime.timedelta(hours=c['tz']))
    start = datetime.datetime(*c['start'], tzinfo=tz)
    out = []
    for key, subject, off, irt, refs, opt in c['mails']:
        when = start + datetime.timedelta(seconds=off)
        sender = opt.get('from', c['sender'])
        rev = opt.get('rev', 1)
        hdr = ['From %s %s' % (sender[1],
                               when.astimezone(datetime.timezone.utc)
                               .strftime('%a %b %d %H:%M:%S %Y')),
               'From: %s' % addr(sender),
               'Subject: %s' % subject,
               'Date: %s' % when.strftime('%a, %d %b %Y %H:%M:%S %z'),
               'Message-ID: <%s>' % c['ids'][key]]
        if irt or refs:
            if opt.get('twice'):
                for r in irt:
                    hdr.append('In-Reply-To: <%s>' % c['ids'][r])
                    hdr.append('References: <%s>' % c['ids'][r])
            else:
                hdr.append('In-Reply-To: <%s>' % c['ids'][irt[0]])
                hdr.append('References: %s' % '\n '.join(
                    '<%s>' % c['ids'][r] for r in refs))
        if c['list_id']:
            hdr.append('List-Id: %s' % c['list_id'])
        hdr.append('MIME-Version: 1.0')
        hdr.append('Content-Type: %s' %
                   opt.get('ctype', 'text/plain; charset="us-ascii"'))
        hdr.append('Content-Transfer-Encoding: 7bit')
        body = []
        if opt.get('reply'):
            body += ['On 8/20/21 3:36 AM, %s wrote:' % c['sender'][0],
                     '> %s' % title_of(subject), '',
                     'Thanks!', '', 'Acked-by: %s' % addr(sender)]
        else:
            if c['inbody'] and not opt.get('reply'):
                body += ['From: %s' % addr(c['inbody']), '']
            if '0/' in subject or ' 0 of ' in subject:
                body += ['A cover letter for %s.' % title_of(subject), '',
                         '-- ', '2.39.5']
            else:
                who = c['inbody'] or c['sender']
                body += ['Add a line of notes for this change.', '',
                         'Signed-off-by: %s' % addr(who), '']
                body += patch_text(name, subject, rev).split('\n')[:-1]
        out.append('\n'.join(hdr) + '\n\n' + '\n'.join(body) + '\n\n')
    with open(name + '.mbox', 'w', encoding='utf-8') as f:
        f.write(''.join(out))


if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    for name, c in sorted(CASES.items()):
        os.chdir(here)
        write(name, c)
    print('%d cases' % len(CASES))
