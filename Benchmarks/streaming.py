#!/usr/bin/env python3
"""`make bench`, second part: large uploads and downloads streamed from and to files, against nginx on loopback.

Each client runs in its own process under /usr/bin/time, so its peak RSS is measured too; clients are
interleaved round by round and ratios are medians of per-round ratios.
  uploads (a 1 GiB file, PUT to an nginx location that discards the body):
    c-upload-raw / c-upload-multipart   plain C libcurl (read callback / curl_mime)     baselines for curl
    curl-upload-raw / -multipart        RestingClient + CurlClient, a .raw file URL body / a MultipartFile form
    urlsession-upload-raw / -multipart  RestingClient + URLSessionClient (streamed, chunked)
    raw-urlsession-upload-fromfile      URLSession upload(for:fromFile:)               baseline for urlsession
    raw-urlsession-upload-stream        URLSession data task on InputStream(url:), no session delegate: the
                                        stream path URLSessionClient takes, without the delegate it needs
  the URLSession uploads again, to an nginx WebDAV location that stores the body (on tmpfs): a server
  slower than the client is where FoundationNetworking's fromFile path pauses and resumes its handle
  downloads (4 × 64 MiB at once, each to its own file):
    c-download, curl-download (RestingClient.download), urlsession-download
  streamed responses (the upload file, served by nginx, read once and discarded):
    c-stream                            plain C libcurl, a write callback that discards     baseline for curl
    curl-stream / urlsession-stream     RestingClient, an Endpoint<Nothing, ResponseBodyStream>, each chunk dropped
    urlsession-download-one             URLSessionClient's download of the same file       baseline for urlsession
  a slow reader (the 64 MiB download file, a 3 ms pause after each chunk: slower than the network):
    curl-stream-slow / urlsession-stream-slow   peak RSS, against the fast reader's above: what a reader that
                                        falls behind costs (at most the stream's buffer, 1 MiB by default)
CurlClient's runs use RestingCurlStreamingBenchmark, a binary without FoundationNetworking.
Ends with `RESULT <name> <value>` lines. BENCH_ROUNDS (5) and BENCH_UPLOAD_MIB (1024) change the workload;
BENCH_STREAMING_PARTS (upload,download,stream,slow) picks what runs.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchlib import free_port, nginx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
UPLOAD_MIB = int(os.environ.get("BENCH_UPLOAD_MIB", "1024"))
DOWNLOAD_MIB, DOWNLOADS = 64, 4
SWIFT = f"{ROOT}/Benchmarks/.build/release/RestingKitBenchmarks"
CURL_SWIFT = f"{ROOT}/Benchmarks/.build/release/RestingCurlStreamingBenchmark"
C = "/tmp/restingkit-transfer"
UPLOADS = ["c-upload-raw", "curl-upload-raw", "urlsession-upload-raw", "raw-urlsession-upload-fromfile",
           "raw-urlsession-upload-stream", "c-upload-multipart", "curl-upload-multipart", "urlsession-upload-multipart"]
STORING_CLIENTS = ["urlsession-upload-raw", "urlsession-upload-multipart", "raw-urlsession-upload-fromfile",
                   "raw-urlsession-upload-stream"]
DOWNLOAD_CLIENTS = ["c-download", "curl-download", "urlsession-download"]
STREAM_CLIENTS = ["c-stream", "curl-stream", "urlsession-stream", "urlsession-download-one"]
SLOW_READERS = ["curl-stream-slow", "urlsession-stream-slow"]
PARTS = os.environ.get("BENCH_STREAMING_PARTS", "upload,download,stream,slow").split(",")

NGINX_HTTP = """
  server {{
    listen 127.0.0.1:{port};
    root {dir}/www;
    client_max_body_size 0;
    # nginx reads and discards the body: the clients, not a disk, set the pace.
    location = /sink {{ return 204; }}
    location /store/ {{ dav_methods PUT; create_full_put_path on; client_body_temp_path {dir}/incoming; }}
  }}
"""


def command(client, url, argument, directory):
    if client.endswith("download-one"):
        client, rest = client[:-len("-one")], ["1", directory]
    elif client.endswith("download"):
        rest = [str(DOWNLOADS), directory]
    else:
        rest = [argument] if argument else []
    if client.startswith("c-"):
        return [C, client[2:], url] + rest
    if client.startswith("curl-"):
        return [CURL_SWIFT, client[5:], url] + rest
    return [SWIFT, client, url] + rest


def measure(client, url, argument, directory):
    """(MiB/s, peak RSS in MiB) of one run."""
    if sys.platform == "darwin":  # BSD time: -l prints "<bytes>  maximum resident set size" on stderr
        done = subprocess.run(["/usr/bin/time", "-l"] + command(client, url, argument, directory),
                              check=True, capture_output=True, text=True)
        rss_mib = next(int(line.split()[0]) for line in done.stderr.splitlines()
                       if "maximum resident set size" in line) / 2**20
    else:  # GNU time: -f %M is the peak in KiB
        rss_file = f"{directory}/rss"
        done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + command(client, url, argument, directory),
                              check=True, capture_output=True, text=True)
        with open(rss_file) as file:
            rss_mib = int(file.read().split()[-1]) / 1024
    byte_count, seconds = done.stdout.split()[:2]
    return int(byte_count) / float(seconds) / 2**20, rss_mib


def make_file(path, mib):
    with open(path, "wb") as file:
        for _ in range(mib):
            file.write(os.urandom(2**20))


def main():
    print("Building (release)…", flush=True)
    for product in ("RestingKitBenchmarks", "RestingCurlStreamingBenchmark"):
        subprocess.run(["swift", "build", "-c", "release", "--package-path", "Benchmarks", "--product", product], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run(["cc", "-O2", "-o", C, f"{ROOT}/Benchmarks/c/transfer.c", "-lcurl"], check=True)
    # tmpfs when there is one: the files' reads and writes then cost memory copies, not disk time.
    parent = "/dev/shm" if os.path.isdir("/dev/shm") else None
    directory = tempfile.mkdtemp(prefix="restingkit-streaming-", dir=parent)
    os.chmod(directory, 0o755)  # nginx's workers may run as another user
    try:
        os.makedirs(f"{directory}/www")
        os.makedirs(f"{directory}/downloads")
        for writable in ("www/store", "incoming"):  # by nginx's workers, whichever user they run as
            os.makedirs(f"{directory}/{writable}")
            os.chmod(f"{directory}/{writable}", 0o777)
        print(f"Making a {UPLOAD_MIB} MiB file and a {DOWNLOAD_MIB} MiB file…", flush=True)
        make_file(f"{directory}/upload.bin", UPLOAD_MIB)
        make_file(f"{directory}/www/download.bin", DOWNLOAD_MIB)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        # The file to stream is the upload file itself (a link costs no memory on tmpfs).
        os.link(f"{directory}/upload.bin", f"{directory}/www/stream.bin")
        with nginx(directory, NGINX_HTTP.format(dir=directory, port=port), f"{base}/download.bin"):
            results = {}
            for round_index in range(ROUNDS):
                print(f"Round {round_index + 1}/{ROUNDS}", flush=True)
                for client in UPLOADS if "upload" in PARTS else []:
                    results.setdefault(client, []).append(
                        measure(client, f"{base}/sink", f"{directory}/upload.bin", directory))
                for client in STORING_CLIENTS if "upload" in PARTS else []:
                    results.setdefault(f"{client}@store", []).append(
                        measure(client, f"{base}/store/upload.bin", f"{directory}/upload.bin", directory))
                for client in DOWNLOAD_CLIENTS if "download" in PARTS else []:
                    results.setdefault(client, []).append(
                        measure(client, f"{base}/download.bin", None, f"{directory}/downloads"))
                for client in STREAM_CLIENTS if "stream" in PARTS else []:
                    results.setdefault(client, []).append(
                        measure(client, f"{base}/stream.bin", None, f"{directory}/downloads"))
                    for name in os.listdir(f"{directory}/downloads"):  # a 1 GiB download would stay in memory
                        os.remove(f"{directory}/downloads/{name}")
                for client in SLOW_READERS if "slow" in PARTS else []:
                    results.setdefault(client, []).append(
                        measure(client, f"{base}/download.bin", None, f"{directory}/downloads"))
        report(results)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def ratio(results, client, baseline):
    return statistics.median(measured[0] / base[0] for measured, base in zip(results[client], results[baseline]))


def report(results):
    baselines = {
        "c-upload-raw": "c-upload-raw", "curl-upload-raw": "c-upload-raw", "urlsession-upload-raw": "c-upload-raw",
        "raw-urlsession-upload-fromfile": "c-upload-raw",
        "raw-urlsession-upload-stream": "raw-urlsession-upload-fromfile",
        "c-upload-multipart": "c-upload-multipart", "curl-upload-multipart": "c-upload-multipart",
        "urlsession-upload-multipart": "c-upload-multipart",
        "urlsession-upload-raw@store": "raw-urlsession-upload-fromfile@store",
        "urlsession-upload-multipart@store": "raw-urlsession-upload-fromfile@store",
        "raw-urlsession-upload-fromfile@store": "raw-urlsession-upload-fromfile@store",
        "raw-urlsession-upload-stream@store": "raw-urlsession-upload-fromfile@store",
        "c-download": "c-download", "curl-download": "c-download", "urlsession-download": "c-download",
        "c-stream": "c-stream", "curl-stream": "c-stream", "urlsession-stream": "urlsession-download-one",
        "urlsession-download-one": "c-stream",
        "curl-stream-slow": "curl-stream", "urlsession-stream-slow": "urlsession-stream",
    }
    print(f"\n{'client':<40}{'MiB/s':>8}{'ratio':>7}{'peak RSS MiB':>14}  vs")
    for client, baseline in baselines.items():
        if client not in results or baseline not in results:
            continue
        runs = results[client]
        print(f"{client:<40}{statistics.median(r[0] for r in runs):>8.0f}{ratio(results, client, baseline):>7.2f}"
              f"{statistics.median(r[1] for r in runs):>14.1f}  {baseline}")
    size = f"{UPLOAD_MIB // 1024}g" if UPLOAD_MIB % 1024 == 0 else f"{UPLOAD_MIB}m"
    names = {"upload-raw": f"upload_raw_{size}", "upload-multipart": f"upload_multipart_{size}",
             "download": f"download_{DOWNLOAD_MIB}m_x{DOWNLOADS}"}
    print()
    if "stream" in PARTS:
        stream = f"stream_{size}"
        rss = {client: statistics.median(r[1] for r in results[client]) for client in STREAM_CLIENTS}
        print(f"RESULT curl_{stream}_ratio {ratio(results, 'curl-stream', 'c-stream'):.2f}")
        print(f"RESULT curl_{stream}_rss_mib {rss['curl-stream']:.1f}")
        print(f"RESULT c_{stream}_rss_mib {rss['c-stream']:.1f}")
        print(f"RESULT urlsession_{stream}_ratio_vs_download {ratio(results, 'urlsession-stream', 'urlsession-download-one'):.2f}")
        print(f"RESULT urlsession_{stream}_rss_mib {rss['urlsession-stream']:.1f}")
        print(f"RESULT urlsession_download_{size}_rss_mib {rss['urlsession-download-one']:.1f}")
    if "slow" in PARTS:
        # The slow reader's peak RSS, and how much it exceeds the fast reader's (same transport, same process
        # shape; the fast one read 1 GiB, the slow one 64 MiB: a fast reader's memory does not grow with the body).
        for prefix in ("curl", "urlsession"):
            slow = statistics.median(r[1] for r in results[f"{prefix}-stream-slow"])
            print(f"RESULT {prefix}_stream_slow_reader_rss_mib {slow:.1f}")
            if "stream" in PARTS:
                fast = statistics.median(r[1] for r in results[f"{prefix}-stream"])
                print(f"RESULT {prefix}_stream_slow_reader_rss_over_fast_mib {slow - fast:.1f}")
    if "upload" not in PARTS or "download" not in PARTS:
        return
    for action, name in names.items():
        print(f"RESULT curl_{name}_ratio {ratio(results, f'curl-{action}', f'c-{action}'):.2f}")
        for client in (f"c-{action}", f"curl-{action}", f"urlsession-{action}"):
            prefix = client.split("-")[0]
            print(f"RESULT {prefix}_{name}_rss_mib {statistics.median(r[1] for r in results[client]):.1f}")
        print(f"RESULT urlsession_{name}_ratio {ratio(results, f'urlsession-{action}', f'c-{action}'):.2f}")
    for action in ("upload-raw", "upload-multipart"):
        print(f"RESULT urlsession_{names[action]}_ratio_vs_fromfile "
              f"{ratio(results, f'urlsession-{action}@store', 'raw-urlsession-upload-fromfile@store'):.2f}")
        print(f"RESULT urlsession_{names[action]}_ratio_vs_fromfile_discarding_server "
              f"{ratio(results, f'urlsession-{action}', 'raw-urlsession-upload-fromfile'):.2f}")
    for suffix, server in (("", "@store"), ("_discarding_server", "")):
        print(f"RESULT raw_urlsession_upload_stream_{size}_ratio_vs_fromfile{suffix} "
              f"{ratio(results, f'raw-urlsession-upload-stream{server}', f'raw-urlsession-upload-fromfile{server}'):.2f}")
    print(f"RESULT raw_urlsession_upload_fromfile_{size}_rss_mib "
          f"{statistics.median(r[1] for r in results['raw-urlsession-upload-fromfile']):.1f}")


if __name__ == "__main__":
    sys.exit(main())
