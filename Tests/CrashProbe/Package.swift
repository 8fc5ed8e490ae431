// swift-tools-version:6.2
import PackageDescription

// A process apart from the tests: the crash tests of the durable stores (CoreTests) kill it at random points, the
// proxy-environment tests (CurlTests) give it variables of their own; `make test` builds it before the tests. A
// package of its own so that the package apps depend on declares libraries only.
let package = Package(
    name: "CrashProbe",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "RestingKit", path: "../..")],
    targets: [
        .executableTarget(
            name: "CrashProbe",
            dependencies: [
                .product(name: "RestingCore", package: "RestingKit"),
                .product(name: "RestingCurl", package: "RestingKit"),
                .product(name: "RestingCookies", package: "RestingKit"),
                .product(name: "RestingOffline", package: "RestingKit"),
                .product(name: "RestingWebSocket", package: "RestingKit"),
                .product(name: "RestingURLSession", package: "RestingKit"),
            ],
            path: "Sources")
    ],
    swiftLanguageModes: [.v6]
)
