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
/// sensitive: logs, cURL descriptions and recordings redact it, and a redirect to another origin drops it.
public struct CookieInterceptor: RestingInterceptor {
    /// Where cookies are kept between calls.
    public let jar: any CookieJar

    /// An interceptor that sends and stores the cookies of `jar`; add it as a network interceptor.
    public init(jar: any CookieJar) { self.jar = jar }

    /// Adds the jar's cookies for the request's URL, then stores the response's `Set-Cookie` fields.
    public func intercept(request: HTTPRequest, execution: Execution) async throws -> HTTPDataResponse {
        var request = request
        let cookies = await jar.cookies(for: request.url)
        if !cookies.isEmpty {
            let pairs = cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
            let value = request.headers["Cookie"].map { "\($0); \(pairs)" } ?? pairs
            request.headers.replaceOrAdd(name: "Cookie", value: value, sensitive: true)
        }
        let response = try await execution(request)
        let fields = response.headers.values(for: "Set-Cookie")
        if !fields.isEmpty { try await jar.receive(setCookieFields: fields, from: request.url) }
        return response
    }
}
