#!/usr/bin/env python3
"""`make bench`, third part: the memory one open streamed call costs.

10,000 Server-Sent Events subscriptions opened at once against Benchmarks/sse_server.py on loopback (each gets its
first event, then stays open), held by:
  c-stream-open     plain C libcurl, one multi handle (Benchmarks/c/stream_open.c)      the floor
  curl-stream-open  RestingClient + CurlClient, a task per subscription reading ServerSentEvents
                    (RestingCurlStreamingBenchmark stream-open)
Each reports the growth of its resident memory per open call and the file descriptors it opened, once every stream
has its first event; then the server ends every stream with a last event, and each must arrive and end cleanly.
Both raise their open-file limit. BENCH_ROUNDS (3 here) and BENCH_STREAMS (10000) change the workload. Ends with
`RESULT <name> <value>` lines.
"""
import os
import statistics
import subprocess
import sys

from benchlib import build_release, run, serving

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
STREAMS = int(os.environ.get("BENCH_STREAMS", "10000"))
CLIENTS = {"c": ["/tmp/restingkit-stream-open"],
           "curl": [f"{ROOT}/Benchmarks/.build/release/RestingCurlStreamingBenchmark", "stream-open"]}


def measure(command):
    """One run against a fresh server: (opened, clean, KiB per call, descriptors)."""
    with serving([sys.executable, f"{ROOT}/Benchmarks/sse_server.py"]) as base:
        opened, clean, kib, descriptors = run(command + [base, str(STREAMS)]).split()
        return int(opened), int(clean), float(kib), int(descriptors)


def main():
    build_release("RestingCurlStreamingBenchmark")
    subprocess.run(["cc", "-O2", "-o", "/tmp/restingkit-stream-open", f"{ROOT}/Benchmarks/c/stream_open.c", "-lcurl"],
                   check=True)
    results = {name: [] for name in CLIENTS}
    for round_index in range(ROUNDS):
        print(f"Round {round_index + 1}/{ROUNDS}", flush=True)
        for name, command in CLIENTS.items():
            results[name].append(measure(command))
    print(f"\n{'client':<18}{'streams':>9}{'clean':>8}{'KiB/call':>10}{'fds':>8}")
    for name, runs in results.items():
        print(f"{name + '-stream-open':<18}{STREAMS:>9}{min(r[1] for r in runs):>8}"
              f"{statistics.median(r[2] for r in runs):>10.1f}{statistics.median(r[3] for r in runs):>8.0f}")
    print()
    for name, runs in results.items():
        print(f"RESULT {name}_stream_open_10k_kib_per_call {statistics.median(r[2] for r in runs):.1f}")
        print(f"RESULT {name}_stream_open_10k_fds_per_call {statistics.median(r[3] for r in runs) / STREAMS:.2f}")
        print(f"RESULT {name}_stream_open_10k_lost {STREAMS - min(r[1] for r in runs)}")
    ratio = statistics.median(c[2] / curl[2] for c, curl in zip(results["curl"], results["c"]))
    print(f"RESULT curl_stream_open_10k_ratio_vs_c {ratio:.2f}")


if __name__ == "__main__":
    sys.exit(main())
