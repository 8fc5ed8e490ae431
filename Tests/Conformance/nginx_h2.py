#!/usr/bin/env python3
"""An nginx of the tests' own on loopback — HTTPS with HTTP/2 when given a certificate, else plain HTTP/1.1 — answering
/connection.json with the protocol and the connection it came on, so that a test can see multiplexing and reuse:

    {"protocol": "HTTP/2.0", "connection": 3, "request": 2}   (nginx's $connection and $connection_requests)

    nginx_h2.py --port 0 [--tls-cert server.pem --tls-key server.key] [--exit-with-stdin]

Prints "nginx_h2 listening on http(s)://127.0.0.1:<port>", and stops nginx when standard input closes. Needs nginx
(Debian's nginx-light has the HTTP/2 module).
"""
import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import time

CONF = """
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{ worker_connections 256; }}
http {{
  access_log off;
  keepalive_requests 100000;
  server {{
    {listen}
    location = /connection.json {{
      default_type application/json;
      return 200 '{{"protocol": "$server_protocol", "connection": $connection, "request": $connection_requests}}';
    }}
  }}
}}
"""


def free_port(host):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--exit-with-stdin", action="store_true")
    args = parser.parse_args()
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    directory = tempfile.mkdtemp(prefix="restingkit-nginx-")
    port = args.port or free_port(args.host)
    if args.tls_cert:
        listen = (f"listen {args.host}:{port} ssl http2; ssl_certificate {args.tls_cert}; "
                  f"ssl_certificate_key {args.tls_key};")
    else:
        listen = f"listen {args.host}:{port};"
    with open(f"{directory}/nginx.conf", "w") as conf:
        conf.write(CONF.format(dir=directory, listen=listen))
    process = subprocess.Popen([nginx, "-c", f"{directory}/nginx.conf", "-p", directory],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:  # until nginx accepts on both ports, or gives up
            if process.poll() is not None:
                sys.exit(f"nginx exited with {process.returncode}: {open(f'{directory}/error.log').read()}")
            try:
                socket.create_connection((args.host, port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit("nginx did not start listening")
                time.sleep(0.02)
        print(f"nginx_h2 listening on {'https' if args.tls_cert else 'http'}://{args.host}:{port}", flush=True)
        if args.exit_with_stdin:
            while sys.stdin.buffer.read(4096):
                pass
        else:
            process.wait()
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
