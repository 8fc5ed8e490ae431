import RestingServerHarness

extension TransportConformance {
    /// One check of the suite, to run on its own — so that a test target can run them in parallel:
    ///
    /// ```swift
    /// @Test(arguments: TransportConformance.Check.allCases)
    /// func conforms(_ check: TransportConformance.Check) async throws {
    ///     try await TransportConformance(name: "MyTransport", capabilities: .init()) { _ in MyTransport() }.run(check)
    /// }
    /// ```
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        case methods
        case requestHeaders
        case requestBodies
        case hugeTimeouts
        case framingHeaders
        case invalidRequests
        case concurrentRequests
        case statuses
        case authenticationChallenges
        case trailersAreNotHeaders
        case responseHeaders
        case responseSizeLimit
        case progress
        case decompression
        case redirectMethodsAndBodies
        case redirectLimitsAndLoops
        case redirectCredentials
        case redirectSchemes
        case timeouts
        case dripWithDefaults
        case cancellation
        case reuseAfterFault
        case unusualFraming
        case faults
        case streamsWithoutBuffering
        case backPressure
        case streamCancellation
        case streamErrors
        case streamShape

        public var description: String { rawValue }

        /// Checks of streamed bodies, which need a server with a socket to fill or close.
        public var needsWire: Bool { Self.streaming.contains(self) }

        private static let streaming: Set<Check> = [.streamsWithoutBuffering, .backPressure, .streamCancellation, .streamErrors, .streamShape]
    }

    /// Runs `check`. A streaming check against a model backend (no socket) does nothing.
    public func run(_ check: Check) async throws {
        guard !check.needsWire || server is LocalServer else { return }
        switch check {
        case .methods: try await methods()
        case .requestHeaders: try await requestHeaders()
        case .requestBodies: try await requestBodies()
        case .hugeTimeouts: try await hugeTimeouts()
        case .framingHeaders: try await framingHeaders()
        case .invalidRequests: try await invalidRequests()
        case .concurrentRequests: try await concurrentRequests()
        case .statuses: try await statuses()
        case .authenticationChallenges: try await authenticationChallenges()
        case .trailersAreNotHeaders: try await trailersAreNotHeaders()
        case .responseHeaders: try await responseHeaders()
        case .responseSizeLimit: try await responseSizeLimit()
        case .progress: try await progress()
        case .decompression: try await decompression()
        case .redirectMethodsAndBodies: try await redirectMethodsAndBodies()
        case .redirectLimitsAndLoops: try await redirectLimitsAndLoops()
        case .redirectCredentials: try await redirectCredentials()
        case .redirectSchemes: try await redirectSchemes()
        case .timeouts: try await timeouts()
        case .dripWithDefaults: try await dripWithDefaults()
        case .cancellation: try await cancellation()
        case .reuseAfterFault: try await reuseAfterFault()
        case .unusualFraming: try await unusualFraming()
        case .faults: try await faults()
        case .streamsWithoutBuffering: try await streamsWithoutBuffering()
        case .backPressure: try await backPressure()
        case .streamCancellation: try await streamCancellation()
        case .streamErrors: try await streamErrors()
        case .streamShape: try await streamShape()
        }
    }

    /// Runs every check of the suite, one after the other: what a transport must pass before it is used. It
    /// takes about a minute (one check waits for the default minimum transfer rate to cut a server that drips
    /// a byte a second); run the ``Check``s as parametrised tests to have them run in parallel.
    public func runAll() async throws {
        for check in Check.allCases { try await run(check) }
    }
}
