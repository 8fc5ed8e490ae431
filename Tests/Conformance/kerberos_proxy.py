#!/usr/bin/env python3
"""squid asking for Negotiate (SPNEGO with Kerberos), with a Kerberos realm of its own: MIT krb5's KDC on a free
loopback port, a user "alice" (password "alice-secret") and the proxy's service principal HTTP/localhost, its key in a
keytab that squid's negotiate_kerberos_auth reads.

    kerberos_proxy.py --directory DIR [--port P] [--exit-with-stdin]

Writes DIR/krb5.conf (the realm, for clients: KRB5_CONFIG) and DIR/alice.ccache (a ticket of alice's, obtained with
kinit: KRB5CCNAME=FILE:DIR/alice.ccache). Prints "kerberos_proxy listening on http://127.0.0.1:<port>" once squid
accepts connections; clients name it http://localhost:<port> (the principal's host). With --exit-with-stdin it stops
squid and the KDC when standard input closes. Needs Debian's krb5-kdc, krb5-admin-server, krb5-user and squid.
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import time

REALM = "RESTINGKIT.TEST"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port, process, name, log):
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            detail = open(log).read()[-2000:] if os.path.exists(log) else ""
            sys.exit(f"kerberos_proxy: {name} exited with {process.returncode}\n{detail}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                sys.exit(f"kerberos_proxy: {name} did not listen within 30 s")
            time.sleep(0.05)


def run(command, environment, stdin=None):
    result = subprocess.run(command, env=environment, input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"kerberos_proxy: {' '.join(command)} failed: {result.stderr}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--directory", required=True)
    parser.add_argument("--host", default="127.0.0.1", help="squid listens on 127.0.0.1 whatever it is")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    folder = os.path.abspath(args.directory)
    os.makedirs(folder, exist_ok=True)
    kdc_port, proxy_port = free_port(), args.port or free_port()
    with open(os.path.join(folder, "krb5.conf"), "w") as file:
        file.write(f"""[libdefaults]
  default_realm = {REALM}
  dns_lookup_kdc = false
  dns_lookup_realm = false
  dns_canonicalize_hostname = false
  rdns = false
  udp_preference_limit = 1
[realms]
  {REALM} = {{
    kdc = 127.0.0.1:{kdc_port}
  }}
[domain_realm]
  localhost = {REALM}
""")
    with open(os.path.join(folder, "kdc.conf"), "w") as file:
        file.write(f"""[realms]
  {REALM} = {{
    database_name = {folder}/principal
    key_stash_file = {folder}/stash
    acl_file = {folder}/kadm5.acl
    kdc_listen = 127.0.0.1:{kdc_port}
    kdc_tcp_listen = 127.0.0.1:{kdc_port}
  }}
[logging]
  kdc = FILE:{folder}/kdc.log
""")
    environment = dict(os.environ, KRB5_CONFIG=f"{folder}/krb5.conf", KRB5_KDC_PROFILE=f"{folder}/kdc.conf",
                       KRB5_KTNAME=f"{folder}/proxy.keytab")
    homebrew = [f"{prefix}/opt/krb5/{folder}" for prefix in ["/opt/homebrew", "/usr/local"] for folder in ["sbin", "bin"]]
    sbin = lambda name: shutil.which(name, path=os.pathsep.join(homebrew + ["/usr/sbin", "/usr/bin"])) or name
    run([sbin("kdb5_util"), "create", "-s", "-r", REALM, "-P", "master-secret"], environment)
    for query in ["addprinc -pw alice-secret alice", "addprinc -randkey HTTP/localhost",
                  f"ktadd -k {folder}/proxy.keytab HTTP/localhost"]:
        run([sbin("kadmin.local"), "-r", REALM, "-q", query], environment)
    kdc = subprocess.Popen([sbin("krb5kdc"), "-n", "-r", REALM], env=environment, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    processes = [kdc]
    try:
        wait_for(kdc_port, kdc, "krb5kdc", f"{folder}/kdc.log")
        run([sbin("kinit"), "-c", f"FILE:{folder}/alice.ccache", "alice"], environment,
            stdin="alice-secret\n")
        helper = next((path for path in ["/usr/lib/squid/negotiate_kerberos_auth",
                                         "/usr/lib64/squid/negotiate_kerberos_auth"] if os.access(path, os.X_OK)), None)
        if helper is None:
            sys.exit("kerberos_proxy: squid's negotiate_kerberos_auth not found")
        with open(os.path.join(folder, "squid.conf"), "w") as file:
            file.write(f"""http_port 127.0.0.1:{proxy_port}
pid_filename {folder}/squid.pid
cache_log {folder}/cache.log
access_log none
cache deny all
coredump_dir {folder}
shutdown_lifetime 0 seconds
auth_param negotiate program {helper} -k {folder}/proxy.keytab -s HTTP/localhost@{REALM}
auth_param negotiate children 2
acl authenticated proxy_auth REQUIRED
http_access allow authenticated
http_access deny all
""")
        # As root, squid drops to its own user, which must read the folder, the keytab and the realm.
        os.chmod(folder, 0o777)
        for name in os.listdir(folder):
            os.chmod(os.path.join(folder, name), 0o666)
        squid = subprocess.Popen([shutil.which("squid") or "/usr/sbin/squid", "-N", "-f", f"{folder}/squid.conf"],
                                 env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(squid)
        wait_for(proxy_port, squid, "squid", f"{folder}/cache.log")
        print(f"kerberos_proxy listening on http://127.0.0.1:{proxy_port}", flush=True)
        if args.exit_with_stdin:
            while sys.stdin.buffer.read(4096):
                pass
        else:
            squid.wait()
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    main()
