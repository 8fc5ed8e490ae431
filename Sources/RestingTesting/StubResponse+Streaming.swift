import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StubResponse {
    /// One step of a streamed stub body: bytes, a pause, or a failure that cuts the body there.
    public enum Chunk: Sendable {
        /// These bytes, at once.
        case data(Data)
        /// Waits this long before the next step (cancellation ends the wait).
        case pause(Duration)
        /// Ends the body with this error, as a reset connection would.
        case failure(RestingError)

        /// UTF-8 text.
        public static func text(_ text: String) -> Chunk { .data(Data(text.utf8)) }
    }

    /// A response whose body arrives in steps, for testing streaming code without a server: a streamed call
    /// reads each chunk when its pause has passed; a buffered call gets them all, joined.
    ///
    /// ```swift
    /// stub.register(.get, "/feed", .stream([.text("data: 1\n\n"), .pause(.milliseconds(50)), .text("data: 2\n\n")],
    ///                                headers: ["Content-Type": "text/event-stream"]))
    /// ```
    public static func stream(_ chunks: [Chunk], status: Int = 200, headers: HTTPHeaderFields = [:]) -> StubResponse {
        var response = StubResponse(status: status, headers: headers)
        response.chunks = chunks
        return response
    }

    /// A fresh stream of ``chunks``, read as the reader asks for them (so a reader that stops, stops it); a pause
    /// longer than `idleTimeout` fails with ``/RestingCore/TransportError/Kind/timedOut`` as a silent server would.
    package func makeBodyStream(idleTimeout: Duration?) -> ResponseBodyStream {
        let steps = chunks ?? [.data(body)]
        return ResponseBodyStream(StubChunks(steps: steps, idleTimeout: idleTimeout))
    }
}

/// The chunks of a streamed stub body as an `AsyncSequence`, pauses and failures played out in time.
private struct StubChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let steps: [StubResponse.Chunk]
    let idleTimeout: Duration?

    struct AsyncIterator: AsyncIteratorProtocol {
        var steps: ArraySlice<StubResponse.Chunk>
        let idleTimeout: Duration?

        mutating func next() async throws -> Data? {
            while let step = steps.popFirst() {
                switch step {
                case .data(let data):
                    if !data.isEmpty { return data }
                case .pause(let duration):
                    let timesOut = idleTimeout.map { duration > $0 } ?? false
                    do {
                        try await Task.sleep(for: timesOut ? idleTimeout ?? duration : duration)
                    } catch {
                        throw RestingError.cancelled
                    }
                    if timesOut, let idleTimeout {
                        steps = []
                        throw RestingError.transportFailed(
                            TransportError(
                                kind: .timedOut, code: 0, domain: "StubHTTPClient",
                                message: "no data within \(idleTimeout)"))
                    }
                case .failure(let error):
                    steps = []
                    throw error
                }
            }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(steps: steps[...], idleTimeout: idleTimeout) }
}
