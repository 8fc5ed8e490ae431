import Foundation
import Testing

@testable import RestingCore
@testable import RestingStreaming

/// The event-stream interpretation of the WHATWG HTML standard (§9.2.6), from its own examples and field rules.
@Suite("Server-Sent Events parser")
struct ServerSentEventParserTests {
    /// Every event `text` dispatches, fed as one chunk.
    func events(_ text: String, lastEventID: String = "") throws -> [ServerSentEventMessage] {
        try events(in: [Data(text.utf8)], lastEventID: lastEventID)
    }

    func events(in chunks: [Data], lastEventID: String = "") throws -> [ServerSentEventMessage] {
        var parser = EventStreamParser(lastEventID: lastEventID)
        var events: [ServerSentEventMessage] = []
        for chunk in chunks { events += try parser.parse(chunk) }
        parser.finish()
        return events
    }

    @Test("the standard's stock example: three data lines make one event, joined with LF")
    func multilineData() throws {
        #expect(try events("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEventMessage(data: "YHOO\n+2\n10")])
    }

    @Test(
        "the standard's second example: a comment, ids set and reset, and a last event without its blank line discarded"
    )
    func idsAndTrailingEvent() throws {
        let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"
        #expect(
            try events(stream) == [
                ServerSentEventMessage(data: "first event", lastEventID: "1"),
                ServerSentEventMessage(data: "second event", lastEventID: ""),
            ])
    }

    @Test("the standard's third example: `data` alone is an empty line of data; two of them are one LF")
    func emptyData() throws {
        #expect(
            try events("data\n\ndata\ndata\n\ndata:") == [
                ServerSentEventMessage(data: ""), ServerSentEventMessage(data: "\n"),
            ])
    }

    @Test("the standard's fourth example: one leading space after the colon is dropped, no more")
    func leadingSpace() throws {
        #expect(
            try events("data:test\n\ndata: test\n\ndata:  two\n\n") == [
                ServerSentEventMessage(data: "test"), ServerSentEventMessage(data: "test"),
                ServerSentEventMessage(data: " two"),
            ])
    }

    @Test("`event` names the type for one event only; without it the type is `message`")
    func eventType() throws {
        #expect(
            try events("event: add\ndata: 1\n\ndata: 2\n\n") == [
                ServerSentEventMessage(event: "add", data: "1"), ServerSentEventMessage(event: "message", data: "2"),
            ])
    }

    @Test("a blank line without data dispatches nothing but still sets the last event ID, and resets the type")
    func noDispatchWithoutData() throws {
        var parser = EventStreamParser()
        #expect(try parser.parse(Data("id: 7\nevent: ping\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "7")
        #expect(try parser.parse(Data("data: x\n\n".utf8)) == [ServerSentEventMessage(data: "x", lastEventID: "7")])
    }

    @Test("an id containing NUL is ignored; the previous ID stays")
    func idWithNull() throws {
        #expect(
            try events("id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n") == [
                ServerSentEventMessage(data: "a", lastEventID: "1"),
                ServerSentEventMessage(data: "b", lastEventID: "1"),
            ])
    }

    @Test("`retry` takes ASCII digits only (milliseconds); anything else is ignored")
    func retry() throws {
        var parser = EventStreamParser()
        _ = try parser.parse(Data("retry: 2500\n".utf8))
        #expect(parser.reconnectionDelay == .milliseconds(2500))
        _ = try parser.parse(Data("retry: 1e3\nretry: -5\nretry:\nretry: 10 \n".utf8))
        #expect(parser.reconnectionDelay == .milliseconds(2500))
        _ = try parser.parse(Data("retry: 99999999999999999999999\n".utf8))
        #expect(
            parser.reconnectionDelay == .seconds(3600), "a delay past Int64 is the ceiling of a server's retry: an hour"
        )
    }

    @Test("CRLF, CR and LF all end lines; unknown fields and comments are ignored")
    func lineEndings() throws {
        #expect(
            try events("data: a\r\n\r\ndata: b\r\rfoo: bar\n: note\ndata: c\n\n") == [
                ServerSentEventMessage(data: "a"), ServerSentEventMessage(data: "b"), ServerSentEventMessage(data: "c"),
            ])
    }

    @Test("one leading BOM is skipped, even split across chunks; a second one is part of the field name")
    func byteOrderMark() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try events(in: [Data(bom + Array("data: x\n\n".utf8))]) == [ServerSentEventMessage(data: "x")])
        #expect(
            try events(in: [Data(bom[..<1]), Data(bom[1...] + Array("data: x\n\n".utf8))]) == [
                ServerSentEventMessage(data: "x")
            ])
        #expect(
            try events(in: [Data(bom + bom + Array("data: x\n\n".utf8))]).isEmpty, "\u{FEFF}data is not a known field")
    }

    @Test("a reconnection continues from the previous stream's last event ID")
    func continuesLastEventID() throws {
        #expect(try events("data: x\n\n", lastEventID: "41") == [ServerSentEventMessage(data: "x", lastEventID: "41")])
    }

    @Test("a line or an event larger than the limit fails; the limit is what bounds memory")
    func sizeLimits() throws {
        var longLine = EventStreamParser(maximumEventSize: 16)
        #expect(throws: StreamElementTooLarge(limit: 16)) {
            _ = try longLine.parse(Data(("data: " + String(repeating: "x", count: 20)).utf8))
        }
        var manyLines = EventStreamParser(maximumEventSize: 16)
        #expect(throws: StreamElementTooLarge(limit: 16)) {
            for _ in 0..<10 { _ = try manyLines.parse(Data("data: abc\n".utf8)) }
        }
    }

    @Test("decode reads an event's data as JSON, with a typed error naming the type")
    func decode() throws {
        struct Token: Decodable, Equatable { let text: String }
        #expect(try ServerSentEventMessage(data: #"{"text":"hi"}"#).decode(Token.self) == Token(text: "hi"))
        #expect(throws: RestingError.self) { _ = try ServerSentEventMessage(data: "[DONE]").decode(Token.self) }
    }

    static let samples = [
        ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n",
        "\u{FEFF}event: add\r\ndata: {\"a\":1}\r\ndata: é ü\r\n\r\nretry: 10\rid: 9\rdata\r\r",
        "data: YHOO\ndata: +2\ndata: 10\n\n: comment\n\nid: x\u{0}y\ndata: 😀\n\n",
    ]

    @Test("splitting the same bytes at any point, or at many random points, gives the same events", arguments: samples)
    func everySplitGivesTheSameEvents(_ sample: String) throws {
        let bytes = Array(sample.utf8)
        let whole = try events(in: [Data(bytes)])
        #expect(!whole.isEmpty)
        for split in 0...bytes.count {
            #expect(try events(in: [Data(bytes[..<split]), Data(bytes[split...])]) == whole, "split at \(split)")
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let cuts = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                Int.random(in: 0...bytes.count, using: &random)
            }.sorted()
            let chunks = zip([0] + cuts, cuts + [bytes.count]).map { Data(bytes[$0..<$1]) }
            #expect(try events(in: chunks) == whole, "cuts at \(cuts)")
        }
    }
}
