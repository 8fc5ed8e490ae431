#!/usr/bin/env python3
"""Starts a real proxy, one the tests did not write, on a free loopback port, with credentials:

--peer squid-basic    squid, Basic proxy authentication (basic_ncsa_auth, an apr1 password file)
--peer squid-digest   squid, Digest proxy authentication (digest_file_auth)
--peer squid-basic-tls  squid reached over TLS (an HTTPS proxy, --tls-cert and --tls-key), Basic authentication
--peer squid-ntlm     squid, NTLM proxy authentication (ntlm_fake_auth: the handshake is real, any password passes)
--peer pproxy-socks5  pproxy (PyPI), SOCKS5 with a username and password
--peer mitmproxy      mitmproxy (PyPI), Basic proxy authentication (--proxyauth), inspecting TLS: it makes its
                      certificate authority in --confdir (mitmproxy-ca-cert.pem) and trusts --upstream-ca's origins

The user is "proxyuser", the password "proxy-secret" (or --user / --password). Prints its address on the first
line once the proxy accepts connections; with --exit-with-stdin it stops the proxy when standard input closes.
`scripts/install-deps.sh` installs squid (Debian) and pproxy (PyPI).
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

SQUID_HELPERS = ["/usr/lib/squid", "/usr/lib64/squid", "/opt/homebrew/opt/squid/libexec", "/usr/local/opt/squid/libexec"]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def helper(name):
    for folder in SQUID_HELPERS:
        path = os.path.join(folder, name)
        if os.access(path, os.X_OK):
            return path
    sys.exit(f"proxy_peers: squid's {name} not found in {SQUID_HELPERS}")


def squid(scheme, port, user, password, folder, tls=None):
    squid_binary = shutil.which("squid") or "/usr/sbin/squid"
    listener = f"http_port 127.0.0.1:{port}"
    if tls:
        # Copied into the folder, which squid (dropping to its own user) can read.
        for source, name in zip(tls, ["cert.pem", "key.pem"]):
            shutil.copyfile(source, os.path.join(folder, name))
        listener = f"https_port 127.0.0.1:{port} tls-cert={folder}/cert.pem tls-key={folder}/key.pem"
    if scheme == "basic":
        hashed = subprocess.run(["openssl", "passwd", "-apr1", password], check=True, capture_output=True,
                                text=True).stdout.strip()
        with open(os.path.join(folder, "passwords"), "w") as file:
            file.write(f"{user}:{hashed}\n")
        auth = f"auth_param basic program {helper('basic_ncsa_auth')} {folder}/passwords\n" \
               "auth_param basic realm restingkit\n"
    elif scheme == "ntlm":
        auth = f"auth_param ntlm program {helper('ntlm_fake_auth')}\n"
    else:
        with open(os.path.join(folder, "passwords"), "w") as file:
            file.write(f"{user}:{password}\n")
        auth = f"auth_param digest program {helper('digest_file_auth')} {folder}/passwords\n" \
               "auth_param digest realm restingkit\n"
    config = os.path.join(folder, "squid.conf")
    with open(config, "w") as file:
        file.write(f"""{listener}
pid_filename {folder}/squid.pid
cache_log {folder}/cache.log
access_log none
cache deny all
coredump_dir {folder}
shutdown_lifetime 0 seconds
{auth}acl authenticated proxy_auth REQUIRED
acl loopback dst 127.0.0.0/8
http_access deny !loopback
http_access allow authenticated
http_access deny all
""")
    # As root, squid drops to its own user, which must read the folder.
    os.chmod(folder, 0o777)
    for name in os.listdir(folder):
        os.chmod(os.path.join(folder, name), 0o666)
    return subprocess.Popen([squid_binary, "-N", "-f", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pproxy(port, user, password):
    binary = shutil.which("pproxy")
    command = [binary] if binary else [sys.executable, "-m", "pproxy"]
    # --auth 0: every connection authenticates (pproxy otherwise trusts an address that once did, for 30 days).
    return subprocess.Popen(command + ["-l", f"socks5://127.0.0.1:{port}#{user}:{password}", "--auth", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def mitmproxy(port, user, password, confdir, upstream_ca):
    binary = shutil.which("mitmdump")
    command = [binary] if binary else [sys.executable, "-m", "mitmproxy.tools.main", "mitmdump"]
    options = ["--listen-host", "127.0.0.1", "--listen-port", str(port), "--proxyauth", f"{user}:{password}",
               "--set", f"confdir={confdir}", "--quiet"]
    if upstream_ca:
        options += ["--set", f"ssl_verify_upstream_trusted_ca={upstream_ca}"]
    return subprocess.Popen(command + options, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer", choices=["squid-basic", "squid-basic-tls", "squid-digest", "squid-ntlm", "pproxy-socks5", "mitmproxy"], required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user", default="proxyuser")
    parser.add_argument("--password", default="proxy-secret")
    parser.add_argument("--tls-cert", help="squid-basic-tls: the proxy's certificate (PEM)")
    parser.add_argument("--tls-key", help="squid-basic-tls: its private key (PEM)")
    parser.add_argument("--confdir", help="mitmproxy: where it keeps its certificate authority")
    parser.add_argument("--upstream-ca", help="mitmproxy: the authority of the origins it connects to")
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    port = args.port or free_port()
    folder = tempfile.mkdtemp(prefix="restingkit-proxy-")
    if args.peer == "pproxy-socks5":
        process = pproxy(port, args.user, args.password)
    elif args.peer == "mitmproxy":
        process = mitmproxy(port, args.user, args.password, args.confdir or folder, args.upstream_ca)
    else:
        tls = (args.tls_cert, args.tls_key) if args.peer == "squid-basic-tls" else None
        process = squid(args.peer.split("-")[1], port, args.user, args.password, folder, tls)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            log = os.path.join(folder, "cache.log")
            detail = open(log).read()[-2000:] if os.path.exists(log) else ""
            sys.exit(f"proxy_peers: {args.peer} exited with {process.returncode}\n{detail}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                sys.exit(f"proxy_peers: {args.peer} did not listen within 30 s")
            time.sleep(0.05)
    print(f"{args.peer} listening on http://127.0.0.1:{port}", flush=True)
    try:
        if args.exit_with_stdin:
            while sys.stdin.buffer.read(4096):
                pass
        else:
            process.wait()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
