#!/usr/bin/python3
"""Webhook deliveries as GitHub, GitLab and Gerrit's webhooks plugin send
them, for patchrelay's tests (stdlib only).

  hooks.py send --forge github|gitlab|gerrit --url URL --secret S
           [--event E] [--delivery ID] [--number N] [--bad]
      One delivery; prints the HTTP status and the answer's first line.
      --bad signs with another secret (gitlab, gerrit: sends it).
  hooks.py burst --forge F --url URL --secret S --count N --seconds T
           [--workers W] [--probe URL]
      N deliveries, each with its own id, spread over T seconds from W
      threads; with --probe, GETs that URL every 50 ms meanwhile.  Prints
      JSON: {"statuses": {status: count}, "probes": n, "probe_max_ms": ms,
      "probe_failures": n}.

What each sends (documented by each forge):
- GitHub: POST, Content-Type application/json, User-Agent
  GitHub-Hookshot/ID, X-GitHub-Event, X-GitHub-Delivery (a GUID),
  X-GitHub-Hook-ID, X-GitHub-Hook-Installation-Target-Type/-ID,
  X-Hub-Signature (sha1=HMAC-SHA1) and X-Hub-Signature-256
  (sha256=HMAC-SHA256), both of the raw body keyed with the secret.
- GitLab: POST, Content-Type application/json, User-Agent GitLab/VERSION,
  X-Gitlab-Event ("Note Hook", "Merge Request Hook"), X-Gitlab-Token (the
  secret token itself), X-Gitlab-Instance, X-Gitlab-Webhook-UUID,
  X-Gitlab-Event-UUID, Idempotency-Key (17.4+, kept across retries).
- Gerrit (plugins/webhooks): POST of the event JSON, Content-Type
  application/json; charset=UTF-8; no signature and no header of the
  site's choosing, so the secret rides in the URL as ?token=.
"""

import argparse
import hashlib
import hmac
import json
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid


def github(args, delivery, n):
    body = {
        "action": "created",
        "issue": {"number": n, "title": "a pull request",
                  "pull_request": {"url": "https://api.github.com/repos/"
                                   "kernel/net/pulls/%d" % n}},
        "comment": {"id": 1000 + n, "body": "/submit",
                    "user": {"login": "ada"}},
        "repository": {"full_name": "kernel/net"},
        "sender": {"login": "ada"},
    }
    raw = json.dumps(body).encode()
    key = (args.secret + ("-wrong" if args.bad else "")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/8d4b5c7",
        "X-GitHub-Event": args.event or "issue_comment",
        "X-GitHub-Delivery": delivery,
        "X-GitHub-Hook-ID": "424242",
        "X-GitHub-Hook-Installation-Target-Type": "repository",
        "X-GitHub-Hook-Installation-Target-ID": "4242",
        "X-Hub-Signature": "sha1=" + hmac.new(key, raw,
                                              hashlib.sha1).hexdigest(),
        "X-Hub-Signature-256": "sha256=" + hmac.new(
            key, raw, hashlib.sha256).hexdigest(),
    }
    return args.url, raw, headers


def gitlab(args, delivery, n):
    body = {
        "object_kind": "note", "event_type": "note",
        "user": {"username": "ada"},
        "project": {"path_with_namespace": "kernel/net"},
        "object_attributes": {"note": "/submit",
                              "noteable_type": "MergeRequest"},
        "merge_request": {"iid": n, "title": "a merge request"},
    }
    raw = json.dumps(body).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "GitLab/17.5.0",
        "X-Gitlab-Event": args.event or "Note Hook",
        "X-Gitlab-Token": args.secret + ("-wrong" if args.bad else ""),
        "X-Gitlab-Instance": "https://gitlab.example.com",
        "X-Gitlab-Webhook-UUID": "0b6ee1b2-7a5e-4a39-9d5f-1e0c1c4f3a10",
        "X-Gitlab-Event-UUID": str(uuid.uuid4()),
        "Idempotency-Key": delivery,
    }
    return args.url, raw, headers


def gerrit(args, delivery, n):
    body = {
        "type": args.event or "comment-added",
        "change": {"project": "net", "branch": "main", "number": n,
                   "id": "I%040x" % n},
        "comment": "/submit",
        # a retried POST carries the same event, hence the same body
        "eventCreatedOn": int(delivery, 16) % 2000000000
        if all(c in "0123456789abcdef" for c in delivery) else 1700000000,
    }
    raw = json.dumps(body).encode()
    token = args.secret + ("-wrong" if args.bad else "")
    sep = "&" if "?" in args.url else "?"
    url = args.url + sep + urllib.parse.urlencode({"token": token})
    headers = {"Content-Type": "application/json; charset=UTF-8",
               "User-Agent": "Apache-HttpClient/4.5.14 (Java/17.0.9)"}
    return url, raw, headers


FORGES = {"github": github, "gitlab": gitlab, "gerrit": gerrit}


def post(args, delivery, n):
    url, raw, headers = FORGES[args.forge](args, delivery, n)
    req = urllib.request.Request(url, data=raw, headers=headers,
                                 method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def send(args):
    delivery = args.delivery or str(uuid.uuid4())
    status, text = post(args, delivery, args.number)
    print(status, (text.splitlines() or [""])[0])


def burst(args):
    statuses = {}
    lock = threading.Lock()
    start = time.monotonic()
    next_i = [0]
    probe = {"n": 0, "max": 0.0, "fail": 0}
    done = threading.Event()

    def worker():
        while True:
            with lock:
                i = next_i[0]
                if i >= args.count:
                    return
                next_i[0] += 1
            # spread evenly over the time asked for
            at = start + args.seconds * i / args.count
            if at > time.monotonic():
                time.sleep(at - time.monotonic())
            try:
                status, _ = post(args, "%032x" % (0x10000 + i + args.base),
                                 args.number)
            except Exception as e:  # a refused or reset connection
                status = type(e).__name__
            with lock:
                statuses[str(status)] = statuses.get(str(status), 0) + 1

    def prober():
        while not done.is_set():
            t = time.monotonic()
            try:
                with urllib.request.urlopen(args.probe, timeout=10) as r:
                    r.read()
                    ok = r.status == 200
            except Exception:
                ok = False
            ms = (time.monotonic() - t) * 1000
            probe["n"] += 1
            probe["max"] = max(probe["max"], ms)
            probe["fail"] += 0 if ok else 1
            done.wait(0.05)

    threads = [threading.Thread(target=worker) for _ in range(args.workers)]
    p = threading.Thread(target=prober) if args.probe else None
    if p:
        p.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    if p:
        p.join()
    print(json.dumps({"statuses": statuses, "probes": probe["n"],
                      "probe_max_ms": round(probe["max"], 1),
                      "probe_failures": probe["fail"],
                      "seconds": round(time.monotonic() - start, 2)}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["send", "burst"])
    ap.add_argument("--forge", choices=sorted(FORGES), required=True)
    ap.add_argument("--url", required=True)
    ap.add_argument("--secret", required=True)
    ap.add_argument("--event")
    ap.add_argument("--delivery")
    ap.add_argument("--number", type=int, default=1)
    ap.add_argument("--bad", action="store_true")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--base", type=int, default=0,
                    help="first delivery number of a burst")
    ap.add_argument("--probe")
    args = ap.parse_args()
    if args.mode == "send":
        send(args)
    else:
        burst(args)


if __name__ == "__main__":
    sys.exit(main())
