#if HTTPTypes
import Foundation
import HTTPTypes
import RestingCore
import RestingHTTPTypes
import RestingTestSupport
import Testing

#if OpenAPI
import OpenAPIRuntime
import RestingOpenAPI
#endif

/// Random header lists — names from a pool that mixes credentials RestingKit knows by name with ones only a mark makes
/// a credential, random values, marks and origins — through every conversion a field can take: a field's mark, and
/// (where the conversion can carry it) its origin, survives each.
@Suite("Header conversions as a property")
struct HeaderConversionPropertyTests {
    static let names = ["Accept", "X-Api-Key", "Authorization", "Cookie", "X-Session", "X-Tenant", "x-session", "ETag"]
    static let origins: [Origin?] = [
        nil, Origin(URL(string: "https://api.example.com")!), Origin(URL(string: "https://elsewhere.example:8443")!),
    ]

    static func randomHeaders(_ random: inout SeededGenerator) -> HTTPHeaderFields {
        var headers = HTTPHeaderFields()
        for _ in 0..<Int.random(in: 0...8, using: &random) {
            let value = String(
                (0..<Int.random(in: 0...12, using: &random)).map { _ in
                    "abcXYZ019-_.~ =/+".randomElement(using: &random)!
                }
            ).trimmingCharacters(in: .whitespaces)
            headers.add(
                name: names.randomElement(using: &random)!, value: value, sensitive: Bool.random(using: &random),
                origin: origins.randomElement(using: &random)!)
        }
        return headers
    }

    @Test("to HTTPFields and back, every field keeps its name, value, order and whether it carries a credential")
    func httpFieldsRoundTrip() throws {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<500 {
            let headers = Self.randomHeaders(&random)
            let fields = try HTTPFields(headers)
            #expect(zip(fields, headers).allSatisfy { ($0.indexingStrategy == .disallow) == $1.carriesCredential })
            let back = HTTPHeaderFields(fields)
            #expect(back.map(\.name) == headers.map(\.name))
            #expect(back.map(\.value) == headers.map(\.value))
            #expect(back.map(\.carriesCredential) == headers.map(\.carriesCredential))
        }
    }

    @Test("a request to a swift-http-types head and back keeps every mark, and goes to the same origin")
    func requestHeadRoundTrip() throws {
        var random = SeededGenerator(seed: 11)
        for _ in 0..<300 {
            let headers = Self.randomHeaders(&random)
            let request = RestingCore.HTTPRequest(
                method: .get, url: URL(string: "https://api.example.com:8443/items?page=2")!, headers: headers)
            let back = try RestingCore.HTTPRequest(try HTTPTypes.HTTPRequest(request))
            #expect(back.url == request.url)
            #expect(back.headers.map(\.carriesCredential) == headers.map(\.carriesCredential))
        }
    }

    #if OpenAPI
    /// Sets some fields again with a new value (a new `HTTPField`, with the default indexing strategy: what
    /// `request.headerFields[name] = rotated` does), leaves the others, and adds one field of a name the request has.
    struct Rotator: ClientMiddleware {
        let rotated: Set<String>
        let added: String?

        func intercept(
            _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: (HTTPTypes.HTTPRequest, HTTPBody?, URL) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
            var request = request
            for name in rotated { request.headerFields[HTTPField.Name(name)!] = "rotated" }
            if let added { request.headerFields.append(HTTPField(name: HTTPField.Name(added)!, value: "added")) }
            return try await next(request, body, baseURL)
        }
    }

    @Test("through a ClientMiddleware that sets fields again, every mark survives and every origin stays with its name")
    func middlewareKeepsMarksAndOrigins() async throws {
        var random = SeededGenerator(seed: 13)
        for _ in 0..<300 {
            let headers = Self.randomHeaders(&random)
            let names = Set(headers.map(\.name))
            let rotated = Set(names.filter { _ in Bool.random(using: &random) })
            let middleware = Rotator(rotated: rotated, added: names.randomElement(using: &random))
            let request = RestingCore.HTTPRequest(
                method: .get, url: URL(string: "https://api.example.com/items")!, headers: headers)
            let sent = Locked<RestingCore.HTTPRequest?>(nil)
            _ = try await ClientMiddlewareInterceptor(middleware).intercept(
                request: request,
                execution: InterceptorExecution { request in
                    sent.withLock { $0 = request }
                    return HTTPDataResponse(status: 204, url: request.url)
                })
            let handed = try #require(sent.withLock { $0 }).headers
            for field in handed {
                let original = headers.filter { $0.name.lowercased() == field.name.lowercased() }
                #expect(!original.isEmpty)
                // A name the request marked stays marked, however the middleware set it.
                #expect(field.carriesCredential == original.contains { $0.carriesCredential })
                // A field the middleware left keeps its own origin; one set again, its name's first.
                let same = original.first { $0.value == field.value }
                #expect(field.origin == (same ?? original.first)?.origin)
            }
            // What carries a credential is printed redacted.
            if !handed.contains(where: { !$0.carriesCredential && $0.value == "rotated" }) {
                #expect(!handed.description.contains("rotated"))
            }
        }
    }
    #endif
}
#endif
