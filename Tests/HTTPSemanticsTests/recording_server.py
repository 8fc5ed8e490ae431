#!/usr/bin/env python3
"""A server on several loopback ports at once — several origins — that records every request it receives, every
header included, and answers as each request's query tells it to. What the credential-boundary tests run against:
they send requests across origins and then read, from the server, which credential reached which origin.

Query parameters of any request (all optional, any path):
  status=N            the status (default 200)
  location=URL        a Location header (with a 3xx status)
  link=URL            a `Link: <URL>; rel="next"` header
  setcookie=V         a Set-Cookie header (repeatable)
  cc=V                a Cache-Control header
  etag=V              an ETag header; a request whose If-None-Match matches gets 304 (with setcookie304=V's
                      Set-Cookie, if given)
  vary=V              a Vary header
  events=N            a text/event-stream body of N events (ids continue after Last-Event-ID), then the end,
                      with retry=MS as its `retry:` field
  body=V              the body (default `[{"id":1}]`, as JSON)
  failfirst=N         the first N requests to this target answer 503 instead (counted per target)

  GET /_origins       the base URLs of every port, as a JSON list
  GET /_log           every request recorded so far, as a JSON list of {origin, method, target, headers}
  POST /_reset        forgets the log

Starts like the other bundled servers: `--host 127.0.0.1 --port 0 --exit-with-stdin [--origins N]`; the first line
printed is the first port's address.
"""
import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOG = []
LOG_LOCK = threading.Lock()
ORIGINS = []
FAILED = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def origin(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def reply(self, status, headers, body=b""):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        target = urlsplit(self.path)
        if target.path == "/_origins":
            return self.reply(200, [("Content-Type", "application/json")], json.dumps(ORIGINS).encode())
        if target.path == "/_log":
            with LOG_LOCK:
                body = json.dumps(LOG).encode()
            return self.reply(200, [("Content-Type", "application/json")], body)
        if target.path == "/_reset":
            with LOG_LOCK:
                LOG.clear()
            return self.reply(204, [])
        with LOG_LOCK:
            LOG.append({
                "origin": self.origin(), "method": self.command, "target": self.path,
                "headers": [[name, value] for name, value in self.headers.items()],
            })
        query = parse_qs(target.query)

        def one(name, default=None):
            return query[name][0] if name in query else default

        with LOG_LOCK:
            failing = FAILED.get(self.path, 0) < int(one("failfirst", "0"))
            if failing:
                FAILED[self.path] = FAILED.get(self.path, 0) + 1
        if failing:
            return self.reply(503, [("Content-Type", "text/plain")], b"try again")
        headers = []
        status = int(one("status", "200"))
        if one("location"):
            headers.append(("Location", one("location")))
        if one("link"):
            headers.append(("Link", '<%s>; rel="next"' % one("link")))
        for cookie in query.get("setcookie", []):
            headers.append(("Set-Cookie", cookie))
        if one("cc"):
            headers.append(("Cache-Control", one("cc")))
        if one("vary"):
            headers.append(("Vary", one("vary")))
        if one("etag"):
            headers.append(("ETag", one("etag")))
            if self.headers.get("If-None-Match") == one("etag"):
                extra = [("Set-Cookie", one("setcookie304"))] if one("setcookie304") else []
                headers = [h for h in headers if h[0] != "Set-Cookie"] + extra
                return self.reply(304, headers)
        if one("events"):
            first = int(self.headers.get("Last-Event-ID") or 0) + 1
            lines = ["retry: %s\n" % one("retry", "1000")]
            for number in range(first, first + int(one("events"))):
                lines.append("id: %d\ndata: event %d\n\n" % (number, number))
            headers.append(("Content-Type", "text/event-stream"))
            headers.append(("Connection", "close"))
            self.close_connection = True
            return self.reply(status, headers, "".join(lines).encode())
        headers.append(("Content-Type", "application/json"))
        return self.reply(status, headers, one("body", '[{"id":1}]').encode())

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = handle_any


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--origins", type=int, default=3)
    parser.add_argument("--exit-with-stdin", action="store_true")
    arguments, _ = parser.parse_known_args()
    # The default listen backlog of 5 resets a burst of connections (a suite's tests start at once).
    ThreadingHTTPServer.request_queue_size = 128
    servers = []
    for index in range(arguments.origins):
        server = ThreadingHTTPServer((arguments.host, arguments.port if index == 0 else 0), Handler)
        server.daemon_threads = True
        servers.append(server)
        ORIGINS.append("http://%s:%d" % (arguments.host, server.server_address[1]))
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print("recording server listening on %s" % ORIGINS[0], flush=True)
    if arguments.exit_with_stdin:
        sys.stdin.read()
    else:
        threading.Event().wait()


if __name__ == "__main__":
    main()
