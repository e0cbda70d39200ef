#!/usr/bin/python3
"""git's smart HTTP server for patchrelay's tests, on loopback.

Every request must carry HTTP basic auth for --user and --password (else
401 with a WWW-Authenticate challenge); then it is handed to git's own
CGI, git-http-backend, with GIT_PROJECT_ROOT=ROOT and every repository
exported.  When ready, the port is written to --port-file (to a temporary
name, then renamed, so a reader never sees a partial number).

usage: git_http.py --root ROOT --port-file F --user U --password P
"""

import argparse
import base64
import http.server
import os
import subprocess

BACKEND = "/usr/lib/git-core/git-http-backend"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--user", required=True)
    ap.add_argument("--password", required=True)
    args = ap.parse_args()
    token = base64.b64encode(
        ("%s:%s" % (args.user, args.password)).encode()).decode()
    want = "Basic " + token

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            pass

        def do_GET(self):
            self.cgi()

        def do_POST(self):
            self.cgi()

        def body(self):
            if self.headers.get("Transfer-Encoding", "") == "chunked":
                data = b""
                while True:
                    n = int(self.rfile.readline().strip(), 16)
                    chunk = self.rfile.read(n)
                    self.rfile.readline()
                    if not n:
                        return data
                    data += chunk
            n = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(n) if n else b""

        def cgi(self):
            data = self.body()
            if self.headers.get("Authorization") != want:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path, _, query = self.path.partition("?")
            env = {
                "GIT_PROJECT_ROOT": args.root,
                "GIT_HTTP_EXPORT_ALL": "1",
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "REQUEST_METHOD": self.command,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(data)),
                "REMOTE_USER": args.user,
                "REMOTE_ADDR": "127.0.0.1",
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            }
            if self.headers.get("Content-Encoding"):
                env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
            if self.headers.get("Git-Protocol"):
                env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
            out = subprocess.run([BACKEND], input=data, env=env,
                                 stdout=subprocess.PIPE).stdout
            head, _, rest = out.partition(b"\r\n\r\n")
            status = 200
            headers = []
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(rest)))
            self.end_headers()
            self.wfile.write(rest)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
