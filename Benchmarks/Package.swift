// swift-tools-version:6.2
import PackageDescription

// `make bench` (bench.py, streaming.py) and `make soak`: the programs they run, in a package of their own (as
// async-http-client keeps Benchmarks/Package.swift), so that the package apps depend on declares libraries only.
let package = Package(
    name: "RestingKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "RestingKit", path: "..")],
    targets: [
        // The small-request benchmark's Swift side (bench.py drives it). Its decode floor calls libcurl through
        // RestingCurl's C shim, the module CCurl, which the RestingCurl product builds.
        .executableTarget(
            name: "RestingKitBenchmarks",
            dependencies: [
                .product(name: "RestingCore", package: "RestingKit"),
                .product(name: "RestingCurl", package: "RestingKit"),
                .product(name: "RestingURLSession", package: "RestingKit"),
                .product(name: "RestingCache", package: "RestingKit"),
                .product(name: "RestingResilience", package: "RestingKit"),
                "RestingKitBenchmarkSupport",
            ],
            path: "Swift"),
        // Large transfers (streaming.py): the RestingClient side, and CurlClient's runs in a binary without
        // FoundationNetworking, so that their peak RSS is the transport's own.
        .target(
            name: "RestingKitBenchmarkSupport",
            dependencies: [
                .product(name: "RestingCore", package: "RestingKit"),
                .product(name: "RestingMultipart", package: "RestingKit"),
            ],
            path: "Support"),
        .executableTarget(
            name: "RestingCurlStreamingBenchmark",
            dependencies: [
                .product(name: "RestingCurl", package: "RestingKit"),
                .product(name: "RestingStreaming", package: "RestingKit"),
                .product(name: "RestingWebSocket", package: "RestingKit"), "RestingKitBenchmarkSupport",
            ],
            path: "CurlStreaming"),
        // `make soak`: both transports under a bounded mixed load with faults, resources sampled.
        .executableTarget(
            name: "RestingSoak",
            dependencies: [
                .product(name: "RestingCore", package: "RestingKit"),
                .product(name: "RestingCurl", package: "RestingKit"),
                .product(name: "RestingURLSession", package: "RestingKit"),
                .product(name: "RestingWebSocket", package: "RestingKit"),
                .product(name: "_RestingServerHarness", package: "RestingKit"),
            ],
            path: "Soak"),
    ],
    swiftLanguageModes: [.v6]
)
