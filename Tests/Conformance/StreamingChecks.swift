import Foundation
import RestingCore
import RestingServerHarness
import RestingTestSupport
import Testing

extension TransportConformance {
    package func streamed(
        _ path: String, bufferSize: Int = ResponseStreaming.defaultBufferSize, timeout: Duration? = nil,
        on transport: (any HTTPClient)? = nil
    ) async throws -> HTTPDataResponse {
        let request = HTTPRequest(
            method: .get, url: try url(path), timeout: timeout,
            responseStreaming: ResponseStreaming(bufferSize: bufferSize))
        return try await send(request, on: transport)
    }

    /// The head of a streamed response arrives before its body, and each chunk reaches the reader as soon as
    /// the server sends it: `/gated` sends part 1 only after the test, holding part 0, released it.
    public func streamsWithoutBuffering() async throws {
        let tag = UUID().uuidString
        let response = try await streamed("/gated?tag=\(tag)&count=3")
        #expect(response.status == 200, "\(name)")
        #expect(response.body.data == nil, "\(name): a streamed response's body is a stream, not bytes")
        let stream = try #require(response.body.stream, "\(name): a streamed request must be answered with a stream")
        var lines = stream.lines.makeAsyncIterator()
        for part in 0..<3 {
            #expect(try await lines.next() == "part \(part)", "\(name)")
            if part < 2 { _ = try await send(HTTPRequest(method: .get, url: url("/release?tag=\(tag)"))) }
        }
        #expect(try await lines.next() == nil, "\(name): the body ends with the server's last chunk")
    }

    /// A reader that stops stops the transfer: the server cannot send (its socket's buffer stays full) while the
    /// reader holds one chunk of a 32 MiB body; then the reader resumes and every byte arrives, in order.
    /// The reader then waits twice the idle timeout: a transfer waiting for its reader is not idle. Where the
    /// transport cannot pause its socket (`pausesReading` false) the check skips the server's report.
    public func backPressure() async throws {
        let tag = UUID().uuidString
        // Larger than every buffer between the server and the reader (loopback sockets hold a few MiB).
        let size = 32 * 1024 * 1024
        let idle = Duration.seconds(1)
        let transport = try makeTransport(Settings(idleTimeout: idle))
        let response = try await streamed("/pattern?size=\(size)&tag=\(tag)", bufferSize: 64 * 1024, on: transport)
        var chunks = try #require(response.body.stream, "\(name)").makeAsyncIterator()
        var pattern = BytePattern()
        pattern.continues(with: try #require(try await chunks.next(), "\(name)"))
        if capabilities.pausesReading {
            // Returns only once the server has found no room in its socket for half a second.
            try await server.waitUntilDelaying(tag: tag)
        }
        // A reader slower than the idle timeout: the transfer waits for it, it does not time out. (The wait is
        // the behaviour under test, not a synchronisation.)
        try await Task.sleep(for: idle * 2)
        while let chunk = try await chunks.next() { pattern.continues(with: chunk) }
        #expect(pattern.received == size, "\(name): \(pattern.received) of \(size) bytes")
        #expect(pattern.isIntact, "\(name): the bytes arrived out of order")
    }

    /// A reader slower than the network holds no more than the buffer: reading 16 MiB a chunk at a time with a
    /// pause after each, the bytes the stream still holds (taken chunks no longer count) never pass the buffer
    /// size plus one chunk, and every byte arrives in order. (The pauses are the slow reader under test, not a
    /// synchronisation.)
    public func slowReader() async throws {
        let size = 16 * 1024 * 1024
        let bufferSize = 256 * 1024
        let response = try await streamed("/pattern?size=\(size)", bufferSize: bufferSize)
        let stream = try #require(response.body.stream, "\(name)")
        var chunks = stream.makeAsyncIterator()
        var pattern = BytePattern()
        var largestChunk = 0
        var mostHeld = 0
        while let chunk = try await chunks.next() {
            pattern.continues(with: chunk)
            largestChunk = max(largestChunk, chunk.count)
            mostHeld = max(mostHeld, stream.retainedBytes)
            try await Task.sleep(for: .microseconds(200))
        }
        #expect(pattern.received == size && pattern.isIntact, "\(name): \(pattern.received) of \(size) bytes")
        #expect(
            mostHeld <= bufferSize + largestChunk,
            "\(name): the stream held \(mostHeld) bytes for a \(bufferSize)-byte buffer")
    }

    /// Leaving the loop, cancelling the reading task, or cancelling the stream ends the transfer: the server sees
    /// its connection closed.
    public func streamCancellation() async throws {
        // Leaving the loop (the iterator and the response are dropped).
        let left = UUID().uuidString
        do {
            let response = try await streamed("/endless?tag=\(left)")
            for try await _ in try #require(response.body.stream) { break }
        }
        try await server.waitUntilDelaying(tag: "\(left)-closed")

        // Cancelling the task that reads.
        let cancelledTag = UUID().uuidString
        let response = try await streamed("/endless?tag=\(cancelledTag)")
        let stream = try #require(response.body.stream)
        let reader = Task {
            var count = 0
            for try await chunk in stream { count += chunk.count }
            return count
        }
        reader.cancel()
        await #expect(throws: RestingError.self, "\(name): a cancelled reader fails") { _ = try await reader.value }
        try await server.waitUntilDelaying(tag: "\(cancelledTag)-closed")

        // Cancelling the stream itself, from elsewhere, while a reader waits.
        let stoppedTag = UUID().uuidString
        let stopped = try #require(try await streamed("/endless?tag=\(stoppedTag)").body.stream)
        stopped.cancel()
        do {
            for try await _ in stopped {}
            Issue.record("\(name): a cancelled stream must fail its reader")
        } catch let error as RestingError {
            guard case .cancelled = error else {
                Issue.record("\(name): expected .cancelled, got \(error)")
                return
            }
        }
        try await server.waitUntilDelaying(tag: "\(stoppedTag)-closed")
    }

    /// A body cut midway fails the reader with the same error a buffered call fails with; a server silent
    /// between chunks fails on the idle timeout; a head slower than the request's timeout fails the call.
    public func streamErrors() async throws {
        for path in ["/reset-body", "/chunked-cut", "/short-body", "/bad-chunked"] {
            let buffered = await failure { try await send(HTTPRequest(method: .get, url: url(path))) }
            var streamed: RestingError?
            do {
                let response = try await self.streamed(path)
                for try await _ in try #require(response.body.stream) {}
                Issue.record("\(name): \(path) streamed without an error")
            } catch let error as RestingError {
                streamed = error
            }
            guard case .transportFailed(let expected) = buffered, case .transportFailed(let actual) = streamed else {
                Issue.record(
                    "\(name): \(path): buffered \(String(describing: buffered)), streamed \(String(describing: streamed))"
                )
                continue
            }
            #expect(
                actual.kind == expected.kind,
                "\(name): \(path) streamed fails as \(actual.kind), buffered as \(expected.kind)")
        }

        let idleTransport = try makeTransport(Settings(idleTimeout: .seconds(1)))
        var chunks = try #require(try await streamed("/stall", on: idleTransport).body.stream).makeAsyncIterator()
        #expect(try await chunks.next() == Data("first\n".utf8), "\(name)")
        do {
            _ = try await chunks.next()
            Issue.record("\(name): a stream silent past the idle timeout must fail")
        } catch let error as RestingError {
            guard case .transportFailed(let failure) = error, failure.kind == .timedOut else {
                Issue.record("\(name): expected an idle timeout mid-stream, got \(error)")
                return
            }
        }

        let head = await failure { try await streamed("/silent", timeout: .milliseconds(300)) }
        guard case .transportFailed(let failure) = head, failure.kind == .timedOut else {
            Issue.record(
                "\(name): a head slower than the timeout must fail as timedOut, got \(String(describing: head))")
            return
        }
    }

    /// A streamed body is read once: a second iteration fails at once. A redirect is followed before the
    /// reader sees anything. The limit on bodies held in memory does not apply to a stream.
    public func streamShape() async throws {
        let limited = try makeTransport(Settings(maximumResponseSize: 1024 * 1024))
        let large = try #require(try await streamed("/bytes/\(4 * 1024 * 1024)", on: limited).body.stream)
        #expect(try await large.collect(upTo: 8 * 1024 * 1024).count == 4 * 1024 * 1024, "\(name)")

        let response = try await streamed("/redirect/302?to=/bytes/1000")
        #expect(response.status == 200, "\(name): the redirect is followed")
        let stream = try #require(response.body.stream)
        #expect(try await stream.collect(upTo: 1 << 20).count == 1000, "\(name)")
        await #expect(throws: RestingError.self, "\(name): a second pass fails") {
            for try await _ in stream {}
        }
        do {
            for try await _ in stream {}
        } catch RestingError.bodyAlreadyConsumed {
        } catch {
            Issue.record("\(name): expected .bodyAlreadyConsumed, got \(error)")
        }
    }

    /// The minimum transfer rate cuts a buffered call that drips (one byte a second against 1 KiB a second) as timed
    /// out, and never a streamed body that drips as slowly: a stream's quiet spells are not a slow transfer.
    public func minimumRateSparesStreams() async throws {
        let transport = try makeTransport(
            Settings(minimumTransferRate: MinimumTransferRate(bytes: 1024, window: .seconds(1))))
        let error = await failure { try await send(HTTPRequest(method: .get, url: url("/drip")), on: transport) }
        guard case .transportFailed(let failure) = error, failure.kind == .timedOut else {
            Issue.record("\(name): a buffered drip must end as timedOut, got \(String(describing: error))")
            return
        }
        let streamed = try await streamed("/drip", on: transport)
        var received = 0
        for try await chunk in try #require(streamed.body.stream, "\(name)") {
            received += chunk.count
            if received >= 3 { break }
        }
        #expect(received >= 3, "\(name): three seconds of a byte a second, far below 1 KiB a second, still flowing")
    }
}
