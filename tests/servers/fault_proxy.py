#!/usr/bin/python3
"""An HTTP proxy for patchrelay's tests that fails on demand.

    fault_proxy.py --upstream http://127.0.0.1:PORT --port-file F --fault-file G

Each GET is passed to the upstream server (with its Host header, so that
the links it writes name the proxy) unless the fault file holds a line
"MODE SUBSTRING" whose SUBSTRING is in the request path:

    404 t.mbox.gz       answer 404
    500 new.atom        answer 500
    truncate t.mbox.gz  send the upstream's body cut in half

The fault file is read at each request, so a test changes the behaviour
by rewriting it; an empty or missing file means no fault.  Each request is
logged to stderr as "METHOD PATH -> STATUS".  The port (a free one on
127.0.0.1) is written to the port file, through a rename, when ready.
"""

import argparse
import http.client
import http.server
import os
import sys
import urllib.parse


def fault_for(path, fault_file):
    try:
        with open(fault_file) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return None
    for line in lines:
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[1] in path:
            return parts[0]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--fault-file", required=True)
    args = ap.parse_args()
    up = urllib.parse.urlsplit(args.upstream)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, fmt, *a):
            sys.stderr.write(fmt % a + "\n")

        def reply(self, status, body, ctype="text/plain"):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            fault = fault_for(self.path, args.fault_file)
            if fault in ("404", "500"):
                self.reply(int(fault), b"fault injected\n")
                return
            c = http.client.HTTPConnection(up.hostname, up.port, timeout=30)
            c.request("GET", self.path,
                      headers={"Host": self.headers.get("Host", "")})
            r = c.getresponse()
            body = r.read()
            c.close()
            if fault == "truncate":
                body = body[: len(body) // 2]
            self.reply(r.status, body,
                       r.getheader("Content-Type", "text/plain"))

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
