import Foundation
import RestingTesting
import Testing

@testable import RestingCore

/// Hostile values interpolated into an `EndpointPath`: each stays one segment of the same host, never a query, a
/// variable or another segment; a value is never kept past its call; a refused value says why without printing the
/// call's other values; and the interpolation never builds a path out of a value's debug text.
@Suite("Endpoint path, hostile values")
struct EndpointPathHostileTests {
    struct Item: Codable, Sendable, Equatable { let id: String }

    enum API {
        static func item(_ id: String) -> Endpoint<Nothing, Data> { Endpoint(.get, "/items/\(id)/raw") }
        static func keyed(_ key: String, _ id: String) -> Endpoint<Nothing, Data> {
            Endpoint(.get, "/keys/\(key)/items/\(id)")
        }
        static func file(_ path: [String]) -> Endpoint<Nothing, Data> { Endpoint(.get, "/files/\(segments: path)") }
    }

    private func client() -> (RestingClient, StubHTTPClient) {
        let stub = StubHTTPClient(fallback: { _ in .status(200, body: Data("x".utf8)) })
        return (RestingClient(baseUrl: "https://api.example.com", httpClient: stub), stub)
    }

    static let hostileValues: [String] = [
        "..%2F..%2Fadmin", "%2e%2e", "%2E", "a/../../b", "\\..\\..\\windows", "?admin=1", "#frag", "a b",
        "line\r\nX-Injected: 1", "nul\u{0}byte", "@evil.example.net", "http://evil.example.net/x", "//evil.example.net",
        "{{id}}", "{{{id}}}", "}}", "%", "%zz", "🙂\u{200D}🔥", "\u{FEFF}", "e\u{301}", "．．", "...", ".. ", " ..",
        String(repeating: "z", count: 200_000), String(repeating: "/", count: 10_000),
    ]

    @Test(
        "a hostile value is one segment of the same host, with no query, fragment or other segment",
        arguments: hostileValues)
    func hostileValueIsOneSegment(_ value: String) async throws {
        let (client, stub) = client()
        _ = try await client.call(API.item(value))
        let url = try #require(stub.received.first?.request.url)
        #expect(url.host == "api.example.com")
        #expect(url.query == nil && url.fragment == nil)
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        #expect(segments.count == 4, "'', items, <value>, raw")
        #expect(segments.last == "raw")
        #expect(PercentEncoding.decode(String(segments[2])) == value)
    }

    @Test("values of one endpoint function never reach another call's URL, and are never cached")
    func valuesAreOneCallEach() async throws {
        let (client, stub) = client()
        let converter = try #require(client.requestConverter as? RestingRequestConverter)
        for round in 0..<300 {
            _ = try await client.call(API.item("v\(round)"))
        }
        #expect(stub.received.map(\.request.url.path) == (0..<300).map { "/items/v\($0)/raw" })
        #expect(converter.literalURLs.count == 0)
    }

    @Test("segments: of an array makes each element one segment; a slash inside one stays inside it")
    func segmentsOfAnArray() async throws {
        let (client, stub) = client()
        _ = try await client.call(API.file(["docs", "a.txt"]))
        _ = try await client.call(API.file(["a/b", "c"]))
        #expect(stub.received.map(\.request.encodedPath) == ["/files/docs/a.txt", "/files/a%2Fb/c"])
        let none = await restingError { try await client.call(API.file([])) }
        guard case .invalidPathVariable = none else {
            Issue.record("expected invalidPathVariable for no segment at all, got \(String(describing: none))")
            return
        }
    }

    /// A refused value names its interpolation and shows the path as written, every value a placeholder: a value
    /// before it may be a key or a token, and a template variable's refusal never prints any value either.
    @Test("a refused value's error does not print the values interpolated before it")
    func refusalDoesNotPrintOtherValues() async throws {
        let (client, stub) = client()
        let secret = "sk_live_51HsecretKey"
        let error = await restingError { try await client.call(API.keyed(secret, "..")) }
        guard case .invalidPathVariable = error else {
            Issue.record("expected invalidPathVariable, got \(String(describing: error))")
            return
        }
        #expect(stub.received.isEmpty)
        #expect(!String(describing: error!).contains(secret), "printed: \(error!)")
        #expect(!String(reflecting: error!).contains(secret))

        // The template-variable twin of the same endpoint prints no value.
        let templated = Endpoint<Nothing, Data>(.get, "/keys/{{key}}/items/{{id}}")
        let templateError = await restingError {
            try await client.send(RestingRequest(endpoint: templated, pathVariables: ["key": secret, "id": ".."]))
        }
        #expect(!String(describing: templateError!).contains(secret))
    }

    @Test(
        "an empty, dot or dot-dot segment inside segments: is refused, nothing sent",
        arguments: [
            "", "/", "a/", "/a", "a//b", "a/./b", "a/../b", ".", "..", "a/..",
        ])
    func segmentsRefuseShapeChanges(_ path: String) async throws {
        let (client, stub) = client()
        let endpoint = Endpoint<Nothing, Data>(.get, "/files/\(segments: path)")
        let error = await restingError { try await client.call(endpoint) }
        guard case .invalidPathVariable = error else {
            Issue.record("expected invalidPathVariable for '\(path)', got \(String(describing: error))")
            return
        }
        #expect(stub.received.isEmpty)
    }
}
