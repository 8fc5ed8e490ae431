// swift-tools-version:6.2
import PackageDescription

// `make demo`: the demo against the bundled image_server, on both transports. A package of its own so that the
// package apps depend on (the repository's root) declares libraries only.
let package = Package(
    name: "RestingKitDemo",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "RestingKit", path: "..")],
    targets: [
        .executableTarget(
            name: "RestingKitDemo",
            dependencies: [
                .product(name: "RestingKit", package: "RestingKit"),
                .product(name: "RestingCurl", package: "RestingKit"),
                .product(name: "_RestingServerHarness", package: "RestingKit"),
            ],
            path: "Sources/RestingKitDemo")
    ],
    swiftLanguageModes: [.v6]
)
