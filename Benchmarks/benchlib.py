"""What the benchmark scripts share: running commands, free ports, and an nginx of their own on loopback."""
import os
import socket
import subprocess
import time
from contextlib import contextmanager


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(command, env=None):
    return subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout.strip()


def build_release(product):
    """Builds `product` of the Benchmarks package in release mode."""
    print("Building (release)…", flush=True)
    subprocess.run(["swift", "build", "-c", "release", "--package-path", "Benchmarks", "--product", product],
                   cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))), check=True,
                   stdout=subprocess.DEVNULL)


def make_certificates(directory):
    """A CA (ca.pem) and a certificate for 127.0.0.1 it signed (server.pem, server.key), in `directory`."""
    run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=RestingKit bench CA",
         "-keyout", f"{directory}/ca.key", "-out", f"{directory}/ca.pem"])
    run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
         "-keyout", f"{directory}/server.key", "-out", f"{directory}/server.csr"])
    with open(f"{directory}/ext.cnf", "w") as ext:
        ext.write("subjectAltName=IP:127.0.0.1\n")
    run(["openssl", "x509", "-req", "-in", f"{directory}/server.csr", "-CA", f"{directory}/ca.pem",
         "-CAkey", f"{directory}/ca.key", "-CAcreateserial", "-days", "2", "-extfile", f"{directory}/ext.cnf",
         "-out", f"{directory}/server.pem"])


@contextmanager
def serving(command):
    """Runs a server that prints its base URL as the last word of its first line and stops when its stdin closes;
    yields that URL."""
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield server.stdout.readline().split()[-1]
    finally:
        server.stdin.close()
        server.wait()


NGINX_MAIN = """{modules}
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{ worker_connections 4096; }}
http {{
  access_log off;
{http}
}}
"""


@contextmanager
def nginx(directory, http, probe_url, modules=()):
    """Runs nginx, with `http` as its http block's contents and the dynamic `modules` (paths) loaded, in `directory`
    until the block ends; waits until `probe_url` answers."""
    with open(f"{directory}/nginx.conf", "w") as file:
        loads = "".join(f"load_module {module};\n" for module in modules)
        file.write(NGINX_MAIN.format(dir=directory, http=http, modules=loads))
    process = subprocess.Popen(["nginx", "-c", f"{directory}/nginx.conf", "-p", directory])
    try:
        for _ in range(100):
            try:
                run(["curl", "-sf", "-o", "/dev/null", probe_url])
                break
            except subprocess.CalledProcessError:
                time.sleep(0.05)
        yield
    finally:
        process.terminate()
        process.wait()


PROBE = "Tests/FootprintProbe/.build/release/FootprintProbe"


def probe(*arguments):
    """Runs the allocation-counting FootprintProbe (built optimised, as `make test` builds it) with `arguments`; its
    figures, by name."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run(["swift", "build", "-c", "release", "--package-path", "Tests/FootprintProbe"], cwd=root, check=True,
                   stdout=subprocess.DEVNULL)
    figures = {}
    for line in run([f"{root}/{PROBE}", *arguments]).splitlines():
        name, _, value = line.partition(" ")
        figures[name] = float(value)
    return figures
