#if OpenAPI
import HTTPTypes
import OpenAPIRuntime
import RestingCore
import RestingHTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An existing swift-openapi-runtime `ClientMiddleware` as a RestingKit interceptor, so that a team moving its
/// generated clients onto RestingKit keeps the middlewares it has — and can run them on any call, generated or not.
///
/// ```swift
/// let resting = RestingClient(
///     baseUrl: "https://api.example.com", httpClient: try CurlClient(),
///     interceptors: [ClientMiddlewareInterceptor(TenantMiddleware())])
/// ```
///
/// The middleware sees the request as swift-http-types' head with an `HTTPBody` (a file or streamed body is read in
/// chunks as the middleware reads it), the origin as its `baseURL`, and the request's
/// ``/RestingCore/RequestAttributes/operationID`` (empty when none). What it hands on, and what it answers, become
/// RestingKit's request and response again: a body it did not replace passes through untouched (a streamed
/// response keeps streaming); one it replaced is streamed on, both ways.
public struct ClientMiddlewareInterceptor: RestingInterceptor {
    /// The middleware run on every request.
    public let middleware: any ClientMiddleware

    /// An interceptor running `middleware`.
    public init(_ middleware: any ClientMiddleware) {
        self.middleware = middleware
    }

    /// Runs the middleware around the rest of the chain.
    nonisolated(nonsending) public func intercept(request: RestingCore.HTTPRequest, execution: InterceptorExecution)
        async throws
        -> HTTPDataResponse
    {
        let head = try HTTPTypes.HTTPRequest(request)
        let body = OpenAPIBodies.httpBody(of: request.body)
        // What HTTPTypes.HTTPRequest.init checked: an http(s) URL with a host, so scheme and authority are set.
        guard let origin = URL(string: "\(head.scheme ?? "https")://\(head.authority ?? "")") else {
            throw RestingError.invalidURL(RedactionPolicy.default.url(request.url), reason: "no origin")
        }
        let received = Locked<(response: HTTPDataResponse, body: HTTPBody?)?>(nil)
        let (answer, answerBody) = try await middleware.intercept(
            head, body: body, baseURL: origin, operationID: request.attributes.operationID ?? ""
        ) { head, handedBody, baseURL in
            var sent = request
            guard let path = head.path else { throw RestingError.invalidURL("", reason: "the request has no path") }
            sent.url = try RestingClientTransport.url(baseURL, path)
            sent.method = RequestMethod(rawValue: head.method.rawValue)
            sent.headers = Self.headers(head.headerFields, keepingWhatTheyHadFrom: request.headers)
            sent.body = OpenAPIBodies.requestBody(handedBody, given: body, original: request.body)
            let response = try await execution(sent)
            let handed = try OpenAPIBodies.httpBody(of: response, for: head.method)
            received.withLock { $0 = (response, handed) }
            return (try HTTPTypes.HTTPResponse(response), handed)
        }
        // The middleware may answer without calling `next` at all: then there is no original response.
        let original = received.withLock { $0 }
        var response = HTTPDataResponse(answer, url: original?.response.url ?? request.url)
        response.metrics = original?.response.metrics
        response.cacheStatus = original?.response.cacheStatus
        response.body = OpenAPIBodies.responseBody(
            answerBody, given: original?.body, original: original?.response.body ?? .empty)
        return response
    }

    /// The fields the middleware handed on, with what swift-http-types has no place for taken from the request's own
    /// fields of the same name: a name the request marked sensitive stays sensitive whatever the middleware did to
    /// the field — left it, set it again (`headerFields[name] = rotated`, which makes a new `HTTPField`) or added
    /// another — as a sensitive mark survives every way of setting a field again; and a credential's origin stays
    /// with its name (the origin of the field with the same value, else of the first of that name), so that a
    /// credential issued for another site is still dropped by the credential boundary, not made the request's own.
    static func headers(_ fields: HTTPFields, keepingWhatTheyHadFrom original: HTTPHeaderFields) -> HTTPHeaderFields {
        var handed = HTTPHeaderFields()
        for field in HTTPHeaderFields(fields) {
            let named = original.filter { $0.name.caseInsensitiveEquals(field.name) }
            let origin = (named.first { $0.value == field.value } ?? named.first)?.origin
            handed.add(
                name: field.name, value: field.value,
                sensitive: field.isSensitive || named.contains(where: \.isSensitive),
                origin: origin)
        }
        return handed
    }
}
#endif
