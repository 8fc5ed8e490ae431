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
/// A request with no registered route fails with ``RestingError/transportFailed(_:)`` whose message lists
/// what is registered.
public final class StubHTTPClient: HTTPClient {
    /// A request as the stub received it, with its body read.
    public struct ReceivedRequest: Sendable {
        public let request: HTTPRequest
        public let body: Data
    }

    private struct Route: Hashable, CustomStringConvertible {
        let method: HTTPMethod
        let path: String
        var description: String { "\(method) \(path)" }
    }

    private struct State {
        var routes: [Route: ResponseSequence] = [:]
        var order: [Route] = []
        var received: [ReceivedRequest] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Serves `responses` for `method` and `path` (the URL's percent-encoded path, without query), in order.
    public func register(_ method: HTTPMethod, _ path: String, _ responses: StubResponse...) {
        let route = Route(method: method, path: path)
        state.withLock { state in
            if state.routes[route] == nil {
                state.order.append(route)
                state.routes[route] = ResponseSequence()
            }
            state.routes[route]?.append(responses)
        }
    }

    /// Every request received so far, in order.
    public var received: [ReceivedRequest] { state.withLock { $0.received } }

    public func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        let body = try request.body.collect()
        let route = Route(method: request.method, path: Self.path(of: request.url))
        let sequence: ResponseSequence? = state.withLock { state in
            state.received.append(ReceivedRequest(request: request, body: body))
            return state.routes[route]
        }
        guard let response = sequence?.next() else {
            let registered = state.withLock { $0.order.map(\.description) }
            throw StubResponse.noMatch("stub", for: "\(route)", registered: registered, domain: "StubHTTPClient")
        }
        return try await response.serve(request, bodyLength: Int64(body.count), progress: progress)
    }

    private static func path(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
    }
}
