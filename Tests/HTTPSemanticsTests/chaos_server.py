#!/usr/bin/env python3
"""A server that misbehaves on purpose, on loopback, for the resilience tests and `make bench`.

Each route is configured by the test that uses it (a route name per test keeps tests apart):

    PUT  /config/<route>   JSON, every key optional:
        latency       [[share, seconds], ...]  e.g. [[0.99, 0.002], [0.01, 0.2]]; drawn in blocks of 1000 requests
                      that hold each share exactly (shuffled with `seed`), so that a run's percentiles are the
                      distribution's
        delays        [seconds, ...]: the n-th request's delay, the last repeating (in place of `latency`)
        error_rate    share of responses that are `error_status` (default 503), drawn the same way
        retry_after   a `Retry-After` value sent with every error and every 429
        rate_limit    {"requests": n, "window": seconds}: past n requests in a window, 429; every response carries
                      the IETF draft's RateLimit and RateLimit-Policy fields
        capacity      {"requests": n, "per_excess": seconds}: each request in flight past n adds that much latency
        gather        {"after": k, "count": n, "timeout": seconds}: requests k+1 to k+n wait for one another (at most
                      `timeout` seconds) before their latency is drawn, so that they are in flight together however
                      the client's tasks were scheduled — the capacity they exceed is then the client's doing alone
        outage        true: every request is answered 503 until a new configuration says otherwise (the outage
                      window is the test's to open and close, so that no test depends on timing)
    GET|POST /r/<route>    served as configured: `{"route": …, "n": …}` (n counts the route's requests from 1)
    GET  /stats/<route>    {"requests", "disconnects", "in_flight", "max_in_flight"}; `?disconnects=k` first waits
                           (at most 30 s) until k clients have left while their request was being delayed

A delayed request watches its socket: a client that closes it (a hedge's loser, a cancelled call) is counted as a
disconnect and gets no answer. Started by LocalServer (`--host`, `--port`, `--exit-with-stdin`).
"""
import argparse
import json
import math
import random
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOCK = threading.Condition()
ROUTES = {}


class Route:
    def __init__(self, config):
        self.config = config
        self.random = random.Random(config.get("seed", 1))
        self.latencies = []
        self.errors = []
        self.requests = 0
        self.disconnects = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.window = (0.0, 0)  # (start, requests in it)

    def draw(self, pool, choices):
        """The next value of a block of 1000 holding each (share, value) exactly."""
        if not pool:
            for share, value in choices:
                pool.extend([value] * round(share * 1000))
            pool.extend([choices[-1][1]] * (1000 - len(pool)))
            self.random.shuffle(pool)
        return pool.pop()


def route(name):
    with LOCK:
        return ROUTES.setdefault(name, Route({}))


def gather(state, config, number):
    """Holds request `number`, if it is one of the gathered, until the last of them has arrived. LOCK is held."""
    last = config["after"] + config["count"]
    if not config["after"] < number <= last:
        return
    deadline = time.monotonic() + config.get("timeout", 10)
    while state.requests < last and time.monotonic() < deadline:
        LOCK.wait(deadline - time.monotonic())


def wait_or_disconnect(connection, seconds):
    """Sleeps `seconds`, unless the client closes the connection first: then False."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return True
        readable, _, _ = select.select([connection], [], [], left)
        if readable:
            try:
                if connection.recv(1, socket.MSG_PEEK) == b"":
                    return False
            except OSError:
                return False
            # The client sent more (a pipelined request): only a close ends the wait.
            time.sleep(min(left, 0.001))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The head and the body go in two writes: without this, Nagle holds the body for the client's delayed ACK, and
    # every answer takes 40 ms more than configured.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send_json(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_PUT(self):
        parts = urlsplit(self.path)
        body = self.read_body()
        if not parts.path.startswith("/config/"):
            return self.send_json(404, {"error": "no such route"})
        name = parts.path[len("/config/"):]
        with LOCK:
            old = ROUTES.get(name)
            new = Route(json.loads(body or b"{}"))
            if old:  # a new configuration keeps the counts
                new.requests, new.disconnects, new.in_flight = old.requests, old.disconnects, old.in_flight
                new.max_in_flight = old.max_in_flight
            ROUTES[name] = new
        self.send_json(200, {"configured": name})

    def do_GET(self):
        self.serve()

    def do_POST(self):
        self.serve()

    def serve(self):
        parts = urlsplit(self.path)
        self.read_body()
        if parts.path.startswith("/stats/"):
            return self.stats(parts.path[len("/stats/"):], parse_qs(parts.query))
        if not parts.path.startswith("/r/"):
            return self.send_json(404, {"error": "no such route"})
        name = parts.path[len("/r/"):]
        with LOCK:
            state = ROUTES.setdefault(name, Route({}))
            config = state.config
            state.requests += 1
            number = state.requests
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
            LOCK.notify_all()
            if "gather" in config:
                gather(state, config["gather"], number)
            excess = state.in_flight - config["capacity"]["requests"] if "capacity" in config else 0
            if "delays" in config:
                delay = config["delays"][min(number, len(config["delays"])) - 1]
            else:
                delay = state.draw(state.latencies, config["latency"]) if "latency" in config else 0.0
            failing = config.get("outage") or ("error_rate" in config and state.draw(
                state.errors, [(config["error_rate"], True), (1 - config["error_rate"], False)]))
            limited, limit_headers = self.rate_limit(state, config)
        try:
            if excess > 0:
                delay += excess * config["capacity"]["per_excess"]
            if delay and not wait_or_disconnect(self.connection, delay):
                with LOCK:
                    state.disconnects += 1
                    LOCK.notify_all()
                self.close_connection = True
                return
            retry = [("Retry-After", str(config["retry_after"]))] if "retry_after" in config else []
            if limited:
                return self.send_json(429, {"route": name, "n": number}, limit_headers + retry)
            if failing:
                return self.send_json(config.get("error_status", 503), {"route": name, "n": number},
                                      limit_headers + retry)
            self.send_json(200, {"route": name, "n": number}, limit_headers)
        finally:
            with LOCK:
                state.in_flight -= 1

    @staticmethod
    def rate_limit(state, config):
        if "rate_limit" not in config:
            return False, []
        limit, window = config["rate_limit"]["requests"], config["rate_limit"]["window"]
        now = time.monotonic()
        start, used = state.window
        if now - start >= window:
            start, used = now, 0
        used += 1
        state.window = (start, used)
        reset = math.ceil(window - (now - start))
        headers = [("RateLimit-Policy", f'"default";q={limit};w={window}'),
                   ("RateLimit", f'"default";r={max(0, limit - used)};t={reset}')]
        return used > limit, headers

    def stats(self, name, query):
        wanted = int(query.get("disconnects", ["0"])[0])
        deadline = time.monotonic() + 30
        with LOCK:
            state = ROUTES.setdefault(name, Route({}))
            while state.disconnects < wanted and time.monotonic() < deadline:
                LOCK.wait(deadline - time.monotonic())
            body = {"requests": state.requests, "disconnects": state.disconnects, "in_flight": state.in_flight,
                    "max_in_flight": state.max_in_flight}
        self.send_json(200, body)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # a burst of calls waits to be accepted instead of being refused

    def handle_error(self, request, client_address):
        # A client leaving mid-answer (a hedge's loser, a cancelled call) is what this server is for.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true")
    arguments = parser.parse_args()
    server = Server((arguments.host, arguments.port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"chaos server listening on http://{arguments.host}:{server.server_address[1]}", flush=True)
    if arguments.exit_with_stdin:
        sys.stdin.read()
    else:
        threading.Event().wait()


if __name__ == "__main__":
    main()
