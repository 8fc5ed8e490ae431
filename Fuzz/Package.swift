// swift-tools-version:6.2
import PackageDescription

// `make fuzz`: the program that runs RestingKit's fuzz targets (Tests/FuzzTargets) under libFuzzer when built with
// -D FUZZING -sanitize=fuzzer, and otherwise replays files. A package of its own so that the package apps depend on
// declares libraries only.
let package = Package(
    name: "RestingFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "RestingKit", path: "..")],
    targets: [
        .executableTarget(
            name: "RestingFuzz", dependencies: [.product(name: "_RestingFuzzTargets", package: "RestingKit")],
            path: "Runner")
    ],
    swiftLanguageModes: [.v6]
)
