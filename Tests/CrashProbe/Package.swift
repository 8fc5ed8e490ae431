// swift-tools-version:6.2
import PackageDescription

// The process the crash tests of the durable stores (CoreTests) kill at random points; `make test` builds it
// before the tests. A package of its own so that the package apps depend on declares libraries only.
let package = Package(
    name: "CrashProbe",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "RestingKit", path: "../..")],
    targets: [
        .executableTarget(
            name: "CrashProbe", dependencies: [.product(name: "RestingCore", package: "RestingKit")], path: "Sources")
    ],
    swiftLanguageModes: [.v6]
)
