#!/usr/bin/python3
"""Make the known values of the Patchwork hash unit test (test_pwhash.c).

    /usr/bin/python3 tests/data/pwhash/gen.py

Builds a throw-away repository whose commits cover what the hash must get
right (a modification, an added and a deleted file (/dev/null), renames
with and without changes, a mode change, binary files first and last,
one-line files whose hunk headers lack counts, no newline at end of file,
a removed line that reads "--- x", a path with a space, CRLF and UTF-8
lines, a blank context line last) and writes, for each commit NAME:

  NAME.diff  git diff c~..c with pinned prefixes and context
  NAME.mail  the mail git format-patch writes for the commit

and `expected`: "NAME DIFF-HASH MAIL-HASH" a line, where DIFF-HASH is
hash_diff of NAME.diff and MAIL-HASH the hash Patchwork stores for
NAME.mail (its parser's diff of the body, hashed), both from
tests/emulators/pwhash.py.  Hand-made texts (edge-*.diff) get a line with
"-" as MAIL-HASH.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "emulators"))
from pwhash import hash_diff, hash_mail_body  # noqa: E402

ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", LC_ALL="C",
           GIT_AUTHOR_NAME="Ada Demo", GIT_AUTHOR_EMAIL="ada@example.org",
           GIT_COMMITTER_NAME="Ada Demo",
           GIT_COMMITTER_EMAIL="ada@example.org",
           GIT_AUTHOR_DATE="@1796299200 +0000",
           GIT_COMMITTER_DATE="@1796299200 +0000")


def git(repo, *args, data=None):
    return subprocess.run(["git", "-C", repo, "-c", "diff.renames=true",
                           "-c", "core.autocrlf=false"] + list(args),
                          check=True, capture_output=True, env=ENV,
                          input=data).stdout


def write(repo, path, data, mode=None):
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data)
    if mode:
        os.chmod(full, mode)


def lines(n, tag):
    return "".join("%s line %d\n" % (tag, i) for i in range(1, n + 1)).encode()


# name -> a change to the work tree (the commit subject is the name)
def steps():
    big = lines(40, "big")
    return [
        ("modify", lambda r: write(
            r, "src/big.c",
            big.replace(b"big line 5\n", b"big line five\n")
            .replace(b"big line 30\n", b"big line 30\nbig line 30b\n"))),
        ("add", lambda r: write(r, "src/new.c", lines(3, "new"))),
        ("delete", lambda r: os.remove(os.path.join(r, "src/old.c"))),
        ("rename-edit", lambda r: (
            os.rename(os.path.join(r, "doc/a.txt"),
                      os.path.join(r, "doc/b.txt")),
            write(r, "doc/b.txt",
                  lines(20, "doc").replace(b"doc line 10\n",
                                           b"doc line ten\n")))),
        ("rename-pure", lambda r: os.rename(os.path.join(r, "doc/b.txt"),
                                            os.path.join(r, "doc/c.txt"))),
        ("mode", lambda r: os.chmod(os.path.join(r, "run.sh"), 0o755)),
        ("binary-last", lambda r: write(
            r, "zz/logo.bin", bytes(range(256)) * 4)),
        ("binary-first", lambda r: (
            write(r, "aa/icon.bin", bytes(range(255, -1, -1)) * 3),
            write(r, "src/big.c", big + b"tail\n"))),
        ("one-line", lambda r: (
            write(r, "one.txt", b"two\n"),
            write(r, "fresh.txt", b"only\n"))),
        ("no-newline", lambda r: write(r, "nonl.txt", b"a\nb\nc changed")),
        ("dashes", lambda r: write(
            r, "sig.txt", b"keep\nkeep too\n")),
        ("space-path", lambda r: write(r, "dir/my file.c", b"x\ny\n")),
        ("crlf-utf8", lambda r: write(
            r, "dos.txt", "caf\u00e9\r\nna\u00efve\r\n\u00a0nbsp\r\n"
            .encode())),
        ("blank-last", lambda r: write(
            r, "blank.txt", b"a\nb\nc\nd\n\n")),
    ]


def setup(repo):
    git(repo, "init", "-q", "-b", "main")
    write(repo, "src/big.c", lines(40, "big"))
    write(repo, "src/old.c", lines(5, "old"))
    write(repo, "doc/a.txt", lines(20, "doc"))
    write(repo, "run.sh", b"#!/bin/sh\necho hi\n", 0o644)
    write(repo, "one.txt", b"one\n")
    write(repo, "nonl.txt", b"a\nb\nc")
    write(repo, "sig.txt", b"keep\n-- x\nkeep too\n")
    write(repo, "dir/my file.c", b"x\n")
    write(repo, "dos.txt", "caf\u00e9\r\nnaive\r\n\u00a0nbsp\r\n".encode())
    write(repo, "blank.txt", b"a\nb\nc\n\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")


EDGES = {
    # CRs go, the text is stripped (a trailing blank context line too)
    "edge-strip": "\r\n \n--- a/x\r\n+++ b/x\n@@ -1,2 +1,2 @@ f()\n-a\r\n"
                  "+b\n \n\n",
    # counts default to 1, leading zeros do not count, the rest is dropped
    "edge-hunks": "--- x\n+++ y/z/w\n@@ -7 +007,0010 @@ ctx @@\n"
                  "@@ -1, +1 @@\n@@ -1,2 +3 @@@\n",
    # "--- " with nothing after it is a removed line; Unicode spaces strip
    "edge-names": "\u00a0--- \n---  two spaces\n+++ \u00e9/p q\n"
                  "diff --git a/x b/x\nindex 1..2\n\\ No newline\n"
                  "+ok\u3000\n\u2003",
    "edge-empty": "diff --git a/x b/y\nsimilarity index 100%\n"
                  "rename from x\nrename to y\n",
}


def main():
    out = HERE
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        os.mkdir(repo)
        setup(repo)
        for name, change in steps():
            change(repo)
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", name, "-m", "Body of %s." % name)
            diff = git(repo, "diff", "--src-prefix=a/", "--dst-prefix=b/",
                       "-U3", "--no-color", "--no-ext-diff", "HEAD~",
                       "HEAD")
            mail = git(repo, "format-patch", "-1", "--stdout", "HEAD")
            with open(os.path.join(out, name + ".diff"), "wb") as f:
                f.write(diff)
            with open(os.path.join(out, name + ".mail"), "wb") as f:
                f.write(mail)
            body = mail.decode("utf-8").split("\n\n", 1)[1]
            rows.append("%s %s %s" % (name, hash_diff(diff.decode("utf-8")),
                                      hash_mail_body(body)))
    for name, text in EDGES.items():
        with open(os.path.join(out, name + ".diff"), "wb") as f:
            f.write(text.encode("utf-8"))
        rows.append("%s %s -" % (name, hash_diff(text)))
    with open(os.path.join(out, "expected"), "w") as f:
        f.write("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
