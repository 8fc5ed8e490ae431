import RestingCore

/// The network failed (`original`) and the request could not be kept in the offline queue either (`reason`: a full
/// disk, say): it is neither delivered nor stored.
///
/// ```swift
/// do {
///     _ = try await client.perform(post, storingOfflineIn: queue).value
/// } catch let failure as OfflineStorageFailure {
///     showError("not sent, and not kept: \(failure.reason)")
/// }
/// ```
public struct OfflineStorageFailure: CallFailure, Equatable {
    /// Why the network failed.
    public let original: TransportError
    /// Why the request could not be stored.
    public let reason: String

    /// `offlineStorageFailed`.
    public var errorType: String { "offlineStorageFailed" }

    /// Both failures.
    public var description: String {
        "transport failed: \(original); the request could not be kept offline either: \(reason)"
    }
}
