import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingLogging

@Suite("Validation, defaults, rewriting and events")
struct ValidationAndDefaultsTests {
    let stub = StubHTTPClient()
    let getJSON = Endpoint<Nothing, Data>(.get, "/thing", encoding: .query)

    private func client(_ interceptors: [any RestingInterceptor]) -> RestingClient {
        RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub, interceptors: interceptors,
            acceptedStatusCodes: 100..<600)
    }

    @Test("a status outside the rule's range becomes an HTTP error inside the chain")
    func statusRule() async throws {
        stub.register(.get, "/thing", .status(404, body: Data("missing".utf8)))
        do {
            _ = try await client([ValidationInterceptor([.statusCodes(200..<300)])]).perform(
                RestingRequest(endpoint: getJSON)
            ).value
            Issue.record("expected an HTTP error")
        } catch RestingError.httpError(let error) {
            #expect(error.status == 404 && error.body == Data("missing".utf8))
        }
    }

    @Test(
        "a content type the request did not accept is refused",
        arguments: [
            ("application/json", "application/json; charset=utf-8", true), ("application/json", "text/html", false),
            ("text/*", "text/plain", true), ("*/*", "image/png", true),
            ("application/json, text/*;q=0", "text/plain", false),
            ("application/xml;q=0.5, application/json", "application/json", true),
        ])
    func contentTypeRule(accept: String, contentType: String, accepted: Bool) async throws {
        stub.register(.get, "/thing", .status(200, headers: ["Content-Type": contentType], body: Data("x".utf8)))
        let request = RestingRequest(endpoint: getJSON, headers: ["Accept": accept])
        let outcome = await Result { try await client([ValidationInterceptor()]).perform(request).value }
        if accepted {
            #expect(throws: Never.self) { try outcome.get() }
        } else {
            guard case .validationFailed(let error, let reason)? = outcome.failure else {
                Issue.record("expected validationFailed, got \(outcome)")
                return
            }
            #expect(error.status == 200 && reason.contains(contentType))
        }
    }

    @Test("an empty body passes the content-type rule; a custom rule's error reaches the caller as it is")
    func emptyBodiesAndCustomRules() async throws {
        struct Deprecated: Error {}
        stub.register(.get, "/thing", .status(204, headers: ["X-Deprecated": "yes"]))
        let request = RestingRequest(endpoint: getJSON, headers: ["Accept": "application/json"])
        #expect(try await client([ValidationInterceptor()]).perform(request).value.status == 204)
        let custom = ValidationInterceptor([
            .custom { _, response in if response.headers["X-Deprecated"] != nil { throw Deprecated() } }
        ])
        await #expect(throws: Deprecated.self) { try await client([custom]).perform(request).value }
    }

    @Test("a retry interceptor around validation retries the statuses validation turned into errors")
    func retryAroundValidation() async throws {
        stub.register(.get, "/thing", .status(503), .status(200))
        let retry = RetryInterceptor(clock: VirtualClock())
        let response = try await client([retry, ValidationInterceptor([.statusCodes(200..<300)])]).perform(
            RestingRequest(endpoint: getJSON)
        ).value
        #expect(response.status == 200 && stub.received.count == 2)
    }

    @Test("defaults fill only what the request lacks; a rewriter changes every request")
    func defaultsAndRewriting() async throws {
        stub.register(.get, "/thing", .status(200))
        let defaults = DefaultsInterceptor(
            headers: ["X-Client": "tests", "Accept": "text/plain"],
            queryItems: [URLQueryItem(name: "locale", value: "fr"), URLQueryItem(name: "page", value: "1")])
        let rewriter = RequestRewriter { request in
            var request = request
            request.headers["X-Rewritten"] = "yes"
            return request
        }
        let request = RestingRequest(
            endpoint: getJSON, headers: ["Accept": "application/json"],
            queryItems: [URLQueryItem(name: "page", value: "3")])
        _ = try await client([defaults, rewriter]).perform(request).value
        let sent = try #require(stub.received.first?.request)
        #expect(sent.headers["X-Client"] == "tests" && sent.headers["X-Rewritten"] == "yes")
        #expect(sent.headers.values(for: "Accept") == ["application/json"], "the request's own Accept wins")
        #expect(sent.url.query == "page=3&locale=fr")
    }

    @Test("the event monitor reports start, response with its duration, and failure")
    func events() async throws {
        let events = Collector<String>()
        let monitor = EventMonitorInterceptor { event in
            switch event {
            case .requestStarted(let request): events.append("started \(request.method)")
            case .responseReceived(_, let response, let duration):
                events.append("received \(response.status) \(duration >= .zero)")
            case .failed(_, let error, _): events.append("failed \(error)")
            }
        }
        stub.register(.get, "/thing", .status(201))
        stub.register(.get, "/down", .failure(.cancelled))
        _ = try await client([monitor]).perform(RestingRequest(endpoint: getJSON)).value
        _ = try? await client([monitor]).perform(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/down", encoding: .query))
        ).value
        #expect(events.all == ["started GET", "received 201 true", "started GET", "failed cancelled"])
    }
}
