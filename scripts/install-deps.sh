#!/usr/bin/env bash
# Installs the system packages RestingKit's demo and tests need, and only those that are missing.
#   Debian/Ubuntu: apt-get (as root, or through sudo).   macOS: Homebrew.
# The Swift toolchain itself is not in Debian's archive: it must be on PATH already (swift.org toolchains).
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
    echo "error: the Swift 6 toolchain is not on PATH; install it from swift.org and retry." >&2
    exit 1
fi

case "$(uname -s)" in
Linux)
    # Debian package → a command or file that proves it is installed.
    declare -A wanted=([python3]="python3")
    missing=()
    for package in "${!wanted[@]}"; do
        command -v "${wanted[$package]}" >/dev/null 2>&1 || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        if ! command -v apt-get >/dev/null 2>&1; then
            echo "error: missing ${missing[*]} and no apt-get to install them with." >&2
            exit 1
        fi
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        echo "Installing ${missing[*]} with apt-get"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
    fi
    ;;
Darwin)
    if ! command -v python3 >/dev/null 2>&1; then
        command -v brew >/dev/null 2>&1 || { echo "error: python3 is missing; install it (brew install python)." >&2; exit 1; }
        brew install python
    fi
    ;;
esac
