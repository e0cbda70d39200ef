#!/usr/bin/python3
"""A loopback SMTP server for patchrelay's tests, built on aiosmtpd.

Each accepted message goes into a maildir (--maildir), and one line
"MAIL-FROM RCPT..." per message is appended to --log.  When ready, the
port is written to --port-file (written to a temporary name and renamed,
so a reader never sees a partial number).

Options:
  --port N             listen on 127.0.0.1:N (default: a free port)
  --user U --password P  offer AUTH PLAIN and LOGIN; require it
  --cert F --key F     offer STARTTLS with this certificate
  --require-tls        refuse MAIL before STARTTLS
  --smtps              TLS from the first byte (implicit TLS) instead
  --refuse-rcpt ADDR   answer 550 to RCPT TO:<ADDR> (repeatable)
  --drop-after N       after N messages, drop the connection at the next
                       MAIL and exit
  --data-reply "CODE text"  answer DATA with this instead of 250
  --stall SECONDS      wait this long after the data, then answer 451
                       without keeping the message (a server that hangs)
"""

import argparse
import asyncio
import mailbox
import os
import signal
import socket
import ssl

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Handler:
    def __init__(self, args):
        self.args = args
        self.count = 0
        self.box = mailbox.Maildir(args.maildir, create=True)

    async def handle_MAIL(self, server, session, envelope, address, options):
        if self.args.drop_after is not None and \
                self.count >= self.args.drop_after:
            # the fault: the server goes away in the middle of a series,
            # without an answer, and stays away
            server.transport.abort()
            asyncio.get_running_loop().call_soon(os._exit, 0)
            return "421 closing"
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address.lower() in self.args.refuse_rcpt:
            return "550 5.1.1 no such user: " + address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.args.stall:
            await asyncio.sleep(self.args.stall)
            return "451 4.3.0 stalled"
        if self.args.data_reply:
            return self.args.data_reply
        self.box.add(envelope.original_content)
        self.count += 1
        with open(self.args.log, "a") as f:
            f.write(" ".join([envelope.mail_from] + envelope.rcpt_tos) +
                    "\n")
        return "250 OK queued"


def authenticator(args):
    def check(server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword) and
              auth_data.login.decode() == args.user and
              auth_data.password.decode() == args.password)
        return AuthResult(success=ok, handled=False)
    return check


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--maildir", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--user")
    p.add_argument("--password")
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--require-tls", action="store_true")
    p.add_argument("--smtps", action="store_true")
    p.add_argument("--refuse-rcpt", action="append", default=[])
    p.add_argument("--drop-after", type=int)
    p.add_argument("--data-reply")
    p.add_argument("--stall", type=float)
    args = p.parse_args()
    args.refuse_rcpt = [a.lower() for a in args.refuse_rcpt]

    kw = {}
    if args.cert:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(args.cert, args.key)
        if args.smtps:
            kw["ssl_context"] = ctx
        else:
            kw["tls_context"] = ctx
            kw["require_starttls"] = args.require_tls
    if args.user:
        kw["authenticator"] = authenticator(args)
        kw["auth_required"] = True
        kw["auth_require_tls"] = False
    port = args.port or free_port()
    ctl = Controller(Handler(args), hostname="127.0.0.1", port=port,
                     ready_timeout=10, **kw)
    ctl.start()
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, args.port_file)
    try:
        signal.sigwait([signal.SIGTERM, signal.SIGINT])
    finally:
        ctl.stop()


if __name__ == "__main__":
    main()
