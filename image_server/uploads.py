"""image_server's upload routes: multipart and raw uploads streamed to disk, and the stored files served back
with Range and ETag support. Python 3 standard library only; bodies are never held whole in memory.

    POST /upload[?limit=N]            multipart/form-data; the part named "file" is stored, other fields are
                                      echoed back; 201 {"name", "size", "sha256", "filename", "fields", "parts"}
    PUT  /upload/{name}[?limit=N]     the raw body is stored; 201 {"name", "size", "sha256"}
    GET  /uploads/{name}              the stored file; Range (one range), If-Range, If-None-Match, ETag,
                                      Last-Modified; ?cut_after=N closes the connection after N body bytes,
                                      ?ignore_range=1 answers like a server without range support
    ?fail_once=KEY on an upload       the first upload with KEY is read whole, then refused with 503 (for retries)
    ?rate=BYTES_PER_SECOND            reads an upload or sends a download no faster (for progress bars)
    HEAD /uploads/{name}              the same headers

Stored names are sanitised (no directories, only [A-Za-z0-9._-]) and never overwrite: a clash gets a suffix
("photo-1.jpg"). Bodies larger than the server's --max-upload-bytes (or a smaller ?limit) are refused with 413.
Chunked request bodies are accepted.
"""
import hashlib
import json
import os
import re
import tempfile
import threading
import time
from email.utils import formatdate
from urllib.parse import unquote

CHUNK = 256 * 1024
FIELD_LIMIT = 1024 * 1024       # a non-file field is kept in memory, so it is small
FIELD_COUNT_LIMIT = 256          # and so are how many of them a form may have
PREAMBLE_LIMIT = 64 * 1024       # bytes before the first boundary that are skipped before giving up
DRAIN_LIMIT = 16 * 1024 * 1024  # an oversized body up to this size is read before the 413, so the client sees it


FAILED_ONCE, FAILED_ONCE_LOCK = set(), threading.Lock()


class UploadError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def sanitised(name):
    """A safe file name: the last path component, unsafe characters replaced, never empty or hidden."""
    base = re.split(r"[/\\]", name or "")[-1]
    base = re.sub(r"[^A-Za-z0-9._-]", "_", base).lstrip(".")[:100]
    return base or "upload"


class Pacer:
    """Sleeps as needed so that bytes move no faster than `rate` per second (no limit when rate is 0)."""

    def __init__(self, rate):
        self.rate, self.start, self.moved = rate, time.monotonic(), 0

    def account(self, count):
        self.moved += count
        if self.rate > 0:
            ahead = self.moved / self.rate - (time.monotonic() - self.start)
            if ahead > 0:
                time.sleep(ahead)


class BodyStream:
    """The request body as a stream of chunks, framed by Content-Length or chunked encoding, with a limit."""

    def __init__(self, handler, limit, rate=0):
        self.pacer = Pacer(rate)
        self.rfile = handler.rfile
        self.limit = limit
        self.total = 0
        self.chunked = handler.headers.get("Transfer-Encoding", "").lower() == "chunked"
        self.remaining = content_length(handler.headers)
        self.chunk_left = 0
        self.done = False

    def refuse(self):
        raise UploadError(413, f"the body is larger than the {self.limit}-byte limit")

    def read(self, size=CHUNK):
        """Up to `size` bytes; b"" at the end of the body."""
        if self.done:
            return b""
        if not self.chunked and self.total + self.remaining > self.limit:
            self.refuse()
        if self.chunked:
            if self.chunk_left == 0:
                line = self.rfile.readline(1024)
                if not line:
                    raise UploadError(400, "the chunked body ended early")
                try:
                    self.chunk_left = chunk_size(line)
                except UploadError:
                    self.done = True  # its framing is lost: nothing more can be read from it, not even to drain
                    raise
                if self.chunk_left == 0:
                    while self.rfile.readline(1024).strip():  # trailers
                        pass
                    self.done = True
                    return b""
            data = self.rfile.read(min(size, self.chunk_left))
            self.chunk_left -= len(data)
            if self.chunk_left == 0:
                self.rfile.readline(16)
        else:
            if self.remaining == 0:
                self.done = True
                return b""
            data = self.rfile.read(min(size, self.remaining))
            self.remaining -= len(data)
        if not data:
            raise UploadError(400, "the body ended early")
        self.total += len(data)
        if self.total > self.limit:
            self.refuse()
        self.pacer.account(len(data))
        return data

    def drain(self):
        """Reads what is left of a refused body, up to DRAIN_LIMIT bytes."""
        try:
            self.limit = self.total + DRAIN_LIMIT
            while self.read():
                pass
        except (UploadError, OSError, ValueError):
            pass


class StoredFile:
    """A file being written under a temporary name, published with a unique sanitised name at the end."""

    def __init__(self, directory, wanted_name):
        self.directory = directory
        self.wanted = sanitised(wanted_name)
        descriptor, self.temporary = tempfile.mkstemp(prefix=".incoming-", dir=directory)
        os.fchmod(descriptor, 0o644)
        self.file = os.fdopen(descriptor, "wb")
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data):
        self.file.write(data)
        self.digest.update(data)
        self.size += len(data)

    def publish(self):
        """Links the file under the first free name ("a.jpg", "a-1.jpg", ...): never overwrites."""
        self.file.close()
        stem, dot, extension = self.wanted.rpartition(".")
        if not dot or not stem:
            stem, dot, extension = self.wanted, "", ""
        for attempt in range(10_000):
            name = self.wanted if attempt == 0 else f"{stem}-{attempt}{dot}{extension}"
            try:
                os.link(self.temporary, os.path.join(self.directory, name))
            except FileExistsError:
                continue
            os.unlink(self.temporary)
            return {"name": name, "size": self.size, "sha256": self.digest.hexdigest()}
        raise UploadError(409, "no free name for the upload")

    def discard(self):
        self.file.close()
        try:
            os.unlink(self.temporary)
        except FileNotFoundError:
            pass


class MultipartReader:
    """Parses a multipart/form-data body as it streams, handing each part's bytes to a sink."""

    def __init__(self, stream, boundary):
        self.stream = stream
        self.delimiter = b"\r\n--" + boundary
        self.buffer = b""

    def fill(self):
        data = self.stream.read()
        if not data:
            raise UploadError(400, "the multipart body ended before its closing boundary")
        self.buffer += data

    def parts(self):
        """Yields (headers, content chunks generator) per part; each generator must be consumed in turn."""
        # The first boundary has no CRLF before it (a preamble, if any, is skipped).
        opening = self.delimiter[2:]
        while opening not in self.buffer:
            if len(self.buffer) > PREAMBLE_LIMIT:
                raise UploadError(400, "no multipart boundary within the first 64 KiB")
            self.fill()
        self.buffer = self.buffer[self.buffer.index(opening) + len(opening):]
        while True:
            while len(self.buffer) < 2:
                self.fill()
            if self.buffer.startswith(b"--"):
                return
            while b"\r\n\r\n" not in self.buffer:
                if len(self.buffer) > 64 * 1024:
                    raise UploadError(400, "a part's headers are too long")
                self.fill()
            head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            yield parse_part_headers(head), self.content()

    def content(self):
        while True:
            index = self.buffer.find(self.delimiter)
            if index >= 0:
                chunk, self.buffer = self.buffer[:index], self.buffer[index + len(self.delimiter):]
                if chunk:
                    yield chunk
                return
            # Keep what could be the start of a delimiter split across reads.
            keep = len(self.delimiter) - 1
            if len(self.buffer) > keep:
                chunk, self.buffer = self.buffer[:-keep], self.buffer[-keep:]
                yield chunk
            self.fill()


def parse_part_headers(head):
    headers = {}
    for line in head.decode("utf-8", "replace").split("\r\n"):
        name, _, value = line.partition(":")
        if name.strip():
            headers[name.strip().lower()] = value.strip()
    disposition = headers.get("content-disposition", "")
    params = dict((key.lower(), value) for key, value in re.findall(r';\s*([A-Za-z*]+)="([^"]*)"', disposition))
    return {"name": params.get("name"), "filename": params.get("filename"),
            "contentType": headers.get("content-type")}


def boundary_of(content_type):
    match = re.search(r'boundary="?([^";]+)"?', content_type or "")
    if not content_type or not content_type.lower().startswith("multipart/form-data") or not match:
        raise UploadError(400, "expected a multipart/form-data body with a boundary")
    return match.group(1).encode()


def receive_multipart(handler, stream, directory):
    reader = MultipartReader(stream, boundary_of(handler.headers.get("Content-Type")))
    stored, fields, parts = None, [], []
    try:
        for headers, content in reader.parts():
            digest, size = hashlib.sha256(), 0
            if headers["name"] == "file" and headers["filename"] is not None and stored is None:
                stored = StoredFile(directory, headers["filename"])
                for chunk in content:
                    stored.write(chunk)
                digest, size = stored.digest.copy(), stored.size
            else:
                if len(fields) >= FIELD_COUNT_LIMIT:
                    raise UploadError(413, f"more than {FIELD_COUNT_LIMIT} fields")
                value = b""
                for chunk in content:
                    value += chunk
                    if len(value) > FIELD_LIMIT:
                        raise UploadError(413, f"field {headers['name']!r} is larger than {FIELD_LIMIT} bytes")
                digest.update(value)
                size = len(value)
                fields.append([headers["name"], value.decode("utf-8", "replace")])
            parts.append({**headers, "size": size, "sha256": digest.hexdigest()})
        if stored is None:
            raise UploadError(400, 'no file part named "file"')
        while stream.read():  # an epilogue after the closing boundary
            pass
        reply = stored.publish()
        stored = None
        return {**reply, "filename": parts_filename(parts), "fields": fields, "parts": parts}
    finally:
        if stored is not None:
            stored.discard()


def parts_filename(parts):
    return next(part["filename"] for part in parts if part["name"] == "file" and part["filename"] is not None)


def receive_raw(stream, directory, name):
    stored = StoredFile(directory, name)
    try:
        while data := stream.read():
            stored.write(data)
        reply = stored.publish()
        stored = None
        return reply
    finally:
        if stored is not None:
            stored.discard()


def entity_tag(status):
    return f'"{status.st_size:x}-{status.st_mtime_ns:x}"'


def content_length(headers):
    """The request's Content-Length: a single non-negative decimal number, else a 400 (never a negative read)."""
    values = headers.get_all("Content-Length") or []
    if not values:
        return 0
    if len(set(value.strip() for value in values)) != 1 or not values[0].strip().isdigit():
        raise UploadError(400, "an invalid or conflicting Content-Length")
    return int(values[0].strip())


def chunk_size(line):
    """A chunk-size line's hexadecimal size: digits only (no sign, no 0x), else a 400."""
    text = line.split(b";")[0].strip() or b"0"
    if not all(byte in b"0123456789abcdefABCDEF" for byte in text) or len(text) > 16:
        raise UploadError(400, "an invalid chunk size")
    return int(text, 16)


def parse_range(header, size):
    """(first, last) of a single `bytes=` range, None for no or an unusable header, "unsatisfiable" if so."""
    match = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", header or "")
    if not match or match.group(1) == match.group(2) == "":
        return None
    first, last = match.group(1), match.group(2)
    if first == "":
        length = int(last)
        if length == 0 or size == 0:  # a suffix of an empty file has no bytes to send: "bytes 0--1/0" is no range
            return "unsatisfiable"
        return max(0, size - length), size - 1
    first = int(first)
    last = min(int(last), size - 1) if last else size - 1
    if first >= size or last < first:
        return "unsatisfiable"
    return first, last


def serve_file(handler, directory, name, query):
    cut_after, pacer = number(query, "cut_after", -1), Pacer(number(query, "rate", 0))
    if sanitised(name) != name:
        raise UploadError(404, "no such upload")
    path = os.path.join(directory, name)
    try:
        file = open(path, "rb")
    except (FileNotFoundError, IsADirectoryError):
        raise UploadError(404, "no such upload")
    with file:
        status = os.fstat(file.fileno())
        size, tag = status.st_size, entity_tag(status)
        modified = formatdate(status.st_mtime, usegmt=True)
        validators = {"ETag": tag, "Last-Modified": modified, "Accept-Ranges": "bytes"}
        if handler.headers.get("If-None-Match") in (tag, "*"):
            return send_head(handler, 304, validators)
        wanted = None if query.get("ignore_range") else parse_range(handler.headers.get("Range"), size)
        if_range = handler.headers.get("If-Range")
        if wanted is not None and if_range is not None and if_range not in (tag, modified):
            wanted = None  # the client's copy is stale: send the whole new file
        if wanted == "unsatisfiable":
            return send_head(handler, 416, {**validators, "Content-Range": f"bytes */{size}", "Content-Length": "0"})
        first, last = wanted or (0, size - 1)
        headers = {**validators, "Content-Type": "application/octet-stream", "Content-Length": str(last - first + 1)}
        if wanted:
            headers["Content-Range"] = f"bytes {first}-{last}/{size}"
        send_head(handler, 206 if wanted else 200, headers)
        if handler.command == "HEAD":
            return
        file.seek(first)
        remaining, sent = last - first + 1, 0
        while remaining > 0:
            data = file.read(min(CHUNK, remaining))
            if not data:
                break
            if 0 <= cut_after < sent + len(data):
                handler.wfile.write(data[:cut_after - sent])
                handler.wfile.flush()
                handler.close_connection = True
                handler.connection.shutdown(2)  # a cut connection: the client sees a short body
                return
            handler.wfile.write(data)
            pacer.account(len(data))
            sent += len(data)
            remaining -= len(data)


def send_head(handler, code, headers):
    handler.send_response(code)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.end_headers()


def route(handler, parts, query, directory, max_bytes):
    """Handles the upload routes; returns False for any other path. Replies itself, errors included."""
    if not (parts == ["upload"] or (len(parts) == 2 and parts[0] in ("upload", "uploads"))):
        return False
    stream = None
    try:
        stream = BodyStream(handler, min(max_bytes, number(query, "limit", max_bytes)), number(query, "rate", 0))
        key = query.get("fail_once")
        if key and parts[0] == "upload" and handler.command in ("PUT", "POST"):
            with FAILED_ONCE_LOCK:
                first = key not in FAILED_ONCE
                FAILED_ONCE.add(key)
            if first:
                while stream.read():
                    pass
                send_json(handler, 503, {"error": "failing once, as asked", "received": stream.total})
                return True
        if parts == ["upload"] and handler.command == "POST":
            send_json(handler, 201, receive_multipart(handler, stream, directory))
        elif parts[0] == "upload" and handler.command in ("PUT", "POST"):
            send_json(handler, 201, receive_raw(stream, directory, unquote(parts[1])))
        elif parts[0] == "uploads" and handler.command in ("GET", "HEAD"):
            serve_file(handler, directory, unquote(parts[1]), query)
        else:
            raise UploadError(405, f"{handler.command} is not allowed here")
    except UploadError as error:
        # Reading the rest of a refused body lets the client finish sending and read the reply; the
        # connection is closed anyway, as its framing can no longer be trusted.
        if stream is not None:
            stream.drain()
        handler.close_connection = True
        send_json(handler, error.status, {"error": str(error), "status": error.status})
    return True


def number(query, name, default):
    try:
        return int(query.get(name, default))
    except ValueError:
        raise UploadError(400, f"?{name}= takes an integer")


def send_json(handler, code, value):
    body = json.dumps(value).encode()
    send_head(handler, code, {"Content-Type": "application/json", "Content-Length": str(len(body))})
    if handler.command != "HEAD":
        handler.wfile.write(body)
