#!/usr/bin/env python3
"""`make bench`: small JSON GETs through the whole RestingKit pipeline, against nginx on loopback.

Clients, measured in the same run and interleaved round by round (ratios are medians of per-round ratios):
  c                 plain C libcurl multi loop (Benchmarks/c/multi_get.c)            baseline for curl
  c-same-options    the same loop with the options CurlClient sets by default       baseline for curl-transport
  curl-transport    CurlClient.send alone (no converter, interceptors or decoding), on its executor
  curl-executor     RestingClient + CurlClient, request loops on the client's executor
  curl-pool         the same, request loops on the global concurrent pool
  curl-send, curl-send-pool  the same two, each call awaited with RestingClient.send (in the calling task,
                    without a promise) instead of perform(_:).value
  curl-call         curl-send's calls through RestingClient.call on an endpoint function, its path interpolated and
                    the endpoint made anew for every call (8 in flight only): curl_call_get_c8_ratio_vs_send
  curl-call-static  curl-send's calls through RestingClient.call on curl-send's own endpoint (8 in flight only):
                    what call adds to send, curl_call_static_get_c8_ratio_vs_send
  decode-floor      the C loop in Swift (same options) + JSONDecoder on every body: the ceiling of any pipeline
                    that decodes, so the limit for the curl-executor and curl-pool ratios
  raw-urlsession    URLSession data(for:) + JSONDecoder                              baseline for urlsession
  raw-urlsession-delegate  data tasks through a minimal session delegate + JSONDecoder: the ceiling of a client
                    that needs a delegate (as URLSessionClient does, for redirects, a size limit and progress)
  urlsession        RestingClient + URLSessionClient
  curl-cached       curl-executor with an HTTPCacheInterceptor (memory store) as network interceptor, every GET a
                    fresh hit (8 in flight only): the cache's own cost, against curl-executor's network GETs
  curl-one-driver   curl-executor on a CurlClient with one driver thread (32 in flight only): what the other
                    drivers (one per core) add
  curl-listener     curl-executor with a CallEventListener counting every event (8 in flight only):
                    curl_get_c8_listener_overhead_us is its CPU per call less curl-executor's, round by round
  curl-resilience   curl-executor with a DeadlineInterceptor, a CircuitBreakerInterceptor and a RateLimitInterceptor,
                    all quiet (8 in flight only): curl_get_c8_resilience_overhead_us, the same difference
  curl-three-noop   curl-executor with three more no-op interceptors in their place (8 in flight only): the floor of
                    any three links, curl_get_c8_three_noop_interceptors_us, the same difference
  curl-breaker-open calls an open circuit breaker fails (8 in flight only): curl_get_breaker_open_us, CPU per call
  curl-refused      calls an interceptor fails at once, doing nothing else (8 in flight only): the floor of any refused
                    call, curl_get_refused_us; curl_get_breaker_open_over_refused_us is the breaker's own share
Stages: `RestingKitBenchmarks stages`, the pipeline without a transport in one process (each stage the cheapest of 20
rounds): pipeline_quiet_resilience_links_us (the three links above, added), pipeline_refused_call_us and
pipeline_breaker_open_call_us — figures the network runs' round-to-round spread cannot resolve.
Pipeline = converter + 3 no-op interceptors + status check + JSON decoding; curl-transport shows the transport's
own share. c, curl-transport, curl-executor and the decode floor also run at 128 in flight, and c, curl-transport and
curl-executor time every request (p50, p99, p99.9 latency, in µs). Then hedging against chaos_server.py (1.2 % of
answers 200 ms late, the rest 2 ms — just over 1 %, so that the p99 of unhedged calls is a late one, as it is for any
share past 1 %; at exactly 1 % it is the fastest of them or the slowest of the rest by a rounding): p99 hedged at the
95th percentile over p99 without, and the extra requests hedging sent. Before hedging, figures that are counted, not
timed (the FootprintProbe's, which `make test` holds to budgets): heap allocations per GET at 8 in flight, and the
resident memory of a process that made one call, beside the same process's after one libcurl GET that JSONDecoder
decodes without RestingKit (the floor of any Swift client: the runtime, FoundationEssentials, libcurl). Then an HTTP/2
check: 8 requests at once over TLS to nginx must share at most one connection per driver thread (curl_h2_drivers).
Then HTTP/3, where a libcurl that speaks it can be had (Benchmarks/http3.py). Ends with `RESULT <name> <value>` lines.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from benchlib import free_port, make_certificates, nginx, probe, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
CONCURRENCY = [1, 8, 32, 128]
REQUESTS = {"c": 20000, "c-same-options": 20000, "curl-transport": 20000, "curl-executor": 20000, "curl-pool": 20000,
            "curl-send": 20000, "curl-send-pool": 20000, "curl-call": 20000, "curl-call-static": 20000,
            "decode-floor": 20000,
            "raw-urlsession": 2000, "raw-urlsession-delegate": 2000, "urlsession": 2000, "curl-cached": 20000,
            "curl-one-driver": 20000, "curl-listener": 20000, "curl-resilience": 20000, "curl-three-noop": 20000,
            "curl-breaker-open": 20000, "curl-refused": 20000}
# The concurrencies each client runs at: 1, 8 and 32 unless listed.
AT = {"curl-cached": [8], "curl-call": [8], "curl-call-static": [8], "curl-one-driver": [32], "curl-listener": [8],
      "curl-resilience": [8], "curl-three-noop": [8], "curl-breaker-open": [8], "curl-refused": [8], "c": CONCURRENCY, "curl-transport": CONCURRENCY,
      "curl-executor": CONCURRENCY, "decode-floor": CONCURRENCY}
LATENCY_CLIENTS = {"c": "c", "curl-transport": "curl_transport", "curl-executor": "curl"}  # client: RESULT prefix
LATENCY_AT = [8, 32, 128]
# The RESULT lines, in the order others read them: name ({c} = in flight), client, baseline. #15's targets come last:
# the pipeline against the ceiling of any decoding client, the transport against C doing the same work,
# URLSessionClient against the minimal delegate client.
RESULTS = [
    ("curl_get_c{c}_ratio", "curl-executor", "c"),
    ("curl_get_pool_c{c}_ratio", "curl-pool", "c"),
    ("curl_transport_get_c{c}_ratio", "curl-transport", "c"),
    ("decode_floor_get_c{c}_ratio", "decode-floor", "c"),
    ("raw_urlsession_delegate_get_c{c}_ratio_vs_raw", "raw-urlsession-delegate", "raw-urlsession"),
    ("urlsession_get_c{c}_ratio_vs_raw", "urlsession", "raw-urlsession"),
    ("raw_urlsession_get_c{c}_ratio_vs_c", "raw-urlsession", "c"),
    ("curl_get_cached_c{c}_ratio", "curl-cached", "curl-executor"),
    ("curl_get_c{c}_ratio_vs_decode_floor", "curl-executor", "decode-floor"),
    ("curl_get_pool_c{c}_ratio_vs_decode_floor", "curl-pool", "decode-floor"),
    ("curl_transport_get_c{c}_ratio_vs_c_same_options", "curl-transport", "c-same-options"),
    ("urlsession_get_c{c}_ratio_vs_delegate_floor", "urlsession", "raw-urlsession-delegate"),
    ("curl_send_get_c{c}_ratio_vs_decode_floor", "curl-send", "decode-floor"),
    ("curl_send_get_pool_c{c}_ratio_vs_decode_floor", "curl-send-pool", "decode-floor"),
    ("curl_send_get_c{c}_ratio_vs_perform", "curl-send", "curl-executor"),
    ("curl_get_c{c}_drivers_ratio_vs_one_driver", "curl-executor", "curl-one-driver"),
    ("curl_call_get_c{c}_ratio_vs_send", "curl-call", "curl-send"),
    ("curl_call_static_get_c{c}_ratio_vs_send", "curl-call-static", "curl-send"),
]
BODY = '{"id":1,"userId":1,"title":"Hello","body":"A small JSON body for the benchmark"}'

NGINX_HTTP = """
  keepalive_requests 1000000;
  server {{
    listen 127.0.0.1:{port};
    location = /post.json {{ default_type application/json; return 200 '{body}'; }}
    location = /cached.json {{ default_type application/json; add_header Cache-Control "max-age=86400"; return 200 '{body}'; }}
  }}
  log_format h2 '$connection $server_protocol';
  server {{
    listen 127.0.0.1:{tls_port} ssl http2;
    ssl_certificate {dir}/server.pem;
    ssl_certificate_key {dir}/server.key;
    access_log {dir}/h2.log h2;
    location = /post.json {{ default_type application/json; return 200 '{body}'; }}
    {slow_location}
  }}
"""
# An origin 5 ms away: the answer comes after a timer (the echo module's), as from a server across a network.
SLOW_LOCATION = "location = /slow.json {{ default_type application/json; echo_sleep 0.005; echo -n '{body}'; }}"
ECHO_MODULE = "/usr/lib/nginx/modules/ngx_http_echo_module.so"


def concurrencies(client):
    return AT.get(client, CONCURRENCY[:3])


def measure(client, url, concurrency):
    native = client in ("c", "c-same-options")
    binary = "/tmp/restingkit-multi-get" if native else f"{ROOT}/Benchmarks/.build/release/RestingKitBenchmarks"
    command = [binary, url, str(concurrency), str(REQUESTS[client])]
    mode = {"curl-transport": "transport-executor", "curl-one-driver": "curl-executor"}.get(client, client)
    if client == "c-same-options":
        command.append("same-options")
    elif not native:
        command.insert(1, mode)
    environment = dict(os.environ, BENCH_CURL_DRIVERS="1") if client == "curl-one-driver" else None
    fields = run(command, env=environment).split()
    requests, seconds, cpu, switches = fields[:4]
    requests = int(requests)
    measured = {"rps": requests / float(seconds), "cpu_us": float(cpu) / requests * 1e6,
                "switches": int(switches) / requests}
    if len(fields) == 7:
        measured.update(p50=float(fields[4]), p99=float(fields[5]), p999=float(fields[6]))
    return measured


def main():
    print("Building (release)…", flush=True)
    subprocess.run(["swift", "build", "-c", "release", "--package-path", "Benchmarks", "--product", "RestingKitBenchmarks"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cc", "-O2", "-o", "/tmp/restingkit-multi-get", f"{ROOT}/Benchmarks/c/multi_get.c", "-lcurl"],
                   check=True)
    directory = tempfile.mkdtemp(prefix="restingkit-bench-")
    make_certificates(directory)
    port, tls_port = free_port(), free_port()
    # Without the echo module (Homebrew's nginx has none), the distant origin's comparison is left out.
    modules = [ECHO_MODULE] if os.path.exists(ECHO_MODULE) else []
    slow_location = SLOW_LOCATION.format(body=BODY) if modules else ""
    conf = NGINX_HTTP.format(dir=directory, port=port, tls_port=tls_port, body=BODY, slow_location=slow_location)
    url = f"http://127.0.0.1:{port}/post.json"
    try:
        with nginx(directory, conf, url, modules):
            results = {}  # (client, concurrency) -> list of per-round measurements
            for round_index in range(ROUNDS):
                print(f"Round {round_index + 1}/{ROUNDS}", flush=True)
                for concurrency in CONCURRENCY:
                    for client in REQUESTS:
                        if concurrency not in concurrencies(client):
                            continue
                        target = url.replace("/post.json", "/cached.json") if client == "curl-cached" else url
                        results.setdefault((client, concurrency), []).append(measure(client, target, concurrency))
            report(results)
            count_allocations(url)
            measure_stages()
            compare_hedging()
            check_http2(directory, tls_port)
            compare_http2_load(directory, tls_port)
            if modules:
                compare_http2_distant_origin(directory, tls_port)
            else:
                print("No nginx echo module: the HTTP/2 comparison against a distant origin is left out")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    subprocess.run([sys.executable, f"{ROOT}/Benchmarks/http3.py"], check=True)


def ratio(results, client, baseline, concurrency, key="rps"):
    return statistics.median(
        measured[key] / base[key]
        for measured, base in zip(results[(client, concurrency)], results[(baseline, concurrency)]))


def report(results):
    baselines = {"c": "c", "c-same-options": "c", "curl-transport": "c", "curl-executor": "c", "curl-pool": "c",
                 "curl-send": "c", "curl-send-pool": "c", "curl-call": "curl-send", "curl-call-static": "curl-send",
                 "decode-floor": "c", "raw-urlsession": "c", "raw-urlsession-delegate": "raw-urlsession", "urlsession": "raw-urlsession",
                 "curl-cached": "curl-executor", "curl-one-driver": "c", "curl-listener": "curl-executor",
                 "curl-resilience": "curl-executor", "curl-three-noop": "curl-executor",
                 "curl-breaker-open": "curl-executor", "curl-refused": "curl-executor"}
    print(f"\n{'client':<24}{'in flight':>10}{'req/s':>10}{'CPU µs/req':>12}{'switches/req':>14}{'ratio':>8}  vs"
          f"{'p50 µs':>10}{'p99 µs':>10}{'p99.9 µs':>10}")
    for concurrency in CONCURRENCY:
        for client, baseline in baselines.items():
            if (client, concurrency) not in results:
                continue
            runs = results[(client, concurrency)]
            print(f"{client:<24}{concurrency:>10}{statistics.median(r['rps'] for r in runs):>10.0f}"
                  f"{statistics.median(r['cpu_us'] for r in runs):>12.1f}"
                  f"{statistics.median(r['switches'] for r in runs):>14.2f}"
                  f"{ratio(results, client, baseline, concurrency):>8.2f}  {baseline:<16}"
                  + "".join(f"{statistics.median(r[key] for r in runs):>10.0f}" for key in ("p50", "p99", "p999")
                            if key in runs[0]))
    print()
    for name, client, baseline in RESULTS:
        for concurrency in concurrencies(client):
            if (baseline, concurrency) in results:
                print(f"RESULT {name.format(c=concurrency)} {ratio(results, client, baseline, concurrency):.2f}")
    # The event stream left on: CPU per call with a listener counting every event, less without (same rounds).
    overhead = statistics.median(with_listener["cpu_us"] - without["cpu_us"] for with_listener, without
                                 in zip(results[("curl-listener", 8)], results[("curl-executor", 8)]))
    print(f"RESULT curl_get_c8_listener_overhead_us {overhead:.2f}")
    overhead = statistics.median(resilient["cpu_us"] - without["cpu_us"] for resilient, without
                                 in zip(results[("curl-resilience", 8)], results[("curl-executor", 8)]))
    print(f"RESULT curl_get_c8_resilience_overhead_us {overhead:.2f}")
    overhead = statistics.median(noop["cpu_us"] - without["cpu_us"] for noop, without
                                 in zip(results[("curl-three-noop", 8)], results[("curl-executor", 8)]))
    print(f"RESULT curl_get_c8_three_noop_interceptors_us {overhead:.2f}")
    print(f"RESULT curl_get_breaker_open_us "
          f"{statistics.median(r['cpu_us'] for r in results[('curl-breaker-open', 8)]):.2f}")
    print(f"RESULT curl_get_refused_us {statistics.median(r['cpu_us'] for r in results[('curl-refused', 8)]):.2f}")
    share = statistics.median(open_["cpu_us"] - refused["cpu_us"] for open_, refused
                              in zip(results[("curl-breaker-open", 8)], results[("curl-refused", 8)]))
    print(f"RESULT curl_get_breaker_open_over_refused_us {share:.2f}")
    # Latency: medians over the rounds of each round's percentile, in µs; then our p99 over C's (lower is better).
    for concurrency in LATENCY_AT:
        for client, prefix in LATENCY_CLIENTS.items():
            runs = results[(client, concurrency)]
            for key in ("p50", "p99", "p999"):
                print(f"RESULT {prefix}_get_c{concurrency}_{key}_us {statistics.median(r[key] for r in runs):.0f}")
        for client, prefix in list(LATENCY_CLIENTS.items())[1:]:
            print(f"RESULT {prefix}_get_c{concurrency}_p99_ratio_vs_c "
                  f"{ratio(results, client, 'c', concurrency, key='p99'):.2f}")

def count_allocations(url):
    """Figures no load can move, counted in the FootprintProbe (the same counts `make test` holds to budgets): heap
    allocations per GET decoded through CurlClient at 8 in flight, the Swift runtime's generic metadata lookups per
    call of the pipeline alone, and the resident memory of a process that made one call."""
    allocations = probe("get", url, "2000", "8")["allocations-per-call"]
    lookups = probe("lookups", "2000")["metadata-lookups-per-call"]
    resident = probe("resident", url)["resident-kib"]
    floor = probe("resident-floor", url)["resident-kib"]
    print(f"Counted: {allocations:.1f} allocations per GET at 8 in flight; {lookups:.1f} metadata lookups per call; "
          f"{resident / 1024:.1f} MiB resident after "
          f"one call, {floor / 1024:.1f} MiB after the same GET by libcurl and JSONDecoder alone (same binary)")
    print(f"RESULT curl_get_c8_allocations_per_call {allocations:.1f}")
    print(f"RESULT pipeline_metadata_lookups_per_call {lookups:.1f}")
    print(f"RESULT idle_process_rss_mib {resident / 1024:.1f}")
    print(f"RESULT swift_floor_process_rss_mib {floor / 1024:.1f}")
    print(f"RESULT idle_process_rss_over_swift_floor_mib {(resident - floor) / 1024:.1f}")


def measure_stages():
    """The pipeline's stages in one process without a transport (`RestingKitBenchmarks stages`, each the cheapest of 20
    rounds taken in turns): the resilience links' cost and a refused call's, which the network runs' round-to-round
    spread of several µs per call cannot resolve."""
    output = run([f"{ROOT}/Benchmarks/.build/release/RestingKitBenchmarks", "stages", "200000"])
    rows = {line[:48].strip(): float(line[48:]) for line in output.splitlines() if line.strip()}
    print(output)
    links = sum(rows[f"a {link} (added)"] for link in
                ("quiet DeadlineInterceptor", "closed CircuitBreakerInterceptor", "RateLimitInterceptor with tokens"))
    print(f"RESULT pipeline_quiet_resilience_links_us {links:.2f}")
    print(f"RESULT pipeline_refused_call_us {rows['a call its first interceptor refuses']:.2f}")
    print(f"RESULT pipeline_breaker_open_call_us {rows['a call an open CircuitBreakerInterceptor refuses']:.2f}")


HEDGE_CALLS = 3000
CHAOS_SERVER = f"{ROOT}/Tests/HTTPSemanticsTests/chaos_server.py"


def compare_hedging():
    """GETs of a route that answers 1.2 % of requests 200 ms late and the rest in 2 ms, 8 in flight, hedged at the 95th
    percentile of the latencies seen or not, interleaved round by round: p99 hedged over p99 unhedged, and the
    requests the server saw past one per call."""
    server = subprocess.Popen([sys.executable, CHAOS_SERVER, "--port", "0", "--exit-with-stdin"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    base = server.stdout.readline().split()[-1]
    binary = f"{ROOT}/Benchmarks/.build/release/RestingKitBenchmarks"
    rounds = {"hedged": [], "unhedged": []}
    extra = []
    try:
        for index in range(ROUNDS):
            for mode in ("unhedged", "hedged"):
                route = f"{mode}-{index}"
                configure = urllib.request.Request(
                    f"{base}/config/{route}", method="PUT",
                    data=json.dumps({"latency": [[0.988, 0.002], [0.012, 0.2]], "seed": index}).encode())
                urllib.request.urlopen(configure).read()
                fields = run([binary, mode, f"{base}/r/{route}", "8", str(HEDGE_CALLS)]).split()
                rounds[mode].append(float(fields[5]))
                if mode == "hedged":
                    with urllib.request.urlopen(f"{base}/stats/{route}") as response:
                        extra.append(json.load(response)["requests"] / HEDGE_CALLS - 1)
    finally:
        server.stdin.close()
        server.wait()
    hedged, unhedged = statistics.median(rounds["hedged"]), statistics.median(rounds["unhedged"])
    print(f"Hedging: p99 {unhedged:.0f} µs unhedged, {hedged:.0f} µs hedged, "
          f"{statistics.median(extra) * 100:.1f} % more requests")
    print(f"RESULT curl_get_hedged_p99_us {hedged:.0f}")
    print(f"RESULT curl_get_unhedged_p99_us {unhedged:.0f}")
    print(f"RESULT curl_get_hedged_p99_ratio_vs_unhedged "
          f"{statistics.median(h / u for h, u in zip(rounds['hedged'], rounds['unhedged'])):.3f}")
    print(f"RESULT curl_get_hedged_extra_load {statistics.median(extra):.3f}")


def check_http2(directory, tls_port):
    """8 requests at once over TLS: with HTTP/2 multiplexing they share one connection per driver."""
    run([f"{ROOT}/Benchmarks/.build/release/RestingKitBenchmarks", "h2", f"https://127.0.0.1:{tls_port}/post.json", "8", "8",
         f"{directory}/ca.pem"])
    time.sleep(0.2)  # nginx writes its access log asynchronously to the response
    with open(f"{directory}/h2.log") as log:
        lines = [line.split() for line in log if line.strip()]
    connections = {connection for connection, _ in lines}
    protocols = {protocol for _, protocol in lines}
    print(f"HTTP/2 check: {len(lines)} requests over {len(connections)} connection(s), protocols {sorted(protocols)}")
    print(f"RESULT curl_h2_requests {len(lines)}")
    print(f"RESULT curl_h2_connections {len(connections)}")
    print(f"RESULT curl_h2_protocol_is_http2 {1 if protocols == {'HTTP/2.0'} else 0}")
    print(f"RESULT curl_h2_drivers {len(os.sched_getaffinity(0))}")


# The CPU a call's pipeline takes per response (decoding included), measured on the pipelines' thread of `h2-load` on
# the 2-core VM (`/proc/<pid>/task/*/stat` over 2 s: 0.75 s for 48 000 responses): the C model's per-response work.
H2_WORK_US = int(os.environ.get("BENCH_H2_WORK_US", "15"))


def compare_http2_load(directory, tls_port):
    """Many streams to one HTTP/2 origin at 32 in flight, over every driver: one connection (the default, which keeps
    an origin on the driver that holds its connection) against a connection per driver (spreadsHTTP2Origins) — and
    the same two shapes in plain C (one multi loop, or one per driver's thread, each with CurlClient's options), so
    that what one connection costs libcurl itself is told apart from what it costs RestingKit. Then the two shapes in
    C with a client's work per response (H2_WORK_US of CPU): one connection's loop handing each response to a worker
    thread (RestingKit's shape: the connection's driver does the I/O, another the pipelines), against a loop per
    thread doing its own responses' work — what any libcurl client that does something with its responses can get
    from one connection here."""
    url, ca, drivers = f"https://127.0.0.1:{tls_port}/post.json", f"{directory}/ca.pem", len(os.sched_getaffinity(0))
    swift = [f"{ROOT}/Benchmarks/.build/release/RestingKitBenchmarks", "h2-load", url, "32", "20000", ca]
    c = ["/tmp/restingkit-multi-get", url, "32", "20000", "same-options", f"ca={ca}"]
    work = f"work={H2_WORK_US}"
    shapes = {
        "one": (swift, dict(os.environ, BENCH_H2_SPREAD="0")),
        "spread": (swift, dict(os.environ, BENCH_H2_SPREAD="1")),
        "c-one": (c, None),
        "c-spread": (c + [f"threads={drivers}"], None),
        "c-work-one": (c + [work, "worker"], None),
        "c-work-spread": (c + [work, f"threads={drivers}"], None),
    }
    rounds = {name: [] for name in shapes}
    for _ in range(ROUNDS):
        for name, (command, environment) in shapes.items():
            fields = run(command, env=environment).split()
            rounds[name].append(int(fields[0]) / float(fields[1]))
    median = {name: statistics.median(values) for name, values in rounds.items()}

    def ratio(one, spread):
        return statistics.median(o / s for o, s in zip(rounds[one], rounds[spread]))

    def drop_vs(c_one, c_spread):
        """RestingKit's one-connection ratio over C's in `c_one` and `c_spread`, round by round."""
        paired = zip(rounds["one"], rounds["spread"], rounds[c_one], rounds[c_spread])
        return statistics.median((o / s) / (co / cs) for o, s, co, cs in paired)

    print(f"HTTP/2 load at 32 in flight: {median['one']:.0f} req/s on one connection, {median['spread']:.0f} spread "
          f"over the drivers; C {median['c-one']:.0f} on one, {median['c-spread']:.0f} spread over {drivers} threads")
    print(f"RESULT curl_h2_c32_one_connection_req_per_s {median['one']:.0f}")
    print(f"RESULT curl_h2_c32_spread_req_per_s {median['spread']:.0f}")
    print(f"RESULT curl_h2_c32_ratio_one_connection_vs_spread {ratio('one', 'spread'):.2f}")
    print(f"RESULT c_h2_c32_one_connection_req_per_s {median['c-one']:.0f}")
    print(f"RESULT c_h2_c32_spread_req_per_s {median['c-spread']:.0f}")
    print(f"RESULT c_h2_c32_ratio_one_connection_vs_spread {ratio('c-one', 'c-spread'):.2f}")
    # Both ratios measured round by round: 1.0 means one connection costs RestingKit no more than it costs libcurl.
    print(f"RESULT curl_h2_c32_one_connection_drop_vs_c {drop_vs('c-one', 'c-spread'):.2f}")
    print(f"With {H2_WORK_US} µs of work per response, C: {median['c-work-one']:.0f} req/s on one connection (a worker "
          f"thread doing the work), {median['c-work-spread']:.0f} spread over {drivers} threads")
    print(f"RESULT c_h2_c32_work_one_connection_req_per_s {median['c-work-one']:.0f}")
    print(f"RESULT c_h2_c32_work_spread_req_per_s {median['c-work-spread']:.0f}")
    print(f"RESULT c_h2_c32_work_ratio_one_connection_vs_spread {ratio('c-work-one', 'c-work-spread'):.2f}")
    # 1.0: one connection costs RestingKit what it costs the same shape in C, the client's work included.
    print(f"RESULT curl_h2_c32_one_connection_drop_vs_c_work {drop_vs('c-work-one', 'c-work-spread'):.2f}")


def compare_http2_distant_origin(directory, tls_port):
    """The same two shapes against an origin that answers 5 ms late, as one across a network does: 32 in flight can
    reach 6 400 requests a second at most, and one connection should carry them as well as a connection per driver."""
    command = [f"{ROOT}/Benchmarks/.build/release/RestingKitBenchmarks", "h2-load",
               f"https://127.0.0.1:{tls_port}/slow.json", "32", "8000", f"{directory}/ca.pem"]
    rounds = {"one": [], "spread": []}
    for _ in range(ROUNDS):
        for name, spread in (("one", "0"), ("spread", "1")):
            fields = run(command, env=dict(os.environ, BENCH_H2_SPREAD=spread)).split()
            rounds[name].append(int(fields[0]) / float(fields[1]))
    one, spread = statistics.median(rounds["one"]), statistics.median(rounds["spread"])
    print(f"HTTP/2 load at 32 in flight, origin 5 ms away: {one:.0f} req/s on one connection, {spread:.0f} spread")
    print(f"RESULT curl_h2_c32_5ms_one_connection_req_per_s {one:.0f}")
    print(f"RESULT curl_h2_c32_5ms_spread_req_per_s {spread:.0f}")
    print(f"RESULT curl_h2_c32_5ms_ratio_one_connection_vs_spread "
          f"{statistics.median(o / s for o, s in zip(rounds['one'], rounds['spread'])):.2f}")


if __name__ == "__main__":
    sys.exit(main())
