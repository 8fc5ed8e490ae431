// swift-tools-version:6.2
import PackageDescription

// The process the footprint and allocation budgets read their figures from (CallFootprintTests,
// AllocationBudgetTests), built optimised by `make test`: the frames a waiting call holds and the allocations a call
// makes are the optimiser's to shape. A package of its own so that the package apps depend on
// declares libraries only.
let package = Package(
    name: "FootprintProbe",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "RestingKit", path: "../..")],
    targets: [
        .target(name: "HeapUsage", path: "Sources/HeapUsage"),
        .target(name: "AllocationCounter", path: "Sources/AllocationCounter"),
        .target(name: "MetadataLookupCounter", path: "Sources/MetadataLookupCounter"),
        .executableTarget(
            name: "FootprintProbe",
            dependencies: [
                "HeapUsage", "AllocationCounter", "MetadataLookupCounter",
                .product(name: "RestingCore", package: "RestingKit"),
                .product(name: "RestingCurl", package: "RestingKit"),
                .product(name: "RestingResilience", package: "RestingKit"),
                .product(name: "RestingStreaming", package: "RestingKit"),
                .product(name: "RestingWebSocket", package: "RestingKit"),
            ],
            path: "Sources/FootprintProbe"),
    ],
    swiftLanguageModes: [.v6]
)
