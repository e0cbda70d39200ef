#!/usr/bin/python3
"""A Gerrit emulator for patchrelay's tests (stdlib only; /usr/bin/python3).

  gerrit.py serve --root DIR --ssh-port P --port-file FILE   the REST server
  gerrit.py ssh --root DIR           sshd's ForceCommand (SSH_ORIGINAL_COMMAND)
  gerrit.py hook proc-receive --root DIR    git's proc-receive hook
  gerrit.py ctl --root DIR KNOB key=value...  the knobs
  gerrit.py password --root DIR USER          a user's HTTP password

Start it with tests/servers/gerrit.sh; README.md beside this file describes
the interface.  All state is DIR/state.json, read and written under an
flock of DIR/state.lock by every process (the REST server, each ssh
command, git's hooks); events are appended to DIR/events.jsonl, which
every `gerrit stream-events` session follows.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gerrit_store  # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(prog="gerrit.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("serve")
    p.add_argument("--root", required=True)
    p.add_argument("--ssh-port", type=int, required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--port", type=int, default=0)
    p = sub.add_parser("ssh")
    p.add_argument("--root", required=True)
    p = sub.add_parser("hook")
    p.add_argument("name")
    p.add_argument("--root", required=True)
    p = sub.add_parser("ctl")
    p.add_argument("--root", required=True)
    p.add_argument("knob")
    p.add_argument("args", nargs="*")
    p = sub.add_parser("password")
    p.add_argument("--root", required=True)
    p.add_argument("user")
    a = ap.parse_args(argv)
    root = os.path.abspath(a.root)
    if a.cmd == "serve":
        import gerrit_rest
        return gerrit_rest.serve(root, a.ssh_port, a.port, a.port_file)
    if a.cmd == "ssh":
        import gerrit_ssh
        return gerrit_ssh.main(root)
    if a.cmd == "hook":
        import gerrit_push
        return gerrit_push.hook(root, a.name)
    if a.cmd == "ctl":
        import gerrit_knobs
        return gerrit_knobs.cli(root, a.knob, a.args)
    if a.cmd == "password":
        with gerrit_store.Store(root).open() as st:
            acc = st.account(a.user)
            if acc is None:
                sys.exit("gerrit.py: no user '%s'" % a.user)
            print(acc["http_password"])
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
