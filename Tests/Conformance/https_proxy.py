#!/usr/bin/env python3
"""A forward proxy that clients reach over TLS (an "HTTPS proxy"), for the tests of proxy trust.

Python 3 standard library. It takes CONNECT host:port (and tunnels), or a request with an absolute URI (which it
forwards to its origin as origin-form, one request per connection). Prints its address on the first line; with
--exit-with-stdin it exits when standard input closes. Only loopback origins are served.
"""
import argparse
import select
import socket
import socketserver
import ssl
import sys
import threading
from urllib.parse import urlsplit


def relay(client, upstream):
    """Copies bytes both ways from one thread (an SSL socket must not be read and written from two) until
    either side closes."""
    while True:
        readable = [client] if client.pending() else select.select([client, upstream], [], [], 30)[0]
        if not readable:
            return
        for source in readable:
            data = source.recv(65536)
            if not data:
                return
            (upstream if source is client else client).sendall(data)


class Handler(socketserver.StreamRequestHandler):
    timeout = 30
    rbufsize = 0  # unbuffered: nothing past the head is read into a buffer the tunnel would not see

    def handle(self):
        line = self.rfile.readline(65537).decode("latin-1")
        head = []
        while True:
            header = self.rfile.readline(65537)
            if header in (b"\r\n", b"\n", b""):
                break
            head.append(header)
        try:
            method, target, version = line.split()
        except ValueError:
            return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            upstream = self.open(host, int(port))
            if upstream is None:
                return
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
        else:
            url = urlsplit(target)
            upstream = self.open(url.hostname, url.port or 80)
            if upstream is None:
                return
            path = (url.path or "/") + ("?" + url.query if url.query else "")
            upstream.sendall(f"{method} {path} {version}\r\n".encode("latin-1") + b"".join(head) + b"\r\n")
        try:
            relay(self.connection, upstream)
        except OSError:
            pass
        finally:
            upstream.close()

    def open(self, host, port):
        if host not in ("127.0.0.1", "localhost"):
            self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return None
        return socket.create_connection((host, port))


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    tls = None

    def get_request(self):
        connection, address = super().get_request()
        return self.tls.wrap_socket(connection, server_side=True), address


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--tls-cert", required=True)
    parser.add_argument("--tls-key", required=True)
    args = parser.parse_args()
    server = Server((args.host, args.port), Handler)
    server.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.tls.load_cert_chain(args.tls_cert, args.tls_key)
    host, port = server.server_address[:2]
    print(f"https_proxy listening on https://{host}:{port}", flush=True)
    if args.exit_with_stdin:
        def watch():
            while sys.stdin.buffer.read(4096):
                pass
            server.shutdown()
        threading.Thread(target=watch, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
