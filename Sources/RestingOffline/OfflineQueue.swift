import RestingCore

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
/// - **Durable:** each entry is a file written with an atomic rename and `fsync`; a replayed entry is removed
///   only after a success response, so a crash between the two sends it again. Every request carries one
///   `Idempotency-Key` from its first send to its last replay, so a server can recognise a second delivery.
/// - **Private:** the directory is created (or reset) to mode 0700 and its files 0600; a directory that is a
///   symbolic link is refused. Credentials are never stored (the header provider and interceptors add fresh
///   ones on replay); bodies, queries and path variables are, as they must be to replay.
/// - **Faithful:** a replay means what the call meant: the same base URL, and the same attributes
///   (``/RestingCore/PersistentRequestAttributeKey``) — a request marked `requiresAuthentication = false` is replayed
///   without the app's token. An entry whose value of one of the core's attributes (whether it needs credentials,
///   whether it may be retried) does not decode, or that names a body file not its own, is quarantined, never sent;
///   any other module's attribute decodes when its key is read, and one that no longer does reads as its default.
/// - **One owner:** a queue locks its directory while it exists; a second queue on the same directory (in this
///   process or another) fails to open instead of replaying the same entries and deleting the other's bodies.
/// - **Bounded in memory:** bodies over 64 KiB (multipart uploads of files included) stream into a file of
///   their own and stream out again on replay.
/// - **Never jammed:** an entry that cannot be read (truncated, corrupt) is moved to `quarantine/` and
///   skipped, counted in ``ReplayReport/quarantined``; files that are not entries (`.DS_Store`) are ignored.
/// - **One replay at a time:** a replay started while another runs waits for it, then sends what is left.
///
/// Replay stops at the first failure and leaves the rest for next time.
public final class OfflineQueue: Sendable {
    /// What a replay did.
    public struct ReplayReport: Sendable {
        /// Requests delivered and removed from the queue.
        public let sent: Int
        /// Requests still queued, for the next replay.
        public let remaining: Int
        /// Why the replay stopped early, if it did.
        public let stoppedBy: (any Error)?
        /// Entries that could not be read and were moved to the quarantine folder.
        public var quarantined = 0
    }

    /// Which failures keep a request for later.
    public enum DeliveryPolicy: Sendable {
        /// Keep a request when the failure proves it never reached the server (no connection, no DNS), or when
        /// its method is idempotent (sending it twice does no harm). A `POST` that timed out or was reset may
        /// have been acted on: it fails without being kept.
        case keepOnlyUndelivered
        /// Also keep non-idempotent requests after a timeout or a reset. Replaying them may deliver them twice:
        /// choose it only for servers that honour `Idempotency-Key`.
        case keepPossiblyDelivered
    }

    private let store: DurableDirectory
    /// Held for the queue's lifetime: no other queue opens the directory meanwhile.
    private let ownership: DirectoryLock
    /// The last sequence number taken: entries are named by it, so that they sort oldest first.
    private let writer = Locked(UInt64(0))
    private let replays = ReplayGate()

    /// Opens (or creates) the queue in `directory`, failing if another queue has it open. A request's
    /// ``/RestingCore/PersistentRequestAttributeKey`` values are kept with it and replayed, whichever module's keys
    /// they are. `redaction` is kept for source compatibility: every header that carries a credential
    /// (``/RestingCore/HTTPHeaderFields/Field/carriesCredential``) is left out of stored entries.
    public init(
        directory: URL, redaction: RedactionPolicy = .default
    ) throws(RestingError) {
        store = try DurableDirectory(directory)
        ownership = try DirectoryLock(store)
        let names = try store.names()
        let last = names.compactMap { Self.isEntryName($0) ? UInt64($0.prefix(16)) : nil }.max() ?? 0
        writer.withLock { $0 = last }
        // A body file whose entry was never written (a crash between the two) belongs to no request.
        let entries = Set(names.filter(Self.isEntryName).map { $0.dropFirst(17).dropLast(5) })
        for name in names where name.hasSuffix(".body") && !entries.contains(name.dropLast(5)) {
            try store.remove(name)
        }
    }

    /// The entries waiting, oldest first; unreadable ones are quarantined and left out.
    public func entries() throws(RestingError) -> [OfflineEntry] {
        try readableEntries().entries.map(\.entry)
    }

    /// Keeps `request` for a later replay; the entry, and its body, are on disk when this returns. `baseUrl` is
    /// the one the call was converted against (`nil`: the replaying client's).
    @discardableResult
    public func enqueue<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, baseUrl: String? = nil,
        configuration: RestingRequestConverter.Configuration = RestingRequestConverter.Configuration()
    ) throws(RestingError) -> OfflineEntry {
        let (entry, bodyToStore) = try OfflineEntry.make(request, baseUrl: baseUrl, configuration: configuration)
        let data: Data
        do {
            data = try JSONEncoder().encode(entry)
        } catch {
            throw .encodingFailed(reason: "offline entry: \(error)")
        }
        // The body first: an entry on disk always has its body.
        if let bodyToStore, let bodyFile = entry.bodyFile { try store.write(bodyToStore, as: bodyFile) }
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

    /// Whether `name` is an entry's file (and not a body, a quarantine folder or a stranger's file).
    static func isEntryName(_ name: String) -> Bool {
        name.utf8.count > 22 && name.hasSuffix(".json") && name.utf8.prefix(16).allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            && name.utf8.dropFirst(16).first == UInt8(ascii: "-")
    }

    /// Removes an entry without sending it (a request the server will never accept, say).
    public func discard(_ entry: OfflineEntry) throws(RestingError) {
        for name in try store.names() where Self.isEntryName(name) && name.contains(entry.id) {
            try remove(name, entry)
        }
    }

    /// Sends the entries in order through `client` — its providers and interceptors apply — removing each after
    /// a success response, and stops at the first failure. Waits for a replay already running to end first.
    public func replay(
        with client: RestingClient, progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)? = nil
    ) async throws -> ReplayReport {
        try await replays.exclusively {
            let (entries, quarantined) = try readableEntries()
            var sent = 0
            for (name, entry) in entries {
                do {
                    if let bodyFile = entry.bodyFile {
                        try await send(
                            entry.request(body: store.file(bodyFile)), entry, client)
                    } else {
                        try await send(
                            entry.request(body: entry.body ?? Data()), entry, client)
                    }
                } catch {
                    var report = ReplayReport(sent: sent, remaining: entries.count - sent, stoppedBy: error)
                    report.quarantined = quarantined
                    return report
                }
                try remove(name, entry)
                sent += 1
                progress?(sent, entries.count)
            }
            var report = ReplayReport(sent: sent, remaining: 0, stoppedBy: nil)
            report.quarantined = quarantined
            return report
        }
    }

    /// Sends an entry's request to the base URL it was kept with.
    private func send<Body>(_ request: RestingRequest<Body, Data>, _ entry: OfflineEntry, _ client: RestingClient)
        async throws
    {
        _ = try await client.perform(request, baseUrl: entry.baseUrl ?? client.baseUrl).value
    }

    /// The entries that decode, oldest first, after moving those that do not to the quarantine folder.
    private func readableEntries() throws(RestingError) -> (
        entries: [(name: String, entry: OfflineEntry)], quarantined: Int
    ) {
        var entries: [(String, OfflineEntry)] = []
        var quarantined = 0
        for name in try store.names() where Self.isEntryName(name) {
            if let data = try? store.read(name), let entry = try? JSONDecoder().decode(OfflineEntry.self, from: data),
                entry.namesAreSafe, entry.bodyFile.map({ FileIO.size(of: store.file($0)) != nil }) ?? true,
                RequestAttributes(restoring: entry.attributes ?? [:])
                    .restoredValuesDecode(for: RequestAttributes.corePersistentKeys)
            {
                entries.append((name, entry))
            } else {
                try store.quarantine(name)
                quarantined += 1
            }
        }
        return (entries, quarantined)
    }

    /// Removes the entry first, then its body: a crash between leaves a body that the next open removes.
    private func remove(_ name: String, _ entry: OfflineEntry) throws(RestingError) {
        try store.remove(name)
        if let bodyFile = entry.bodyFile { try store.remove(bodyFile) }
    }

    /// Whether `error` means the network could not be reached, so that a request is worth keeping.
    public static func isConnectivityFailure(_ error: any Error) -> Bool {
        guard case RestingError.transportFailed(let failure) = error else { return false }
        return [.connectionFailed, .dnsFailed, .timedOut, .connectionReset].contains(failure.kind)
    }

    /// Whether a request with `method` that failed with `error` is kept under `policy`.
    static func keeps(_ method: RequestMethod, after error: any Error, policy: DeliveryPolicy) -> Bool {
        guard case RestingError.transportFailed(let failure) = error, isConnectivityFailure(error) else { return false }
        let undelivered = failure.kind == .connectionFailed || failure.kind == .dnsFailed
        return undelivered || method.isIdempotent || policy == .keepPossiblyDelivered
    }
}

/// Runs one operation at a time, in the order they asked.
private final class ReplayGate: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func exclusively<T>(_ operation: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let enter = state.withLock { state in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if enter { continuation.resume() }
        }
        defer {
            // Hand the gate straight to the next in line, or open it.
            let next = state.withLock { state in
                guard !state.waiting.isEmpty else {
                    state.busy = false
                    return CheckedContinuation<Void, Never>?.none
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await operation()
    }
}

extension RestingClient {
    /// Performs `request`; when it fails because the network is unreachable, keeps it in `queue` for a later
    /// ``OfflineQueue/replay(with:progress:)``. The promise still fails with the connectivity error (or, when
    /// the request could not be stored either, ``OfflineStorageFailure``).
    ///
    /// The request is sent with an `Idempotency-Key` — its own if it has one — and a kept request is replayed
    /// with the same key. Under the default `policy` a non-idempotent request is kept only when the failure
    /// proves it never reached the server (see ``OfflineQueue/DeliveryPolicy``).
    public func perform<RequestType, ResponseType>(
        _ request: RestingRequest<RequestType, ResponseType>, storingOfflineIn queue: OfflineQueue,
        ifDeliveryUncertain policy: OfflineQueue.DeliveryPolicy = .keepOnlyUndelivered
    ) -> ProgressablePromise<RestingResponse<ResponseType>> {
        let configuration = (requestConverter as? RestingRequestConverter)?.configuration ?? .init()
        // Read once: the first send and the kept entry address the same API.
        let baseUrl = self.baseUrl
        var keyed = request
        if !keyed.headers.contains("Idempotency-Key") { keyed.headers["Idempotency-Key"] = UUID().uuidString }
        return perform(keyed, baseUrl: baseUrl).recover { [keyed] error throws -> RestingResponse<ResponseType> in
            guard OfflineQueue.keeps(keyed.endpoint.method, after: error, policy: policy),
                case RestingError.transportFailed(let original) = error
            else { throw error }
            do {
                try queue.enqueue(keyed, baseUrl: baseUrl, configuration: configuration)
            } catch {
                throw OfflineStorageFailure(original: original, reason: "\(error)")
            }
            throw error
        }
    }
}
