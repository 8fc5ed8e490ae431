#!/usr/bin/env python3
"""`make bench`, fourth part: WebSockets on CurlClient against a C floor, on loopback.

The server is Benchmarks/c/ws_echo_server.c (RFC 6455 echo, a thread per connection, TCP_NODELAY), so that the
clients set the pace. The clients, each in its own process, interleaved round by round:
  c      Benchmarks/c/ws_client.c: RFC 6455 framing in C over the connection libcurl opens (CURLOPT_CONNECT_ONLY,
         curl_easy_send / curl_easy_recv) — what CurlClient does, with nothing between: the floor
  curl   RestingClient.webSocket on CurlClient (RestingCurlStreamingBenchmark ws-…), compression off as in C
measuring
  echo      round trips of a 5-byte text message on one socket, a second
  echo-executor   the same, the Swift loop on the socket's executor (`WebSocket.executor`), against the C echo of
            the same round
  echo-1m   round trips of a 1 MiB binary message, MiB a second one way
  open      10,000 idle sockets open at once: the resident KiB each costs (the C client keeps a 1 KiB buffer each).
            A connect-only libcurl handle holds three descriptors (its socket, and the socketpair of the multi handle
            curl_easy_perform makes for it): where the hard limit on open files is lower than three per socket, fewer
            are opened, and RESULT ws_open_sockets says how many.
Then, counted rather than timed, the heap allocations of one echoed message (the FootprintProbe's figure, which
`make test` holds to a budget). Ratios are medians of per-round ratios. BENCH_ROUNDS (5), BENCH_WS_MESSAGES (20000)
and BENCH_WS_SOCKETS (10000) change the workload. Ends with `RESULT <name> <value>` lines.
"""
import os
import resource
import statistics
import subprocess
import sys

from benchlib import build_release, probe, run, serving

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
MESSAGES = int(os.environ.get("BENCH_WS_MESSAGES", "20000"))
SOCKETS = min(int(os.environ.get("BENCH_WS_SOCKETS", "10000")),
              (resource.getrlimit(resource.RLIMIT_NOFILE)[1] - 256) // 3)
SERVER, CLIENT = "/tmp/restingkit-ws-echo-server", "/tmp/restingkit-ws-client"
CLIENTS = {"c": [CLIENT], "curl": [f"{ROOT}/Benchmarks/.build/release/RestingCurlStreamingBenchmark"]}
WORKLOADS = {"echo": MESSAGES, "echo-executor": MESSAGES, "echo-1m": max(1, MESSAGES // 40), "open": SOCKETS}


def measure(client, workload):
    """One run against a fresh server: the client's figure."""
    with serving([SERVER]) as base:
        mode = workload if client == "c" else f"ws-{workload}"
        return float(run(CLIENTS[client] + [mode, base, str(WORKLOADS[workload])]).split()[-1])


def main():
    build_release("RestingCurlStreamingBenchmark")
    subprocess.run(["cc", "-O2", "-o", SERVER, f"{ROOT}/Benchmarks/c/ws_echo_server.c", "-lcrypto", "-lpthread"],
                   check=True)
    subprocess.run(["cc", "-O2", "-o", CLIENT, f"{ROOT}/Benchmarks/c/ws_client.c", "-lcurl"], check=True)
    results = {(client, workload): [] for client in CLIENTS for workload in WORKLOADS}
    for round_index in range(ROUNDS):
        print(f"Round {round_index + 1}/{ROUNDS}", flush=True)
        for workload in WORKLOADS:
            for client in CLIENTS:
                # C has no executor to choose: its echo is the floor of both Swift loops.
                if (client, workload) != ("c", "echo-executor"):
                    results[(client, workload)].append(measure(client, workload))
    results[("c", "echo-executor")] = results[("c", "echo")]
    median = {key: statistics.median(values) for key, values in results.items()}
    print(f"\n{'client':<8}{'msgs/s':>10}{'MiB/s 1m':>10}{'KiB/socket':>12}")
    for client in CLIENTS:
        print(f"{client:<8}{median[(client, 'echo')]:>10.0f}{median[(client, 'echo-1m')]:>10.1f}"
              f"{median[(client, 'open')]:>12.1f}")
    print()

    def ratio(workload):
        return statistics.median(curl / c for curl, c in zip(results[("curl", workload)], results[("c", workload)]))

    for client in CLIENTS:
        print(f"RESULT {client}_ws_echo_msgs_per_s {median[(client, 'echo')]:.0f}")
        print(f"RESULT {client}_ws_echo_1m_mib_per_s {median[(client, 'echo-1m')]:.1f}")
        print(f"RESULT {client}_ws_open_10k_kib_per_socket {median[(client, 'open')]:.1f}")
    print(f"RESULT ws_open_sockets {SOCKETS}")
    print(f"RESULT curl_ws_echo_ratio_vs_c {ratio('echo'):.2f}")
    print(f"RESULT curl_ws_echo_on_executor_ratio_vs_c {ratio('echo-executor'):.2f}")
    print(f"RESULT curl_ws_echo_1m_ratio_vs_c {ratio('echo-1m'):.2f}")
    print(f"RESULT curl_ws_open_10k_memory_ratio_vs_c {ratio('open'):.2f}")
    # Counted, not timed: the heap allocations of one message sent and its echo received (the FootprintProbe's count,
    # which `make test` holds to a budget).
    with serving([SERVER]) as base:
        allocations = probe("websocket", f"{base}/echo", "2000")["allocations-per-message"]
    print(f"RESULT curl_ws_echo_allocations_per_message {allocations:.1f}")


if __name__ == "__main__":
    sys.exit(main())
