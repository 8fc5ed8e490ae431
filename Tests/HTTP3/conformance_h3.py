#!/usr/bin/env python3
"""conformance_h3: the transport conformance kit's server over HTTP/3 — an HTTP/3 front (aioquic) on 127.0.0.1 that
relays each request stream to the conformance server (Tests/Conformance/conformance_server.py) over HTTP/1.1, one TCP
connection per request, and its answer back on the stream, as a reverse proxy would:

    python3 Tests/HTTP3/conformance_h3.py --upstream PORT --certificate DIR [--exit-with-stdin]

writes a self-signed certificate for 127.0.0.1 and localhost to DIR/cert.pem and prints
`conformance_h3 listening on https://127.0.0.1:<port>` once it listens (UDP only: nothing answers TCP there).

What HTTP/3 cannot carry, it answers as HTTP/3 would: an answer the relay cannot read as HTTP/1.1 (a malformed head, a
body cut short or badly chunked) resets the stream (H3_INTERNAL_ERROR), interim answers are not relayed, the answer's
trailers end the stream. A client that resets its stream, or stops reading, is seen upstream: the relay closes the
TCP connection, or stops reading from it while more than WINDOW bytes wait unacknowledged on the stream (so that a
reader's back-pressure reaches the conformance server's socket).
"""
import argparse
import asyncio
import os
import sys
import traceback

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, StopSendingReceived, StreamReset
from aioquic.quic.stream import QuicStreamSender

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from h3_server import certificate, exit_with_stdin, free_port  # noqa: E402

H3_NO_ERROR = 0x100
H3_INTERNAL_ERROR = 0x102
H3_REQUEST_CANCELLED = 0x10C
WINDOW = 256 * 1024
HEAD_LIMIT = 4 * 1024 * 1024  # the longest head line relayed: longer than any client takes
HOP_BY_HOP = {b"connection", b"keep-alive", b"transfer-encoding", b"upgrade", b"proxy-connection", b"te"}
UPSTREAM = {"port": 0}


class BadAnswer(Exception):
    """The conformance server's answer is not HTTP/1.1 the relay can carry."""


class Exchange:
    """One request stream, relayed."""

    def __init__(self, protocol, stream_id):
        self.protocol = protocol
        self.stream_id = stream_id
        self.upload = asyncio.Queue()  # request body chunks, then None
        self.task = asyncio.ensure_future(self.run())

    async def run(self):
        writer = sending = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", UPSTREAM["port"], limit=HEAD_LIMIT)
            head, chunked = await self.upload.get()
            writer.write(head)
            sending = asyncio.ensure_future(self.send_body(writer, chunked))
            await self.answer(reader)
            if not sending.done():
                # The answer is whole, the request is not: the client may stop sending (RFC 9114 §4.1).
                self.protocol._quic.stop_stream(self.stream_id, H3_NO_ERROR)
                self.protocol.transmit()
        except asyncio.CancelledError:
            raise
        except (BadAnswer, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            self.reset()
        except Exception:  # a fault of the relay's own: said, and the stream reset rather than left hanging
            traceback.print_exc()
            self.reset()
        finally:
            if sending is not None:
                sending.cancel()
            if writer is not None:
                writer.transport.abort()
            self.protocol.exchanges.pop(self.stream_id, None)

    async def send_body(self, writer, chunked):
        try:
            await self.write_body(writer, chunked)
        except ConnectionError:  # the server stopped reading (it answered early): the answer says the rest
            pass

    async def write_body(self, writer, chunked):
        while True:
            chunk = await self.upload.get()
            if chunk is None:
                if chunked:
                    writer.write(b"0\r\n\r\n")
                await writer.drain()
                return
            if chunk:
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
                await writer.drain()

    async def answer(self, reader):
        while True:
            status, headers = await self.read_head(reader)
            if status >= 200:
                break
        chunked = any(name == b"transfer-encoding" and b"chunked" in value.lower() for name, value in headers)
        length = None
        if not chunked:
            lengths = {value.strip() for name, value in headers if name == b"content-length"}
            if len(lengths) > 1 or any(not value.isdigit() for value in lengths):
                raise BadAnswer("conflicting or malformed Content-Length")
            length = int(lengths.pop()) if lengths else None
        forwarded = [(name, value) for name, value in headers
                     if name not in HOP_BY_HOP and not (chunked and name == b"content-length")]
        bodiless = self.method == b"HEAD" or status in (204, 304)
        try:
            self.protocol.http.send_headers(
                self.stream_id, [(b":status", str(status).encode())] + forwarded, end_stream=bodiless)
        except RuntimeError as error:  # QPACK cannot encode it (40,000 fields, say)
            raise BadAnswer(f"head not encodable: {error}")
        self.protocol.transmit()
        if bodiless:
            return
        if chunked:
            await self.relay_chunked(reader)
        elif length is not None:
            await self.relay_exactly(reader, length)
            self.end()
        else:
            while chunk := await reader.read(65536):
                await self.send(chunk)
            self.end()

    async def read_head(self, reader):
        line = await reader.readuntil(b"\n")
        parts = line.rstrip(b"\r\n").split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or len(parts[1]) != 3 or not parts[1].isdigit():
            raise BadAnswer(f"status line {line!r}")
        headers, size = [], len(line)
        while (line := await reader.readuntil(b"\n")) not in (b"\r\n", b"\n"):
            size += len(line)
            name, colon, value = line.rstrip(b"\r\n").partition(b":")
            if not colon or not name or size > HEAD_LIMIT or any(c <= 32 or c >= 127 for c in name):
                raise BadAnswer(f"header line {line!r}")
            headers.append((name.lower(), value.strip()))
        return int(parts[1]), headers

    async def relay_exactly(self, reader, length):
        while length > 0:
            chunk = await reader.read(min(length, 65536))
            if not chunk:
                raise BadAnswer("body cut short")
            length -= len(chunk)
            await self.send(chunk)

    async def relay_chunked(self, reader):
        while True:
            size_line = (await reader.readuntil(b"\n")).split(b";")[0].strip()
            if not size_line or any(c not in b"0123456789abcdefABCDEF" for c in size_line) or len(size_line) > 16:
                raise BadAnswer(f"chunk size {size_line!r}")
            size = int(size_line, 16)
            if size == 0:
                break
            await self.relay_exactly(reader, size)
            if await reader.readexactly(2) != b"\r\n":
                raise BadAnswer("chunk not ended by CRLF")
        trailers = []
        while (line := await reader.readuntil(b"\n")) not in (b"\r\n", b"\n"):
            name, colon, value = line.rstrip(b"\r\n").partition(b":")
            if colon and name:
                trailers.append((name.lower(), value.strip()))
        if trailers:
            self.protocol.http.send_headers(self.stream_id, trailers, end_stream=True)
            self.protocol.transmit()
        else:
            self.end()

    async def send(self, chunk):
        # Back-pressure: while the client does not take what is already on the stream, read no more upstream.
        while self.unacknowledged() > WINDOW:
            await asyncio.sleep(0.005)
        self.protocol.http.send_data(self.stream_id, chunk, end_stream=False)
        self.protocol.transmit()

    def unacknowledged(self):
        stream = self.protocol._quic._streams.get(self.stream_id)
        return len(stream.sender._buffer) if stream is not None else 0

    def end(self):
        self.protocol.http.send_data(self.stream_id, b"", end_stream=True)
        self.protocol.transmit()

    def reset(self):
        """Aborts the exchange both ways, as a server that cannot answer does: the answer reset, the request stopped."""
        try:
            self.protocol._quic.reset_stream(self.stream_id, H3_INTERNAL_ERROR)
            self.protocol._quic.stop_stream(self.stream_id, H3_INTERNAL_ERROR)
            self.protocol.transmit()
        except Exception:  # the stream or the connection is gone already
            pass

    def cancel(self):
        self.task.cancel()


def reset_once():
    """aioquic 1.2 asserts when a stream is reset twice — the relay's reset of a stream, then the client's STOP_SENDING
    on it, which aioquic answers with a reset of its own — and the assertion ends the connection's datagram handling:
    the second reset is a no-op instead, as RFC 9000 §3.1 has it (a stream in "Reset Sent" stays there)."""
    reset = QuicStreamSender.reset

    def once(self, error_code):
        if self._reset_error_code is None:
            reset(self, error_code)

    QuicStreamSender.reset = once


class Relay(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.http = H3Connection(self._quic)
        self.exchanges = {}

    def quic_event_received(self, event):
        if isinstance(event, (StreamReset, StopSendingReceived)):
            exchange = self.exchanges.pop(event.stream_id, None)
            if exchange:
                exchange.cancel()
            return
        if isinstance(event, ConnectionTerminated):
            for exchange in list(self.exchanges.values()):
                exchange.cancel()
            return
        for h3_event in self.http.handle_event(event):
            if isinstance(h3_event, HeadersReceived) and h3_event.stream_id not in self.exchanges:
                self.begin(h3_event)
            elif isinstance(h3_event, DataReceived) and h3_event.stream_id in self.exchanges:
                exchange = self.exchanges[h3_event.stream_id]
                exchange.upload.put_nowait(h3_event.data)
                if h3_event.stream_ended:
                    exchange.upload.put_nowait(None)

    def begin(self, event):
        pseudo = {name: value for name, value in event.headers if name.startswith(b":")}
        fields = [(name, value) for name, value in event.headers if not name.startswith(b":")]
        exchange = Exchange(self, event.stream_id)
        exchange.method = pseudo.get(b":method", b"GET")
        self.exchanges[event.stream_id] = exchange
        has_length = any(name == b"content-length" for name, _ in fields)
        chunked = not event.stream_ended and not has_length
        head = b"%s %s HTTP/1.1\r\nHost: %s\r\n" % (exchange.method, pseudo.get(b":path", b"/"),
                                                    pseudo.get(b":authority", b""))
        for name, value in fields:
            if name not in HOP_BY_HOP:
                head += name + b": " + value + b"\r\n"
        if chunked:
            head += b"Transfer-Encoding: chunked\r\n"
        head += b"Connection: close\r\n\r\n"
        exchange.upload.put_nowait((head, chunked))
        if event.stream_ended:
            exchange.upload.put_nowait(None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--upstream", type=int, required=True)
    parser.add_argument("--certificate", required=True)
    parser.add_argument("--exit-with-stdin", action="store_true")
    args = parser.parse_args()
    UPSTREAM["port"] = args.upstream
    reset_once()
    port = args.port or free_port(args.host)
    cert, key = certificate(args.certificate)
    configuration = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN, idle_timeout=300.0,
                                      max_datagram_frame_size=65536)
    configuration.load_cert_chain(cert, key)
    if args.exit_with_stdin:
        exit_with_stdin()

    async def run():
        await serve(args.host, port, configuration=configuration, create_protocol=Relay)
        print(f"conformance_h3 listening on https://{args.host}:{port}", flush=True)
        await asyncio.Future()

    asyncio.run(run())


if __name__ == "__main__":
    main()
