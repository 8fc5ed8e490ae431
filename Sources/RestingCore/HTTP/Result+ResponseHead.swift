#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Result where Success == HTTPDataResponse, Failure == any Error {
    /// The status and fields the server answered with: the response's, or those of the error an interceptor inside
    /// made of it (``RestingError/httpError(_:)``, ``RestingError/validationFailed(_:reason:)``); `nil` when no
    /// response came.
    package var responseHead: (status: Int, headers: HTTPHeaderFields)? {
        switch self {
        case .success(let response): (response.status, response.headers)
        case .failure(RestingError.httpError(let error)), .failure(RestingError.validationFailed(let error, _)):
            (error.status, error.headers)
        case .failure: nil
        }
    }

    /// Where the response came from (after the redirects inside, if any); `nil` when no response came or it does
    /// not say.
    package var responseURL: URL? {
        switch self {
        case .success(let response): response.url
        case .failure(RestingError.httpError(let error)), .failure(RestingError.validationFailed(let error, _)):
            error.url
        case .failure: nil
        }
    }
}
