#!/usr/bin/env python3
"""image_server: the local API that RestingKit's demo and tests talk to.

Python 3 standard library only. Run it with one command:

    python3 image_server/server.py --port 9000     # or --port 0 for a free port (printed on the first line)

Routes (JSON unless said otherwise):
    GET    /posts[?userId=N]        list posts, optionally of one user; with ?_page=P&_limit=L one page, and a
                                    Link header (rel="next", "prev", "first", "last"); with ?_offset=O&_limit=L
                                    a slice; with ?_cursor=C&_limit=L {"items": [...], "nextCursor": ...}
    POST   /posts                   create {userId, title, body} -> 201
    GET    /posts/{id}              one post, or 404
    PUT    /posts/{id}              replace (all fields) -> 200
    PATCH  /posts/{id}              update some fields -> 200
    DELETE /posts/{id}              -> 204, empty body
    ANY    /status/{code}           answers with that status and a small JSON body (none for 1xx/204/304)
    ANY    /empty/{code}            answers with that status and an empty body
    ANY    /echo[/...]              returns method, path, query, headers and body as JSON
    ANY    /delay/{ms}[?tag=T]      answers after ms milliseconds
    GET    /waiting                 the tags of /delay requests being delayed right now (for cancellation tests)
    POST   /auth/token              issues a new bearer token (and revokes the previous one)
    GET    /auth/me                 200 with "Authorization: Bearer <current token>", else 401
    ANY    /flaky/{key}?failures=N  503 for the first N requests with this key, then 200
    ANY    /retry-after/{key}?seconds=S   503 with Retry-After: S the first time, then 200
    GET    /counted/{key}[?delay_ms=N]    counts the hit, waits N ms, answers {"key", "hits"}
    GET    /hits/{key}              how many times /counted/{key} was hit
    POST   /rpc                     JSON-RPC 2.0: subtract, sum, echo, fail, hello (a notification);
                                    batch responses come back in reverse order, to test matching by id
    POST   /upload, PUT /upload/{name}, GET /uploads/{name}   uploads and downloads: see uploads.py
    GET    /stream/sse, /stream/ndjson, /stream/bytes   streamed responses (SSE with ids, cuts and
                                    Last-Event-ID resume; NDJSON; paced bytes): see streams.py
    GET    /ws/echo                 a WebSocket answering `you said: <text>`: see websocket.py
    /session/..., /cookies/..., /hops/{n}, /cache/{key}, /cache-hits/{key}   a cookie session, redirect hops and
                                    cacheable resources with a hit counter: see semantics.py
Errors are JSON objects {"error": message, "status": code}.
"""
import argparse
import base64
import json
import os
import sys
import threading
import time
from pathlib import Path
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

import semantics
import streams
import websocket
import uploads

MAX_BODY = 8 * 1024 * 1024  # request bodies this server reads into memory


class PostStore:
    """The /posts resource, in memory, safe across handler threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.posts = {}
        self.next_id = 1
        for i in range(10):
            self.create({"userId": 1 + i // 5, "title": f"Post {i + 1}", "body": f"Body of post {i + 1}"})

    def create(self, fields):
        with self.lock:
            post = {"id": self.next_id, **fields}
            self.posts[self.next_id] = post
            self.next_id += 1
            return dict(post)

    def list(self, user_id=None):
        with self.lock:
            return [dict(p) for p in self.posts.values() if user_id is None or p["userId"] == user_id]

    def get(self, post_id):
        with self.lock:
            post = self.posts.get(post_id)
            return dict(post) if post else None

    def update(self, post_id, fields):
        with self.lock:
            if post_id not in self.posts:
                return None
            self.posts[post_id].update(fields)
            return dict(self.posts[post_id])

    def delete(self, post_id):
        with self.lock:
            return self.posts.pop(post_id, None) is not None


class SharedState:
    """Tokens and attempt counters of the auth and unreliable routes."""

    def __init__(self):
        self.lock = threading.Lock()
        self.token, self.token_serial = None, 0
        self.attempts = {}
        self.hits = {}
        self.notifications = 0


def rpc_error(request_id, code, message, data=None):
    error = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "error": error, "id": request_id}


def rpc_reply(message, state):
    """One JSON-RPC 2.0 reply, or None for a notification."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        return rpc_error(message.get("id") if isinstance(message, dict) else None, -32600, "Invalid Request")
    is_notification = "id" not in message
    method, params, request_id = message["method"], message.get("params"), message.get("id")

    def numbers(value):
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    if method == "subtract":
        if isinstance(params, list) and len(params) == 2 and all(map(numbers, params)):
            result = params[0] - params[1]
        elif isinstance(params, dict) and numbers(params.get("minuend")) and numbers(params.get("subtrahend")):
            result = params["minuend"] - params["subtrahend"]
        else:
            return None if is_notification else rpc_error(request_id, -32602, "Invalid params")
    elif method == "sum":
        if not isinstance(params, list) or not all(map(numbers, params)):
            return None if is_notification else rpc_error(request_id, -32602, "Invalid params")
        result = sum(params)
    elif method == "echo":
        result = params
    elif method == "hello":
        with state.lock:
            state.notifications += 1
        result = "hello"
    elif method == "notifications":
        with state.lock:
            result = state.notifications
    elif method == "fail":
        return None if is_notification else rpc_error(request_id, -32000, "Server error", {"detail": "failing on purpose"})
    else:
        return None if is_notification else rpc_error(request_id, -32601, "Method not found")
    return None if is_notification else {"jsonrpc": "2.0", "result": result, "id": request_id}


POST_FIELDS = {"userId": int, "title": str, "body": str}


class BadRequest(Exception):
    pass


def validate_post(fields, partial):
    if not isinstance(fields, dict):
        raise BadRequest("the body must be a JSON object")
    unknown = set(fields) - set(POST_FIELDS) - {"id"}
    if unknown:
        raise BadRequest(f"unknown fields: {', '.join(sorted(unknown))}")
    fields = {k: v for k, v in fields.items() if k != "id"}
    for name, kind in POST_FIELDS.items():
        if name not in fields:
            if not partial:
                raise BadRequest(f"missing field: {name}")
        elif not isinstance(fields[name], kind) or isinstance(fields[name], bool):
            raise BadRequest(f"field {name} must be a {kind.__name__}")
    return fields


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without TCP_NODELAY, Nagle's algorithm and the client's
    # delayed ACK hold the body back for 40 ms.
    disable_nagle_algorithm = True
    # A client that stops sending (or reading) frees its thread after this long instead of holding it forever
    # (--socket-timeout).
    timeout = 60
    server_version = "image_server/1.0"
    store: PostStore  # set on the class at start-up

    announced_close = False

    # A connection the server is about to close says so in the head: a client that is not told pools it, and its
    # next request (an upload, say) runs into the close as a broken pipe.
    def send_response(self, code, message=None):
        self.announced_close = False
        super().send_response(code, message)

    def send_header(self, keyword, value):
        if keyword.lower() == "connection" and value.lower() == "close":
            self.announced_close = True
        super().send_header(keyword, value)

    def end_headers(self):
        if self.close_connection and not self.announced_close:
            self.send_header("Connection", "close")
        super().end_headers()

    def log_message(self, format, *args):  # quiet: tests and the demo read stdout
        if self.server.verbose:
            sys.stderr.write("image_server: " + format % args + "\n")

    # Every method goes through one dispatcher.
    def do_GET(self): self.dispatch()
    def do_HEAD(self): self.dispatch()
    def do_POST(self): self.dispatch()
    def do_PUT(self): self.dispatch()
    def do_PATCH(self): self.dispatch()
    def do_DELETE(self): self.dispatch()
    def do_OPTIONS(self): self.dispatch()

    def __getattr__(self, name):
        # Custom methods (PURGE, REPORT, ...) reach the echo and status routes too.
        if name.startswith("do_"):
            return self.dispatch
        raise AttributeError(name)

    def dispatch(self):
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        try:
            # Uploads stream their bodies themselves; every other route reads it first.
            if uploads.route(self, parts, dict(parse_qsl(url.query)), self.server.uploads, self.server.max_upload):
                return
            if streams.route(self, parts, dict(parse_qsl(url.query))):
                return
            if websocket.route(self, parts):
                return
            body = self.read_body()
            if semantics.route(self, parts, dict(parse_qsl(url.query)), body):
                return
            if parts[:1] == ["posts"]:
                self.posts(parts[1:], url.query, body)
            elif parts[:1] == ["echo"]:
                self.echo(url, body)
            elif len(parts) == 2 and parts[0] in ("status", "empty"):
                self.status_route(parts[0], parts[1])
            elif len(parts) == 2 and parts[0] == "delay":
                self.delay(int(parts[1]), dict(parse_qsl(url.query)).get("tag"))
            elif parts[:1] == ["auth"]:
                self.auth(parts[1:])
            elif len(parts) == 2 and parts[0] in ("flaky", "retry-after"):
                self.unreliable(parts[0], parts[1], dict(parse_qsl(url.query)))
            elif len(parts) == 2 and parts[0] in ("counted", "hits"):
                self.counted(parts[0], parts[1], dict(parse_qsl(url.query)))
            elif parts == ["rpc"] and self.command == "POST":
                self.rpc(body)
            elif parts == ["waiting"]:
                with self.server.waiting_lock:
                    self.send_json(200, sorted(self.server.waiting))
            else:
                self.send_error_json(404, f"no route for {self.command} {url.path}")
        except BadRequest as error:
            self.send_error_json(400, str(error))
        except uploads.UploadError as error:
            self.send_error_json(error.status, str(error))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks, total = [], 0
            while True:
                try:
                    size = uploads.chunk_size(self.rfile.readline(1024))
                except uploads.UploadError as error:
                    self.close_connection = True
                    raise BadRequest(str(error))
                if size == 0:
                    while self.rfile.readline().strip():  # trailers
                        pass
                    return b"".join(chunks)
                total += size
                if total > MAX_BODY:
                    raise BadRequest("request body too large")
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        try:
            length = uploads.content_length(self.headers)
        except uploads.UploadError as error:
            self.close_connection = True
            raise BadRequest(str(error))
        if length > MAX_BODY:
            self.close_connection = True
            raise BadRequest("request body too large")
        return self.rfile.read(length) if length else b""

    def json_body(self, body):
        try:
            return json.loads(body or b"null")
        except ValueError:
            raise BadRequest("the body is not valid JSON")

    def posts(self, rest, query, body):
        if not rest:
            if self.command in ("GET", "HEAD"):
                params = dict(parse_qsl(query, keep_blank_values=True))
                user_id = params.get("userId") or None
                if user_id is not None and not user_id.isdigit():
                    raise BadRequest("userId must be a number")
                posts = self.store.list(int(user_id) if user_id else None)
                return self.send_posts(posts, params)
            if self.command == "POST":
                post = self.store.create(validate_post(self.json_body(body), partial=False))
                return self.send_json(201, post, {"Location": f"/posts/{post['id']}"})
            return self.send_error_json(405, f"{self.command} is not allowed on /posts")
        if len(rest) != 1 or not rest[0].isdigit():
            return self.send_error_json(404, f"no post at /posts/{'/'.join(rest)}")
        post_id = int(rest[0])
        if self.command in ("GET", "HEAD"):
            post = self.store.get(post_id)
        elif self.command in ("PUT", "PATCH"):
            fields = validate_post(self.json_body(body), partial=self.command == "PATCH")
            post = self.store.update(post_id, fields)
        elif self.command == "DELETE":
            if self.store.delete(post_id):
                return self.send_bytes(204, b"")
            post = None
        else:
            return self.send_error_json(405, f"{self.command} is not allowed on /posts/{post_id}")
        if post is None:
            return self.send_error_json(404, f"post {post_id} not found")
        self.send_json(200, post)

    def auth(self, rest):
        state = self.server.state
        if rest == ["token"] and self.command == "POST":
            with state.lock:
                state.token_serial += 1
                state.token = f"token-{state.token_serial}"
                token = state.token
            return self.send_json(200, {"token": token})
        if rest == ["me"]:
            with state.lock:
                valid = state.token is not None and self.headers.get("Authorization") == f"Bearer {state.token}"
            if valid:
                return self.send_json(200, {"user": "demo"})
            return self.send_json(401, {"error": "token missing, expired or revoked", "status": 401},
                                  {"WWW-Authenticate": "Bearer"})
        self.send_error_json(404, "no such auth route")

    def unreliable(self, kind, key, params):
        state = self.server.state
        with state.lock:
            seen = state.attempts.get((kind, key), 0)
            state.attempts[(kind, key)] = seen + 1
        if kind == "flaky" and seen < int(params.get("failures", "2")):
            return self.send_error_json(503, f"failing on purpose ({seen + 1})")
        if kind == "retry-after" and seen == 0:
            return self.send_json(503, {"error": "come back later", "status": 503}, {"Retry-After": params.get("seconds", "1")})
        self.send_json(200, {"key": key, "attempts": seen + 1})

    def counted(self, kind, key, params):
        state = self.server.state
        with state.lock:
            if kind == "counted":
                state.hits[key] = state.hits.get(key, 0) + 1
            hits = state.hits.get(key, 0)
        if kind == "counted":
            time.sleep(min(int(params.get("delay_ms", "0")), 10_000) / 1000)
        self.send_json(200, {"key": key, "hits": hits})

    def rpc(self, body):
        try:
            message = json.loads(body)
        except ValueError:
            return self.send_json(200, rpc_error(None, -32700, "Parse error"))
        if isinstance(message, list):
            if not message:
                return self.send_json(200, rpc_error(None, -32600, "Invalid Request"))
            replies = [reply for reply in (rpc_reply(item, self.server.state) for item in message) if reply]
            return self.send_json(200, list(reversed(replies))) if replies else self.send_bytes(204, b"")
        reply = rpc_reply(message, self.server.state)
        return self.send_json(200, reply) if reply else self.send_bytes(204, b"")

    def delay(self, delay_ms, tag):
        if tag:
            with self.server.waiting_lock:
                self.server.waiting.add(tag)
        try:
            time.sleep(min(delay_ms, 180_000) / 1000)
        finally:
            if tag:
                with self.server.waiting_lock:
                    self.server.waiting.discard(tag)
        self.send_json(200, {"delayed_ms": delay_ms})

    def send_posts(self, posts, params):
        """The whole list, or one page of it (by page number, offset or cursor)."""
        def number(name, default):
            value = params.get(name, str(default))
            if not value.isdigit():
                raise BadRequest(f"{name} must be a number")
            return int(value)
        limit = number("_limit", 10)
        if limit < 1:
            raise BadRequest("_limit must be positive")
        if "_page" in params:
            page = max(1, number("_page", 1))
            last = max(1, -(-len(posts) // limit))
            base = {k: v for k, v in params.items() if k != "_page"}
            def link(target, rel):
                return f'</posts?{urlencode({**base, "_page": target})}>; rel="{rel}"'
            links = [link(1, "first"), link(last, "last")]
            if page < last:
                links.append(link(page + 1, "next"))
            if page > 1:
                links.append(link(page - 1, "prev"))
            chunk = posts[(page - 1) * limit: page * limit]
            return self.send_json(200, chunk, {"Link": ", ".join(links), "X-Total-Count": str(len(posts))})
        if "_offset" in params:
            offset = number("_offset", 0)
            return self.send_json(200, posts[offset: offset + limit], {"X-Total-Count": str(len(posts))})
        if "_cursor" in params:
            start = number("_cursor", 0) if params["_cursor"] else 0
            chunk = posts[start: start + limit]
            next_cursor = str(start + limit) if start + limit < len(posts) else None
            return self.send_json(200, {"items": chunk, "nextCursor": next_cursor})
        return self.send_json(200, posts)

    def echo(self, url, body):
        try:
            text, encoding = body.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, encoding = base64.b64encode(body).decode("ascii"), "base64"
        self.send_json(200, {
            "method": self.command,
            "path": url.path,
            "rawQuery": url.query,
            "query": parse_qsl(url.query, keep_blank_values=True),
            "headers": [[name, value] for name, value in self.headers.items()],
            "body": text,
            "bodyEncoding": encoding,
            "bodyLength": len(body),
        })

    def status_route(self, kind, code_text):
        if not code_text.isdigit() or not 100 <= int(code_text) <= 599:
            raise BadRequest(f"not a status code: {code_text}")
        code = int(code_text)
        if kind == "empty" or code < 200 or code in (204, 304):
            return self.send_bytes(code, b"")
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "Unknown"
        self.send_json(code, {"status": code, "description": phrase})

    def send_json(self, code, value, headers=None):
        self.send_bytes(code, json.dumps(value).encode(), {"Content-Type": "application/json", **(headers or {})})

    def send_error_json(self, code, message):
        self.send_json(code, {"error": message, "status": code})

    def send_bytes(self, code, body, headers=None):
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if code >= 200 and code not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)


def main():
    parser = argparse.ArgumentParser(description="RestingKit's local API server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000, help="0 picks a free port")
    parser.add_argument("--exit-with-stdin", action="store_true",
                        help="exit when standard input closes (so a parent that dies takes the server with it)")
    parser.add_argument("--verbose", action="store_true", help="log every request to standard error")
    parser.add_argument("--uploads", default=str(Path(__file__).resolve().parent / "uploads"),
                        help="where uploads are stored (created if missing)")
    parser.add_argument("--max-upload-bytes", type=int, default=4 << 30, help="larger uploads get 413")
    parser.add_argument("--socket-timeout", type=float, default=60,
                        help="seconds a silent client may hold its connection (and a thread)")
    args = parser.parse_args()

    Handler.store = PostStore()
    Handler.timeout = args.socket_timeout
    ThreadingHTTPServer.request_queue_size = 128  # the default listen backlog of 5 drops bursts of connections
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    server.verbose = args.verbose
    server.waiting, server.waiting_lock = set(), threading.Lock()
    server.state = SharedState()
    server.semantics = semantics.SemanticsState()
    os.makedirs(args.uploads, exist_ok=True)
    server.uploads, server.max_upload = args.uploads, args.max_upload_bytes
    host, port = server.server_address[:2]
    print(f"image_server listening on http://{host}:{port}", flush=True)

    if args.exit_with_stdin:
        def watch_stdin():
            while sys.stdin.buffer.read(4096):
                pass
            os._exit(0)
        threading.Thread(target=watch_stdin, daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
