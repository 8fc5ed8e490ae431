#!/usr/bin/env python3
"""`make bench`'s HTTP/3 figures, where scripts/http3.sh can unpack a libcurl that speaks HTTP/3 (Debian 12's
bookworm-backports): small GETs at 8 in flight through RestingKit over HTTP/3, against C peers so that the server is
not the limit — ngtcp2's example server (gtlsserver) for HTTP/3, nginx for HTTP/2 — and against a C libcurl loop over
HTTP/3 on the same libcurl, interleaved round by round (ratios are medians of per-round ratios). The Swift benchmark
and the C loop are both built against that libcurl, so HTTP/3 and HTTP/2 are measured on one library.

RESULT curl_h3_get_c8_req_per_s         RestingKit over HTTP/3 (CurlClient, `.http3Only`)
RESULT curl_h3_get_c8_ratio_vs_c        ÷ the C loop with CurlClient's options over HTTP/3
RESULT curl_h3_vs_h2_get_c8_ratio       ÷ RestingKit over HTTP/2 (to nginx) on the same libcurl
RESULT curl_h3_stream_100m_ratio_vs_c   a 100 MiB body streamed over HTTP/3 (its chunks dropped), RestingKit ÷ C
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port, make_certificates, nginx, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
REQUESTS = 20000
BODY = '{"id":1,"userId":1,"title":"Hello","body":"A small JSON body for the benchmark"}'
NGINX_H2 = """
  keepalive_requests 1000000;
  server {{
    listen 127.0.0.1:{probe};
    location = /post.json {{ default_type application/json; return 200 '{body}'; }}
  }}
  server {{
    listen 127.0.0.1:{port} ssl http2;
    ssl_certificate {dir}/server.pem;
    ssl_certificate_key {dir}/server.key;
    location = /post.json {{ default_type application/json; return 200 '{body}'; }}
  }}
"""


def http3(command):
    return run([f"{ROOT}/scripts/http3.sh", command])


def main():
    if subprocess.run([f"{ROOT}/scripts/http3.sh", "prefix"], capture_output=True).returncode != 0:
        print("No libcurl with HTTP/3 here (scripts/http3.sh prefix): the HTTP/3 figures are left out")
        return
    flags = http3("flags").split()
    prefix = f"{ROOT}/.build/http3/prefix"
    library = flags[flags.index("-rpath") + 2] if "-rpath" in flags else ""
    include = flags[flags.index("-Xcc") + 1]
    print("Building the benchmark against the HTTP/3 libcurl (release)…", flush=True)
    for product in ["RestingKitBenchmarks", "RestingCurlStreamingBenchmark"]:
        subprocess.run(["swift", "build", "-c", "release", "--package-path", "Benchmarks", "--product", product,
                        "--scratch-path", f"{ROOT}/.build/http3/bench", *flags], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    swift = f"{ROOT}/.build/http3/bench/release/RestingKitBenchmarks"
    streaming = f"{ROOT}/.build/http3/bench/release/RestingCurlStreamingBenchmark"
    for source, binary in [("transfer", "/tmp/restingkit-transfer-h3"), ("multi_get", "/tmp/restingkit-multi-get-h3")]:
        subprocess.run(["cc", "-O2", "-o", binary, f"{ROOT}/Benchmarks/c/{source}.c", include, f"-L{library}",
                        f"-Wl,-rpath,{library}", "-Wl,--disable-new-dtags", "-lcurl"], check=True)
    directory = tempfile.mkdtemp(prefix="restingkit-h3-bench-")
    make_certificates(directory)
    os.makedirs(f"{directory}/htdocs")
    with open(f"{directory}/htdocs/post.json", "w") as file:
        file.write(BODY)
    with open(f"{directory}/htdocs/100m.bin", "wb") as file:
        for _ in range(100):
            file.write(os.urandom(2**20))
    h3_port, h2_port = free_port(), free_port()
    h3_url, h2_url = f"https://127.0.0.1:{h3_port}/post.json", f"https://127.0.0.1:{h2_port}/post.json"
    ca = f"{directory}/ca.pem"
    server = subprocess.Popen(
        [f"{prefix}/usr/sbin/gtlsserver", "-q", "-d", f"{directory}/htdocs", "127.0.0.1", str(h3_port),
         f"{directory}/server.key", f"{directory}/server.pem"],
        env=dict(os.environ, LD_LIBRARY_PATH=library), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    h3_swift = dict(os.environ, BENCH_HTTP3="1")
    clients = {
        "swift-h3": ([swift, "h2-load", h3_url, "8", str(REQUESTS), ca], h3_swift),
        "c-h3": (["/tmp/restingkit-multi-get-h3", h3_url, "8", str(REQUESTS), "same-options", f"ca={ca}", "http3"],
                 None),
        "swift-h2": ([swift, "h2-load", h2_url, "8", str(REQUESTS), ca], None),
    }
    # gtlsserver says nothing when it listens: the C loop's first request that succeeds says so.
    for _ in range(100):
        if subprocess.run(["/tmp/restingkit-multi-get-h3", h3_url, "1", "1", "same-options", f"ca={ca}", "http3"],
                          capture_output=True).returncode == 0:
            break
    probe_port = free_port()
    conf = NGINX_H2.format(dir=directory, port=h2_port, probe=probe_port, body=BODY)
    try:
        with nginx(directory, conf, f"http://127.0.0.1:{probe_port}/post.json"):
            rounds = {name: [] for name in clients}
            stream_url = h3_url.replace("/post.json", "/100m.bin")
            streams = {
                "swift-stream": [streaming, "stream", stream_url],
                "c-stream": ["/tmp/restingkit-transfer-h3", "stream", stream_url],
            }
            stream_environment = dict(os.environ, BENCH_CA=ca, BENCH_HTTP3="1")
            for name in streams:
                rounds[name] = []
            for _ in range(ROUNDS):
                for name, (command, environment) in clients.items():
                    fields = run(command, env=environment).split()
                    rounds[name].append(int(fields[0]) / float(fields[1]))
                for name, command in streams.items():
                    fields = run(command, env=stream_environment).split()
                    rounds[name].append(int(fields[0]) / float(fields[1]))
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(directory, ignore_errors=True)

    def ratio(one, other):
        return statistics.median(a / b for a, b in zip(rounds[one], rounds[other]))

    median = {name: statistics.median(values) for name, values in rounds.items()}
    print(f"HTTP/3 at 8 in flight: RestingKit {median['swift-h3']:.0f} req/s, C {median['c-h3']:.0f}; "
          f"RestingKit over HTTP/2 {median['swift-h2']:.0f}")
    print(f"RESULT curl_h3_get_c8_req_per_s {median['swift-h3']:.0f}")
    print(f"RESULT curl_h3_get_c8_ratio_vs_c {ratio('swift-h3', 'c-h3'):.2f}")
    print(f"RESULT curl_h3_vs_h2_get_c8_ratio {ratio('swift-h3', 'swift-h2'):.2f}")
    print(f"HTTP/3, a 100 MiB body streamed: RestingKit {median['swift-stream'] / 2**20:.0f} MiB/s, "
          f"C {median['c-stream'] / 2**20:.0f} MiB/s")
    print(f"RESULT curl_h3_stream_100m_ratio_vs_c {ratio('swift-stream', 'c-stream'):.2f}")


if __name__ == "__main__":
    main()
