#!/usr/bin/env python3
"""A forward proxy that asks for credentials, for the tests of proxy authentication. Python 3 standard library.

--mode basic|digest: an HTTP proxy. Requests in absolute form are forwarded to their origin (one per connection,
    Proxy-Authorization removed, as every proxy does with a hop-by-hop field), CONNECT host:port is tunnelled; either
    only with a Proxy-Authorization that answers the 407's challenge (Basic, or RFC 7616 Digest with MD5 and
    qop=auth, checked with hashlib).
--mode socks: a SOCKS5 proxy (RFC 1928) requiring username/password authentication (RFC 1929), which also takes
    SOCKS4 and SOCKS4a requests whose user id is the user (SOCKS4 has no password).

Only loopback origins are served. GET /_proxy/log (asked directly, not through the proxy) returns what it saw as
JSON: the 407s it sent, the schemes of the credentials it accepted, and for SOCKS the address type and host of each
CONNECT ("domain" when the client left the name to the proxy). Prints its address on the first line; with
--exit-with-stdin it exits when standard input closes.
"""
import argparse
import base64
import hashlib
import json
import os
import select
import socket
import socketserver
import struct
import sys
import threading
from urllib.parse import urlsplit

LOG = {"challenges": 0, "accepted": [], "socks": []}
LOG_LOCK = threading.Lock()
REALM = "proxy@restingkit.test"


def record(key, value=None):
    with LOG_LOCK:
        if key == "challenges":
            LOG["challenges"] += 1
        else:
            LOG[key].append(value)


def relay(client, upstream):
    sockets = [client, upstream]
    while True:
        readable = select.select(sockets, [], [], 300)[0]
        if not readable:
            return
        for source in readable:
            data = source.recv(65536)
            if not data:
                return
            (upstream if source is client else client).sendall(data)


def tunnel(client, upstream):
    """Relays until either side closes, then closes the upstream connection."""
    try:
        relay(client, upstream)
    except OSError:
        pass
    finally:
        upstream.close()


def open_loopback(host, port):
    if host not in ("127.0.0.1", "localhost"):
        return None
    return socket.create_connection(("127.0.0.1" if host == "localhost" else host, port))


def digest_parameters(value):
    parameters = {}
    for part in value.split(","):
        name, _, item = part.strip().partition("=")
        parameters[name.strip().lower()] = item.strip().strip('"')
    return parameters


class HTTPProxy(socketserver.StreamRequestHandler):
    rbufsize = 0  # nothing past the head is read into a buffer the tunnel would not see

    def handle(self):
        line = self.rfile.readline(65537).decode("latin-1")
        headers = []
        while True:
            header = self.rfile.readline(65537)
            if header in (b"\r\n", b"\n", b""):
                break
            name, _, value = header.decode("latin-1").partition(":")
            headers.append((name.strip(), value.strip()))
        try:
            method, target, version = line.split()
        except ValueError:
            return
        if target == "/_proxy/log":
            return serve_log(self.wfile)
        credentials = [value for name, value in headers if name.lower() == "proxy-authorization"]
        if not self.authorized(method, target, credentials[0] if credentials else None):
            record("challenges")
            length = next((int(value) for name, value in headers if name.lower() == "content-length"), 0)
            if length:
                self.rfile.read(length)
            self.wfile.write(b"HTTP/1.1 407 Proxy Authentication Required\r\n" + self.challenge()
                             + b"Content-Length: 0\r\n\r\n")
            self.wfile.flush()
            # The client answers on the same connection.
            return self.handle()
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            upstream = open_loopback(host, int(port))
            if upstream is None:
                return self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            url = urlsplit(target)
            upstream = open_loopback(url.hostname, url.port or 80)
            if upstream is None:
                return self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            path = (url.path or "/") + ("?" + url.query if url.query else "")
            kept = [(name, value) for name, value in headers
                    if name.lower() not in ("proxy-authorization", "proxy-connection")]
            upstream.sendall(f"{method} {path} {version}\r\n".encode("latin-1")
                             + b"".join(f"{name}: {value}\r\n".encode("latin-1") for name, value in kept) + b"\r\n")
        tunnel(self.connection, upstream)

    def challenge(self):
        if self.server.mode == "basic":
            return f'Proxy-Authenticate: Basic realm="{REALM}"\r\n'.encode()
        nonce = base64.b64encode(os.urandom(12)).decode()
        return (f'Proxy-Authenticate: Digest realm="{REALM}", qop="auth", algorithm=MD5, nonce="{nonce}", '
                f'opaque="restingkit"\r\n').encode()

    def authorized(self, method, target, credentials):
        if credentials is None:
            return False
        scheme, _, value = credentials.partition(" ")
        user, password = self.server.user, self.server.password
        if self.server.mode == "basic" and scheme.lower() == "basic":
            if base64.b64decode(value).decode("utf-8", "replace") == f"{user}:{password}":
                record("accepted", "Basic")
                return True
            return False
        if self.server.mode == "digest" and scheme.lower() == "digest":
            given = digest_parameters(value)
            md5 = lambda text: hashlib.md5(text.encode()).hexdigest()
            ha1 = md5(f"{user}:{REALM}:{password}")
            ha2 = md5(f"{method}:{given.get('uri', '')}")
            expected = md5(f"{ha1}:{given.get('nonce')}:{given.get('nc')}:{given.get('cnonce')}:auth:{ha2}")
            if given.get("username") == user and given.get("response") == expected:
                record("accepted", "Digest")
                return True
        return False


def serve_log(stream):
    with LOG_LOCK:
        body = json.dumps(LOG).encode()
    stream.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                 b"Connection: close\r\n\r\n%s" % (len(body), body))


class SOCKSProxy(socketserver.StreamRequestHandler):
    def handle(self):
        first = self.rfile.read(1)
        if first == b"G":
            # GET /_proxy/log, asked directly.
            while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                pass
            return serve_log(self.wfile)
        if first == b"\x04":
            return self.socks4()
        version, (count,) = first[0] if first else 0, self.rfile.read(1)
        methods = self.rfile.read(count)
        if version != 5 or 2 not in methods:
            return self.wfile.write(b"\x05\xff")
        self.wfile.write(b"\x05\x02")
        _, length = struct.unpack("!BB", self.rfile.read(2))
        user = self.rfile.read(length).decode()
        (length,) = struct.unpack("!B", self.rfile.read(1))
        password = self.rfile.read(length).decode()
        if (user, password) != (self.server.user, self.server.password):
            return self.wfile.write(b"\x01\x01")
        self.wfile.write(b"\x01\x00")
        record("accepted", "SOCKS5")
        _, command, _, kind = struct.unpack("!BBBB", self.rfile.read(4))
        if kind == 1:
            host, address_type = socket.inet_ntoa(self.rfile.read(4)), "ipv4"
        elif kind == 3:
            (length,) = struct.unpack("!B", self.rfile.read(1))
            host, address_type = self.rfile.read(length).decode(), "domain"
        else:
            host, address_type = socket.inet_ntop(socket.AF_INET6, self.rfile.read(16)), "ipv6"
        (port,) = struct.unpack("!H", self.rfile.read(2))
        record("socks", {"type": address_type, "host": host, "port": port})
        # Names are the proxy's to resolve: every *.test name is this machine.
        upstream = open_loopback("127.0.0.1" if host.endswith(".test") else host, port) if command == 1 else None
        if upstream is None:
            return self.wfile.write(b"\x05\x02\x00\x01" + bytes(6))
        self.wfile.write(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") + struct.pack("!H", port))
        tunnel(self.connection, upstream)

    def socks4(self):
        """SOCKS4, and SOCKS4a when the address is 0.0.0.x (x > 0): the name follows the user id."""
        command, port = struct.unpack("!BH", self.rfile.read(3))
        address = self.rfile.read(4)
        user = self.read_null_terminated()
        if address[:3] == bytes(3) and address[3] != 0:
            host, address_type = self.read_null_terminated(), "domain"
        else:
            host, address_type = socket.inet_ntoa(address), "ipv4"
        if user != self.server.user:
            return self.wfile.write(b"\x00\x5d" + bytes(6))
        record("accepted", "SOCKS4")
        record("socks", {"type": address_type, "host": host, "port": port})
        upstream = open_loopback("127.0.0.1" if host.endswith(".test") else host, port) if command == 1 else None
        if upstream is None:
            return self.wfile.write(b"\x00\x5b" + bytes(6))
        self.wfile.write(b"\x00\x5a" + struct.pack("!H", port) + socket.inet_aton("127.0.0.1"))
        tunnel(self.connection, upstream)

    def read_null_terminated(self, limit=255):
        value = b""
        while len(value) <= limit:
            byte = self.rfile.read(1)
            if byte in (b"", b"\x00"):
                break
            value += byte
        return value.decode(errors="replace")


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mode", choices=["basic", "digest", "socks"], required=True)
    parser.add_argument("--user", default="proxyuser")
    parser.add_argument("--password", default="proxy-secret")
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    server = Server((args.host, args.port), SOCKSProxy if args.mode == "socks" else HTTPProxy)
    server.mode, server.user, server.password = args.mode, args.user, args.password
    host, port = server.server_address[:2]
    print(f"auth_proxy listening on http://{host}:{port}", flush=True)
    if args.exit_with_stdin:
        def watch():
            while sys.stdin.buffer.read(4096):
                pass
            server.shutdown()
        threading.Thread(target=watch, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
