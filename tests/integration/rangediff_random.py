#!/usr/bin/python3
# Random two-version series compared with git range-diff --no-color.
# usage: rangediff_random.py PATCHRELAY WORKDIR FIRST-SEED COUNT
# Each seed builds a repository with a few files, a random series (v1) and
# an edited copy of it (v2: patches dropped, changed, reworded, added,
# swapped), then compares both tools at creation factors 60, 30 and 200.
# Exits 1 on the first difference, leaving that repository in WORKDIR.
import os
import random
import shutil
import subprocess
import sys

patchrelay, work, first, count = (sys.argv[1], sys.argv[2],
                                  int(sys.argv[3]), int(sys.argv[4]))
env = dict(os.environ, GIT_AUTHOR_NAME="A U Thor",
           GIT_AUTHOR_EMAIL="a@example.org", GIT_COMMITTER_NAME="C",
           GIT_COMMITTER_EMAIL="c@example.org",
           GIT_AUTHOR_DATE="1700000000 +0000",
           GIT_COMMITTER_DATE="1700000000 +0000", GIT_CONFIG_NOSYSTEM="1",
           HOME=work)


def git(d, *args):
    return subprocess.run(["git"] + list(args), cwd=d, env=env, check=True,
                          capture_output=True).stdout


def trial(seed):
    rnd = random.Random(seed)
    d = os.path.join(work, "r%d" % seed)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    git(d, "init", "-q")
    nfiles = rnd.randint(2, 5)
    base = {"f%d.txt" % f: ["l%d_%d" % (f, i)
                            for i in range(rnd.randint(3, 30))]
            for f in range(nfiles)}

    def write(files):
        for name, lines in files.items():
            with open(os.path.join(d, name), "w") as fh:
                fh.write("".join(l + "\n" for l in lines))

    write(base)
    git(d, "add", ".")
    git(d, "commit", "-qm", "base")
    git(d, "tag", "base")

    def edit():
        f = "f%d.txt" % rnd.randrange(nfiles)
        return [f, rnd.random(),
                ["x%d" % rnd.randrange(5) for _ in range(rnd.randint(1, 4))],
                rnd.choice(["fix", "add", "tweak", "change"]) + " " + f,
                rnd.randint(0, 2)]

    s1 = [edit() for _ in range(rnd.randint(1, 6))]
    s2 = []
    for e in s1:
        r = rnd.random()
        if r < 0.15:
            continue
        e = [e[0], e[1], list(e[2]), e[3], e[4]]
        if r < 0.4:
            e[2][rnd.randrange(len(e[2]))] = "y%d" % rnd.randrange(5)
        elif r < 0.5:
            e[3] += " v2"
        s2.append(e)
        if rnd.random() < 0.15:
            s2.append(edit())
    if rnd.random() < 0.3 and len(s2) > 1:
        i = rnd.randrange(len(s2) - 1)
        s2[i], s2[i + 1] = s2[i + 1], s2[i]

    def build(name, series):
        git(d, "checkout", "-q", "-B", name, "base")
        files = {k: list(v) for k, v in base.items()}
        for f, pos, new, msg, drop in series:
            lines = files[f]
            p = int(pos * len(lines))
            lines[p:p + drop] = new
            write(files)
            git(d, "add", ".")
            git(d, "commit", "-q", "--allow-empty", "-m", msg)

    build("v1", s1)
    build("v2", s2)
    if not s1 or not s2:
        return True  # git refuses an empty range
    for cf in ("60", "30", "200"):
        opt = "--creation-factor=" + cf
        want = subprocess.run(["git", "range-diff", "--no-color", opt,
                               "base..v1", "base..v2"], cwd=d, env=env,
                              capture_output=True)
        got = subprocess.run([patchrelay, "range-diff", opt, "base..v1",
                              "base..v2"], cwd=d, env=env,
                             capture_output=True)
        if want.returncode or not want.stdout:
            continue
        if got.stdout != want.stdout:
            sys.stderr.write("seed %d %s: differs (exit %d) in %s\n%s" %
                             (seed, opt, got.returncode, d,
                              got.stderr.decode(errors="replace")))
            return False
    shutil.rmtree(d)
    return True


os.makedirs(work, exist_ok=True)
for s in range(first, first + count):
    if not trial(s):
        sys.exit(1)
print("ok: %d random series match git range-diff" % count)
