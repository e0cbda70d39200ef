"""The Gerrit emulator's REST routes (see README.md, Gerrit)."""

import base64
import json
import re
import time

from gerrit_rest import Response, json_response, text
from gerrit_store import Error, VERSION


def handle(store, req):
    if req.path.startswith("/__emu/"):
        import gerrit_knobs
        return gerrit_knobs.http(store, req)
    path = req.path
    if path.startswith("/a/"):
        path = path[2:]
        req.authed = True
    with store.open() as st:
        if req.authed:
            user = authenticate(st, req)
            if isinstance(user, Response):
                return user
            req.user = user
        if path == "/config/server/version":
            return json_response(req, VERSION)
        if path == "/accounts/self":
            if req.user is None:
                raise Error(403, "Authentication required")
            return json_response(req, st.d["accounts"][req.user])
    return text(404, "Not Found")


def authenticate(st, req):
    h = req.headers.get("Authorization", "")
    unauth = text(401, "Unauthorized",
                  {"WWW-Authenticate": 'Basic realm="Gerrit Code Review"'})
    if not h.startswith("Basic "):
        return unauth
    try:
        user, _, pw = base64.b64decode(h[6:]).decode().partition(":")
    except (ValueError, UnicodeDecodeError):
        return unauth
    acc = st.account(user)
    if acc is None or acc["username"] != user or acc["http_password"] != pw:
        return unauth
    return user
