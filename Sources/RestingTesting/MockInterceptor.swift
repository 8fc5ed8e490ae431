import Foundation
import RestingCore

/// Answers matching requests with canned responses, and lets the others through to the network — or fails
/// them, listing what is registered (Malibu's `MockProvider`, Harbor's `HMock`).
///
/// ```swift
/// let mocks = MockInterceptor()
/// let posts = mocks.register(getPostEndpoint, try .json(PostModel(id: 1, userId: 1, title: "Mocked", body: "")))
/// mocks.register(.post, "/posts", .status(503), try .json(created, status: 201))   // first 503, then 201
/// mocks.register(.get, "/files/**", try .file(fixtureURL))
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport, interceptors: [mocks])
/// // …
/// #expect(posts.callCount == 1)
/// ```
///
/// Responses registered together are served in order, the last one repeating; a later registration for an
/// overlapping pattern wins. Mocks answer in place of the rest of the chain, so put the interceptor last to
/// let the others (auth, retry, logging) run on mocked exchanges too.
public final class MockInterceptor: RestingInterceptor {
    /// What happens to a request no mock matches.
    public enum UnmatchedRequests: Sendable {
        /// It goes on to the network: real and mocked requests mix.
        case passThrough
        /// It fails with ``/RestingCore/RestingError/transportFailed(_:)`` listing the registered mocks.
        case fail
    }

    private struct Mock: Sendable {
        let method: RequestMethod
        let pattern: PathPattern
        let responses: ResponseSequence
    }

    /// A registered mock, to count its calls.
    public struct Registration: Sendable {
        fileprivate let responses: ResponseSequence
        /// How many requests it has answered.
        public var callCount: Int { responses.callCount }
    }

    /// What happens to a request no mock matches.
    public let unmatched: UnmatchedRequests
    private let mocks = Locked<[Mock]>([])

    /// An interceptor with no mocks yet; requests nothing matches are handled as `unmatched` says.
    public init(unmatched: UnmatchedRequests = .passThrough) { self.unmatched = unmatched }

    /// Mocks `method` on paths matching `pattern` (see `*` and `**`, or `{{name}}` as in templates).
    @discardableResult
    public func register(_ method: RequestMethod, _ pattern: String, _ responses: StubResponse...) -> Registration {
        register(method, pattern, responses)
    }

    /// Mocks every request made from `endpoint`, whatever its path variables.
    @discardableResult
    public func register<RequestType, ResponseType>(
        _ endpoint: Endpoint<RequestType, ResponseType>, _ responses: StubResponse...
    ) -> Registration {
        register(endpoint.method, Self.pathPart(of: endpoint.path), responses)
    }

    /// The path of a template, without scheme, host and query: `https://h/a/{{b}}?c` → `/a/{{b}}`.
    static func pathPart(of template: String) -> String {
        var path = Substring(template)
        if let scheme = path.range(of: "://") {
            let afterHost = path[scheme.upperBound...]
            path = afterHost.firstIndex(of: "/").map { afterHost[$0...] } ?? "/"
        }
        return String(path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? path)
    }

    private func register(_ method: RequestMethod, _ pattern: String, _ responses: [StubResponse]) -> Registration {
        let sequence = ResponseSequence(responses)
        mocks.withLock { $0.append(Mock(method: method, pattern: PathPattern(pattern), responses: sequence)) }
        return Registration(responses: sequence)
    }

    /// Answers from the last registered mock matching the method and path, else as ``unmatched`` says.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        let path = request.encodedPath
        let registered = mocks.withLock { $0 }
        if let mock = registered.last(where: { $0.method == request.method && $0.pattern.matches(path) }),
            let response = mock.responses.next()
        {
            return try await response.serve(request, bodyLength: request.body.contentLength ?? 0) { _ in }
        }
        switch unmatched {
        case .passThrough:
            return try await execution(request)
        case .fail:
            throw StubResponse.noMatch(
                "mock", for: "\(request.method) \(path)", registered: registered.map { "\($0.method) \($0.pattern)" },
                domain: "MockInterceptor")
        }
    }
}
