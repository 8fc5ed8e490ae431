#!/usr/bin/env python3
"""An RFC 6455 WebSocket server on loopback, Python standard library only, for the WebSocket tests.

Every path answers the handshake (a GET with `Upgrade: websocket`, version 13, a key) unless told otherwise, then
echoes each message back whole (text as text, binary as binary), answers pings, and answers a close frame with the
same code. What each path adds, with query parameters:

    /echo                          the echo
    ?protocols=a,b                 picks the first subprotocol the client offers that is in this list
    ?fragment=n                    echoes in n-byte fragments, a ping between each two
    ?greet=headers                 first sends one text message: the handshake's headers as JSON (name: value)
    ?close=code&reason=text        closes with that code right after the handshake (and echoes nothing)
    ?vanish=1                      after the first message, drops the connection without a close frame
    ?bad=masked|rsv|utf8|size|opcode|control|bomb
                                   after the first message, sends a frame that breaks RFC 6455
    ?silent=1                      answers no ping (a peer gone quiet)
    ?flood=count&size=n            sends `count` binary messages of n bytes as fast as the socket takes them;
                                   /stats?tag=… says how many went out, and whether the socket was ever full for
                                   half a second (`stalled`: the reader stopped reading)
    ?flood=…&batch=k&kind=pong     the same k frames to a write (a peer sending faster than frames are parsed);
                                   `kind=pong`: unsolicited pongs of n bytes (RFC 6455 §5.5.3 allows them)
    ?trickle=1                     echoes each message a byte to a write
    ?half=1                        first sends half of a 64 KiB binary frame, then never the rest
    ?stall=1                       reads nothing until GET /release?tag=…, then echoes as usual (a peer that
                                   stopped reading: /stats?…&queued=n says when n bytes wait unread in its socket)
    ?tag=name                      names the connection for /stats
    ?deflate=0                     declines permessage-deflate (by default it agrees when offered, keeping the
                                   context-takeover parameters the client asked for, and compresses every message)
    ?deflate_params=p              agrees to permessage-deflate with parameters `p` as they are (a window, or
                                   something not offered; `blank-parameter`: `permessage-deflate; ; …`)
    ?accept=wrong                  answers 101 with a wrong Sec-WebSocket-Accept
    ?extension=x                   answers 101 choosing an extension no one offered
    /refuse?status=403             answers a plain HTTP response with a JSON body (no upgrade)
    /hostile?answer=name           refuses the handshake with a hostile answer, as raw bytes: `overflow` (a 401 whose
                                   second chunk's size is 2^63-1), `trailers` (a chunked 401 whose trailer section
                                   never ends), `bare-status` (`HTTP/1.1 403`, no reason phrase nor space, a body),
                                   `short-status` (`HTTP/1 403 `: a one-digit version, an empty reason phrase),
                                   `no-content` (a 204 with no body, the connection kept open), `not-modified` (a
                                   304 announcing a 100-byte representation, the connection kept open)
    ?stall=1&close_on_release=code after GET /release?tag=…, sends a close frame with that code and still reads nothing
                                   (a peer that closes while a send to it is stuck), holding the connection 60 s
    /auth                          the echo for `Authorization: Bearer fresh`, else 401 with WWW-Authenticate
    /cookie                        the echo for a `session=…` cookie, else 403
    /redirect?to=URL&status=302    a redirect to URL
    GET /stats?tag=name&at_least=k&closed=1&stalled=1&queued=n
                                   {"sent", "received", "closed": code, "stalled", "queued"}; waits (at most 30 s)
                                   until `sent` is at least k, with `closed` until the connection's close frame (or
                                   its end, as 1006) has arrived, with `stalled` until a flood found its socket full,
                                   with `queued` until a stalled connection has at least n bytes unread

Started by LocalServer (`--host`, `--port`, `--exit-with-stdin`); `--tls-cert` and `--tls-key` serve wss (HTTPS).
"""
import argparse
import base64
import fcntl
import hashlib
import json
import os
import select
import socket
import ssl
import struct
import sys
import termios
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
LOCK = threading.Condition()
STATS = {}
STALLED = {}  # tag: the socket of a connection that reads nothing (?stall=1)


class ProtocolError(Exception):
    pass


def frame(opcode, payload=b"", fin=True, rsv=0, masked=False):
    head = bytes([(0x80 if fin else 0) | rsv | opcode])
    mask_bit = 0x80 if masked else 0
    length = len(payload)
    if length < 126:
        head += bytes([mask_bit | length])
    elif length < 65536:
        head += bytes([mask_bit | 126]) + struct.pack("!H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", length)
    if masked:
        key = os.urandom(4)
        payload = unmask(payload, key)
        head += key
    return head + payload


def unmask(data, key):
    """`data` XORed with the repeated 4-byte `key`, as one big integer (a byte at a time is far too slow here)."""
    if not data:
        return data
    mask = (key * (len(data) // 4 + 1))[:len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(mask, "big")).to_bytes(len(data), "big")


class Connection:
    def __init__(self, sock, reader):
        self.sock = sock
        self.reader = reader
        self.send_lock = threading.Lock()
        self.deflate = None  # (client_no_context_takeover, server_no_context_takeover) once agreed
        self.compressor = None
        self.decompressor = None

    def compress(self, payload):
        if self.compressor is None or self.deflate[1]:
            self.compressor = zlib.compressobj(wbits=-15)
        data = self.compressor.compress(payload) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
        return data[:-4]

    def decompress(self, payload):
        if self.decompressor is None or self.deflate[0]:
            self.decompressor = zlib.decompressobj(wbits=-15)
        return self.decompressor.decompress(payload + b"\x00\x00\xff\xff")

    def exactly(self, count):
        data = self.reader.read(count)
        if len(data) < count:
            raise ConnectionError("the client left")
        return data

    def read_frame(self):
        first, second = self.exactly(2)
        if not second & 0x80:
            raise ProtocolError("unmasked client frame")
        length = second & 0x7F
        if length == 126:
            length = struct.unpack("!H", self.exactly(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self.exactly(8))[0]
        key = self.exactly(4)
        return bool(first & 0x80), first & 0x0F, unmask(self.exactly(length), key), bool(first & 0x40)

    def send(self, data):
        with self.send_lock:
            self.sock.sendall(data)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        if url.path == "/stats":
            return self.stats(query)
        if url.path == "/release":
            self.record(query.get("tag", ""), released=True)
            return self.send_json(200, {"released": True})
        if url.path == "/refuse":
            return self.send_json(int(query.get("status", "403")), {"refused": True})
        if url.path == "/hostile":
            return self.hostile(query.get("answer", ""))
        if url.path == "/redirect":
            self.send_response(int(query.get("status", "302")))
            self.send_header("Location", query["to"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if url.path == "/auth" and self.headers.get("Authorization") != "Bearer fresh":
            return self.send_json(401, {"error": "token"}, [("WWW-Authenticate", "Bearer")])
        if url.path == "/cookie" and "session=" not in (self.headers.get("Cookie") or ""):
            return self.send_json(403, {"error": "no session"})
        if self.headers.get("Upgrade", "").lower() != "websocket" or "Sec-WebSocket-Key" not in self.headers:
            return self.send_json(426, {"error": "upgrade required"})
        self.upgrade(query)

    def hostile(self, answer):
        self.close_connection = True
        if answer == "overflow":
            self.wfile.write(b"HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n"
                             b"1\r\na\r\n7fffffffffffffff\r\n")
        elif answer == "trailers":
            self.wfile.write(b"HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nno\r\n0\r\n")
            line = b"X-Trailer: " + b"t" * 1000 + b"\r\n"
            try:
                for _ in range(128 * 1024):  # 128 MiB of trailer lines, until the client hangs up
                    self.wfile.write(line)
            except OSError:
                pass
        elif answer == "bare-status":
            self.wfile.write(b"HTTP/1.1 403\r\nContent-Length: 2\r\n\r\nno")
        elif answer == "short-status":
            self.wfile.write(b"HTTP/1 403 \r\nContent-Length: 2\r\n\r\nno")
        elif answer in ("no-content", "not-modified"):
            # Neither has a body (RFC 9112 §6.3), whatever its fields say: the connection stays open, as a keep-alive
            # server's does, until the client leaves.
            if answer == "no-content":
                self.wfile.write(b"HTTP/1.1 204 No Content\r\n\r\n")
            else:
                self.wfile.write(b"HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n")
            self.wfile.flush()
            self.connection.settimeout(60)
            try:
                while self.connection.recv(65536):
                    pass
            except OSError:
                pass
        self.wfile.flush()

    def upgrade(self, query):
        key = self.headers["Sec-WebSocket-Key"]
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        if query.get("accept") == "wrong":
            accept = base64.b64encode(hashlib.sha1(b"wrong").digest()).decode()
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        offered = [p.strip() for p in (self.headers.get("Sec-WebSocket-Protocol") or "").split(",") if p.strip()]
        allowed = query.get("protocols", "").split(",")
        chosen = next((p for p in offered if p in allowed), None)
        if chosen:
            self.send_header("Sec-WebSocket-Protocol", chosen)
        if "extension" in query:
            self.send_header("Sec-WebSocket-Extensions", query["extension"])
        offer = [p.strip() for p in (self.headers.get("Sec-WebSocket-Extensions") or "").split(";")]
        deflate = None
        if offer[0] == "permessage-deflate" and query.get("deflate") != "0":
            deflate = ("client_no_context_takeover" in offer, "server_no_context_takeover" in offer)
            agreed = query.get("deflate_params") or "; ".join(
                ["permessage-deflate"] + [name for name, on in
                                          zip(["client_no_context_takeover", "server_no_context_takeover"], deflate)
                                          if on])
            if agreed == "blank-parameter":  # a parameter of spaces only between two semicolons
                agreed = "permessage-deflate; ; server_no_context_takeover"
            if not agreed.startswith("permessage-deflate"):
                agreed = "permessage-deflate; " + agreed
            self.send_header("Sec-WebSocket-Extensions", agreed)
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        connection = Connection(self.connection, self.rfile)
        connection.deflate = deflate
        tag = connection.tag = query.get("tag", "")
        try:
            self.session(connection, query, tag)
        except (ConnectionError, OSError, ProtocolError):
            pass
        with LOCK:
            if STATS.get(tag, {}).get("closed") is None:
                self.record(tag, closed=1006)

    def session(self, connection, query, tag):
        if query.get("stall"):
            with LOCK:
                STALLED[tag] = connection.sock
                while not STATS.get(tag, {}).get("released"):
                    LOCK.wait(30)
            if "close_on_release" in query:
                connection.send(frame(0x8, struct.pack("!H", int(query["close_on_release"]))))
                time.sleep(60)  # reads nothing: the client's stuck bytes stay where they are
                return
        if query.get("greet") == "headers":
            headers = {name: value for name, value in self.headers.items()}
            connection.send(frame(0x1, json.dumps(headers).encode()))
        if "close" in query:
            payload = struct.pack("!H", int(query["close"])) + query.get("reason", "").encode()
            connection.send(frame(0x8, payload))
            self.wait_for_close(connection)
            return
        if "flood" in query:
            threading.Thread(target=self.flood, args=(connection, query, tag), daemon=True).start()
        if query.get("half"):
            whole = frame(0x2, b"\x2a" * 65536)
            connection.send(whole[:len(whole) // 2])
        fragment = int(query.get("fragment", "0"))
        received = 0
        message, message_opcode, compressed = b"", None, False
        while True:
            fin, opcode, payload, rsv1 = connection.read_frame()
            if opcode == 0x9:
                if not query.get("silent"):
                    connection.send(frame(0xA, payload))
                continue
            if opcode == 0xA:
                continue
            if opcode == 0x8:
                self.record(tag, closed=struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005)
                connection.send(frame(0x8, payload[:2]))
                return
            if opcode != 0x0:
                message_opcode, compressed = opcode, rsv1
            message += payload
            if not fin:
                continue
            if compressed:
                message = connection.decompress(message)
            received += 1
            self.record(tag, received=received)
            if query.get("vanish"):
                connection.sock.shutdown(socket.SHUT_RDWR)
                return
            if "bad" in query:
                connection.send(self.bad_frame(query["bad"]))
                self.wait_for_close(connection)
                return
            self.echo(connection, message_opcode, message, fragment, trickle=bool(query.get("trickle")))
            message, message_opcode, compressed = b"", None, False

    def echo(self, connection, opcode, message, fragment, trickle=False):
        rsv = 0
        if connection.deflate is not None:
            message, rsv = connection.compress(message), 0x40
        if trickle:
            for byte in frame(opcode, message, rsv=rsv):
                connection.send(bytes([byte]))
            return
        if fragment <= 0 or len(message) <= fragment:
            connection.send(frame(opcode, message, rsv=rsv))
            return
        pieces = [message[i:i + fragment] for i in range(0, len(message), fragment)]
        out = b""
        for index, piece in enumerate(pieces):
            last = index == len(pieces) - 1
            out += frame(opcode if index == 0 else 0x0, piece, fin=last, rsv=rsv if index == 0 else 0)
            if not last:
                out += frame(0x9, b"between")
        connection.send(out)

    @staticmethod
    def bad_frame(kind):
        if kind == "masked":
            return frame(0x1, b"masked", masked=True)
        if kind == "rsv":
            return frame(0x1, b"reserved", rsv=0x20)
        if kind == "utf8":
            return frame(0x1, b"\xc3\x28 not UTF-8")
        if kind == "size":
            return frame(0x2, b"\0" * 70000)
        if kind == "opcode":
            return frame(0x3, b"")
        if kind == "control":
            return frame(0x9, b"\0" * 126)
        if kind == "bomb":  # 16 MiB of zeros in about 16 KiB
            compressor = zlib.compressobj(wbits=-15)
            return frame(0x2, (compressor.compress(b"\0" * (16 << 20)) + compressor.flush(zlib.Z_SYNC_FLUSH))[:-4], rsv=0x40)
        raise ValueError(kind)

    def wait_for_close(self, connection):
        while True:
            _, opcode, payload, _ = connection.read_frame()
            if opcode == 0x8:
                self.record(connection.tag, closed=struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005)
                connection.send(frame(0x8, payload[:2]))
                return

    def flood(self, connection, query, tag):
        batch = int(query.get("batch", "1"))
        data = frame(0xA if query.get("kind") == "pong" else 0x2, b"\x2a" * int(query.get("size", "65536"))) * batch
        try:
            for sent in range(batch, int(query["flood"]) + 1, batch):
                with connection.send_lock:
                    view = memoryview(data)
                    while view:
                        _, writable, _ = select.select([], [connection.sock], [], 0.5)
                        if not writable:
                            self.record(tag, stalled=True)
                            continue
                        view = view[connection.sock.send(view):]
                self.record(tag, sent=sent)
        except OSError:
            pass

    @staticmethod
    def record(tag, **values):
        with LOCK:  # a Condition's lock is re-entrant
            STATS.setdefault(tag, {}).update(values)
            LOCK.notify_all()

    def stats(self, query):
        tag = query.get("tag", "")
        at_least = int(query.get("at_least", "0"))

        def queued():
            """The bytes waiting unread in the stalled connection `tag`'s socket."""
            sock = STALLED.get(tag)
            if sock is None:
                return 0
            try:
                return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]
            except OSError:
                return 0

        deadline = time.monotonic() + 30
        with LOCK:
            def waiting():
                stats = STATS.get(tag, {})
                return (stats.get("sent", 0) < at_least or (query.get("closed") and stats.get("closed") is None)
                        or (query.get("stalled") and not stats.get("stalled"))
                        or queued() < int(query.get("queued", "0")))
            while waiting() and time.monotonic() < deadline:
                # Bytes arriving in a socket nobody reads notify no one: look again every 10 ms.
                LOCK.wait(min(0.01, deadline - time.monotonic()) if "queued" in query else deadline - time.monotonic())
            body = {"sent": 0, "received": 0, "closed": None, "stalled": False, "queued": queued()}
            body.update((k, v) for k, v in STATS.get(tag, {}).items() if k in body)
        self.send_json(200, body)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512
    tls = None  # an ssl.SSLContext when serving wss

    def get_request(self):
        connection, address = super().get_request()
        if self.tls:
            # The handshake happens in the handler's thread, so a failing client blocks no one else.
            connection = self.tls.wrap_socket(connection, server_side=True, do_handshake_on_connect=False)
        return connection, address

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--tls-cert", help="serve wss with this certificate (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    arguments = parser.parse_args()
    server = Server((arguments.host, arguments.port), Handler)
    if arguments.tls_cert:
        server.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server.tls.load_cert_chain(arguments.tls_cert, arguments.tls_key)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    scheme = "https" if arguments.tls_cert else "http"
    print(f"websocket server listening on {scheme}://{arguments.host}:{server.server_address[1]}", flush=True)
    if arguments.exit_with_stdin:
        sys.stdin.read()
    else:
        threading.Event().wait()


if __name__ == "__main__":
    main()
