#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The time source of interceptors that wait (retry backoff) or read dates (`Retry-After`). Inject
/// `VirtualClock` (RestingTesting) in tests so that backoff takes no real time.
public protocol InterceptorClock: Sendable {
    /// Waits `duration`; throws when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// The current wall-clock date, for HTTP dates.
    var now: Date { get }
}

/// The real clock.
public struct SystemClock: InterceptorClock {
    /// The system's clock.
    public init() {}
    public func sleep(for duration: Duration) async throws {
        // The plain sleep where it can count the duration: the hedging link's timer, cut short on nearly every call,
        // allocated twice more a call through the extra frame.
        guard duration < .effectivelyForever else { return try await Task.sleep(forAnyDuration: duration) }
        try await Task.sleep(for: duration)
    }
    public var now: Date { Date() }
}
