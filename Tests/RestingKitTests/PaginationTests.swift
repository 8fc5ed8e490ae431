import Foundation
import RestingKit
import RestingServerHarness
import RestingTestSupport
import Testing

@testable import RestingCore
@testable import RestingPagination

@Suite("Pagination against image_server")
struct PaginationTests {
    struct CursorPage: Decodable, Sendable {
        let items: [PostModel]
        let nextCursor: String?
    }

    let server: LocalServer
    let requests = Collector<String>()
    let client: RestingClient
    let userId = Int.random(in: 1_000...999_999)
    let listPosts = Endpoint<Nothing, [PostModel]>(.get, "/posts", encoding: .query)

    init() async throws {
        server = try await LocalServer.sharedImageServer.value
        let requests = requests
        client = RestingClient(
            baseUrl: server.baseURL,
            interceptors: [
                RequestRewriter { request in
                    requests.append(request.url.query ?? "")
                    return request
                }
            ])
        let create = Endpoint<PostCreateModel, PostModel>(.post, "/posts", encoding: .json)
        for n in 1...7 {
            _ = try await client.perform(
                RestingRequest(
                    endpoint: create, body: PostCreateModel(userId: userId, title: "Page item \(n)", body: ""))
            ).value
        }
    }

    private var mine: [URLQueryItem] { [URLQueryItem(name: "userId", value: "\(userId)")] }

    @Test("following Link rel=\"next\" reaches the last page, then stops")
    func linkHeaders() async throws {
        let first = mine + [URLQueryItem(name: "_page", value: "1"), URLQueryItem(name: "_limit", value: "3")]
        var sizes: [Int] = []
        for try await page in client.pages(of: listPosts, queryItems: first, pagination: .linkHeader) {
            sizes.append(page.count)
        }
        #expect(sizes == [3, 3, 1])
    }

    @Test(
        "page numbers, offsets and cursors all walk the whole list in order", arguments: ["page", "offset", "cursor"])
    func strategies(strategy: String) async throws {
        let titles: [String]
        switch strategy {
        case "page":
            let pages = client.pages(
                of: listPosts, queryItems: mine, pagination: .pageNumber(page: "_page", size: "_limit", pageSize: 3))
            titles = try await collect(pages.items)
        case "offset":
            let pages = client.pages(
                of: listPosts, queryItems: mine, pagination: .offset(offset: "_offset", limit: "_limit", pageSize: 3))
            titles = try await collect(pages.items)
        default:
            let endpoint = Endpoint<Nothing, CursorPage>(.get, "/posts", encoding: .query)
            let pages = client.pages(
                of: endpoint, queryItems: mine + [URLQueryItem(name: "_limit", value: "3")],
                cursorParameter: "_cursor", items: \.items, nextCursor: \.nextCursor)
            titles = try await collect(pages.items)
        }
        #expect(titles == (1...7).map { "Page item \($0)" })
    }

    @Test("pages are fetched lazily: stopping after the first fetches one page")
    func lazy() async throws {
        let before = requests.all.count
        for try await _ in client.pages(
            of: listPosts, queryItems: mine, pagination: .pageNumber(page: "_page", size: "_limit", pageSize: 3))
        {
            break
        }
        #expect(requests.all.count == before + 1)
    }

    @Test("an exact multiple of the page size ends on the empty page")
    func exactMultiple() async throws {
        let pages = client.pages(
            of: listPosts, queryItems: mine, pagination: .pageNumber(page: "_page", size: "_limit", pageSize: 7))
        var sizes: [Int] = []
        for try await page in pages { sizes.append(page.count) }
        #expect(sizes == [7])
    }

    @Test("Link headers are parsed as RFC 8288 says")
    func linkParsing() {
        #expect(
            LinkHeader.target(of: #"</p?page=2>; rel="next", </p?page=9>; rel="last""#, relation: "next") == "/p?page=2"
        )
        #expect(LinkHeader.target(of: #"<https://h/a>; rel="prev next"; title="x""#, relation: "next") == "https://h/a")
        #expect(LinkHeader.target(of: #"</p?page=9>; REL=last"#, relation: "last") == "/p?page=9")
        #expect(LinkHeader.target(of: #"</p?page=1>; rel="first""#, relation: "next") == nil)
        #expect(LinkHeader.target(of: "garbage", relation: "next") == nil)
    }

    private func collect<S: AsyncSequence>(_ items: S) async throws -> [String] where S.Element == PostModel {
        var titles: [String] = []
        for try await post in items { titles.append(post.title) }
        return titles
    }
}
