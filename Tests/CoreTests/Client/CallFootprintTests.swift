import Foundation
import Testing

@testable import RestingCore
@testable import RestingStreaming

/// What a call costs the code that waits for it: an async function keeps every value it holds across an `await` in
/// its task's memory, for as long as it waits — a subscription's whole life for a streamed call. The values passed
/// along a call are one reference each, whatever they carry.
@Suite("Call footprint")
struct CallFootprintTests {
    let events = Endpoint<Nothing, ServerSentEvents>(.get, "/events", encoding: .query)

    @Test("a request, a response, a streamed body and its iterator are each one reference in a caller's frame")
    func oneReferenceEach() {
        let pointer = MemoryLayout<AnyObject>.size
        #expect(MemoryLayout<RestingRequest<Nothing, ServerSentEvents>>.size == pointer)
        #expect(MemoryLayout<RestingRequest<[String: String], Data>>.size == pointer)
        #expect(MemoryLayout<HTTPRequest>.size == pointer)
        #expect(MemoryLayout<HTTPDataResponse>.size == pointer)
        #expect(MemoryLayout<ServerSentEvents>.size == pointer)
        #expect(MemoryLayout<ServerSentEvents.AsyncIterator>.size == pointer)
        #expect(
            MemoryLayout<RestingResponse<ServerSentEvents>>.size == 2 * pointer, "the head's reference and the body")
    }

    /// The heap a waiting call holds, per call, in the optimised FootprintProbe (Tests/FootprintProbe, built by
    /// `make test`): a promise's task, its frames from the task's start to the transport, the call's registration.
    /// A task's frames live in slabs of about 1 KiB, so a frame that grows past a slab's end costs a whole slab per
    /// call: undoing one of the splits that keep a waiting frame small (a helper inlined into the function that
    /// awaits the response, a generic frame more between the task's start and the transport) fails this. The
    /// budgets are the figures measured on Linux (glibc) with a tenth's room, less than a slab.
    @Test(
        "a call waiting for its response holds no more heap than it did when its frames were last measured",
        arguments: [
            ("perform", FootprintProbe.performBudget), ("stream", FootprintProbe.streamBudget),
            ("perform-resilient", FootprintProbe.resilientBudget),
        ])
    func waitingCallFootprint(_ mode: String, budget: Int) async throws {
        let bytes = try await FootprintProbe.figure("bytes-per-call", [mode, "2000"])
        #expect(bytes <= Double(budget), "\(mode): \(bytes) bytes per waiting call, over the budget of \(budget)")
    }

    @Test("a copy of a request is changed on its own: the fields are copied when a shared request is written")
    func requestIsAValue() {
        var original = RestingRequest(
            endpoint: events, headers: ["Accept": "text/event-stream"], pathVariables: ["id": 1])
        var copy = original
        copy.headers.replaceOrAdd(name: "Accept", value: "application/json")
        copy.pathVariables["id"] = 2
        copy.queryItems.append(URLQueryItem(name: "since", value: "7"))
        copy.timeout = .seconds(5)
        #expect(original.headers["Accept"] == "text/event-stream")
        #expect(original.pathVariables["id"] as? Int == 1)
        #expect(original.queryItems.isEmpty && original.timeout == nil)
        #expect(copy.headers["Accept"] == "application/json" && copy.pathVariables["id"] as? Int == 2)

        original.attributes.operationID = "subscribe"
        #expect(original.attributes.operationID == "subscribe" && copy.attributes.operationID == nil)
    }
}
