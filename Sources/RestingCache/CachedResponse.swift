import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response an ``HTTPCacheStore`` keeps, with what RFC 9111 needs to judge it later: when it was asked for
/// and received, and the request headers its `Vary` names.
public struct CachedResponse: Sendable, Equatable {
    /// The URL the response was fetched from, which is also its key in the store.
    public var url: URL
    /// The response's status code.
    public var status: Int { didSet { judge() } }
    /// The response's headers, as last received or merged from a `304 Not Modified`.
    public var headers: HTTPHeaderFields { didSet { judge() } }
    /// The whole response body.
    public var body: Data
    /// When the request that fetched (or last revalidated) it was sent.
    public var requestTime: Date { didSet { judge() } }
    /// When that response was received.
    public var responseTime: Date { didSet { judge() } }
    /// The values the request had for each header the response's `Vary` names (lowercased names; a header the
    /// request lacked is absent; a credential's value as an `hmac-sha256:` digest under this process's key). A later request is served this
    /// response only if its values are the same.
    public var varyingRequestHeaders: [String: String]
    /// What its headers and times say of its freshness, read once when they are set rather than at every request it
    /// may answer: parsing `Cache-Control` and the dates was most of a cache hit's cost.
    private(set) var freshnessBasis = CacheFreshness.Basis.unknown

    /// A response to keep, with the times of its exchange and the request header values its `Vary` names.
    public init(
        url: URL, status: Int, headers: HTTPHeaderFields, body: Data, requestTime: Date, responseTime: Date,
        varyingRequestHeaders: [String: String] = [:]
    ) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyingRequestHeaders = varyingRequestHeaders
        judge()
    }

    private mutating func judge() { freshnessBasis = CacheFreshness.Basis(self) }

    /// Bytes it is charged in a store's capacity: the body, the headers, and a fixed overhead.
    public var cost: Int { body.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } + 256 }

    /// The names the response's `Vary` fields list, lowercased; `*` among them means no request matches.
    var varyNames: [String] { Self.varyNames(headers) }

    static func varyNames(_ headers: HTTPHeaderFields) -> [String] {
        headers.values(for: "Vary").flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace.lowercased() }
            .filter { !$0.isEmpty }
    }

    /// The values `request` has for the headers named in `names`; a credential's (`Vary: Authorization`,
    /// `Vary: Cookie`) as a digest, so that no store ever holds it.
    static func varyingHeaders(of request: HTTPRequest, names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names where name != "*" {
            let fields = request.headers.filter { $0.name.caseInsensitiveEquals(name) }
            guard !fields.isEmpty else { continue }
            let value = fields.map(\.value.trimmingWhitespace).joined(separator: ", ")
            values[name] = fields.contains(where: \.carriesCredential) ? CredentialDigest.replacing(value) : value
        }
        return values
    }

    /// Whether this response may answer `request` (RFC 9111 §4.1).
    func matchesVary(of request: HTTPRequest) -> Bool {
        let names = varyNames
        return !names.contains("*") && Self.varyingHeaders(of: request, names: names) == varyingRequestHeaders
    }
}
