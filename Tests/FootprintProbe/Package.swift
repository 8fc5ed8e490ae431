// swift-tools-version:6.2
import PackageDescription

// The process CallFootprintTests reads the memory of waiting calls from, built optimised by `make test` (the frames
// a waiting call holds are the optimiser's to shape). A package of its own so that the package apps depend on
// declares libraries only.
let package = Package(
    name: "FootprintProbe",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "RestingKit", path: "../..")],
    targets: [
        .target(name: "HeapUsage", path: "Sources/HeapUsage"),
        .executableTarget(
            name: "FootprintProbe",
            dependencies: ["HeapUsage", .product(name: "RestingCore", package: "RestingKit")],
            path: "Sources/FootprintProbe"),
    ],
    swiftLanguageModes: [.v6]
)
