#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which statuses a call takes as its answer, and what it throws for any other: the one place a call's status is
/// judged, whatever path the call took (a whole body, a stream, a download, a page, a replay).
struct StatusCheck: Sendable {
    /// The client's accepted range.
    let accepted: Range<Int>
    /// What the endpoint accepts besides (a `304` for a conditional read).
    let alsoAccepted: Set<Int>
    /// The app's error type, the endpoint's or the client's.
    let errorBody: ErrorBodyDecoding?
    /// Decodes an error body: the endpoint's decoder, or the client's.
    let decoder: JSONDecoder

    func accepts(_ status: Int) -> Bool { accepted.contains(status) || alsoAccepted.contains(status) }

    /// What a call fails with for `error`'s unaccepted response: the app's error when its body is one, else
    /// ``RestingError/httpError(_:)``.
    func failure(for error: HTTPError) -> any Error {
        errorBody?.decode(error, decoder) ?? RestingError.httpError(error)
    }

    /// Throws ``failure(for:)`` unless `response`'s status is accepted.
    func check(_ response: HTTPDataResponse) throws {
        guard accepts(response.status) else { throw failure(for: HTTPError(response)) }
    }
}
