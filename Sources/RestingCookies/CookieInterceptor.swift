import RestingCore

/// Sends and stores cookies through a ``CookieJar``, per hop: put it in `networkInterceptors`, so that a cookie
/// set by a `302` is stored before the next hop asks for it, and each hop carries the cookies of its own URL.
///
/// ```swift
/// let jar = InMemoryCookieJar()
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport, networkInterceptors: [CookieInterceptor(jar: jar)])
/// _ = try await client.perform(RestingRequest(endpoint: login, body: credentials)).value   // Set-Cookie: session=…
/// let me = try await client.perform(RestingRequest(endpoint: getMe)).value.body           // Cookie: session=…
/// ```
///
/// A `Cookie` header the request already has is kept, the jar's cookies appended. The header is marked
/// sensitive and bound to the request URL's origin: logs, cURL descriptions and recordings redact it, and it
/// never reaches another origin. `Set-Cookie` fields are stored for the URL that answered them (the last hop's,
/// when the transport followed a redirect), never for the first request's.
public struct CookieInterceptor: PlacedInterceptor {
    /// Where cookies are kept between calls.
    public let jar: any CookieJar

    /// An interceptor that sends and stores the cookies of `jar`; add it as a network interceptor.
    public init(jar: any CookieJar) { self.jar = jar }

    /// Adds the jar's cookies for the request's URL, then stores the response's `Set-Cookie` fields.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        var request = request
        let cookies = await jar.cookies(for: request.url)
        if !cookies.isEmpty {
            let pairs = cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
            let value = request.headers["Cookie"].map { "\($0); \(pairs)" } ?? pairs
            // The jar chose these cookies for this URL: they are bound to its origin, whatever happens next.
            request.headers.replaceOrAdd(name: "Cookie", value: value, sensitive: true, origin: Origin(request.url))
        }
        let response = try await execution(request)
        let fields = response.headers.values(for: "Set-Cookie")
        // The site that set them is the one that answered: after a redirect the transport followed (this
        // interceptor among application interceptors), that is the last hop's, not the first request's.
        if !fields.isEmpty { try await jar.receive(setCookieFields: fields, from: response.url ?? request.url) }
        return response
    }
}

extension CookieInterceptor {
    /// Rank 0 of the credentials and cache order: see ``/RestingCore/InterceptorPlacement``.
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "credentials and cache", rank: 0, list: .either, name: "CookieInterceptor")
    }
}
