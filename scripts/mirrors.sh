#!/usr/bin/env bash
# Points SwiftPM at local copies of the packages RestingKit's traits depend on, for machines that reach no Git host.
#   scripts/mirrors.sh FOLDER [PACKAGE_PATH...]      (`make test MIRRORS=FOLDER` calls it)
# FOLDER is one you name; it holds a copy of each package under the package's name, in any of three forms:
#   swift-log.bundle   a `git bundle` (cloned once into .build/mirrors, then refreshed from the bundle)
#   swift-log.git      a Git repository, bare or not (used where it is)
#   swift-log          the same, without the suffix
# (either may be a link to a repository elsewhere: SwiftPM names the package after the link's name)
# A package missing from FOLDER still resolves from its real URL where the network allows. Every PACKAGE_PATH
# (default: this repository) gets a mirror for both spellings of each package's URL, with and without `.git`, since
# packages name their dependencies either way. The settings land in PACKAGE_PATH/.swiftpm/configuration/mirrors.json,
# which git ignores: Package.swift keeps the real URLs, nothing committed names a folder of this machine, and a
# machine with network access needs none of this.
set -euo pipefail

folder="${1:?usage: scripts/mirrors.sh FOLDER [PACKAGE_PATH...]}"
folder="$(cd "$folder" && pwd)"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -gt 0 ] || set -- "$root"
clones="$root/.build/mirrors"

PACKAGES=(swift-http-types swift-log swift-metrics swift-distributed-tracing swift-service-context swift-openapi-runtime)

# The repository SwiftPM should clone for a package, or nothing when FOLDER has no copy of it.
repository_for() {
    local name=$1
    if [ -f "$folder/$name.bundle" ]; then
        mkdir -p "$clones"
        local clone="$clones/$name.git"
        if [ -d "$clone" ]; then
            git -C "$clone" fetch --quiet --tags "$folder/$name.bundle" '+refs/*:refs/*'
        else
            git clone --quiet --mirror "$folder/$name.bundle" "$clone"
        fi
        echo "$clone"
        return
    fi
    local candidate
    for candidate in "$folder/$name.git" "$folder/$name"; do
        if [ -d "$candidate" ] && git -C "$candidate" rev-parse --git-dir >/dev/null 2>&1; then
            # The path as named, not where a link leads: SwiftPM names a package after its URL's last component.
            (cd "$candidate" && pwd)
            return
        fi
    done
}

mirrored=()
for name in "${PACKAGES[@]}"; do
    repository=$(repository_for "$name")
    [ -n "$repository" ] || continue
    mirrored+=("$name")
    for package in "$@"; do
        for url in "https://github.com/apple/$name.git" "https://github.com/apple/$name"; do
            swift package --package-path "$package" config set-mirror --original "$url" --mirror "$repository"
        done
    done
done
echo "mirrors: ${#mirrored[@]} of ${#PACKAGES[@]} packages from $folder${mirrored[*]:+ (${mirrored[*]})}"
