#!/usr/bin/env bash
# Installs the system packages RestingKit needs, and only those that are missing.
#   scripts/install-deps.sh            what `make demo` and `make test` need (nginx for the HTTP/2 tests)
#   scripts/install-deps.sh bench      plus what `make bench` needs
# Debian/Ubuntu: apt-get (as root, or through sudo). macOS: Homebrew.
# The Swift toolchain itself is not in Debian's archive: it must be on PATH already (swift.org toolchains).
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
    echo "error: the Swift 6 toolchain is not on PATH; install it from swift.org and retry." >&2
    exit 1
fi

# PyPI peers of the tests: pproxy and mitmproxy, proxies the proxy-authentication tests go through; websockets and
# aiohttp, the WebSocket servers the WebSocket tests talk to. A Python whose packages the system manages (PEP 668) takes them
# with --break-system-packages: they are test peers, in no import path of the project.
install_python_peers() {
    local peers=(pproxy mitmproxy websockets aiohttp)
    python3 -c "import pproxy, mitmproxy, websockets, aiohttp" 2>/dev/null && return
    echo "Installing ${peers[*]} with pip"
    python3 -m pip install -q "${peers[@]}" 2>/dev/null \
        || python3 -m pip install -q --break-system-packages "${peers[@]}"
}

case "$(uname -s)" in
Linux)
    # squid: a real proxy the proxy-authentication tests go through (Basic, Digest, NTLM, and Negotiate with MIT
    # Kerberos's KDC, admin tools and kinit, for the realm of the tests' own).
    # zlib1g-dev: the header of the zlib libcurl links, for WebSocket's permessage-deflate.
    packages=(python3 python3-pip libcurl4-openssl-dev zlib1g-dev openssl curl squid krb5-kdc krb5-admin-server krb5-user)
    # libssl-dev: the SHA-1 of the C WebSocket server the WebSocket benchmark runs against. libev4: the event loop of
    # ngtcp2's example server, the HTTP/3 peer of the benchmark (unpacked by scripts/http3.sh beside its libcurl).
    [ "${1:-}" = "bench" ] && packages+=(time libssl-dev libev4)
    missing=()
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    # Any flavour of nginx will do (the HTTP/2 tests and the benchmark need one with the HTTP/2 module).
    command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
    if [ ${#missing[@]} -gt 0 ]; then
        if ! command -v apt-get >/dev/null 2>&1; then
            echo "error: missing ${missing[*]} and no apt-get to install them with." >&2
            exit 1
        fi
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        echo "Installing ${missing[*]} with apt-get"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    install_python_peers
    ;;
Darwin)
    # Homebrew's curl (keg-only) is found through pkg-config; Python 3 ships with the developer tools.
    packages=(curl pkg-config nginx)
    for package in "${packages[@]}"; do
        brew list "$package" >/dev/null 2>&1 || brew install "$package"
    done
    brew list squid >/dev/null 2>&1 || brew install squid
    brew list krb5 >/dev/null 2>&1 || brew install krb5
    install_python_peers
    ;;
esac
