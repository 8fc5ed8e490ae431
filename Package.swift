// swift-tools-version:6.2
import PackageDescription

// The package apps depend on: the libraries only. Module boundaries follow the DocC catalogue's architecture article
// (Documentation/RestingCore.docc/Architecture.md): Core never imports a transport, a transport never sees an
// `Endpoint`, and the umbrella `RestingKit` is the only module that picks a default transport. The demo, the
// benchmarks and soak, the fuzz runner and the crash probe are packages of their own in this repository (Demo/,
// Benchmarks/, Fuzz/, Tests/CrashProbe/), which depend on this one by path.
let package = Package(
    name: "RestingKit",
    // macOS 15 / iOS 18 is where `TaskExecutor` preferences exist; the transports run the pipeline on them.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "RestingKit", targets: ["RestingKit"]),
        .library(name: "RestingCore", targets: ["RestingCore"]),
        .library(name: "RestingMultipart", targets: ["RestingMultipart"]),
        // One product per capability: an app may depend on RestingCore and only the capabilities it uses.
        .library(name: "RestingStreaming", targets: ["RestingStreaming"]),
        .library(name: "RestingWebSocket", targets: ["RestingWebSocket"]),
        // WebSocket's messages, close codes and failures, and the seam of a transport that speaks WebSocket itself.
        .library(name: "RestingWebSocketCore", targets: ["RestingWebSocketCore"]),
        .library(name: "RestingResilience", targets: ["RestingResilience"]),
        .library(name: "RestingCache", targets: ["RestingCache"]),
        .library(name: "RestingCookies", targets: ["RestingCookies"]),
        .library(name: "RestingOffline", targets: ["RestingOffline"]),
        .library(name: "RestingPagination", targets: ["RestingPagination"]),
        .library(name: "RestingJSONRPC", targets: ["RestingJSONRPC"]),
        .library(name: "RestingAuthentication", targets: ["RestingAuthentication"]),
        .library(name: "RestingLogging", targets: ["RestingLogging"]),
        // How the shipped transports connect (routes, keep-alive, a request's proxy); both re-export it.
        .library(name: "RestingConnections", targets: ["RestingConnections"]),
        .library(name: "RestingURLSession", targets: ["RestingURLSession"]),
        .library(name: "RestingCurl", targets: ["RestingCurl"]),
        // For writing a transport: what streams a response body and writes a download, beside RestingCore.
        .library(name: "RestingTransportKit", targets: ["RestingTransportKit"]),
        // For your test targets: the stub transport, mocks, a virtual clock and record/replay.
        .library(name: "RestingTesting", targets: ["RestingTesting"]),
        // The conformance suite the shipped transports pass, for anyone's `HTTPClient` (test targets only).
        .library(name: "RestingTransportConformance", targets: ["RestingTransportConformance"]),
        // Not API: what this repository's own tool packages (Demo/, Benchmarks/, Fuzz/) share with its tests.
        .library(name: "_RestingServerHarness", targets: ["RestingServerHarness"]),
        .library(name: "_RestingFuzzTargets", targets: ["RestingFuzzTargets"]),
        // The integrations: each is empty unless its trait is on (see `traits` below).
        .library(name: "RestingHTTPTypes", targets: ["RestingHTTPTypes"]),
        .library(name: "RestingMetrics", targets: ["RestingMetrics"]),
        .library(name: "RestingTracing", targets: ["RestingTracing"]),
        .library(name: "RestingOpenAPI", targets: ["RestingOpenAPI"]),
    ],
    // The integrations with the server-side ecosystem, all off by default: with none on, building RestingKit resolves
    // no package. An app turns one on where it depends on RestingKit:
    //     .package(url: "https://github.com/moray95/RestingKit.git", from: "1.0.0", traits: ["Logging"])
    traits: [
        .trait(
            name: "OpenAPI",
            description: "A ClientTransport that sends generated clients' operations through a RestingClient.",
            enabledTraits: ["HTTPTypes"]),
        .trait(
            name: "HTTPTypes",
            description: "Conversions to and from swift-http-types' HTTPRequest, HTTPResponse and HTTPFields."),
        .trait(
            name: "Logging",
            description: "An interceptor that logs every call through swift-log, with structured metadata."),
        .trait(
            name: "Metrics",
            description:
                "An interceptor that times and counts every call through swift-metrics, as OpenTelemetry names them."),
        .trait(
            name: "Tracing",
            description:
                "Spans for every call and exchange through swift-distributed-tracing, with the trace context sent on."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.8.0"),
    ],
    targets: [
        // multipart/form-data bodies that stream files from disk; knows nothing of HTTP clients.
        .target(name: "RestingMultipart"),
        .target(name: "RestingCore", dependencies: ["RestingMultipart"]),
        // The capabilities: each in Sources/<its name>, plugging into the call through the core's seams only.
        // Lines, JSON Lines and Server-Sent Events read from a streamed response body.
        .target(name: "RestingStreaming", dependencies: ["RestingCore"]),
        // WebSocket (RFC 6455) as a call's ending, with permessage-deflate.
        .target(name: "RestingWebSocket", dependencies: ["RestingCore", "RestingWebSocketCore", "CZlib"]),
        // What a WebSocket says (messages, close codes, failures), shared by the capability and a transport that
        // speaks WebSocket itself (URLSession's), which may import no capability.
        .target(name: "RestingWebSocketCore", dependencies: ["RestingCore"]),
        // Deadlines, circuit breakers, hedging, rate limits and adaptive concurrency limits, in one checked order.
        .target(name: "RestingResilience", dependencies: ["RestingCore"]),
        // The RFC 9111 HTTP cache interceptor and its stores.
        .target(name: "RestingCache", dependencies: ["RestingCore", "RestingMultipart"]),
        // The RFC 6265 cookie jar and its interceptor.
        .target(name: "RestingCookies", dependencies: ["RestingCore"]),
        // The offline queue: calls kept on disk while the network is away, replayed when it is back.
        .target(name: "RestingOffline", dependencies: ["RestingCore"]),
        // Pages, polling and remote resources.
        .target(name: "RestingPagination", dependencies: ["RestingCore"]),
        // JSON-RPC 2.0 over a RestingClient.
        .target(name: "RestingJSONRPC", dependencies: ["RestingCore"]),
        // Credentials: a bearer or Basic credential on every call, WWW-Authenticate challenges, Digest.
        .target(name: "RestingAuthentication", dependencies: ["RestingCore"]),
        // Logging every call, to standard error or a logger of your own; with the Logging trait, through swift-log.
        .target(
            name: "RestingLogging",
            dependencies: [
                "RestingCore", .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
            ]),
        // Connection control the shipped transports share: host overrides, routes, keep-alive, a request's proxy.
        .target(name: "RestingConnections", dependencies: ["RestingCore"]),
        // What only transport authors need, out of what an app sees.
        .target(name: "RestingTransportKit", dependencies: ["RestingCore"]),
        .target(
            name: "RestingURLSession",
            dependencies: ["RestingCore", "RestingConnections", "RestingTransportKit", "RestingWebSocketCore"]),
        // zlib, for WebSocket's permessage-deflate; a C shim because its stream initialisers are macros.
        .target(name: "CZlib"),
        // libcurl (Debian: libcurl4-openssl-dev); a C shim because curl_easy_setopt is variadic.
        .target(name: "CCurl"),
        .target(
            name: "RestingCurl", dependencies: ["RestingCore", "RestingConnections", "RestingTransportKit", "CCurl"]),
        .target(name: "RestingTesting", dependencies: ["RestingCore"]),
        // On Linux its default transport is CurlClient: FoundationNetworking there dies on a response with trailers.
        .target(
            name: "RestingKit",
            dependencies: [
                "RestingCore", "RestingURLSession", .target(name: "RestingCurl", condition: .when(platforms: [.linux])),
                "RestingStreaming", "RestingWebSocket", "RestingResilience", "RestingCache", "RestingCookies",
                "RestingOffline", "RestingPagination", "RestingJSONRPC", "RestingAuthentication", "RestingLogging",
                "RestingConnections", "RestingWebSocketCore",
            ]),
        .target(
            name: "RestingHTTPTypes",
            dependencies: [
                "RestingCore",
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"])),
            ]),
        .target(
            name: "RestingMetrics",
            dependencies: [
                "RestingCore", "RestingResilience",
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            ]),
        .target(
            name: "RestingTracing",
            dependencies: [
                "RestingCore",
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            ]),
        .target(
            name: "RestingOpenAPI",
            dependencies: [
                "RestingCore", "RestingHTTPTypes",
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
            ]),
        // Starts and stops the bundled image_server and the test servers, and checks digests of what went through
        // them: for the tests, the demo and the soak.
        .target(name: "RestingServerHarness", dependencies: ["RestingCore"]),
        // Helpers shared by the test targets.
        .target(
            name: "RestingTestSupport", dependencies: ["RestingWebSocket", "RestingCore", "RestingServerHarness"],
            path: "Tests/Support"),
        // The transport conformance suite: checks any HTTPClient against the conformance server.
        .target(
            name: "RestingTransportConformance",
            dependencies: [
                "RestingStreaming", "RestingWebSocket", "RestingCore", "RestingTesting", "RestingServerHarness",
                "RestingTestSupport",
            ],
            path: "Tests/Conformance",
            exclude: [
                "auth_proxy.py", "https_proxy.py", "make_certificates.sh", "nginx_h2.py", "proxy_peers.py",
                "websocket_peers.py",
            ],
            resources: [.copy("conformance_server.py"), .copy("websocket_server.py")]),
        // A fuzz target for every parser a server's or a caller's bytes reach: run under libFuzzer by Fuzz/'s
        // runner (`make fuzz`), and their saved inputs replayed by FuzzRegressionTests in `make test`.
        .target(
            name: "RestingFuzzTargets",
            dependencies: [
                "RestingOffline", "RestingPagination", "RestingResilience",
                "RestingCore", "RestingMultipart", "RestingCurl", "RestingWebSocket", "RestingStreaming",
                "RestingCookies",
                "RestingCache", "RestingAuthentication",
            ],
            path: "Tests/FuzzTargets"),
        .testTarget(
            name: "CoreTests",
            dependencies: [
                "RestingLogging",
                "RestingCore", "RestingTesting", "RestingTestSupport", "RestingServerHarness", "RestingFuzzTargets",
                "RestingStreaming", "RestingWebSocket", "RestingResilience", "RestingCache", "RestingCookies",
                "RestingOffline", "RestingPagination", "RestingJSONRPC", "RestingAuthentication",
            ],
            path: "Tests/CoreTests"),
        .testTarget(
            name: "MultipartTests", dependencies: ["RestingMultipart", "RestingFuzzTargets"],
            path: "Tests/MultipartTests"),
        .testTarget(
            name: "URLSessionTests",
            dependencies: [
                "RestingConnections", "RestingStreaming", "RestingURLSession", "RestingServerHarness",
                "RestingTestSupport",
            ],
            path: "Tests/URLSessionTests"),
        .testTarget(
            name: "CurlTests",
            dependencies: [
                "RestingConnections", "RestingLogging",
                "RestingCache", "RestingStreaming", "RestingWebSocket", "RestingCurl", "RestingServerHarness",
                "RestingTestSupport", "RestingTransportConformance",
            ],
            path: "Tests/CurlTests"),
        // Every transport through the conformance kit (ours and a user-side one), what RestingTransportKit gives a
        // transport author, and HTTP/2 and connection reuse.
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "RestingStreaming",
                "RestingCurl", "RestingURLSession", "RestingTesting", "RestingServerHarness", "RestingTestSupport",
                "RestingTransportConformance", "RestingTransportKit",
            ],
            path: "Tests/ConformanceTests"),
        .testTarget(
            name: "StreamingTests",
            dependencies: [
                "RestingAuthentication",
                "RestingStreaming", "RestingCurl", "RestingURLSession", "RestingServerHarness", "RestingTestSupport",
            ],
            path: "Tests/StreamingTests"),
        .testTarget(
            name: "HTTPSemanticsTests",
            dependencies: [
                "RestingAuthentication", "RestingCache", "RestingCookies", "RestingOffline", "RestingPagination",
                "RestingResilience", "RestingStreaming", "RestingWebSocket",
                "RestingCurl", "RestingURLSession", "RestingTesting", "RestingServerHarness", "RestingTestSupport",
            ],
            path: "Tests/HTTPSemanticsTests", exclude: ["recording_server.py", "digest_server.py", "chaos_server.py"]),
        // Stand-ins declaring the public type names of the packages our users import beside us, and a test that
        // uses RestingKit's names unqualified beside them: it compiles only while none collides.
        .target(name: "NameCollisionStandIns", path: "Tests/NameCollisions/StandIns"),
        .testTarget(
            name: "NameCollisionTests",
            dependencies: [
                "RestingKit", "RestingCurl", "RestingMultipart", "RestingTesting", "RestingLogging",
                "RestingMetrics", "RestingTracing", "RestingOpenAPI", "RestingTransportKit", "NameCollisionStandIns",
            ],
            path: "Tests/NameCollisionTests"),
        // The client swift-openapi-generator made of image_server's API (Tests/OpenAPIClient/generate.sh), over
        // RestingKit: empty unless the OpenAPI trait is on.
        .testTarget(
            name: "OpenAPIClientTests",
            dependencies: [
                "RestingAuthentication",
                "RestingCache",
                "RestingOpenAPI", "RestingCurl", "RestingURLSession", "RestingServerHarness", "RestingTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
            ],
            path: "Tests/OpenAPIClientTests"),
        // What each trait adds; the whole target compiles to nothing for a trait that is off.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "RestingAuthentication",
                "RestingCache", "RestingResilience", "RestingStreaming",
                "RestingHTTPTypes", "RestingLogging", "RestingMetrics", "RestingTracing", "RestingOpenAPI",
                "RestingCurl",
                "RestingURLSession",
                "RestingTesting",
                "RestingServerHarness", "RestingTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(
                    name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])
                ),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
            ],
            path: "Tests/IntegrationTests"),
        .testTarget(
            name: "RestingKitTests",
            dependencies: [
                "RestingAuthentication", "RestingOffline", "RestingPagination", "RestingStreaming",
                "RestingKit", "RestingCurl", "RestingTesting", "RestingServerHarness", "RestingTestSupport",
            ],
            path: "Tests/RestingKitTests"),
    ],
    swiftLanguageModes: [.v6]
)
