#!/usr/bin/env python3
"""storage_server: a JSON storage API shaped like the ones RestingKit's newcomer guide writes a client for.

Python 3 standard library only; `python3 Tests/StorageServer/storage_server.py --port 0` prints
`storage_server listening on http://127.0.0.1:<port>` first; with --exit-with-stdin it exits when standard input closes.

Every route but /__control__ needs `Authorization: Basic` for alice:wonderland (else 401). Shapes:
    GET    /v1/buckets/{b}/collections/{c}/records[?_limit=N&_since=T&_token=K&_next_base=URL]
                              {"data": [records], "next"?: URL}, ETag: "<collection timestamp>" (If-None-Match equal
                              -> 304, empty); while there is more, the next page's absolute URL (on _next_base when
                              given) in three places: a Next-Page header, a Link header (rel="next") and "next"
    POST   /v1/buckets/{b}/collections/{c}/records            {"data": {...}} -> 201 {"data": record}, ETag
    GET    /v1/buckets/{b}/collections/{c}/records/{id}       {"data": record}, ETag: "<last_modified>"
    PATCH  /v1/buckets/{b}/collections/{c}/records/{id}       application/merge-patch+json (else 415); If-Match
                                                              other than the record's ETag -> 412
    DELETE /v1/buckets/{b}/collections/{c}/records/{id}       {"data": {"id", "deleted": true}}
    POST   /v1/batch      {"requests": [{"method", "path", "body"?}]} -> {"responses": [{"status", "path", "body"}]}
    PUT    /__control__/{collection}/backoff       body: seconds; later lists of that collection carry
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

CREDENTIALS = "Basic " + base64.b64encode(b"alice:wonderland").decode()
LOCK = threading.Lock()
COLLECTIONS = {}  # (bucket, collection) -> {"timestamp": int, "records": {id: record}}
CONTROL = {}  # (collection, switch) -> int
CLOCK = [1000]
IDS = [0]


def tick():
    CLOCK[0] += 1
    return CLOCK[0]


def collection(bucket, name):
    key = (bucket, name)
    if key not in COLLECTIONS:
        COLLECTIONS[key] = {"timestamp": CLOCK[0], "records": {}}
        if name == "seeded":
            for n in range(5):
                stamp = 100 + n
                COLLECTIONS[key]["records"][f"r{n:02d}"] = {"id": f"r{n:02d}", "last_modified": stamp, "n": n}
            COLLECTIONS[key]["timestamp"] = 104
    return COLLECTIONS[key]


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


class Failure(Exception):
    def __init__(self, code, errno, error, message, headers=()):
        super().__init__(message)
        self.code, self.errno, self.error, self.message, self.headers = code, errno, error, message, headers


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
        try:
            if url.path.startswith("/__control__/"):
                _, _, name, switch = url.path.split("/", 3)
                with LOCK:
                    CONTROL[(name, switch)] = int(raw or b"0")
                return self.send(200, {"ok": True})
            if self.headers.get("Authorization") != CREDENTIALS:
                raise Failure(401, 104, "Unauthorized", "Please authenticate yourself to use this endpoint.",
                              [("WWW-Authenticate", 'Basic realm="storage"')])
            with LOCK:
                status, body, headers = self.route(method, url.path, query, raw)
            self.send(status, body, headers)
        except Failure as failure:
            self.send(failure.code, {"errno": failure.errno, "code": failure.code, "error": failure.error,
                                     "message": failure.message}, failure.headers)

    def route(self, method, path, query, raw):
        parts = [p for p in path.split("/") if p]
        if parts == ["v1", "batch"] and method == "POST":
            return self.batch(json.loads(raw or b"{}"))
        if len(parts) >= 6 and parts[:1] == ["v1"] and parts[1] == "buckets" and parts[3] == "collections" \
                and parts[5] == "records":
            store = collection(parts[2], parts[4])
            if len(parts) == 6:
                if method == "GET":
                    return self.list(store, parts[4], query)
                if method == "POST":
                    return self.create(store, self.json(raw))
            elif len(parts) == 7:
                return self.record(method, store, parts[6], raw)
        raise Failure(404, 111, "Not Found", f"{method} {path} is not a route")

    def json(self, raw):
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            raise Failure(400, 107, "Invalid parameters", "the body is not JSON")

    def list(self, store, name, query):
        etag = f'"{store["timestamp"]}"'
        if CONTROL.get((name, "unavailable"), 0) > 0:
            CONTROL[(name, "unavailable")] -= 1
            raise Failure(503, 201, "Service Unavailable", "back soon", [("Retry-After", "1")])
        headers = [("ETag", etag)]
        if CONTROL.get((name, "backoff")):
            headers.append(("Backoff", str(CONTROL[(name, "backoff")])))
        if self.headers.get("If-None-Match") == etag:
            return 304, None, headers
        since = int(query.get("_since", "0"))
        records = sorted((r for r in store["records"].values() if r["last_modified"] > since),
                         key=lambda r: r["last_modified"])
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

    def create(self, store, body):
        fields = body.get("data")
        if not isinstance(fields, dict):
            raise Failure(400, 107, "Invalid parameters", "data is missing")
        IDS[0] += 1
        record = dict(fields, id=fields.get("id") or f"rec{IDS[0]}", last_modified=tick())
        store["records"][record["id"]] = record
        store["timestamp"] = record["last_modified"]
        return 201, {"data": record}, [("ETag", f'"{record["last_modified"]}"')]

    def record(self, method, store, identifier, raw):
        record = store["records"].get(identifier)
        if record is None:
            raise Failure(404, 110, "Not Found", f"record {identifier} does not exist")
        etag = f'"{record["last_modified"]}"'
        if_match = self.headers.get("If-Match")
        if method == "GET":
            if self.headers.get("If-None-Match") == etag:
                return 304, None, [("ETag", etag)]
            return 200, {"data": record}, [("ETag", etag)]
        if if_match is not None and if_match != etag:
            raise Failure(412, 114, "Precondition Failed", "Resource was modified meanwhile")
        if method == "PATCH":
            if (self.headers.get("Content-Type") or "").split(";")[0] != "application/merge-patch+json":
                raise Failure(415, 107, "Unsupported Media Type", "send application/merge-patch+json")
            patched = merge_patch(record, self.json(raw))
            patched.update(id=identifier, last_modified=tick())
            store["records"][identifier] = patched
            store["timestamp"] = patched["last_modified"]
            return 200, {"data": patched}, [("ETag", f'"{patched["last_modified"]}"')]
        if method == "DELETE":
            del store["records"][identifier]
            store["timestamp"] = tick()
            return 200, {"data": {"id": identifier, "deleted": True}}, []
        raise Failure(405, 115, "Method Not Allowed", f"{method} is not allowed here")

    def batch(self, body):
        responses = []
        for request in body.get("requests", []):
            path, method = request.get("path", ""), request.get("method", "GET").upper()
            raw = json.dumps(request["body"]).encode() if "body" in request else b""
            full = path if path.startswith("/v1/") else "/v1" + path
            try:
                if method not in ("POST", "DELETE") or "/records" not in full:
                    raise Failure(400, 107, "Invalid parameters", "a batch holds record creations and deletions")
                status, result, _ = self.route(method, full, {}, raw)
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
