#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Requests kept on disk while the network is unreachable and sent later, in order (Malibu's
/// `storePolicy: .offline` and `replay()`, with every request kept — not one per URL — and nothing lost or
/// duplicated in the store when the process is killed at any instant).
///
/// ```swift
/// let queue = try OfflineQueue(directory: appSupport.appendingPathComponent("outbox"))
/// client.perform(createPost, storingOfflineIn: queue)     // kept if the network is unreachable
/// // … later, when the network is back:
/// let report = try await queue.replay(with: client) { done, total in print("\(done)/\(total)") }
/// ```
///
/// Each entry is a file written with an atomic rename and `fsync`; a replayed entry is removed only after a
/// success response, so a crash between the two sends it again: it carries an `Idempotency-Key` for servers
/// to recognise the second delivery. Replay stops at the first failure and leaves the rest for next time.
public final class OfflineQueue: Sendable {
    /// What a replay did.
    public struct ReplayReport: Sendable {
        public let sent: Int
        public let remaining: Int
        /// Why the replay stopped early, if it did.
        public let stoppedBy: (any Error)?
    }

    private let store: DurableDirectory
    private let redaction: RedactionPolicy
    /// The last sequence number taken: entries are named by it, so that they sort oldest first.
    private let writer = Locked(UInt64(0))

    public init(directory: URL, redaction: RedactionPolicy = .default) throws(RestingError) {
        store = try DurableDirectory(directory)
        self.redaction = redaction
        let last = try store.names().compactMap { UInt64($0.prefix(16)) }.max() ?? 0
        writer.withLock { $0 = last }
    }

    /// The entries waiting, oldest first.
    public func entries() throws(RestingError) -> [OfflineEntry] {
        try store.names().map { name throws(RestingError) in try decode(name) }
    }

    /// Keeps `request` for a later replay; the entry is on disk when this returns.
    @discardableResult
    public func enqueue<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>,
        configuration: RestingRequestConverter.Configuration = RestingRequestConverter.Configuration()
    ) throws(RestingError) -> OfflineEntry {
        let entry = try OfflineEntry(request, configuration: configuration, redaction: redaction)
        let data: Data
        do {
            data = try JSONEncoder().encode(entry)
        } catch {
            throw .encodingFailed(reason: "offline entry: \(error)")
        }
        // Only the number is taken under the lock; names sort in the order numbers were taken.
        let sequence = writer.withLock { sequence in
            sequence += 1
            return sequence
        }
        try store.write(data, as: Self.fileName(sequence: sequence, id: entry.id))
        return entry
    }

    /// `0000000000000042-<id>.json`: zero-padded, so that names sort in the order their numbers were taken.
    static func fileName(sequence: UInt64, id: String) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits + "-" + id + ".json"
    }

    /// Removes an entry without sending it (a request the server will never accept, say).
    public func discard(_ entry: OfflineEntry) throws(RestingError) {
        for name in try store.names() where name.contains(entry.id) { try store.remove(name) }
    }

    /// Sends the entries in order through `client` — its providers and interceptors apply — removing each after
    /// a success response, and stops at the first failure.
    public func replay(
        with client: RestingClient, progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)? = nil
    ) async throws -> ReplayReport {
        let names = try store.names()
        var sent = 0
        for name in names {
            let entry = try decode(name)
            do {
                _ = try await client.perform(entry.request()).value
            } catch {
                return ReplayReport(sent: sent, remaining: names.count - sent, stoppedBy: error)
            }
            try store.remove(name)
            sent += 1
            progress?(sent, names.count)
        }
        return ReplayReport(sent: sent, remaining: 0, stoppedBy: nil)
    }

    private func decode(_ name: String) throws(RestingError) -> OfflineEntry {
        let data = try store.read(name)
        do {
            return try JSONDecoder().decode(OfflineEntry.self, from: data)
        } catch {
            throw .decodingFailed(type: "OfflineEntry", underlying: error, body: data)
        }
    }

    /// Whether `error` means the network could not be reached, so that a request is worth keeping.
    public static func isConnectivityFailure(_ error: any Error) -> Bool {
        guard case RestingError.transportFailed(let failure) = error else { return false }
        return [.connectionFailed, .dnsFailed, .timedOut, .connectionReset].contains(failure.kind)
    }
}

extension RestingClient {
    /// Performs `request`; when it fails because the network is unreachable, keeps it in `queue` for a later
    /// ``OfflineQueue/replay(with:progress:)``. The promise still fails with the connectivity error.
    public func perform<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, storingOfflineIn queue: OfflineQueue
    ) -> ProgressablePromise<HTTPResponse<ResponseType>> {
        let configuration = (requestConverter as? RestingRequestConverter)?.configuration ?? .init()
        return perform(request).recover { error throws -> HTTPResponse<ResponseType> in
            if OfflineQueue.isConnectivityFailure(error) { try queue.enqueue(request, configuration: configuration) }
            throw error
        }
    }
}
