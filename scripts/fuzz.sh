#!/usr/bin/env bash
# Runs every fuzz target for a bounded time: scripts/fuzz.sh FUZZER SECONDS [SEED]. Fails on the first crash or
# broken property, leaving the input in Fuzz/Crashes/. Prints one RESULT line per target with its executions.
set -euo pipefail
fuzzer=$1
seconds=$2
seed=${3:-0}
cd "$(dirname "$0")/.."
targets=$(ls Fuzz/Corpus)
mkdir -p Fuzz/Crashes
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for target in $targets; do
    mkdir -p "$scratch/$target"
    log="$scratch/$target.log"
    if ! RESTING_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0 "$fuzzer" "$scratch/$target" "Fuzz/Corpus/$target" \
        -max_total_time="$seconds" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -artifact_prefix="Fuzz/Crashes/$target-" -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz: $target failed; the input is in Fuzz/Crashes/" >&2
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "RESULT fuzz_${target//-/_}_executions ${runs:-0} (${seconds} s)"
done
