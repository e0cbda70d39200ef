#!/usr/bin/python3
"""A proxy for patchrelay's tests that fails on demand.

    fault_proxy.py --upstream URL --port-file F --fault-file G
                   [--tcp] [--tls-cert C --tls-key K]

HTTP (the default): each request (any method, its body and headers) is
passed to the upstream server http://HOST:PORT (with its Host header, so
that the links it writes name the proxy), unless the fault file holds a
line "MODE SUBSTRING" whose SUBSTRING is in "METHOD PATH" (so "POST /x"
or just "/x"; with a "*", a glob: "POST */notes"); the first such line
decides:

    404 t.mbox.gz       answer 404 (any status: 500, 503, 429, ...)
    truncate t.mbox.gz  send the upstream's body cut in half (a shorter,
                        well-framed body: a malformed answer)
    drop /api/          send the upstream's status, headers and the
                        first half of its body, then close: a connection
                        lost in the middle of the answer
    garbage /api/       answer 200 with bytes that are no format at all
    skip,bytes=5 /a/    send the upstream's answer without the first 5
                        bytes of its body (Gerrit's ")]}'" line gone)
    hang /api/          read the request and never answer
    close /api/         close the connection without answering

MODE may carry options after commas: "429,retry-after=7 /api/" adds a
Retry-After header; "403,reset=+30" an exhausted rate limit that resets
30 s from now (x-ratelimit-remaining: 0 and x-ratelimit-reset, and
GitLab's RateLimit-* names); "count=N" uses the line for N requests
(or connections) only, counted from the time the file was last written;
"body=WORDS" (underscores as spaces) the body of a status answer.

TCP (--tcp): a byte pipe to the upstream host:port (smtp://, imap://,
ssh:// ... any scheme, only its host and port count).  The first line of
the fault file (its SUBSTRING is not looked at) decides for each new
connection: "hang", "close", "garbage" (a line of junk, then close) or
"drop,after=N" (the upstream's first N bytes are passed, then both ends
are closed) or "drop,at=TEXT" (the upstream's bytes up to TEXT, underscores
as spaces, are passed: "drop,at=250_OK_queued" loses the answer to a mail
that the server has taken).  The end of each connection is logged as
"connection closed: N bytes up, M down".

--tls-cert/--tls-key: the proxy speaks TLS to its clients with this
certificate (https://, smtps://, imaps://) and plain to the upstream; an
HTTP request goes up with "X-Forwarded-Proto: https", so that an emulator
writes https links.

The fault file is read at each request or connection, so a test changes
the behaviour by rewriting it; an empty or missing file means no fault.
Each HTTP request is logged to stderr as BaseHTTPRequestHandler logs it
('"GET /path HTTP/1.1" 200 -'), each fault as "fault MODE: METHOD PATH"
or "fault MODE: connection".  The port (a free one on 127.0.0.1) is
written to the port file, through a rename, when ready.
"""

import argparse
import fnmatch
import http.client
import http.server
import os
import socket
import socketserver
import ssl
import sys
import threading
import time
import urllib.parse

HOP = {"connection", "keep-alive", "transfer-encoding", "content-length",
       "proxy-connection", "te", "upgrade", "trailer"}


class Faults:
    """The fault file, read on every use; the counts of its lines."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.used = {}

    def take(self, subject, tcp=False):
        """(mode, options) of the first line that applies, or None."""
        with self.lock:
            try:
                st = os.stat(self.path)
                with open(self.path) as f:
                    lines = f.read().splitlines()
            except FileNotFoundError:
                return None
            for i, line in enumerate(lines):
                parts = line.split(None, 1)
                if not parts or (not tcp and len(parts) < 2):
                    continue
                if not tcp and not matches(parts[1], subject):
                    continue
                mode, *opts = parts[0].split(",")
                o = dict(x.partition("=")[::2] for x in opts)
                if "count" in o:
                    key = (st.st_ino, st.st_mtime_ns, i, line)
                    n = self.used.get(key, 0)
                    if n >= int(o["count"]):
                        continue
                    self.used[key] = n + 1
                return mode, o
            return None


def matches(pattern, subject):
    """SUBSTRING in subject; with a *, a glob anywhere in subject."""
    if "*" in pattern:
        return fnmatch.fnmatchcase(subject, "*" + pattern + "*")
    return pattern in subject


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def linger(sock):
    """Read and drop what the client sends until it goes (at most 10 min)."""
    sock.settimeout(600)
    try:
        while sock.recv(65536):
            pass
    except OSError:
        pass


def http_main(args, faults, ctx):
    up = urllib.parse.urlsplit(args.upstream)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, fmt, *a):
            log(fmt % a)

        def reply(self, status, body, headers=()):
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def body(self):
            if self.headers.get("Transfer-Encoding", "").lower() == \
                    "chunked":
                data = b""
                while True:
                    n = int(self.rfile.readline().split(b";")[0], 16)
                    if not n:
                        while self.rfile.readline() not in (b"\r\n", b"\n",
                                                            b""):
                            pass
                        return data
                    data += self.rfile.read(n)
                    self.rfile.readline()
            n = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(n) if n else b""

        def upstream(self, data):
            c = http.client.HTTPConnection(up.hostname, up.port, timeout=60)
            hdrs = {k: v for k, v in self.headers.items()
                    if k.lower() not in HOP}
            if ctx:
                hdrs["X-Forwarded-Proto"] = "https"
            c.request(self.command, self.path, body=data, headers=hdrs)
            r = c.getresponse()
            body = r.read()
            c.close()
            return r.status, [(k, v) for k, v in r.getheaders()
                              if k.lower() not in HOP], body

        def handle_one(self):
            data = self.body()
            f = faults.take("%s %s" % (self.command, self.path))
            mode, o = f if f else (None, {})
            if mode:
                log("fault %s: %s %s" % (mode, self.command, self.path))
            if mode == "hang":
                self.wfile.flush()
                linger(self.connection)
                self.close_connection = True
                return
            if mode == "close":
                self.close_connection = True
                return
            if mode and mode.isdigit():
                hdrs = [("Content-Type", "text/plain")]
                if "retry-after" in o:
                    hdrs.append(("Retry-After", o["retry-after"]))
                if "reset" in o:
                    r = o["reset"]
                    t = int(time.time()) + int(r[1:]) if r[0] == "+" \
                        else int(r)
                    hdrs += [("X-RateLimit-Limit", "5000"),
                             ("X-RateLimit-Remaining", "0"),
                             ("X-RateLimit-Reset", str(t)),
                             ("RateLimit-Remaining", "0"),
                             ("RateLimit-Reset", str(t))]
                text = o.get("body", "fault_injected").replace("_", " ")
                self.reply(int(mode), text.encode() + b"\n", hdrs)
                return
            if mode == "garbage":
                self.reply(200, b"\x00\xff<html>not what was asked{[\n",
                           [("Content-Type", "application/json")])
                return
            status, hdrs, body = self.upstream(data)
            if mode == "truncate":
                body = body[: len(body) // 2]
            if mode == "skip":
                body = body[int(o.get("bytes", "1")):]
            if mode == "drop":
                self.send_response(status)
                for k, v in hdrs:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            self.reply(status, body, hdrs)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = \
            handle_one

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if ctx:
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True,
                                     do_handshake_on_connect=False)
    return srv


def tcp_main(args, faults, ctx):
    up = urllib.parse.urlsplit(args.upstream)

    def pump(src, dst, cut, done, count):
        """Pass src's bytes to dst; cut(seen, chunk) says how many of the
        chunk may go before the connection is cut (None: all, go on)."""
        seen = b""
        try:
            while True:
                chunk = src.recv(65536)
                if not chunk:
                    break
                n = cut(seen, chunk) if cut else None
                if n is not None:
                    dst.sendall(chunk[:n])
                    count[0] += n
                    break
                dst.sendall(chunk)
                count[0] += len(chunk)
                seen += chunk
        except OSError:
            pass
        done.set()

    def cutter(mode, o):
        """The cut of "drop,after=N" or "drop,at=TEXT" (before TEXT)."""
        if mode != "drop":
            return None
        if "after" in o:
            limit = int(o["after"])
            return lambda seen, chunk: (
                limit - len(seen) if len(seen) + len(chunk) >= limit
                else None)
        at = o["at"].replace("_", " ").encode()

        def cut(seen, chunk):
            i = (seen[-len(at):] + chunk).find(at)
            if i < 0:
                return None
            return max(0, i - min(len(seen), len(at)))
        return cut

    class Handler(socketserver.BaseRequestHandler):
        def handle(self):
            sock = self.request
            f = faults.take("", tcp=True)
            mode, o = f if f else (None, {})
            if mode:
                log("fault %s: connection" % mode)
            if ctx:
                try:
                    sock = ctx.wrap_socket(sock, server_side=True)
                except (OSError, ssl.SSLError) as e:
                    log("tls handshake failed: %s" % e)
                    return
            if mode == "hang":
                linger(sock)
                return
            if mode == "close":
                return
            if mode == "garbage":
                sock.sendall(b"\x00\xffnot a protocol at all\r\n")
                return
            try:
                u = socket.create_connection((up.hostname, up.port), 30)
            except OSError as e:
                log("upstream: %s" % e)
                return
            u.settimeout(None)
            done = threading.Event()
            up_n, down_n = [0], [0]
            threading.Thread(target=pump, args=(sock, u, None, done, up_n),
                             daemon=True).start()
            threading.Thread(target=pump,
                             args=(u, sock, cutter(mode, o), done, down_n),
                             daemon=True).start()
            done.wait()
            for s in (u, sock):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            log("connection closed: %d bytes up, %d down" %
                (up_n[0], down_n[0]))

    class Server(socketserver.ThreadingTCPServer):
        daemon_threads = True
        allow_reuse_address = True

    return Server(("127.0.0.1", 0), Handler)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--fault-file", required=True)
    ap.add_argument("--tcp", action="store_true")
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    args = ap.parse_args()
    faults = Faults(args.fault_file)
    ctx = None
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
    srv = (tcp_main if args.tcp else http_main)(args, faults, ctx)
    srv.daemon_threads = True
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
