"""image_server's streamed responses: Server-Sent Events, NDJSON and raw bytes, sent as they are produced.

    GET /stream/sse?count=N&interval_ms=I&cut_after=K&retry_ms=R
        text/event-stream: events with ids 1..N, data {"id": i, "text": "event i"}, one every I ms (default 100).
        With Last-Event-ID: j, starts at j + 1 (and answers 204 when nothing is left, which ends an EventSource).
        With cut_after=K the connection drops (no final chunk) after K events of this response; with retry_ms a
        `retry:` field opens the stream.
    GET /stream/ndjson?count=N&interval_ms=I
        application/x-ndjson: {"id": i, "text": "item i"} per line.
    GET /stream/bytes?size=N&chunk=C&rate=R
        N bytes (byte i is i % 251) in writes of C bytes (default 64 KiB), at most R bytes a second (0: no limit).
"""
import json
import time

from uploads import UploadError, number, send_json


def bounded(query, name, default, low, high):
    return max(low, min(number(query, name, default), high))


def route(handler, parts, query):
    """Handles /stream/...; returns False for any other path."""
    if len(parts) != 2 or parts[0] != "stream" or handler.command != "GET":
        return False
    handler.close_connection = True
    try:
        if parts[1] == "sse":
            server_sent_events(handler, query)
        elif parts[1] == "ndjson":
            ndjson(handler, query)
        elif parts[1] == "bytes":
            raw_bytes(handler, query)
        else:
            return False
    except UploadError as error:
        send_json(handler, error.status, {"error": str(error), "status": error.status})
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client left: that is how streams end
    return True


def chunked_head(handler, content_type):
    handler.send_response(200)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Cache-Control", "no-store")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()


def chunk(handler, data):
    handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
    handler.wfile.flush()


def server_sent_events(handler, query):
    count, interval = bounded(query, "count", 10, 0, 1_000_000), bounded(query, "interval_ms", 100, 0, 60_000) / 1000
    cut_after, retry = bounded(query, "cut_after", 0, 0, 1_000_000), bounded(query, "retry_ms", 0, 0, 3_600_000)
    last = handler.headers.get("Last-Event-ID", "")
    first = int(last) + 1 if last.isdigit() else 1
    if first > count:
        handler.send_response(204)
        handler.end_headers()
        return
    chunked_head(handler, "text/event-stream")
    if retry:
        chunk(handler, b"retry: %d\n\n" % retry)
    for sent, event in enumerate(range(first, count + 1), start=1):
        time.sleep(interval)
        data = json.dumps({"id": event, "text": f"event {event}"}).encode()
        chunk(handler, b"id: %d\ndata: %s\n\n" % (event, data))
        if cut_after and sent >= cut_after and event < count:
            return  # no final chunk: the client sees a cut connection
    chunk(handler, b"")


def ndjson(handler, query):
    count, interval = bounded(query, "count", 10, 0, 1_000_000), bounded(query, "interval_ms", 100, 0, 60_000) / 1000
    chunked_head(handler, "application/x-ndjson")
    for item in range(1, count + 1):
        time.sleep(interval)
        chunk(handler, json.dumps({"id": item, "text": f"item {item}"}).encode() + b"\n")
    chunk(handler, b"")


PATTERN = bytes(range(251)) * 1100  # any slice up to 256 KiB from offset % 251 continues the pattern


def raw_bytes(handler, query):
    size, piece = bounded(query, "size", 1 << 20, 0, 1 << 40), bounded(query, "chunk", 64 * 1024, 1, 256 * 1024)
    rate = bounded(query, "rate", 0, 0, 1 << 40)
    handler.send_response(200)
    handler.send_header("Content-Type", "application/octet-stream")
    handler.send_header("Content-Length", str(size))
    handler.end_headers()
    sent, started = 0, time.monotonic()
    while sent < size:
        count = min(piece, size - sent)
        start = sent % 251
        handler.wfile.write(PATTERN[start:start + count])
        handler.wfile.flush()
        sent += count
        if rate:
            ahead = sent / rate - (time.monotonic() - started)
            if ahead > 0:
                time.sleep(ahead)
