extension Result where Success == HTTPDataResponse, Failure == any Error {
    /// The status and fields the server answered with: the response's, or those of the error an interceptor inside
    /// made of it (``RestingError/httpError(_:)``, ``RestingError/validationFailed(_:reason:)``); `nil` when no
    /// response came.
    var responseHead: (status: Int, headers: HTTPHeaderFields)? {
        switch self {
        case .success(let response): (response.status, response.headers)
        case .failure(RestingError.httpError(let error)), .failure(RestingError.validationFailed(let error, _)):
            (error.status, error.headers)
        case .failure: nil
        }
    }
}
