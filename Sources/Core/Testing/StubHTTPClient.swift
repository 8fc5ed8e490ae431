import Foundation

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
        var routes: [Route: [StubResponse]] = [:]
        var order: [Route] = []
        var received: [ReceivedRequest] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Serves `responses` for `method` and `path` (the URL's percent-encoded path, without query), in order.
    public func register(_ method: HTTPMethod, _ path: String, _ responses: StubResponse...) {
        let route = Route(method: method, path: path)
        state.withLock { state in
            if state.routes[route] == nil { state.order.append(route) }
            state.routes[route, default: []].append(contentsOf: responses)
        }
    }

    /// Every request received so far, in order.
    public var received: [ReceivedRequest] { state.withLock { $0.received } }

    public func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        let body = try request.body.collect()
        progress(TransferProgress(bytesSent: Int64(body.count), totalBytesToSend: Int64(body.count)))
        let route = Route(method: request.method, path: Self.path(of: request.url))
        let response: StubResponse? = state.withLock { state in
            state.received.append(ReceivedRequest(request: request, body: body))
            guard var queue = state.routes[route], let next = queue.first else { return nil }
            if queue.count > 1 { queue.removeFirst() }
            state.routes[route] = queue
            return next
        }
        guard let response else {
            let registered = state.withLock { $0.order.map(\.description) }
            throw RestingError.transportFailed(
                TransportError(
                    kind: .other, code: 0, domain: "StubHTTPClient",
                    message: "no stub for \(route); registered: \(registered.isEmpty ? "none" : registered.joined(separator: ", "))"))
        }
        if let delay = response.delay {
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw RestingError.cancelled
            }
        }
        try Task.checkCancellation()
        if let error = response.error { throw error }
        let length = Int64(response.body.count)
        progress(TransferProgress(bytesSent: Int64(body.count), totalBytesToSend: Int64(body.count),
                                  bytesReceived: length, totalBytesToReceive: length))
        return HTTPDataResponse(status: response.status, headers: response.headers, body: response.body, url: request.url)
    }

    private static func path(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
    }
}

/// A canned answer of ``StubHTTPClient``.
public struct StubResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data
    /// How long to wait before answering; cancellation ends the wait.
    public var delay: Duration?
    /// Thrown instead of answering.
    public var error: RestingError?

    public init(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data(), delay: Duration? = nil,
                error: RestingError? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.error = error
    }

    /// A response with the given status and an optional body.
    public static func status(_ status: Int, headers: HTTPHeaders = [:], body: Data = Data()) -> StubResponse {
        StubResponse(status: status, headers: headers, body: body)
    }

    /// `value` encoded as JSON, with `Content-Type: application/json`.
    public static func json(
        _ value: some Encodable, status: Int = 200, encoder: JSONEncoder = JSONEncoder()
    ) throws -> StubResponse {
        StubResponse(status: status, headers: ["Content-Type": "application/json"], body: try encoder.encode(value))
    }

    /// A failure instead of a response, such as a timeout.
    public static func failure(_ error: RestingError) -> StubResponse { StubResponse(error: error) }

    /// The same response, answered after `delay`.
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}
