import CCurl
import RestingTransportKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One exchange on an easy handle: sets the handle up from an ``/RestingCore/HTTPRequest``, receives libcurl's
/// callbacks, and turns the outcome into a response.
///
/// After submission every property is touched on the driver thread only (libcurl calls back on the thread
/// that drives it); the submission queue's lock hands it over. That confinement is also why the state the
/// callbacks touch is `@exclusivity(unchecked)`: no two accesses can overlap, and the run-time checks (a
/// thread-local access set per read and write) cost more than the callbacks' own work.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    /// The caller's progress handler, until a streamed head has been delivered (see ``deliverHead(status:bufferSize:)``).
    @exclusivity(unchecked) private var progress: ProgressHandler
    let uploadLength: Int64?

    /// Where the transfer is, with what each state owns: the waiting task's continuation — only a wake-up; the outcome
    /// itself goes through ``handoff`` — or a streamed body's feed.
    @exclusivity(unchecked) var lifecycle = TransferLifecycle<Waiter, StreamedBody>()
    /// What wakes the task that waits for the transfer.
    typealias Waiter = CheckedContinuation<Void, Never>
    /// The outcome on its way to the awaiting task, under a lock rather than as the continuation's value:
    /// ThreadSanitizer does not see the concurrency runtime's hand-off when the transfer ends before the task has
    /// suspended, and reported the fields of the response, made on this thread, as races.
    private let handoff = Locked<Result<HTTPDataResponse, RestingError>?>(nil)
    @exclusivity(unchecked) var handle: EasyHandle?
    /// Where the driver keeps this transfer among its active ones (driver thread only); -1 when not active.
    @exclusivity(unchecked) var activeIndex = -1

    /// The request body's reader, and how far libcurl has read it.
    @exclusivity(unchecked) var upload = UploadSource.none
    /// The current response's head, line by line.
    @exclusivity(unchecked) private var head = ResponseHeadReader()
    /// The final response's framing on the wire, watched while the request body may still be open.
    @exclusivity(unchecked) private var framing: ResponseFraming?
    /// The request body's trailer fields, asked for and checked as its last byte was read; sent after it.
    @exclusivity(unchecked) var trailers: HTTPHeaderFields?
    /// A body read whole: in memory within the limit or in a download's file; the rate floor, fed from the progress
    /// callback (which libcurl calls at least once a second, stalled or not); the progress throttle.
    @exclusivity(unchecked) private var collector: ResponseCollector
    /// A failure a callback decided on (body unreadable, response too large), which wins over the CURLcode.
    @exclusivity(unchecked) var failure: RestingError?
    @exclusivity(unchecked) private var lastReported: (downloaded: Int64, uploaded: Int64) = (0, 0)
    /// Set when the request asks for a streamed body: the head goes up as soon as it arrives.
    let streaming: ResponseStreaming?
    /// Where a download's 2xx body goes, instead of memory.
    var sink: DownloadTarget.Writer? { collector.sink }
    /// The largest body kept in memory (libcurl enforces it too, from the announced length).
    let maximumResponseSize: Int64
    /// The driver running it, where the body stream's reader sends its resume and cancel requests.
    let driver: CurlDriver
    /// Its origin's key in the pool's ``OriginAffinity`` while the origin's protocol is not known: the driver reports
    /// what the response came over.
    let affinityKey: String?
    /// Where the waiting task resumes when another driver runs it (the one holding its origin's HTTP/2 connection):
    /// the submitting driver, or the least loaded other, so that the pipelines' work stays off the connection's
    /// thread while the origin's transfers share one connection.
    let home: CurlDriver?
    /// Which connection the transfer may ride on.
    let connection: TransferConnection

    /// The client's count of live transfers and double resumes.
    let census: TransferCensus

    init(
        request: HTTPRequest, progress: @escaping ProgressHandler, maximumResponseSize: Int64,
        minimumRate: MinimumTransferRate? = nil, census: TransferCensus, driver: CurlDriver, affinityKey: String? = nil,
        home: CurlDriver? = nil, connection: TransferConnection = .any
    ) {
        census.transferCreated()
        self.census = census
        self.request = request
        self.progress = progress
        self.maximumResponseSize = maximumResponseSize
        collector = ResponseCollector(
            request: request, maximumResponseSize: maximumResponseSize, minimumRate: minimumRate)
        streaming = collector.streaming
        uploadLength = request.body.isEmpty ? 0 : request.body.contentLength
        self.driver = driver
        self.affinityKey = affinityKey
        self.home = home
        self.connection = connection
    }

    deinit {
        releaseRequestResources()
        census.transferFreed()
    }

    // MARK: libcurl callbacks (driver thread)

    func receiveBody(_ bytes: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        if let streamed = lifecycle.feed {
            // libcurl keeps a refused write and offers it again once the driver unpauses the transfer.
            guard !streamed.isPaused else { return Int(CURL_WRITEFUNC_PAUSE) }
            // A pass's first write gets a chunk of its own size: an open stream's occasional event costs its bytes,
            // not a whole coalesced chunk. A second write in the same pass means a busy stream: one allocation of
            // the full chunk then, not a regrowth (and a copy) per write.
            if streamed.pendingBody.isEmpty {
                streamed.pendingBody.reserveCapacity(count)
                streamed.hasCoalescingCapacity = false
            } else if !streamed.hasCoalescingCapacity {
                streamed.pendingBody.reserveCapacity(max(coalescedChunkSize, streamed.pendingBody.count + count))
                streamed.hasCoalescingCapacity = true
            }
            streamed.pendingBody.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: count)
            streamed.taken += Int64(count)
            if streamed.pendingBody.count >= coalescedChunkSize {
                flushPendingBody(of: streamed)
            } else if !streamed.isAwaitingFlush {
                streamed.isAwaitingFlush = true
                driver.flushAfterPass(self)
            }
            return failure == nil ? count : 0
        }
        do throws(RestingError) {
            // A body before the end of the head (HTTP/0.9-like, or a server that sends no blank line) still begins.
            if !collector.hasBegun {
                try collector.begin(
                    status: handle?.long(CURLINFO_RESPONSE_CODE) ?? 0, headers: head.fields,
                    announcedLength: head.announcedLength)
            }
            try collector.append(UnsafeRawBufferPointer(start: bytes, count: count))
            return count
        } catch {
            failure = error
            return 0
        }
    }

    func receiveHeader(_ bytes: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        let line = UnsafeBufferPointer(start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: count)
        switch head.read(line) {
        case .taken:
            return count
        case .malformed(let reason):
            failure = Self.malformed(reason)
            return 0
        case .ended:
            guard let status = handle?.long(CURLINFO_RESPONSE_CODE), status >= 200 else { return count }
            if upload.isSequence { watchFraming(status: status) }
            if let streaming {
                deliverHead(status: status, bufferSize: streaming.bufferSize)
                return count
            }
            do throws(RestingError) {
                try collector.begin(status: status, headers: head.fields, announcedLength: head.announcedLength)
                return count
            } catch {
                failure = error
                return 0
            }
        }
    }

    /// Starts following the final response's body on the wire, for a request body that may outlast it.
    private func watchFraming(status: Int) {
        let framing = ResponseFraming(status: status, method: request.method, headers: head.fields)
        self.framing = framing
        if framing.isComplete { driver.endAfterPass(self) }
    }

    /// The response body's bytes as they came off the wire: once they make it whole, the driver ends the transfer,
    /// the request body open or not.
    func receiveWireBody(_ bytes: UnsafeRawBufferPointer) {
        guard var framing, !framing.isComplete else { return }
        if framing.consume(bytes) { driver.endAfterPass(self) }
        self.framing = framing
    }

    /// The largest chunk handed to a stream's reader: half its buffer, at most 256 KiB (sixteen of libcurl's writes).
    private var coalescedChunkSize: Int { min(max(streaming?.bufferSize ?? 0, 2) / 2, 256 * 1024) }

    /// Hands the gathered bytes to the reader's stream; false (and the body marked paused) when its buffer is full.
    @discardableResult
    func flushPendingBody(of streamed: StreamedBody) -> Bool {
        guard !streamed.pendingBody.isEmpty else { return true }
        switch streamed.feed.yield(streamed.pendingBody) {
        case .accepted:
            streamed.pendingBody = Data()
            return true
        case .pause:
            streamed.isPaused = true
            return false
        case .discarded:
            failure = .cancelled
            streamed.pendingBody = Data()
            return false
        }
    }

    /// Resumes the caller with the head of a streamed response and a stream for its body.
    private func deliverHead(status: Int, bufferSize: Int) {
        let driver = driver
        let (stream, feed) = ResponseBodyFeed.makeStream(
            bufferSize: bufferSize,
            onResume: { [weak self] in self.map(driver.unpause) },
            onCancel: { [weak self] in self.map(driver.cancel) })
        guard let waiter = lifecycle.streamHead(into: StreamedBody(feed)) else { return }
        head.shrinkToFit()
        // The call has its answer, and its progress ends with it: holding the handler for the stream's life would
        // only keep the settled call's progress channel.
        progress = { _ in }
        resume(
            waiter,
            with: .success(
                HTTPDataResponse(
                    status: status, headers: head.fields, body: ResponseBody(stream), url: request.url,
                    metrics: handle.map(Self.headMetrics))))
    }

    /// Ends a streamed body with the transfer's outcome (`code`), or with `failure` when the driver stopped it.
    func endBody(of streamed: StreamedBody, _ code: CURLcode, failure: RestingError? = nil) {
        var end = failure
        if end == nil, case .failure(let error) = outcome(code) { end = error }
        if let end {
            streamed.feed.finish(afterYielding: Data(), throwing: end)
        } else {
            streamed.feed.finish(afterYielding: streamed.pendingBody, trailers: head.trailers)
        }
        streamed.pendingBody = Data()
    }

    /// Resumes the caller that `waiter` is — handed out once by ``lifecycle``, so exactly once.
    func resume(_ waiter: Waiter, with outcome: Result<HTTPDataResponse, RestingError>) {
        handoff.withLock { $0 = outcome }
        if let home { home.wake(waiter) } else { waiter.resume() }
    }

    /// What ``resume(_:with:)`` handed over, for the task it woke: the response, or the error thrown. Synchronous and
    /// never inlined: the lock's temporaries and the typed error would otherwise enlarge the frame of the task that
    /// waits, held for as long as the transfer runs.
    @inline(never)
    func takeResponse() throws -> HTTPDataResponse {
        try handoff.withLock { outcome in
            defer { outcome = nil }
            return outcome ?? .failure(.cancelled)
        }.get()
    }

    /// The directions libcurl must keep paused: receiving while a streamed body's reader is behind, sending while
    /// an upload's producer is.
    var pausedDirections: Int32 {
        (lifecycle.feed?.isPaused == true ? CURLPAUSE_RECV : 0) | (upload.isPaused ? CURLPAUSE_SEND : 0)
    }

    /// Reports progress; false when the response arrives slower than the minimum rate, or libcurl holds more than
    /// ``maximumResponseSize`` of a streamed body its reader has not taken, which aborts the transfer.
    func reportProgress(downloaded: Int64, expected: Int64, uploaded: Int64) -> Bool {
        if let streamed = lifecycle.feed, !holdsWithinLimit(streamed, downloaded: downloaded) { return false }
        // Header bytes count: the response has begun with its first one, and a head can drip too.
        let received = Int64(head.bytes) + downloaded
        let judgesRate = received > 0 && collector.minimumRate != nil
        // libcurl calls this often, also when nothing moved; only a change or a rate to judge is worth the clock.
        let moved = downloaded != lastReported.downloaded || uploaded != lastReported.uploaded
        guard judgesRate || moved else { return true }
        let now = MonotonicInstant.now
        if judgesRate {
            do throws(RestingError) {
                try collector.checkRate(
                    received: received, at: now, domain: CurlError.domain, code: Int(CURLE_OPERATION_TIMEDOUT.rawValue))
            } catch {
                failure = error
                return false
            }
        }
        guard moved else { return true }
        lastReported = (downloaded, uploaded)
        guard collector.isProgressDue(at: now) else { return true }
        progress(
            TransferProgress(
                bytesSent: uploaded, totalBytesToSend: uploadLength, bytesReceived: downloaded,
                totalBytesToReceive: expected > 0 ? expected : nil))
        return true
    }

    /// Whether what libcurl holds for `streamed` over HTTP/3 — received, not yet taken — is within
    /// ``maximumResponseSize``. A paused transfer stops its server over HTTP/1.1 and HTTP/2 (what libcurl holds then
    /// is bounded by their flow control); over HTTP/3 libcurl 8 goes on receiving and holds every byte (its QUIC
    /// streams have no pause), which only this bound stops short of the whole body. (A compressed body is received
    /// smaller than it is taken: the bound is then looser, never wrong the other way.)
    private func holdsWithinLimit(_ streamed: StreamedBody, downloaded: Int64) -> Bool {
        if streamed.arrivesOverQUIC == nil {
            streamed.arrivesOverQUIC = handle?.long(CURLINFO_HTTP_VERSION) == Int(CURL_HTTP_VERSION_3)
        }
        guard streamed.arrivesOverQUIC == true, downloaded - streamed.taken > maximumResponseSize else { return true }
        failure = .responseTooLarge(limit: maximumResponseSize)
        return false
    }

    private static func malformed(_ message: String) -> RestingError {
        .transportFailed(TransportError(kind: .malformedResponse, code: 0, domain: CurlError.domain, message: message))
    }

    // MARK: Outcome

    /// The response, or the failure, once libcurl reports the transfer done with `code`.
    func outcome(_ code: CURLcode) -> Result<HTTPDataResponse, RestingError> {
        guard let handle else { return .failure(.cancelled) }
        if let failure { return .failure(failure) }
        if code == CURLE_FILESIZE_EXCEEDED { return .failure(.responseTooLarge(limit: maximumResponseSize)) }
        // libcurl answers a header line past its own limit (100 KB) with "out of memory": a malformed head.
        if code == CURLE_OUT_OF_MEMORY, head.phase == .head {
            return .failure(Self.malformed("a response header line is too long"))
        }
        guard code == CURLE_OK else { return .failure(CurlError.restingError(code, of: handle)) }
        let status = handle.long(CURLINFO_RESPONSE_CODE) ?? 0
        let received = collector.bytesReceived
        let body: Data
        do throws(RestingError) {
            try collector.begin(status: status, headers: head.fields, announcedLength: head.announcedLength)
            body = try collector.finish(status: status, headers: head.fields)
        } catch {
            return .failure(error)
        }
        var metrics = Self.headMetrics(handle)
        metrics.total = handle.offset(CURLINFO_TOTAL_TIME_T).map(Duration.microseconds)
        metrics.bytesSent = handle.offset(CURLINFO_SIZE_UPLOAD_T)
        metrics.bytesReceived = received
        let sent = metrics.bytesSent ?? 0
        progress(
            TransferProgress(
                bytesSent: sent, totalBytesToSend: uploadLength, bytesReceived: received,
                totalBytesToReceive: received))
        // libcurl never follows redirects (the chain does), so the URL is the request's.
        var response = HTTPDataResponse(
            status: status, headers: head.fields, body: ResponseBody(body), url: request.url, metrics: metrics)
        response.trailers = head.trailers
        return .success(response)
    }

    /// What is known once the head has arrived: the phases up to the first byte, the protocol and the connection.
    static func headMetrics(_ handle: EasyHandle) -> TransferMetrics {
        TransferMetrics(
            nameLookup: handle.offset(CURLINFO_NAMELOOKUP_TIME_T).map(Duration.microseconds),
            connect: handle.offset(CURLINFO_CONNECT_TIME_T).map(Duration.microseconds),
            tlsHandshake: tlsHandshake(handle),
            timeToFirstByte: handle.offset(CURLINFO_STARTTRANSFER_TIME_T).map(Duration.microseconds),
            protocolVersion: handle.long(CURLINFO_HTTP_VERSION).flatMap(protocolVersion),
            // The count of connections this transfer opened: none means it rode on one already open.
            reusedConnection: handle.long(CURLINFO_NUM_CONNECTS).map { $0 == 0 })
    }

    /// OpenTelemetry's spelling of a `CURLINFO_HTTP_VERSION`.
    static func protocolVersion(_ version: Int) -> String? {
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): "1.0"
        case Int(CURL_HTTP_VERSION_1_1): "1.1"
        case Int(CURL_HTTP_VERSION_2_0): "2"
        case Int(CURL_HTTP_VERSION_3): "3"
        default: nil
        }
    }

    private static func tlsHandshake(_ handle: EasyHandle) -> Duration? {
        guard let appConnect = handle.offset(CURLINFO_APPCONNECT_TIME_T), appConnect > 0,
            let connect = handle.offset(CURLINFO_CONNECT_TIME_T)
        else { return nil }
        return .microseconds(appConnect - connect)
    }

    /// Gives the handle back (for reuse) and frees what the request held.
    func detachHandle() -> EasyHandle? {
        defer { handle = nil }
        releaseRequestResources()
        return handle
    }

    private func releaseRequestResources() {
        collector.close()
        upload.close()
    }
}

/// Which connection a transfer may ride on.
enum TransferConnection: Equatable {
    /// An idle one of its origin's, or a new one within the client's connect timeout.
    case any
    /// A new one of its own: a warm-up's, or a probe's race, which an open HTTP/2 connection would otherwise carry.
    case fresh
    /// An idle one, or a new one within `limit` (when shorter than the client's connect timeout): a confirmed
    /// HTTP/3 alternative's, whose black hole must leave the call time to go over TCP.
    case connectingWithin(Duration)
}
