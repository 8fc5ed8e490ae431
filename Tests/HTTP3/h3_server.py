#!/usr/bin/env python3
"""h3_server: an HTTP/3 peer for the HTTP/3 suite — hypercorn (aioquic) serving a small ASGI app over TLS on TCP
(HTTP/1.1 and HTTP/2) and over QUIC (HTTP/3) on the same port, advertising `Alt-Svc: h3=":<port>"` on TCP answers.

`python3 Tests/HTTP3/h3_server.py --port 0 --certificate DIR` writes a self-signed certificate for 127.0.0.1 to
DIR/cert.pem (the test trusts it) and prints `h3_server listening on https://127.0.0.1:<port>` once it listens;
`--no-quic` serves TCP only, its UDP port closed (fallback), and with `--advertise` still says `Alt-Svc: h3` (a
server whose UDP stopped answering); with --exit-with-stdin it exits when standard input
closes. Routes (every request is logged with the HTTP version it came over and its client's address):
    GET  /get?tag=T[&delay=MS]   {"version": "3" | "2" | "1.1", "tag": T}, MS milliseconds after the request came
    POST /echo?tag=T             the body back, with its Content-Type; X-Version: the HTTP version
    GET  /bytes?n=N&tag=T        N bytes (0x00..0xff repeating), streamed in 64 KiB chunks
    POST /sink?tag=T             {"bytes": the body's length, "intact": whether it is /bytes' pattern}
    GET  /endless?tag=T          64 KiB chunks until the client goes; then a log entry with "complete": false
    GET  /redirect?to=URL&tag=T  302 to URL
    GET  /trailers               "body" then the trailer field X-Checksum: 42 (to a request with TE: trailers)
    any route with alt=V         one more `Alt-Svc` field line per alt, {port} the server's port
    GET  /log?tag=T              [{"version", "method", "path", "client", "authorized"}] of the requests tagged T
"""
import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import urllib.parse

from hypercorn.asyncio import serve
from hypercorn.config import Config
from hypercorn.protocol import h3
from hypercorn.protocol.events import EndBody, Trailers

LOG = []
ADVERTISED = []  # the Alt-Svc field every answer carries, with --advertise


def free_port(host):
    """A port free on TCP and on UDP both, for TLS and QUIC to share."""
    while True:
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.bind((host, 0))
        port = tcp.getsockname()[1]
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            udp.bind((host, port))
            return port
        except OSError:
            continue
        finally:
            tcp.close()
            udp.close()


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    lines = urllib.parse.parse_qs(scope.get("query_string", b"").decode()).get("alt", [])
    if lines:
        send = with_lines(send, [(b"alt-svc", line.replace("{port}", str(scope["server"][1])).encode())
                                 for line in lines])
    query = dict(urllib.parse.parse_qsl(scope.get("query_string", b"").decode()))
    version = scope.get("http_version", "")
    tag = query.get("tag", "")
    path = scope["path"]
    parts = []
    sunk = {"bytes": 0, "intact": True}  # /sink's body, checked as it comes rather than held: 100 MiB and more
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            LOG.append({"version": version, "method": scope["method"], "path": path, "tag": tag,
                        "client": scope.get("client", ["", 0])[1], "complete": False})
            return
        if path == "/sink":
            sink(sunk, message.get("body", b""))
        else:
            parts.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(parts)
    if path not in ("/log", "/endless"):
        LOG.append({"version": version, "method": scope["method"], "path": path, "tag": tag,
                    "client": scope.get("client", ["", 0])[1], "complete": True,
                    "authorized": any(name == b"authorization" for name, _ in scope["headers"])})
    if path == "/get":
        await asyncio.sleep(min(int(query.get("delay", "0")), 60_000) / 1000)
        await respond(send, 200, json.dumps({"version": version, "tag": tag}).encode(), "application/json")
    elif path == "/echo":
        headers = dict(scope["headers"])
        await respond(send, 200, body, headers.get(b"content-type", b"application/octet-stream").decode(),
                      [(b"x-version", version.encode())])
    elif path == "/bytes":
        size = int(query.get("n", "0"))
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/octet-stream"),
                                (b"content-length", str(size).encode())]})
        chunk = bytes(range(256)) * 256
        sent = 0
        while sent < size:
            piece = chunk[:min(len(chunk), size - sent)]
            await send({"type": "http.response.body", "body": piece, "more_body": True})
            sent += len(piece)
        await send({"type": "http.response.body", "body": b""})
    elif path == "/trailers":
        await send({"type": "http.response.start", "status": 200, "trailers": True,
                    "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"body", "more_body": False})
        await send({"type": "http.response.trailers", "headers": [(b"x-checksum", b"42")], "more_trailers": False})
    elif path == "/redirect":
        await respond(send, 302, b"", "text/plain", [(b"location", query.get("to", "/").encode())])
    elif path == "/sink":
        await respond(send, 200, json.dumps(sunk).encode(), "application/json", [(b"x-version", version.encode())])
    elif path == "/endless":
        await endless(receive, send, version, tag, scope)
    elif path == "/log":
        entries = [entry for entry in LOG if entry["tag"] == tag]
        await respond(send, 200, json.dumps(entries).encode(), "application/json")
    else:
        await respond(send, 404, b"no such route", "text/plain")


PATTERN = bytes(range(256)) * 257


def sink(sunk, chunk):
    """Counts `chunk` into `sunk`, checking that it continues /bytes' pattern."""
    offset = sunk["bytes"] % 256
    for start in range(0, len(chunk), 65536):
        piece = chunk[start:start + 65536]
        if piece != PATTERN[offset:offset + len(piece)]:
            sunk["intact"] = False
        offset = (offset + len(piece)) % 256
    sunk["bytes"] += len(chunk)


def with_lines(send, lines):
    """`send`, with `lines` added to the response's head."""
    async def wrapped(message):
        if message["type"] == "http.response.start":
            message = dict(message, headers=list(message["headers"]) + lines)
        await send(message)
    return wrapped


async def endless(receive, send, version, tag, scope):
    """Chunks until the client goes away: its disconnect, or a send that fails, is logged."""
    gone = asyncio.Event()

    async def watch():
        while (await receive())["type"] != "http.disconnect":
            pass
        gone.set()

    watcher = asyncio.ensure_future(watch())
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/octet-stream")]})
    try:
        while not gone.is_set():
            await send({"type": "http.response.body", "body": bytes(65536), "more_body": True})
            await asyncio.sleep(0.005)
    except Exception:
        pass
    finally:
        watcher.cancel()
        LOG.append({"version": version, "method": "GET", "path": "/endless", "tag": tag,
                    "client": scope.get("client", ["", 0])[1], "complete": False})


async def respond(send, status, body, content_type, extra=()):
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
                            *extra, *ADVERTISED]})
    await send({"type": "http.response.body", "body": body})


def certificate(directory):
    os.makedirs(directory, exist_ok=True)
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    if not os.path.exists(cert):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "7", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                       check=True, capture_output=True)
    return cert, key


def exit_with_stdin():
    """Exits the process when standard input closes: the test that started it has gone."""
    def watch():
        while sys.stdin.buffer.read(4096):
            pass
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


def end_streams_with_trailers():
    """hypercorn 0.18 sends HTTP/3 trailers without ending the stream, then fails to end it with an empty DATA frame
    (aioquic rightly refuses DATA after trailers): the response never ends, and a client waits for it until its
    timeout. Over HTTP/2 it ends the stream with the trailers, as RFC 9114 §4.1 asks of HTTP/3 too: so here."""
    send = h3.H3Protocol.stream_send

    async def stream_send(self, event):
        ended = self.__dict__.setdefault("ended_by_trailers", set())
        if isinstance(event, Trailers):
            self.connection.send_headers(event.stream_id, event.headers, end_stream=True)
            ended.add(event.stream_id)
            await self.send()
        elif isinstance(event, EndBody) and event.stream_id in ended:
            ended.discard(event.stream_id)
        else:
            await send(self, event)

    h3.H3Protocol.stream_send = stream_send


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--certificate", required=True)
    parser.add_argument("--no-quic", action="store_true")
    parser.add_argument("--advertise", action="store_true")
    parser.add_argument("--exit-with-stdin", action="store_true")
    args = parser.parse_args()
    port = args.port or free_port(args.host)
    end_streams_with_trailers()
    cert, key = certificate(args.certificate)
    config = Config()
    config.certfile, config.keyfile = cert, key
    config.bind = [f"{args.host}:{port}"]
    if not args.no_quic:
        config.quic_bind = [f"{args.host}:{port}"]
    elif args.advertise:
        ADVERTISED.append((b"alt-svc", f'h3=":{port}"; ma=3600'.encode()))
    # An idle connection is closed after 5 s by default, with a GOAWAY that can cross a request sent on it at that
    # moment (a slow sanitized run meets it): the tests' connections stay open as long as the tests.
    config.keep_alive_timeout = 600
    config.accesslog = None
    config.errorlog = None
    if args.exit_with_stdin:
        exit_with_stdin()

    async def run():
        server = asyncio.ensure_future(serve(app, config))
        # hypercorn binds before it serves: wait until the TCP port answers, then say so.
        for _ in range(500):
            try:
                _, writer = await asyncio.open_connection(args.host, port)
                writer.close()
                break
            except OSError:
                await asyncio.sleep(0.01)
        print(f"h3_server listening on https://{args.host}:{port}", flush=True)
        await server

    asyncio.run(run())


if __name__ == "__main__":
    main()
