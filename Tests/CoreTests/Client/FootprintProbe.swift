import Foundation
import RestingServerHarness
import Testing

/// Tests/FootprintProbe's executable, built optimised by `make test` (`make probe`): the figures the memory and
/// allocation budgets check, each measured in a process of its own, where no other test allocates.
enum FootprintProbe {
    #if os(Linux)
    /// Bytes per call waiting in `perform` for a body read whole: 5 586 measured, plus a tenth (5 635 before an
    /// execution's call kept one frame, not two).
    static let performBudget = 6_150
    /// Bytes per streamed call waiting for its head: 5 767 measured, plus a tenth.
    static let streamBudget = 6_350
    /// Bytes per call waiting in `perform` behind the five resilience links (deadline, breaker, retry, rate and
    /// concurrency limits), quiet: 10 154 measured, plus a tenth (16 240 before each link kept its working out of
    /// the frame it holds while the call is out; 12 377–12 383 before an execution's call kept one frame, not two,
    /// and a pass through the chain allocated one object for all its steps; 11 176–11 194 before a call's task was
    /// started with its registry membership instead of binding it in frames of its own).
    static let resilientBudget = 11_200
    #else
    // Another allocator counts otherwise; not measured here, so half as much room again.
    static let performBudget = 9_300
    static let streamBudget = 9_500
    static let resilientBudget = 18_600
    #endif

    static var executable: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("FootprintProbe/.build/release/FootprintProbe")
    }

    /// The lines "NAME VALUE" the probe printed when run with `arguments`, as a dictionary.
    static func figures(_ arguments: [String]) async throws -> [String: Double] {
        let lines = try await withCheckedThrowingContinuation { continuation in
            // Reading a pipe blocks, which the cooperative pool must never do.
            DispatchQueue.global().async {
                do {
                    let probe = try ChildProcess(executable.path, arguments)
                    var lines: [String] = []
                    while let line = probe.readLine() { lines.append(line) }
                    probe.waitForExit()
                    continuation.resume(returning: lines)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        var figures: [String: Double] = [:]
        for line in lines {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = Double(fields[1]) { figures[String(fields[0])] = value }
        }
        return figures
    }

    /// The one figure `name` the probe printed when run with `arguments`.
    static func figure(_ name: String, _ arguments: [String]) async throws -> Double {
        let printed = try await figures(arguments)
        return try #require(printed[name], "FootprintProbe \(arguments) printed \(printed) (build it with make probe)")
    }
}
