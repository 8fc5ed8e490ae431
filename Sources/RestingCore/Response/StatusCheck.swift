#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which statuses a call takes as its answer, and what it throws for any other: the one place a call's status is
/// judged, whatever path the call took (a whole body, a stream, a download, a page, a replay).
package struct StatusCheck: Sendable {
    /// The client's accepted range.
    let accepted: Range<Int>
    /// What the endpoint accepts besides (a `304` for a conditional read).
    let alsoAccepted: Set<Int>
    /// The app's error type, the endpoint's or the client's.
    package let errorBody: ErrorBodyDecoding?
    /// Decodes an error body: the endpoint's decoder, or the client's.
    package let decoder: JSONDecoder

    /// A check that accepts `accepted` and `alsoAccepted`, failing any other status with `errorBody`'s type.
    package init(
        accepted: Range<Int>, alsoAccepted: Set<Int>, errorBody: ErrorBodyDecoding?, decoder: JSONDecoder
    ) {
        self.accepted = accepted
        self.alsoAccepted = alsoAccepted
        self.errorBody = errorBody
        self.decoder = decoder
    }

    func accepts(_ status: Int) -> Bool { accepted.contains(status) || alsoAccepted.contains(status) }

    /// What a call fails with for `error`'s unaccepted response: the app's error when its body is one, else
    /// ``RestingError/httpError(_:)``.
    package func failure(for error: HTTPError) -> any Error {
        errorBody?.decode(error, decoder) ?? RestingError.httpError(error)
    }

    /// The most of an unaccepted streamed response's body kept in its ``HTTPError``.
    static let errorBodyLimit = 1024 * 1024

    /// Throws what a call fails with unless `response`'s status is accepted: the app's error or
    /// ``RestingError/httpError(_:)``, with the body — read from its stream, up to ``errorBodyLimit``, when it streams.
    func verify(_ response: HTTPDataResponse) async throws {
        guard !accepts(response.status) else { return }
        throw try await failure(reading: response)
    }

    /// Never inlined: a streamed call's frame, held while its head is awaited, would carry this one's.
    @inline(never)
    private func failure(reading response: HTTPDataResponse) async throws -> any Error {
        var response = response
        if let stream = response.body.stream {
            response.body = ResponseBody(try await stream.collect(upTo: Self.errorBodyLimit))
        }
        return failure(for: HTTPError(response))
    }

    /// This check for a download's response: only a 2xx has the file for its body, whatever else the call accepts.
    var forDownload: StatusCheck {
        let success = 200..<300
        return StatusCheck(
            accepted: accepted.clamped(to: success), alsoAccepted: alsoAccepted.filter(success.contains),
            errorBody: errorBody, decoder: decoder)
    }
}
