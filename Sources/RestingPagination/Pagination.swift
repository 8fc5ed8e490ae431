import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a list endpoint tells where its next page is.
public enum Pagination: Sendable {
    /// `?page=N&size=M`, numbered from `firstPage`; the first page with fewer than `pageSize` items is the last.
    case pageNumber(page: String = "page", size: String = "size", pageSize: Int, firstPage: Int = 1)
    /// `?offset=N&limit=M`; the first page with fewer than `pageSize` items is the last.
    case offset(offset: String = "offset", limit: String = "limit", pageSize: Int)
    /// The RFC 8288 `Link` header's `rel="next"` target; the page without one is the last. Only a target on
    /// the origin (scheme, host and port) the first page was asked of is followed — not the origin a redirect
    /// led that page to — since the whole chain goes with it; any other fails the iteration with
    /// ``/RestingCore/RestingError/invalidURL(_:reason:)``. (Were a page on another origin reached anyway, the credential
    /// boundary would still keep the call's credentials from it.)
    case linkHeader
    /// As ``linkHeader``, and also to the hosts in `trustedHosts` (any case), which then receive the same
    /// credentials: the app's explicit choice. Never from HTTPS to plain HTTP.
    case linkHeaderTrusting(_ trustedHosts: Set<String>)
    /// The next page's URL as the whole value of the response header `name` (`Next-Page: https://…`, relative URLs
    /// resolving against the page's); the page without one is the last. Followed as ``linkHeader``'s targets are:
    /// on the first page's origin, or on a host in `trusting`.
    ///
    /// ```swift
    /// for try await record in client.pages(of: listRecords, pagination: .nextPageHeader("Next-Page")).items { … }
    /// ```
    case nextPageHeader(_ name: String, trusting: Set<String> = [])

    /// Where the first page is.
    var start: PagePosition {
        switch self {
        case .pageNumber(let page, let size, let pageSize, let firstPage):
            .query([URLQueryItem(name: page, value: "\(firstPage)"), URLQueryItem(name: size, value: "\(pageSize)")])
        case .offset(let offset, let limit, let pageSize):
            .query([URLQueryItem(name: offset, value: "0"), URLQueryItem(name: limit, value: "\(pageSize)")])
        case .linkHeader, .linkHeaderTrusting, .nextPageHeader:
            .query([])
        }
    }

    /// Where the page after `position` is, given what that page held.
    func next(after position: PagePosition, count: Int, headers: HTTPHeaderFields, url: URL?, callOrigin: Origin?)
        throws(RestingError) -> PagePosition?
    {
        switch self {
        case .pageNumber(let page, let size, let pageSize, _):
            guard count >= pageSize, let current = position.value(of: page).flatMap(Int.init) else { return nil }
            return .query([
                URLQueryItem(name: page, value: "\(current + 1)"), URLQueryItem(name: size, value: "\(pageSize)"),
            ])
        case .offset(let offset, let limit, let pageSize):
            guard count >= pageSize, let current = position.value(of: offset).flatMap(Int.init) else { return nil }
            return .query([
                URLQueryItem(name: offset, value: "\(current + count)"),
                URLQueryItem(name: limit, value: "\(pageSize)"),
            ])
        case .linkHeader:
            return try nextLink(headers: headers, url: url, callOrigin: callOrigin, trustedHosts: [])
        case .linkHeaderTrusting(let trustedHosts):
            return try nextLink(headers: headers, url: url, callOrigin: callOrigin, trustedHosts: trustedHosts)
        case .nextPageHeader(let name, let trustedHosts):
            guard let target = headers[name]?.trimmingWhitespace, !target.isEmpty else { return nil }
            return try PagePosition.following(target, from: url, callOrigin: callOrigin, trustedHosts: trustedHosts)
        }
    }

    /// The `next` link of a page fetched from `url`, judged against the origin the iteration's calls are addressed to.
    private func nextLink(headers: HTTPHeaderFields, url: URL?, callOrigin: Origin?, trustedHosts: Set<String>)
        throws(RestingError) -> PagePosition?
    {
        guard let header = headers["Link"], let target = LinkHeader.target(of: header, relation: "next") else {
            return nil
        }
        return try PagePosition.following(target, from: url, callOrigin: callOrigin, trustedHosts: trustedHosts)
    }
}

/// Where a page is: extra query items on the endpoint, or an absolute URL a server gave (`trusted` when on a host
/// the app trusts with its credentials).
enum PagePosition: Sendable, Equatable {
    case query([URLQueryItem])
    case url(URL, trusted: Bool)

    func value(of name: String) -> String? {
        guard case .query(let items) = self else { return nil }
        return items.first { $0.name == name }?.value
    }

    /// The page at `target`, a URL a page fetched from `url` named (a relative one resolves against it), if the
    /// iteration may follow it: on the origin its calls are addressed to (`callOrigin`), or on a host the app trusts
    /// with its credentials — never from HTTPS to plain HTTP.
    static func following(_ target: String, from url: URL?, callOrigin: Origin?, trustedHosts: Set<String>)
        throws(RestingError) -> PagePosition
    {
        guard let next = URL(string: target, relativeTo: url)?.absoluteURL else {
            throw .invalidURL(RedactionPolicy.default.address(target), reason: "a next-page link must be a URL")
        }
        guard let nextOrigin = Origin(next), let callOrigin = callOrigin ?? url.flatMap(Origin.init) else {
            throw .invalidURL(RedactionPolicy.default.url(next), reason: "a next-page link must be an http(s) URL")
        }
        if nextOrigin == callOrigin { return .url(next, trusted: false) }
        guard !(callOrigin.scheme == "https" && nextOrigin.scheme != "https") else {
            throw .invalidURL(
                RedactionPolicy.default.url(next), reason: "a next-page link may not leave HTTPS for HTTP")
        }
        guard let host = next.host?.lowercased(), trustedHosts.contains(where: { $0.lowercased() == host }) else {
            throw .invalidURL(
                RedactionPolicy.default.url(next),
                reason: "a next-page link to another origin is not followed (credentials would go with it); "
                    + "trust its host (Pagination.linkHeaderTrusting, the trusting: parameters)")
        }
        return .url(next, trusted: true)
    }
}
