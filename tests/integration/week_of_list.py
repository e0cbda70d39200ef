#!/usr/bin/python3
"""Write a week of a mailing list as an mbox, and how it must group.

usage: week_of_list.py OUT.mbox OUT.expected [DAYS-DIR]

The list: many series sent over seven days, interleaved: threaded with a
cover letter, unthreaded (no In-Reply-To, grouped by Patchwork's markers),
deep-threaded, v2 threaded into v1, v2 in a thread of its own joined by
b4's change-id or by a "Link to v1" line, an unlabeled revision, a RESEND,
a partial re-roll, a series resent whole after a patch was lost (the first
posting superseded), a lone patch and its v2, an orphaned patch answering a
series, two submitters sending at the same minute, an announcement that is
no patch, and replies with trailers (to patches, to cover letters, to
replies).  Dates strictly increase, so every source sees the mails in one
order.  OUT.expected is in tests/data/pwseries/expected's format (case
"week"): one "series" line per posting, its mails by their place in the
mbox, and a letter per patchrelay series.  With DAYS-DIR, the mails of day
N are also written to DAYS-DIR/day-N.mbox.
"""

import datetime
import os
import sys

START = datetime.datetime(2026, 11, 2, 8, 0, 0, tzinfo=datetime.timezone.utc)
PEOPLE = {
    'alice': 'Alice Author', 'bob': 'Bob Builder', 'carol': 'Carol Coder',
    'dave': 'Dave Dev', 'erin': 'Erin Eng', 'frank': 'Frank Fixer',
    'grace': 'Grace Hacker', 'heidi': 'Heidi Hw', 'rita': 'Rita Reviewer',
    'mark': 'Mark Maint', 'tess': 'Tess Ter',
}

mails = []  # dicts, in the order they are made (sorted by date later)
postings = []  # (letter, version, total, cover mail, [patch mails])


def addr(who):
    return '%s <%s@example.org>' % (PEOPLE[who], who)


def at(day, hour, minute, second=0):
    return START + datetime.timedelta(days=day, hours=hour - 8,
                                      minutes=minute, seconds=second)


def mail(who, when, subject, body, irt=None, refs=None, mid=None):
    m = dict(who=who, when=when, subject=subject, body=body,
             irt=irt, refs=refs or ([irt['mid']] if irt else []),
             mid=mid or '%s.%d-%s@example.org' % (
                 when.strftime('%Y%m%d%H%M%S'), len(mails) + 1, who))
    if irt and refs is None:
        m['refs'] = irt['refs'] + [irt['mid']]
    mails.append(m)
    return m


def diff(path, text):
    return ('---\n'
            ' %s | 1 +\n'
            ' 1 file changed, 1 insertion(+)\n'
            '\n'
            'diff --git a/%s b/%s\n'
            'index 1111111..2222222 100644\n'
            '--- a/%s\n'
            '+++ b/%s\n'
            '@@ -1 +1,2 @@\n'
            ' base\n'
            '+%s\n'
            '-- \n'
            '2.39.5\n' % (path, path, path, path, path, text))


def patch_body(who, title, take, extra=''):
    path = 'src/' + ''.join(c if c.isalnum() else '_'
                            for c in title.lower())[:30] + '.c'
    return ('%s: %s.\n%s\nSigned-off-by: %s\n%s' %
            (PEOPLE[who], title, extra, addr(who),
             diff(path, '%s, take %d' % (title, take))))


def series(letter, who, when, title, patches, version=1, cover=True,
           thread='shallow', irt=None, take=None, prefix='PATCH',
           cover_text='', step=20):
    """One posting: a cover letter (unless not) and its patches."""
    v = '' if version == 1 else ' v%d' % version
    n = len(patches)
    take = take or version
    c = None
    t = when
    if cover:
        c = mail(who, t, '[%s%s 0/%d] %s' % (prefix, v, n, title),
                 'The %s series.\n%s\n-- \n2.39.5\n' % (title, cover_text),
                 irt=irt)
    own = []
    prev = c
    for i, p in enumerate(patches, 1):
        t = t + datetime.timedelta(seconds=step)
        if thread == 'none':
            parent = None
        elif thread == 'deep':
            parent = prev or irt
        else:
            parent = c or (own[0] if own else irt)
        m = mail(who, t, '[%s%s %d/%d] %s' % (prefix, v, i, n, p),
                 patch_body(who, p, take), irt=parent)
        own.append(m)
        prev = m
    postings.append((letter, version, n, c, own))
    return c, own


def lone(letter, who, when, title, version=1, irt=None, take=None,
         prefix='PATCH'):
    v = '' if version == 1 else ' v%d' % version
    m = mail(who, when, '[%s%s] %s' % (prefix, v, title),
             patch_body(who, title, take or version), irt=irt)
    postings.append((letter, version, 1, None, [m]))
    return m


def reply(who, when, to, text):
    subject = to['subject']
    if not subject.startswith('Re: '):
        subject = 'Re: ' + subject
    body = 'On %s, %s wrote:\n> %s\n\n%s\n' % (
        to['when'].strftime('%a %d %b'), PEOPLE[to['who']],
        to['subject'], text)
    return mail(who, when, subject, body, irt=to)


CHANGE_ID = '20261103-mm-speed-9c1e4f2a'

# day 0
A1c, A1 = series('A', 'alice', at(0, 9, 0), 'net: add foo support',
                 ['net: add foo core', 'net: add foo ethtool ops',
                  'net: document foo'])
B1c, B1 = series('B', 'bob', at(0, 9, 31), 'fs: cleanup helpers',
                 ['fs: drop unused helper', 'fs: rename inode helper'],
                 cover=False, thread='none', step=45)
reply('rita', at(0, 11, 12), A1[0],
      'Looks right.\n\nReviewed-by: %s' % addr('rita'))
mail('mark', at(0, 12, 0), '[ANNOUNCE] the list moves on Friday',
     'No patch here, only news.\n')
reply('tess', at(0, 13, 5), B1[1], 'Tested on ext4.\n\nTested-by: %s'
      % addr('tess'))
# an orphan: a diff without n/N answering Bob's first patch
lone('K', 'bob', at(0, 13, 40), 'fs: what about this instead',
     irt=B1[0])

# day 1
C1c, C1 = series('C', 'carol', at(1, 8, 15), 'mm: speed up reclaim',
                 ['mm: batch the scan', 'mm: skip clean pages'],
                 cover_text='\n---\nbase-commit: 0123\nchange-id: %s\n'
                 % CHANGE_ID)
D1 = lone('D', 'dave', at(1, 9, 3), 'drm: fix a leak in probe')
H1c, H1 = series('H', 'heidi', at(1, 10, 20), 'gpio: new driver',
                 ['gpio: add bindings', 'gpio: add driver',
                  'gpio: add maintainers entry'])
F1c, F1 = series('F', 'frank', at(1, 11, 0), 'sound: fixes',
                 ['sound: fix pop on resume', 'sound: fix volume step'])
reply('mark', at(1, 14, 0), C1c, 'For the series:\n\nAcked-by: %s'
      % addr('mark'))
r = reply('rita', at(1, 15, 30), H1[1], 'Why the lock?')
reply('heidi', at(1, 16, 2), r, 'It guards the bank list.')
reply('tess', at(1, 17, 44), r, 'Agreed with Rita.\n\n> Reviewed-by: '
      'Nobody <no@example.org>\n\nTested-by: %s' % addr('tess'))

# day 2
A2c, A2 = series('A', 'alice', at(2, 10, 0), 'net: add foo support',
                 ['net: add foo core', 'net: add foo ethtool ops',
                  'net: document foo'], version=2, irt=A1c)
lone('D', 'dave', at(2, 11, 30), 'drm: fix a leak in probe', version=2,
     irt=D1)
E1c, E1 = series('E', 'erin', at(2, 12, 0), 'usb: quirks',
                 ['usb: add quirk table', 'usb: use quirk table'])
# the same again three hours later, without "v2": an unlabeled revision
E2c, E2 = series('E', 'erin', at(2, 15, 0), 'usb: quirks',
                 ['usb: add quirk table', 'usb: use quirk table'], take=2)
reply('rita', at(2, 16, 10), A2c, 'Thanks.\n\nReviewed-by: %s'
      % addr('rita'))

# day 3
B2c, B2 = series('B', 'bob', at(3, 9, 0), 'fs: cleanup helpers',
                 ['fs: drop unused helper', 'fs: rename inode helper'],
                 version=2, cover=False, thread='none', step=50)
C2c, C2 = series('C', 'carol', at(3, 9, 40), 'mm: speed up reclaim and '
                 'compaction', ['mm: batch the scan', 'mm: skip clean pages',
                                'mm: compact less'], version=2,
                 cover_text='\nChanges in v2:\n- compaction too\n\n---\n'
                 'base-commit: 0123\nchange-id: %s\n' % CHANGE_ID)
G1c, G1 = series('G', 'grace', at(3, 11, 0), 'crypto: tidy',
                 ['crypto: tidy a', 'crypto: tidy b', 'crypto: tidy c'],
                 thread='deep')
reply('mark', at(3, 13, 0), C2c, 'Acked-by: %s' % addr('mark'))

# day 4
A3c, A3 = series('A', 'alice', at(4, 8, 30), 'net: foo support, the '
                 'final one', ['net: add foo core', 'net: add foo ethtool '
                               'ops', 'net: document foo'], version=3,
                 cover_text='\nChanges in v3:\n- Link to v2: '
                 'https://lore.kernel.org/r/%s\n' % A2c['mid'])
F2c, F2 = series('F', 'frank', at(4, 10, 0), 'sound: fixes',
                 ['sound: fix pop on resume', 'sound: fix volume step'],
                 prefix='PATCH RESEND', take=1)
reply('tess', at(4, 12, 0), F2[0], 'Tested-by: %s' % addr('tess'))

# day 5
# a partial re-roll: only 2/3 of heidi's series, answering v1's 2/3
h2 = mail('heidi', at(5, 9, 0), '[PATCH v2 2/3] gpio: add driver',
          patch_body('heidi', 'gpio: add driver', 2), irt=H1[1])
postings.append(('H', 2, 3, None, [h2]))
# two submitters, the same minute, unthreaded, the same total
series('I', 'alice', at(5, 14, 0), 'x', ['net: tidy bar', 'net: tidy baz'],
       cover=False, thread='none', step=2)
series('J', 'bob', at(5, 14, 0, 1), 'y', ['fs: tidy bar', 'fs: tidy baz'],
       cover=False, thread='none', step=2)

# 2/2 of a series lost on its way, then the whole resent: the first
# posting is superseded and no source emits it
series('M', 'dave', at(5, 16, 0), 'pci: fixes', ['pci: fix a'])
postings[-1] = ('M', 1, 2, postings[-1][3], postings[-1][4], True)
mails[-2]['subject'] = mails[-2]['subject'].replace('0/1', '0/2')
mails[-1]['subject'] = mails[-1]['subject'].replace('1/1', '1/2')
series('M', 'dave', at(5, 16, 30), 'pci: fixes', ['pci: fix a',
                                                  'pci: fix b'],
       prefix='PATCH RESEND')

# day 6
lone('L', 'carol', at(6, 9, 0), 'mm: one more fix', prefix='PATCH mm')
reply('rita', at(6, 10, 0), A3[2], 'Nit: a typo.\n\nReviewed-by: %s'
      % addr('rita'))


def order():
    # the two same-minute series interleave: mails one second apart
    mails.sort(key=lambda m: m['when'])
    for a, b in zip(mails, mails[1:]):
        if b['when'] <= a['when']:
            b['when'] = a['when'] + datetime.timedelta(seconds=1)


def text(m):
    hdr = ['From %s@example.org %s' % (m['who'],
                                       m['when'].strftime('%a %b %d %H:%M:%S %Y')),
           'From: %s' % addr(m['who']),
           'Subject: %s' % m['subject'],
           'Date: %s' % m['when'].strftime('%a, %d %b %Y %H:%M:%S +0000'),
           'Message-ID: <%s>' % m['mid']]
    if m['irt']:
        hdr.append('In-Reply-To: <%s>' % m['irt']['mid'])
        hdr.append('References: %s' % '\n '.join('<%s>' % r
                                                 for r in m['refs']))
    hdr += ['List-Id: <devel.lists.example.org>', 'MIME-Version: 1.0',
            'Content-Type: text/plain; charset="us-ascii"']
    return '\n'.join(hdr) + '\n\n' + m['body'] + '\n'


def main():
    order()
    place = {id(m): i for i, m in enumerate(mails, 1)}
    with open(sys.argv[1], 'w', encoding='utf-8') as f:
        for m in mails:
            f.write(text(m))
    if len(sys.argv) > 3:
        for day in range(7):
            with open(os.path.join(sys.argv[3], 'day-%d.mbox' % day), 'w',
                      encoding='utf-8') as f:
                for m in mails:
                    if (m['when'] - START).days == day:
                        f.write(text(m))
    replies = sum(1 for m in mails if m['subject'].startswith('Re: '))
    covers = sum(1 for p in postings if p[3])
    patches = sum(len(p[4]) for p in postings)
    with open(sys.argv[2], 'w', encoding='utf-8') as f:
        f.write('case week %d %d %d\n' % (covers, patches, replies))
        for letter, version, total, c, own, *gone in postings:
            own = sorted(own, key=lambda m: int(
                m['subject'].split('/')[0].split()[-1])
                if '/' in m['subject'].split(']')[0] else 1)
            complete = len(own) == total
            f.write('series %s %d %d %s%s p=%s%s\n' % (
                letter, version, total, 'yes' if complete else 'no',
                ' c=%d' % place[id(c)] if c else '',
                ','.join(str(place[id(m)]) for m in own),
                ' superseded' if gone else ''))


if __name__ == '__main__':
    main()
