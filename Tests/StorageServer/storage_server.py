#!/usr/bin/env python3
"""storage_server: a JSON storage API shaped like Kinto's, for RestingKit's guide "A whole API's client".

Python 3 standard library only; `python3 Tests/StorageServer/storage_server.py --port 0` prints
`storage_server listening on http://127.0.0.1:<port>` first; with --exit-with-stdin it exits when standard input closes.

Accounts and permissions, as Kinto has them:
    PUT    /v1/accounts/{user}       {"data": {"password"}} -> 201; no credentials needed for a new account; the
                                     account alice:wonderland exists from the start
    Requests authenticate with `Authorization: Basic` (wrong credentials -> 401) or go anonymous. The principals of a
    request are system.Everyone, and when authenticated system.Authenticated and account:<user>. Every object has
    permissions {"read": [...], "write": [...]} (a collection also "record:create"); its creator may write it; a
    permission on a bucket holds for its collections and on a collection for its records. Refused: 401 (errno 104,
    `WWW-Authenticate: Basic realm="storage"`) when anonymous, else 403 (errno 121).
    PUT    /v1/buckets/{b}                    {"permissions"?} -> 201 or 200 {"data": {"id", "last_modified"},
    PUT    /v1/buckets/{b}/collections/{c}    "permissions"}: creates or updates (a new collection needs write on b)
    A bucket or collection used before it is created is created for the account that uses it (Kinto's own
    `default` bucket does the same).
Records, in {"data": …} with {"permissions": …} beside:
    GET    /v1/buckets/{b}/collections/{c}/records[?_limit=N&_since=T&_token=K&_next_base=URL]
           {"data": [records]}: those the principals may read, ordered by last_modified; with _since, only the ones
           changed after T, each deletion since then as a tombstone {"id", "last_modified", "deleted": true}.
           ETag: "<collection timestamp>" (If-None-Match equal -> 304, empty). While there is more, the next page's
           absolute URL (on _next_base when given) in a Next-Page header, a Link header (rel="next") and "next".
    POST   .../records                 {"data", "permissions"?} -> 201 {"data": record, "permissions"}, ETag
    GET    .../records/{id}            {"data": record, "permissions"}, ETag: "<last_modified>"
    PUT    .../records/{id}            {"data", "permissions"?}: creates (201) or replaces (200)
    PATCH  .../records/{id}            {"data"?, "permissions"?}: application/json merges data's fields,
                                       application/merge-patch+json applies data as an RFC 7396 patch (a body
                                       without "data" or "permissions" is the patch itself); permissions given
                                       replace those of their kind
    DELETE .../records/{id}            {"data": {"id", "last_modified", "deleted": true}}
    A write with If-Match other than the record's ETag, or with If-None-Match: * on an existing record -> 412
    (errno 114); a missing record -> 404 (errno 110).
    POST   /v1/batch      {"requests": [{"method", "path", "body"?}]} -> {"responses": [{"status", "path", "body"}]}
Switches for the tests, no credentials needed:
    PUT    /__control__/{collection}/backoff       body: seconds; later answers about that collection carry
                                                   `Backoff: <seconds>` (0 removes it)
    PUT    /__control__/{collection}/unavailable   body: n; its next n lists answer 503 with Retry-After: 1
Records are {"id", "last_modified", ...fields}. Errors are {"errno", "code", "error", "message"}. The collection
"seeded" of any bucket holds records r00..r04 from the start, so that two servers serve the same pages.
"""
import argparse
import base64
import json
import os
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
ACCOUNTS = {"alice": "wonderland"}
BUCKETS = {}  # bucket -> {"permissions", "last_modified", "collections": {name: collection}}
CONTROL = {}  # (collection, switch) -> int
CLOCK = [1000]
IDS = [0]
EVERYONE, AUTHENTICATED = "system.Everyone", "system.Authenticated"


def tick():
    CLOCK[0] += 1
    return CLOCK[0]


class Failure(Exception):
    def __init__(self, code, errno, error, message, headers=()):
        super().__init__(message)
        self.code, self.errno, self.error, self.message, self.headers = code, errno, error, message, headers


def refused(principals):
    if AUTHENTICATED not in principals:
        return Failure(401, 104, "Unauthorized", "Please authenticate yourself to use this endpoint.",
                       [("WWW-Authenticate", 'Basic realm="storage"')])
    return Failure(403, 121, "Forbidden", "This user cannot access this resource.")


def merge_patch(target, patch):
    """RFC 7396."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for name, value in patch.items():
        if value is None:
            result.pop(name, None)
        else:
            result[name] = merge_patch(result.get(name), value)
    return result


def permissions_in(body):
    given = body.get("permissions") or {}
    if not isinstance(given, dict) or not all(isinstance(v, list) for v in given.values()):
        raise Failure(400, 107, "Invalid parameters", "permissions are lists of principals by kind")
    return given


def owned(principals, given):
    """An object's permissions: what was given, its creator among the writers."""
    permissions = {kind: list(names) for kind, names in given.items()}
    user = next((p for p in principals if p.startswith("account:")), None)
    if user and user not in permissions.setdefault("write", []):
        permissions["write"].append(user)
    return permissions


def allowed(principals, kind, *objects):
    """Whether the principals hold `kind` (or write, which implies every kind) on any of the objects."""
    return any(principals & set(o["permissions"].get(kind, []) + o["permissions"].get("write", []))
               for o in objects if o is not None)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def do_PUT(self):
        self.dispatch("PUT")

    def dispatch(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        extra = []
        try:
            if url.path.startswith("/__control__/"):
                _, _, name, switch = url.path.split("/", 3)
                with LOCK:
                    CONTROL[(name, switch)] = int(raw or b"0")
                return self.send(200, {"ok": True})
            principals = self.principals()
            parts = [urllib.parse.unquote(p) for p in url.path.split("/") if p]
            if len(parts) >= 5 and CONTROL.get((parts[4], "backoff")):
                extra.append(("Backoff", str(CONTROL[(parts[4], "backoff")])))
            with LOCK:
                status, body, headers = self.route(method, parts, query, raw, principals)
            self.send(status, body, list(headers) + extra)
        except Failure as failure:
            self.send(failure.code, {"errno": failure.errno, "code": failure.code, "error": failure.error,
                                     "message": failure.message}, list(failure.headers) + extra)

    def principals(self):
        authorization = self.headers.get("Authorization")
        if authorization is None:
            return {EVERYONE}
        try:
            scheme, encoded = authorization.split(" ", 1)
            user, password = base64.b64decode(encoded, validate=True).decode().split(":", 1)
        except (ValueError, UnicodeDecodeError):
            user, password, scheme = None, None, None
        if scheme != "Basic" or user is None or ACCOUNTS.get(user) != password:
            raise refused({EVERYONE})
        return {EVERYONE, AUTHENTICATED, f"account:{user}"}

    def json(self, raw):
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            raise Failure(400, 107, "Invalid parameters", "the body is not JSON")
        if not isinstance(body, dict):
            raise Failure(400, 107, "Invalid parameters", "the body is not a JSON object")
        return body

    def route(self, method, parts, query, raw, principals):
        if parts == ["v1", "batch"] and method == "POST":
            return self.batch(self.json(raw), principals)
        if len(parts) == 3 and parts[:2] == ["v1", "accounts"] and method == "PUT":
            return self.account(parts[2], self.json(raw), principals)
        if len(parts) >= 3 and parts[:2] == ["v1", "buckets"]:
            if len(parts) == 3 and method == "PUT":
                return self.put_bucket(parts[2], self.json(raw), principals)
            if len(parts) >= 5 and parts[3] == "collections":
                bucket = self.bucket(parts[2], principals)
                if len(parts) == 5 and method == "PUT":
                    return self.put_collection(bucket, parts[4], self.json(raw), principals)
                if len(parts) >= 6 and parts[5] == "records":
                    store = self.collection(bucket, parts[4], principals)
                    if len(parts) == 6 and method == "GET":
                        return self.list(bucket, store, parts[4], query, principals)
                    if len(parts) == 6 and method == "POST":
                        return self.create(bucket, store, None, self.json(raw), principals)
                    if len(parts) == 7:
                        return self.record(method, bucket, store, parts[6], raw, principals)
        raise Failure(404, 111, "Not Found", f"{method} /{'/'.join(parts)} is not a route")

    def account(self, user, body, principals):
        password = (body.get("data") or {}).get("password")
        if not isinstance(password, str) or not password:
            raise Failure(400, 107, "Invalid parameters", "data.password is missing")
        if user in ACCOUNTS and f"account:{user}" not in principals:
            raise refused(principals)
        created = user not in ACCOUNTS
        ACCOUNTS[user] = password
        return (201 if created else 200), {"data": {"id": user}, "permissions": {"write": [f"account:{user}"]}}, []

    def bucket(self, name, principals):
        if name not in BUCKETS:
            if AUTHENTICATED not in principals:
                raise refused(principals)
            BUCKETS[name] = {"permissions": owned(principals, {}), "last_modified": tick(), "collections": {}}
        return BUCKETS[name]

    def collection(self, bucket, name, principals):
        collections = bucket["collections"]
        if name not in collections:
            if not allowed(principals, "collection:create", bucket):
                raise refused(principals)
            collections[name] = {"permissions": owned(principals, {}), "timestamp": CLOCK[0], "records": {},
                                 "tombstones": {}}
            if name == "seeded":
                for n in range(5):
                    collections[name]["records"][f"r{n:02d}"] = {
                        "data": {"id": f"r{n:02d}", "last_modified": 100 + n, "n": n}, "permissions": {}}
                collections[name]["timestamp"] = 104
        return collections[name]

    def put_bucket(self, name, body, principals):
        if AUTHENTICATED not in principals:
            raise refused(principals)
        existing = BUCKETS.get(name)
        if existing is not None and not allowed(principals, "write", existing):
            raise refused(principals)
        bucket = existing or {"collections": {}}
        bucket.update(permissions=owned(principals, permissions_in(body)), last_modified=tick())
        BUCKETS[name] = bucket
        return (200 if existing else 201), {"data": {"id": name, "last_modified": bucket["last_modified"]},
                                            "permissions": bucket["permissions"]}, []

    def put_collection(self, bucket, name, body, principals):
        existing = bucket["collections"].get(name)
        if not allowed(principals, "write" if existing else "collection:create", existing or bucket):
            raise refused(principals)
        store = existing or {"timestamp": tick(), "records": {}, "tombstones": {}}
        store["permissions"] = owned(principals, permissions_in(body))
        bucket["collections"][name] = store
        return (200 if existing else 201), {"data": {"id": name, "last_modified": store["timestamp"]},
                                            "permissions": store["permissions"]}, []

    def list(self, bucket, store, name, query, principals):
        if CONTROL.get((name, "unavailable"), 0) > 0:
            CONTROL[(name, "unavailable")] -= 1
            raise Failure(503, 201, "Service Unavailable", "back soon", [("Retry-After", "1")])
        etag = f'"{store["timestamp"]}"'
        headers = [("ETag", etag)]
        if self.headers.get("If-None-Match") == etag:
            return 304, None, headers
        readable = [r["data"] for r in store["records"].values() if allowed(principals, "read", bucket, store, r)]
        if not readable and not allowed(principals, "read", bucket, store) and AUTHENTICATED not in principals:
            raise refused(principals)
        try:
            since = int(query.get("_since", "-1").strip('"'))
        except ValueError:
            raise Failure(400, 107, "Invalid parameters", "_since is not a timestamp")
        records = [r for r in readable if r["last_modified"] > since]
        if "_since" in query:
            records += [t for t in store["tombstones"].values() if t["last_modified"] > since]
        records.sort(key=lambda r: r["last_modified"])
        start = int(query.get("_token", "0"))
        limit = int(query.get("_limit", "0")) or len(records) or 1
        page = records[start:start + limit]
        body = {"data": page}
        if start + limit < len(records):
            base = query.get("_next_base") or f"http://{self.headers.get('Host')}"
            rest = {k: v for k, v in query.items() if k not in ("_token", "_next_base")}
            rest["_token"] = str(start + limit)
            path = urllib.parse.urlsplit(self.path).path
            following = f"{base}{path}?{urllib.parse.urlencode(rest)}"
            headers.append(("Next-Page", following))
            headers.append(("Link", f'<{following}>; rel="next"'))
            body["next"] = following
        return 200, body, headers

    def stamp(self, store, identifier, fields, permissions):
        record = {"data": dict(fields, id=identifier, last_modified=tick()), "permissions": permissions}
        store["records"][identifier] = record
        store["tombstones"].pop(identifier, None)
        store["timestamp"] = record["data"]["last_modified"]
        return record, [("ETag", f'"{record["data"]["last_modified"]}"')]

    def create(self, bucket, store, identifier, body, principals):
        fields = body.get("data")
        if not isinstance(fields, dict):
            raise Failure(400, 107, "Invalid parameters", "data is missing")
        if not allowed(principals, "record:create", bucket, store):
            raise refused(principals)
        IDS[0] += 1
        identifier = identifier or fields.get("id") or f"rec{IDS[0]}"
        record, headers = self.stamp(store, identifier, fields, owned(principals, permissions_in(body)))
        return 201, record, headers

    def record(self, method, bucket, store, identifier, raw, principals):
        record = store["records"].get(identifier)
        if not allowed(principals, "read" if method == "GET" else "write", bucket, store, record):
            if record is not None or not allowed(principals, "read", bucket, store):
                raise refused(principals)
        if record is None and method == "PUT" and self.headers.get("If-Match") is None:
            return self.create(bucket, store, identifier, self.json(raw), principals)
        if record is None:
            raise Failure(404, 110, "Not Found", f"record {identifier} does not exist")
        etag = f'"{record["data"]["last_modified"]}"'
        if method == "GET":
            if self.headers.get("If-None-Match") == etag:
                return 304, None, [("ETag", etag)]
            return 200, record, [("ETag", etag)]
        if self.headers.get("If-Match", etag) != etag or self.headers.get("If-None-Match") == "*":
            raise Failure(412, 114, "Precondition Failed", "Resource was modified meanwhile")
        if method == "DELETE":
            del store["records"][identifier]
            tombstone = {"id": identifier, "last_modified": tick(), "deleted": True}
            store["tombstones"][identifier] = tombstone
            store["timestamp"] = tombstone["last_modified"]
            return 200, {"data": tombstone}, []
        body = self.json(raw)
        permissions = dict(record["permissions"], **permissions_in(body))
        if method == "PUT":
            if not isinstance(body.get("data"), dict):
                raise Failure(400, 107, "Invalid parameters", "data is missing")
            updated, headers = self.stamp(store, identifier, body["data"], permissions)
            return 200, updated, headers
        if method == "PATCH":
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip()
            if kind not in ("application/json", "application/merge-patch+json"):
                raise Failure(415, 107, "Unsupported Media Type", "send application/json or merge-patch+json")
            wrapped = "data" in body or "permissions" in body
            changes = body.get("data") if wrapped else body
            if changes is not None and not isinstance(changes, dict):
                raise Failure(400, 107, "Invalid parameters", "data is not an object")
            fields = {k: v for k, v in record["data"].items() if k not in ("id", "last_modified")}
            if changes:
                fields = merge_patch(fields, changes) if kind.endswith("merge-patch+json") else dict(fields, **changes)
            updated, headers = self.stamp(store, identifier, fields, permissions)
            return 200, updated, headers
        raise Failure(405, 115, "Method Not Allowed", f"{method} is not allowed here")

    def batch(self, body, principals):
        responses = []
        for request in body.get("requests", []):
            path, method = request.get("path", ""), request.get("method", "GET").upper()
            raw = json.dumps(request["body"]).encode() if "body" in request else b""
            full = path if path.startswith("/v1/") else "/v1" + path
            parts = [urllib.parse.unquote(p) for p in full.split("/") if p]
            try:
                if "records" not in parts:
                    raise Failure(400, 107, "Invalid parameters", "a batch holds record operations")
                status, result, _ = self.route(method, parts, {}, raw, principals)
            except Failure as failure:
                status, result = failure.code, {"errno": failure.errno, "code": failure.code,
                                                "error": failure.error, "message": failure.message}
            responses.append({"status": status, "path": path, "body": result})
        return 200, {"responses": responses}, []

    def send(self, status, body, headers=()):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true")
    args = parser.parse_args()
    # The default listen backlog of 5 drops a burst of connections (the whole suite runs at once): they are reset.
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    print(f"storage_server listening on http://{host}:{port}", flush=True)
    if args.exit_with_stdin:
        def watch():
            while sys.stdin.buffer.read(4096):
                pass
            os._exit(0)
        threading.Thread(target=watch, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
