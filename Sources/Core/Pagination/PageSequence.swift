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
    let pathVariables: [String: any PathVariableValue]
    let queryItems: [URLQueryItem]
    let start: PagePosition
    let itemsOfPage: @Sendable (Page) -> [Item]
    /// Where the next page is, from the page just fetched.
    let next:
        @Sendable (_ after: PagePosition, _ page: Page, _ count: Int, _ response: HTTPResponse<Page>) throws ->
            PagePosition?

    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: PageSequence
        var position: PagePosition?
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
            let response = try await sequence.fetch(current)
            let items = sequence.itemsOfPage(response.body)
            guard !items.isEmpty else { return nil }
            do {
                if let next = try sequence.next(current, response.body, items.count, response),
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

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self, position: start) }

    /// The items of every page, one by one.
    public var items: AsyncThrowingFlatMapSequence<PageSequence, AsyncSyncSequence<[Item]>> {
        flatMap { $0.async }
    }

    private func fetch(_ position: PagePosition) async throws -> HTTPResponse<Page> {
        switch position {
        case .query(let extra):
            return try await client.perform(
                RestingRequest(endpoint: endpoint, pathVariables: pathVariables, queryItems: queryItems + extra)
            ).value
        case .url(let url):
            let target = Endpoint<Nothing, Page>(.get, url.absoluteString, encoding: .query)
            return try await client.perform(RestingRequest(endpoint: target)).value
        }
    }
}

/// A synchronous sequence as an `AsyncSequence`.
public struct AsyncSyncSequence<Base: Sequence & Sendable>: AsyncSequence, Sendable where Base.Element: Sendable {
    public typealias Element = Base.Element
    let base: Base

    public struct AsyncIterator: AsyncIteratorProtocol {
        var iterator: Base.Iterator
        public mutating func next() async -> Base.Element? { iterator.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(iterator: base.makeIterator()) }
}

extension Array where Element: Sendable {
    var async: AsyncSyncSequence<[Element]> { AsyncSyncSequence(base: self) }
}

extension RestingClient {
    /// The pages of a list endpoint whose response is an array, following `pagination`.
    public func pages<Item: Decodable & Sendable>(
        of endpoint: Endpoint<Nothing, [Item]>, pathVariables: [String: any PathVariableValue] = [:],
        queryItems: [URLQueryItem] = [], pagination: Pagination
    ) -> PageSequence<[Item], Item> {
        PageSequence(
            client: self, endpoint: endpoint, pathVariables: pathVariables, queryItems: queryItems,
            start: pagination.start,
            itemsOfPage: { $0 },
            next: { position, _, count, response in
                try pagination.next(after: position, count: count, headers: response.headers, url: response.url)
            })
    }

    /// The pages of a cursor-paginated endpoint: `items` reads a page's items, `nextCursor` the cursor of the
    /// next page (`nil` after the last), sent as the `cursorParameter` query item.
    public func pages<Page: Decodable & Sendable, Item: Sendable>(
        of endpoint: Endpoint<Nothing, Page>, pathVariables: [String: any PathVariableValue] = [:],
        queryItems: [URLQueryItem] = [], cursorParameter: String, items: @escaping @Sendable (Page) -> [Item],
        nextCursor: @escaping @Sendable (Page) -> String?
    ) -> PageSequence<Page, Item> {
        PageSequence(
            client: self, endpoint: endpoint, pathVariables: pathVariables, queryItems: queryItems,
            start: .query([URLQueryItem(name: cursorParameter, value: "")]), itemsOfPage: items,
            next: { _, page, _, _ in nextCursor(page).map { .query([URLQueryItem(name: cursorParameter, value: $0)]) } }
        )
    }
}
