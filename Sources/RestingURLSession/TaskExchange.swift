import Foundation
import RestingCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request on the session and the caller waiting for it: collects the response (into memory, or into a
/// download's file through the target's writer), reports progress, and resumes the caller exactly once — with
/// the outcome, or with `.cancelled` as soon as the call is cancelled, without waiting for
/// FoundationNetworking to report the cancellation (under load that takes seconds). The task is then
/// cancelled for cleanup, and late events are ignored.
///
/// Events arrive on the session's delegate queue, cancellation from any thread; all state sits behind one
/// lock, so a cancel never races a write to the download file. The body stream is closed when the task
/// completes, never earlier.
final class TaskExchange: SessionTask {
    typealias Continuation = CheckedContinuation<HTTPDataResponse, any Error>

    private struct State {
        var lifecycle = TaskLifecycle<URLSessionTask, Continuation, SpillingStreamFeed>()
        var response: HTTPURLResponse?
        var headers = HTTPHeaderFields()
        /// The body read whole (in memory or a download's file), the rate floor — judged as each chunk arrives: a
        /// drip delivers chunks, and a full stall is the idle timeout's — and the progress throttle.
        var collector: ResponseCollector
        var bodyStream: BodyInputStream?
        var progress = TransferProgress()
        /// A failure decided here (too large, download refused), which wins over URLSession's error.
        var failure: RestingError?
    }

    private let request: HTTPRequest
    private let progress: ProgressHandler
    private let state: Locked<State>
    /// Set when the request asks for a streamed body (and is not a download).
    private let streaming: ResponseStreaming?
    private let streamSpillLimit: Int64

    init(
        request: HTTPRequest, maximumResponseSize: Int64, minimumRate: MinimumTransferRate? = nil,
        streamSpillLimit: Int64, progress: @escaping ProgressHandler
    ) {
        self.request = request
        let collector = ResponseCollector(
            request: request, maximumResponseSize: maximumResponseSize, minimumRate: minimumRate)
        streaming = collector.streaming
        self.streamSpillLimit = streamSpillLimit
        self.progress = progress
        var initial = State(collector: collector)
        initial.progress.totalBytesToSend = request.body.isEmpty ? 0 : request.body.contentLength
        state = Locked(initial)
    }

    // MARK: Caller side

    func start(
        session: URLSession, delegate: SessionDelegate, request urlRequest: URLRequest, continuation: Continuation
    ) {
        guard state.withLock({ $0.lifecycle.mayStart }) else {
            return continuation.resume(throwing: RestingError.cancelled)
        }
        let task = session.dataTask(with: urlRequest)
        guard delegate.register(self, for: task) else {
            task.cancel()
            return continuation.resume(throwing: RestingError.cancelled)
        }
        let started = state.withLock { $0.lifecycle.started(task, waiter: continuation) }
        task.resume()
        if !started {
            task.cancel()
            continuation.resume(throwing: RestingError.cancelled)
        }
    }

    func cancel() {
        let running = state.withLock { state in
            let running = state.lifecycle.cancel()
            // The request's body stream stays open until URLSession reports the task complete: FoundationNetworking
            // may be reading it right now, and a failing read on a cancelled task traps inside it.
            if running != nil { state.collector.close() }
            return running
        }
        guard let (task, continuation) = running else { return }
        continuation.resume(throwing: RestingError.cancelled)
        task.cancel()
    }

    /// The reader of a streamed body gave up: stop the task.
    private func stopStream() {
        state.withLock { $0.lifecycle.readerLeft() }?.cancel()
    }

    /// The head of the response has arrived (before any of its body): a streamed call gets it now.
    func receiveHead(_ response: URLResponse) {
        guard let streaming, let response = response as? HTTPURLResponse else { return }
        let head: (Continuation, HTTPDataResponse)? = state.withLock { state in
            guard state.lifecycle.isRunning else { return nil }
            do throws(RestingError) {
                if state.response == nil { try accept(response, in: &state) }
            } catch {
                state.failure = error
                return nil
            }
            let (stream, feed) = SpillingStreamFeed.makeStream(
                bufferSize: streaming.bufferSize, spillLimit: streamSpillLimit,
                onCancel: { [weak self] in self?.stopStream() })
            guard let continuation = state.lifecycle.beginStreaming(into: feed) else { return nil }
            let head = HTTPDataResponse(
                status: response.statusCode, headers: state.headers, body: ResponseBody(stream),
                url: response.url ?? request.url)
            return (continuation, head)
        }
        if let (continuation, response) = head { continuation.resume(returning: response) }
    }

    // MARK: Session events

    /// A fresh stream over the body, for the first attempt and whenever URLSession needs to rewind.
    func makeBodyStream() -> InputStream? {
        do {
            let stream = BodyInputStream(try request.body.makeReader())
            state.withLock { state in
                state.bodyStream?.close()
                state.bodyStream = stream
            }
            return stream
        } catch {
            state.withLock { $0.failure = error }
            return nil
        }
    }

    /// A chunk of the body; `response` is the task's response, taken in with the first chunk. Not waiting
    /// for the response in a delegate call of its own saves a round trip through the delegate queue.
    func receive(_ data: Data, response: URLResponse?) {
        if streaming != nil, let response { receiveHead(response) }
        let (report, refused) = state.withLock { state -> (TransferProgress?, Bool) in
            if let feed = state.lifecycle.feed {
                state.progress.bytesReceived += Int64(data.count)
                guard feed.receive(data) else { return (nil, true) }
                return (state.collector.isProgressDue(at: .now) ? state.progress : nil, false)
            }
            guard state.lifecycle.isRunning else { return (nil, false) }
            do throws(RestingError) {
                if state.response == nil, let response = response as? HTTPURLResponse {
                    try accept(response, in: &state)
                }
                let now = MonotonicInstant.now
                try state.collector.checkRate(
                    received: state.progress.bytesReceived + Int64(data.count), at: now, domain: NSURLErrorDomain,
                    code: URLError.timedOut.rawValue)
                try state.collector.append(data)
                state.progress.bytesReceived += Int64(data.count)
                return (state.collector.isProgressDue(at: now) ? state.progress : nil, false)
            } catch {
                state.failure = error
                return (nil, true)
            }
        }
        if let report { progress(report) }
        if refused { abandon() }
    }

    /// Takes in the response head: headers, expected length, and where a download's body goes.
    private func accept(_ response: HTTPURLResponse, in state: inout State) throws(RestingError) {
        state.response = response
        state.headers = URLSessionMapping.headers(of: response)
        // HTTPURLResponse joins repeated fields with ", ": two different lengths leave the body's end to a guess.
        if let lengths = state.headers["Content-Length"],
            Set(lengths.split(separator: ",").map { $0.filter { $0 != " " } }).count > 1
        {
            throw .transportFailed(
                TransportError(
                    kind: .malformedResponse, code: URLError.badServerResponse.rawValue,
                    domain: NSURLErrorDomain, message: "conflicting Content-Length headers"))
        }
        let expected = response.expectedContentLength
        state.progress.totalBytesToReceive = expected >= 0 ? expected : nil
        // The limit is for bodies held in memory; a download's goes to its file, a stream's to its reader.
        try state.collector.begin(
            status: response.statusCode, headers: state.headers, announcedLength: expected >= 0 ? expected : nil)
    }

    func sent(_ totalBytesSent: Int64) {
        let report = state.withLock { state -> TransferProgress in
            state.progress.bytesSent = totalBytesSent
            return state.progress
        }
        progress(report)
    }

    /// Orders the awaiting task after the thread that resumed it, for ThreadSanitizer: responses are made under
    /// the state's lock before their continuation is resumed, but the concurrency runtime's own hand-off of the
    /// value is invisible to ThreadSanitizer when the task had not yet suspended, and it reported the response's
    /// fields as races. Called by the task once it has its response or its error.
    func joinResumer() { state.withLock { _ in } }

    func complete(_ error: (any Error)?, response: URLResponse?) {
        // A streamed response with no body (a 204, a HEAD) goes up now.
        if streaming != nil, error == nil, let response { receiveHead(response) }
        if let feed = state.withLock({ $0.lifecycle.endStream() }) {
            let failure = state.withLock { $0.failure ?? $0.bodyStream?.failure }
            feed.finish(failure ?? error.map(URLSessionMapping.restingError))
            return finish(.failure(.cancelled))
        }
        let outcome: Result<HTTPDataResponse, RestingError>? = state.withLock { state in
            // Cancelled: the caller has moved on (and may have deleted a download's files); touch nothing.
            guard state.lifecycle.isRunning else { return nil }
            if let failure = state.failure ?? state.bodyStream?.failure { return .failure(failure) }
            if let error { return .failure(URLSessionMapping.restingError(error)) }
            do throws(RestingError) {
                if state.response == nil, let response = response as? HTTPURLResponse {
                    try accept(response, in: &state)
                }
                guard let response = state.response else {
                    throw URLSessionMapping.restingError(URLError(.badServerResponse))
                }
                let body = try state.collector.finish(status: response.statusCode, headers: state.headers)
                return .success(
                    HTTPDataResponse(
                        status: response.statusCode, headers: state.headers, body: ResponseBody(body),
                        url: response.url ?? request.url))
            } catch {
                return .failure(error)
            }
        }
        guard let outcome else { return finish(.failure(.cancelled)) }
        if case .success = outcome {
            let report = state.withLock { state -> TransferProgress in
                state.progress.totalBytesToReceive = state.progress.bytesReceived
                if let total = state.progress.totalBytesToSend { state.progress.bytesSent = total }
                return state.progress
            }
            progress(report)
        }
        finish(outcome)
    }

    // MARK: Ending

    /// Stops the task after a failure decided here; `complete` reports it.
    private func abandon() {
        state.withLock { $0.lifecycle.abandon() }?.cancel()
    }

    private func finish(_ outcome: Result<HTTPDataResponse, RestingError>) {
        let continuation: Continuation? = state.withLock { state in
            state.collector.close()
            state.bodyStream?.close()
            return state.lifecycle.finish()
        }
        continuation?.resume(with: outcome.mapError { $0 as any Error })
    }
}
