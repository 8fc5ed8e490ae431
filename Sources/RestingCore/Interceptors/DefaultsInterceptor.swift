#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Adds headers and query parameters to every request that does not set them itself (SimpleNetworking's
/// `additionalParameters`, Malibu's defaults).
///
/// ```swift
/// DefaultsInterceptor(headers: ["X-Client": "ios/4.2"], queryItems: [URLQueryItem(name: "locale", value: "fr")])
/// ```
public struct DefaultsInterceptor: RestingInterceptor {
    /// Headers added to requests that lack them.
    public let headers: HTTPHeaderFields
    /// Query items added to every request's URL.
    public let queryItems: [URLQueryItem]

    /// An interceptor adding these headers (where missing) and query items to every request.
    public init(headers: HTTPHeaderFields = [:], queryItems: [URLQueryItem] = []) {
        self.headers = headers
        self.queryItems = queryItems
    }

    /// Adds the defaults, then passes the request on.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        var request = request
        request.headers.addMissing(from: headers)
        let present = Set(
            URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? [])
        let missing = queryItems.filter { !present.contains($0.name) }
        if !missing.isEmpty {
            let address = request.url.absoluteString
            // The query ends where a fragment begins: parameters appended after `#` would never be sent.
            let fragmentStart = address.firstIndex(of: "#") ?? address.endIndex
            let separator = request.url.query == nil ? "?" : "&"
            let extended =
                address[..<fragmentStart] + separator + URLQueryEncoder.percentEncoded(missing)
                + address[fragmentStart...]
            guard let url = URL(string: String(extended)) else {
                throw RestingError.invalidURL(
                    RedactionPolicy.default.url(request.url), reason: "default query parameters made it invalid")
            }
            request.url = url
        }
        return try await execution(request)
    }
}
