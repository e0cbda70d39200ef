"""The Gerrit emulator's SSH side: sshd's ForceCommand lands here."""

import os
import shlex
import sys

from gerrit_store import Store, VERSION


def main(root):
    store = Store(root)
    user = os.environ.get("USER", "")
    cmd = os.environ.get("SSH_ORIGINAL_COMMAND", "")
    argv = shlex.split(cmd)
    if argv[:2] == ["gerrit", "version"]:
        print("gerrit version %s" % VERSION)
        return 0
    sys.stderr.write("fatal: gerrit: %s: not found\n" % (argv[1] if len(argv) > 1 else cmd))
    return 1
