/// Checks each response against rules, turning a failure into an error right where it sits in the chain,
/// so that interceptors placed around it (retry, auth, logging) see that error (Malibu's `validate()`).
///
/// ```swift
/// let validation = ValidationInterceptor([
///     .statusCodes(200..<300),
///     .contentTypeMatchesAccept,
///     .custom { _, response in
///         if response.headers["X-Deprecated"] != nil { throw MyAPIError.deprecated }
///     },
/// ])
/// ```
public struct ValidationInterceptor: RestingInterceptor {
    /// One check of a response.
    public enum Rule: Sendable {
        /// The status must be in the range, else ``RestingError/httpError(_:)``.
        case statusCodes(Range<Int>)
        /// A response with a body must have a `Content-Type` that the request's `Accept` allows (requests
        /// without `Accept` allow anything), else ``RestingError/validationFailed(_:reason:)``.
        case contentTypeMatchesAccept
        /// Any check; what it throws reaches the caller as it is.
        case custom(@Sendable (HTTPRequest, HTTPDataResponse) throws -> Void)
    }

    /// The checks, in order; the first that fails decides the error.
    public let rules: [Rule]

    /// An interceptor checking every response against `rules`.
    public init(_ rules: [Rule] = [.statusCodes(200..<300), .contentTypeMatchesAccept]) { self.rules = rules }

    /// Passes the request on and checks the response; a failed rule throws.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        let response = try await execution(request)
        for rule in rules { try check(rule, request, response) }
        return response
    }

    private func check(_ rule: Rule, _ request: HTTPRequest, _ response: HTTPDataResponse) throws {
        switch rule {
        case .statusCodes(let range):
            guard range.contains(response.status) else { throw RestingError.httpError(HTTPError(response)) }
        case .contentTypeMatchesAccept:
            guard !response.body.isEmpty, let accept = request.headers["Accept"] else {
                return
            }
            let contentType = response.headers["Content-Type"] ?? ""
            guard MediaRange.accepts(accept, contentType) else {
                throw RestingError.validationFailed(
                    HTTPError(response), reason: "Content-Type '\(contentType)' is not acceptable to Accept '\(accept)'"
                )
            }
        case .custom(let validate):
            try validate(request, response)
        }
    }
}
