#!/usr/bin/env bash
# The API documentation.
#   scripts/docs.sh check   every public symbol of every product module has a doc comment (run by `make test`)
#   scripts/docs.sh build   that check, then a DocC archive per module — RestingCore's with the articles of
#                           Documentation/RestingCore.docc — merged into one static site (`make docs`)
# Needs the modules built (`swift build`); the docc SwiftPM plugin is not used, so nothing is fetched.
set -euo pipefail
cd "$(dirname "$0")/.."

MODULES=(RestingMultipart RestingCore RestingStreaming RestingWebSocketCore RestingWebSocket RestingResilience RestingCache RestingCookies RestingOffline RestingPagination RestingJSONRPC RestingAuthentication RestingLogging RestingConnections RestingTransportKit RestingURLSession RestingCurl RestingTesting RestingTransportConformance RestingKit
    RestingHTTPTypes RestingMetrics RestingTracing RestingOpenAPI)
OUT=.build/docs
GRAPHS=$OUT/symbol-graphs
SITE=$OUT/RestingKit.doccarchive

triple=$(swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
# The build with every trait that resolves here on (scripts/traits.sh), so that the integrations' modules are not
# empty; an integration whose trait is off here has no symbol to check.
bin=$(swift build $(scripts/traits.sh flags) --show-bin-path)
modules_dir=$bin/Modules
[ -d "$modules_dir" ] || modules_dir=$bin

rm -rf "$GRAPHS" "$OUT/modules" && mkdir -p "$GRAPHS" "$OUT/modules"
for module in "${MODULES[@]}"; do
    mkdir -p "$GRAPHS/$module"
    swift-symbolgraph-extract -module-name "$module" -target "$triple" -I "$modules_dir" \
        -Xcc -fmodule-map-file=Sources/CCurl/include/module.modulemap \
        -Xcc -fmodule-map-file=Sources/CZlib/include/module.modulemap \
        -minimum-access-level public -emit-extension-block-symbols -output-dir "$GRAPHS/$module" >/dev/null
done
python3 scripts/check_docs.py "$GRAPHS"

[ "${1:-check}" = build ] || exit 0

# In dependency order: a module's links to another (``/RestingCore/HTTPClient``) resolve against its archive.
archives=()
for module in "${MODULES[@]}"; do
    catalog=() dependencies=()
    [ -d "Documentation/$module.docc" ] && catalog=("Documentation/$module.docc")
    for built in ${archives[@]+"${archives[@]}"}; do dependencies+=(--dependency "$built"); done
    # (`${a[@]+"${a[@]}"}`: macOS's bash 3.2 calls an empty array unbound under `set -u`.)
    docc convert ${catalog[@]+"${catalog[@]}"} --additional-symbol-graph-dir "$GRAPHS/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.restingkit.$module" \
        --enable-experimental-external-link-support ${dependencies[@]+"${dependencies[@]}"} \
        --transform-for-static-hosting --warnings-as-errors --output-path "$OUT/modules/$module.doccarchive"
    archives+=("$OUT/modules/$module.doccarchive")
done
rm -rf "$SITE" && mkdir -p "$SITE"
docc merge "${archives[@]}" --synthesized-landing-page-name RestingKit --output-path "$SITE"
echo "docs: $SITE — serve it with: python3 -m http.server --directory $SITE 8000, then open http://127.0.0.1:8000/documentation/"
