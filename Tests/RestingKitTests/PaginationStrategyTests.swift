import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness
import Testing

@testable import RestingAuthentication
@testable import RestingCore
@testable import RestingPagination

/// Every way an API announces its next page — RFC 8288 `Link`, a header of its own, the body — followed on the first
/// page's origin, refused to another origin unless the app trusts its host (the call's credentials go with it), on
/// both transports. The storage server puts the next page's URL in all three places, on `_next_base` when given.
@Suite("Pagination strategies and their cross-origin next pages")
struct PaginationStrategyTests {
    struct Seeded: Decodable, Sendable { let id: String }
    struct SeededPage: Decodable, Sendable {
        let data: [Seeded]
        let next: String?
    }

    enum Strategy: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case linkHeader, nextPageHeader, bodyLink
        var testDescription: String { rawValue }
    }

    static let cases = Strategy.allCases.flatMap { strategy in EachTransport.allCases.map { (strategy, $0) } }

    /// Every id the pages of the seeded collection yield, the next pages announced on `nextBase`.
    func ids(_ strategy: Strategy, _ transport: EachTransport, nextBase: String, trusting hosts: Set<String>)
        async throws -> [String]
    {
        let client = RestingClient(
            baseUrl: try await StorageServers.first.value.baseURL, httpClient: try transport.client,
            interceptors: [AuthInterceptor.basic(username: "alice", password: "wonderland")])
        let query = [URLQueryItem(name: "_limit", value: "2"), URLQueryItem(name: "_next_base", value: nextBase)]
        let path = "/v1/buckets/pages/collections/seeded/records"
        var ids: [String] = []
        do {
            switch strategy {
            case .linkHeader:
                let pages = client.pages(
                    of: Endpoint<Nothing, [Seeded]>(.get, path).unwrapping("data"), queryItems: query,
                    pagination: hosts.isEmpty ? .linkHeader : .linkHeaderTrusting(hosts))
                for try await seeded in pages.items { ids.append(seeded.id) }
            case .nextPageHeader:
                let pages = client.pages(
                    of: Endpoint<Nothing, [Seeded]>(.get, path).unwrapping("data"), queryItems: query,
                    pagination: .nextPageHeader("Next-Page", trusting: hosts))
                for try await seeded in pages.items { ids.append(seeded.id) }
            case .bodyLink:
                let pages = client.pages(
                    of: Endpoint<Nothing, SeededPage>(.get, path), queryItems: query, items: \.data, trusting: hosts
                ) { page in page.body.next.map(NextPage.link) }
                for try await seeded in pages.items { ids.append(seeded.id) }
            }
        } catch {
            throw Interrupted(after: ids, error: error)
        }
        return ids
    }

    struct Interrupted: Error {
        let after: [String]
        let error: any Error
    }

    @Test("pages on the first page's origin are followed", arguments: cases)
    func sameOrigin(strategy: Strategy, transport: EachTransport) async throws {
        let base = try await StorageServers.first.value.baseURL
        #expect(
            try await ids(strategy, transport, nextBase: base, trusting: []) == ["r00", "r01", "r02", "r03", "r04"])
    }

    @Test("a next page on another origin is refused before a request is made", arguments: cases)
    func otherOriginRefused(strategy: Strategy, transport: EachTransport) async throws {
        let refusing = try RefusingPort()
        defer { refusing.release() }
        // Were it followed, the connection would be refused: an invalid URL shows it was not even tried.
        let interrupted = await #expect(throws: Interrupted.self) {
            try await ids(strategy, transport, nextBase: "http://127.0.0.1:\(refusing.port)", trusting: [])
        }
        #expect(interrupted?.after == ["r00", "r01"])
        guard case .invalidURL(_, let reason) = interrupted?.error as? RestingError else {
            Issue.record("expected invalidURL, got \(String(describing: interrupted?.error))")
            return
        }
        #expect(reason.contains("another origin"))
    }

    @Test("a next page on a trusted host is followed, with the call's credentials", arguments: cases)
    func trustedHostFollowed(strategy: Strategy, transport: EachTransport) async throws {
        let other = try await StorageServers.second.value.baseURL
        // The second server answers only with the credentials: every page arriving shows they went along.
        #expect(
            try await ids(strategy, transport, nextBase: other, trusting: ["127.0.0.1"])
                == ["r00", "r01", "r02", "r03", "r04"])
    }
}
