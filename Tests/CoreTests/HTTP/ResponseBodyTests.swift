import Foundation
import Testing

@testable import RestingCore

/// A response has one body, read the same way whether the transport read it whole or streams it.
@Suite("ResponseBody")
struct ResponseBodyTests {
    let bytes = Data("one body, two ways".utf8)

    @Test("a buffered body shows its bytes; a streamed one shows its stream and no bytes")
    func oneOfTwo() {
        let buffered = ResponseBody(bytes)
        #expect(buffered.data == bytes && buffered.stream == nil && !buffered.isEmpty)
        let streamed = ResponseBody(ResponseBodyStream(bytes))
        #expect(streamed.data == nil && streamed.stream != nil && !streamed.isEmpty)
        #expect(ResponseBody.empty.isEmpty && ("" as ResponseBody).isEmpty)
    }

    @Test("collect(upTo:) gives the same bytes either way, and refuses a body past the limit either way")
    func collect() async throws {
        for body in [
            ResponseBody(bytes), ResponseBody(ResponseBodyStream(chunks: [bytes.prefix(4), bytes.dropFirst(4)])),
        ] {
            #expect(try await body.collect(upTo: bytes.count) == bytes)
        }
        for body in [ResponseBody(bytes), ResponseBody(ResponseBodyStream(bytes))] {
            let error = await #expect(throws: RestingError.self) { try await body.collect(upTo: 4) }
            guard case .responseTooLarge(limit: 4) = error else {
                Issue.record("expected responseTooLarge(4), got \(String(describing: error))")
                continue
            }
        }
    }

    @Test("iterating gives a buffered body's bytes as one chunk (none when empty) and a streamed body's chunks")
    func chunks() async throws {
        var seen: [Data] = []
        for try await chunk in ResponseBody(bytes) { seen.append(chunk) }
        #expect(seen == [bytes])
        seen = []
        for try await chunk in ResponseBody.empty { seen.append(chunk) }
        #expect(seen.isEmpty)
        seen = []
        for try await chunk in ResponseBody(ResponseBodyStream(chunks: [Data("a".utf8), Data("b".utf8)])) {
            seen.append(chunk)
        }
        #expect(seen == [Data("a".utf8), Data("b".utf8)])
    }

    @Test("a streamed body is single-pass: copies share it, and a second read fails with bodyAlreadyConsumed")
    func singlePass() async throws {
        let body = ResponseBody(ResponseBodyStream(bytes))
        let copy = body
        #expect(try await body.collect(upTo: .max) == bytes)
        let error = await #expect(throws: RestingError.self) { try await copy.collect(upTo: .max) }
        guard case .bodyAlreadyConsumed = error else {
            Issue.record("expected bodyAlreadyConsumed, got \(String(describing: error))")
            return
        }
    }

    @Test("a response holds one body: setting bytes replaces a stream, and the stream is then gone")
    func oneBody() {
        var response = HTTPDataResponse(status: 200, body: ResponseBody(ResponseBodyStream(bytes)))
        response.body = ResponseBody(bytes)
        #expect(response.body.stream == nil && response.body.data == bytes)
    }
}
