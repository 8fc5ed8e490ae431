import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transport that answers from canned responses, for tests — yours and ours.
///
/// Responses are registered per method and path; several for one route are served in order, and the last
/// one repeats. Every request is recorded, body included, so a test can assert what was sent.
///
/// ```swift
/// let stub = StubHTTPClient()
/// stub.register(.get, "/posts/1", try .json(Post(id: 1, title: "Hi")))
/// stub.register(.post, "/posts", .status(503), try .json(Post(id: 2, title: "Created"), status: 201))
/// let client = RestingClient(baseUrl: "https://example.com", httpClient: stub)
/// // … later
/// #expect(stub.received.count == 3)
/// ```
///
/// It keeps the transport contract that the conformance suite checks on `CurlClient` and `URLSessionClient`,
/// so that code tested against the stub meets the same behaviour on the wire:
///
/// - it performs one exchange: a 3xx is answered as it is, and ``/RestingCore/RestingClient``'s chain follows redirects among
///   stubbed routes as it would on the wire (each hop is recorded);
/// - a request's ``/RestingCore/HTTPRequest/timeout``, or the stub's `idleTimeout` (the stub sends a whole response at
///   once, so waiting for it is all the idleness there is), ends a slower answer with
///   ``/RestingCore/TransportError/Kind/timedOut``; cancellation ends it with ``/RestingCore/RestingError/cancelled``;
/// - responses to `HEAD` and 1xx, 204 and 304 responses have no body;
/// - a download's (``/RestingCore/HTTPRequest/downloadTarget``) 2xx body is written to its file, so
///   ``/RestingCore/RestingClient/download(_:to:resume:maximumSize:)`` works against the stub;
/// - a response with a `Content-Encoding` other than `identity` fails with
///   ``/RestingCore/RestingError/unsupported(feature:transport:)``: a real transport would decode it and the stub cannot, and
///   passing coded bytes on as the body would let a test pass that fails in production. Register the decoded body
///   instead.
///
/// A request with no registered route goes to the `fallback` responder when there is one, and otherwise
/// fails with ``/RestingCore/RestingError/transportFailed(_:)`` whose message lists what is registered:
///
/// ```swift
/// let echo = StubHTTPClient { received in .text("you sent \(received.body.count) bytes") }
/// ```
public final class StubHTTPClient: HTTPClient {
    /// A request as the stub received it, with its body read.
    public struct ReceivedRequest: Sendable {
        /// The request as the stub received it.
        public let request: HTTPRequest
        /// Its body, read whole (files and streams included).
        public let body: Data

        /// A received request and its body.
        public init(request: HTTPRequest, body: Data) {
            self.request = request
            self.body = body
        }

        /// `request` as a server would read it: framed by the transport (a caller's `Content-Length`,
        /// `Transfer-Encoding` and `Expect` replaced by the body's true length), as on every transport.
        init(asSent request: HTTPRequest, body: Data) {
            var wire = request
            wire.headers.removeFraming()
            if !body.isEmpty { wire.headers.add(name: "Content-Length", value: String(body.count)) }
            self.init(request: wire, body: body)
        }
    }

    /// Answers a request that has no registered route.
    public typealias Responder = @Sendable (ReceivedRequest) async throws -> StubResponse

    private struct Route: Hashable, CustomStringConvertible {
        let method: RequestMethod
        let path: String
        var description: String { "\(method) \(path)" }
    }

    private struct State {
        var routes: [Route: ResponseSequence] = [:]
        var order: [Route] = []
        var received: [ReceivedRequest] = []
    }

    private let state = Locked(State())
    private let idleTimeout: Duration?
    private let fallback: Responder?
    private let maximumResponseSize: Int64

    /// - Parameters:
    ///   - idleTimeout: How long an answer may take when the request sets no shorter ``/RestingCore/HTTPRequest/timeout``.
    ///   - maximumResponseSize: The largest body answered in memory, as on the transports (downloads to a file
    ///     are not limited); past it the call fails with ``/RestingCore/RestingError/responseTooLarge(limit:)``.
    ///   - fallback: Answers requests that match no registered route.
    public init(
        idleTimeout: Duration? = nil,
        maximumResponseSize: Int64 = TransportDefaults.maximumResponseSize,
        fallback: Responder? = nil
    ) {
        self.idleTimeout = idleTimeout
        self.maximumResponseSize = maximumResponseSize
        self.fallback = fallback
    }

    /// Serves `responses` for `method` and `path` (the URL's percent-encoded path, without query), in order.
    public func register(_ method: RequestMethod, _ path: String, _ responses: StubResponse...) {
        let route = Route(method: method, path: path)
        state.withLock { state in
            if state.routes[route] == nil {
                state.order.append(route)
                state.routes[route] = ResponseSequence()
            }
            state.routes[route]?.append(responses)
        }
    }

    /// Every request received so far, in order; a followed redirect adds each hop.
    public var received: [ReceivedRequest] { state.withLock { $0.received } }

    public func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        guard !Task.isCancelled else { throw RestingError.cancelled }
        let received = ReceivedRequest(asSent: request, body: try await request.body.collect())
        let answer = try answerer(for: received)
        let response: StubResponse
        if let limit = [request.timeout, idleTimeout].compactMap({ $0 }).min() {
            response = try await withDeadline(
                limit,
                expired: {
                    .transportFailed(
                        TransportError(
                            kind: .timedOut, code: 0, domain: "StubHTTPClient", message: "no answer within \(limit)"))
                }, operation: answer)
        } else {
            response = try await answer()
        }
        return try await asOnTheWire(response, to: request).deliver(
            request, bodyLength: Int64(received.body.count), idleTimeout: idleTimeout,
            maximumResponseSize: request.downloadTarget == nil ? maximumResponseSize : .max, progress: progress)
    }

    /// Records `received` and returns what answers it, delay included: its route's next response, or the fallback.
    private func answerer(for received: ReceivedRequest) throws -> @Sendable () async throws -> StubResponse {
        let route = Route(method: received.request.method, path: received.request.encodedPath)
        let sequence = state.withLock { state in
            state.received.append(received)
            return state.routes[route]
        }
        let answer: Responder
        if let response = sequence?.next() {
            answer = { _ in response }
        } else if let fallback {
            answer = fallback
        } else {
            let registered = state.withLock { $0.order.map(\.description) }
            throw StubResponse.noMatch("stub", for: "\(route)", registered: registered, domain: "StubHTTPClient")
        }
        return {
            do {
                let response = try await answer(received)
                try await response.waitForDelay()
                return response
            } catch is CancellationError {
                // A responder's `Task.sleep` or `checkCancellation()`: the transport contract's error is ours.
                throw RestingError.cancelled
            }
        }
    }

    /// `response` as a transport would hand it over: without the body HTTP forbids, within the size limit, and
    /// refused when its content coding would need decoding.
    private func asOnTheWire(_ response: StubResponse, to request: HTTPRequest) throws(RestingError) -> StubResponse {
        guard response.error == nil else { return response }
        if let coding = response.headers["Content-Encoding"], coding.lowercased() != "identity" {
            throw .unsupported(feature: "decoding Content-Encoding \(coding)", transport: "StubHTTPClient")
        }
        var response = response
        if request.method == .head || (100..<200).contains(response.status) || response.status == 204
            || response.status == 304
        {
            response.body = Data()
            response.chunks = nil
        }
        let toFile = request.downloadTarget != nil && (200..<300).contains(response.status)
        if !toFile, Int64(response.body.count) > maximumResponseSize {
            throw .responseTooLarge(limit: maximumResponseSize)
        }
        return response
    }
}
