import Foundation
import RestingTestSupport
import Testing

@testable import RestingAuthentication
@testable import RestingCore
@testable import RestingPagination

/// Whatever a server writes in its next-page header, the iteration ends, follows a page on its own origin, or fails
/// with a typed error before sending anything elsewhere — it never crashes or sends the call's credentials away.
@Suite("Hostile next-page headers")
struct NextPageHeaderTests {
    struct Item: Codable, Sendable { let id: Int }

    /// The first page names `next` in its `Next-Page` header; any later page names none.
    func iterate(next: String, seen: Collector<HTTPRequest> = Collector()) async throws -> (
        pages: Int, requests: [HTTPRequest]
    ) {
        let transport = ClosureHTTPClient { request in
            seen.append(request)
            var headers: HTTPHeaderFields = ["Content-Type": "application/json"]
            if seen.all.count == 1 { headers["Next-Page"] = next }
            return HTTPDataResponse(
                status: 200, headers: headers, body: ResponseBody(Data(#"[{"id":1}]"#.utf8)), url: request.url)
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport,
            interceptors: [AuthInterceptor.bearer(token: "s3cr3t")])
        var pages = 0
        for try await _ in client.pages(
            of: Endpoint<Nothing, [Item]>(.get, "/items"), pagination: .nextPageHeader("Next-Page"))
        {
            pages += 1
        }
        return (pages, seen.all)
    }

    @Test("an empty or blank value is the last page", arguments: ["", "   ", "\t"])
    func blank(value: String) async throws {
        #expect(try await iterate(next: value).pages == 1)
    }

    @Test(
        "a relative or same-origin value is followed",
        arguments: ["/items?page=2", "?page=2", "https://api.example.com/items?page=2"])
    func sameOrigin(value: String) async throws {
        let (pages, requests) = try await iterate(next: value)
        #expect(pages == 2)
        #expect(requests.last?.url.absoluteString == "https://api.example.com/items?page=2")
    }

    @Test(
        "another origin, another scheme, no host or no URL at all fails with invalidURL and sends nothing",
        arguments: [
            "//evil.example/items", "http://api.example.com/items", "https://api.example.com:444/items",
            "https://user:pw@evil.example/", "ftp://api.example.com/items", "http://", "javascript:alert(1)",
            "https://[::1",
        ])
    func refused(value: String) async throws {
        let seen = Collector<HTTPRequest>()
        let failure = await #expect(throws: RestingError.self) { try await iterate(next: value, seen: seen) }
        #expect(seen.all.count == 1, "nothing is sent after the first page")
        guard case .invalidURL(let shown, _) = failure else {
            Issue.record("expected invalidURL, got \(String(describing: failure))")
            return
        }
        #expect(!shown.contains("pw"), "a refused URL is shown without its credentials")
    }
}
