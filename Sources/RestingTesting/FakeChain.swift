import Foundation
import RestingCore

/// The rest of an interceptor chain, faked, so that one interceptor can be unit-tested without a client or a
/// transport (OkHttp's fake `Chain`): it answers with canned responses — or errors — in order, and records what
/// the interceptor passed on.
///
/// ```swift
/// let chain = FakeChain(.status(503), try .json(["ok": true]))       // first 503, then 200
/// let response = try await chain.run(RetryInterceptor(), on: HTTPRequest(method: .get, url: url))
/// #expect(response.status == 200)
/// #expect(chain.callCount == 2)                                        // retried once
/// #expect(chain.requests.allSatisfy { $0.url == url })
/// ```
///
/// Responses are served in order, the last one repeating; `.failure(_:)` answers with that error, as a transport
/// would (a timeout, a refused connection), and a delay is waited for. A custom `answer` closure can look at
/// each request instead.
public final class FakeChain: Sendable {
    private let answer: @Sendable (HTTPRequest) async throws -> HTTPDataResponse
    private let received = Locked<[HTTPRequest]>([])

    /// A chain answering each request with the next of `responses`, the last one repeating.
    public convenience init(_ responses: StubResponse...) {
        let sequence = ResponseSequence(responses.isEmpty ? [.status(200)] : responses)
        self.init { request in
            guard let response = sequence.next() else { return HTTPDataResponse(status: 200, url: request.url) }
            return try await response.serve(request, bodyLength: request.body.contentLength ?? 0) { _ in }
        }
    }

    /// A chain answering each request with `answer`.
    public init(answer: @escaping @Sendable (HTTPRequest) async throws -> HTTPDataResponse) { self.answer = answer }

    /// The rest of the chain, to hand to ``/RestingCore/RestingInterceptor/intercept(request:execution:)``; every call
    /// is recorded.
    public var execution: InterceptorExecution {
        InterceptorExecution { [received, answer] request in
            received.withLock { $0.append(request) }
            return try await answer(request)
        }
    }

    /// Runs `interceptor` on `request` with this chain behind it.
    public func run(_ interceptor: some RestingInterceptor, on request: HTTPRequest) async throws -> HTTPDataResponse {
        try await interceptor.intercept(request: request, execution: execution)
    }

    /// The requests the interceptor passed on, in order.
    public var requests: [HTTPRequest] { received.withLock { $0 } }

    /// How many times the interceptor called the rest of the chain.
    public var callCount: Int { received.withLock { $0.count } }
}
