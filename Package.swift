// swift-tools-version:6.2
import PackageDescription

// Module boundaries follow DESIGN.md: Core never imports a transport, a transport never sees an `Endpoint`,
// and the umbrella `RestingKit` is the only module that picks a default transport.
let package = Package(
    name: "RestingKit",
    // macOS 15 / iOS 18 is where `TaskExecutor` preferences exist; the transports run the pipeline on them.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "RestingKit", targets: ["RestingKit"]),
        .library(name: "RestingCore", targets: ["RestingCore"]),
        .library(name: "RestingMultipart", targets: ["RestingMultipart"]),
        .library(name: "RestingURLSession", targets: ["RestingURLSession"]),
        .library(name: "RestingCurl", targets: ["RestingCurl"]),
        // For your test targets: mocks and record/replay.
        .library(name: "RestingTesting", targets: ["RestingTesting"]),
        // The conformance suite the shipped transports pass, for anyone's `HTTPClient` (test targets only).
        .library(name: "RestingTransportConformance", targets: ["RestingTransportConformance"]),
        .executable(name: "RestingKitDemo", targets: ["RestingKitDemo"]),
    ],
    targets: [
        // multipart/form-data bodies that stream files from disk; knows nothing of HTTP clients.
        .target(name: "RestingMultipart", path: "Sources/Multipart"),
        .target(name: "RestingCore", dependencies: ["RestingMultipart"], path: "Sources/Core"),
        .target(name: "RestingURLSession", dependencies: ["RestingCore"], path: "Sources/TransportURLSession"),
        // libcurl (Debian: libcurl4-openssl-dev); a C shim because curl_easy_setopt is variadic.
        .target(name: "CCurl", path: "Sources/CCurl"),
        .target(name: "RestingCurl", dependencies: ["RestingCore", "CCurl"], path: "Sources/TransportCurl"),
        .target(name: "RestingTesting", dependencies: ["RestingCore"], path: "Sources/TestingKit"),
        .target(name: "RestingKit", dependencies: ["RestingCore", "RestingURLSession"], path: "Sources/RestingKit"),
        // Starts and stops the bundled image_server for the demo and the tests, and checks digests of what went
        // through it; not part of any product.
        .target(name: "RestingServerHarness", dependencies: ["RestingCore"], path: "Sources/ServerHarness"),
        .executableTarget(
            name: "RestingKitDemo", dependencies: ["RestingKit", "RestingCurl", "RestingServerHarness"],
            path: "Sources/Demo"),
        // Helpers shared by the test targets.
        .target(name: "RestingTestSupport", dependencies: ["RestingCore"], path: "Tests/Support"),
        // The transport conformance suite: checks any HTTPClient against the conformance server.
        .target(
            name: "RestingTransportConformance",
            dependencies: ["RestingCore", "RestingTesting", "RestingServerHarness", "RestingTestSupport"],
            path: "Tests/Conformance", exclude: ["https_proxy.py", "make_certificates.sh", "nginx_h2.py"],
            resources: [.copy("conformance_server.py")]),
        // Fuzz targets for every parser a server's or a caller's bytes reach (`make fuzz`), and the program that
        // runs them: under libFuzzer when built with -D FUZZING -sanitize=fuzzer, else replaying files.
        .target(name: "RestingFuzzTargets", dependencies: ["RestingCore", "RestingMultipart"], path: "Fuzz/Targets"),
        .executableTarget(name: "RestingFuzz", dependencies: ["RestingFuzzTargets"], path: "Fuzz/Runner"),
        // Killed at random points by the offline queue's crash test.
        .executableTarget(name: "CrashProbe", dependencies: ["RestingCore"], path: "Tests/CrashProbe"),
        .testTarget(
            name: "CoreTests",
            dependencies: [
                "RestingCore", "RestingTesting", "RestingTestSupport", "RestingServerHarness", "CrashProbe",
                "RestingFuzzTargets",
            ],
            path: "Tests/CoreTests"),
        .testTarget(
            name: "MultipartTests", dependencies: ["RestingMultipart", "RestingFuzzTargets"],
            path: "Tests/MultipartTests"),
        .testTarget(
            name: "URLSessionTests", dependencies: ["RestingURLSession", "RestingServerHarness", "RestingTestSupport"],
            path: "Tests/URLSessionTests"),
        // `make bench`: the small-request benchmark's Swift side (Benchmarks/bench.py drives it).
        .executableTarget(
            name: "RestingKitBenchmarks",
            dependencies: ["RestingCore", "RestingCurl", "RestingURLSession", "RestingKitBenchmarkSupport", "CCurl"],
            path: "Benchmarks/Swift"),
        // `make bench`, large transfers (Benchmarks/streaming.py): the RestingClient side, and CurlClient's runs
        // in a binary without FoundationNetworking, so that their peak RSS is the transport's own.
        .target(
            name: "RestingKitBenchmarkSupport", dependencies: ["RestingCore", "RestingMultipart"],
            path: "Benchmarks/Support"),
        .executableTarget(
            name: "RestingCurlStreamingBenchmark", dependencies: ["RestingCurl", "RestingKitBenchmarkSupport"],
            path: "Benchmarks/CurlStreaming"),
        // `make soak`: both transports under a bounded mixed load with faults, resources sampled.
        .executableTarget(
            name: "RestingSoak",
            dependencies: ["RestingCore", "RestingCurl", "RestingURLSession", "RestingServerHarness"],
            path: "Benchmarks/Soak"),
        .testTarget(
            name: "CurlTests",
            dependencies: ["RestingCurl", "RestingServerHarness", "RestingTestSupport", "RestingTransportConformance"],
            path: "Tests/CurlTests"),
        // Every transport through the conformance kit (ours and a user-side one), and HTTP/2 and connection reuse.
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "RestingCurl", "RestingURLSession", "RestingTesting", "RestingServerHarness", "RestingTestSupport",
                "RestingTransportConformance",
            ],
            path: "Tests/ConformanceTests"),
        .testTarget(
            name: "StreamingTests",
            dependencies: ["RestingCurl", "RestingURLSession", "RestingServerHarness", "RestingTestSupport"],
            path: "Tests/StreamingTests"),
        .testTarget(
            name: "HTTPSemanticsTests",
            dependencies: [
                "RestingCurl", "RestingURLSession", "RestingTesting", "RestingServerHarness", "RestingTestSupport",
            ],
            path: "Tests/HTTPSemanticsTests", exclude: ["recording_server.py"]),
        // Stand-ins declaring the public type names of the packages our users import beside us, and a test that
        // uses RestingKit's names unqualified beside them: it compiles only while none collides.
        .target(name: "NameCollisionStandIns", path: "Tests/NameCollisions/StandIns"),
        .testTarget(
            name: "NameCollisionTests",
            dependencies: [
                "RestingKit", "RestingCurl", "RestingMultipart", "RestingTesting", "NameCollisionStandIns",
            ],
            path: "Tests/NameCollisionTests"),
        .testTarget(
            name: "RestingKitTests",
            dependencies: [
                "RestingKit", "RestingCurl", "RestingTesting", "RestingServerHarness", "RestingTestSupport",
            ],
            path: "Tests/RestingKitTests"),
    ],
    swiftLanguageModes: [.v6]
)
