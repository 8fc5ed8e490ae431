import Foundation
import RestingConnections
import RestingCore
import RestingCurl
import RestingTestSupport
import Testing

/// Hostile review of d1d139b's `CurlClient.send`: the kind of exchange decided out of line (`kind(of:)`). Every
/// request here is refused before anything is sent; the URL's port has no listener, so a request that is sent after
/// all fails `transportFailed`, not the typed refusal expected.
@Suite("CurlClient.send's kinds of exchange: hostile review", .timeLimit(.minutes(2)))
struct CurlCallStartHostileReviewTests {
    static let url = URL(string: "http://127.0.0.1:1/x")!

    static func errorType(_ body: () async throws -> HTTPDataResponse) async -> String {
        do {
            _ = try await body()
            return "succeeded"
        } catch let error as RestingError {
            if case .unsupported(let feature, _) = error { return "unsupported: \(feature)" }
            return error.errorType
        } catch {
            return "\(error)"
        }
    }

    static func trailing(_ version: HTTPVersion?) -> HTTPRequest {
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("a".utf8))
            continuation.finish()
        }
        var request = HTTPRequest(
            method: .post, url: url,
            body: .sequence(
                chunks,
                trailers: {
                    var fields = HTTPHeaderFields()
                    fields.add(name: "X-Sum", value: "1")
                    return fields
                }))
        request.attributes.httpVersion = version
        return request
    }

    static func upgrading(_ version: HTTPVersion?) -> HTTPRequest {
        var request = HTTPRequest(method: .get, url: url)
        request.upgrade = .webSocket
        request.attributes.httpVersion = version
        return request
    }

    @Test("withstood: a WebSocket upgrade for HTTP/3 only is refused typed")
    func upgradeOverHTTP3Only() async throws {
        let client = try CurlClient()
        let outcome = await Self.errorType { try await client.send(Self.upgrading(.http3Only), progress: { _ in }) }
        #expect(outcome.hasPrefix("unsupported:") && outcome.contains("HTTP/3"), "\(outcome)")
        await client.shutdown(gracePeriod: .zero)
    }

    @Test(
        "withstood: a body with trailers over HTTP/2 prior knowledge or HTTP/3 only is refused typed",
        arguments: [HTTPVersion.http2PriorKnowledge, .http3Only])
    func trailersOverHTTP2Or3(version: HTTPVersion) async throws {
        let client = try CurlClient()
        let outcome = await Self.errorType { try await client.send(Self.trailing(version), progress: { _ in }) }
        #expect(outcome.hasPrefix("unsupported:"), "\(outcome)")
        await client.shutdown(gracePeriod: .zero)
    }

    @Test("withstood: after shutdown every kind of exchange fails shutDown, before anything else is decided")
    func everyKindAfterShutdown() async throws {
        let client = try CurlClient()
        await client.shutdown(gracePeriod: .zero)
        for request in [
            HTTPRequest(method: .get, url: Self.url), Self.upgrading(nil), Self.upgrading(.http3Only),
            Self.trailing(nil),
            Self.trailing(.http2PriorKnowledge),
        ] {
            let outcome = await Self.errorType { try await client.send(request, progress: { _ in }) }
            #expect(outcome == "shutDown", "\(outcome)")
        }
    }

    @Test("withstood: a call whose interceptor shuts the transport down fails shutDown, and nothing hangs")
    func transportShutDownFromInsideACall() async throws {
        let transport = try CurlClient()
        struct Stop: RestingInterceptor {
            let transport: CurlClient
            func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
                await transport.shutdown(gracePeriod: .zero)
                return try await execution(request)
            }
        }
        let client = RestingClient(
            baseUrl: "http://127.0.0.1:1", httpClient: transport, interceptors: [Stop(transport: transport)])
        let outcome = await withoutHanging("the call never ended") {
            do {
                _ = try await client.perform(
                    RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/x", encoding: .query))
                ).value
                return "succeeded"
            } catch { return (error as? RestingError)?.errorType ?? "\(error)" }
        }
        #expect(outcome == "shutDown")
        await client.shutdown(gracePeriod: nil)
    }
}
