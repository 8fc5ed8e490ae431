import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A deadline that flows from the task making calls into every call it makes: a server handling a request with
/// its own deadline hands it down, so that its downstream calls end when its caller stops waiting.
///
/// ``DeadlineInterceptor`` ends a call at the earlier of its own limit and this one. Calls made inside
/// `withValue` carry it, whichever task their promise runs on. A call this deadline ends fails with
/// `RestingError.deadlineExceeded` whose `limit` is `.call` (it bounds the whole call, as the interceptor's own call
/// limit does) and whose `stage` says where the call was: `.start` when the deadline had passed before it began.
///
/// ```swift
/// try await CallDeadline.$current.withValue(Date() + 0.8) {
///     let profile = try await client.perform(getProfile).value.body   // ends within 800 ms
/// }
/// ```
public enum CallDeadline {
    /// The deadline of calls made by the current task, if it has one.
    @TaskLocal public static var current: Date?
}
