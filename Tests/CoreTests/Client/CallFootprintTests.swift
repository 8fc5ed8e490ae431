import Foundation
import RestingServerHarness
import Testing

@testable import RestingCore

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
        arguments: [("perform", FootprintProbe.performBudget), ("stream", FootprintProbe.streamBudget)])
    func waitingCallFootprint(_ mode: String, budget: Int) async throws {
        let bytes = try await FootprintProbe.bytesPerWaitingCall(mode, count: 2000)
        #expect(bytes <= budget, "\(mode): \(bytes) bytes per waiting call, over the budget of \(budget)")
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

/// Tests/FootprintProbe's executable, built optimised by `make test`.
enum FootprintProbe {
    #if os(Linux)
    /// Bytes per call waiting in `perform` for a body read whole: 5 635 measured, plus a tenth.
    static let performBudget = 6_200
    /// Bytes per streamed call waiting for its head: 5 767 measured, plus a tenth.
    static let streamBudget = 6_350
    #else
    // Another allocator counts otherwise; not measured here, so half as much room again.
    static let performBudget = 9_300
    static let streamBudget = 9_500
    #endif

    static var executable: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("FootprintProbe/.build/release/FootprintProbe")
    }

    /// What the probe measured for `count` calls waiting at once, per call.
    static func bytesPerWaitingCall(_ mode: String, count: Int) async throws -> Int {
        let lines = try await withCheckedThrowingContinuation { continuation in
            // Reading a pipe blocks, which the cooperative pool must never do.
            DispatchQueue.global().async {
                do {
                    let probe = try ChildProcess(executable.path, [mode, String(count)])
                    var lines: [String] = []
                    while let line = probe.readLine() { lines.append(line) }
                    probe.waitForExit()
                    continuation.resume(returning: lines)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        let figure = lines.last.flatMap { $0.hasPrefix("bytes-per-call ") ? Int($0.dropFirst(15)) : nil }
        return try #require(figure, "FootprintProbe printed \(lines) (build it with make probe)")
    }
}
