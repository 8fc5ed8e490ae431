import Foundation
import RestingCore
import RestingOffline
import RestingTestSupport
import Testing

/// How an async sequence's body is read: in order, with back-pressure, once when single-pass — without sockets.
@Suite("Request bodies from an async sequence")
struct SequenceBodyReaderTests {
    /// `count` chunks of `size` bytes (byte i of the whole is i % 251), counting what the reader asked for.
    struct Chunks: AsyncSequence, Sendable {
        let size: Int
        let count: Int
        let requested = Locked(0)

        struct AsyncIterator: AsyncIteratorProtocol {
            let chunks: Chunks
            var index = 0

            mutating func next() async throws -> Data? {
                guard index < chunks.count else { return nil }
                defer { index += 1 }
                chunks.requested.withLock { $0 += 1 }
                let start = index * chunks.size
                return Data((start..<(start + chunks.size)).map { UInt8($0 % 251) })
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
        var bytes: Data { Data((0..<(size * count)).map { UInt8($0 % 251) }) }
    }

    struct ProducerFailure: Error {}

    @Test(
        "the chunks arrive whole and in order, whatever the chunk and read sizes", arguments: [(1, 3000), (7000, 40)])
    func order(chunkSize: Int, count: Int) async throws {
        let chunks = Chunks(size: chunkSize, count: count)
        let reader = try SequenceBodyReader(RequestBodySequence(chunks))
        var received = Data()
        while let chunk = try await reader.next(upTo: 4093) { received.append(chunk) }
        #expect(received == chunks.bytes)
    }

    @Test("a producer faster than the reader stops once the buffer is full, and goes on as it drains")
    func backPressure() async throws {
        let chunkSize = 64 * 1024
        let chunks = Chunks(size: chunkSize, count: 1000)
        let reader = try SequenceBodyReader(RequestBodySequence(chunks))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        #expect(chunks.requested.withLock { $0 } == 0, "nothing is produced before the first read")
        let arrived = Collector<Void>()
        guard case .pending = reader.poll(into: buffer, orWhenReadable: { arrived.append(()) }) else {
            Issue.record("the first poll cannot find bytes already there")
            return
        }
        await arrived.wait { !$0.isEmpty }
        await reader.waitUntilProducerWaitsForRoom()
        let limit = RequestBodySequence.bufferLimit
        #expect(chunks.requested.withLock { $0 } == limit / chunkSize, "the producer stops at the buffer's limit")

        // Half the buffer drained: the producer is asked for more, and stops at the limit again.
        for _ in 0..<(limit / chunkSize / 2) {
            guard case .bytes(chunkSize) = reader.poll(into: buffer, orWhenReadable: {}) else {
                Issue.record("a full buffer gives a whole chunk")
                return
            }
        }
        await reader.waitUntilProducerWaitsForRoom()
        #expect(chunks.requested.withLock { $0 } == limit / chunkSize + limit / chunkSize / 2)
        reader.close()
    }

    @Test("a single-pass body is read by one attempt; one made and closed unread spends nothing")
    func singlePass() async throws {
        let chunks = Chunks(size: 10, count: 3)
        let body = RequestBody.sequence(chunks)
        try body.makeReader().close()
        #expect(try await body.collect() == chunks.bytes)
        await #expect { _ = try await body.collect() } throws: { isRestingError($0, "requestBodyNotReplayable") }
        #expect(throws: RestingError.self) { _ = try body.makeReader() }

        // Two readers made before either began: the second to begin fails.
        let racing = RequestBody.sequence(Chunks(size: 10, count: 3))
        let first = try racing.makeReader()
        let second = try racing.makeReader()
        #expect(try await (first as? SequenceBodyReader)?.next(upTo: 100)?.count == 30)
        await #expect { _ = try await (second as? SequenceBodyReader)?.next(upTo: 100) } throws: {
            isRestingError($0, "requestBodyNotReplayable")
        }
    }

    @Test("a replayable body is read whole by every attempt")
    func replayable() async throws {
        let chunks = Chunks(size: 1000, count: 5)
        let body = RequestBody.sequence(chunks, contentLength: 5000, iteration: .multiple)
        #expect(try await body.collect() == chunks.bytes)
        #expect(try await body.collect() == chunks.bytes)
        #expect(body.contentLength == 5000)
    }

    @Test("a failing producer fails the read with a typed error after the bytes it gave")
    func failure() async throws {
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("abc".utf8))
            continuation.finish(throwing: ProducerFailure())
        }
        let reader = try SequenceBodyReader(RequestBodySequence(failing))
        #expect(try await reader.next(upTo: 10) == Data("abc".utf8))
        await #expect { _ = try await reader.next(upTo: 10) } throws: { isRestingError($0, "bodyUnreadable") }
    }

    @Test("a sequence that yields fewer or more bytes than its declared length fails", arguments: [29, 31])
    func declaredLength(length: Int64) async throws {
        let body = RequestBody.sequence(Chunks(size: 10, count: 3), contentLength: length)
        await #expect { _ = try await body.collect() } throws: { error in
            guard case .bodyUnreadable(let reason) = error as? RestingError else { return false }
            return reason.contains("\(length)")
        }
    }

    @Test("closing the reader wakes a read blocked on another thread, and ends the producer's iteration")
    func closeWakesABlockedRead() async throws {
        let ended = Collector<Void>()
        let silent = AsyncStream<Data> { continuation in
            continuation.onTermination = { _ in ended.append(()) }
        }
        let reader = try SequenceBodyReader(RequestBodySequence(silent))
        let outcome = Collector<String>()
        let thread = Thread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
            defer { buffer.deallocate() }
            do {
                _ = try reader.read(into: buffer)
                outcome.append("read")
            } catch {
                outcome.append(RestingError.errorType(of: error))
            }
        }
        thread.start()
        await reader.waitUntilReadIsPending()
        reader.close()
        await outcome.wait { !$0.isEmpty }
        #expect(outcome.all == ["cancelled"])
        await ended.wait { !$0.isEmpty }
    }

    @Test("a cancelled task's read ends with .cancelled")
    func cancelledRead() async throws {
        let reader = try SequenceBodyReader(RequestBodySequence(AsyncStream<Data> { _ in }))
        let read = Task { try await reader.next(upTo: 10) }
        await reader.waitUntilReadIsPending()
        read.cancel()
        await #expect { _ = try await read.value } throws: { isRestingError($0, "cancelled") }
    }

    @Test("a .raw endpoint sends a RequestBody as it is; any other encoding refuses one; the offline queue keeps none")
    func asARequestValue() async throws {
        let chunks = Chunks(size: 100, count: 2)
        let stub = Collector<Data>()
        let client = RestingClient(
            baseUrl: "https://api.example.com",
            httpClient: ClosureHTTPClient { request in
                stub.append(try await request.body.collect())
                return HTTPDataResponse(status: 204, url: request.url)
            })
        let raw = Endpoint<RequestBody, Nothing>(.put, "/raw", encoding: .raw(contentType: "application/octet-stream"))
        _ = try await client.send(RestingRequest(endpoint: raw, body: .sequence(chunks)))
        #expect(stub.all == [chunks.bytes])

        let json = Endpoint<RequestBody, Nothing>(.put, "/json", encoding: .json)
        await #expect { _ = try await client.send(RestingRequest(endpoint: json, body: .sequence(chunks))) } throws: {
            isRestingError($0, "encodingFailed")
        }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        let down = RestingClient(
            baseUrl: "https://api.example.com",
            httpClient: ClosureHTTPClient { _ in
                throw RestingError.transportFailed(
                    TransportError(kind: .connectionFailed, code: 7, domain: "test", message: "offline"))
            })
        await #expect {
            try await down.perform(RestingRequest(endpoint: raw, body: .sequence(chunks)), storingOfflineIn: queue)
                .value
        } throws: { error in
            guard let failure = error as? OfflineStorageFailure else {
                return isRestingError(error, "bodyUnreadable")
            }
            return failure.reason.contains("async sequence")
        }
        #expect(try queue.entries().isEmpty)
    }
}
