#!/usr/bin/env bash
# Which of the integration traits can be built on this machine, and the SwiftPM flags that build them.
#   scripts/traits.sh resolve   resolves each trait's packages and records in .build/traits/available the traits
#                               whose packages resolved, and in .build/traits/missing the others with the reason
#   scripts/traits.sh flags     the flags for `swift build` / `swift test`: a scratch folder of its own and
#                               `--traits` with the traits that resolved (none: no flag at all — the core, the
#                               transports and the rest build in SwiftPM's own folder, beside `swift build`'s)
#   scripts/traits.sh notice    one line saying which traits were not built and why (nothing when all were)
# Packages resolve from their real URLs, from a SwiftPM mirror the person running this configured (`swift package
# config set-mirror`, or `make MIRRORS=folder`: scripts/mirrors.sh), or not at all — a machine that reaches no Git
# host. Everything that needs no outside package builds and tests either way; a trait is all or nothing.
#   SCRATCH=.build/tsan scripts/traits.sh flags   the same traits, built in another folder (the sanitizer stages)
set -euo pipefail
cd "$(dirname "$0")/.."

ALL=(HTTPTypes Logging Metrics Tracing OpenAPI)
state=.build/traits
scratch=${SCRATCH:-$state}

# What each trait needs from outside, for the notice.
packages_of() {
    case "$1" in
    HTTPTypes) echo swift-http-types ;;
    Logging) echo swift-log ;;
    Metrics) echo swift-metrics ;;
    Tracing) echo "swift-distributed-tracing, swift-service-context" ;;
    OpenAPI) echo "swift-openapi-runtime, swift-http-types" ;;
    esac
}

joined() { local IFS=,; echo "$*"; }

# One resolution, bounded: a Git host that never answers must not hold the build for long.
resolves() {
    local limit=()
    command -v timeout >/dev/null 2>&1 && limit=(timeout "${TRAITS_RESOLVE_SECONDS:-300}")
    ${limit[@]+"${limit[@]}"} swift package --scratch-path "$state" --traits "$1" resolve \
        >"$state/resolve-$1.log" 2>&1
}

# Whether the packages' Git host answers at all, asked once with a short limit. A host that never answers (no route,
# a firewall that drops) would otherwise hold every resolution below for its whole limit. A machine with a mirror
# configured skips the question: its copies are local.
host_answers() {
    [ ! -f .swiftpm/configuration/mirrors.json ] || return 0
    command -v git >/dev/null 2>&1 || return 0
    local limit=()
    command -v timeout >/dev/null 2>&1 && limit=(timeout "${TRAITS_PROBE_SECONDS:-20}")
    GIT_TERMINAL_PROMPT=0 ${limit[@]+"${limit[@]}"} git ls-remote --heads https://github.com/apple/swift-log.git \
        >"$state/probe.log" 2>&1
}

resolve() {
    mkdir -p "$state"
    : >"$state/available"
    : >"$state/missing"
    if ! host_answers; then
        local said
        said=$(head -n 1 "$state/probe.log")
        echo "error: git ls-remote github.com, ${TRAITS_PROBE_SECONDS:-20} s limit: ${said:-no answer}" \
            >"$state/resolve-probe.log"
        printf '%s\n' "${ALL[@]}" >"$state/missing"
        return
    fi
    # The usual cases take one resolution: everything resolves (network or mirror) or nothing does.
    if resolves "$(joined "${ALL[@]}")"; then
        joined "${ALL[@]}" >"$state/available"
        return
    fi
    local available=() trait
    for trait in "${ALL[@]}"; do
        if resolves "$trait"; then
            available+=("$trait")
        else
            echo "$trait" >>"$state/missing"
        fi
    done
    if [ ${#available[@]} -gt 0 ]; then
        # Package.resolved pins what the last resolution needed: pin every available trait's packages together.
        resolves "$(joined "${available[@]}")"
        joined "${available[@]}" >"$state/available"
    fi
}

flags() {
    local available=""
    [ -f "$state/available" ] && available=$(cat "$state/available")
    # With no trait, the tests build where `swift build` has just built the same modules with the same settings:
    # a scratch folder of their own would compile every module a second time.
    if [ -n "$available" ] || [ -n "${SCRATCH:-}" ]; then
        printf -- '--scratch-path %s' "$scratch"
    fi
    [ -z "$available" ] || printf -- ' --traits %s' "$available"
    echo
}

notice() {
    [ -s "$state/missing" ] || [ ! -f "$state/available" ] || return 0
    local trait why=""
    # (No mapfile: macOS's bash is 3.2.)
    for trait in $(cat "$state/missing" 2>/dev/null || echo "${ALL[@]}"); do
        why+="${why:+; }$trait ($(packages_of "$trait"))"
    done
    # What SwiftPM said, for a mirror that is there but does not serve (a wrong folder, an old copy).
    local said
    said=$(grep -h -m1 '^error:' "$state"/resolve-*.log 2>/dev/null | head -n 1)
    [ ${#said} -le 160 ] || said="${said:0:160}…"
    echo "traits: not built: $why — their packages could not be resolved here (no route to their Git host and no" \
        "SwiftPM mirror; \`make test MIRRORS=folder\` names local copies)${said:+ — ${said#error: }};" \
        "every other module was built and tested."
}

case "${1:-}" in
resolve)
    resolve
    available=$(cat "$state/available")
    echo "traits: built here: ${available:-none}"
    ;;
flags) flags ;;
notice) notice ;;
*)
    echo "usage: scripts/traits.sh resolve|flags|notice" >&2
    exit 2
    ;;
esac
