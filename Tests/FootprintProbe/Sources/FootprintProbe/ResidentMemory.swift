import RestingCore
import RestingCurl

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The memory a process that uses RestingKit keeps resident.
enum ResidentMemory {
    /// Resident KiB after one GET decoded through `CurlClient`, the client kept: what an app pays for having made a
    /// call, its code, metadata and runtime state included.
    static func afterOneCall(_ url: URL) async throws -> Int {
        let client = RestingClient(baseUrl: Allocations.origin(of: url), httpClient: try CurlClient())
        _ = try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Answer>(.get, url.path))).value
        return withExtendedLifetime(client) { residentKiB() }
    }

    /// VmRSS from /proc/self/status (Linux); the task's resident size elsewhere.
    static func residentKiB() -> Int {
        #if os(Linux)
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        #else
        var info = mach_task_basic_info()
        var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
        let result = withUnsafeMutablePointer(to: &info) {
            $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                task_info(mach_task_self_, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
            }
        }
        return result == KERN_SUCCESS ? Int(info.resident_size) / 1024 : 0
        #endif
    }
}
