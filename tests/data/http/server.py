#!/usr/bin/python3
"""A tiny HTTP server for tests/unit/test_http.c (stdlib only).

  /usr/bin/python3 server.py PORT_FILE

Listens on 127.0.0.1 (a free port, written to PORT_FILE through a rename)
and answers by path:
  /echo       200, the request's method, headers and body as JSON
  /etag       200 with ETag "abc"; 304 when If-None-Match is "abc"
  /limited    403 with x-ratelimit-remaining 0 and x-ratelimit-reset 2000000000
  /retry      429 with retry-after 7
  /big        200 with 100000 bytes
  /pages      200 with a Link header naming page 2, and x-next-page 2
  /conn       200, the client's port (which connection asked)
  /close      200, the client's port, then the connection is closed (no
              "Connection: close" said)
  /dropnext   200, the client's port; the next request on the connection
              is read and the connection closed without an answer
  /quit       200, then the server stops

HTTP/1.1: a client may keep its connection for the next request.
"""
import http.server
import json
import os
import sys


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n) if n else b""
        p = self.path
        if getattr(self, "drop_next", False):
            self.close_connection = True
            return
        if p == "/echo":
            d = {"method": self.command, "body": data.decode(),
                 "headers": {k.lower(): v for k, v in self.headers.items()}}
            self.answer(200, json.dumps(d).encode())
        elif p == "/etag":
            if self.headers.get("If-None-Match") == '"abc"':
                self.answer(304, headers=[("ETag", '"abc"')])
            else:
                self.answer(200, b"[]", [("ETag", '"abc"')])
        elif p == "/limited":
            self.answer(403, b'{"message":"API rate limit exceeded"}',
                        [("x-ratelimit-remaining", "0"),
                         ("x-ratelimit-reset", "2000000000")])
        elif p == "/retry":
            self.answer(429, b"{}", [("Retry-After", "7")])
        elif p == "/big":
            self.answer(200, b"x" * 100000)
        elif p == "/pages":
            self.answer(200, b"[1]", [
                ("Link", '<http://h/pages?page=2>; rel="next", '
                 '<http://h/pages?page=9>; rel="last"'),
                ("X-Next-Page", "2"), ("X-Total", "9")])
        elif p == "/conn":
            self.answer(200, str(self.client_address[1]).encode())
        elif p in ("/close", "/dropnext"):
            self.answer(200, str(self.client_address[1]).encode())
            self.close_connection = p == "/close"
            self.drop_next = p == "/dropnext"
        elif p == "/quit":
            self.answer(200, b"bye")
            self.server.quit = True
        else:
            self.answer(404, b'{"message":"Not Found"}')

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = handle_any


def main():
    srv = http.server.HTTPServer(("127.0.0.1", 0), H)
    srv.quit = False
    # a test that died leaves no server behind for long
    srv.timeout = 30
    srv.handle_timeout = lambda: setattr(srv, "quit", True)
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, sys.argv[1])
    while not srv.quit:
        srv.handle_request()


main()
