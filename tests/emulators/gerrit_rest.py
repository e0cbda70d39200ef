"""The Gerrit emulator's REST API (and the /__emu/ knobs over HTTP)."""

import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from gerrit_store import Error, Store

PREFIX = b")]}'\n"


class Request:
    def __init__(self, handler, body):
        self.method = handler.command
        self.raw = handler.path
        self.headers = handler.headers
        self.body = body
        path, _, query = self.raw.partition("?")
        self.path = path
        self.query = []
        for part in query.split("&") if query else []:
            k, _, v = part.partition("=")
            from urllib.parse import unquote_plus
            self.query.append((unquote_plus(k), unquote_plus(v)))
        self.user = None
        self.authed = False

    def args(self, name):
        return [v for k, v in self.query if k == name]

    def arg(self, name, default=None):
        v = self.args(name)
        return v[-1] if v else default

    def has(self, name):
        return any(k == name for k, _ in self.query)


class Response:
    def __init__(self, status, body=b"", ctype="text/plain; charset=UTF-8",
                 headers=None):
        self.status = status
        self.body = body.encode() if isinstance(body, str) else body
        self.headers = {"Content-Type": ctype}
        self.headers.update(headers or {})


def text(status, msg, headers=None):
    if not msg.endswith("\n"):
        msg += "\n"
    return Response(status, msg, headers=headers)


def json_response(req, obj, status=200):
    compact = req.arg("pp") == "0" or \
        "application/json" in req.headers.get("Accept", "")
    if compact:
        body = json.dumps(obj, separators=(",", ":"))
    else:
        body = json.dumps(obj, indent=2)
    return Response(status, PREFIX + body.encode() + b"\n",
                    "application/json; charset=UTF-8",
                    {"Content-Disposition": "attachment",
                     "X-Content-Type-Options": "nosniff"})


def serve(root, ssh_port, port, port_file):
    store = Store(root)
    with store.open(write=True) as st:
        st.d["server"]["ssh_port"] = ssh_port
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(store))
    server.daemon_threads = True
    with store.open(write=True) as st:
        st.d["server"]["rest_url"] = "http://127.0.0.1:%d" % \
            server.server_address[1]
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(tmp, port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def make_handler(store):
    import gerrit_api

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "gerrit-emulator"

        def log_message(self, fmt, *args):
            pass

        def dispatch(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            req = Request(self, body)
            try:
                resp = gerrit_api.handle(store, req)
            except Error as e:
                resp = text(e.status, e.text)
            try:
                self.send_response(resp.status)
                for k, v in resp.headers.items():
                    self.send_header(k, str(v))
                self.send_header("Content-Length", str(len(resp.body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(resp.body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = dispatch

    return Handler
