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
        let check = statusCheck(for: request.endpoint).forDownload
        return call { context in
            var httpRequest = try self.converted(
                request, baseUrl: self.baseUrl, continuing: nil, events: context.events)
            let partial = PartialDownload(destination: destination)
            let target = partial.target(resuming: resume, maximumSize: maximumSize)
            if target.offset > 0, let validator = target.validator {
                httpRequest.headers.replaceOrAdd(name: "Range", value: "bytes=\(target.offset)-")
                httpRequest.headers.replaceOrAdd(name: "If-Range", value: validator)
            }
            httpRequest.downloadTarget = target
            let response: HTTPDataResponse
            do {
                response = try await self.exchange(httpRequest) { step in
                    context.progress(step.continuing(from: target.offset))
                }
            } catch {
                // A cancelled or refused download starts over next time; any other failure keeps its bytes.
                if Self.discardsPartialFile(error) { partial.remove() }
                throw error
            }
            if response.status == 416, target.offset > 0,
                ContentRange.completeLength(of: response.headers["Content-Range"]) == target.offset
            {
                // The partial file already held every byte.
                try partial.complete()
                context.events?.report(.callEnded(status: response.status))
                return DownloadedFile(
                    url: destination, size: target.offset, resumedFrom: target.offset,
                    status: response.status, headers: response.headers, metrics: response.metrics)
            }
            try await check.verify(response)
            try partial.complete()
            context.events?.report(.callEnded(status: response.status))
            return DownloadedFile(
                url: destination, size: FileIO.size(of: destination) ?? 0, resumedFrom: target.offset,
                status: response.status,
                headers: response.headers, metrics: response.metrics)
        }
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
