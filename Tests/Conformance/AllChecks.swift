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
    @nonexhaustive
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        /// ``methods()``: Every standard method, and a custom one, reaches the server as sent.
        case methods
        /// ``requestHeaders()``: Request headers arrive in order, with repeats; names keep their case where the
        /// transport can.
        case requestHeaders
        /// ``requestBodies()``: Bodies of 0 B, 1 B and 1 MiB, from memory and from a file, arrive byte for byte;
        /// sending the same request twice (a retry) reads its body again from the start.
        case requestBodies
        /// ``hugeTimeouts()``: A timeout of any size — a century, `Int64.max` seconds — is accepted and simply never
        /// fires; nothing overflows converting it.
        case hugeTimeouts
        /// ``framingHeaders()``: Framing is the transport's alone: a caller's `Content-Length`, `Transfer-Encoding` or
        /// `Expect` never reaches the server, so the length it reads always matches the bytes that follow.
        case framingHeaders
        /// ``invalidRequests()``: A request no server should see — CR/LF or a bad name in a header, a method that is
        /// not a token, a body on a `GET` — fails with its typed error before anything is sent.
        case invalidRequests
        /// ``concurrentRequests(count:)``: Many requests at once all complete.
        case concurrentRequests
        /// ``statuses()``: 204, 304, 404 and 500, with and without a body, are responses, never errors.
        case statuses
        /// ``authenticationChallenges()``: A 401 with a Basic, Digest or Bearer challenge, and a 407 with a proxy's,
        /// are responses like any other: they reach the caller at once (so an auth interceptor can refresh), never a
        /// hang or a timeout.
        case authenticationChallenges
        /// ``trailersAreNotHeaders()``: Trailers after a chunked body never join the response's headers, where a
        /// `Location` or `Retry-After` could steer what the checks of the head already decided.
        case trailersAreNotHeaders
        /// ``trailersOnAKeptConnection()``: A chunked body with trailers on a kept-alive connection arrives whole,
        /// its trailers never among its headers, and the connection serves the next request.
        case trailersOnAKeptConnection
        /// ``statusLines()``: A status line RFC 9112 allows (an empty reason after its space) is a response; one it
        /// does not (no space after the code, a code that is not three digits, no version, a protocol name not in
        /// capitals) fails as `.malformedResponse`.
        case statusLines
        /// ``responseHeaders()``: Repeated response headers are all received.
        case responseHeaders
        /// ``responseSizeLimit()``: A body larger than the transport's limit fails with `.responseTooLarge`; one
        /// within it arrives whole.
        case responseSizeLimit
        /// ``progress()``: Progress never goes backwards, and before the call returns it reports every byte sent and
        /// received.
        case progress
        /// ``decompression()``: gzip and deflate bodies are decoded transparently.
        case decompression
        /// ``redirectMethodsAndBodies()``: 301/302 turn a POST into a GET without body, 303 always does, 307/308 keep
        /// method and body.
        case redirectMethodsAndBodies
        /// ``redirectLimitsAndLoops(maximumRedirects:)``: A chain within the limit is followed; past it, and in a
        /// loop, the call fails with a typed error.
        case redirectLimitsAndLoops
        /// ``redirectCredentials()``: Credentials go on to the same origin and are dropped on a hop to another one.
        case redirectCredentials
        /// ``redirectSchemes()``: A redirect to a scheme other than HTTP(S) is never followed: the 3xx itself is the
        /// answer.
        case redirectSchemes
        /// ``timeouts()``: A request slower than its timeout fails as timed out; a server that goes silent fails on
        /// the idle timeout; a connection that never completes fails on the connect timeout.
        case timeouts
        /// ``dripWithDefaults()``: With nothing configured, a server that drips one byte a second is still cut off —
        /// by the default ``/RestingCore/MinimumTransferRate`` — as timed out.
        case dripWithDefaults
        /// ``cancellation()``: Cancelling mid-request, mid-upload and mid-download ends the call with `.cancelled`.
        case cancellation
        /// ``reuseAfterFault()``: A kept-alive connection serves the next request, and a connection that failed
        /// mid-response is never used again: the call after the fault succeeds on a new one.
        case reuseAfterFault
        /// ``unusualFraming()``: What a server may send that is odd but valid: an interim 103 before the answer (only
        /// the final head counts), both framings at once (chunked wins, never the length), and a compressed body that
        /// decodes to far more than the size limit (stopped at the limit).
        case unusualFraming
        /// ``faults()``: Each way a server can misbehave ends in the exact kind of transport error that retry and
        /// offline decisions depend on — never a hang, a crash or a success.
        case faults
        /// ``streamsWithoutBuffering()``: The head of a streamed response arrives before its body, and each chunk
        /// reaches the reader as soon as the server sends it: `/gated` sends part 1 only after the test, holding part
        /// 0, released it.
        case streamsWithoutBuffering
        /// ``backPressure()``: A reader that stops stops the transfer: the server cannot send (its socket's buffer
        /// stays full) while the reader holds one chunk of a 32 MiB body; then the reader resumes and every byte
        /// arrives, in order.
        case backPressure
        /// ``slowReader()``: A reader slower than the network holds no more than the buffer: the bytes the stream
        /// still holds never pass the buffer size plus one chunk, and every byte arrives in order.
        case slowReader
        /// ``streamCancellation()``: Leaving the loop, cancelling the reading task, or cancelling the stream ends the
        /// transfer: the server sees its connection closed.
        case streamCancellation
        /// ``streamErrors()``: A body cut midway fails the reader with the same error a buffered call fails with; a
        /// server silent between chunks fails on the idle timeout; a head slower than the request's timeout fails the
        /// call.
        case streamErrors
        /// ``streamShape()``: A streamed body is read once: a second iteration fails at once.
        case streamShape
        /// ``minimumRateSparesStreams()``: The minimum transfer rate cuts a buffered call that drips, as timed out,
        /// and never a streamed body that drips as slowly.
        case minimumRateSparesStreams
        /// ``duplex()``: A request body produced while its response is read: a whole one, on every transport; where
        /// the transport is full duplex, one each part of which waits for the server's answer to the last, whose
        /// response ends for its reader when the server ends it with the body still open.
        case duplex
        /// ``trailers()``: Trailer fields both ways, where the transport has them: a chunked body's, buffered and
        /// streamed, never among the headers; an upload's after its body, a forbidden one refused. Elsewhere an
        /// upload with trailers fails as unsupported.
        case trailers
        /// ``webSocketMessages()``: WebSocket messages of 0 B to 16 MiB come back whole, compressed or not;
        /// fragments with pings between them make one message; concurrent sends go out whole.
        case webSocketMessages
        /// ``webSocketClosing()``: The close handshake both ways, with its codes and reasons.
        case webSocketClosing
        /// ``webSocketHostilePeers()``: A refused upgrade, an invalid `101`, every RFC 6455 violation, a bomb, a
        /// vanishing and a silent server each end in their typed error and close code.
        case webSocketHostilePeers
        /// ``webSocketBackPressure()``: A reader that does not read stops the socket; a server that does not read
        /// makes `send` wait.
        case webSocketBackPressure

        public var description: String { rawValue }

        /// Checks of streamed bodies, which need a server with a socket to fill or close.
        public var needsWire: Bool { Self.streaming.contains(self) }

        private static let streaming: Set<Check> = [
            .streamsWithoutBuffering, .backPressure, .slowReader, .streamCancellation, .streamErrors, .streamShape,
            .minimumRateSparesStreams, .duplex, .trailers, .webSocketMessages, .webSocketClosing,
            .webSocketHostilePeers, .webSocketBackPressure,
        ]
    }

    /// Runs `check`. A streaming check against a backend without a wire (``ConformanceBackend/hasWire``, a model) does
    /// nothing.
    public func run(_ check: Check) async throws {
        guard !check.needsWire || server.hasWire else { return }
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
        case .trailersOnAKeptConnection: try await trailersOnAKeptConnection()
        case .statusLines: try await statusLines()
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
        case .slowReader: try await slowReader()
        case .streamCancellation: try await streamCancellation()
        case .streamErrors: try await streamErrors()
        case .streamShape: try await streamShape()
        case .minimumRateSparesStreams: try await minimumRateSparesStreams()
        case .duplex: try await duplex()
        case .trailers: try await trailers()
        case .webSocketMessages: try await webSocketMessages()
        case .webSocketClosing: try await webSocketClosing()
        case .webSocketHostilePeers: try await webSocketHostilePeers()
        case .webSocketBackPressure: try await webSocketBackPressure()
        }
    }

    /// Runs every check of the suite, one after the other: what a transport must pass before it is used. It
    /// takes about a minute (one check waits for the default minimum transfer rate to cut a server that drips
    /// a byte a second); run the ``Check``s as parametrised tests to have them run in parallel.
    public func runAll() async throws {
        for check in Check.allCases { try await run(check) }
    }
}
