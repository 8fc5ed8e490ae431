#!/usr/bin/env bash
# HTTP/3 for CurlClient on Debian 12. The default build links the stock libcurl4-openssl-dev, which speaks no HTTP/3,
# and stays so. This script unpacks libcurl's GnuTLS flavour from bookworm-backports — built with ngtcp2 and nghttp3 —
# and the QUIC libraries it needs into a private prefix, beside the stock one: no system package is installed or
# replaced (the backports package would replace libcurl3-gnutls 7.88, which git needs, and its -dev package conflicts
# with libcurl4-openssl-dev). A package built against the prefix loads it by an rpath; in one process with
# FoundationNetworking's libcurl both live side by side, their symbols versioned apart (CURL_GNUTLS_3, CURL_OPENSSL_4).
#
#   scripts/http3.sh prefix    unpack it into .build/http3/prefix (once), with ngtcp2's example HTTP/3 server, the C
#                              peer of `make bench` (Benchmarks/http3.py)
#   scripts/http3.sh flags     the `swift build` flags that link a package against it
#   scripts/http3.sh test      build Tests/HTTP3 against it and run its suite against hypercorn (HTTP/3 over QUIC,
#                              aioquic, from PyPI) on 127.0.0.1, and the transport conformance kit over HTTP/3
#   scripts/http3.sh sanitize thread|address
#                              the suite under ThreadSanitizer or AddressSanitizer: the memory and the threads at
#                              this libcurl's boundary (CurlClient's handles and lists are checked for leaks with the
#                              slow unwinder on the stock libcurl, by `make test-sanitize`); the conformance kit is
#                              left to `test` (its checks run sanitized over TCP)
#
# Where that cannot be done — not Debian 12, or no route to the archive or to PyPI — `test` says so in one line and
# succeeds: `make test` runs everything else, as it does for a trait whose packages cannot be resolved.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
H3="$ROOT/.build/http3"
PREFIX="$H3/prefix"
ARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")
LIB="$PREFIX/usr/lib/$ARCH"

can_build() {
    [ "$(uname -s)" = Linux ] && [ -r /etc/os-release ] && . /etc/os-release && [ "${VERSION_CODENAME:-}" = bookworm ]
}

install_prefix() {
    [ -e "$LIB/libcurl-gnutls.so.4" ] && [ -x "$PREFIX/usr/sbin/gtlsserver" ] && return 0
    local apt="$H3/apt"
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$H3/debs" "$PREFIX"
    # An apt of its own, reading bookworm-backports only: /etc/apt and /var/lib/apt are not touched.
    cat > "$apt/parts/backports.sources" <<EOS
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
    cat > "$apt/apt.conf" <<EOS
Dir::Etc::sourcelist "/dev/null";
Dir::Etc::sourceparts "$apt/parts";
Dir::State::lists "$apt/lists";
Dir::Cache "$apt/cache";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOS
    export APT_CONFIG="$apt/apt.conf"
    apt-get update -qq -o APT::Sandbox::User=root
    cd "$H3/debs"
    rm -f ./*.deb
    apt-get download -qq -o APT::Sandbox::User=root libcurl3-gnutls libcurl4-gnutls-dev
    # The QUIC libraries it was built with are backports too (bookworm's own are older): whatever its Depends name.
    local quic
    quic=$(dpkg-deb -f libcurl3-gnutls_*.deb Depends | tr ',' '\n' | sed 's/^ *//; s/[ (].*//' \
        | grep -E '^lib(ngtcp2|nghttp3)' || true)
    [ -n "$quic" ] || return 1
    quic="$quic ngtcp2-server"
    # shellcheck disable=SC2086
    apt-get download -qq -o APT::Sandbox::User=root $quic
    for package in ./*.deb; do dpkg-deb -x "$package" "$PREFIX"; done
    [ -e "$LIB/libcurl-gnutls.so.4" ]
}

flags() {
    # -lcurl finds the prefix's libcurl.so (a link to libcurl-gnutls.so.4) first; an rpath, not a runpath, so that
    # libcurl's own dependencies (ngtcp2, nghttp3) are found in the prefix too.
    echo "-Xcc -I$PREFIX/usr/include/$ARCH -Xlinker -L$LIB -Xlinker -rpath -Xlinker $LIB -Xlinker --disable-new-dtags"
}

install_peer() {
    python3 -c "import hypercorn, aioquic" 2>/dev/null && return 0
    python3 -m pip install -q "hypercorn[h3]" 2>/dev/null \
        || python3 -m pip install -q --break-system-packages "hypercorn[h3]"
}

# Whether the suite can run here; says why not when it cannot.
ready() {
    if ! can_build; then
        echo "HTTP/3 suite left out: it builds on Debian 12 (bookworm), whose backports have libcurl with HTTP/3."
        return 1
    fi
    if ! (install_prefix >/dev/null && install_peer); then
        echo "HTTP/3 suite left out: bookworm-backports or PyPI could not be reached."
        return 1
    fi
}

# shellcheck disable=SC2046
case "${1:-}" in
prefix) install_prefix ;;
flags) flags ;;
test)
    ready || exit 0
    ${SWIFT:-swift} test --package-path "$ROOT/Tests/HTTP3" --scratch-path "$H3/build" -Xswiftc -warnings-as-errors \
        $(flags)
    ;;
sanitize)
    ready || exit 0
    case "${2:-}" in
    thread) ;;
    address)
        cat "$ROOT/.ci/lsan.supp" "$ROOT/.ci/lsan-libcurl.supp" "$ROOT/.ci/lsan-http3.supp" > "$H3/lsan.supp"
        export LSAN_OPTIONS="suppressions=$H3/lsan.supp"
        ;;
    *)
        echo "usage: scripts/http3.sh sanitize thread|address" >&2
        exit 2
        ;;
    esac
    ${SWIFT:-swift} test --package-path "$ROOT/Tests/HTTP3" --scratch-path "$H3/$2" --sanitize="$2" \
        -Xswiftc -warnings-as-errors $(flags) --skip ConformanceOverHTTP3Tests
    ;;
*)
    echo "usage: scripts/http3.sh prefix|flags|test|sanitize thread|address" >&2
    exit 2
    ;;
esac
