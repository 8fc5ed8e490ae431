#!/usr/bin/env python3
"""HTTP Digest authentication (RFC 7616) on loopback, checked with Python's own hashes, for DigestAuthTests.

    GET|POST /digest-auth/<qop>/<user>/<password>/<algorithm>[/stale_after/<n>][/userhash]

as httpbin's route: `qop` is `auth`, `auth-int`, `auth,auth-int` or `none` (RFC 2069, no qop); `algorithm` is
MD5, SHA-256, SHA-512-256, SHA-512, or one of them with `-sess`. A nonce is good for `n` requests (default: any
number), then a request with it gets a new challenge with `stale=true`. Each request is checked in full: realm,
nonce, uri (the request target), nonce count strictly increasing, response; `200` with `{"authenticated": true,
"user": …, "nc": …}` when it holds, else a fresh `401` challenge. `GET /log` lists what each request carried
(`/log?clear` empties it). Started by LocalServer (`--host`, `--port`, `--exit-with-stdin`).
"""
import argparse
import hashlib
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

REALM = "me@kennethreitz.com"
LOCK = threading.Lock()
NONCES = {}  # nonce -> {"uses": int, "limit": int or None, "last_nc": int}
LOG = []

HASHES = {"MD5": "md5", "SHA-256": "sha256", "SHA-512-256": "sha512_256", "SHA-512": "sha512"}


def digest(algorithm, data):
    return hashlib.new(HASHES[algorithm], data if isinstance(data, bytes) else data.encode()).hexdigest()


def parse_authorization(value):
    if not value or not value.startswith("Digest "):
        return None
    fields = {}
    for match in re.finditer(r'([\w*]+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]+))', value[7:]):
        fields[match.group(1).lower()] = re.sub(r"\\(.)", r"\1", match.group(2)) if match.group(2) is not None \
            else match.group(3)
    return fields


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.handle_request()

    def do_POST(self):
        self.handle_request()

    def send(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_request(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/log"):
            with LOCK:
                entries = list(LOG)
                if "clear" in self.path:
                    LOG.clear()
            return self.send(200, entries)
        parts = self.path.split("?")[0].split("/")
        if len(parts) < 6 or parts[1] != "digest-auth":
            return self.send(404, {"error": "no such route"})
        qop, user, password, algorithm = parts[2], unquote(parts[3]), unquote(parts[4]), parts[5].upper()
        limit = int(parts[7]) if len(parts) > 7 and parts[6] == "stale_after" else None
        hashes_user = parts[-1] == "userhash"
        session = algorithm.endswith("-SESS")
        base = algorithm[:-5] if session else algorithm
        authorization = self.headers.get("Authorization")
        fields = parse_authorization(authorization)
        with LOCK:
            LOG.append({"authorization": authorization, "fields": fields})
        stale = False
        if fields is not None:
            verdict = self.check(fields, qop, user, password, base, session, limit, hashes_user, body)
            if verdict == "ok":
                return self.send(200, {"authenticated": True, "user": user, "nc": fields.get("nc")})
            stale = verdict == "stale"
        nonce = os.urandom(16).hex()
        with LOCK:
            NONCES[nonce] = {"uses": 0, "limit": limit, "last_nc": 0}
        challenge = f'Digest realm="{REALM}", nonce="{nonce}", opaque="{os.urandom(8).hex()}", algorithm={parts[5]}'
        if qop != "none":
            challenge += f', qop="{qop}"'
        if stale:
            challenge += ", stale=TRUE"
        if hashes_user:
            challenge += ", userhash=true"
        self.send(401, {"authenticated": False}, [("WWW-Authenticate", challenge)])

    def check(self, fields, qop, user, password, base, session, limit, hashes_user, body):
        nonce = fields.get("nonce")
        with LOCK:
            state = NONCES.get(nonce)
            if state is None:
                return "bad"
            state["uses"] += 1
            if limit is not None and state["uses"] > limit:
                return "stale"
        expected_user = digest(base, f"{user}:{REALM}") if hashes_user else user
        sent_user = fields.get("username")
        if sent_user is None and fields.get("username*", "").startswith("UTF-8''"):
            sent_user = unquote(fields["username*"][7:])
        if sent_user != expected_user or fields.get("realm") != REALM or fields.get("uri") != self.path:
            return "bad"
        if (fields.get("algorithm") or "MD5").upper() != (base + ("-SESS" if session else "")):
            return "bad"
        secret = digest(base, f"{user}:{REALM}:{password}")
        if session:
            secret = digest(base, f"{secret}:{nonce}:{fields.get('cnonce')}")
        chosen = fields.get("qop")
        method = f"{self.command}:{self.path}"
        if chosen == "auth-int":
            method += ":" + digest(base, body)
        if qop == "none":
            if chosen is not None:
                return "bad"
            expected = digest(base, f"{secret}:{nonce}:{digest(base, method)}")
        else:
            if chosen not in qop.split(","):
                return "bad"
            count = int(fields.get("nc", "0"), 16)
            with LOCK:
                if count <= state["last_nc"]:
                    return "bad"
                state["last_nc"] = count
            expected = digest(base, f"{secret}:{nonce}:{fields['nc']}:{fields.get('cnonce')}:{chosen}:"
                                    f"{digest(base, method)}")
        return "ok" if fields.get("response") == expected else "bad"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true")
    arguments = parser.parse_args()
    # The default listen backlog of 5 resets a burst of connections (a suite's tests start at once).
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer((arguments.host, arguments.port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"digest server listening on http://{arguments.host}:{server.server_address[1]}", flush=True)
    if arguments.exit_with_stdin:
        sys.stdin.read()
    else:
        threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
