import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Server-Sent Events from a byte stream, chunk by chunk, exactly as the WHATWG HTML standard
/// interprets an event stream: UTF-8 (a leading BOM skipped), lines ended by CRLF, LF or CR, `data` / `event`
/// / `id` / `retry` fields, comments, dispatch on a blank line, no dispatch without data, an `id` containing
/// NUL ignored, and a last event without its blank line discarded.
///
/// What ``ServerSentEvents`` reads a body with; apps iterate that instead. Any split of the same bytes into chunks yields the same events. Lines, and an event's data, larger than
/// `maximumEventSize` bytes as received fail with ``StreamElementTooLarge``.
package struct EventStreamParser: Sendable {
    /// The last event ID: set by `id:` fields, kept across events (and across reconnections).
    package private(set) var lastEventID: String
    /// The reconnection delay the server asked for with `retry:`, if it did.
    package private(set) var reconnectionDelay: Duration?
    /// The largest line, and the largest data of one event, in bytes.
    package let maximumEventSize: Int

    private var lines: LineSplitter
    private var isAtStart = true
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType = ""
    private var lastEventIDBuffer: String

    /// 1 MiB: far above any event a streaming API sends, far below what would hurt a client.
    package static let defaultMaximumEventSize = 1024 * 1024

    /// A parser at the start of a stream.
    ///
    /// - Parameters:
    ///   - lastEventID: The ID to start from (a reconnection continues from the previous stream's).
    ///   - maximumEventSize: The largest event accepted, in bytes; a larger one fails with
    ///     ``StreamElementTooLarge``.
    package init(lastEventID: String = "", maximumEventSize: Int = Self.defaultMaximumEventSize) {
        self.lastEventID = lastEventID
        lastEventIDBuffer = lastEventID
        self.maximumEventSize = maximumEventSize
        lines = LineSplitter(maximumLineLength: maximumEventSize)
    }

    /// Feeds the next chunk of the body; returns the events it completed, in order.
    package mutating func parse(_ chunk: Data) throws(StreamElementTooLarge) -> [ServerSentEventMessage] {
        var chunk = chunk
        if isAtStart, !chunk.isEmpty {
            // The BOM may itself be split across chunks: wait until three bytes (or a mismatch) are seen.
            isAtStart = false
            chunk = try strippingByteOrderMark(chunk)
            if isAtStart { return [] }
        }
        var events: [ServerSentEventMessage] = []
        // Moved out (not copied, which would copy its buffer on every write) while `process` mutates self.
        var lines = LineSplitter(maximumLineLength: maximumEventSize)
        swap(&lines, &self.lines)
        defer { self.lines = lines }
        try lines.append(chunk) { (line) throws(StreamElementTooLarge) in
            if let event = try process(line) { events.append(event) }
        }
        return events
    }

    /// The body ended. An event still missing its blank line is discarded, as the standard says.
    package mutating func finish() {
        if isAtStart, !pendingStart.isEmpty {
            // A body shorter than a BOM: parse what it held.
            let held = Data(pendingStart)
            pendingStart = []
            isAtStart = false
            _ = try? parse(held)
        }
        _ = lines.finish()
        data = []
        hasData = false
        eventType = ""
    }

    private var pendingStart: [UInt8] = []

    private mutating func strippingByteOrderMark(_ chunk: Data) throws(StreamElementTooLarge) -> Data {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let seen = pendingStart + chunk.prefix(3 - pendingStart.count)
        if seen.count < 3, byteOrderMark.starts(with: seen) {
            pendingStart = seen
            isAtStart = true
            return Data()
        }
        let held = pendingStart
        pendingStart = []
        if seen == byteOrderMark { return chunk.dropFirst(3 - held.count) }
        return Data(held) + chunk
    }

    private mutating func process(_ line: UnsafeBufferPointer<UInt8>) throws(StreamElementTooLarge)
        -> ServerSentEventMessage?
    {
        if line.isEmpty { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = UnsafeBufferPointer(rebasing: line[..<(colon ?? line.count)])
        var valueStart = colon.map { $0 + 1 } ?? line.count
        if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: line[valueStart...])
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            guard data.count + value.count + 1 <= maximumEventSize else {
                throw StreamElementTooLarge(limit: maximumEventSize)
            }
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case "id":
            if !value.contains(0) { lastEventIDBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if let delay = ServerDuration.parse(digits: value, unit: .milliseconds(1), for: .eventStreamRetry) {
                reconnectionDelay = delay
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEventMessage? {
        lastEventID = lastEventIDBuffer
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = ""
        }
        guard hasData else { return nil }
        return ServerSentEventMessage(
            event: eventType.isEmpty ? "message" : eventType,
            data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID)
    }
}
