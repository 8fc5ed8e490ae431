import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When a ``Polling`` sequence asks again: after an interval, or later when the server says so.
///
/// ```swift
/// let schedule = PollingSchedule(every: .seconds(30)).honouring(secondsIn: "Backoff")
/// ```
public struct PollingSchedule: Sendable {
    /// The wait after each answer, unless the server asks for a longer one.
    public var interval: Duration
    /// The wait a response's headers ask for, read at `now`; ``retryAfter(headers:now:)`` by default.
    public var requestedDelay: @Sendable (_ headers: HTTPHeaderFields, _ now: Date) -> Duration?
    /// What it waits on: the system's clock, or a `VirtualClock` in tests.
    public var clock: any InterceptorClock

    /// Polls every `interval`, or as much later as `requestedDelay` reads from a response's headers.
    public init(
        every interval: Duration, clock: any InterceptorClock = SystemClock(),
        requestedDelay: @escaping @Sendable (_ headers: HTTPHeaderFields, _ now: Date) -> Duration? = retryAfter
    ) {
        self.interval = interval
        self.clock = clock
        self.requestedDelay = requestedDelay
    }

    /// The `Retry-After` header's delay (seconds or an HTTP date), the server's standard way to say "not before".
    public static func retryAfter(headers: HTTPHeaderFields, now: Date) -> Duration? {
        headers["Retry-After"].flatMap { RetryAfter.delay($0, now: now) }
    }

    /// This schedule also honouring an API's own header that holds a number of seconds to wait (`Backoff: 60`), read
    /// as `Retry-After` is and waited for an hour at the most, whatever the number.
    public func honouring(secondsIn header: String) -> Self {
        var schedule = self
        let requested = requestedDelay
        schedule.requestedDelay = { headers, now in
            let own = headers[header].flatMap { ServerDuration.parse($0, for: .backoff) }
            return [requested(headers, now), own].compactMap { $0 }.max()
        }
        return schedule
    }

    /// How long to wait after a response with `headers`: what a server asks for is waited an hour at the most.
    func delay(after headers: HTTPHeaderFields) -> Duration {
        max(interval, requestedDelay(headers, clock.now).map { ServerDuration.clamped($0, for: .backoff) } ?? .zero)
    }
}

/// A resource read again and again, yielding each time it changed: every request after the first is conditional
/// on the last answer's `ETag` / `Last-Modified`, a `304 Not Modified` is waited past, and so is a `429` or `503`
/// that says when to come back (`Retry-After`); any other failure ends the sequence with its error. Cancelling the
/// iterating task ends it, waiting or asking. Each round is one call of the client: ``/RestingCore/RestingClient/cancelAll()`` ends a
/// round in flight, and the poll with ``/RestingCore/RestingError/cancelled``; after ``/RestingCore/RestingClient/shutdown(gracePeriod:)`` the
/// next round fails with ``/RestingCore/RestingError/shutDown``. The wait between rounds belongs to the iterating task, not to the
/// client: it holds no concurrency slot, and the client's cancellation finds nothing to cancel there.
///
/// ```swift
/// for try await change in client.poll(RestingRequest(endpoint: listRecords), schedule: PollingSchedule(every: .seconds(30))) {
///     render(change.body)
/// }
/// ```
///
/// A response without a validator is yielded every time: the server gave nothing to ask "has it changed?" with.
public struct Polling<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: AsyncSequence,
    Sendable
{
    public typealias Element = RestingResponse<ResponseType>

    let client: RestingClient
    let request: RestingRequest<RequestType, ResponseType>
    let schedule: PollingSchedule
    /// The version the caller already has: the first round asks only for what changed since.
    let known: RestingResponse<ResponseType>?
    let adjust:
        (@Sendable (RestingRequest<RequestType, ResponseType>, Element) -> RestingRequest<RequestType, ResponseType>)?

    /// Reads the resource as the schedule says.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let polling: Polling
        var request: RestingRequest<RequestType, ResponseType>
        /// What the next round waits for first; `nil` before the first.
        var wait: Duration?
        /// The validators of the last change yielded (not the change: its body may be large).
        var validators: (etag: String?, lastModified: String?) = (nil, nil)

        public mutating func next() async throws -> Element? {
            while true {
                if let wait {
                    do { try await polling.schedule.clock.sleep(for: wait) } catch { return nil }
                }
                guard !Task.isCancelled else { return nil }
                let round = request.ifChanged(etag: validators.etag, lastModified: validators.lastModified)
                let outcome: PollingRound<ResponseType>
                do {
                    outcome = try await polling.client.pollingRound(round)
                } catch RestingError.cancelled where Task.isCancelled {
                    return nil
                }
                switch outcome {
                case .unchanged(let headers):
                    wait = polling.schedule.delay(after: headers)
                case .changed(let response):
                    wait = polling.schedule.delay(after: response.headers)
                    validators = (response.etag, response.lastModified)
                    if let adjust = polling.adjust { request = adjust(request, response) }
                    return response
                }
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        guard let known else { return AsyncIterator(polling: self, request: request) }
        // The known response is the last round's: the first waits as long as it asks (its Backoff, its Retry-After).
        return AsyncIterator(
            polling: self, request: adjust.map { $0(request, known) } ?? request,
            wait: schedule.delay(after: known.headers), validators: (known.etag, known.lastModified))
    }
}

/// What one round of a poll found.
enum PollingRound<ResponseType: Sendable>: Sendable {
    /// Nothing new (a `304`), or the server asked to come back later (a `429` or `503` with `Retry-After`).
    case unchanged(HTTPHeaderFields)
    case changed(RestingResponse<ResponseType>)
}

extension RestingClient {
    /// `request` read again and again as `schedule` says, yielding each change (see ``Polling``); `adjust` makes the
    /// next round's request from the last and its response (an API's `_since` parameter), when given.
    ///
    /// `startingAt` is the version the caller already has — a response of the same endpoint, read with `send` —: the
    /// poll goes on from it as from its own last round, so the first round waits as `schedule` says after that
    /// response (its interval, or longer if the response asked), is conditional on its validators and is made by
    /// `adjust` from it, and the poll yields only what changed since.
    ///
    /// ```swift
    /// let current = try await client.send(listRecords)
    /// let changes = client.poll(listRecords, schedule: PollingSchedule(every: .seconds(30)), startingAt: current) {
    ///     request, last in
    ///     var next = request
    ///     next.queryItems = [URLQueryItem(name: "_since", value: last.etagValue)]
    ///     return next
    /// }
    /// ```
    public func poll<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, schedule: PollingSchedule,
        startingAt known: RestingResponse<ResponseType>? = nil,
        adjust: (
            @Sendable (RestingRequest<RequestType, ResponseType>, RestingResponse<ResponseType>) -> RestingRequest<
                RequestType, ResponseType
            >
        )? = nil
    ) -> Polling<RequestType, ResponseType> {
        Polling(client: self, request: request, schedule: schedule, known: known, adjust: adjust)
    }

    /// One round of a poll, as one call of this client: a `304` and a `429` / `503` that says when to come back are
    /// no failure here, whatever the endpoint accepts.
    func pollingRound<RequestType, ResponseType>(_ request: RestingRequest<RequestType, ResponseType>) async throws
        -> PollingRound<ResponseType>
    {
        try await call(Call(self, request), ending: PollingRoundEnding()).value
    }
}

/// The ending of a poll round: "unchanged" for a `304` or a "come back later", else the response decoded.
struct PollingRoundEnding<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: CallEnding {
    func answer(beforeCheck response: HTTPDataResponse, events: CallEventReporter?) throws
        -> PollingRound<ResponseType>?
    {
        let comeBackLater = [429, 503].contains(response.status) && response.headers.contains("Retry-After")
        guard response.status == 304 || comeBackLater else { return nil }
        events?.report(.callEnded(status: response.status))
        return .unchanged(response.headers)
    }

    nonisolated(nonsending) func finish(
        _ response: HTTPDataResponse, of call: Call<RequestType, ResponseType>, events: CallEventReporter?
    ) async throws -> PollingRound<ResponseType> {
        .changed(try await DecodedResponse().finish(response, of: call, events: events))
    }
}
