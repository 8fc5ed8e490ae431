import Foundation
import RestingAuthentication
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import RestingURLSession
import Testing

/// Uploads produced while they are sent (`RequestBody.sequence`), on both transports, against image_server and the
/// conformance server.
@Suite("Uploads from an async sequence", .timeLimit(.minutes(5)))
struct SequenceUploadTests {
    let put = Endpoint<RequestBody, StoredUpload>(
        .put, "/upload/{{name}}", encoding: .raw(contentType: "application/octet-stream"))

    /// `count` chunks of `size` bytes, each released through a deallocator that counts it: `peak` is the most bytes
    /// produced and not yet let go by the client — how much of the upload was ever held at once.
    struct TrackedChunks: AsyncSequence, Sendable {
        let size: Int
        let count: Int
        private let usage = Locked((live: 0, peak: 0))

        init(size: Int, count: Int) {
            self.size = size
            self.count = count
        }

        var peak: Int { usage.withLock { $0.peak } }

        /// The SHA-256 of every byte the sequence yields.
        var sha256: String {
            get async throws { try await ChunkPatternDigest.sha256(chunkSize: size, count: count) }
        }

        struct AsyncIterator: AsyncIteratorProtocol {
            let chunks: TrackedChunks
            var index = 0

            mutating func next() async -> Data? {
                guard index < chunks.count else { return nil }
                defer { index += 1 }
                let size = chunks.size
                let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 1)
                memset(memory, Int32(index % 251), size)
                let usage = chunks.usage
                usage.withLock { usage in
                    usage.live += size
                    usage.peak = Swift.max(usage.peak, usage.live)
                }
                return Data(
                    bytesNoCopy: memory, count: size,
                    deallocator: .custom { pointer, count in
                        pointer.deallocate()
                        usage.withLock { $0.live -= count }
                    })
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
    }

    /// Yields what the test sends through `gate`, and records each request for a chunk and the end of the iteration.
    struct GatedChunks: AsyncSequence, Sendable {
        let stream: AsyncStream<Data>
        let gate: AsyncStream<Data>.Continuation
        let requested = Collector<Void>()
        let ended = Collector<Void>()

        init() {
            (stream, gate) = AsyncStream.makeStream(of: Data.self)
            let ended = ended
            gate.onTermination = { _ in ended.append(()) }
        }

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Data>.Iterator
            let requested: Collector<Void>

            mutating func next() async -> Data? {
                requested.append(())
                return await base.next()
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), requested: requested)
        }
    }

    struct ProducerFailure: Error {}

    /// A transport of the test's own: uploads held open on purpose must not show in the census that other suites take
    /// of the shared clients.
    static func transport(_ transport: Transport) throws -> any HTTPClient {
        switch transport {
        case .curl: try CurlClient()
        case .urlSession: URLSessionClient(configuration: .ephemeral)
        }
    }

    static func client(_ transport: Transport) async throws -> RestingClient {
        RestingClient(baseUrl: try await UploadServer.shared.value.baseURL, httpClient: try Self.transport(transport))
    }

    func upload(_ body: RequestBody, as name: String) -> RestingRequest<RequestBody, StoredUpload> {
        RestingRequest(endpoint: put, body: body, pathVariables: ["name": name])
    }

    @Test(
        "100 MiB from an async sequence arrive whole, and no more than 1 MiB of them is ever held",
        arguments: Transport.allCases)
    func hundredMebibytes(transport: Transport) async throws {
        let chunks = TrackedChunks(size: 64 * 1024, count: 1600)
        let client = try await Self.client(transport)
        let stored = try await client.send(upload(.sequence(chunks), as: "sequence-\(transport).bin")).body
        #expect(stored.size == 100 * 1024 * 1024)
        #expect(try await stored.sha256 == chunks.sha256)
        #expect(chunks.peak <= 1024 * 1024, "the producer is held to the network's pace")
    }

    @Test("a declared length is sent as Content-Length, and the body arrives whole", arguments: Transport.allCases)
    func declaredLength(transport: Transport) async throws {
        let chunks = TrackedChunks(size: 100_000, count: 30)
        let client = try await Self.client(transport)
        let body = RequestBody.sequence(chunks, contentLength: 3_000_000)
        let stored = try await client.send(upload(body, as: "declared-\(transport).bin")).body
        #expect(stored.size == 3_000_000)
        #expect(try await stored.sha256 == chunks.sha256)
    }

    @Test(
        "a producer slower than the network holds its upload back, not the client: another call completes meanwhile",
        arguments: Transport.allCases)
    func slowProducer(transport: Transport) async throws {
        let chunks = GatedChunks()
        let client = try await Self.client(transport)
        let uploading = Task { try await client.send(upload(.sequence(chunks), as: "gated-\(transport).bin")).body }
        chunks.gate.yield(Data("first ".utf8))
        await chunks.requested.wait { $0.count >= 2 }

        // The upload now waits for its producer; the client still answers other calls.
        let echo = Endpoint<Nothing, Data>(.get, "/echo", encoding: .query)
        #expect(try await client.send(RestingRequest(endpoint: echo)).status == 200)

        chunks.gate.yield(Data("second".utf8))
        chunks.gate.finish()
        let stored = try await uploading.value
        #expect(try UploadServer.storedBytes(stored) == Data("first second".utf8))
    }

    @Test("a producer that fails mid-body fails the call with bodyUnreadable", arguments: Transport.allCases)
    func failingProducer(transport: Transport) async throws {
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data(count: 1024 * 1024))
            continuation.finish(throwing: ProducerFailure())
        }
        let client = try await Self.client(transport)
        await #expect {
            try await client.send(upload(.sequence(failing), as: "failing-\(transport).bin"))
        } throws: { error in
            guard case .bodyUnreadable(let reason) = error as? RestingError else { return false }
            return reason.contains("ProducerFailure")
        }
    }

    @Test(
        "cancelling a call whose producer has nothing to give ends it with .cancelled, and ends the iteration",
        arguments: Transport.allCases)
    func cancelWhileWaiting(transport: Transport) async throws {
        let client = try await Self.client(transport)
        for round in 0..<10 {
            let chunks = GatedChunks()
            let call = client.perform(upload(.sequence(chunks), as: "cancelled-\(transport)-\(round).bin"))
            chunks.gate.yield(Data(count: 100_000))
            await chunks.requested.wait { $0.count >= 2 }
            call.cancel()
            await #expect { try await call.value } throws: { isRestingError($0, "cancelled") }
            await chunks.ended.wait { !$0.isEmpty }
        }
    }
}

/// What needs a body sent again — a retry, a refreshed credential, a 307 redirect — against a single-pass and a
/// replayable sequence.
@Suite("Resending a body from an async sequence")
struct SequenceResendTests {
    enum Resend: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case retriedAfter503, refreshedAfter401, redirectedBy307
        var testDescription: String { rawValue }
    }

    struct Tokens: CredentialProvider {
        func credential() async throws -> String { "Bearer first" }
        func refreshedCredential(after rejected: String) async throws -> String { "Bearer second" }
    }

    /// Three chunks of 100,000 bytes, iterable again and again.
    static let chunks = SequenceUploadTests.TrackedChunks(size: 100_000, count: 3)

    /// Sends `body` where `resend` makes the client send it twice; returns the final response's body.
    func send(_ body: RequestBody, _ resend: Resend, over transport: Transport) async throws -> Data {
        var policy = RetryInterceptor.Policy()
        policy.retriesNonIdempotentMethods = true
        policy.baseDelay = .milliseconds(1)
        let images = try await LocalServer.sharedImageServer.value
        let conformance = try await LocalServer.sharedConformanceServer.value
        let httpClient = try SequenceUploadTests.transport(transport)
        let endpoint: (String) -> Endpoint<RequestBody, Data> = {
            Endpoint(.put, $0, encoding: .raw(contentType: "application/octet-stream"))
        }
        var request: RestingRequest<RequestBody, Data>
        let client: RestingClient
        switch resend {
        case .retriedAfter503:
            client = RestingClient(
                baseUrl: images.baseURL, httpClient: httpClient, interceptors: [RetryInterceptor(policy: policy)])
            request = RestingRequest(endpoint: endpoint("/upload/resent.bin"), body: body)
            request.queryItems = [URLQueryItem(name: "fail_once", value: UUID().uuidString)]
        case .refreshedAfter401:
            client = RestingClient(
                baseUrl: conformance.baseURL, httpClient: httpClient,
                interceptors: [AuthInterceptor(provider: Tokens())])
            request = RestingRequest(endpoint: endpoint("/challenge/bearer"), body: body)
        case .redirectedBy307:
            client = RestingClient(baseUrl: conformance.baseURL, httpClient: httpClient)
            request = RestingRequest(endpoint: endpoint("/redirect/307"), body: body)
            request.queryItems = [URLQueryItem(name: "to", value: "\(conformance.baseURL)/echo")]
        }
        let response = try await client.perform(request).value
        return response.body
    }

    @Test(
        "a single-pass body that would be sent again fails with requestBodyNotReplayable",
        arguments: Transport.allCases, Resend.allCases)
    func singlePass(transport: Transport, resend: Resend) async throws {
        await #expect {
            _ = try await send(.sequence(Self.chunks), resend, over: transport)
        } throws: { isRestingError($0, "requestBodyNotReplayable") }
    }

    @Test(
        "a replayable body is sent again whole",
        arguments: Transport.allCases, [Resend.retriedAfter503, .redirectedBy307])
    func replayable(transport: Transport, resend: Resend) async throws {
        let body = RequestBody.sequence(Self.chunks, iteration: .multiple)
        let answer = try JSONSerialization.jsonObject(with: try await send(body, resend, over: transport))
        let sha256 = (answer as? [String: Any]).flatMap { $0["sha256"] ?? $0["bodySHA256"] } as? String
        #expect(try await sha256 == Self.chunks.sha256)
    }
}
