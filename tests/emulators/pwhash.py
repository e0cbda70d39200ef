"""Patchwork's diff hash and diff extraction, restated for the tests.

Written from /work/shared/reference/apis.md section 4 ("Diff hash"): the
emulator (patchwork.py) hashes the mails it is fed with these, and
tests/data/pwhash/gen.py computes the known values of the C unit test with
them.  Python 3 stdlib only.
"""

import hashlib
import re

# the first run of non-blanks after "--- " or "+++ "
_NAME = re.compile(r"^(---|\+\+\+) (\S+)")
# a hunk header; the line numbers and the function context do not count
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
# git's extended header lines, as Patchwork's parser knows them
_EXTENDED = ("old mode ", "new mode ", "deleted file mode ",
             "new file mode ", "copy from ", "copy to ", "rename from ",
             "rename to ", "similarity index ", "dissimilarity index ",
             "index ")
_NO_NEWLINE = "\\ No newline at end of file"


def hash_diff(diff):
    """The hex SHA-1 of the diff's normalised lines (apis.md steps 1-3)."""
    text = diff.replace("\r", "").strip() + "\n"
    h = hashlib.sha1()
    for line in text.split("\n"):
        if not line:
            continue
        name = _NAME.match(line)
        hunk = _HUNK.match(line)
        if name:
            # the path loses its first component, whatever it was
            rest = "/".join(name.group(2).split("/")[1:])
            line = "%s %s%s" % (name.group(1),
                                "a/" if name.group(1) == "---" else "b/",
                                rest)
        elif hunk:
            old, new = (int(x) if x else 1 for x in hunk.groups())
            line = "@@ -%d +%d @@" % (old, new)
        elif line[0] not in "-+ ":
            continue
        h.update((line + "\n").encode("utf-8"))
    return h.hexdigest()


def split_body(body):
    """A mail body as (diff, comment), by counting hunk lines (or None).

    Text before and after the diff is the comment, except that everything
    after a "GIT binary patch" up to the next "diff" line is taken: a
    signature after a binary last file is part of the diff.  A suspected
    diff header that no hunk follows goes back to the comment.
    """
    out, held, comment = [], [], []
    state, hunks, counts = "text", 0, [0, 0]
    for line in body.split("\n"):
        line += "\n"
        if state == "text":
            if line.startswith(("diff ", "Index: ")):
                state = "header"
                held.append(line)
            elif line.startswith("--- "):
                state = "old"
                held.append(line)
            else:
                comment.append(line)
        elif state == "header":
            held.append(line)
            if line.startswith("--- "):
                state = "old"
            if line.startswith(_EXTENDED):
                state = "extended"
        elif state == "old":
            if line.startswith("+++ "):
                state = "new"
                held.append(line)
            elif hunks:
                state = "header"
                held.append(line)
            else:
                comment += held + [line]
                state, held = "text", []
        elif state == "new":
            m = _HUNK.match(line)
            if m:
                counts = [int(x) if x else 1 for x in m.groups()]
                state = "hunk"
                out += held + [line]
                held = []
            elif line.startswith("--- "):
                out += held + [line]
                held = []
                state = "old"
            elif hunks and line.startswith(_NO_NEWLINE):
                out.append(line)
            elif hunks:
                state = "header"
                held.append(line)
            else:
                comment += held + [line]
                state, held = "text", []
        elif state == "hunk":
            if line.startswith("-"):
                counts[0] -= 1
            elif line.startswith("+"):
                counts[1] -= 1
            elif not line.startswith(_NO_NEWLINE):
                counts[0] -= 1
                counts[1] -= 1
            out.append(line)
            if counts[0] <= 0 and counts[1] <= 0:
                state = "new"
                hunks += 1
        elif state == "extended":
            if line.startswith(_EXTENDED):
                out += held + [line]
                held = []
            elif line.startswith("--- "):
                out += held + [line]
                held = []
                state = "old"
            elif line.startswith("GIT binary patch"):
                out += held + [line]
                held = []
                state = "binary"
            else:
                held.append(line)
                state = "header"
        else:  # binary: up to the next "diff" line
            if line.startswith("diff"):
                held.append(line)
                state = "text"
            else:
                out += held + [line]
                held = []
    comment += held
    diff = "".join(out).replace("\x00", "")
    return diff or None, "".join(comment) or None


def hash_mail_body(body):
    """Patchwork's `hash` of a patch mail whose text/plain body is body."""
    diff = split_body(body)[0]
    return hash_diff(diff) if diff is not None else None
