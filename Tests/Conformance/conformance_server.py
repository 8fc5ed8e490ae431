#!/usr/bin/env python3
"""The transport conformance server: well-behaved routes, and faults on purpose.

Python 3 standard library, raw sockets, one request per connection (every response says Connection: close),
so that each fault is exactly the bytes written here — but for /keepalive, which keeps its connection. Prints its address on the first line; with
--exit-with-stdin it exits when standard input closes.

Well-behaved:  /echo[...] (with a chunked body's trailer fields)  /status/{code}[?body=1]  /headers  /gzip  /deflate  /bytes/{n}  /json/{n}
               /trailers: a chunked body with Location and Retry-After trailers
               /challenge/{basic|digest|bearer|proxy}: 401 (407 for proxy) with its authentication challenge
               /redirect/{code}?to=URL  /loop  /chain/{n}  /delay/{ms}[?tag=T]  /waiting
               /slow-download: 47 MiB sent 16 KiB every 20 ms; /slow-read: the body read 64 KiB every 200 ms
               (both minute-long, for cancellation; with ?tag=T they show in /waiting)
Faults:        /reset-headers  /reset-body  /short-body  /bad-chunked  /garbage-status  /huge-header
               /drip (a byte a second)  /silent (never answers)  /chunked-cut  /conflicting-length
               /length-and-chunked  /header-flood  /interim (103 then 200)  /gzip-bomb  /reset-upload
Keep-alive:    /keepalive/ok (X-Connection numbers the connection, X-Peer is the client's address and port; HEAD too)
               /keepalive/fault (a reset mid-body)
Duplex:        /duplex?rounds=N[&length=1]: for each of N chunks of the request body as it arrives, a response part
               "echo i: <chunk>\n" (chunked, or with length=1 inside a Content-Length of N parts, each of a chunk's
               first 16 bytes, padded); a body of known length is one part; a body ending first ends it; then
               the response ends (Connection: close), the request body still open, read until the client closes
Refusals:      /refuse-upload?status=S&tag=T: answers S (413, 401, …) as soon as the head has arrived, reading none of
               the body first; then reads (and counts) what body bytes still come until the client closes;
               /refused-bytes?tag=T: that count, once the connection has closed (waiting up to 10 s for it)
DNS:           /dns-query: a DNS-over-HTTPS resolver (RFC 8484, POST or GET ?dns=) answering every A query with
               127.0.0.1 and every other with no address; /dns-count?name=N&type=A: how many queries N has had
Streams:       /gated?tag=T&count=N: chunked, "part i\n", each after the previous one was released by /release?tag=T
               /pattern?size=N&tag=T: N bytes (byte i is i % 251); T shows in /waiting while the client reads
               nothing (the socket's send buffer is full and stays full)
               /endless?tag=T: chunked 16 KiB parts until the client leaves; then "T-closed" shows in /waiting
               /stall: a chunked head and one part ("first\n"), then silence
Limits:        /held?tag=T: answers once /release-held?tag=T was called (or after two minutes)
               /held-count?tag=T&at-least=N&within=S: how many /held requests of T wait now, after waiting up to S
               seconds for N of them; with "peak", the most that ever waited at once
"""
import argparse
import select
import base64
import hashlib
import json
import os
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
import zlib
from urllib.parse import parse_qsl, unquote, urlsplit

WAITING, WAITING_LOCK = set(), threading.Lock()
CONNECTIONS, CONNECTIONS_LOCK = [0], threading.Lock()  # connections served by /keepalive, numbered
REFUSED = threading.Condition()  # /refuse-upload's body bytes received after the refusal, by tag, once closed
REFUSED_BYTES = {}
DNS_QUERIES, DNS_LOCK = {}, threading.Lock()  # /dns-query's questions answered, by (name, type)
GATES, GATES_LOCK = {}, threading.Lock()  # /gated's semaphores, by tag
HELD = threading.Condition()  # /held's requests: waiting now, the most at once, and whether released, by tag
HELD_STATE = {}
PATTERN = bytes(range(251)) * 300  # /pattern's bytes: any slice of 64 KiB from offset % 251 continues it


def gate(tag):
    with GATES_LOCK:
        return GATES.setdefault(tag, threading.Semaphore(0))


class Request:
    def __init__(self, method, target, headers, body):
        self.method, self.target, self.headers, self.body = method, target, headers, body
        self.trailers = []
        url = urlsplit(target)
        self.path, self.query = url.path, url.query

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None


def read_request(stream, read_body=True):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = stream.readline(65537)
        if not chunk:
            return None
        head += chunk
        if len(head) > 1 << 20:
            return None
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:] if ":" in line]
    request = Request(method, target, headers, b"")
    if read_body:
        request.body = read_body_of(stream, request)
    return request


def read_body_of(stream, request):
    if (request.header("Transfer-Encoding") or "").lower() == "chunked":
        body = b""
        while True:
            size = int(stream.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while True:
                    line = stream.readline().decode("latin-1").strip()
                    if not line:
                        return body
                    name, _, value = line.partition(":")
                    request.trailers.append([name.strip(), value.strip()])
            body += stream.read(size)
            stream.readline()
    length = int(request.header("Content-Length") or 0)
    return stream.read(length) if length else b""


class Handler(socketserver.StreamRequestHandler):
    def setup(self):
        if isinstance(self.request, ssl.SSLSocket):
            try:
                self.request.do_handshake()
            except (ssl.SSLError, OSError):
                self.handshake_failed = True
        super().setup()

    def handle(self):
        if getattr(self, "handshake_failed", False):
            return
        # /slow-read must not read the body before it decides how fast to read it.
        request = read_request(self.rfile, read_body=False)
        if request is None:
            return
        if request.path not in ("/slow-read", "/reset-upload", "/refuse-upload", "/duplex"):
            request.body = read_body_of(self.rfile, request)
        route = getattr(self, "route_" + request.path.strip("/").split("/")[0].replace("-", "_"), None)
        if route is None:
            return self.respond(404, b"no such route")
        route(request)

    # Plumbing

    def respond(self, status, body=b"", headers=(), reason="Status"):
        lines = [f"HTTP/1.1 {status} {reason}"]
        lines += [f"{name}: {value}" for name, value in headers]
        if status >= 200 and status not in (204, 304):
            lines.append(f"Content-Length: {len(body)}")
        lines.append("Connection: close")
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        if status not in (204, 304) and body:
            self.wfile.write(body)
        self.wfile.flush()

    def json(self, value, status=200):
        self.respond(status, json.dumps(value).encode(), [("Content-Type", "application/json")])

    def reset(self):
        """Abort the connection with a TCP RST rather than a clean close."""
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()

    # Well-behaved routes

    def route_echo(self, request):
        body = request.body
        self.json({
            "method": request.method,
            "target": request.target,
            "path": request.path,
            "query": parse_qsl(request.query, keep_blank_values=True),
            "headers": [[name, value] for name, value in request.headers],
            "trailers": request.trailers,
            "bodyLength": len(body),
            "bodySHA256": hashlib.sha256(body).hexdigest(),
            "body": body.decode("utf-8", "replace") if len(body) <= 65536 else None,
        })

    def route_status(self, request):
        code = int(request.path.split("/")[2])
        with_body = dict(parse_qsl(request.query)).get("body") == "1"
        self.respond(code, f"status {code}".encode() if with_body else b"")

    CHALLENGES = {
        "basic": ("WWW-Authenticate", 'Basic realm="conformance", charset="UTF-8"'),
        "digest": ("WWW-Authenticate", 'Digest realm="conformance", qop="auth", nonce="dcd98b7102dd2f0e", opaque="5ccc069c"'),
        "bearer": ("WWW-Authenticate", 'Bearer realm="conformance", error="invalid_token"'),
        "bearer-bare": ("WWW-Authenticate", 'Bearer error="invalid_token"'),
        "proxy": ("Proxy-Authenticate", 'Basic realm="proxy"'),
    }

    def route_challenge(self, request):
        scheme = request.path.split("/")[2]
        header = self.CHALLENGES.get(scheme)
        if header is None:
            return self.respond(404, b"no such challenge")
        self.respond(407 if scheme == "proxy" else 401, b"credentials required", [header])

    def route_trailers(self, request):
        # A chunked body followed by trailers that must never be read as headers.
        self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: Location, Retry-After, X-Checksum\r\n"
                         b"Connection: close\r\n\r\n5\r\nhello\r\n0\r\nLocation: https://evil.example/\r\n"
                         b"Retry-After: 0\r\nX-Checksum: abc\r\n\r\n")
        self.wfile.flush()

    def route_bytes(self, request):
        count = int(request.path.split("/")[2])
        self.respond(200, bytes(i % 251 for i in range(count)), [("Content-Type", "application/octet-stream")])

    def route_json(self, request):
        padding = int(request.path.split("/")[2])
        self.json({"padding": "a" * padding})

    def route_headers(self, request):
        self.respond(200, b"ok", [("X-Multi", "a"), ("x-multi", "b"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
                                  ("X-Mixed-Case", "Value")])

    def route_gzip(self, request):
        compressor = zlib.compressobj(wbits=31)
        body = compressor.compress(b'{"compressed":"gzip"}') + compressor.flush()
        self.respond(200, body, [("Content-Type", "application/json"), ("Content-Encoding", "gzip")])

    def route_deflate(self, request):
        self.respond(200, zlib.compress(b'{"compressed":"deflate"}'),
                     [("Content-Type", "application/json"), ("Content-Encoding", "deflate")])

    def route_redirect(self, request):
        code = int(request.path.split("/")[2])
        target = dict(parse_qsl(request.query))["to"]
        self.respond(code, b"", [("Location", target)])

    def route_loop(self, request):
        self.respond(302, b"", [("Location", "/loop")])

    def route_chain(self, request):
        hops = int(request.path.split("/")[2])
        if hops == 0:
            return self.route_echo(request)
        self.respond(302, b"", [("Location", f"/chain/{hops - 1}")])

    def route_delay(self, request):
        tag = dict(parse_qsl(request.query)).get("tag")
        if tag:
            with WAITING_LOCK:
                WAITING.add(tag)
        try:
            time.sleep(min(int(request.path.split("/")[2]), 180_000) / 1000)
        finally:
            if tag:
                with WAITING_LOCK:
                    WAITING.discard(tag)
        try:
            self.json({"delayed": True})
        except OSError:
            pass

    def route_waiting(self, request):
        with WAITING_LOCK:
            self.json(sorted(WAITING))

    def mark_waiting(self, request):
        tag = dict(parse_qsl(request.query)).get("tag")
        if tag:
            with WAITING_LOCK:
                WAITING.add(tag)

    def route_slow_download(self, request):
        self.mark_waiting(request)
        # Long enough (about a minute) that a client under load cancels it before it ends, and smaller than
        # the clients' default response limit (64 MiB).
        total, chunk = 3000 * 16 * 1024, bytes(16 * 1024)
        self.wfile.write(f"HTTP/1.1 200 OK\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n".encode())
        try:
            for _ in range(total // len(chunk)):
                self.wfile.write(chunk)
                self.wfile.flush()
                time.sleep(0.02)
        except OSError:
            pass

    def route_slow_read(self, request):
        self.mark_waiting(request)
        remaining = int(request.header("Content-Length") or 0)
        try:
            while remaining > 0:
                data = self.rfile.read(min(remaining, 64 * 1024))
                if not data:
                    return
                remaining -= len(data)
                time.sleep(0.2)
            self.respond(200, b"read")
        except OSError:
            pass

    # Faults

    def route_reset_headers(self, request):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Le")
        self.reset()

    def route_reset_body(self, request):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + bytes(1000))
        self.reset()

    def route_short_body(self, request):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n" + bytes(50))

    def route_bad_chunked(self, request):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")

    def route_garbage_status(self, request):
        self.wfile.write(b"GARBAGE NOT HTTP\r\n\r\n")

    # Status lines, by name: what RFC 9112 §4 allows, and what it does not.
    STATUS_LINES = {
        "empty-reason": b"HTTP/1.1 200 ",
        "no-reason": b"HTTP/1.1 200",
        "lowercase": b"Http/1.1 200 OK",
        "short-code": b"HTTP/1.1 20 OK",
        "long-code": b"HTTP/1.1 2000 OK",
        "letters": b"HTTP/1.1 2x0 OK",
        "no-version": b"HTTP/ 200 OK",
    }

    def route_status_line(self, request):
        line = self.STATUS_LINES.get(request.path.split("/")[2], b"HTTP/1.1 404 Not Found")
        self.wfile.write(line + b"\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        self.wfile.flush()

    def route_huge_header(self, request):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Huge: " + b"a" * (1024 * 1024) + b"\r\nContent-Length: 2\r\n\r\nok")

    def route_drip(self, request):
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n")
            for _ in range(100):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(1)
        except OSError:
            pass

    def route_chunked_cut(self, request):
        # A chunked body whose connection closes before the last (zero-size) chunk.
        self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n")
        self.wfile.flush()

    def route_conflicting_length(self, request):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\nConnection: close\r\n\r\nhello, ")
        self.wfile.flush()

    def route_length_and_chunked(self, request):
        # Both framings: Transfer-Encoding wins (RFC 9112 §6.3); read by Content-Length the body would be "5\r\nhe".
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                         b"5\r\nhello\r\n0\r\n\r\n")
        self.wfile.flush()

    def route_header_flood(self, request):
        # 40,000 small header fields (about 600 KB of head) before a tiny body.
        head = b"".join(b"X-F%d: v\r\n" % index for index in range(40000))
        self.wfile.write(b"HTTP/1.1 200 OK\r\n" + head + b"Content-Length: 2\r\nConnection: close\r\n\r\nok")
        self.wfile.flush()

    def route_interim(self, request):
        # 103 Early Hints, then the real answer: only the final head counts.
        self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nX-Interim: yes\r\n\r\n")
        self.respond(200, b"final", [("X-Final", "yes")])

    BOMB = None

    def route_gzip_bomb(self, request):
        # 64 MiB of zeros in about 64 KiB of gzip: a client that decodes it must stop at its size limit.
        if Handler.BOMB is None:
            compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
            Handler.BOMB = compressor.compress(bytes(64 * 1024 * 1024)) + compressor.flush()
        self.respond(200, Handler.BOMB, [("Content-Encoding", "gzip"), ("Content-Type", "application/octet-stream")])

    def route_reset_upload(self, request):
        # Reads 64 KiB of a large upload, then resets the connection (the body is not read before routing).
        try:
            self.rfile.read(64 * 1024)
        except OSError:
            return
        self.reset()

    def route_duplex(self, request):
        query = dict(parse_qsl(request.query))
        rounds, fixed = int(query.get("rounds", "10")), query.get("length") == "1"
        # A fixed-length response needs parts of a fixed size: the first 16 bytes of each chunk, padded.
        part = lambda index, data: b"echo %06d: %s\n" % (index, data[:16].ljust(16, b".") if fixed else data)
        if fixed:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                             % (rounds * len(part(0, b""))))
        else:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        self.wfile.flush()
        chunked = (request.header("Transfer-Encoding") or "").lower() == "chunked"
        for index in range(rounds):
            if chunked:
                # One chunk of the request body (as the client framed it), then its echo.
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                data = self.rfile.read(size) if size else b""
                if size:
                    self.rfile.readline()
            else:
                # A body of known length is one part.
                data = self.rfile.read(int(request.header("Content-Length") or "0")) if index == 0 else b""
            if not data:
                break
            self.wfile.write(part(index, data)) if fixed else self.chunk(part(index, data))
        if not fixed:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        # The response is over, the request body perhaps not: read until the client closes.
        try:
            while self.rfile.read1(1 << 16):
                pass
        except OSError:
            pass

    def route_refuse_upload(self, request):
        query = dict(parse_qsl(request.query))
        status, tag = int(query.get("status", "413")), query.get("tag", "")
        self.respond(status, b"refused")
        # The client may go on sending: count what arrives until it closes (or 10 s pass).
        received = 0
        self.connection.settimeout(10)
        try:
            self.connection.shutdown(socket.SHUT_WR)
            while True:
                data = self.rfile.read1(1 << 16)
                if not data:
                    break
                received += len(data)
        except OSError:
            pass
        with REFUSED:
            REFUSED_BYTES[tag] = received
            REFUSED.notify_all()

    def route_refused_bytes(self, request):
        tag = dict(parse_qsl(request.query)).get("tag", "")
        with REFUSED:
            REFUSED.wait_for(lambda: tag in REFUSED_BYTES, timeout=10)
            received = REFUSED_BYTES.get(tag)
        self.json({"bytes": received})

    def route_keepalive(self, request):
        # The one route that keeps its connection open: /keepalive/ok answers and waits for the next request on
        # the same connection (X-Connection names it); /keepalive/fault sends a head and part of the body, then
        # resets. A client must never reuse a connection after a fault.
        with CONNECTIONS_LOCK:
            CONNECTIONS[0] += 1
            connection = CONNECTIONS[0]
        while request is not None and request.path.startswith("/keepalive/"):
            if request.path == "/keepalive/fault":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + bytes(10))
                return self.reset()
            if request.path == "/keepalive/trailers":
                # A chunked body with trailers, the connection kept: the next request must find it at a boundary.
                self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n"
                                 b"X-Connection: %d\r\n\r\n4\r\nkept\r\n0\r\nX-Checksum: abc\r\n\r\n" % connection)
            else:
                body = b"" if request.method == "HEAD" else b"kept"
                peer = ("%s:%d" % self.client_address[:2]).encode()
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nX-Connection: %d\r\nX-Peer: %s\r\n\r\n"
                                 % (connection, peer) + body)
            self.wfile.flush()
            request = read_request(self.rfile)

    # DNS over HTTPS

    def route_dns_query(self, request):
        if request.method == "GET":
            encoded = dict(parse_qsl(request.query)).get("dns", "")
            query = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
        else:
            query = request.body
        if len(query) < 12:
            return self.respond(400, b"not a DNS message")
        # The question: labels up to the empty one, then its type and class.
        offset, labels = 12, []
        while offset < len(query) and query[offset]:
            length = query[offset]
            labels.append(query[offset + 1:offset + 1 + length].decode("ascii", "replace"))
            offset += 1 + length
        question_end = offset + 5
        qtype = struct.unpack("!H", query[offset + 1:offset + 3])[0] if question_end <= len(query) else 0
        name = ".".join(labels).lower()
        with DNS_LOCK:
            key = (name, "A" if qtype == 1 else "AAAA" if qtype == 28 else str(qtype))
            DNS_QUERIES[key] = DNS_QUERIES.get(key, 0) + 1
        answers = 1 if qtype == 1 else 0
        # The query's id, flags "response, recursion available, no error", one question, the answers.
        header = query[:2] + struct.pack("!HHHHH", 0x8180, 1, answers, 0, 0)
        answer = b""
        if answers:
            # A pointer to the question's name, type A, class IN, a minute to live, 127.0.0.1.
            answer = struct.pack("!HHHIH", 0xC00C, 1, 1, 60, 4) + bytes([127, 0, 0, 1])
        self.respond(200, header + query[12:question_end] + answer, [("Content-Type", "application/dns-message")])

    def route_dns_count(self, request):
        query = dict(parse_qsl(request.query))
        with DNS_LOCK:
            count = DNS_QUERIES.get((query.get("name", "").lower(), query.get("type", "A")), 0)
        self.json({"count": count})

    # Streams

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def chunked_head(self, content_type="text/plain"):
        self.wfile.write(f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n"
                         "Connection: close\r\n\r\n".encode())
        self.wfile.flush()

    def route_gated(self, request):
        params = dict(parse_qsl(request.query))
        semaphore = gate(params.get("tag", ""))
        try:
            self.chunked_head()
            for index in range(int(params.get("count", 2))):
                if index > 0 and not semaphore.acquire(timeout=120):
                    return
                self.chunk(f"part {index}\n".encode())
            self.chunk(b"")
        except OSError:
            pass

    def route_release(self, request):
        gate(dict(parse_qsl(request.query)).get("tag", "")).release()
        self.respond(200, b"released")

    def route_held(self, request):
        tag = dict(parse_qsl(request.query)).get("tag", "")
        with HELD:
            state = HELD_STATE.setdefault(tag, {"waiting": 0, "peak": 0, "released": False})
            state["waiting"] += 1
            state["peak"] = max(state["peak"], state["waiting"])
            HELD.notify_all()
            HELD.wait_for(lambda: state["released"], timeout=120)
            state["waiting"] -= 1
        self.json({"held": tag})

    def route_release_held(self, request):
        tag = dict(parse_qsl(request.query)).get("tag", "")
        with HELD:
            HELD_STATE.setdefault(tag, {"waiting": 0, "peak": 0, "released": False})["released"] = True
            HELD.notify_all()
        self.respond(200, b"released")

    def route_held_count(self, request):
        params = dict(parse_qsl(request.query))
        with HELD:
            state = HELD_STATE.setdefault(params.get("tag", ""), {"waiting": 0, "peak": 0, "released": False})
            HELD.wait_for(lambda: state["waiting"] >= int(params.get("at-least", 0)),
                          timeout=float(params.get("within", 0)))
            counts = {"waiting": state["waiting"], "peak": state["peak"]}
        self.json(counts)

    def route_pattern(self, request):
        params = dict(parse_qsl(request.query))
        size, tag = int(params.get("size", 0)), params.get("tag")
        self.wfile.write(f"HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n".encode())
        self.wfile.flush()
        sent = 0
        try:
            while sent < size:
                _, writable, _ = select.select([], [self.connection], [], 0.5)
                if not writable and tag:
                    # Half a second without room in the socket: the client has stopped reading.
                    with WAITING_LOCK:
                        WAITING.add(tag)
                    select.select([], [self.connection], [], 120)
                    with WAITING_LOCK:
                        WAITING.discard(tag)
                start = sent % 251
                sent += self.connection.send(PATTERN[start:start + min(64 * 1024, size - sent)])
        except OSError:
            pass

    def route_endless(self, request):
        tag = dict(parse_qsl(request.query)).get("tag", "")
        try:
            self.chunked_head()
            while True:
                self.chunk(bytes(16 * 1024))
                time.sleep(0.01)
        except OSError:
            with WAITING_LOCK:
                WAITING.add(tag + "-closed")

    def route_stall(self, request):
        try:
            self.chunked_head()
            self.chunk(b"first\n")
            self.connection.settimeout(120)
            self.connection.recv(1)
        except OSError:
            pass

    def route_silent(self, request):
        # Read nothing more, write nothing: the client's timeout must end it.
        self.connection.settimeout(120)
        try:
            self.connection.recv(1)
        except OSError:
            pass


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024
    tls = None  # an ssl.SSLContext when serving HTTPS

    def get_request(self):
        connection, address = super().get_request()
        if self.tls:
            # The handshake happens in the handler's thread, so a slow or failing client blocks no one else.
            connection = self.tls.wrap_socket(connection, server_side=True, do_handshake_on_connect=False)
        return connection, address


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    parser.add_argument("--client-ca", help="require client certificates signed by this CA (PEM)")
    parser.add_argument("--tls-max-version", choices=["1.2", "1.3"], help="the newest TLS version offered")
    parser.add_argument("--unix-socket", help="also serve on this Unix domain socket")
    args = parser.parse_args()
    server = Server((args.host, args.port), Handler)
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        if args.client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(args.client_ca)
        if args.tls_max_version == "1.2":
            context.maximum_version = ssl.TLSVersion.TLSv1_2
        server.tls = context
    if args.unix_socket:
        class UnixServer(socketserver.ThreadingUnixStreamServer):
            daemon_threads = True
        unix = UnixServer(args.unix_socket, Handler)
        threading.Thread(target=unix.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    print(f"conformance_server listening on {'https' if args.tls_cert else 'http'}://{host}:{port}", flush=True)
    if args.exit_with_stdin:
        def watch():
            while sys.stdin.buffer.read(4096):
                pass
            os._exit(0)
        threading.Thread(target=watch, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
