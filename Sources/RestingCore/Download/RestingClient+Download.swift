#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file that ``RestingClient/download(_:to:resume:maximumSize:)`` put in place.
public struct DownloadedFile: Sendable {
    /// Where the file is: the destination you gave.
    public var url: URL
    /// Its length in bytes.
    public var size: Int64
    /// Bytes kept from an earlier, interrupted attempt (0 when the download started from scratch).
    public var resumedFrom: Int64
    /// The status of the last response: 200, 206 when resumed, 416 when the partial file already held every byte.
    public var status: Int
    /// The headers of the response whose body is in the file.
    public var headers: HTTPHeaderFields
    /// What the transport measured for the exchange, when it measures.
    public var metrics: TransferMetrics?
}

extension RestingClient {
    /// Downloads the response body of `request` to `destination`, streaming it to disk, and returns the file.
    ///
    /// The body is written to `<destination>.part` and moved to `destination` only once it is complete, so
    /// `destination` never holds half a file. If a transfer fails midway (a cut connection, a timeout) the
    /// partial file stays, and the next `download` to the same destination continues it with a `Range`
    /// request — on every transport, as URLSession's resume data does not exist on Linux. Resuming is only
    /// attempted when the first response had a validator (`ETag` or `Last-Modified`), sent back as
    /// `If-Range`; a server that ignores the range or whose file changed makes the call fail with
    /// ``RestingError/resumeRefused(_:)`` and the partial file is deleted, so the next call starts over.
    /// Cancelling deletes the partial file too.
    ///
    /// ```swift
    /// let file = try await client.download(RestingRequest(endpoint: photo, pathVariables: ["name": "sunset.jpg"]),
    ///                                      to: photosFolder.appendingPathComponent("sunset.jpg"))
    ///     .progress { print("\(Int($0.fractionCompleted * 100)) %") }
    ///     .value
    /// ```
    ///
    /// Download progress counts the resumed bytes, so it runs from where the partial file ended to the total.
    /// Non-2xx responses fail as any call does — the API's error type (``HTTPErrorBody``), or
    /// ``RestingError/httpError(_:)`` — with their bodies in memory, not in the file.
    /// A file that would grow past `maximumSize` (16 GiB by default) fails with
    /// ``RestingError/responseTooLarge(limit:)`` and its partial file is removed.
    public func download<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, to destination: URL, resume: Bool = true,
        maximumSize: Int64 = DownloadTarget.defaultMaximumSize
    ) -> ProgressablePromise<DownloadedFile> {
        let partial = PartialDownload(destination: destination)
        return call(
            Call(self, request),
            ending: FileDownload(partial: partial, target: partial.target(resuming: resume, maximumSize: maximumSize)))
    }
}

/// The ending of a download: the body goes to a partial file — continued with a `Range` request when one is there
/// and has a validator — moved into place once whole. Only a 2xx has the file for its body, whatever else the call
/// accepts.
struct FileDownload<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: CallEnding {
    let partial: PartialDownload
    let target: DownloadTarget

    func prepare(_ request: inout HTTPRequest) throws {
        if target.offset > 0, let validator = target.validator {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(target.offset)-")
            request.headers.replaceOrAdd(name: "If-Range", value: validator)
        }
        request.downloadTarget = target
    }

    func statusCheck(_ check: StatusCheck) -> StatusCheck { check.forDownload }

    /// Progress of the whole file: a resumed download counts the bytes it already had.
    func progress(_ handler: @escaping ProgressHandler) -> ProgressHandler {
        guard target.offset > 0 else { return handler }
        return { [offset = target.offset] step in handler(step.continuing(from: offset)) }
    }

    /// A 416 for a partial file that already held every byte is the whole file.
    func answer(beforeCheck response: HTTPDataResponse, events: CallEventReporter?) throws -> DownloadedFile? {
        guard response.status == 416, target.offset > 0,
            ContentRange.completeLength(of: response.headers["Content-Range"]) == target.offset
        else { return nil }
        return try completed(response, size: target.offset, events: events)
    }

    /// A cancelled or refused download starts over next time; any other failure keeps its bytes.
    func exchangeFailed(_ error: any Error) {
        if Self.discardsPartialFile(error) { partial.remove() }
    }

    nonisolated(nonsending) func finish(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) async throws -> DownloadedFile {
        try completed(response, size: nil, events: events)
    }

    private func completed(_ response: HTTPDataResponse, size: Int64?, events: CallEventReporter?) throws
        -> DownloadedFile
    {
        try partial.complete()
        events?.report(.callEnded(status: response.status))
        return DownloadedFile(
            url: partial.destination, size: size ?? FileIO.size(of: partial.destination) ?? 0,
            resumedFrom: target.offset, status: response.status, headers: response.headers, metrics: response.metrics)
    }

    static func discardsPartialFile(_ error: any Error) -> Bool {
        switch error {
        case is CancellationError, RestingError.cancelled, RestingError.resumeRefused, RestingError.responseTooLarge:
            true
        default: false
        }
    }
}

extension TransferProgress {
    /// This progress of a transfer that continues a download already `offset` bytes long, as progress of the
    /// whole file.
    func continuing(from offset: Int64) -> TransferProgress {
        guard offset > 0 else { return self }
        var whole = self
        whole.bytesReceived += offset
        whole.totalBytesToReceive = totalBytesToReceive.map { $0 + offset }
        return whole
    }
}
