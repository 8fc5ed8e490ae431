#!/usr/bin/env python3
"""Starts a real proxy, one the tests did not write, on a free loopback port, with credentials:

--peer squid-basic    squid, Basic proxy authentication (basic_ncsa_auth, an apr1 password file)
--peer squid-digest   squid, Digest proxy authentication (digest_file_auth)
--peer squid-basic-tls  squid reached over TLS (an HTTPS proxy, --tls-cert and --tls-key), Basic authentication
--peer squid-ntlm     squid, NTLM proxy authentication (ntlm_fake_auth: the handshake is real, any password passes)
--peer squid-negotiate  squid, Negotiate (SPNEGO with Kerberos) in a realm of its own: MIT krb5's KDC on a free
                      loopback port, a user "alice" (password "alice-secret") and the proxy's principal HTTP/localhost
                      (clients name the proxy http://localhost:<port>). It writes --directory's krb5.conf (for clients:
                      KRB5_CONFIG) and alice.ccache (a ticket of alice's: KRB5CCNAME=FILE:…). Needs Debian's krb5-kdc,
                      krb5-admin-server and krb5-user.
--peer pproxy-socks5  pproxy (PyPI), SOCKS5 with a username and password
--peer mitmproxy      mitmproxy (PyPI), Basic proxy authentication (--proxyauth), inspecting TLS: it makes its
                      certificate authority in --confdir (mitmproxy-ca-cert.pem) and trusts --upstream-ca's origins

The user is "proxyuser", the password "proxy-secret" (or --user / --password). Prints its address on the first
line once the proxy accepts connections; with --exit-with-stdin it stops the proxy when standard input closes.
`scripts/install-deps.sh` installs squid and MIT Kerberos (Debian), pproxy and mitmproxy (PyPI).
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

KERBEROS_REALM = "RESTINGKIT.TEST"


def kerberos_realm(folder):
    """Makes a realm in `folder`, starts its KDC and gets alice a ticket: the KDC's process, and the environment squid
    and its helper read the realm and the proxy's key from."""
    kdc_port = free_port()
    realm = KERBEROS_REALM
    with open(os.path.join(folder, "krb5.conf"), "w") as file:
        file.write(f"""[libdefaults]
  default_realm = {realm}
  dns_lookup_kdc = false
  dns_lookup_realm = false
  dns_canonicalize_hostname = false
  rdns = false
  udp_preference_limit = 1
[realms]
  {realm} = {{
    kdc = 127.0.0.1:{kdc_port}
  }}
[domain_realm]
  localhost = {realm}
""")
    with open(os.path.join(folder, "kdc.conf"), "w") as file:
        file.write(f"""[realms]
  {realm} = {{
    database_name = {folder}/principal
    key_stash_file = {folder}/stash
    kdc_listen = 127.0.0.1:{kdc_port}
    kdc_tcp_listen = 127.0.0.1:{kdc_port}
  }}
[logging]
  kdc = FILE:{folder}/kdc.log
""")
    environment = dict(os.environ, KRB5_CONFIG=f"{folder}/krb5.conf", KRB5_KDC_PROFILE=f"{folder}/kdc.conf",
                       KRB5_KTNAME=f"{folder}/proxy.keytab")
    homebrew = [f"{prefix}/opt/krb5/{kind}" for prefix in ["/opt/homebrew", "/usr/local"] for kind in ["sbin", "bin"]]
    tool = lambda name: shutil.which(name, path=os.pathsep.join(homebrew + ["/usr/sbin", "/usr/bin"])) or name

    def run(command, stdin=None):
        result = subprocess.run(command, env=environment, input=stdin, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"proxy_peers: {' '.join(command)} failed: {result.stderr}")

    run([tool("kdb5_util"), "create", "-s", "-r", realm, "-P", "master-secret"])
    for query in ["addprinc -pw alice-secret alice", "addprinc -randkey HTTP/localhost",
                  f"ktadd -k {folder}/proxy.keytab HTTP/localhost"]:
        run([tool("kadmin.local"), "-r", realm, "-q", query])
    kdc = subprocess.Popen([tool("krb5kdc"), "-n", "-r", realm], env=environment, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    wait_until_listening(kdc_port, kdc, "krb5kdc", f"{folder}/kdc.log")
    run([tool("kinit"), "-c", f"FILE:{folder}/alice.ccache", "alice"], stdin="alice-secret\n")
    return kdc, environment


def wait_until_listening(port, process, name, log):
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            detail = open(log).read()[-2000:] if os.path.exists(log) else ""
            sys.exit(f"proxy_peers: {name} exited with {process.returncode}\n{detail}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                sys.exit(f"proxy_peers: {name} did not listen within 30 s")
            time.sleep(0.05)


def helper(name):
    for folder in SQUID_HELPERS:
        path = os.path.join(folder, name)
        if os.access(path, os.X_OK):
            return path
    sys.exit(f"proxy_peers: squid's {name} not found in {SQUID_HELPERS}")


def squid(scheme, port, user, password, folder, tls=None, environment=None):
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
    elif scheme == "negotiate":
        auth = f"auth_param negotiate program {helper('negotiate_kerberos_auth')} -k {folder}/proxy.keytab " \
               f"-s HTTP/localhost@{KERBEROS_REALM}\nauth_param negotiate children 2\n"
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
    return subprocess.Popen([squid_binary, "-N", "-f", config], env=environment, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


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
    parser.add_argument("--peer", choices=["squid-basic", "squid-basic-tls", "squid-digest", "squid-ntlm", "squid-negotiate", "pproxy-socks5", "mitmproxy"], required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user", default="proxyuser")
    parser.add_argument("--password", default="proxy-secret")
    parser.add_argument("--tls-cert", help="squid-basic-tls: the proxy's certificate (PEM)")
    parser.add_argument("--tls-key", help="squid-basic-tls: its private key (PEM)")
    parser.add_argument("--directory", help="squid-negotiate: where the realm's files for clients go")
    parser.add_argument("--confdir", help="mitmproxy: where it keeps its certificate authority")
    parser.add_argument("--upstream-ca", help="mitmproxy: the authority of the origins it connects to")
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    port = args.port or free_port()
    folder = tempfile.mkdtemp(prefix="restingkit-proxy-")
    processes = []
    try:
        if args.peer == "pproxy-socks5":
            processes.append(pproxy(port, args.user, args.password))
        elif args.peer == "mitmproxy":
            processes.append(mitmproxy(port, args.user, args.password, args.confdir or folder, args.upstream_ca))
        else:
            tls = (args.tls_cert, args.tls_key) if args.peer == "squid-basic-tls" else None
            environment = None
            if args.peer == "squid-negotiate":
                folder = os.path.abspath(args.directory or folder)
                os.makedirs(folder, exist_ok=True)
                kdc, environment = kerberos_realm(folder)
                processes.append(kdc)
            processes.append(squid(args.peer.split("-")[1], port, args.user, args.password, folder, tls, environment))
        wait_until_listening(port, processes[-1], args.peer, os.path.join(folder, "cache.log"))
        print(f"{args.peer} listening on http://127.0.0.1:{port}", flush=True)
        if args.exit_with_stdin:
            while sys.stdin.buffer.read(4096):
                pass
        else:
            processes[-1].wait()
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        if args.peer != "squid-negotiate" or not args.directory:
            shutil.rmtree(folder, ignore_errors=True)

if __name__ == "__main__":
    main()
