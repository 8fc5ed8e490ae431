import RestingCore
import RestingCurl

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

// What a call costs in memory, measured in a process of its own built optimised, as an app is. Each mode prints one
// line per figure, "NAME VALUE", read by the tests' budgets (Tests/CoreTests/Client/CallFootprintTests.swift,
// Tests/CoreTests/Client/AllocationBudgetTests.swift) and by `make bench`.
//   FootprintProbe perform COUNT            heap bytes per call waiting in `perform` for a body read whole
//   FootprintProbe stream COUNT             heap bytes per streamed call waiting for its head
//   FootprintProbe get URL COUNT IN_FLIGHT  allocations per GET decoded from JSON through CurlClient
//   FootprintProbe get-streamed URL COUNT IN_FLIGHT   the same, its body read as a stream of lines
//   FootprintProbe links COUNT              allocations each quiet resilience link adds to a call
//   FootprintProbe lookups COUNT            generic metadata lookups per GET decoded through the pipeline alone
//   FootprintProbe listener COUNT           allocations per event delivered to a listener
//   FootprintProbe websocket URL COUNT      allocations per message echoed by a WebSocket server
//   FootprintProbe resident URL             resident memory (KiB) of this process after one GET through CurlClient
//   FootprintProbe resident-floor URL       the same after one libcurl GET decoded by JSONDecoder, without RestingKit

/// Ends the probe with `message` on its output, where the test that ran it shows it.
func fail(_ message: String) -> Never {
    print("FootprintProbe: \(message)")
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? ""
let url = arguments.count > 1 ? URL(string: arguments[1]) : nil
func number(at index: Int) -> Int {
    guard arguments.count > index, let value = Int(arguments[index]), value > 0 else { fail("usage: see main.swift") }
    return value
}
/// Prints "NAME VALUE" with the value to two decimals (String(format:) is Foundation's, which the probe does not link).
func printFigure(_ name: String, _ value: Double) {
    let hundredths = Int((value * 100).rounded())
    let fraction = abs(hundredths % 100)
    print(name, "\(hundredths < 0 ? "-" : "")\(abs(hundredths / 100)).\(fraction < 10 ? "0" : "")\(fraction)")
}

do {
    switch mode {
    case "perform", "stream":
        print("bytes-per-call", await bytesPerWaitingCall(count: number(at: 1), streamed: mode == "stream"))
    case "perform-resilient":
        let bytes = await bytesPerWaitingCall(count: number(at: 1), streamed: false, links: resilienceLinks)
        print("bytes-per-call", bytes)
    case "get", "get-streamed":
        guard let url else { fail("no URL") }
        let figure = try await Allocations.curlGet(
            url, total: number(at: 2), concurrency: number(at: 3), streamed: mode == "get-streamed")
        printFigure("allocations-per-call", figure)
    case "links":
        for (link, added) in try await Allocations.quietLinks(total: number(at: 1)) { printFigure(link, added) }
    case "lookups":
        printFigure("metadata-lookups-per-call", try await MetadataLookups.perCall(total: number(at: 1)))
    case "listener":
        printFigure("allocations-per-event", try await Allocations.perEvent(total: number(at: 1)))
    case "websocket":
        guard let url else { fail("no URL") }
        printFigure("allocations-per-message", try await Allocations.webSocketEcho(url, total: number(at: 2)))
    case "resident":
        guard let url else { fail("no URL") }
        print("resident-kib", try await ResidentMemory.afterOneCall(url))
    case "resident-floor":
        guard let url else { fail("no URL") }
        print("resident-kib", try await ResidentFloor.afterOneGet(url))
    default:
        fail("unknown mode \(mode); see main.swift")
    }
} catch {
    fail("\(error)")
}
