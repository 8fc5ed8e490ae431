#!/usr/bin/env bash
# The public API, recorded so that a change to it shows in review.
#   scripts/api.sh check    the API of every product module is the recorded one (run by `make test`); a change
#                           fails, with swift-api-digester's list of what breaks existing callers
#   scripts/api.sh record   records the API as it is now (`make api`): commit api/ with the change that made it
# api/<Module>.txt is the readable record (one declaration per line); api/linux/<Module>.json is
# swift-api-digester's baseline. Baselines are per platform and recorded on Linux: elsewhere the check reads
# only the readable record.
set -euo pipefail
cd "$(dirname "$0")/.."

MODULES=(RestingMultipart RestingCore RestingStreaming RestingWebSocketCore RestingWebSocket RestingResilience RestingCache RestingCookies RestingOffline RestingPagination RestingJSONRPC RestingAuthentication RestingLogging RestingConnections RestingTransportKit RestingURLSession RestingCurl RestingTesting RestingTransportConformance RestingKit
    RestingHTTPTypes RestingMetrics RestingTracing RestingOpenAPI)
mode=${1:-check}
work=.build/api
rm -rf "$work" && mkdir -p "$work"
triple=$(swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
# The build with every trait that resolves here on (scripts/traits.sh), so that the integrations' modules are not
# empty. An integration whose trait is off here compiles to nothing: it is neither checked nor recorded.
bin=$(swift build $(scripts/traits.sh flags) --show-bin-path)
available=",$(cat .build/traits/available 2>/dev/null || true),"
built() {
    case "$1" in
    RestingHTTPTypes | RestingMetrics | RestingTracing | RestingOpenAPI)
        [[ "$available" == *",${1#Resting},"* ]] ;;
    *) return 0 ;;
    esac
}
# The names a capability module has only with an integration's trait on (RestingLogging's swift-log interceptor):
# where the trait does not resolve, they are neither checked nor dropped from the record.
trait_only() {
    case "$1" in
    RestingLogging) [[ "$available" == *",Logging,"* ]] || echo SwiftLogInterceptor ;;
    esac
}
modules_dir=$bin/Modules
[ -d "$modules_dir" ] || modules_dir=$bin
linux=false
[ "$(uname -s)" = Linux ] && linux=true

failed=0 checked=0
for module in "${MODULES[@]}"; do
    built "$module" || continue
    checked=$((checked + 1))
    mkdir -p "$work/$module"
    swift-symbolgraph-extract -module-name "$module" -target "$triple" -I "$modules_dir" \
        -Xcc -fmodule-map-file=Sources/CCurl/include/module.modulemap -Xcc -fmodule-map-file=Sources/CZlib/include/module.modulemap \
        -minimum-access-level public -output-dir "$work/$module" >/dev/null
    python3 scripts/api_listing.py "$work/$module" >"$work/$module.txt"
    absent=$(trait_only "$module")
    if [ -n "$absent" ]; then
        grep -E "^$absent[. ]" "api/$module.txt" >>"$work/$module.txt" || true
        LC_ALL=C sort -o "$work/$module.txt" "$work/$module.txt"
    fi
    if [ "$mode" = record ] && $linux; then
        swift-api-digester -dump-sdk -module "$module" -target "$triple" -I "$modules_dir" \
            -Xcc -fmodule-map-file=Sources/CCurl/include/module.modulemap -Xcc -fmodule-map-file=Sources/CZlib/include/module.modulemap \
            -avoid-location -avoid-tool-args -o "$work/$module.json" 2>/dev/null
    fi
    if [ "$mode" = record ]; then
        mkdir -p api/linux
        cp "$work/$module.txt" "api/$module.txt"
        if $linux; then cp "$work/$module.json" "api/linux/$module.json"; fi
        continue
    fi
    if ! diff -u "api/$module.txt" "$work/$module.txt" >"$work/$module.diff"; then
        echo "api: the public API of $module changed (record it with \`make api\` and commit api/):" >&2
        cat "$work/$module.diff" >&2
        if $linux; then
            swift-api-digester -diagnose-sdk -module "$module" -target "$triple" -I "$modules_dir" \
                -Xcc -fmodule-map-file=Sources/CCurl/include/module.modulemap -Xcc -fmodule-map-file=Sources/CZlib/include/module.modulemap \
                -baseline-path "api/linux/$module.json" 2>&1 | grep -v -e '^/\*' -e '^$' | sed 's/^/api: breaks callers: /' >&2 || true
        fi
        failed=1
    fi
done
if [ "$mode" = record ]; then echo "api: recorded the public API of $checked modules in api/"; exit 0; fi
[ $failed = 0 ] && echo "api: the public API of $checked modules is the recorded one"
exit $failed
