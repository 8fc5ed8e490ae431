import RestingCurl
import RestingKitBenchmarkSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The streaming benchmark's CurlClient runs: RestingCurlStreamingBenchmark ACTION URL [FILE | COUNT DIR],
// ACTION one of StreamingTransfer.actions. A binary of its own, without FoundationNetworking, so that the peak
// RSS it reports is what an app on CurlClient pays.
let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "stream-open", let count = Int(arguments[3]) {
    // RestingCurlStreamingBenchmark stream-open BASE_URL COUNT: see OpenStreams.
    try await OpenStreams.run(base: arguments[2], count: count)
    exit(0)
}
if arguments.count == 4, WebSocketBench.modes.contains(arguments[1]), let count = Int(arguments[3]) {
    // RestingCurlStreamingBenchmark ws-echo|ws-echo-1m|ws-open BASE_URL COUNT: see WebSocketBench.
    try await WebSocketBench.run(arguments[1], base: arguments[2], count: count)
    exit(0)
}
guard arguments.count >= 3, StreamingTransfer.actions.contains(arguments[1]) else {
    print("usage: RestingCurlStreamingBenchmark upload-raw|upload-multipart|download|stream URL [FILE | COUNT DIR]")
    exit(2)
}
// For Benchmarks/http3.py: BENCH_CA trusts that authority, BENCH_HTTP3=1 speaks HTTP/3 only.
var configuration = CurlConfiguration()
configuration.tls.caFile = getenv("BENCH_CA").map { String(cString: $0) }
if getenv("BENCH_HTTP3") != nil { configuration.httpVersion = .http3Only }
try await StreamingTransfer.run(arguments[1], arguments[2...], httpClient: try CurlClient(configuration: configuration))
