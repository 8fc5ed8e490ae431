import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `text/event-stream` body read as ``ServerSentEventMessage``s, each yielded as soon as its blank line arrives
/// (parsed as the WHATWG HTML standard says), with opt-in reconnection.
///
/// ```swift
/// let feed = Endpoint<Nothing, ServerSentEvents>(.get, "/feed", encoding: .query)
/// let events = try await client.perform(RestingRequest(endpoint: feed)).value.body
/// for try await event in events.reconnecting(.init(maximumAttempts: 5)) {
///     let update = try event.decode(Update.self)
/// }
/// ```
///
/// Without ``reconnecting(_:)`` the sequence ends when the body does (an error that cut it is thrown). With
/// it, a body that ends or breaks is followed by the same call sent again through the whole pipeline — fresh
/// headers and credentials, every interceptor — with `Last-Event-ID` set to the last ID received, after the
/// server's `retry:` delay (or the policy's default, never less than its minimum): the reader sees one sequence
/// of events, none lost or repeated by a server that honours `Last-Event-ID`. A reconnection answered 204 ends
/// the sequence, as the standard says; any other status the client does not accept fails it.
///
/// A reconnection is the same call: the base URL, attributes and headers it started with (a base URL switched
/// meanwhile does not move it), the client's concurrency limit for each new head, and `cancel()` on the promise
/// or the client's `cancelAll()` end it at any moment, the wait before a reconnection included.
public struct ServerSentEvents: AsyncSequence, StreamingResponseBody {
    public typealias Element = ServerSentEventMessage
    public typealias Failure = any Error

    /// When and how often a dropped event stream is opened again.
    public struct Reconnection: Sendable, Equatable {
        /// Reconnections in a row that may fail or end before an event arrives; each event received resets the count.
        public var maximumAttempts: Int
        /// The wait before reconnecting when the server sent no `retry:` field.
        public var defaultDelay: Duration
        /// The longest wait, whatever the server's `retry:` asks for.
        public var maximumDelay: Duration
        /// The shortest wait, whatever the server's `retry:` asks for: a server that sends `retry: 0` and one
        /// event per connection cannot make the client reconnect as fast as it answers.
        public var minimumDelay: Duration

        /// Reconnects up to `maximumAttempts` times in a row, waiting the server's `retry:` or `defaultDelay`, never
        /// less than `minimumDelay` nor more than `maximumDelay`.
        public init(
            maximumAttempts: Int = 5, defaultDelay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60),
            minimumDelay: Duration = .milliseconds(100)
        ) {
            self.maximumAttempts = Swift.max(0, maximumAttempts)
            self.defaultDelay = defaultDelay
            self.maximumDelay = maximumDelay
            self.minimumDelay = minimumDelay
        }

        /// The wait before the next reconnection, given the server's last `retry:`.
        func delay(server: Duration?) -> Duration {
            Swift.max(minimumDelay, Swift.min(server ?? defaultDelay, maximumDelay))
        }
    }

    /// The settings behind one reference: this value sits in the async frame of every caller awaiting a response
    /// that carries it, often a subscription's whole life.
    private let settings: Settings

    private final class Settings: Sendable {
        let body: StreamedBody
        let maximumEventSize: Int
        let reconnection: Reconnection?

        init(body: StreamedBody, maximumEventSize: Int, reconnection: Reconnection?) {
            self.body = body
            self.maximumEventSize = maximumEventSize
            self.reconnection = reconnection
        }
    }

    /// `nil`: the sequence ends with the body.
    public var reconnection: Reconnection? { settings.reconnection }
    private var body: StreamedBody { settings.body }
    private var maximumEventSize: Int { settings.maximumEventSize }

    public init(streamedBody: StreamedBody) {
        self.init(
            body: streamedBody, maximumEventSize: Self.defaultMaximumEventSize, reconnection: nil)
    }

    /// The largest event, and the largest line, read by default: 1 MiB — far above any event a streaming API sends,
    /// far below what would hurt a client.
    public static let defaultMaximumEventSize = EventStreamParser.defaultMaximumEventSize

    /// Events read from `stream`, which cannot reconnect (it does not know the call that made it).
    public init(_ stream: ResponseBodyStream, maximumEventSize: Int = Self.defaultMaximumEventSize) {
        self.init(body: StreamedBody(stream: stream), maximumEventSize: maximumEventSize, reconnection: nil)
    }

    private init(body: StreamedBody, maximumEventSize: Int, reconnection: Reconnection?) {
        settings = Settings(body: body, maximumEventSize: maximumEventSize, reconnection: reconnection)
    }

    /// The same events, reconnecting by `policy` when the stream drops. Only a sequence returned by
    /// ``/RestingCore/RestingClient/perform(_:)`` can reconnect; others end with their body.
    public func reconnecting(_ policy: Reconnection = Reconnection()) -> ServerSentEvents {
        ServerSentEvents(body: body, maximumEventSize: maximumEventSize, reconnection: policy)
    }

    /// The same events with a different limit on the size of one event (1 MiB by default).
    public func maximumEventSize(_ bytes: Int) -> ServerSentEvents {
        ServerSentEvents(body: body, maximumEventSize: bytes, reconnection: reconnection)
    }

    /// A subscription's reading state, behind the iterator's one reference: a reader's frame holds the iterator for
    /// the subscription's whole life.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let reader: EventReader

        public mutating func next() async throws -> ServerSentEventMessage? { try await reader.next() }
    }

    /// What ``AsyncIterator`` reads with; ends the call when the last copy of the iterator is gone, however the
    /// reader left.
    fileprivate final class EventReader {
        private var chunks: ResponseBodyStream.AsyncIterator
        private var parser: EventStreamParser
        private let reconnection: Reconnection?
        private let reconnector: (any StreamReconnector)?
        private let lease: ReaderLease?
        private var ready = Batch<ServerSentEventMessage>()
        private var failedAttempts = 0
        private var serverDelay: Duration?
        private var isFinished = false

        init(
            chunks: ResponseBodyStream.AsyncIterator, parser: EventStreamParser, reconnection: Reconnection?,
            reconnector: (any StreamReconnector)?, lease: ReaderLease?
        ) {
            self.chunks = chunks
            self.parser = parser
            self.reconnection = reconnection
            self.reconnector = reconnector
            self.lease = lease
        }

        func next() async throws -> ServerSentEventMessage? {
            while true {
                if let event = ready.next() { return event }
                guard !isFinished else { return nil }
                // A copy (one reference wide) rather than an access to the stored iterator held across the wait.
                var current = chunks
                let drop: (any Error)?
                do {
                    if let chunk = try await current.next() {
                        try absorb(chunk)
                        continue
                    }
                    drop = nil
                } catch {
                    drop = error
                }
                try await bodyEnded(dropping: drop)
            }
        }

        /// The body ended or broke (`drop`): reconnects, or ends the events. Apart from ``next()`` to keep its frame
        /// small.
        @inline(never)
        private func bodyEnded(dropping drop: (any Error)?) async throws {
            parser.finish()
            try await reconnect(after: drop)
        }

        /// Parses `chunk` into the events ready to return. Not inlined into ``next()``, whose frame a reader holds
        /// while it waits for the next chunk — an open subscription's whole life.
        @inline(never)
        private func absorb(_ chunk: Data) throws {
            let events: [ServerSentEventMessage]
            do {
                events = try parser.parse(chunk)
            } catch {
                // An event over its limit: the call ends failed with it, not cancelled as a reader leaving would.
                chunks.fail(reading: error)
                throw error
            }
            ready.replace(with: events)
            if let delay = parser.reconnectionDelay { serverDelay = delay }
            if !events.isEmpty { failedAttempts = 0 }
        }

        /// The body ended (`drop` is `nil`) or broke: opens the next one, or ends the sequence.
        @inline(never)
        private func reconnect(after drop: (any Error)?) async throws {
            guard let reconnection, let reconnector else {
                isFinished = true
                if let drop { throw drop }
                return
            }
            guard Self.isReconnectable(drop) else { return try finish(reconnector, throwing: drop) }
            var lastFailure = drop
            while true {
                failedAttempts += 1
                guard failedAttempts <= reconnection.maximumAttempts else {
                    return try finish(reconnector, throwing: lastFailure)
                }
                let headers = parser.lastEventID.isEmpty ? [] : [(name: "Last-Event-ID", value: parser.lastEventID)]
                do {
                    try await reconnector.wait(reconnection.delay(server: serverDelay))
                    guard let stream = try await reconnector.reopen(headers) else {
                        return try finish(reconnector, throwing: nil)
                    }
                    chunks = stream.makeAsyncIterator()
                    parser = EventStreamParser(
                        lastEventID: parser.lastEventID, maximumEventSize: parser.maximumEventSize)
                    return
                } catch  where Self.isReconnectable(error) {
                    lastFailure = error
                } catch {
                    return try finish(reconnector, throwing: error)
                }
            }
        }

        /// Ends the sequence, and the call it reconnects.
        private func finish(_ reconnector: any StreamReconnector, throwing error: (any Error)?) throws {
            isFinished = true
            reconnector.finish(failing: error)
            if let error { throw error }
        }

        /// A clean end or a failed transport is worth another try; a status, a cancellation, an event too
        /// large are not.
        private static func isReconnectable(_ error: (any Error)?) -> Bool {
            guard let error else { return true }
            if case RestingError.transportFailed = error { return true }
            return false
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let reconnector = reconnection == nil ? nil : body.reconnector
        reconnector?.holdOpen()
        return AsyncIterator(
            reader: EventReader(
                chunks: body.stream.makeAsyncIterator(),
                parser: EventStreamParser(maximumEventSize: maximumEventSize),
                reconnection: reconnection, reconnector: reconnector, lease: reconnector.map(ReaderLease.init)))
    }

    /// Stops the events: the body being read (see ``/RestingCore/ResponseBodyStream/cancel()``) and any reconnection.
    public func cancel() {
        body.stream.cancel()
        body.reconnector?.cancel()
    }
}

/// A reconnecting reader's hold on its call: the call ends when the reader is gone (a `break`, a dropped
/// iterator), not only when the events end.
private final class ReaderLease: Sendable {
    let reconnector: any StreamReconnector
    init(_ reconnector: any StreamReconnector) { self.reconnector = reconnector }
    deinit { reconnector.finish(failing: nil) }
}

extension ResponseBodyStream {
    /// This body as Server-Sent Events (see ``ServerSentEvents``; reconnection needs the sequence that
    /// ``/RestingCore/RestingClient/perform(_:)`` returns).
    public var serverSentEvents: ServerSentEvents { ServerSentEvents(self) }
}
