#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Server-Sent Events from a byte stream, chunk by chunk, as the WHATWG HTML standard interprets an event
/// stream. Deprecated: it is how ``ServerSentEvents`` reads a body, and an app iterates that instead
/// (`Endpoint<Nothing, ServerSentEvents>`, or `ServerSentEvents(stream)` over any ``ResponseBodyStream``).
@available(*, deprecated, message: "iterate ServerSentEvents, which parses the stream; the parser becomes internal")
public struct ServerSentEventParser: Sendable {
    private var parser: EventStreamParser

    /// The last event ID: set by `id:` fields, kept across events (and across reconnections).
    public var lastEventID: String { parser.lastEventID }
    /// The reconnection delay the server asked for with `retry:`, if it did.
    public var reconnectionDelay: Duration? { parser.reconnectionDelay }
    /// The largest line, and the largest data of one event, in bytes.
    public var maximumEventSize: Int { parser.maximumEventSize }
    /// 1 MiB: ``ServerSentEvents/defaultMaximumEventSize``.
    public static var defaultMaximumEventSize: Int { ServerSentEvents.defaultMaximumEventSize }

    /// A parser at the start of a stream, from `lastEventID`, accepting events of up to `maximumEventSize` bytes.
    public init(lastEventID: String = "", maximumEventSize: Int = ServerSentEvents.defaultMaximumEventSize) {
        parser = EventStreamParser(lastEventID: lastEventID, maximumEventSize: maximumEventSize)
    }

    /// Feeds the next chunk of the body; returns the events it completed, in order.
    public mutating func parse(_ chunk: Data) throws(RestingError) -> [ServerSentEventMessage] {
        try parser.parse(chunk)
    }

    /// Ends the stream: a last event without its blank line is discarded, as the standard says.
    public mutating func finish() { parser.finish() }
}
