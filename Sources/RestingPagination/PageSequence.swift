import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The pages of a list endpoint, fetched one at a time as you iterate, ending after the last page.
///
/// ```swift
/// let listPosts = Endpoint<Nothing, [PostModel]>(.get, "/posts", encoding: .query)
/// for try await page in client.pages(of: listPosts, pagination: .linkHeader) {
///     print("\(page.count) posts")
/// }
/// for try await post in client.pages(of: listPosts, pagination: .pageNumber(pageSize: 20)).items { … }
/// ```
public struct PageSequence<Page: Decodable & Sendable, Item: Sendable>: AsyncSequence, Sendable {
    public typealias Element = [Item]

    let client: RestingClient
    let endpoint: Endpoint<Nothing, Page>
    let headers: HTTPHeaderFields
    let pathVariables: [String: any PathVariableValue]
    let queryItems: [URLQueryItem]
    let start: PagePosition
    let itemsOfPage: @Sendable (Page) -> [Item]
    /// Where the next page is, from the page just fetched and the origin the iteration's calls are addressed to.
    let next:
        @Sendable (
            _ after: PagePosition, _ page: Page, _ count: Int, _ response: RestingResponse<Page>, _ callOrigin: Origin?
        ) throws -> PagePosition?

    /// Every page is a continuation of one call: the endpoint's attributes, the headers and the base URL the
    /// iteration started with, and the credentials of the first page's origin, wherever a link leads.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: PageSequence
        var position: PagePosition?
        /// The client's base URL when the iteration began: a switch meanwhile does not move later pages.
        let baseUrl: String
        /// Where the first page's call was addressed: the origin links are judged against (never a redirect's).
        let callOrigin = Locked<Origin?>(nil)
        var visited: Set<String> = []
        /// Why there is no next page although the server named one: thrown after this page's items.
        var refusedNext: (any Error)?

        public mutating func next() async throws -> [Item]? {
            if let refusedNext {
                self.refusedNext = nil
                throw refusedNext
            }
            guard let current = position else { return nil }
            position = nil
            let response = try await sequence.fetch(current, baseUrl: baseUrl, callOrigin: callOrigin)
            let items = sequence.itemsOfPage(response.body)
            guard !items.isEmpty else { return nil }
            do {
                if let next = try sequence.next(
                    current, response.body, items.count, response, callOrigin.withLock { $0 }),
                    visited.insert("\(next)").inserted  // a server that links back to a page must not loop forever
                {
                    position = next
                }
            } catch {
                refusedNext = error
            }
            return items
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(sequence: self, position: start, baseUrl: client.baseUrl)
    }

    /// The items of every page, one by one.
    public var items: some AsyncSequence<Item, any Error> & Sendable {
        flatMap { PageItems(items: $0) }
    }

    private func fetch(_ position: PagePosition, baseUrl: String, callOrigin: Locked<Origin?>) async throws
        -> RestingResponse<Page>
    {
        switch position {
        case .query(let extra):
            let request = RestingRequest(
                endpoint: endpoint, headers: headers, pathVariables: pathVariables, queryItems: queryItems + extra)
            return try await client.perform(request, baseUrl: baseUrl) { converted in
                callOrigin.withLock { $0 = $0 ?? converted.credentialOrigin }
            }.value
        case .url(let url, let trusted):
            // The endpoint's own call, retargeted: its attributes and headers stay, and its credentials stay
            // bound to the first page's origin unless the app trusted the link's host.
            let request = RestingRequest(
                endpoint: endpoint, headers: headers, pathVariables: pathVariables, queryItems: queryItems)
            return try await client.perform(request, baseUrl: baseUrl) { converted in
                converted.url = url
                if trusted { converted.credentialOrigin = Origin(url) }
            }.value
        }
    }
}

/// One page's items as an `AsyncSequence`, for ``PageSequence/items``.
struct PageItems<Item: Sendable>: AsyncSequence, Sendable {
    let items: [Item]

    struct AsyncIterator: AsyncIteratorProtocol {
        var iterator: IndexingIterator<[Item]>
        mutating func next() async -> Item? { iterator.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(iterator: items.makeIterator()) }
}

extension RestingClient {
    /// The pages of a list endpoint whose response is an array, following `pagination`; `headers` go with
    /// every page.
    public func pages<Item: Decodable & Sendable>(
        of endpoint: Endpoint<Nothing, [Item]>, headers: HTTPHeaderFields = [:],
        pathVariables: [String: any PathVariableValue] = [:],
        queryItems: [URLQueryItem] = [], pagination: Pagination
    ) -> PageSequence<[Item], Item> {
        PageSequence(
            client: self, endpoint: endpoint, headers: headers, pathVariables: pathVariables, queryItems: queryItems,
            start: pagination.start,
            itemsOfPage: { $0 },
            next: { position, _, count, response, callOrigin in
                try pagination.next(
                    after: position, count: count, headers: response.headers, url: response.url,
                    callOrigin: callOrigin)
            })
    }

    /// The pages of a list endpoint whose next page is wherever its API says — a URL or a cursor in the body, a
    /// header of its own: `next` reads each page's response (its headers and its decoded body) and answers where the
    /// page after it is, or `nil` after the last; `items` reads a page's items. A next URL is followed as
    /// ``Pagination/linkHeader``'s are: on the first page's origin, or on a host in `trustedHosts` (which then
    /// receives the same credentials), never from HTTPS to HTTP.
    ///
    /// ```swift
    /// struct RecordPage: Decodable { let data: [Record]; let next: String? }
    /// let listRecords = Endpoint<Nothing, RecordPage>(.get, "/records")
    /// for try await record in client.pages(of: listRecords, items: \.data, next: { $0.body.next.map(NextPage.link) })
    ///     .items { … }
    /// ```
    public func pages<Page: Decodable & Sendable, Item: Sendable>(
        of endpoint: Endpoint<Nothing, Page>, headers: HTTPHeaderFields = [:],
        pathVariables: [String: any PathVariableValue] = [:], queryItems: [URLQueryItem] = [],
        items: @escaping @Sendable (Page) -> [Item], trusting trustedHosts: Set<String> = [],
        next: @escaping @Sendable (RestingResponse<Page>) throws -> NextPage?
    ) -> PageSequence<Page, Item> {
        PageSequence(
            client: self, endpoint: endpoint, headers: headers, pathVariables: pathVariables, queryItems: queryItems,
            start: .query([]), itemsOfPage: items,
            next: { _, _, _, response, callOrigin in
                switch try next(response) {
                case nil: nil
                case .query(let items): .query(items)
                case .link(let target):
                    try PagePosition.following(
                        target, from: response.url, callOrigin: callOrigin, trustedHosts: trustedHosts)
                }
            })
    }

    /// The pages of a cursor-paginated endpoint: `items` reads a page's items, `nextCursor` the cursor of the
    /// next page (`nil` after the last), sent as the `cursorParameter` query item; `headers` go with every page.
    public func pages<Page: Decodable & Sendable, Item: Sendable>(
        of endpoint: Endpoint<Nothing, Page>, headers: HTTPHeaderFields = [:],
        pathVariables: [String: any PathVariableValue] = [:],
        queryItems: [URLQueryItem] = [], cursorParameter: String, items: @escaping @Sendable (Page) -> [Item],
        nextCursor: @escaping @Sendable (Page) -> String?
    ) -> PageSequence<Page, Item> {
        PageSequence(
            client: self, endpoint: endpoint, headers: headers, pathVariables: pathVariables, queryItems: queryItems,
            start: .query([URLQueryItem(name: cursorParameter, value: "")]), itemsOfPage: items,
            next: { _, page, _, _, _ in
                nextCursor(page).map { .query([URLQueryItem(name: cursorParameter, value: $0)]) }
            }
        )
    }
}

/// Where the page after one is, as a custom pagination strategy answers
/// (``RestingCore/RestingClient/pages(of:headers:pathVariables:queryItems:items:trusting:next:)``).
public enum NextPage: Sendable, Equatable {
    /// The page at this URL, absolute or relative to the page's own (a server's link, from a header or the body).
    case link(String)
    /// The endpoint again with these query items added after the request's own (a cursor: `[URLQueryItem(name:
    /// "cursor", value: page.body.cursor)]`), in place of the previous page's.
    case query([URLQueryItem])
}
