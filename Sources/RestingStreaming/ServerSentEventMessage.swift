import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One event of a `text/event-stream` body, as the WHATWG HTML standard's event-stream interpretation
/// dispatches it.
public struct ServerSentEventMessage: Sendable, Equatable {
    /// The event type: the last `event:` field, or `"message"` when there was none.
    public var event: String
    /// The `data:` lines, joined with `"\n"`.
    public var data: String
    /// The stream's last event ID when this event was dispatched (an `id:` field sets it for this event and the
    /// following ones); empty when the server never sent one. What a reconnection sends as `Last-Event-ID`.
    public var lastEventID: String

    /// An event of type `event` with `data`, as the stream's last event id stood after it.
    public init(event: String = "message", data: String, lastEventID: String = "") {
        self.event = event
        self.data = data
        self.lastEventID = lastEventID
    }

    /// The event's data decoded as JSON.
    ///
    /// ```swift
    /// for try await event in events where event.data != "[DONE]" {
    ///     let token = try event.decode(Token.self)
    /// }
    /// ```
    public func decode<Value: Decodable>(_ type: Value.Type, using decoder: JSONDecoder = JSONDecoder())
        throws(RestingError) -> Value
    {
        try ResponseBodyDecoding.decode(type, from: Data(data.utf8), decoder: decoder)
    }
}
