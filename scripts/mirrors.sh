#!/usr/bin/env bash
# Points SwiftPM at local copies of the packages RestingKit's traits depend on, for machines that reach no Git host.
#   scripts/mirrors.sh BUNDLES [PACKAGE_PATH...]
# BUNDLES holds `git bundle`s named after the packages (swift-log.bundle, …; the build machines have them in
# ../shared/mirrors). Each is cloned once into .build/mirrors, and every PACKAGE_PATH (default: this repository)
# gets a mirror for both spellings of the package's URL, with and without `.git`, since packages name their
# dependencies either way. The settings land in PACKAGE_PATH/.swiftpm/configuration/mirrors.json, which git ignores:
# Package.swift keeps the real URLs, and a machine with network access needs none of this.
set -euo pipefail

bundles="${1:?usage: scripts/mirrors.sh BUNDLES [PACKAGE_PATH...]}"
bundles="$(cd "$bundles" && pwd)"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -gt 0 ] || set -- "$root"
clones="$root/.build/mirrors"
mkdir -p "$clones"

for bundle in "$bundles"/*.bundle; do
    name="$(basename "$bundle" .bundle)"
    clone="$clones/$name.git"
    if [ -d "$clone" ]; then
        git -C "$clone" fetch --quiet --tags "$bundle" '+refs/*:refs/*'
    else
        git clone --quiet --mirror "$bundle" "$clone"
    fi
    for package in "$@"; do
        for url in "https://github.com/apple/$name.git" "https://github.com/apple/$name"; do
            swift package --package-path "$package" config set-mirror --original "$url" --mirror "$clone"
        done
    done
done
