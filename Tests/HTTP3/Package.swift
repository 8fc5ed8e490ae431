// swift-tools-version:6.2
import PackageDescription

// The HTTP/3 suite: CurlClient against a QUIC server on 127.0.0.1 (h3_server.py, hypercorn), and the transport
// conformance kit over HTTP/3 (conformance_h3.py, relaying to the kit's server), on a libcurl that speaks HTTP/3. A package of its own so that `scripts/http3.sh test` builds just the modules it needs (RestingCurl and
// what it stands on) against that libcurl, in a build folder of their own, while the package apps depend on links
// the stock libcurl.
let package = Package(
    name: "HTTP3",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "RestingKit", path: "../..")],
    targets: [
        .testTarget(
            name: "HTTP3Tests",
            dependencies: [
                .product(name: "RestingCore", package: "RestingKit"),
                .product(name: "RestingCurl", package: "RestingKit"),
                .product(name: "_RestingServerHarness", package: "RestingKit"),
                .product(name: "RestingTransportConformance", package: "RestingKit"),
            ],
            path: "Tests/HTTP3Tests")
    ],
    swiftLanguageModes: [.v6]
)
