"""image_server's HTTP-semantics routes: a cookie session, cacheable resources with a hit counter, redirect hops.

    POST /session/login            {"user": U, "password": "secret"} -> 200 {"user": U} and
                                   Set-Cookie: session=<token>; Path=/; HttpOnly (401 for another password)
    POST /session/login-redirect   the same login answered with 302 to /session/me, the cookie set on the 302
    GET  /session/me               200 {"user": U} when the request carries a live session cookie, else 401
    POST /session/logout           204, deleting the cookie (Max-Age=0) and ending the session
    GET  /cookies/set?name=value&_attrs=A   sets each name=value with the attributes A (default "Path=/")
    GET  /cookies/echo             {"cookies": {name: value}} of the Cookie header received
    GET  /hops/{n}                 302 to /hops/{n-1}; /hops/0 answers {"hops": "done"}

    GET|HEAD /cache/{key}?max_age=S&expires=S&etag=1&last_modified=1&no_store=1&no_cache=1&must_revalidate=1
                         &vary=H&stale_if_error=S&size=N
                                   {"key", "version", "variant", "pad"}: Cache-Control, Expires (S seconds ahead), ETag,
                                   Last-Modified and Vary as asked; If-None-Match / If-Modified-Since that match -> 304
    POST|PUT|DELETE /cache/{key}   bumps the resource's version (so a stale copy is detectable) -> 200
    GET  /cache-hits/{key}         {"requests", "conditional", "not_modified"}: what reached the server for the key
"""
import json
import secrets
import threading
import time
from email.utils import formatdate, parsedate_to_datetime
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl

from uploads import UploadError, number

PASSWORD = "secret"
# Last-Modified of version v of a resource: a fixed epoch, a day per version, so a conditional request is exact.
LAST_MODIFIED_EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z


class SemanticsState:
    def __init__(self):
        self.lock = threading.Lock()
        self.sessions = {}   # token -> user
        self.versions = {}   # cache key -> version
        self.hits = {}       # cache key -> {"requests", "conditional", "not_modified"}


def route(handler, parts, query, body):
    """Handles the routes above; returns False for any other path."""
    state = handler.server.semantics
    if parts[:1] == ["session"] and len(parts) == 2:
        session(handler, state, parts[1], body)
    elif parts[:1] == ["cookies"] and len(parts) == 2 and parts[1] in ("set", "echo"):
        cookies(handler, parts[1], query)
    elif parts[:1] == ["hops"] and len(parts) == 2:
        remaining = number({"n": parts[1]}, "n", 0)
        if remaining > 0:
            send(handler, 302, b"", {"Location": f"/hops/{remaining - 1}"})
        else:
            send_json(handler, 200, {"hops": "done"})
    elif parts[:1] == ["cache"] and len(parts) == 2:
        cache(handler, state, parts[1], query)
    elif parts[:1] == ["cache-hits"] and len(parts) == 2:
        with state.lock:
            send_json(handler, 200, state.hits.get(parts[1], {"requests": 0, "conditional": 0, "not_modified": 0}))
    else:
        return False
    return True


def send(handler, code, body, headers):
    handler.send_response(code)
    for name, value in headers.items() if isinstance(headers, dict) else headers:
        handler.send_header(name, value)
    if code not in (204, 304):
        handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if handler.command != "HEAD" and code not in (204, 304) and body:
        handler.wfile.write(body)


def send_json(handler, code, value, headers=()):
    headers = [("Content-Type", "application/json")] + list(headers.items() if isinstance(headers, dict) else headers)
    send(handler, code, json.dumps(value).encode(), headers)


def received_cookies(handler):
    jar = SimpleCookie()
    try:
        jar.load(handler.headers.get("Cookie", ""))
    except Exception:
        return {}
    return {name: morsel.value for name, morsel in jar.items()}


def session(handler, state, action, body):
    if action in ("login", "login-redirect") and handler.command == "POST":
        try:
            fields = json.loads(body or b"{}")
        except ValueError:
            raise UploadError(400, "the body is not valid JSON")
        user = fields.get("user") if isinstance(fields, dict) else None
        if not isinstance(user, str) or fields.get("password") != PASSWORD:
            return send_json(handler, 401, {"error": "wrong user or password", "status": 401})
        token = secrets.token_hex(16)
        with state.lock:
            state.sessions[token] = user
        cookie = ("Set-Cookie", f"session={token}; Path=/; HttpOnly")
        if action == "login":
            return send_json(handler, 200, {"user": user}, [cookie])
        return send(handler, 302, b"", [cookie, ("Location", "/session/me")])
    if action == "me" and handler.command in ("GET", "HEAD"):
        with state.lock:
            user = state.sessions.get(received_cookies(handler).get("session"))
        if user is None:
            return send_json(handler, 401, {"error": "no session", "status": 401})
        return send_json(handler, 200, {"user": user})
    if action == "logout" and handler.command == "POST":
        with state.lock:
            state.sessions.pop(received_cookies(handler).get("session"), None)
        return send(handler, 204, b"", [("Set-Cookie", "session=; Path=/; Max-Age=0")])
    send_json(handler, 404, {"error": f"no route for {handler.command} /session/{action}", "status": 404})


def cookies(handler, action, query):
    if action == "echo":
        return send_json(handler, 200, {"cookies": received_cookies(handler)})
    attributes = query.pop("_attrs", "Path=/")
    headers = [("Set-Cookie", f"{name}={value}; {attributes}") for name, value in query.items()]
    send_json(handler, 200, {"set": sorted(query)}, headers)


def cache(handler, state, key, query):
    if handler.command in ("POST", "PUT", "DELETE", "PATCH"):
        with state.lock:
            state.versions[key] = state.versions.get(key, 1) + 1
            version = state.versions[key]
        return send_json(handler, 200, {"key": key, "version": version})
    if handler.command not in ("GET", "HEAD"):
        return send_json(handler, 405, {"error": "GET, HEAD or an unsafe method", "status": 405})
    vary = query.get("vary")
    variant = handler.headers.get(vary, "") if vary else ""
    conditional = "If-None-Match" in handler.headers or "If-Modified-Since" in handler.headers
    with state.lock:
        version = state.versions.setdefault(key, 1)
        hits = state.hits.setdefault(key, {"requests": 0, "conditional": 0, "not_modified": 0})
        hits["requests"] += 1
        hits["conditional"] += 1 if conditional else 0

    directives = []
    if "max_age" in query:
        directives.append(f"max-age={number(query, 'max_age', 0)}")
    for flag, directive in (("no_store", "no-store"), ("no_cache", "no-cache"), ("must_revalidate", "must-revalidate")):
        if query.get(flag) == "1":
            directives.append(directive)
    if "stale_if_error" in query:
        directives.append(f"stale-if-error={number(query, 'stale_if_error', 0)}")
    headers = []
    if directives:
        headers.append(("Cache-Control", ", ".join(directives)))
    if "expires" in query:
        headers.append(("Expires", formatdate(time.time() + number(query, "expires", 0), usegmt=True)))
    etag = f'"{key}-v{version}-{variant}"'
    if query.get("etag") == "1":
        headers.append(("ETag", etag))
    modified = LAST_MODIFIED_EPOCH + 86_400 * version
    if query.get("last_modified") == "1":
        headers.append(("Last-Modified", formatdate(modified, usegmt=True)))
    if vary:
        headers.append(("Vary", vary))

    if matches(handler, query, etag, modified):
        with state.lock:
            hits["not_modified"] += 1
        return send(handler, 304, b"", headers)
    pad = "x" * max(0, min(number(query, "size", 0), 1 << 20))
    send_json(handler, 200, {"key": key, "version": version, "variant": variant, "pad": pad}, headers)


def matches(handler, query, etag, modified):
    """Whether the request's validators match the current version (RFC 9110 §13.1: If-None-Match wins)."""
    if_none_match = handler.headers.get("If-None-Match")
    if if_none_match is not None:
        return query.get("etag") == "1" and etag in [tag.strip() for tag in if_none_match.split(",")]
    since = handler.headers.get("If-Modified-Since")
    if since is not None and query.get("last_modified") == "1":
        try:
            return parsedate_to_datetime(since).timestamp() >= modified
        except (TypeError, ValueError):
            return False
    return False
